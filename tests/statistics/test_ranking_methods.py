"""Ranking methods: aggregate-then-rank, rank-then-aggregate and test-based, through the whole study.

- small tables whose three rankings are worked out by hand (ties, a run that wins every case by a hair, one that
  wins few cases by a lot; runs without a score on a case);
- the prefix and bootstrap engines against slow loops (scipy's rankdata, scipy's wilcoxon);
- challengeR's long-table import carries into all three methods;
- the three studies with --ranking, and options refused before any work.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, wilcoxon

from robustness.overlap import compute_overlap
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.comparisons import ranking_agreement
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.convergence_options import ConvergenceOptions
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.multiplicity import adjust
from robustness.statistics.ranking_methods import RANKING_METHODS, parse_rankings, prepare
from robustness.statistics.ranks import kendall_tau, rank
from robustness.statistics.table_schemes import per_case_table, schemes_from_table
from robustness.synthetic.challenge import make_challenge
from tests.conftest import METHOD_FIGURES, only_figures

METHODS = tuple(RANKING_METHODS)


def long_table(values: dict, *, encounters=None) -> pd.DataFrame:
    """challengeR's long format from ``{algorithm: per-case values}``."""
    rows = []
    for algorithm, v in values.items():
        for i, x in enumerate(v):
            rows.append({"case": f"c{i:02d}", "algorithm": algorithm, "value": float(x)}
                        | ({} if encounters is None else {"encounter": encounters[i]}))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def small_counts():
    return compute_overlap(make_challenge(n_encounters=8, n_images=15, n_runs=6, n_teams=2, rng=4), rng=0)


# -- worked out by hand ---------------------------------------------------------------------------

def test_three_rankings_worked_out_by_hand():
    # Ten cases; every value is a multiple of 1/64, so every difference below is exact.
    base = np.array([16, 32, 24, 40, 48, 8, 32, 16, 56, 24]) / 64
    hair, loss, win = 1 / 64, 2 / 64, 32 / 64
    values = {
        "A": base + hair,  # wins every case by a hair
        "B": np.where(np.arange(10) < 8, base - loss, base + win),  # loses 8 cases a little, wins 2 by a lot
        "C": base,
        "D": base.copy(),  # identical to C: tied everywhere
    }
    schemes = schemes_from_table(long_table(values))
    ranks = {m: rank(prepare(schemes, m).scores())[0].tolist() for m in METHODS}

    # aggregate: means are base + 1/64 (A), base + (8 * -2 + 2 * 32) / 640 = base + 3/40 (B), base (C, D)
    assert ranks["aggregate"] == [2.0, 1.0, 3.5, 3.5]

    # rank-then-aggregate: on the 8 cases A > C = D > B: ranks 1, 4, 2.5, 2.5; on the 2 others B > A > C = D:
    # ranks 2, 1, 3.5, 3.5. Mean ranks: A (8 + 4) / 10 = 1.2, B (32 + 2) / 10 = 3.4, C = D (20 + 7) / 10 = 2.7
    rta = prepare(schemes, "rank-then-aggregate")
    np.testing.assert_allclose(-rta.scores()[0], [1.2, 3.4, 2.7, 2.7])
    assert ranks["rank-then-aggregate"] == [1.0, 4.0, 2.5, 2.5]

    # test-based, one-sided Wilcoxon signed-rank on the 10 cases, normal approximation:
    # A vs C (and D): 10 differences of +1/64, one tie group of 10: T+ = 55, mean 27.5,
    #   var = 10*11*21/24 - (1000 - 10)/48 = 75.625, z = 27.5 / sqrt(75.625) = 3.162, p = 0.00078
    # A vs B: 8 differences of +3/64 (midrank 4.5) and 2 of -31/64: T+ = 36,
    #   var = 96.25 - (504 + 6)/48 = 85.625, z = 8.5 / sqrt(85.625) = 0.919, p = 0.18
    # B vs C (and D): T+ = 2 * 9.5 = 19, z = -0.919: p(B > C) = 0.82, p(C > B) = 0.18; C vs D: no nonzero difference
    tests = prepare(schemes, "test-based")
    z = dict(zip(zip(tests.pair_i.tolist(), tests.pair_j.tolist()), tests.z()[0]))
    assert z[(0, 2)] == z[(0, 3)] == pytest.approx(27.5 / np.sqrt(75.625), rel=1e-12)
    assert z[(0, 1)] == pytest.approx(8.5 / np.sqrt(85.625), rel=1e-12)
    assert z[(1, 2)] == z[(1, 3)] == pytest.approx(-8.5 / np.sqrt(85.625), rel=1e-12) and z[(2, 3)] == 0
    # Holm over the 12 ordered pairs: 0.00078 * 12 = 0.0094 < 5% twice (A beats C and D); then 0.18 * 10 > 5%.
    # Runs beaten: A 2, B 0, C 0, D 0 -> A first, the other three tied at (2 + 3 + 4) / 3 = 3
    assert tests.scores()[0].tolist() == [2.0, 0.0, 0.0, 0.0]
    assert ranks["test-based"] == [1.0, 3.0, 3.0, 3.0]
    frame = tests.tests_frame()
    assert sorted(map(tuple, frame[frame.beats][["run", "other"]].to_numpy())) == [("A", "C"), ("A", "D")]
    # without the adjustment (challengeR's default), the same two wins: the other p-values are above 5% anyway
    assert tests.scores().tolist() == type(tests).from_schemes(schemes, adjustment="none").scores().tolist()


