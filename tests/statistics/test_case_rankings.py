"""Per-case tables beyond challengeR's own tests: tasks, consensus, directions, one-case and one-run tables, the
engines' tie rules, and the figures and report of a three-task table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments._cli import run
from experiments.table_rank_convergence import main
from robustness.errors import InputError
from robustness.results.study_result import read_table
from robustness.statistics.case_rankings import rank_task, rank_tasks, task_scores, top
from robustness.statistics.consensus import consensus
from robustness.statistics.ranking_options import RankingOptions, with_preset
from robustness.statistics.table_schemes import schemes_from_table


def command(tmp_path, table, *options):
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "out"
    code = run(main, ["--table", str(path), "--out", str(out), "--quiet", "--no-figures", "--bootstrap", "50",
                      *options])
    return out, code


def test_schemes_from_table_never_keeps_a_first_value_silently():
    t = pd.DataFrame({"task": ["T1", "T1", "T2", "T2"], "case": ["c1", "c1", "c1", "c1"],
                      "algorithm": ["a", "b", "a", "b"], "value": [0.9, 0.1, 0.2, 0.8]})
    with pytest.raises(InputError, match=r"algorithm 'a', case 'c1' has 2 rows: is 'task' a column that names"):
        schemes_from_table(t)
    sc = schemes_from_table(t, by=("task",))
    assert [n[0] for n in sc.names] == ["T1", "T2"]  # two schemes, two names
    np.testing.assert_array_equal(sc.scores(), [[0.9, 0.1], [0.2, 0.8]])


def test_tasks_with_their_own_cases_and_the_consensus(tmp_path):
    # T1: a > b > c on two cases; T2 (other cases): c > b > a; T3: b > a > c
    rows = [("T1", "x1", "a", 0.9), ("T1", "x1", "b", 0.5), ("T1", "x1", "c", 0.1),
            ("T1", "x2", "a", 0.8), ("T1", "x2", "b", 0.6), ("T1", "x2", "c", 0.2),
            ("T2", "y1", "a", 0.1), ("T2", "y1", "b", 0.5), ("T2", "y1", "c", 0.9),
            ("T3", "z1", "a", 0.5), ("T3", "z1", "b", 0.9), ("T3", "z1", "c", 0.1)]
    table = pd.DataFrame(rows, columns=["task", "case", "algorithm", "value"])
    out, code = command(tmp_path, table, "--task-weights", "T1=2,T2=1,T3=1")
    assert code == 0
    ranking = read_table(out / "ranking.csv")
    assert ranking.groupby("task").size().to_dict() == {"T1": 3, "T2": 3, "T3": 3}
    cons = read_table(out / "consensus.csv").set_index("run")
    # weighted mean ranks: a (2*1 + 3 + 2) / 4 = 1.75, b (2*2 + 2 + 1) / 4 = 1.75, c (2*3 + 1 + 3) / 4 = 2.5
    assert cons.value.to_dict() == pytest.approx({"a": 1.75, "b": 1.75, "c": 2.5})
    assert cons["rank"].to_dict() == {"a": 1.5, "b": 1.5, "c": 3.0}  # the package's ties: average
    warnings = json.loads((out / "meta.json").read_text())["warnings"]
    assert any("several tasks" in w for w in warnings)
    assert not (out / "curves.parquet").exists()
    median = consensus(ranking[ranking.ranking == "aggregate"], method="median-rank").set_index("run")
    assert median.value.to_dict() == {"a": 2.0, "b": 2.0, "c": 3.0}


def test_consensus_refuses_weights_of_unknown_tasks(tmp_path):
    table = pd.DataFrame({"task": ["T1", "T1", "T2", "T2"], "case": ["c1"] * 4, "algorithm": ["a", "b"] * 2,
                          "value": [0.9, 0.1, 0.2, 0.8]})
    _, code = command(tmp_path, table, "--task-weights", "T9=1")
    assert code == 2 and not (tmp_path / "out").exists()


def test_metric_directions_default_from_the_metric_and_can_be_overridden():
    t = pd.DataFrame({"metric": ["dice", "dice", "hd95", "hd95"], "case": ["c1"] * 4,
                      "algorithm": ["a", "b", "a", "b"], "value": [0.9, 0.5, 2.0, 9.0]})
    tasks = task_scores(t, by=["metric"])
    assert [rank_task(ts).ranks.tolist() for ts in tasks] == [[1.0, 2.0], [1.0, 2.0]]  # hd95: lower first
    assert not any("metric" in n for ts in tasks for n in ts.notes)  # known metrics: no note, no warning
    higher = RankingOptions(lower_better=False)
    assert rank_task(tasks[1], options=higher).ranks.tolist() == [2.0, 1.0]
    # an unknown metric is one note, whatever the number of its tasks
    one = t[t.metric == "dice"]
    t2 = pd.concat([one.assign(task="T1", metric="mystery"), one.assign(task="T2", metric="mystery")])
    ranking, notes = rank_tasks(task_scores(t2, by=["task", "metric"]))
    assert [n for n in notes if "mystery" in n] == ["metric mystery is not one this package knows: ranked higher "
                                                    "first unless `RankingOptions.lower_better`=True"]


def test_the_table_command_prints_what_the_rankings_note(tmp_path, capsys):
    """A note the rankings make (an unknown metric's direction) is printed, as the reading's are, not only listed
    in the report's warnings; each once."""
    rng = np.random.default_rng(1)
    t = pd.DataFrame([{"metric": "mystery", "case": f"c{k}", "algorithm": run, "value": float(rng.random())}
                      for run in ("a", "b", "c") for k in range(6)])
    out, code = command(tmp_path, t, "--orders", "4", "--outer", "4")
    assert code == 0
    err = capsys.readouterr().err
    line = "warning: metric mystery is not one this package knows: ranked higher first unless --lower-better"
    assert err.count(line) == 1, err
    assert "ranked higher first unless --lower-better" in (out / "summary.md").read_text()


def test_one_case_and_one_run_tables_are_ranked_with_a_reason_for_what_is_not(tmp_path):
    one_case = pd.DataFrame({"case": ["c1", "c1"], "algorithm": ["a", "b"], "value": [0.9, 0.1]})
    out, code = command(tmp_path, one_case)
    assert code == 0
    assert read_table(out / "ranking.csv")[["run", "rank"]].values.tolist() == [["a", 1.0], ["b", 2.0]]
    warnings = json.loads((out / "meta.json").read_text())["warnings"]
    assert any("one unit only" in w for w in warnings)
    # a task of one case is left out of the bootstrap (as challengeR does), with a note, not given certain ranks
    assert any("task all: one case, left out of the bootstrap" in w for w in warnings)
    boot = read_table(out / "rank_bootstrap.csv")
    assert (boot.resamples == 0).all() and boot.low.isna().all() and boot.high.isna().all()
    assert "no rank intervals: one case, left out of the bootstrap" in (out / "summary.md").read_text()
    one_run = pd.DataFrame({"case": ["c1", "c2"], "algorithm": ["a", "a"], "value": [0.9, 0.1]})
    (tmp_path / "r").mkdir()
    out, code = command(tmp_path / "r", one_run)
    assert code == 0
    warnings = json.loads((out / "meta.json").read_text())["warnings"]
    assert any("one run only" in w for w in warnings)


def test_a_missing_score_is_refused_before_anything_is_written(tmp_path, capsys):
    t = pd.DataFrame({"case": ["c1"] * 3 + ["c2"] * 3, "algorithm": ["a", "b", "c"] * 2,
                      "value": [0.9, np.nan, 0.3, 0.2, 0.8, 0.4]})
    _, code = command(tmp_path, t)
    assert code == 2 and not (tmp_path / "out").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "choose a treatment with --missing" in err[0]
    out, code = command(tmp_path, t, "--missing-scores", "worst")
    assert code == 0
    r = read_table(out / "ranking.csv").set_index("run")
    assert r.value.to_dict() == pytest.approx({"a": 0.55, "b": 0.55, "c": 0.35})  # b's c1: c1's worst, 0.3
    out, code = command(tmp_path, t, "--missing-scores", "drop", "--force")
    assert read_table(out / "ranking.csv").set_index("run").value.to_dict() == pytest.approx(
        {"a": 0.55, "b": 0.8, "c": 0.35})


def test_engines_take_the_tie_rule():
    """Item 4 of the issue: three runs tied on every case are all first under 'min' in every bootstrap resample."""
    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.table_schemes import rank_then_aggregate

    t = pd.DataFrame({"case": np.repeat([f"c{k}" for k in range(6)], 4), "algorithm": ["a", "b", "c", "d"] * 6,
                      "value": np.tile([0.7, 0.7, 0.7, 0.2], 6)})
    sc = schemes_from_table(t)
    for ties, first in (("min", 1), ("max", 3), ("average", 2)):
        dist = bootstrap(sc, n_resamples=20, ties=ties, rng=0).rank_distribution()
        assert set(dist[dist.run != "d"]["rank"]) == {first}, ties
    rta = rank_then_aggregate(sc, ties="min")
    assert (-rta.scores()).tolist() == [[1.0, 1.0, 1.0, 4.0]]


def test_random_ties_in_the_table_ranking_follow_the_seed():
    t = pd.DataFrame({"case": ["c1"] * 3, "algorithm": ["a", "b", "c"], "value": [0.5, 0.5, 0.5]})
    ts = task_scores(t)[0]
    o = with_preset("challenger", ties="random")
    first = rank_task(ts, options=o, rng=3).ranks.tolist()
    assert sorted(first) == [1.0, 2.0, 3.0] and rank_task(ts, options=o, rng=3).ranks.tolist() == first
    seen = {tuple(rank_task(ts, options=o, rng=k).ranks) for k in range(40)}
    assert len(seen) == 6


def test_top_refuses_several_leaderboards():
    frame = pd.DataFrame({"task": ["T1", "T2"], "ranking": ["aggregate"] * 2, "run": ["a", "a"], "value": [1, 1],
                          "rank": [1.0, 1.0]})
    with pytest.raises(ValueError, match="one leaderboard"):
        top(frame, 1)
    with pytest.raises(ValueError, match="k >= 1"):
        top(frame[:1], 0)


@pytest.mark.slow
def test_three_task_example_figures_and_report(tmp_path):
    """The documented three-task example: every new figure is drawn and the report names no winner without its
    rank interval."""
    from robustness.synthetic.case_tables import example_table

    table = example_table(n_cases=(8, 6, 5))
    table = table[table.metric != "dice"]  # three leaderboards: segmentation by HD95, detection, grading
    path = tmp_path / "three.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "out"
    assert run(main, ["--table", str(path), "--out", str(out), "--quiet", "--bootstrap", "10", "--missing-scores", "worst",
                      "--ranking", "aggregate,test-based"]) == 0
    for name in ("fig_16_podium", "fig_17_ranking_heatmap", "fig_18_bootstrap_tau", "fig_19_ranking_methods",
                 "fig_20_dot_box", "fig_21_rank_frequency", "fig_22_rank_blobs_tasks", "fig_23_rank_blobs_across_tasks",
                 "fig_26_significance_map_tasks", "fig_27_rank_stability_tasks", "fig_29_bootstrap_tau_density",
                 "fig_31_iqm_improvement"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 10_000, name
    assert not (out / "figures" / "fig_28_task_clusters.png").exists()  # two tasks per consensus: one distance
    import base64

    page = (out / "report.html").read_text()  # self-contained: every figure embedded
    for png in (out / "figures").glob("*.png"):
        assert base64.b64encode(png.read_bytes()).decode() in page, png.name
    summary = (out / "summary.md").read_text()
    assert summary.count("### ") == 3 * 2 + 4  # 3 leaderboards x 2 methods, consensus, Friedman, significance, rliable
    for line in summary.splitlines():
        if line.startswith("12 runs;") or " runs; " in line:
            assert "97.5%" in line or "rank interval" in line, line
    ranking = read_table(out / "ranking.csv")
    hd = ranking[(ranking.task == "segmentation / hd95") & (ranking.ranking == "aggregate")]
    assert hd.sort_values("rank").value.is_monotonic_increasing  # lower is better for HD95



def test_rank_intervals_cover_the_true_rank_by_simulation():
    """The bootstrap rank intervals against populations of known truth (docs/ranking-options.md has the full run:
    per-run coverage 0.95-0.98, every run at once 0.77-0.94)."""
    from robustness.simulation.rank_intervals import rank_interval_coverage

    cov = rank_interval_coverage(spreads=(0.2,), sizes=(40,), n_populations=6, n_test_sets=8, n_resamples=200,
                                 truth_cases=50_000, rng=3)
    row = cov.iloc[0]
    assert 0.88 <= row.coverage <= 1.0, cov
    assert row.all_runs <= row.coverage and 0 < row.width < 6


def _one_task(rows):
    return task_scores(pd.DataFrame(rows, columns=["algorithm", "case", "value"]))[0]


def test_challenger_semantics_break_first_and_last_ties_alphabetically():
    from robustness.statistics.ranking_options import with_preset

    ts = _one_task([("B", "c1", 0.5), ("A", "c1", 0.5), ("C", "c1", 0.4)])  # B appears before A
    for preset, ties, want in (("challenger", "first", [2, 1, 3]), ("package", "first", [1, 2, 3]),
                               ("challenger", "last", [1, 2, 3]), ("package", "last", [2, 1, 3])):
        got = rank_task(ts, "aggregate", with_preset(preset, ties=ties))
        assert got.runs == ("B", "A", "C") and got.ranks.tolist() == want, (preset, ties)


def test_near_ties_tie_with_a_note_and_challenger_compares_in_r_arithmetic():
    from robustness.statistics.ranking_options import with_preset

    ts = _one_task([("A1", "c1", 0.1), ("A1", "c2", 0.2), ("A2", "c1", 0.15), ("A2", "c2", 0.15)])
    got = rank_task(ts, "aggregate", with_preset("package", ties="min"))
    assert got.statistic[0] != got.statistic[1] and got.ranks.tolist() == [1, 1]
    assert any("runs A2 and A1 differ by 2.78e-17" in n and "tied" in n for n in got.notes), got.notes
    # challengeR (the run of R): A1 first, its mean 0.15000000000000002
    got = rank_task(ts, "aggregate", with_preset("challenger", ties="min"))
    assert got.statistic.tolist() == [0.15000000000000002, 0.15] and got.ranks.tolist() == [1, 2]
    assert not any("differ by" in n for n in got.notes)
    # R's mean is not numpy's: 0.1, 0.3, 0.2 average to 0.2 in R, 0.20000000000000004 in numpy; against a run
    # of 0.2 the two tie in R
    ts = _one_task([("A", "c1", 0.1), ("A", "c2", 0.3), ("A", "c3", 0.2), ("B", "c1", 0.2), ("B", "c2", 0.2),
                    ("B", "c3", 0.2)])
    got = rank_task(ts, "aggregate", with_preset("challenger", ties="min"))
    assert got.statistic.tolist() == [0.2, 0.2] and got.ranks.tolist() == [1, 1]


def test_a_test_based_task_with_one_run_as_challenger_gives_it():
    from robustness.statistics.ranking_options import with_preset

    ts = _one_task([("A", "c1", 0.5), ("A", "c2", 0.4)])
    package = rank_task(ts, "test-based", with_preset("package"))
    assert package.statistic.tolist() == [0.0] and package.ranks.tolist() == [1.0]
    for ties, want in (("min", 1.0), ("average", 1.0), ("random", 1.0), ("max", None), ("first", None),
                       ("last", None)):
        got = rank_task(ts, "test-based", with_preset("challenger", ties=ties), rng=0)
        assert np.isnan(got.statistic[0])
        assert (np.isnan(got.ranks[0]) if want is None else got.ranks[0] == want), ties
    # a second run without any score left is no run to test against
    ts = _one_task([("A", "c1", 0.5), ("A", "c2", 0.4), ("B", "c1", np.nan), ("B", "c2", np.nan)])
    got = rank_task(ts, "test-based", with_preset("challenger", missing="drop"))
    assert np.isnan(got.statistic).all() and got.ranks[0] == 1 and np.isnan(got.ranks[1])


def test_a_test_based_pair_without_a_shared_case():
    from robustness.statistics.ranking_options import with_preset

    ts = _one_task([("A", "c1", 0.5), ("A", "c2", np.nan), ("B", "c1", np.nan), ("B", "c2", 0.4),
                    ("C", "c1", 0.3), ("C", "c2", 0.2)])
    with pytest.raises(InputError, match="task all: runs A and B share no scored case.*not enough observations"):
        rank_task(ts, "test-based", with_preset("challenger", missing="drop"))
    got = rank_task(ts, "test-based", with_preset("package", missing="drop"))
    assert any("runs A and B share no scored case: they are not tested" in n for n in got.notes)


def test_euclidean_consensus_re_ranks_each_task_with_average_ties():
    from robustness.statistics.case_rankings import rank_tasks
    from robustness.statistics.consensus import consensus
    from robustness.statistics.ranking_options import with_preset

    table = pd.DataFrame([("T1", "A", 0.9), ("T1", "B", 0.9), ("T1", "C", 0.1),
                          ("T2", "C", 0.9), ("T2", "A", 0.5), ("T2", "B", 0.1)], columns=["task", "algorithm", "value"])
    table["case"] = "c1"
    ranking, _ = rank_tasks(task_scores(table, by=["task"]), ["aggregate"], with_preset("challenger"))
    # by hand: T1 min ranks A 1, B 1, C 3 (average: 1.5, 1.5, 3); T2: C 1, A 2, B 3
    euclid = consensus(ranking, method="euclidean").set_index("run")
    assert euclid.value.to_dict() == {"A": 1.75, "B": 2.25, "C": 2.0}
    assert euclid["rank"].to_dict() == {"A": 1.0, "C": 2.0, "B": 3.0}
    mean = consensus(ranking, method="mean-rank").set_index("run")
    assert mean.value.to_dict() == {"A": 1.5, "B": 2.0, "C": 2.0} and mean.loc["B", "rank"] == mean.loc["C", "rank"]


def test_challenger_resampling_ranks_a_case_drawn_k_times_as_one_group():
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.statistics.task_statistics import rank_then_aggregate, rank_then_aggregate_grouped

    values = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])  # runs A, B, C on two cases
    counts = np.array([[2, 1]])
    options = RankingOptions(ties="min")
    # by hand: case 1 twice is one group of six, A .9 .9, B .5 .5, C .1 .1: ranks A 1 1, B 3 3, C 5 5; case 2 once:
    # A 3, B 2, C 1; mean ranks A 5/3, B 8/3, C 11/3 (weighted: A 5/3, B 2, C 7/3)
    got = rank_then_aggregate_grouped(values, counts, options=options, lower_better=False)
    np.testing.assert_allclose(-got[0], [5 / 3, 8 / 3, 11 / 3])
    weighted = rank_then_aggregate(values, counts, options=options, lower_better=False)
    np.testing.assert_allclose(-weighted[0], [5 / 3, 2, 7 / 3])


