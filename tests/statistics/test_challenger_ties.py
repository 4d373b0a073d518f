"""challengeR to the last tie (issue 52): each expected value here was printed by challengeR 1.0.5 (commit beb3b67)
and relations 0.6-18 in R 4.2.2 (Debian's r-base-core, tidyr 1.3.0), with the R call beside it.

The R session: ``library(challengeR); library(relations)``, run under ``LC_ALL=en_US.UTF-8`` (R built with ICU:
``capabilities("ICU")`` is TRUE) unless the comment says ``LC_ALL=C``. ``ch(d)`` below stands for
``as.challenge(d, algorithm = "algorithm", case = "case", value = "value", smallBetter = FALSE)`` (with
``by = "task"`` for several tasks and ``na.treat = 0`` where the test says so).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments._cli import run
from experiments.table_rank_convergence import main
from robustness.results.study_result import read_table
from robustness.statistics.case_rankings import bootstrap_task_ranks, rank_task, task_scores
from robustness.statistics.collation import case_order, collated_order
from robustness.statistics.consensus import consensus
from robustness.statistics.ranking_options import with_preset


def command(tmp_path, rows, *options, columns=("algorithm", "case", "value")):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=list(columns)).to_csv(path, index=False)
    out = tmp_path / "out"
    code = run(main, ["--table", str(path), "--preset", "challenger", "--rankings-only", "--no-figures", "--quiet",
                      "--bootstrap", "10", "--out", str(out), *options])
    return out, code


def leaderboard(out, method):
    ranking = read_table(out / "ranking.csv")
    return {r.run: (r.value, r.rank) for r in ranking[ranking.ranking == method].itertuples()}


# -- 1. a task with absent rows: R completes it and sorts its rows by algorithm ---------------------------------

ABSENT = [("A2", "c1", 0.5), ("A1", "c1", 0.5), ("A3", "c1", 0.4), ("A1", "c2", 0.7), ("A2", "c2", 0.6)]


@pytest.mark.parametrize("ties, want", [
    # d <- data.frame(algorithm = c("A2","A1","A3","A1","A2"), case = c("c1","c1","c1","c2","c2"),
    #                 value = c(0.5, 0.5, 0.4, 0.7, 0.6))
    # rankThenAggregate(ch(d, na.treat = 0), FUN = mean, ties.method = "first")$matlist
    #   -> A1 rank_mean 1 rank 1; A2 2, 2; A3 3, 3
    ("first", {"A1": (1.0, 1.0), "A2": (2.0, 2.0), "A3": (3.0, 3.0)}),
    # ... ties.method = "last" -> A1 1.5, rank 2; A2 1.5, rank 1; A3 3, 3
    ("last", {"A1": (1.5, 2.0), "A2": (1.5, 1.0), "A3": (3.0, 3.0)}),
])
def test_per_case_ties_of_a_completed_task_follow_the_algorithms(tmp_path, ties, want):
    out, code = command(tmp_path, ABSENT, "--ranking", "rank-then-aggregate", "--ties", ties, "--missing-scores", "0")
    assert code == 0
    assert leaderboard(out, "rank-then-aggregate") == want


def test_a_task_without_absent_rows_keeps_the_table_s_row_order(tmp_path):
    # the same scores with A3's c2 row given (0): as.challenge completes nothing, ranks per case in row order
    # d6 <- data.frame(algorithm = c("A2","A1","A3","A1","A2","A3"), case = c("c1","c1","c1","c2","c2","c2"),
    #                  value = c(0.5, 0.5, 0.4, 0.7, 0.6, 0))
    # rankThenAggregate(ch(d6), FUN = mean, ties.method = "first")$matlist -> A1 1.5 rank 1; A2 1.5 rank 2; A3 3, 3
    # ... ties.method = "last" -> A1 1 rank 1; A2 2 rank 2; A3 3, 3
    rows = ABSENT + [("A3", "c2", 0.0)]
    for ties, want in (("first", {"A1": (1.5, 1.0), "A2": (1.5, 2.0), "A3": (3.0, 3.0)}),
                       ("last", {"A1": (1.0, 1.0), "A2": (2.0, 2.0), "A3": (3.0, 3.0)})):
        out, code = command(tmp_path / ties, rows, "--ranking", "rank-then-aggregate", "--ties", ties)
        assert code == 0
        assert leaderboard(out, "rank-then-aggregate") == want


# -- 2. the names' collation ---------------------------------------------------------------------------------------

MIXED = [("Beta", "c1", 0.5), ("alpha", "c1", 0.5), ("Beta", "c2", 0.7), ("alpha", "c2", 0.7)]


@pytest.mark.parametrize("collation, ties, want", [
    # levels(ch(d)[[1]]$algorithm) -> "alpha" "Beta"; under LC_ALL=C -> "Beta" "alpha"
    # aggregateThenRank(ch(d), FUN = mean, ties.method = "first")$matlist -> alpha 0.6 rank 1; Beta 0.6 rank 2
    ("locale", "first", {"alpha": (0.6, 1.0), "Beta": (0.6, 2.0)}),
    # ... ties.method = "last" -> alpha rank 2, Beta rank 1
    ("locale", "last", {"alpha": (0.6, 2.0), "Beta": (0.6, 1.0)}),
    # LC_ALL=C, ties.method = "first" -> Beta rank 1, alpha rank 2
    ("C", "first", {"alpha": (0.6, 2.0), "Beta": (0.6, 1.0)}),
])
def test_first_and_last_ties_follow_the_collation(tmp_path, collation, ties, want):
    out, code = command(tmp_path, MIXED, "--ties", ties, "--collation", collation)
    assert code == 0
    got = leaderboard(out, "aggregate")
    assert {k: (pytest.approx(v), r) for k, (v, r) in got.items()} == want


def test_the_preset_collates_as_r_in_a_utf8_locale(tmp_path):
    out, code = command(tmp_path, MIXED, "--ties", "first")
    assert code == 0
    assert leaderboard(out, "aggregate")["alpha"][1] == 1.0


@pytest.mark.parametrize("collation, want", [
    # d2 <- data.frame(algorithm = c("b","B","a","b","B"), case = c("x1","x1","x1","x2","x2"),
    #                  value = c(0.5, 0.5, 0.5, 0.3, 0.2))
    # rankThenAggregate(ch(d2, na.treat = 0), FUN = mean, ties.method = "first")$matlist
    #   -> a 2.0 rank 2; b 1.5 rank 1; B 2.5 rank 3
    ("locale", {"a": (2.0, 2.0), "b": (1.5, 1.0), "B": (2.5, 3.0)}),
    # LC_ALL=C: -> B 1.5 rank 1; a 2.5 rank 3; b 2.0 rank 2
    ("C", {"a": (2.5, 3.0), "b": (2.0, 2.0), "B": (1.5, 1.0)}),
])
def test_a_completed_task_is_sorted_in_the_collation_s_order(tmp_path, collation, want):
    rows = [("b", "x1", 0.5), ("B", "x1", 0.5), ("a", "x1", 0.5), ("b", "x2", 0.3), ("B", "x2", 0.2)]
    out, code = command(tmp_path, rows, "--ranking", "rank-then-aggregate", "--ties", "first", "--missing-scores",
                        "0", "--collation", collation)
    assert code == 0
    assert leaderboard(out, "rank-then-aggregate") == want


NAMES = ['ü#00@', 'Aa', '_é9)1', 'éA(B9', 'ABéa', 'run 1', 'Beta', 'beta', 'aa', 'AA', '#-Ü', '-ÉB+', 'Ü/-',
         'Alpha', "+'._", 'ü+ÉüÜ', 'ü.', 'run2', 'b_', 'B#-(b', 'run10', 'ßcé+', 'run_1', '_b90', 'c C+', 'run.1',
         'Aè', 'ßa(B1', 'alpha', '+c', '1+#', '(#9', 'Run1', 'run-1', 'run2', '#ßé+-', 'team3-run1', '10/', '1+Ba',
         'aA']
# w <- readLines("names.txt", encoding = "UTF-8"); dput(sort(w))   (the names above, one a line)
R_LOCALE = ["_b90", "_é9)1", "-ÉB+", "(#9", "#-Ü", "#ßé+-", "+'._", "+c", "1+#", "1+Ba", "10/", "aa", "aA", "Aa",
            "AA", "ABéa", "Aè", "alpha", "Alpha", "b_", "B#-(b", "beta", "Beta", "c C+", "éA(B9", "run 1", "run_1",
            "run-1", "run.1", "Run1", "run10", "run2", "run2", "ßa(B1", "ßcé+", "team3-run1", "ü.", "Ü/-", "ü#00@",
            "ü+ÉüÜ"]


def test_locale_collation_is_r_s_sort():
    assert [NAMES[i] for i in collated_order(NAMES, "locale")] == R_LOCALE
    # LC_ALL=C Rscript -e '...; dput(sort(w))': code points
    assert [NAMES[i] for i in collated_order(NAMES, "C")] == sorted(NAMES)
    # tidyr::complete and merge order the cases the same way; a number column by value
    assert case_order(["b", "B", "a10", "a9", "_z", "A1"], "locale") == [4, 5, 2, 3, 0, 1]
    assert case_order(["10", "9", "1.5"], "locale") == [2, 1, 0]


# -- 3. Borda and Copeland as relations defines them ---------------------------------------------------------------

def ranks_frame(ranks):
    return pd.DataFrame([{"task": t, "ranking": "aggregate", "run": r, "rank": k} for t, rr in ranks.items()
                         for r, k in rr.items()])


# dw <- data.frame(task = rep(c("T1","T2"), each = 3), algorithm = c("A","B","C","C","A","B"), case = "c1",
#                  value = c(.9, .9, .1, .9, .5, .1)); r <- aggregateThenRank(ch(dw, by = "task"), FUN = mean,
#                  ties.method = "min")   (T1: A 1, B 1, C 3; T2: C 1, A 2, B 3)
EXAMPLE_1 = {"T1": {"A": 1, "B": 1, "C": 3}, "T2": {"C": 1, "A": 2, "B": 3}}
# T1 = T2 = A > B > C, T3 = B > C > A (values 3, 2, 1 and 1, 3, 2 per task, one case, same call)
EXAMPLE_2 = {"T1": {"A": 1, "B": 2, "C": 3}, "T2": {"A": 1, "B": 2, "C": 3}, "T3": {"B": 1, "C": 2, "A": 3}}


@pytest.mark.parametrize("example, method, weights, scores, ranks", [
    # relation_scores(relation_ensemble(list = as.relation(r)), "Borda") -> A 4, B 5, C 4
    # consensus(r, method = "Borda") -> A 1.5, C 1.5, B 3
    (EXAMPLE_1, "borda", None, {"A": 4, "B": 5, "C": 4}, {"A": 1, "C": 1, "B": 3}),
    # relation_scores(..., "Copeland") -> A -1, B 1, C 0; consensus(r, method = "Copeland") -> A 1, C 2, B 3
    (EXAMPLE_1, "copeland", None, {"A": -1, "B": 1, "C": 0}, {"A": 1, "C": 2, "B": 3}),
    # consensus(r, method = "Borda", weights = c(1, 3)) -> C 1, A 2, B 3 (and the same for "Copeland")
    (EXAMPLE_1, "borda", {"T1": 1, "T2": 3}, {"A": 8, "B": 11, "C": 6}, {"C": 1, "A": 2, "B": 3}),
    (EXAMPLE_1, "copeland", {"T1": 1, "T2": 3}, {"A": -1, "B": 5, "C": -4}, {"C": 1, "A": 2, "B": 3}),
    # example 2: relation_scores(..., "Borda") -> A 5, B 5, C 8; "Copeland" -> A -2, B -2, C 4;
    # consensus(r, method = "Borda") and "Copeland" -> A 1.5, B 1.5, C 3
    (EXAMPLE_2, "borda", None, {"A": 5, "B": 5, "C": 8}, {"A": 1, "B": 1, "C": 3}),
    (EXAMPLE_2, "copeland", None, {"A": -2, "B": -2, "C": 4}, {"A": 1, "B": 1, "C": 3}),
])
def test_borda_and_copeland_are_relations(example, method, weights, scores, ranks):
    got = consensus(ranks_frame(example), method=method, weights=weights).set_index("run")
    assert got.value.to_dict() == scores
    assert got["rank"].to_dict() == ranks


def test_pairwise_majority_keeps_the_former_copeland():
    got = consensus(ranks_frame(EXAMPLE_2), method="pairwise-majority").set_index("run")
    assert got.value.to_dict() == {"A": 2, "B": 0, "C": -2}  # A beats B 2 to 1 where relations ties them


def test_the_command_s_borda_consensus_is_relations(tmp_path):
    rows = [("T1", "A", "c1", 0.9), ("T1", "B", "c1", 0.9), ("T1", "C", "c1", 0.1), ("T2", "C", "c1", 0.9),
            ("T2", "A", "c1", 0.5), ("T2", "B", "c1", 0.1)]
    out, code = command(tmp_path, rows, "--consensus", "borda", columns=("task", "algorithm", "case", "value"))
    assert code == 0
    got = read_table(out / "consensus.csv").set_index("run")
    assert got["rank"].to_dict() == {"A": 1, "C": 1, "B": 3}  # consensus(r, method = "Borda"): A = C, then B


# -- 4. resampled means in R's arithmetic ---------------------------------------------------------------------------

# n <- 10; cases <- sprintf("c%02d", 1:n)
# d <- data.frame(algorithm = rep(c("A1","A2"), each = n), case = rep(cases, 2),
#                 value = c(rep(c(0.1, 0.2), n/2), rep(0.15, n)))
# r <- aggregateThenRank(ch(d), FUN = mean, ties.method = "min")
CASES = [f"c{k:02d}" for k in range(1, 11)]
ALTERNATING = [("A1", c, 0.1 if k % 2 == 0 else 0.2) for k, c in enumerate(CASES)] + [("A2", c, 0.15) for c in CASES]
# set.seed(s); i1 <- sample(cases, n, TRUE); i2 <- sample(cases, n, TRUE)
# set.seed(s); b <- bootstrap(r, nboot = 2, progress = "none")
# table(factor(i, levels = cases)), b$bootsrappedAggregate[[1]][, k], b$bootsrappedRanks[[1]][, k]
R_RESAMPLES = [  # counts per case, A1's mean as R prints it (%.17g), ranks of A1 and A2
    ((2, 2, 1, 1, 1, 0, 2, 0, 1, 0), 0.13, (2, 1)),  # seed 1
    ((0, 0, 0, 0, 3, 1, 1, 0, 3, 2), 0.13, (2, 1)),
    ((3, 1, 1, 0, 1, 2, 0, 1, 1, 0), 0.14000000000000001, (2, 1)),  # seed 2
    ((1, 1, 1, 1, 0, 2, 2, 1, 1, 0), 0.15000000000000002, (1, 2)),
    ((0, 0, 0, 2, 1, 0, 2, 2, 0, 3), 0.17000000000000001, (1, 2)),  # seed 3
    ((0, 1, 0, 0, 3, 0, 0, 4, 2, 0), 0.15000000000000002, (1, 2)),
    ((0, 0, 4, 0, 1, 1, 1, 2, 0, 1), 0.14000000000000001, (2, 1)),  # seed 4
    ((1, 2, 1, 1, 2, 2, 0, 1, 0, 0), 0.16, (1, 2)),
]


def alternating_task():
    return task_scores(pd.DataFrame(ALTERNATING, columns=["algorithm", "case", "value"]))[0]


def test_resampled_means_are_r_s_on_r_s_resamples():
    from robustness.statistics.task_statistics import in_r_resampled

    ts, options = alternating_task(), with_preset("challenger")
    draws = np.array([c for c, _, _ in R_RESAMPLES])
    got = bootstrap_task_ranks(ts, "aggregate", options, draws=draws)
    assert got.tolist() == [list(map(float, r)) for _, _, r in R_RESAMPLES]
    means = in_r_resampled(ts.values, draws, range(10), options=options, lower_better=False)
    assert means[:, 0].tolist() == [m for _, m, _ in R_RESAMPLES]  # exactly
    assert (means[:, 1] == 0.15).all()  # R: 0.14999999999999999 as printed, the double nearest 0.15


def test_r_never_ties_the_resampled_means():
    # set.seed(1); b <- bootstrap(r, nboot = 2000, progress = "none"); rk <- b$bootsrappedRanks[[1]]
    # mean(rk["A1",] < rk["A2",]) -> 0.618; mean(rk["A1",] == rk["A2",]) -> 0
    boot = bootstrap_task_ranks(alternating_task(), "aggregate", with_preset("challenger"), n_resamples=2000, rng=1)
    assert not (boot[:, 0] == boot[:, 1]).any()
    ahead = (boot[:, 0] < boot[:, 1]).mean()
    se = np.sqrt(2 * 0.618 * 0.382 / 2000)  # two independent estimates of one share
    assert abs(ahead - 0.618) < 4 * se, ahead
    # the package's own semantics tie within 1e-12 (its documented tolerance), as before
    weighted = bootstrap_task_ranks(alternating_task(), "aggregate", with_preset("package"), n_resamples=2000, rng=1)
    assert (weighted[:, 0] == weighted[:, 1]).any()


def test_the_full_table_is_still_r_s():
    # r$matlist -> A1 0.15 rank 1, A2 0.15 rank 2 (R's mean of A1 is 0.15000000000000002)
    got = rank_task(alternating_task(), "aggregate", with_preset("challenger"))
    assert got.ranks.tolist() == [1.0, 2.0]


# -- 6. the no-common-case refusal: status 2 from main() ------------------------------------------------------------

def test_no_common_case_refused_with_status_2_from_main(tmp_path, capsys):
    # testThenRank(ch(d, na.treat = "na.rm")) on runs A and C without a common case stops in wilcox.test:
    # "not enough (non-missing) 'x' observations"
    path = tmp_path / "scores.csv"
    pd.DataFrame([("A", "c1", 0.5), ("B", "c1", 0.4), ("A", "c2", 0.7), ("C", "c3", 0.2)],
                 columns=["algorithm", "case", "value"]).to_csv(path, index=False)
    code = main(["--table", str(path), "--preset", "challenger", "--missing-scores", "drop", "--ranking",
                 "test-based", "--rankings-only", "--quiet", "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "share no scored case" in err[0]
    assert not (tmp_path / "out").exists()


# -- 7. one algorithm, test-based, ties first -----------------------------------------------------------------------

@pytest.mark.parametrize("ties, rank", [
    # d3 <- data.frame(algorithm = "A", case = c("c1","c2","c3"), value = c(0.5, 0.4, 0.7))
    # testThenRank(ch(d3), ties.method = "first")$matlist -> A prop_significance NA, rank NA
    ("first", None),
    # testThenRank(ch(d3), ties.method = "min")$matlist -> A NA, rank 1
    ("min", 1.0),
])
def test_one_algorithm_test_based(tmp_path, ties, rank):
    rows = [("A", "c1", 0.5), ("A", "c2", 0.4), ("A", "c3", 0.7)]
    out, code = command(tmp_path, rows, "--ranking", "test-based", "--ties", ties)
    assert code == 0
    ranked = leaderboard(out, "test-based")
    boot = read_table(out / "rank_bootstrap.csv")
    assert "median_rank" in boot.columns
    if rank is None:
        assert ranked == {} and boot.empty
    else:
        assert np.isnan(ranked["A"][0]) and ranked["A"][1] == rank


def test_every_score_missing_under_max_ties_refused_as_r(tmp_path, capsys):
    # d8 <- data.frame(algorithm = c("A1","A2"), case = "C1", value = NA_real_)
    # rankThenAggregate(ch(d8), FUN = min, ties.method = "max") -> Error: no rows to aggregate
    out, code = command(tmp_path, [("A1", "C1", None), ("A2", "C1", None)], "--ranking", "rank-then-aggregate",
                        "--ties", "max")
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no rows to aggregate" in err[0]
    assert not out.exists()


# -- 5. the podium, the significance map's canvas, the performance profile's band -----------------------------------

def test_the_podium_is_challenger_s(tmp_path):
    """Every dot where challengeR's ``podium`` puts it, and its bars.

    d9 <- data.frame(algorithm = c("A","B","C","A","B","C"), case = c("c1","c1","c1","c2","c2","c2"),
                     value = c(0.9, 0.5, 0.7, 0.25, 0.75, 0.5))
    r <- aggregateThenRank(ch(d9), FUN = mean, ties.method = "min")   (B 1, C 2, A 3)
    trace("points.default", where = asNamespace("graphics"), tracer = quote(cat(x, y)))
    trace(graphics::barplot, tracer = quote(print(height))); podium(r)
      points x: 2.5 4.5 6.5  y: 0.9 0.7 0.5       (case c1: A, C, B)
      points x: 0.5 4.5 8.5  y: 0.75 0.50 0.25    (case c2: B, C, A)
      bars (runs by place 1, 2, 3): B 1 0 1; C 0 2 0; A 1 0 1   (drawn side by side, one unit wide)
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustness.reporting.rank_plots import podium, run_order

    rows = [("A", "c1", 0.9), ("B", "c1", 0.5), ("C", "c1", 0.7), ("A", "c2", 0.25), ("B", "c2", 0.75),
            ("C", "c2", 0.5)]
    out, code = command(tmp_path, rows)
    assert code == 0
    ranking, places = read_table(out / "ranking.csv"), read_table(out / "podium.parquet")
    fig, (ax, counts) = plt.subplots(2, 1)
    podium(places, run_order(ranking, "all"), task="all", ax=ax, ax_counts=counts)
    dots = {(float(x), float(y)) for x, y in ax.collections[-1].get_offsets()}
    assert dots == {(2.5, 0.9), (4.5, 0.7), (6.5, 0.5), (0.5, 0.75), (4.5, 0.5), (8.5, 0.25)}
    bars = sorted((float(p.vertices[:, 0].min()), float(p.vertices[:, 1].max()))
                  for p in counts.collections[0].get_paths())
    assert bars == [(0.0, 1.0), (2.0, 1.0), (4.0, 2.0), (6.0, 1.0), (8.0, 1.0)]
    # the joins: case c1 A -> C -> B and case c2 B -> C -> A, one segment per step down the podium
    joins = {tuple(map(tuple, s)) for s in ax.collections[0].get_segments()}
    assert joins == {((2.5, 0.9), (4.5, 0.7)), ((4.5, 0.7), (6.5, 0.5)), ((0.5, 0.75), (4.5, 0.5)),
                     ((4.5, 0.5), (8.5, 0.25))}
    plt.close(fig)


