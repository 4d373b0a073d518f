"""challengeR's ranking tests, every one, through this package's command line with ``--preset challenger``.

The cases are those of challengeR's testthat suite (github.com/wiesenfa/challengeR at commit beb3b67,
tests/testthat/test-aggregateThenRank.R, test-rankThenAggregate.R, test-testThenRank.R, test-subset.R; 19 + 15 +
16 + 8 = 58 ``test_that`` blocks), transcribed as data: the per-case table, challengeR's call mapped to this
package's options, and challengeR's expected values and ranks as written in its files. Each goes through
``python -m experiments.table_rank_convergence --preset challenger`` (in-process, ``--rankings-only``) and is
read back from ``ranking.csv``.

How challengeR's arguments map: ``smallBetter = TRUE`` -> ``--lower-better``; ``FUN = median`` ->
``--aggregate median``; ``ties.method`` -> ``--ties``; ``na.treat = <number>`` or a function returning a constant
-> ``--missing <number>``; ``na.treat = "na.rm"`` -> ``--missing drop``; ``prop_significance`` = runs beaten /
(R - 1); ``subset(ranking, top = k)`` -> :func:`robustness.statistics.case_rankings.top`.

Where both tools refuse, the test checks that this package refuses with one ``error:`` line and exit status 2
(an unknown aggregation, tie rule or missing-score treatment; a missing score without a treatment; a top-k
subset of several tasks). Two of challengeR's errors are about R's argument lists, not the data
(``rankThenAggregate`` has no ``na.treat`` argument): this package accepts a missing-score treatment for
rank-then-aggregate, and the tests check the ranks it then gives (RtA-12, RtA-15).
"""

from __future__ import annotations

import pandas as pd
import pytest

from experiments._cli import run
from experiments.table_rank_convergence import main
from robustness.results.study_result import read_table
from robustness.statistics.case_rankings import top

NA = None


def single(*rows):
    """Rows ``(algo, value, case)`` of task T1."""
    return [("T1", a, v, c) for a, v, c in rows]


def two(rows1, rows2):
    return [("T1", a, v, c) for a, v, c in rows1] + [("T2", a, v, c) for a, v, c in rows2]


AB_ONE = (("A1", 0.6, "C1"), ("A2", 0.8, "C1"))
AB_TIE = (("A1", 0.6, "C1"), ("A2", 0.6, "C1"))
AB_TWO = (("A1", 0.6, "C1"), ("A1", 0.4, "C2"), ("A2", 0.8, "C1"), ("A2", 1.0, "C2"))
NA_ONE = (("A1", NA, "C1"), ("A2", 0.8, "C1"))
T2_NA = (("A1", NA, "C1"), ("A2", 0.4, "C1"))
T2_ONE = (("A1", 0.5, "C1"), ("A2", 0.4, "C1"))
FOUR = tuple(("A1", 0.2, f"C{k}") for k in range(1, 5)) + tuple(("A2", 1.0, f"C{k}") for k in range(1, 5))
FOUR_NA = (("A1", NA, "C1"),) + FOUR[1:]
TIE2 = (("A1", 0.6, "C1"), ("A1", 0.6, "C2"), ("A2", 0.8, "C1"), ("A2", 0.8, "C2"))
TIE2_NA = (("A1", 0.6, "C1"), ("A1", 0.6, "C2"), ("A2", NA, "C1"), ("A2", 0.8, "C2"))
THREE = (("A1", 0.8, "C1"), ("A2", 0.6, "C1"), ("A3", 0.4, "C1"), ("A1", 0.2, "C2"), ("A2", 0.1, "C2"),
         ("A3", 0.0, "C2"))
THREE_T2 = (("A1", 0.2, "C1"), ("A2", 0.3, "C1"), ("A3", 0.4, "C1"), ("A1", 0.7, "C2"), ("A2", 0.8, "C2"),
            ("A3", 0.9, "C2"))
THREE_TIED = (("A1", 0.8, "C1"), ("A2", 0.8, "C1"), ("A3", 0.8, "C1"), ("A1", 0.2, "C2"), ("A2", 0.2, "C2"),
              ("A3", 0.2, "C2"))

AGG, RTA, TTR = "aggregate", "rank-then-aggregate", "test-based"
LOW, HIGH = ["--lower-better"], ["--higher-better"]