@pytest.mark.parametrize("seed", range(6))
def test_challenger_resampling_equals_repeated_rows_ranked_by_case(seed):
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.statistics.task_statistics import rank_then_aggregate_grouped

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=(4, 7)) / 4
    counts = rng.multinomial(7, np.full(7, 1 / 7), size=3)
    for ties in ("min", "max", "average"):
        for how in ("mean", "median"):
            options = RankingOptions(ties=ties, aggregate=how)
            got = -rank_then_aggregate_grouped(values, counts, options=options, lower_better=False)
            for b, row in enumerate(counts):  # the resample as challengeR builds it: each case's rows k times
                long = pd.DataFrame([(f"c{j}", r, values[r, j]) for j in range(7) for _ in range(row[j])
                                     for r in range(4)], columns=["case", "run", "value"])
                long["rank"] = long.groupby("case").value.rank(method=ties, ascending=False)
                want = long.groupby("run")["rank"].agg(how).to_numpy()
                np.testing.assert_allclose(got[b], want, rtol=0, atol=1e-12)


def test_challenger_resampling_tests_the_distinct_drawn_cases():
    from robustness.statistics.case_rankings import bootstrap_task_ranks
    from robustness.statistics.ranking_options import with_preset

    rng = np.random.default_rng(3)
    rows = [(f"R{r}", f"c{j}", float(rng.integers(0, 8)) / 8 + 0.1 * r) for r in range(3) for j in range(12)]
    ts = _one_task(rows)
    options = with_preset("challenger", ties="min")
    boot = bootstrap_task_ranks(ts, "test-based", options, n_resamples=5, rng=11)
    draws = np.random.default_rng(11).integers(0, 12, size=(5, 12))  # the same draws
    for b, d in enumerate(draws):
        keep = sorted(set(d.tolist()))
        sub = _one_task([r for r in rows if int(r[1][1:]) in keep])
        np.testing.assert_array_equal(boot[b], rank_task(sub, "test-based", options).ranks)


