"""challengeR's remaining figures and consensus methods, and the Bayesian signed-rank test with a rope.

Each against a value by hand or an independent computation: the significance map against scipy's Wilcoxon and
statsmodels' adjustments, Borda and Copeland by hand, the symmetric-difference distance against its definition, the
Bayesian signed-rank test's thetas against the definition's double sum on the same Dirichlet weights (and against
baycomp itself, out of band: docs/changelog.md), its probabilities against the posterior's closed-form mean.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments._cli import run
from experiments.table_rank_convergence import main
from robustness.results.study_result import read_table
from robustness.statistics.bayes_signed_rank import bayes_signed_rank, signed_rank_thetas
from robustness.statistics.consensus import consensus, symdiff_distance
from tests.conftest import only_figures, statsmodels_multipletests


def write(tmp_path, rows, columns=("task", "case", "algorithm", "value")):
    path = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=list(columns)).to_csv(path, index=False)
    return path


def three_tasks(seed=4, runs=5, cases=25):
    rng = np.random.default_rng(seed)
    return [(f"T{t}", f"c{j}", f"r{r}", float(np.round(rng.random() + 0.3 * r * (1 if t < 2 else -1), 3)))
            for t in range(3) for j in range(cases) for r in range(runs)]


# -- significance map ---------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("adjustment", ["holm", "none", "hommel"])
def test_significance_table_equals_scipy_and_statsmodels(tmp_path, adjustment):
    from scipy.stats import wilcoxon

    rows = three_tasks()
    out = tmp_path / "out"
    assert run(main, ["--table", str(write(tmp_path, rows)), "--out", str(out), "--quiet", "--no-figures",
                      "--rankings-only", "--bootstrap", "20", "--adjust", adjustment]) == 0
    got = read_table(out / "significance.csv")
    for task, g in got.groupby("task"):
        values = {r: np.array([v for t, c, a, v in rows if t == task and a == r]) for r in set(g.run)}
        p = np.array([wilcoxon(values[a] - values[b], alternative="greater", method="asymptotic",
                               correction=False).pvalue for a, b in zip(g.run, g.other)])
        np.testing.assert_allclose(g.p, p, rtol=1e-10)
        with statsmodels_multipletests() as multipletests:
            want = p if adjustment == "none" else multipletests(p, method=adjustment)[1]
        np.testing.assert_allclose(g.p_adjusted, want, rtol=1e-10)
        assert (g.significant == (want <= 0.05)).all()
        assert (g.cases == 25).all()


def test_significance_tests_unit_means_where_cases_are_grouped(tmp_path):
    from scipy.stats import wilcoxon

    rows = [(t, c, a, v, f"u{int(c[1:]) // 3}") for t, c, a, v in three_tasks(seed=9, runs=3, cases=30)]
    out = tmp_path / "out"
    path = write(tmp_path, rows, columns=("task", "case", "algorithm", "value", "patient"))
    assert run(main, ["--table", str(path), "--unit", "patient", "--out", str(out), "--quiet", "--no-figures",
                      "--rankings-only", "--bootstrap", "20", "--adjust", "none"]) == 0
    got = read_table(out / "significance.csv")
    assert (got.tested_on == "unit means").all() and (got.cases == 10).all()
    frame = pd.DataFrame(rows, columns=["task", "case", "algorithm", "value", "patient"])
    means = frame.groupby(["task", "algorithm", "patient"]).value.mean()
    for row in got.itertuples():
        a, b = means[row.task, row.run], means[row.task, row.other]
        assert row.p == pytest.approx(wilcoxon(a - b, alternative="greater", method="asymptotic").pvalue, rel=1e-10)
    assert "each run's mean over a unit's cases" in (out / "summary.md").read_text()


def test_significance_cells_are_the_test_based_counts(tmp_path):
    rows = three_tasks(seed=7)
    out = tmp_path / "out"
    assert run(main, ["--table", str(write(tmp_path, rows)), "--out", str(out), "--quiet", "--no-figures",
                      "--rankings-only", "--bootstrap", "20", "--ranking", "test-based"]) == 0
    sig = read_table(out / "significance.csv")
    ranking = read_table(out / "ranking.csv")
    for task, g in ranking.groupby("task"):
        wins = sig[(sig.task == task) & sig.significant].groupby("run").size().reindex(g.run, fill_value=0)
        # the test-based value: runs beaten (as a count, or a share of the others)
        assert np.allclose(g.value.to_numpy(), wins.to_numpy()) or np.allclose(
            g.value.to_numpy(), wins.to_numpy() / (len(g) - 1))
    summary = (out / "summary.md").read_text()
    assert "Significance map (paired tests)" in summary


# -- consensus: Borda and Copeland ----------------------------------------------------------------------------

def _ranking(ranks: dict) -> pd.DataFrame:
    return pd.DataFrame([{"task": t, "ranking": "aggregate", "run": r, "rank": k} for t, rr in ranks.items()
                         for r, k in rr.items()])


def test_borda_copeland_and_pairwise_majority_by_hand():
    # T1 = {A 0.9, B 0.9, C 0.1}, T2 = {C 0.9, A 0.5, B 0.1} under min ties (relations' values from R:
    # tests/statistics/test_challenger_ties.py)
    ranking = _ranking({"T1": {"A": 1, "B": 1, "C": 3}, "T2": {"C": 1, "A": 2, "B": 3}})
    borda = consensus(ranking, method="borda").set_index("run")
    # runs at or above: T1 A 2, B 2, C 3; T2 C 1, A 2, B 3
    assert borda.value.to_dict() == {"A": 4, "B": 5, "C": 4}
    assert borda["rank"].to_dict() == {"A": 1.0, "C": 1.0, "B": 3.0}
    cope = consensus(ranking, method="copeland").set_index("run")
    # above minus below: T1 A -1, B -1, C 2; T2 C -2, A 0, B 2
    assert cope.value.to_dict() == {"A": -1, "B": 1, "C": 0}
    assert cope["rank"].to_dict() == {"A": 1.0, "C": 2.0, "B": 3.0}
    major = consensus(ranking, method="pairwise-majority").set_index("run")
    # A-B: A above in T2, tied in T1 -> A; A-C and B-C: one task each -> ties
    assert major.value.to_dict() == {"A": 1.0, "B": -1.0, "C": 0.0}
    assert major["rank"].to_dict() == {"A": 1.0, "C": 2.0, "B": 3.0}


def test_pairwise_majority_weights_and_a_condorcet_cycle():
    # three tasks in a cycle: A > B > C, B > C > A, C > A > B: every pair 2 to 1, every score 0
    ranking = _ranking({"T1": {"A": 1, "B": 2, "C": 3}, "T2": {"B": 1, "C": 2, "A": 3},
                        "T3": {"C": 1, "A": 2, "B": 3}})
    assert (consensus(ranking, method="pairwise-majority").value == 0).all()
    # weight T1 twice as much as each other task: A beats B 3 to 1 (T1, T3), B beats C 3 to 1, A vs C 2 to 2
    w = consensus(ranking, method="pairwise-majority", weights={"T1": 2.0, "T2": 1.0, "T3": 1.0}).set_index(
        "run").value
    assert w.to_dict() == {"A": 1.0, "B": 0.0, "C": -1.0}


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_relations_scores_are_max_ranks_and_average_ranks(n_runs, n_tasks, seed):
    """Without absent runs: relations' Borda score is the sum of the max-ties ranks, and its Copeland score twice
    the sum of the average-ties ranks less T (R + 1), so ``copeland`` orders as challengeR's ``euclidean``."""
    from robustness.statistics.ranks import rank

    rng = np.random.default_rng(seed)
    raw = rng.integers(1, n_runs + 1, (n_tasks, n_runs)).astype(float)
    runs = [f"r{k}" for k in range(n_runs)]
    ranking = _ranking({f"T{t}": dict(zip(runs, raw[t])) for t in range(n_tasks)})
    borda = consensus(ranking, method="borda").set_index("run").value.reindex(runs)
    cope = consensus(ranking, method="copeland").set_index("run").value.reindex(runs)
    euclid = consensus(ranking, method="euclidean").set_index("run").value.reindex(runs)
    np.testing.assert_allclose(borda, rank(raw, ties="max", lower_better=True).sum(axis=0))
    average = rank(raw, ties="average", lower_better=True).sum(axis=0)
    np.testing.assert_allclose(cope, 2 * average - n_tasks * (n_runs + 1))
    np.testing.assert_allclose(euclid, average / n_tasks)


