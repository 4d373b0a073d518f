"""Ranks, tie rules and distances; the numba ranking kernels against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import kendalltau, rankdata

from robustness import _kernels
from robustness.statistics.ranks import footrule, kendall_tau, l1, n_changed, rank

int_scores = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 30)), elements=st.integers(0, 6).map(float))


@settings(max_examples=80, deadline=None)
@given(int_scores)
def test_rank_matches_scipy_rankdata(scores):
    np.testing.assert_array_equal(rank(scores), rankdata(-scores, axis=-1))
    np.testing.assert_array_equal(rank(scores, ties="min"), rankdata(-scores, axis=-1, method="min"))


def test_hand_made_ties_and_nan():
    assert rank([3.0, 1.0, 3.0, 2.0]).tolist() == [1.5, 4.0, 1.5, 3.0]
    assert rank([3.0, 1.0, 3.0, 2.0], ties="min").tolist() == [1.0, 4.0, 1.0, 3.0]
    assert rank([0.5, np.nan, 0.7, np.nan]).tolist() == [2.0, 3.5, 1.0, 3.5]
    # summation-order noise is a tie; a real difference is not
    a = 0.1 + 0.2
    b = 0.3
    assert a != b and rank([a, b]).tolist() == [1.5, 1.5]
    assert rank([0.3, 0.3 + 1e-9]).tolist() == [2.0, 1.0]
    with pytest.raises(ValueError, match="ties must be one of"):
        rank([1.0], ties="dense")


def test_distances():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([2.0, 1.0, 3.0, 4.0])
    assert l1(a, b) == 2.0 and footrule(a, b) == 2.0
    assert footrule(a, a[::-1], normalized=True) == 1.0  # reversal is the farthest: floor(16/2) = 8
    assert n_changed(a, b) == 2
    assert kendall_tau(a, a) == 1.0 and kendall_tau(a, a[::-1]) == -1.0
    np.testing.assert_allclose(kendall_tau(a, b), kendalltau(a, b).statistic)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 25).flatmap(lambda n: st.tuples(
    arrays(np.float64, n, elements=st.integers(0, 4).map(float)),
    arrays(np.float64, n, elements=st.integers(0, 4).map(float)))))
def test_kendall_tau_b_kernel_matches_scipy(xy):
    x, y = xy
    got = _kernels.kendall_tau_b(x, y)
    exp = kendalltau(x, y).statistic
    if np.isnan(exp):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(exp, abs=1e-12)
