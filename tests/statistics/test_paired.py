"""The one Wilcoxon and t-test of per-case scores (robustness.statistics.paired) against scipy, and the engines'
signed-rank kernel (the test-based ranking's fast form) against them: one test, two implementations, equal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustness.statistics.paired import paired_p_values, runs_beaten, signed_rank_p, t_p

differences = st.lists(st.sampled_from([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=25)


@settings(max_examples=200, deadline=None)
@given(differences)
def test_signed_rank_equals_scipy(d):
    from scipy.stats import wilcoxon

    d = np.array(d)
    for correction in (False, True):
        got = signed_rank_p(d, continuity=correction)
        if not (d != 0).any():
            assert got == 1.0
            continue
        want = wilcoxon(d, alternative="greater", correction=correction, method="approx",
                        zero_method="wilcox").pvalue
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_subnormal=False), min_size=2, max_size=25))
def test_t_equals_scipy(d):
    from scipy.stats import ttest_1samp

    d = np.array(d)
    got = t_p(d)
    if np.std(d, ddof=1) <= 1e-12:  # constant differences: certain in their direction (scipy: nan)
        assert got == (0.0 if d.mean() > 0 else 1.0)
        return
    assert got == pytest.approx(ttest_1samp(d, 0.0, alternative="greater").pvalue, rel=1e-9, abs=1e-15)


def test_one_case_or_none_left():
    assert t_p(np.array([0.3])) == 1.0 and signed_rank_p(np.array([0.0, 1e-14])) == 1.0
    p = paired_p_values(np.array([[0.5, np.nan], [np.nan, 0.2]]))
    assert p[0, 1] == 1.0 and p[1, 0] == 1.0 and np.isnan(p[0, 0])  # no case shared: nothing to test


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("adjustment", ["holm", "none", "bonferroni", "hommel", "fdr_bh", "fdr_by"])
def test_the_engines_kernel_equals_the_numpy_tests(seed, adjustment):
    """PairedTests (numba, per-unit scores) and runs_beaten (numpy) count the same wins on every weighting."""
    import pandas as pd

    from robustness.statistics.table_schemes import schemes_from_table
    from robustness.statistics.test_based import PairedTests

    rng = np.random.default_rng(seed)
    n_r, n_c = int(rng.integers(2, 6)), int(rng.integers(3, 30))
    values = np.round(rng.random((n_r, n_c)) + rng.random(n_r)[:, None] * rng.integers(0, 2), 1)
    table = pd.DataFrame({"case": np.tile(np.arange(n_c), n_r), "algorithm": np.repeat(np.arange(n_r), n_c),
                          "value": values.ravel()})
    tests = PairedTests.from_schemes(schemes_from_table(table), adjustment=adjustment)
    weights = rng.integers(0, 3, size=(5, n_c)).astype(np.float64)
    for w in np.vstack([np.ones(n_c), weights]):
        want = runs_beaten(values, w[None], adjustment=adjustment)[0]
        np.testing.assert_array_equal(tests.scores(w)[0], np.nan_to_num(want))


def test_pairwise_tests_are_the_one_wilcoxon():
    """comparisons.pairwise_tests (the significance map's tests) equal scipy's one-sided Wilcoxon per pair."""
    import pandas as pd
    from scipy.stats import wilcoxon

    from robustness.statistics.comparisons import pairwise_tests
    from robustness.statistics.table_schemes import schemes_from_table

    rng = np.random.default_rng(4)
    values = np.round(rng.random((3, 30)), 2)
    table = pd.DataFrame({"case": np.tile(np.arange(30), 3), "algorithm": np.repeat(list("ABC"), 30),
                          "value": values.ravel()})
    got = pairwise_tests(schemes_from_table(table), adjustment="none")
    for row in got.itertuples():
        i, j = "ABC".index(row.run), "ABC".index(row.other)
        want = wilcoxon(values[i] - values[j], alternative="greater", method="asymptotic").pvalue
        assert row.p == pytest.approx(want, rel=1e-12)


def test_alpha_is_below_one_half_in_every_path():
    """At alpha >= 0.5 each run of a tied pair would "beat" the other (both one-sided p-values are 0.5): refused by
    the options, the engines' tests and the command line alike."""
    from robustness.statistics.ranking_options import RankingOptions

    for bad in (0.5, 0.6):
        with pytest.raises(ValueError, match=r"alpha must lie in \(0, 0.5\)"):
            RankingOptions(alpha=bad)
    assert RankingOptions(alpha=0.49).alpha == 0.49


@pytest.mark.parametrize("adjustment", ["none", "fdr_bh", "hommel"])
def test_a_tied_pair_beats_nobody_in_either_path(adjustment):
    """The leaderboard (runs_beaten) and the engines (PairedTests) agree on a pair whose differences cancel."""
    import pandas as pd

    from robustness.statistics.table_schemes import schemes_from_table
    from robustness.statistics.test_based import PairedTests

    values = np.array([[0.1, 0.2], [0.2, 0.1]])
    table = pd.DataFrame({"case": [0, 1, 0, 1], "algorithm": ["a", "a", "b", "b"], "value": values.ravel()})
    for alpha in (0.05, 0.4999):
        engine = PairedTests.from_schemes(schemes_from_table(table), alpha=alpha, adjustment=adjustment).scores()[0]
        assert engine.tolist() == runs_beaten(values, adjustment=adjustment, alpha=alpha).tolist() == [0.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 40), st.integers(0, 2), st.booleans(), st.floats(0, 0.3),
       st.integers(0, 2**32 - 1))
def test_every_pair_at_once_is_the_pair_by_pair_test(n_runs, n_cases, decimals, continuity, missing, seed):
    """One weighting runs every pair in one pass (ties, nan cases, identical runs, blocks of pairs): the same
    p-values to the last digit as the pair-by-pair path that every weighting takes."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_runs, n_cases)).round(decimals)
    values[rng.random(values.shape) < missing] = np.nan
    values[-1] = values[0]  # one pair with every difference zero
    once = paired_p_values(values, continuity=continuity)
    each = paired_p_values(values, np.ones(n_cases), continuity=continuity)  # 1-D weights: the per-pair path
    np.testing.assert_array_equal(once, each)


def test_blocks_of_pairs_change_nothing(monkeypatch):
    from robustness.statistics import paired

    values = np.random.default_rng(4).normal(size=(9, 30)).round(1)
    whole = paired_p_values(values)
    monkeypatch.setattr(paired, "_BLOCK", 31)  # one pair per block
    np.testing.assert_array_equal(paired_p_values(values), whole)


def test_an_infinite_difference_is_the_largest_and_a_dropped_case_stays_out():
    """An infinite difference ranks above every finite one and apart from the cases the test drops (nan, ties):
    the one-pass path equals the pair-by-pair one (an infinite distance, e.g. HD with empty_distance='inf')."""
    for values in (np.array([[np.inf, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0]]),
                   np.array([[np.inf, 1.0, 2.0, np.nan], [1.0, 1.0, 1.0, 5.0]]),
                   np.array([[np.inf, -np.inf, 2.0, 1.0, np.nan], [0.0, 0.0, 2.0, 1.0, 1.0]])):
        np.testing.assert_array_equal(paired_p_values(values), paired_p_values(values, np.ones(values.shape[1])))
