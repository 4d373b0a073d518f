"""The calibration's check of the design study: its sizes held against run populations it never drew."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from robustness.simulation import grid as grid_module
from robustness.simulation.worlds import RunPopulation
from robustness.studies.design_base import DesignStudyOptions
from robustness.studies.design_check import DesignCheck, DesignCheckOptions, calibration_rows, check_design

#: A design study of a few seconds: five runs, tiny images, three run populations, a search to 40 encounters.
TINY = DesignStudyOptions(encounters=(5, 10), annotators=(3,), agreement=(0.6,), runs=(5,), replicates=3,
                          populations=3, pool=40, orders=4, bootstrap=10, image_mp=0.002, max_encounters=40)


def _default_challenge():
    from robustness.synthetic.challenge import SyntheticConfig

    return SyntheticConfig()  # what the check plans around


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    cache = tmp_path_factory.mktemp("design-check")
    return check_design(DesignCheckOptions(populations=3, test_sets=2, design=TINY), cache_dir=cache), cache


def _isotonic_by_hand(y, w):
    """The non-increasing weighted least-squares fit: the min over starts a <= i of the max over ends b >= i of the
    weighted mean of y[a..b] (the min-max formula of isotonic regression; obviously right, cubic)."""
    y, w = np.asarray(y, float), np.asarray(w, float)
    n = len(y)
    mean = lambda a, b: np.dot(y[a:b + 1], w[a:b + 1]) / w[a:b + 1].sum()  # noqa: E731
    return np.array([min(max(mean(a, b) for b in range(i, n)) for a in range(i + 1)) for i in range(n)])


@pytest.mark.slow
def test_new_populations_are_the_study_s_own_kind_beyond_its_indices_and_their_need_is_read_off(checked, monkeypatch):
    """The new run populations come after the study's own indices; each is measured at every size the study simulated
    and at its claims, over test sets drawn from the new populations' streams; the curve is the isotonic fit of the
    means and the need is its log-linear crossing of the target; a second call resumes from the cache."""
    from robustness.overlap import OverlapOptions, compute_overlap
    from robustness.overlap.gold import resolve
    from robustness.seeds import stream
    from robustness.simulation import worlds
    from robustness.simulation.design import (
        NewPopulations,
        Setting,
        _scheme_rows,
        setting_config,
        simulate_new_population,
        simulate_size,
    )
    from robustness.statistics.uncertainty import crossing

    check, cache = checked
    study = check.study
    own = study.meta["grid"]["populations"]
    m = check.measured
    assert sorted(m.population.unique()) == list(range(own, own + 3))
    simulated = set(study.table("design.csv").encounters.astype(int))
    claimed = {math.ceil(abs(c)) for c in check.claims.values() if np.isfinite(c)}
    assert set(m.encounters) == simulated | claimed and check.largest == max(simulated)
    assert (m.test_sets == 2).all() and len(m) == 3 * len(simulated | claimed)
    # one test set, drawn again by hand from its stream, is the cached one
    record = study.files["design_base.json"]
    setting = Setting(**{k: json.loads(record)[k] for k in ("annotators", "agreement", "spread", "runs",
                                                            "correlation")})
    p, n = own + 1, max(simulated)
    cached = pd.read_parquet(next((cache / "new-populations").rglob(f"new-{setting.key}-p{p}-t1-n*.parquet")))
    pool = json.loads(next((cache / "new-populations").rglob(f"pool-*-p{p}.json")).read_bytes())
    pool = {tuple(k.split("|")): np.array(v) for k, v in pool.items()}
    counted = {g.name for g in resolve(None, macro_only="drop")}
    golds = [check.strategy] if check.strategy in counted else ["majority"]
    sizes = sorted(m.encounters.unique())
    plan = NewPopulations(setting, tuple(sizes), (p,), 2, tuple(golds))
    again = simulate_new_population(_default_challenge(), plan, 1, population=RunPopulation(p, pool), seed=0,
                                    options=TINY.simulation(_default_challenge()))
    pd.testing.assert_frame_equal(cached.reset_index(drop=True), again.reset_index(drop=True))
    assert sorted(again.encounters.unique()) == sizes and (np.diff(again.groupby("encounters").images.first()) > 0).all()
    # by hand: the test set of the largest size from stream new_population_test_set (p, 1), its first encounters
    config = setting_config(_default_challenge(), setting, max(sizes), megapixels=TINY.simulation(
        _default_challenge()).megapixels)
    challenge = worlds.challenge(config, rng=stream(0, "new_population_test_set", p, 1, design=True),
                                 population=worlds.population(config, p, seed=0))
    counts = compute_overlap(challenge, strategies=golds, options=OverlapOptions(leave_one_out=False),
                             rng=stream(0, "new_population_random_golds", p, 1, design=True))
    first = list(dict.fromkeys(counts.encounters))[:sizes[0]]
    sub = counts.select([i for i, e in enumerate(counts.encounters) if e in first])
    hand = pd.DataFrame(_scheme_rows(sub, pool)[2])
    smallest = again[again.encounters == sizes[0]].reset_index(drop=True)
    assert np.array_equal(hand.l1_population.to_numpy(), smallest.l1_population.to_numpy())
    assert (smallest.images == sub.n_images).all()
    own_set = simulate_size(_default_challenge(), setting, n, 1, population=RunPopulation(p, pool), seed=0,
                            options=TINY.simulation(_default_challenge()), strategies=golds)
    largest = again[again.encounters == n].reset_index(drop=True)
    assert not own_set.l1_population.equals(largest.l1_population) or not own_set.images.equals(largest.images) \
        or not own_set.tau_population.equals(largest.tau_population)  # the study's own streams draw other test sets
    for q, d in m.groupby("population"):
        d = d.sort_values("encounters")
        fit = _isotonic_by_hand(d.l1_population, d.test_sets)
        assert np.allclose(d.l1_population_fit, fit) and (np.diff(fit) <= 1e-12).all()
        need, beyond, _ = crossing(d.encounters.to_numpy(float), fit, check.target)
        assert (beyond and d.true_need.isna().all()) or d.true_need.iloc[0] == pytest.approx(need)
    # resumed: nothing simulated again, the same numbers
    calls = []
    real = grid_module._new_population_set
    monkeypatch.setattr(grid_module, "_new_population_set", lambda *x: calls.append(x) or real(*x))
    again = check_design(DesignCheckOptions(populations=3, test_sets=2, design=TINY), cache_dir=cache)
    assert calls == []
    pd.testing.assert_frame_equal(again.measured, m)


@pytest.mark.slow
def test_another_seed_does_not_read_the_new_populations_of_this_one(checked, monkeypatch):
    """The new populations' cache is the study's (its fingerprint holds the seed): a study with another seed in the
    same folder simulates its own populations and reads none of the first one's."""
    from dataclasses import replace

    check, cache = checked
    calls = []
    real = grid_module._new_population_set
    monkeypatch.setattr(grid_module, "_new_population_set", lambda *x: calls.append(x) or real(*x))
    other = check_design(DesignCheckOptions(populations=3, test_sets=2, design=replace(TINY, seed=1)),
                         cache_dir=cache)
    assert len(calls) == 3 * 2 and len(list((cache / "new-populations").iterdir())) == 2
    assert not other.measured.l1_population.equals(check.measured.l1_population)