# (id, challengeR's test title, method, data, options, expected): expected is {task: {algo: (value, rank)}},
# "error" (both refuse) or ("note", text) with the ranks in a third element.
CASES = [
    # -- test-aggregateThenRank.R ---------------------------------------------------------------------------
    ("AtR-01", "by mean, two algorithms, one case, small better", AGG, single(*AB_ONE), LOW,
     {"T1": {"A1": (0.6, 1), "A2": (0.8, 2)}}),
    ("AtR-02", "by mean, two algorithms, one case, large better", AGG, single(*AB_ONE), HIGH,
     {"T1": {"A1": (0.6, 2), "A2": (0.8, 1)}}),
    ("AtR-03", "invalid aggregation function", AGG, single(*AB_TIE), LOW + ["--aggregate", "meanx"], "error"),
    ("AtR-04", "'min' ties", AGG, single(*AB_TIE), LOW + ["--ties", "min"],
     {"T1": {"A1": (0.6, 1), "A2": (0.6, 1)}}),
    ("AtR-05", "'max' ties", AGG, single(*AB_TIE), LOW + ["--ties", "max"],
     {"T1": {"A1": (0.6, 2), "A2": (0.6, 2)}}),
    ("AtR-06", "invalid ties method", AGG, single(*AB_TIE), LOW + ["--ties", "maxx"], "error"),
    ("AtR-07", "invalid ties method without ties", AGG, single(*AB_ONE), LOW + ["--ties", "maxx"], "error"),
    ("AtR-08", "by mean, two cases", AGG, single(*AB_TWO), LOW, {"T1": {"A1": (0.5, 1), "A2": (0.9, 2)}}),
    ("AtR-09", "by median, two cases", AGG, single(*AB_TWO), LOW + ["--aggregate", "median"],
     {"T1": {"A1": (0.5, 1), "A2": (0.9, 2)}}),
    ("AtR-10", "one algorithm, one case", AGG, single(("A1", 0.6, "C1")), LOW, {"T1": {"A1": (0.6, 1)}}),
    ("AtR-11", "NAs without NA treatment", AGG, single(*NA_ONE), HIGH, "error"),
    ("AtR-12", "invalid NA treatment", AGG, single(*NA_ONE), HIGH + ["--missing-scores", "na.rmx"], "error"),
    ("AtR-13", "NA treatment without NAs", AGG, single(*AB_ONE), HIGH + ["--missing-scores", "0"],
     {"T1": {"A1": (0.6, 2), "A2": (0.8, 1)}}),
    ("AtR-14", "NAs replaced by a number", AGG, single(*NA_ONE), HIGH + ["--missing-scores", "0"],
     {"T1": {"A1": (0.0, 2), "A2": (0.8, 1)}}),
    ("AtR-15", "NAs replaced by a function's value", AGG, single(*NA_ONE), HIGH + ["--missing-scores", "-1"],
     {"T1": {"A1": (-1.0, 2), "A2": (0.8, 1)}}),
    ("AtR-16", "NAs removed", AGG, single(*NA_ONE), HIGH + ["--missing-scores", "drop"], {"T1": {"A2": (0.8, 1)}}),
    ("AtR-17", "multi-task, no missing data", AGG, two(AB_ONE, T2_ONE), LOW,
     {"T1": {"A1": (0.6, 1), "A2": (0.8, 2)}, "T2": {"A1": (0.5, 2), "A2": (0.4, 1)}}),
    ("AtR-18", "multi-task, NAs replaced by a number", AGG, two(AB_ONE, T2_NA), LOW + ["--missing-scores", "100"],
     {"T1": {"A1": (0.6, 1), "A2": (0.8, 2)}, "T2": {"A1": (100.0, 2), "A2": (0.4, 1)}}),
    ("AtR-19", "multi-task, NAs without NA treatment", AGG, two(AB_ONE, T2_NA), LOW, "error"),
    # -- test-rankThenAggregate.R ---------------------------------------------------------------------------
    ("RtA-01", "by mean, one case, small better", RTA, single(*AB_ONE), LOW, {"T1": {"A1": (1, 1), "A2": (2, 2)}}),
    ("RtA-02", "by mean, one case, large better", RTA, single(*AB_ONE), HIGH, {"T1": {"A1": (2, 2), "A2": (1, 1)}}),
    ("RtA-03", "invalid aggregation function", RTA, single(*AB_TIE), LOW + ["--aggregate", "meanx"], "error"),
    ("RtA-04", "'min' ties", RTA, single(*AB_TIE), LOW + ["--ties", "min"], {"T1": {"A1": (1, 1), "A2": (1, 1)}}),
    ("RtA-05", "'max' ties", RTA, single(*AB_TIE), LOW + ["--ties", "max"], {"T1": {"A1": (2, 2), "A2": (2, 2)}}),
    ("RtA-06", "invalid ties method", RTA, single(*AB_TIE), LOW + ["--ties", "maxx"], "error"),
    ("RtA-07", "invalid ties method without ties", RTA, single(*AB_ONE), LOW + ["--ties", "maxx"], "error"),
    ("RtA-08", "by mean, two cases", RTA, single(*AB_TWO), LOW, {"T1": {"A1": (1, 1), "A2": (2, 2)}}),
    ("RtA-09", "by median, two cases", RTA, single(*AB_TWO), LOW + ["--aggregate", "median"],
     {"T1": {"A1": (1, 1), "A2": (2, 2)}}),
    ("RtA-10", "one algorithm, one case", RTA, single(("A1", 0.6, "C1")), LOW, {"T1": {"A1": (1, 1)}}),
    ("RtA-11", "NA ranked worst", RTA, single(*NA_ONE), HIGH, {"T1": {"A1": (2, 2), "A2": (1, 1)}}),
    ("RtA-12", "NA treatment given (R: unused argument; here: the value is used)", RTA, single(*NA_ONE),
     HIGH + ["--missing-scores", "0"], {"T1": {"A1": (2, 2), "A2": (1, 1)}}),
    ("RtA-13", "multi-task, no missing data", RTA, two(AB_ONE, T2_ONE), LOW,
     {"T1": {"A1": (1, 1), "A2": (2, 2)}, "T2": {"A1": (2, 2), "A2": (1, 1)}}),
    ("RtA-14", "multi-task, NA ranked worst", RTA, two(AB_ONE, T2_NA), LOW,
     {"T1": {"A1": (1, 1), "A2": (2, 2)}, "T2": {"A1": (2, 2), "A2": (1, 1)}}),
    ("RtA-15", "multi-task, na.rm given (R: unused argument; here: A1 has no rank in T2)", RTA,
     two(AB_ONE, T2_NA), LOW + ["--missing-scores", "drop"],
     {"T1": {"A1": (1, 1), "A2": (2, 2)}, "T2": {"A2": (1, 1)}}),
    # -- test-testThenRank.R --------------------------------------------------------------------------------
    ("TtR-01", "one case: warning", TTR, single(*AB_ONE), LOW,
     ("note", "only one case", {"T1": {"A1": (0, 1), "A2": (0, 1)}})),
    ("TtR-02", "one algorithm: warning", TTR, single(("A1", 0.6, "C1")), LOW,
     ("note", "only one run", {"T1": {"A1": (None, 1)}})),
    ("TtR-03", "two algorithms, small better", TTR, single(*FOUR), LOW, {"T1": {"A1": (1, 1), "A2": (0, 2)}}),
    ("TtR-04", "two algorithms, large better", TTR, single(*FOUR), HIGH, {"T1": {"A1": (0, 2), "A2": (1, 1)}}),
    ("TtR-05", "'max' ties", TTR, single(*TIE2), LOW + ["--ties", "max"], {"T1": {"A1": (0, 2), "A2": (0, 2)}}),
    ("TtR-06", "invalid ties method", TTR, single(*TIE2), LOW + ["--ties", "maxx"], "error"),
    ("TtR-07", "invalid ties method without ties", TTR, single(*FOUR), LOW + ["--ties", "maxx"], "error"),
    ("TtR-08", "NAs without NA treatment", TTR, single(*FOUR_NA), LOW, "error"),
    ("TtR-09", "invalid NA treatment", TTR, single(*FOUR_NA), LOW + ["--missing-scores", "na.rmx"], "error"),
    ("TtR-10", "NA treatment without NAs", TTR, single(*FOUR), LOW + ["--missing-scores", "0"],
     {"T1": {"A1": (1, 1), "A2": (0, 2)}}),
    ("TtR-11", "NAs replaced by a number", TTR, single(*FOUR_NA), LOW + ["--missing-scores", "100"],
     {"T1": {"A1": (0, 1), "A2": (0, 1)}}),
    ("TtR-12", "NAs replaced by a function's value", TTR, single(*FOUR_NA), LOW + ["--missing-scores", "0"],
     {"T1": {"A1": (1, 1), "A2": (0, 2)}}),
    ("TtR-13", "NAs removed", TTR, single(*FOUR_NA), LOW + ["--missing-scores", "drop"],
     {"T1": {"A1": (0, 1), "A2": (0, 1)}}),
    ("TtR-14", "multi-task, no missing data", TTR, two(FOUR, TIE2), LOW,
     {"T1": {"A1": (1, 1), "A2": (0, 2)}, "T2": {"A1": (0, 1), "A2": (0, 1)}}),
    ("TtR-15", "multi-task, NAs replaced by a number", TTR, two(FOUR_NA, TIE2), LOW + ["--missing-scores", "0"],
     {"T1": {"A1": (1, 1), "A2": (0, 2)}, "T2": {"A1": (0, 1), "A2": (0, 1)}}),
    ("TtR-16", "multi-task, NAs without NA treatment", TTR, two(FOUR, TIE2_NA), LOW, "error"),
]