def test_holm_changes_the_test_based_ranking():
    # 6 cases, A above B on all of them by distinct margins: T+ = 21, mean 10.5, var 6*7*13/24 = 22.75,
    # z = 10.5 / sqrt(22.75) = 2.20, p = 0.0139 < 5% but above Holm's first threshold 5% / (3 * 2) = 0.0083:
    # a win without the adjustment, none with it. A vs C: 3 nonzero differences, p = 0.051: no win either way.
    a = np.array([0.9, 0.8, 0.7, 0.95, 0.6, 0.85])
    values = {"A": a, "B": a - np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), "C": [0.9, 0.1, 0.7, 0.05, 0.6, 0.15]}
    schemes = schemes_from_table(long_table(values))
    plain = prepare(schemes, "test-based", adjustment="none").scores()[0]
    adjusted = prepare(schemes, "test-based").scores()[0]
    assert plain.tolist() == [1.0, 0.0, 0.0] and adjusted.tolist() == [0.0, 0.0, 0.0]
    p = wilcoxon(np.subtract(values["A"], values["B"]), alternative="greater", method="asymptotic").pvalue
    assert 0.05 / 6 < p < 0.05


def test_runs_without_a_score_are_left_out_of_a_case():
    from robustness.overlap.empty import empty_policy
    from robustness.statistics.schemes import SchemeBuilder

    values = np.array([[0.9, np.nan, 0.2],  # r0 has no score on case 1 (both empty under 'ignore')
                       [0.5, 0.4, 0.6],
                       [0.3, 0.8, 0.1]])
    for policy, expected in (("ignore", [1.5, 5 / 3, 7 / 3]), ("official", [np.nan, 5 / 3, 7 / 3])):
        b = SchemeBuilder(np.arange(3), 3)
        b.macro(("s", "m", "macro"), values, empty_policy(policy))
        schemes = b.build(("r0", "r1", "r2"), ("c0", "c1", "c2"), empty_policy(policy), "case")
        rta = prepare(schemes, "rank-then-aggregate")
        # case 0: r0 1, r1 2, r2 3; case 1 (r0 left out): r2 1, r1 2; case 2: r1 1, r0 2, r2 3
        # 'ignore': r0 (1 + 2) / 2, r1 (2 + 2 + 1) / 3, r2 (3 + 1 + 3) / 3; 'official': r0's nan propagates
        np.testing.assert_allclose(-rta.scores()[0], expected)
        assert rank(rta.scores())[0].tolist() == ([1.0, 2.0, 3.0] if policy == "ignore" else [3.0, 1.0, 2.0])
        # the tests leave case 1 out of r0's pairs only
        assert prepare(schemes, "test-based").length[0].tolist() == [2, 2, 3]