def test_challenger_resampling_on_challenger_s_worst_case_example():
    """c_worstcase of challengeR's README: every permutation of five values among five runs, one case each.

    challengeR's own test-based bootstrap (run in R for the issue "Ranking analysis") has every run first in
    about 95% of resamples; the package's weighted resampling in about 65%.
    """
    import itertools

    from robustness.statistics.case_rankings import bootstrap_task_ranks
    from robustness.statistics.ranking_options import with_preset

    strip = np.linspace(0.8, 1.0, 5)
    rows = [(f"A{a}", c, strip[k]) for c, perm in enumerate(itertools.permutations(range(1, 6)))
            for k, a in enumerate(perm)]
    ts = _one_task(rows)
    first = {r: (bootstrap_task_ranks(ts, "test-based", with_preset("challenger", resampling=r), n_resamples=600,
                                      rng=1) == 1).mean(axis=0) for r in ("challenger", "weighted")}
    assert ((first["challenger"] > 0.92) & (first["challenger"] < 0.98)).all(), first
    assert ((first["weighted"] > 0.58) & (first["weighted"] < 0.72)).all(), first


def test_a_few_missing_scores_leave_their_cases_out_of_the_engines_only(tmp_path):
    rng = np.random.default_rng(5)
    rows = [(f"c{j}", f"r{r}", float(rng.random() + 0.1 * r)) for j in range(30) for r in range(4)]
    table = pd.DataFrame(rows, columns=["case", "algorithm", "value"])
    table.loc[[5, 61], "value"] = np.nan  # two missing scores: r1 on c1, r1 on c15
    out, code = command(tmp_path, table, "--missing-scores", "drop", "--orders", "20")
    assert code == 0
    meta = json.loads((out / "meta.json").read_text())
    said = [w for w in meta["warnings"] if "where every run has a score" in w]
    assert len(said) == 1 and "28 of 30 cases" in said[0] and "(c1, c15)" in said[0], meta["warnings"]
    assert not any("not computed" in w for w in meta["warnings"])
    assert (out / "bootstrap_ci.csv").exists() and (out / "convergence.csv").exists()  # the engines ran
    ranking = read_table(out / "ranking.csv")
    assert len(ranking) == 4  # the leaderboard ranks every run on every case it has