# test-subset.R: (id, title, data, bootstrap resamples or 0, top k, expected {algo: (value, rank)} or "error")
SUBSETS = [
    ("Sub-01", "top 2 extracted", single(*THREE), 0, 2, {"A1": (0.5, 1), "A2": (0.35, 2)}),
    ("Sub-02", "multi-task subset refused", two(THREE, THREE_T2), 0, 2, "error"),
    ("Sub-03", "all algorithms when more are requested", single(*THREE), 0, 4,
     {"A1": (0.5, 1), "A2": (0.35, 2), "A3": (0.2, 3)}),
    ("Sub-04", "more algorithms than requested when tied", single(*THREE_TIED), 0, 2,
     {"A1": (0.5, 1), "A2": (0.5, 1), "A3": (0.5, 1)}),
    ("Sub-05", "top 2 of a bootstrap ranking", single(*THREE), 10, 2, {"A1": (0.5, 1), "A2": (0.35, 2)}),
    ("Sub-06", "multi-task bootstrap subset refused", two(THREE, THREE_T2), 10, 2, "error"),
    ("Sub-07", "bootstrap: all algorithms when more are requested", single(*THREE), 10, 4,
     {"A1": (0.5, 1), "A2": (0.35, 2), "A3": (0.2, 3)}),
    ("Sub-08", "bootstrap: more algorithms than requested when tied", single(*THREE_TIED), 10, 2,
     {"A1": (0.5, 1), "A2": (0.5, 1), "A3": (0.5, 1)}),
]