def test_micro_schemes_have_no_per_case_ranking(small_counts):
    micro = schemes_from_counts(small_counts, averages=("micro",))
    for method in ("rank-then-aggregate", "test-based"):
        with pytest.raises(ValueError, match="exists for macro schemes only"):
            prepare(micro, method)
    both = schemes_from_counts(small_counts)
    assert {n[2] for n in prepare(both, "rank-then-aggregate").names} == {"macro"}
    assert prepare(both, "aggregate") is both
    with pytest.raises(ValueError, match=r"unknown ranking method 'best' \(choose from aggregate, "
                                         r"rank-then-aggregate, test-based\)"):
        parse_rankings("aggregate,best")


# -- the engines against slow loops -----------------------------------------------------------------

def slow_mean_ranks(values, cases):
    """Per case scipy's rankdata (1 = best, ties average), then the mean over the given cases (repeats count)."""
    per_case = np.stack([rankdata(-values[:, c]) for c in range(values.shape[1])], axis=1)  # (R, N)
    return per_case[:, cases].mean(axis=1)


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["image", "encounter"])
def test_rank_then_aggregate_engines_equal_a_slow_loop(small_counts, unit):
    sc = schemes_from_counts(small_counts, unit=unit, averages=("macro",))
    rta = prepare(sc, "rank-then-aggregate")
    conv = rank_convergence(rta, n_orders=4, rng=3)
    members = [np.flatnonzero(rta.codes == u) for u in range(rta.n_units)]  # the images of every unit
    for s in range(len(sc.names)):
        values = sc.per_case[s]
        final = rankdata(slow_mean_ranks(values, np.arange(values.shape[1])))
        for k, order in enumerate(conv.orders):
            for p, n in enumerate(conv.positions):
                images = np.concatenate([members[u] for u in order[:n]])
                expected = np.abs(rankdata(slow_mean_ranks(values, images)) - final).sum()
                assert conv.l1[s, k, p] == expected
    boot = bootstrap(rta, n_resamples=5, batch_size=5, rng=7)
    idx = np.random.default_rng(7).spawn(1)[0].integers(0, rta.n_units, (5, rta.n_units))
    for b in range(5):
        images = np.concatenate([members[u] for u in idx[b]])
        for s in range(len(sc.names)):
            np.testing.assert_allclose(-boot.distribution[s, b], slow_mean_ranks(sc.per_case[s], images), rtol=1e-12)
    ci = boot.intervals()  # shown as mean ranks: the interval of minus the stored statistic, ends swapped
    assert set(ci.statistic) == {"mean rank"} and (ci.low <= ci.high).all() and (ci.score >= 1).all()
    first = ci.iloc[:len(sc.runs)]
    np.testing.assert_allclose(first.high, -np.quantile(boot.distribution[0], 0.025, axis=0))


def slow_runs_beaten(per_unit, units, alpha=0.05):
    """scipy's wilcoxon on the given units' scores for every ordered pair, Holm over them, wins per run."""
    n_r = per_unit.shape[0]
    pairs = [(i, j) for i in range(n_r) for j in range(n_r) if i != j]
    p = np.ones(len(pairs))
    for k, (i, j) in enumerate(pairs):
        d = per_unit[i, units] - per_unit[j, units]
        if np.any(d != 0):
            p[k] = wilcoxon(d, alternative="greater", method="asymptotic").pvalue
    wins = np.zeros(n_r)
    for (i, _), reject in zip(pairs, adjust(p, "holm") < alpha):
        wins[i] += reject
    return wins