@pytest.mark.slow
def test_the_significance_map_fills_its_canvas_and_the_profiles_have_bands(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import figures
    from figures import fig_25_performance_profile, fig_26_significance_map_tasks

    rng = np.random.default_rng(3)
    rows = [(f"T{t}", f"r{r}", f"c{c}", float(np.round(rng.random() + 0.1 * r, 3))) for t in range(4)
            for r in range(4) for c in range(12)]
    out, code = command(tmp_path, rows, columns=("task", "algorithm", "case", "value"))
    assert code == 0
    shown = []
    real_save = figures.save  # the figures are saved through it (a PNG is drawn without Figure.savefig)

    def keep(fig, *a, **k):
        shown.append(fig)
        return real_save(fig, *a, **k)

    figures.save = keep
    try:
        fig_26_significance_map_tasks.make(out, tmp_path / "sig")
        fig_25_performance_profile.make(out, tmp_path / "profile")
    finally:
        figures.save = real_save
    sig = shown[0]
    assert sum(ax.get_visible() for ax in sig.axes) == len(sig.axes) == 4  # two by two: no empty cell
    profiles = read_table(out / "performance_profile.csv")
    assert (profiles.low <= profiles.share + 1e-12).all() and (profiles.share <= profiles.high + 1e-12).all()
    inside = profiles[(profiles.share > 0.2) & (profiles.share < 0.8)]
    assert (inside.high - inside.low > 0).all()
    bands = [c for ax in shown[-1].axes for c in ax.collections]
    assert len(bands) >= 4 * 4  # a band per run and leaderboard
