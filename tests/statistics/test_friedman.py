"""Friedman's test, Nemenyi's post-hoc test and the critical difference against scipy, scikit-posthocs and Demšar."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare

from robustness.statistics.friedman import critical_difference, friedman, tied_groups


def test_critical_difference_equals_demsar_s_table():
    # Demšar (2006), Table 5a: q_0.05 for 2..10 classifiers (two-tailed Nemenyi), to his three decimals
    published = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), published):
        got = critical_difference(k, 50) / np.sqrt(k * (k + 1) / (6 * 50))
        assert abs(got - q) < 1e-3, (k, got, q)


@pytest.mark.parametrize("seed", range(25))
def test_friedman_and_nemenyi_equal_scipy_and_scikit_posthocs(seed):
    sp = pytest.importorskip("scikit_posthocs", reason="scikit-posthocs is a test extra (pip install -e '.[test]')")
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(3, 8)), int(rng.integers(5, 40))
    values = rng.integers(0, 6, size=(k, n)) / 5 + rng.random(k)[:, None] * 0.3  # ties within cases
    runs = [f"r{i}" for i in range(k)]
    got = friedman(values, runs)
    want = friedmanchisquare(*values)
    if np.isfinite(want.statistic):
        assert got.statistic == pytest.approx(want.statistic, rel=1e-10)
        assert got.p == pytest.approx(want.pvalue, rel=1e-9, abs=1e-15)
    ref = sp.posthoc_nemenyi_friedman(pd.DataFrame(values.T, columns=runs))
    for row in got.pairs.itertuples():
        # scikit-posthocs reads the studentized range from statsmodels' psturng table (3 to 4 digits)
        assert row.p == pytest.approx(ref.loc[row.run, row.other], abs=2e-3), (row, ref.loc[row.run, row.other])
    # the mean ranks by hand: rank 1 = the highest score of a case, average ties
    by_hand = np.array([[1 + (col > col[i]).sum() + ((col == col[i]).sum() - 1) / 2 for i in range(k)]
                        for col in values.T]).mean(axis=0)
    np.testing.assert_allclose(got.mean_ranks, by_hand)
    assert (got.pairs.differ == (got.pairs.difference >= got.cd)).all()


def test_lower_better_reverses_the_ranks_and_missing_cases_are_left_out():
    values = np.array([[0.9, 0.8, np.nan, 0.7], [0.1, 0.2, 0.5, 0.3]])
    up, down = friedman(values, ["a", "b"]), friedman(values, ["a", "b"], lower_better=True)
    assert up.n_cases == 3 and up.mean_ranks.tolist() == [1.0, 2.0] and down.mean_ranks.tolist() == [2.0, 1.0]


def test_tied_groups_are_the_maximal_stretches_within_the_cd():
    assert tied_groups(np.array([1.0, 1.5, 2.9, 3.0]), 1.0) == [(0, 1), (2, 3)]
    assert tied_groups(np.array([1.0, 1.9, 2.8]), 1.0) == [(0, 1), (1, 2)]  # overlapping, neither inside the other
    assert tied_groups(np.array([1.0, 3.0]), 1.0) == []
    assert tied_groups(np.array([2.0, 1.0, 1.2]), 5.0) == [(0, 2)]


def test_the_table_command_writes_and_reports_them(tmp_path):
    from experiments._cli import run
    from experiments.table_rank_convergence import main
    from robustness.results.study_result import read_table

    rng = np.random.default_rng(4)
    rows = [(f"c{j}", f"r{r}", float(rng.random() + 0.4 * r)) for j in range(25) for r in range(4)]
    pd.DataFrame(rows, columns=["case", "algorithm", "value"]).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    assert run(main, ["--table", str(tmp_path / "t.csv"), "--out", str(out), "--quiet", "--no-figures",
                      "--rankings-only", "--bootstrap", "20"]) == 0
    tests = read_table(out / "friedman.csv")
    values = np.array([[v for c, r, v in rows if r == f"r{k}"] for k in range(4)])
    assert tests.chi2.iloc[0] == pytest.approx(friedmanchisquare(*values).statistic)
    assert tests.cd.iloc[0] == pytest.approx(critical_difference(4, 25))
    summary = (out / "summary.md").read_text()
    assert "Critical-difference diagram (Friedman, Nemenyi)" in summary and "Nemenyi CD" in summary
    assert "r3 and r0" in summary or "r0 and r3" in summary  # 1.2 apart in score: they differ
    assert json.loads((out / "meta.json").read_text())["study"] == "table_rank_convergence"
    # the diagram's bars are the study's table, not the figure's computation: the maximal stretches within the CD
    groups = read_table(out / "cd_groups.csv")
    pairs = read_table(out / "nemenyi.csv")
    mean = dict(zip(pairs.run, pairs.mean_rank)) | dict(zip(pairs.other, pairs.other_mean_rank))
    order = sorted(mean, key=lambda r: (mean[r], r))
    expected = tied_groups(np.array([mean[r] for r in order]), float(tests.cd.iloc[0]))
    assert expected  # neighbours 0.4 apart in score over 25 cases: some lie within the CD
    assert [(order.index(f), order.index(la)) for f, la in zip(groups.first_run, groups.last_run)] == expected
    assert (groups.runs == [b - a + 1 for a, b in expected]).all()