def test_metrics_are_metrics_not_tasks_in_the_consensus(tmp_path):
    rng = np.random.default_rng(2)
    rows = [(task, metric, f"c{j}", f"r{r}", float(rng.random()))
            for task in ("T1", "T2") for metric in ("dice", "hd95") for j in range(6) for r in range(3)]
    table = pd.DataFrame(rows, columns=["task", "metric", "case", "algorithm", "value"])
    out, code = command(tmp_path, table, "--rankings-only")
    assert code == 0
    cons = read_table(out / "consensus.csv")
    # one consensus per metric, each across the two tasks; none across the metrics
    assert sorted(set(cons.scheme)) == ["dice", "hd95"] and len(cons) == 2 * 3
    ranking = read_table(out / "ranking.csv")
    for metric in ("dice", "hd95"):
        mine = ranking[ranking.task.str.endswith(metric)]
        by_hand = mine.groupby("run")["rank"].mean()
        got = cons[cons.scheme == metric].set_index("run").value
        assert got.to_dict() == pytest.approx(by_hand.to_dict())
    # without a task column (the main job's per_case.parquet): each metric on its own, no consensus, and a note
    (tmp_path / "b").mkdir()
    out2, code = command(tmp_path / "b", table[table.task == "T1"].drop(columns="task"), "--rankings-only")
    assert code == 0 and not (out2 / "consensus.csv").exists()
    warnings = json.loads((out2 / "meta.json").read_text())["warnings"]
    assert any("no task column: each of the 2 strategy and metric leaderboards is ranked on its own" in w
               for w in warnings)
    assert not any("ranked lower first" in w or "ranked higher first" in w for w in warnings)


