"""The design study: the generator's encounter structure and agreement knob, validity where the truth is known,
calibration to a real challenge, reproducibility and resumption."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from robustness.overlap import compute_overlap
from robustness.simulation import grid as grid_module
from robustness.simulation.design import DesignOptions, Setting, population_scores, simulate
from robustness.simulation.synthetic import SyntheticConfig, make_challenge
from robustness.statistics.spread import encounter_icc

SMALL = SyntheticConfig(n_encounters=12, n_images=30, n_runs=6, n_teams=3, n_annotators=3, min_annotators=3,
                        megapixels=0.002)
OPTIONS = DesignOptions(pool_encounters=40, n_orders=8, n_resamples=40, megapixels=0.002)


def test_agreement_one_makes_annotators_equal_the_truth():
    ch = make_challenge(SMALL, agreement=1.0, rng=3)
    for i in range(ch.n_images):
        truth = ch.source.generate(i)[("truth", "truth")]
        for mask in ch.annotator_masks(i).values():
            np.testing.assert_array_equal(mask, truth)


def test_annotator_settings_leave_images_and_runs_alone():
    """Common random numbers: settings that differ in their annotators share the images and the runs."""
    a = make_challenge(SMALL, agreement=0.3, rng=5)
    b = make_challenge(SMALL, agreement=0.9, n_annotators=4, min_annotators=4, rng=5)
    for i in range(a.n_images):
        np.testing.assert_array_equal(a.source.generate(i)[("truth", "truth")], b.source.generate(i)[("truth", "truth")])
        for s in a.runs:
            np.testing.assert_array_equal(a.run_mask(i, s), b.run_mask(i, s))
    assert any(not np.array_equal(a.annotator_masks(i)["ann0"], b.annotator_masks(i)["ann0"]) for i in range(a.n_images))


def test_encounter_icc_recovers_a_known_correlation():
    """Simulation with a known truth: group effects of variance 1 and noise of variance 3 give ICC 0.25."""
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(400), rng.integers(1, 6, 400))
    values = rng.normal(size=(50, 400))[:, groups] + rng.normal(0, np.sqrt(3), (50, groups.size))
    assert np.median(encounter_icc(values, groups)) == pytest.approx(0.25, abs=0.05)
    assert np.isnan(encounter_icc(values[:, :5], np.arange(5))).all()  # no encounter with two images


@pytest.mark.parametrize("rho, low, high", [(0.0, -0.1, 0.1), (0.9, 0.35, 1.0)])
def test_within_encounter_correlation_is_a_knob(rho, low, high):
    from robustness.overlap.metrics import pair_score

    ch = make_challenge(SyntheticConfig(n_encounters=40, n_images=160, n_runs=8, n_teams=4, megapixels=0.002),
                        encounter_correlation=rho, rng=1)
    oc = compute_overlap(ch, strategies=["majority"], rng=0)
    icc = encounter_icc(pair_score(oc.strategy_counts("majority"), "jaccard"), oc.encounters)
    assert low < np.median(icc) < high


def test_run_failure_scales_gross_failures_only():
    """More gross failures (run_failure 2 against 0) leave more run masks empty where the truth is not; the truth and
    the annotators do not depend on it."""
    config = SyntheticConfig(n_encounters=30, n_images=30, max_images_per_encounter=1, n_runs=8, n_teams=4,
                             skill_range=(0.05, 0.2), megapixels=0.002)
    never, often = make_challenge(config, run_failure=0.0, rng=4), make_challenge(config, run_failure=2.0, rng=4)
    empty = {"never": 0, "often": 0}
    for i in range(never.n_images):
        a, b = never.source.generate(i), often.source.generate(i)
        np.testing.assert_array_equal(a[("truth", "truth")], b[("truth", "truth")])
        for name, mask in never.annotator_masks(i).items():
            np.testing.assert_array_equal(mask, often.annotator_masks(i)[name])
        if a[("truth", "truth")].any():
            empty["never"] += sum(not never.run_mask(i, s).any() for s in never.runs)
            empty["often"] += sum(not often.run_mask(i, s).any() for s in often.runs)
    # P(empty) = 0.2 (1 - s) >= 0.16 per mask of 240 at run_failure 2 (boundary noise alone empties a few too)
    assert empty["often"] >= empty["never"] + 20, empty


@pytest.fixture(scope="module")
def replicate():
    setting = Setting(annotators=3, agreement=0.2, spread=0.5, runs=6, correlation=0.5)
    pop = population_scores(SMALL, setting, [6, 12], 0, seed=7, options=OPTIONS)
    return setting, pop, simulate(SMALL, setting, [0.2, 1.0], [6, 12], 0, population_index=0, population=pop, seed=7,
                                  options=OPTIONS)


def test_perfect_annotators_give_the_true_ranking_exactly(replicate):
    _, _, (design, _) = replicate
    perfect = design[(design.agreement == 1.0) & design.strategy.isin(["majority", "intersection", "union", "staple"])]
    assert set(perfect.average) == {"micro", "macro"} and len(perfect) == 4 * 2 * 2
    assert (perfect.tau_same_images == 1.0).all() and (perfect.l1_same_images == 0).all()


def test_noisier_annotators_lower_tau_to_the_truth(replicate):
    _, _, (design, _) = replicate
    consensus = design[design.strategy.isin(["majority", "staple"])]
    assert consensus[consensus.agreement == 0.2].tau_same_images.mean() < 1.0


def test_replicates_reproduce_and_columns_are_complete(replicate):
    setting, pop, (design, coverage) = replicate
    again, cov_again = simulate(SMALL, setting, [0.2, 1.0], [6, 12], 0, population_index=0, population=pop, seed=7,
                                options=OPTIONS)
    pd.testing.assert_frame_equal(design, again)
    pd.testing.assert_frame_equal(coverage, cov_again)
    for column in ("strategy", "metric", "average", "encounters", "annotators", "agreement", "spread", "runs",
                   "correlation", "tau_same_images", "l1_same_images", "tau_population", "l1_population",
                   "top1_correct", "convergence_point", "expected_l1_estimate"):
        assert column in design
    assert set(coverage.unit) == {"encounter", "image"} and set(coverage.method) == {"percentile", "bca"}
    # nested sizes: the 6 first encounters are a subset of the 12
    assert (design[design.encounters == 6].images.iloc[0] < design[design.encounters == 12].images.iloc[0])


def test_image_unit_intervals_are_narrower_under_correlation():
    """With strongly correlated images the image-unit bootstrap treats photos of one lesion as independent."""
    setting = Setting(annotators=3, agreement=0.6, spread=0.5, runs=6, correlation=0.95)
    pop = population_scores(SMALL, setting, [12], 0, seed=3, options=OPTIONS)
    _, coverage = simulate(SMALL, setting, [0.6], [12], 0, population_index=0, population=pop, seed=3,
                           options=OPTIONS)
    width = coverage[coverage.method == "percentile"].groupby("unit").width.mean()
    assert width["image"] < 0.8 * width["encounter"]


def test_design_study_command_resumes_and_does_not_depend_on_n_jobs(tmp_path, monkeypatch):
    from experiments import design_study as job

    args = ["--encounters", "5,10", "--annotators", "3", "--agreement", "0.5,1.0", "--runs", "5", "--replicates", "2",
            "--populations", "1", "--pool", "20", "--orders", "5", "--bootstrap", "20", "--image-mp", "0.001",
            "--quiet", "--no-figures"]
    a, b = tmp_path / "a", tmp_path / "b"
    assert job.main(args + ["--out", str(a)]) == 0
    assert job.main(args + ["--out", str(b), "--n-jobs", "2"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a / "design.csv"), pd.read_csv(b / "design.csv"))
    # an interrupted grid resumes: drop one finished replicate, rerun, only it is simulated again
    part = sorted((a / "cache" / "design").rglob("*-r1.parquet"))[0]
    part.unlink()
    calls = []
    real = grid_module._replicate
    monkeypatch.setattr(grid_module, "_replicate", lambda *x: calls.append(x[4]) or real(*x))
    assert job.main(args + ["--out", str(a)]) == 0
    assert calls == [1]
    pd.testing.assert_frame_equal(pd.read_csv(a / "design.csv"), pd.read_csv(b / "design.csv"))
    text = (a / "recommendation.md").read_text()
    assert "Gold strategy and averaging" in text and "Test-set size" in text


def test_a_damaged_design_cache_is_computed_again_with_a_warning(tmp_path, capsys):
    """A replicate or pool file that cannot be read (cut short, overwritten) is never trusted: it is simulated again,
    the run says so in one warning line and in meta.json, and the numbers equal a clean run's."""
    import json

    from experiments import _cli
    from experiments import design_study as job

    args = ["--encounters", "5", "--annotators", "3", "--agreement", "1.0", "--runs", "4", "--replicates", "2",
            "--populations", "1", "--pool", "15", "--orders", "4", "--bootstrap", "10", "--image-mp", "0.001",
            "--quiet", "--no-figures", "--out", str(tmp_path / "a")]
    assert job.main(args) == 0
    clean = pd.read_csv(tmp_path / "a" / "design.csv")
    replicate = sorted((tmp_path / "a" / "cache" / "design").rglob("*-r0.parquet"))[0]
    replicate.write_bytes(b"PAR1 not a parquet file")
    pool = sorted((tmp_path / "a" / "cache" / "design").rglob("pool-*.json"))[0]
    pool.write_text('{"jaccard|micro": [0.1,')
    capsys.readouterr()
    assert _cli.run(job.main, args) == 0
    err = capsys.readouterr().err
    assert f"warning: {replicate}: damaged design-study cache" in err and f"warning: {pool}: damaged" in err
    assert "Traceback" not in err
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / "design.csv"), clean)
    warnings = json.loads((tmp_path / "a" / "meta.json").read_text())["warnings"]
    assert any("damaged design-study cache" in w for w in warnings)