def test_the_whole_suite_is_here():
    assert len(CASES) == 19 + 15 + 16
    assert len(SUBSETS) == 8
    assert len({c[0] for c in CASES} | {s[0] for s in SUBSETS}) == 58


def run_command(tmp_path, data, method, options, *, bootstrap=10):
    table = pd.DataFrame(data, columns=["task", "algorithm", "value", "case"])
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "out"
    code = run(main, ["--table", str(path), "--preset", "challenger", "--ranking", method, "--rankings-only",
                      "--no-figures", "--quiet", "--bootstrap", str(bootstrap), "--out", str(out), *options])
    return out, code


def check(ranking, expected, method):
    for task, algos in expected.items():
        got = ranking[(ranking.task == task) & (ranking.ranking == method)].set_index("run")
        assert sorted(got.index) == sorted(algos), (task, got)
        n_runs = len(got)
        for algo, (value, rnk) in algos.items():
            assert got.loc[algo, "rank"] == rnk, (task, algo, got)
            if value is None:
                continue
            v = got.loc[algo, "value"]
            if method == TTR:  # challengeR prints the share of the other runs beaten
                v = v / max(n_runs - 1, 1)
            assert v == pytest.approx(value, abs=1e-12), (task, algo, got)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_challenger_ranking_case(case, tmp_path, capsys):
    _, _, method, data, options, expected = case
    if expected == "error":
        _, code = run_command(tmp_path, data, method, options)
        assert code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:"), err
        assert not (tmp_path / "out").exists()
        return
    note = None
    if isinstance(expected, tuple):
        _, note, expected = expected
    out, code = run_command(tmp_path, data, method, options)
    assert code == 0
    ranking = read_table(out / "ranking.csv")
    check(ranking, expected, method)
    if note:
        import json

        warnings = json.loads((out / "meta.json").read_text())["warnings"]
        assert any(note in w for w in warnings), warnings


@pytest.mark.slow
@pytest.mark.parametrize("case", SUBSETS, ids=[s[0] for s in SUBSETS])
def test_challenger_subset_case(case, tmp_path):
    _, _, data, n_boot, k, expected = case
    out, code = run_command(tmp_path, data, AGG, HIGH + ["--ties", "min"], bootstrap=max(n_boot, 2))
    assert code == 0
    ranking = read_table(out / "ranking.csv")
    if expected == "error":
        with pytest.raises(ValueError, match="one leaderboard"):
            top(ranking, k)
        return
    subset = top(ranking, k)
    check(subset, {"T1": expected}, AGG)
    if n_boot:  # challengeR keeps the bootstrap ranks of the subset's runs: (runs, resamples)
        boot = read_table(out / "rank_bootstrap.csv").set_index("run").loc[list(subset.run)]
        assert (boot.resamples == n_boot).all()
        assert len(boot) == len(subset)
    kept = pd.read_csv(tmp_path / "scores.csv")
    kept = kept[kept.algorithm.isin(subset.run)]
    if k == 2 and len(subset) == 2:  # challengeR also checks the subset's data, in its row order
        assert kept.algorithm.tolist() == ["A1", "A2", "A1", "A2"]
        assert kept.value.tolist() == [0.8, 0.6, 0.2, 0.1]