def test_the_rank_frequency_colour_bar_names_the_tie_rule(tmp_path):
    from figures.fig_21_rank_frequency import _tie_words

    assert _tie_words(tmp_path) == "tied runs: average rank"  # no meta.json: the default
    for options, words in (({"ties": "min"}, "tied runs: the best of their places"),
                           ({"ties": "first", "semantics": "challenger"}, "tied runs: by name"),
                           ({"ties": "last"}, "tied runs: in the table's order, reversed")):
        (tmp_path / "meta.json").write_text(json.dumps({"ranking_options": options}))
        assert _tie_words(tmp_path) == words


def test_min_and_max_aggregates_and_r_s_adjustment_names():
    from robustness.statistics.ranking_options import with_preset

    ts = _one_task([("a", "c1", 0.9), ("a", "c2", 0.1), ("b", "c1", 0.5), ("b", "c2", 0.4)])
    worst = rank_task(ts, "aggregate", RankingOptions(aggregate="min"))
    best = rank_task(ts, "aggregate", RankingOptions(aggregate="max"))
    assert worst.statistic.tolist() == [0.1, 0.4] and worst.ranks.tolist() == [2, 1]  # b's worst case is better
    assert best.statistic.tolist() == [0.9, 0.5] and best.ranks.tolist() == [1, 2]
    for r_name, ours in (("hochberg", "simes-hochberg"), ("BH", "fdr_bh"), ("BY", "fdr_by")):
        assert with_preset("challenger", adjustment=r_name).adjustment == ours
    with pytest.raises(ValueError, match="aggregate must be mean, median, min, max or a quantile level"):
        RankingOptions(aggregate="mode")


def test_top_k_in_the_command_and_the_report(tmp_path):
    rows = [("c1", "a", 0.9), ("c1", "b", 0.8), ("c1", "c", 0.8), ("c1", "d", 0.1),
            ("c2", "a", 0.9), ("c2", "b", 0.7), ("c2", "c", 0.7), ("c2", "d", 0.2)]
    out, code = command(tmp_path, pd.DataFrame(rows, columns=["case", "algorithm", "value"]), "--top", "2",
                        "--ties", "min", "--rankings-only")
    assert code == 0
    t = read_table(out / "top.csv")
    assert t.run.tolist() == ["a", "b", "c"] and t["rank"].tolist() == [1, 2, 2]  # b and c tie at the cut
    summary = (out / "summary.md").read_text()
    assert "### Top 2" in summary and "a (1), b (2), c (2)" in summary
    _, code = command(tmp_path, pd.DataFrame(rows, columns=["case", "algorithm", "value"]), "--top", "0")
    assert code == 2