@pytest.mark.slow
def test_design_study_is_identical_on_a_dask_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    from experiments import design_study as job

    args = ["--encounters", "5", "--annotators", "3", "--agreement", "1.0", "--runs", "4", "--replicates", "2",
            "--populations", "1", "--pool", "15", "--orders", "4", "--bootstrap", "10", "--image-mp", "0.001",
            "--quiet", "--no-figures"]
    assert job.main(args + ["--out", str(tmp_path / "a")]) == 0
    assert job.main(args + ["--out", str(tmp_path / "b"), "--scheduler", "local", "--n-jobs", "2"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / "design.csv"), pd.read_csv(tmp_path / "b" / "design.csv"))


@pytest.mark.slow
def test_fit_reproduces_bubil(bubil):
    from robustness.io import load_raters
    from robustness.simulation.calibrate import challenge_stats, fit

    runs = ["Person1_ImageJ", "Person3_ImageJ", "Person4_Amira", "Person4_ImageJ", "Person5_Amira", "Person5_ImageJ"]
    ch = load_raters(bubil / "ExpertsAnnotations", gold=["Person1_Amira", "Person2_Amira", "Person3_Amira"],
                     runs=runs, foreground=0, background=255)  # without Person2_ImageJ, a copy of an annotator
    target = challenge_stats(compute_overlap(ch, strategies=["majority"], rng=0))
    config, table = fit(target, megapixels=0.002)  # the quick design study's image size for BU-BIL
    assert (config.n_images, config.n_runs, config.min_annotators) == (35, ch.n_runs, 3)
    row = table.set_index("statistic")
    pair = row.loc["annotator pairwise Jaccard (median)"]
    assert abs(pair.fitted - pair.target) < 0.03
    for which, tolerance in (("best", 0.03), ("median", 0.03), ("worst", 0.07)):  # the worst of 6 runs is noisy
        r = row.loc[f"run micro Jaccard vs majority ({which})"]
        assert abs(r.fitted - r.target) < tolerance, which