@pytest.mark.slow
def test_the_check_does_not_depend_on_n_jobs(checked, tmp_path):
    check, _ = checked
    other = check_design(DesignCheckOptions(populations=3, test_sets=2, design=TINY), cache_dir=tmp_path, n_jobs=2)
    pd.testing.assert_frame_equal(other.measured, check.measured)
    assert other.claims == check.claims


def _hand_made(claims: dict, needs: list) -> DesignCheck:
    from robustness.results.study_result import StudyResult

    rows = [{"population": 3 + i, "encounters": n, "l1_population": 1.0, "l1_population_se": 0.1, "test_sets": 4,
             "l1_population_fit": 1.0, "true_need": need} for i, need in enumerate(needs) for n in (25, 50, 100, 400)]
    return DesignCheck(StudyResult("design_study"), "majority", "macro", 40.0, 400, claims, pd.DataFrame(rows))


def test_calibration_rows_count_the_populations_a_claim_reaches():
    """Needs of 100, 200, 300, 350 and beyond 400: a claim of 320 reaches 3 of 5, its median ratio is 320 / 300;
    a claim 'more than 400' holds nothing against the target and says how many needs lay within the search."""
    check = _hand_made({"design_size": 150.0, "design_size_new_population": 320.0},
                       [100.0, 200.0, 300.0, 350.0, np.nan])
    typical, new = calibration_rows(check)
    assert typical["estimator"] == "design_size" and new["estimator"] == "design_size_new_population"
    assert new["share_reaching_target"] == pytest.approx(3 / 5)
    ci = binomtest(3, 5).proportion_ci(0.95)  # half the exact interval's wider side
    assert new["share_reaching_target_se"] == pytest.approx(max(0.6 - ci.low, ci.high - 0.6) / 2)
    assert new["claim_to_need"] == pytest.approx(320 / 300) and new["true_need"] == pytest.approx(300)
    assert typical["share_reaching_target"] == pytest.approx(1 / 5) and new["n_claims"] == 5
    assert new["n_test_sets"] == 5 * 4 and new["scheme"] == "majority jaccard macro"  # populations x test sets
    beyond = calibration_rows(_hand_made({"design_size": -25.0, "design_size_new_population": np.nan},
                                         [100.0, np.nan, np.nan]))
    assert beyond[0]["share_reaching_target"] == 0  # 'at most 25' reaches none of needs 100 and beyond
    assert np.isnan(beyond[0]["claim_to_need"]) and np.isnan(beyond[0]["true_need"])  # most lie beyond
    assert np.isnan(beyond[1]["share_reaching_target"]) and beyond[1]["share_beyond"] == pytest.approx(1 / 3)
    # a need "at most 25" (the curve at the target from the smallest size) is reached by any claim of 25 or more
    (_, small) = calibration_rows(_hand_made({"design_size": 30.0, "design_size_new_population": 30.0},
                                             [-25.0, 100.0, 20.0]))
    assert small["share_reaching_target"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("reached, verdict", [(8, "undecided"), (6, "undecided"), (2, "not_met")])
def test_the_new_population_target_is_judged_with_the_share_s_exact_interval(reached, verdict):
    """8 of 8 is not 'met' against 80% (its exact interval runs from 0.63); 6 of 8 is undecided; 2 of 8 is not met
    (0.03 to 0.65 lies below)."""
    from robustness.studies.calibration import _judged

    needs = [100.0] * reached + [np.nan] * (8 - reached)
    rows = pd.DataFrame(calibration_rows(_hand_made({"design_size": 150.0, "design_size_new_population": 150.0},
                                                    needs)))
    v = _judged(rows)
    (row,) = v.frame().itertuples()
    assert row.statement == verdict and row.value == pytest.approx(reached / 8)


def test_the_options_are_checked():
    with pytest.raises(ValueError, match="populations must be >= 2"):
        DesignCheckOptions(populations=1)
    with pytest.raises(ValueError, match="test_sets must be >= 2"):
        DesignCheckOptions(test_sets=1)


def test_a_design_study_of_one_run_population_is_refused_before_any_work(tmp_path):
    from dataclasses import replace

    with pytest.raises(ValueError, match="needs two or more run populations.*got 1.*DesignStudyOptions.populations"):
        check_design(DesignCheckOptions(design=replace(TINY, populations=1)), cache_dir=tmp_path / "c")
    assert not (tmp_path / "c").exists()


@pytest.mark.slow
def test_the_calibration_study_judges_the_check_and_its_report_states_the_range(checked):
    """with_design_check: the check's two rows in calibration.csv, a target verdict for the size for a new run
    population (not applicable where it says 'more than'), calibration_design.csv, and a report paragraph with the
    populations' needs."""
    from robustness.reporting.document import Report
    from robustness.reporting.sections.calibration import _design_check
    from robustness.results.study_result import StudyResult, Verdicts
    from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS
    from robustness.studies import calibration

    check, _ = checked
    empty = StudyResult("calibration", tables={"calibration.csv": pd.DataFrame(columns=list(CALIBRATION_COLUMNS))},
                        verdicts=Verdicts().frame(), meta={"warnings": ["an input warning"]})
    res = calibration.with_design_check(empty, check)
    table = res.table("calibration.csv")
    assert list(table.estimator) == ["design_size", "design_size_new_population"]
    assert res.table("calibration_design.csv").equals(check.measured)
    v = res.verdicts[res.verdicts.claim == "target"]
    (row,) = v.itertuples()
    share = table.set_index("estimator").share_reaching_target["design_size_new_population"]
    if np.isfinite(share):
        assert row.statement in ("met", "not_met", "undecided") and row.value == pytest.approx(share)
        assert row.low == 0.8
    else:
        assert row.statement == "not_applicable"
    assert res.meta["design_check"]["study_populations"] == 3 and res.warnings[0] == "an input warning"
    assert res.meta["design_check"]["unit"] == json.loads(check.study.files["design_base.json"])["test_unit"]
    json.dumps(res.meta, allow_nan=False)  # a size beyond the search is null in meta.json, not NaN
    r = Report("calibration")
    _design_check(r, res)
    text = r.to_markdown()
    assert "The design study on run populations it never drew" in text
    assert "3 run populations it never drew" in text and "95% interval" in text


def test_the_command_refuses_one_new_population_before_any_work(tmp_path, capsys):
    from experiments import calibration
    from experiments._cli import run

    assert run(calibration.main, ["--design-check", "1", "--out", str(tmp_path / "x")]) == 2
    assert "--design-check 1: one run population says nothing" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert calibration.parser().parse_args(["--design-check", "3"]).design_check_test_sets == 8


def test_the_report_counts_the_reached_populations_and_those_within_their_noise():
    """Needs of 100, 200, 300, 350 and beyond; at the claimed 320 the populations' mean L1 are 30, 35, 39, 41 and
    80 (SE 1, target 40): reached on 3 of 5 (Clopper-Pearson 0.15 to 0.95), two within 2 SE of the target."""
    from scipy.stats import binomtest

    from robustness.reporting.document import Report
    from robustness.reporting.sections.calibration import _design_check
    from robustness.results.study_result import StudyResult

    needs, at = [100.0, 200.0, 300.0, 350.0, np.nan], [30.0, 35.0, 39.0, 41.0, 80.0]
    rows = [{"population": 3 + i, "encounters": n, "l1_population": at[i] if n == 320 else 60.0,
             "l1_population_se": 1.0, "test_sets": 8, "l1_population_fit": 0.0, "true_need": need}
            for i, need in enumerate(needs) for n in (100, 320, 400)]
    meta = {"design_check": {"largest_size": 400, "claims": {"design_size": None, "design_size_new_population": 320.0},
                             "unit": "case", "study_populations": 4, "design": {"quick": True}, "test_sets": 8,
                             "strategy": "majority", "average": "macro", "target": 40.0,
                             "recommended_interval": [None, None]}}
    res = StudyResult("calibration", tables={"calibration_design.csv": pd.DataFrame(rows)}, meta=meta)
    r = Report("calibration")
    _design_check(r, res)
    text = r.to_markdown()
    ci = binomtest(3, 5).proportion_ci(0.95)
    assert f"reaches it on 3 of 5 (95% interval {ci.low:.2f} to {ci.high:.2f}" in text
    assert "2 of them lie within two Monte Carlo SE" in text
    assert "need 100 to 350 cases (4 of 5; the others more than 400)" in text
    assert "more than 400 cases for runs like these on average;" in text  # beyond the search, no interval