@pytest.mark.parametrize("encounters", [None, [f"E{k // 3}" for k in range(36)]])
def test_test_based_engines_equal_a_slow_scipy_loop(encounters):
    g = np.random.default_rng(0)
    skill = np.array([0.0, 0.05, 0.15, 0.3, 0.5])
    values = {f"r{r}": np.round(np.clip(0.3 + s + g.normal(0, 0.12, 36), 0, 1), 2) for r, s in enumerate(skill)}
    sc = schemes_from_table(long_table(values, encounters=encounters), unit_column=None if encounters is None else
                            "encounter")
    tests = prepare(sc, "test-based")
    per_unit = sc.unit_scores()[0]
    final = rankdata(-slow_runs_beaten(per_unit, np.arange(sc.n_units)))
    assert rank(tests.scores())[0].tolist() == final.tolist()
    assert len(set(final)) == 4  # the table has wins and a tie to get right
    conv = rank_convergence(tests, n_orders=3, options=ConvergenceOptions(step=4), rng=2)
    for k, order in enumerate(conv.orders):
        for p, n in enumerate(conv.positions):
            expected = np.abs(rankdata(-slow_runs_beaten(per_unit, order[:n])) - final).sum()
            assert conv.l1[0, k, p] == expected
    boot = bootstrap(tests, n_resamples=4, batch_size=4, rng=9)
    idx = np.random.default_rng(9).spawn(1)[0].integers(0, sc.n_units, (4, sc.n_units))
    for b in range(4):
        np.testing.assert_array_equal(boot.distribution[0, b], slow_runs_beaten(per_unit, idx[b]))


# -- challengeR's long table -------------------------------------------------------------------------

def test_challenger_table_carries_into_all_methods(small_counts):
    table = per_case_table(small_counts)
    from_counts = schemes_from_counts(small_counts, unit="encounter", averages=("macro",))
    from_table = schemes_from_table(table, unit_column="encounter")
    assert [n[:2] for n in from_counts.names] == [n[:2] for n in from_table.names]
    for method in METHODS:
        a, b = prepare(from_counts, method), prepare(from_table, method)
        np.testing.assert_allclose(a.scores(), b.scores(), rtol=1e-12)
        np.testing.assert_array_equal(rank(a.scores()), rank(b.scores()))
        ca = rank_convergence(a, n_orders=3, options=ConvergenceOptions(step=2), rng=4)
        cb = rank_convergence(b, n_orders=3, options=ConvergenceOptions(step=2), rng=4)
        np.testing.assert_array_equal(ca.l1, cb.l1)
        assert ca.ranking == cb.ranking == method


def test_agreement_between_methods_is_paired(small_counts):
    sc = schemes_from_counts(small_counts, unit="encounter", averages=("macro",), metrics=["jaccard"])
    boots = [bootstrap(prepare(sc, m), n_resamples=40, rng=1) for m in METHODS]
    tau = ranking_agreement(boots)
    assert set(tau.ranking) == set(METHODS)
    within = tau[(tau.ranking == "aggregate") & (tau.other_ranking == "aggregate") & (tau.strategy == tau.other)]
    assert (within.tau == 1).all() and (within.tau_low == 1).all()
    # no pair mixes both another method and another gold
    assert ((tau.ranking == tau.other_ranking) | (tau.strategy == tau.other)).all()
    row = tau[(tau.ranking == "aggregate") & (tau.other_ranking == "rank-then-aggregate")
              & (tau.strategy == "staple")].iloc[0]
    s = sc.index("staple", "jaccard", "macro")
    assert row.tau == pytest.approx(float(kendall_tau(boots[0].final_ranks[s], boots[1].final_ranks[s])))
    per_resample = kendall_tau(boots[0].ranks[s], boots[1].ranks[s])  # resample b against resample b
    assert (row.tau_low, row.tau_high) == pytest.approx(tuple(np.quantile(per_resample[~np.isnan(per_resample)],
                                                                          [0.025, 0.975])))
    with pytest.raises(ValueError, match="same units"):
        ranking_agreement([boots[0], bootstrap(sc, n_resamples=10, rng=1)])