def test_like_names_a_raters_challenge_for_the_layout_checks(tmp_path, capsys):
    """--like FOLDER with --layout raters is the data the raters checks ask for; --like and --data disagreeing is
    one line."""
    from experiments.design_study import parser

    folder = tmp_path / "raters"
    folder.mkdir()
    args = parser().parse_args(["--like", str(folder), "--layout", "raters", "--gold", "a,b"])
    assert args.data == str(folder)
    with pytest.raises(SystemExit) as e:
        parser().parse_args(["--like", str(folder), "--data", str(tmp_path), "--layout", "raters", "--gold", "a"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"error: --like {folder} and --data {tmp_path} name two challenges; give one"


def test_needed_sizes_interpolate_log_linearly_with_their_interval():
    from robustness.simulation.design import needed_by_agreement

    summary = pd.DataFrame(dict(strategy="majority", average="micro", agreement=0.6, encounters=[50, 100, 200],
                                l1_population=[80.0, 40.0, 20.0], l1_population_low=[60.0, 30.0, 10.0],
                                l1_population_high=[100.0, 60.0, 45.0]))
    row = needed_by_agreement(summary, target=40.0).iloc[0]
    assert row.needed == pytest.approx(100.0)
    assert row.needed_low == pytest.approx(50 * 2 ** (2 / 3))  # 60 -> 30 between 50 and 100: 2/3 of the way
    assert np.isnan(row.needed_high)  # never reaches 40 on the grid
    row = needed_by_agreement(summary, target=90.0).iloc[0]
    assert row.needed == 50.0  # already there at the smallest size: at most 50


def test_metric_taus_equal_scipy_on_the_means():
    """The design study's tau between macro Jaccard's ranking and a boundary metric's (lower is better)."""
    from scipy.stats import kendalltau

    from robustness.overlap.metrics import per_image
    from robustness.simulation.design import _metric_taus

    ch = make_challenge(n_encounters=6, n_images=8, n_runs=5, n_teams=2, rng=3)
    counts = compute_overlap(ch, strategies=["majority", "union"], rng=0, boundary=("hd95", "nsd@3"))
    columns, taus = _metric_taus(counts, ("hd95", "nsd@3"))
    assert columns == ["tau_jaccard_hd95", "tau_jaccard_nsd@3"] and set(taus) == {("majority", "macro"),
                                                                                ("union", "macro")}
    for strat in ("majority", "union"):
        g = counts.strategies.index(strat)
        jac = per_image(counts.strategy_counts(strat), "jaccard").mean(axis=1)
        hd = counts.boundary[g, :, :, 0]
        hd = np.where(np.isnan(hd), 0.0, hd).mean(axis=1)  # both empty: the best value under 'one'
        nsd = counts.boundary[g, :, :, 1]
        nsd = np.where(np.isnan(nsd), 1.0, nsd).mean(axis=1)
        assert taus[(strat, "macro")]["tau_jaccard_hd95"] == pytest.approx(kendalltau(jac, -hd).statistic)
        assert taus[(strat, "macro")]["tau_jaccard_nsd@3"] == pytest.approx(kendalltau(jac, nsd).statistic)