# -- tasks clustered by their rankings ------------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_symdiff_is_the_definition(n, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(1, n + 1, n).astype(float), rng.integers(1, n + 1, n).astype(float)
    pairs = {(i, j) for i in range(n) for j in range(n) if a[i] <= a[j]}
    other = {(i, j) for i in range(n) for j in range(n) if b[i] <= b[j]}
    assert symdiff_distance(a, b) == len(pairs ^ other)
    assert symdiff_distance(a, a) == 0 and symdiff_distance(a, b) == symdiff_distance(b, a)


def test_symdiff_by_hand_and_absent_runs_refused():
    assert symdiff_distance(np.array([1.0, 2.0]), np.array([2.0, 1.0])) == 2
    assert symdiff_distance(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == 6
    with pytest.raises(ValueError, match="every run ranked"):
        symdiff_distance(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


@pytest.mark.slow
def test_task_distances_and_the_figures(tmp_path):
    from scipy.stats import kendalltau

    rows = three_tasks(seed=3)
    out = tmp_path / "out"
    drawn = ("fig_26_significance_map_tasks", "fig_27_rank_stability_tasks", "fig_28_task_clusters",
             "fig_30_bayes_signed_rank", "fig_31_iqm_improvement", "fig_29_bootstrap_tau_density")
    with only_figures("table_rank_convergence", *drawn):  # the tasks' and the ROPE's (the three-task test: all)
        assert run(main, ["--table", str(write(tmp_path, rows)), "--out", str(out), "--quiet", "--rankings-only",
                          "--bootstrap", "20", "--consensus", "pairwise-majority", "--rope", "0.05"]) == 0
    dist = read_table(out / "task_distances.csv")
    ranking = read_table(out / "ranking.csv").pivot(index="run", columns="task", values="rank")
    assert len(dist) == 3 and (dist.pairs == 20).all()
    for row in dist.itertuples():
        a, b = ranking[row.task].to_numpy(), ranking[row.other].to_numpy()
        assert row.symdiff == int(((a[:, None] <= a[None, :]) != (b[:, None] <= b[None, :])).sum())
        assert row.tau == pytest.approx(kendalltau(a, b).statistic)
    assert dist.set_index(["task", "other"]).symdiff[("T0", "T2")] > dist.set_index(["task", "other"]).symdiff[
        ("T0", "T1")]  # T2's runs are reversed
    for name in drawn:
        assert (out / "figures" / f"{name}.png").stat().st_size > 0, name
    summary = (out / "summary.md").read_text()
    assert "pairwise-majority: runs ordered by their pairwise-majority score" in summary


# -- Bayesian signed-rank test with a rope ----------------------------------------------------------------------

def _twin(d, rope, w):
    """The definition: the double sum over every pair (i, j) of the Walsh averages, H(0) = 1/2."""
    sums = d[:, None] + d[None, :]

    def h(a):
        return (a > 0) + 0.5 * (a == 0)

    better = np.einsum("si,ij,sj->s", w, h(sums - 2 * rope), w)
    worse = np.einsum("si,ij,sj->s", w, h(-sums - 2 * rope), w)
    return np.column_stack([better, 1 - better - worse, worse])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.sampled_from([0.0, 0.01, 0.05, 0.1]), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_thetas_equal_the_double_sum(n, rope, decimals, seed):
    rng = np.random.default_rng(seed)
    d = np.r_[0.0, np.round(rng.normal(0, 0.1, n), decimals)]  # rounded: sums exactly at the rope's ends happen
    w = rng.dirichlet(np.r_[0.5, np.ones(n)], size=20)
    np.testing.assert_allclose(signed_rank_thetas(d, rope, w), _twin(d, rope, w), atol=1e-12)


def test_thetas_at_the_rope_s_ends_by_hand():
    # d = (0, 0.1): sums 0, 0.1, 0.1, 0.2 with weights w0^2, w0 w1 (twice), w1^2; rope 0.05 puts 0.1 on its end
    w = np.array([[0.25, 0.75]])
    got = signed_rank_thetas(np.array([0.0, 0.1]), 0.05, w)[0]
    better = 0.75**2 + 0.5 * 2 * 0.25 * 0.75  # 0.2 above; 0.1 at the end: half
    np.testing.assert_allclose(got, [better, 1 - better, 0.0], atol=1e-15)


@pytest.mark.slow
def test_probabilities_by_hand_and_the_posterior_mean():
    far = bayes_signed_rank(np.full(10, 0.9), np.full(10, 0.1), rope=0.05, rng=0, n_samples=2000)
    assert (far.p_better, far.p_rope, far.p_worse, far.decision) == (1.0, 0.0, 0.0, "better")
    same = bayes_signed_rank(np.full(10, 0.5), np.full(10, 0.5) + 0.001, rope=0.05, rng=0, n_samples=2000)
    assert (same.p_rope, same.decision) == (1.0, "equivalent")
    # E[w_i w_j] under Dirichlet(a): a_i a_j / (A (A + 1)), and a_i (a_i + 1) / (A (A + 1)) on the diagonal
    rng = np.random.default_rng(5)
    d = np.r_[0.0, rng.normal(0.02, 0.05, 12)]
    a = np.r_[0.5, np.ones(12)]
    total = a.sum()
    moment = (np.outer(a, a) + np.diag(a)) / (total * (total + 1))
    want = (moment * ((d[:, None] + d[None, :]) > 0.02)).sum()
    w = rng.dirichlet(a, size=200_000)
    got = signed_rank_thetas(d, 0.01, w)[:, 0]
    assert abs(got.mean() - want) < 4 * got.std() / np.sqrt(got.size)


def test_same_seed_same_answer_and_bad_arguments():
    x, y = np.linspace(0, 1, 15), np.linspace(0, 1, 15)[::-1]
    assert bayes_signed_rank(x, y, 0.1, rng=3) == bayes_signed_rank(x, y, 0.1, rng=3)
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="rope must be a positive number"):
            bayes_signed_rank(x, y, bad)
    with pytest.raises(ValueError, match="no case"):
        bayes_signed_rank(np.array([np.nan]), np.array([1.0]), 0.1)


@pytest.mark.slow
def test_the_command_writes_the_test_and_refuses_a_bad_rope(tmp_path, capsys):
    rows = three_tasks(seed=2, runs=3)
    out = tmp_path / "out"
    path = write(tmp_path, rows)
    assert run(main, ["--table", str(path), "--out", str(out), "--quiet", "--no-figures", "--rankings-only",
                      "--bootstrap", "20", "--rope", "0.05"]) == 0
    t = read_table(out / "bayes_signed_rank.csv")
    assert len(t) == 3 * 2 and (t.rope == 0.05).all() and (t.cases == 25).all()
    np.testing.assert_allclose(t.p_better + t.p_rope + t.p_worse, 1.0)
    assert set(t.decision) <= {"better", "equivalent", "worse", "undecided"}
    assert "Bayesian signed-rank test with a region of practical equivalence" in (out / "summary.md").read_text()
    capsys.readouterr()
    assert run(main, ["--table", str(path), "--out", str(tmp_path / "o2"), "--rope", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and re.search(r"--rope: must be a number > 0", err), err
    assert not (tmp_path / "o2").exists()


# -- a document a reviewer can print ----------------------------------------------------------------------------

def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type /Page[^s]", pdf))


@pytest.mark.slow
def test_pdf_pages_hold_text_tables_and_figures(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustness.reporting.document import Report
    from robustness.reporting.pdf import to_pdf

    (tmp_path / "figures").mkdir()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [1, 0])
    fig.savefig(tmp_path / "figures" / "f.png", dpi=40)
    plt.close(fig)
    r = Report("A $x$ title")
    r.heading("Section $a_b$").paragraph("text with `code`, **bold** and $100 of $200 " * 20)
    r.table(pd.DataFrame({"run": ["$\\beta$", "x" * 90], "value": [0.5, 1.0]}), caption="cap")
    r.figure("figures/f.png", "a figure")
    short = to_pdf(r, tmp_path)
    for _ in range(40):
        r.figure("figures/f.png", "again")
    long = to_pdf(r, tmp_path)
    assert short.startswith(b"%PDF") and _pages(short) == 1 and _pages(long) > 5
    (tmp_path / "figures" / "link.png").symlink_to(tmp_path / "figures" / "f.png")
    r.figure("figures/link.png", "through a link")
    with pytest.raises(Exception, match="link|symlink"):
        to_pdf(r, tmp_path)

@pytest.mark.slow
def test_pdf_report_is_written_listed_and_rebuilt(tmp_path):
    import json

    from experiments.report import main as report_main

    rows = [(t, c, "$\\alpha$ <b>" if a == "r0" else a, v) for t, c, a, v in three_tasks(seed=1, runs=3, cases=12)]
    out = tmp_path / "out"
    assert run(main, ["--table", str(write(tmp_path, rows)), "--out", str(out), "--quiet", "--rankings-only",
                      "--bootstrap", "20", "--pdf", "--no-figures"]) == 0
    pdf = (out / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and _pages(pdf) >= 2
    assert "report.pdf" in json.loads((out / "meta.json").read_text())["files"]
    (out / "report.pdf").write_bytes(b"stale")
    assert run(report_main, [str(out), "--quiet"]) == 0
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    plain = tmp_path / "plain"
    assert run(main, ["--table", str(write(tmp_path, rows)), "--out", str(plain), "--quiet", "--rankings-only",
                      "--no-figures", "--bootstrap", "20"]) == 0
    assert not (plain / "report.pdf").exists()