def test_agreement_heatmap_artists():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustness.reporting import inference_plots

    rows = []
    for strat, taus in (("majority", (0.9, 0.5, np.nan)), ("staple", (0.8, 0.6, 0.7))):
        for (a, b), t in zip((("aggregate", "rank-then-aggregate"), ("aggregate", "test-based"),
                              ("rank-then-aggregate", "test-based")), taus):
            rows.append(dict(metric="jaccard", average="macro", ranking=a, strategy=strat, other_ranking=b,
                             other=strat, tau=t, tau_low=t - 0.1, tau_high=t + 0.05))
    ax = inference_plots.ranking_agreement_heatmap(pd.DataFrame(rows), metric="jaccard")
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["0.90\n[0.80, 0.95]", "0.50\n[0.40, 0.55]", "n/a",
                     "0.80\n[0.70, 0.85]", "0.60\n[0.50, 0.65]", "0.70\n[0.60, 0.75]"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["majority", "STAPLE"]
    assert [t.get_text() for t in ax.get_xticklabels()][1] == "aggregate\nvs\ntest-based"
    plt.close("all")


# -- the studies ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def all_methods_job(tmp_path_factory):
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa

    root = tmp_path_factory.mktemp("methods")
    data = write_dermavqa(make_challenge(n_encounters=10, n_images=16, n_runs=5, n_teams=2, rng=2), root / "c")
    out = root / "out"
    with only_figures("rank_convergence", *METHOD_FIGURES["rank_convergence"]):
        assert job.main(["--data", str(data), "--out", str(out), "--orders", "6", "--bootstrap", "40", "--outer", "4",
                         "--seed", "3", "--ranking", "test-based,rank-then-aggregate", "--test-step", "3",
                         "--quiet"]) == 0
    return data, out


@pytest.mark.slow
def test_main_job_with_three_methods(all_methods_job):
    from robustness.io import load_dermavqa
    from robustness.results.folder import open_results

    data, out = all_methods_job
    _, meta = open_results(out)
    assert meta["ranking"] == ["aggregate", "test-based", "rank-then-aggregate"]  # aggregate always, first
    counts = compute_overlap(load_dermavqa(data), rng=3)
    enc = schemes_from_counts(counts, unit="encounter")
    scores = pd.read_csv(out / "scores.csv")
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    for method, sign in (("rank-then-aggregate", -1), ("test-based", 1)):
        stats = prepare(enc, method)
        s = stats.index("staple", "dice", "macro")
        got = scores[(scores.ranking == method) & (scores.strategy == "staple") & (scores.metric == "dice")]
        got = got.set_index("run").loc[list(enc.runs)]
        np.testing.assert_allclose(got.score, sign * stats.scores()[s], rtol=1e-12)
        np.testing.assert_array_equal(got["rank"], rank(stats.scores())[s])
        np.testing.assert_allclose(board.loc[list(enc.runs), f"staple_dice_macro_{method}"], got.score)
        assert set(scores[scores.ranking == method].average) == {"macro"}  # micro: aggregate only
    curves = pd.read_parquet(out / "curves.parquet")
    tb = curves[curves.ranking == "test-based"]
    assert sorted(set(tb.n)) == [3, 6, 9, 10]  # encounters (the tests' unit), every 3rd prefix and the last
    assert (tb[tb.n == 10].l1 == 0).all()
    assert sorted(set(curves[curves.ranking == "rank-then-aggregate"].n)) == list(range(1, 17))  # images
    tau = pd.read_csv(out / "kendall_tau.csv")
    assert {"ranking", "other_ranking", "tau_low", "tau_high"} <= set(tau.columns)
    stability = pd.read_csv(out / "stability.csv")
    assert set(stability.ranking) == {"aggregate", "rank-then-aggregate", "test-based"}
    for name in ("fig_03_macro_convergence_rank-then-aggregate", "fig_03_macro_convergence_test-based",
                 "fig_12_ranking_agreement", "fig_03_macro_convergence"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
    report = (out / "summary.md").read_text()
    assert "## How much does the ranking method change the leaderboard?" in report
    assert "per-encounter scores" in report and "Holm" in report and "in steps of 3 encounters" in report
    assert "macro schemes only" in report


def test_default_job_keeps_todays_tables(tmp_path):
    from experiments import table_rank_convergence as job

    t = long_table({"a": [0.9, 0.8, 0.7, 0.6], "b": [0.5, 0.6, 0.4, 0.7], "c": [0.1, 0.2, 0.3, 0.2]})
    t.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    assert job.main(["--table", str(tmp_path / "t.csv"), "--orders", "4", "--bootstrap", "20", "--outer", "4", "--out", str(out),
                     "--quiet", "--no-figures"]) == 0
    for name in ("curves_summary.csv", "convergence.csv", "bootstrap_ci.csv", "stability.csv", "agreement.csv"):
        assert set(pd.read_csv(out / name).ranking) == {"aggregate"}, name
    assert "How much does the ranking method change" not in (out / "summary.md").read_text()


@pytest.mark.slow
def test_table_and_qa_studies_with_methods(tmp_path):
    from experiments import qa_rank_convergence, table_rank_convergence

    g = np.random.default_rng(1)
    t = long_table({f"r{k}": np.clip(0.4 + 0.1 * k + g.normal(0, 0.1, 30), 0, 1) for k in range(4)})
    t.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "table"
    with only_figures("table_rank_convergence", *METHOD_FIGURES["table_rank_convergence"]):
        assert table_rank_convergence.main(["--table", str(tmp_path / "t.csv"), "--orders", "4", "--bootstrap", "20",
                                            "--outer", "4", "--out", str(out), "--quiet", "--ranking",
                                            "aggregate,rank-then-aggregate,test-based"]) == 0
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    assert set(ci.ranking) == set(METHODS)
    assert set(ci[ci.ranking == "test-based"].statistic) == {"runs beaten"}
    for name in ("fig_08_table_convergence_rank-then-aggregate", "fig_08_table_convergence_test-based",
                 "fig_12_ranking_agreement"):
        assert (out / "figures" / f"{name}.png").exists()
    out = tmp_path / "qa"
    assert qa_rank_convergence.main(["--orders", "4", "--bootstrap", "20", "--outer", "4", "--out", str(out), "--quiet",
                                     "--no-figures", "--ranking", "rank-then-aggregate"]) == 0
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert "accuracy_all_rank-then-aggregate" in board and "accuracy_all_test-based" not in board
    assert "rank-then-aggregate** ranks the runs on every encounter" in (out / "summary.md").read_text()


@pytest.mark.parametrize("option, message", [
    (["--ranking", "best"], "argument --ranking: unknown ranking method 'best' (choose from aggregate, "
                            "rank-then-aggregate, test-based)"),
    (["--test-step", "0"], "argument --test-step: must be an integer in 1..1000000, got '0'"),
])
def test_bad_ranking_options_refused_before_any_work(tmp_path, option, message):
    import subprocess
    import sys

    from tests.conftest import REPO

    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--out", str(out), *option],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(message)
    assert not out.exists()


# -- one engine: the leaderboard's statistic and the engines' under every option --------------------------------

ENGINE_OPTIONS = [
    ("aggregate", {"aggregate": "median"}), ("aggregate", {"aggregate": 0.25}),
    ("rank-then-aggregate", {"aggregate": "median", "ties": "min"}), ("rank-then-aggregate", {"ties": "max"}),
    ("test-based", {"test": "t"}), ("test-based", {"continuity": True}), ("test-based", {"adjustment": "hommel"}),
    ("test-based", {"adjustment": "fdr_bh", "alpha": 0.2}), ("test-based", {"adjustment": "none"}),
]


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("name, given", ENGINE_OPTIONS)
def test_the_engines_rank_what_the_leaderboard_ranks(name, given, lower):
    """prepare() (kernel or recomputed statistic) and rank_task() give the same statistic on the whole test set
    and on weighted resamples, under options no kernel implements and for a smaller-is-better metric."""
    import dataclasses

    from robustness.statistics.case_rankings import rank_task, task_scores
    from robustness.statistics.case_statistic import CaseStatistic
    from robustness.statistics.ranking_methods import get_ranking
    from robustness.statistics.ranking_options import RankingOptions

    rng = np.random.default_rng(len(name) + 7 * lower)
    values = np.round(rng.random((4, 25)) + np.array([0.3, 0.2, 0.0, 0.0])[:, None], 2)
    table = long_table(dict(zip("ABCD", values)))
    options = RankingOptions(lower_better=lower, **given)
    stored = table.assign(value=-table.value) if lower else table
    schemes = schemes_from_table(stored)
    if lower:
        schemes = dataclasses.replace(schemes, signs=np.array([-1.0]))
    rankable = prepare(schemes, name, options)
    kernel = get_ranking(name).kernel(schemes, options)
    assert isinstance(rankable, CaseStatistic) == (kernel is None)
    method = get_ranking(name)
    leaderboard = rank_task(task_scores(table)[0], name, options)
    np.testing.assert_allclose(method.value(rankable.scores()[0], lower), leaderboard.statistic, rtol=1e-12,
                               atol=1e-12)
    idx = rng.integers(0, 25, size=(3, 25))  # three resamples of the cases
    for b, drawn in enumerate(idx):
        counts = np.bincount(drawn, minlength=25).astype(np.float64)
        want = method.value(method.case_statistic(values, counts, options=options, lower_better=lower), lower)
        got = method.value(rankable.resample_scores(idx)[0, b], lower)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_the_engines_run_a_median_aggregate_on_a_table(tmp_path):
    """--aggregate median: curves, intervals and tests from the recomputed statistic (before: not computed)."""
    from experiments import table_rank_convergence as job

    rng = np.random.default_rng(2)
    long_table({a: rng.random(12) + k / 10 for k, a in enumerate("ABC")}).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    assert job.main(["--table", str(tmp_path / "t.csv"), "--out", str(out), "--aggregate", "median", "--orders", "5",
                     "--bootstrap", "30", "--outer", "3", "--quiet"]) == 0
    curves = pd.read_parquet(out / "curves.parquet")
    assert len(curves) and curves.groupby("order").l1.last().eq(0).all()
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    medians = {a: float(np.median(g.value)) for a, g in pd.read_csv(tmp_path / "t.csv").groupby("algorithm")}
    shown = ci[ci.method == ci.method.iloc[0]].set_index("run").score
    assert shown.to_dict() == pytest.approx(medians, abs=1e-12)


@pytest.mark.slow
def test_random_ties_are_refused_before_any_work_unless_rankings_only(tmp_path, capsys):
    from experiments import table_rank_convergence as job

    long_table({"A": [0.5, 0.6], "B": [0.5, 0.4]}).to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(SystemExit) as e:
        job.main(["--table", str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"), "--ties", "random"])
    assert e.value.code == 2 and "fixed tie rule" in capsys.readouterr().err and not (tmp_path / "o").exists()
    assert job.main(["--table", str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"), "--ties", "random",
                     "--rankings-only", "--bootstrap", "20", "--quiet"]) == 0
    # the commands with one --ties take the same rules and refuse random with the same reason, before any work
    from experiments import qa_rank_convergence, rank_convergence

    for other in (rank_convergence, qa_rank_convergence):
        with pytest.raises(SystemExit) as e:
            other.main(["--out", str(tmp_path / "m"), "--ties", "random"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and "--ties random:" in err and "fixed tie rule" in err and "--rankings-only" in err
        assert not (tmp_path / "m").exists()


def test_a_method_is_described_with_the_options_as_recorded():
    """A report shows the options a study recorded as they are (an older or a Python caller's folder may hold
    ``BH`` or a quantile as text); a missing one is RankingOptions' default."""
    from robustness.statistics.ranking_methods import get_ranking

    tested = get_ranking("test-based")
    said = tested.describe(case="case", test_unit="case", n_runs=4, options={"adjustment": "BH", "alpha": 0.1})
    assert "adjusts the 12 p-values of a scheme together (BH, 10%)" in said
    assert "Holm's step-down method (family-wise error 5%)" in tested.describe(case="case", test_unit="case", n_runs=4)
    ranked = get_ranking("aggregate").describe(case="case", test_unit="case", n_runs=3,
                                              options={"aggregate": "0.25"})
    assert "0.25" in ranked and "0.25-quantile" not in ranked
