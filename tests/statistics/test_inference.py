"""Shared interval helpers (:mod:`robustness.statistics.inference`) against numpy, value for value."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from robustness.statistics.inference import members, nanquantile_columns


@given(st.integers(1, 40), st.integers(1, 4), st.integers(1, 6), st.floats(0, 0.6), st.booleans(),
       st.sampled_from(["linear", "inverted_cdf"]), st.integers(0, 2**32 - 1))
def test_nanquantile_columns_equals_numpys_bit_for_bit(rows, cols, depth, nan_share, ties, method, seed):
    """The bootstrap intervals' quantiles (``nanquantile_columns``) are numpy's ``nanquantile`` over the first axis,
    value for value: columns with and without NaN, all-NaN columns, ties, infinities, one level or several."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rows, cols, depth))
    if ties:
        a = np.round(a, 1)
    a[rng.random(a.shape) < nan_share] = np.nan
    a[rng.random(a.shape) < 0.03] = np.inf
    for q in (float(rng.random()), [0.025, float(rng.random()), 0.975]):
        for x in (a, a[:, :, 0]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns warn in both
                expected = np.nanquantile(x, q, axis=0, method=method)
                got = nanquantile_columns(x, q, method=method)
            assert got.shape == expected.shape and got.dtype == expected.dtype
            assert np.array_equal(got, expected, equal_nan=True)


def test_nanquantile_columns_by_hand():
    a = np.array([[1.0, np.nan, np.nan], [2.0, 4.0, np.nan], [4.0, 6.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN column, as numpy warns
        low, mid = nanquantile_columns(a, [0.25, 0.5])
    assert low[:2].tolist() == [1.5, 4.5] and mid[:2].tolist() == [2.0, 5.0] and np.isnan(low[2])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=40))
def test_members_are_the_positions_of_each_label_by_a_scan_per_label(labels):


    labels = np.array(labels)
    ids, where = members(labels)
    assert ids.tolist() == sorted(set(labels.tolist()))
    assert [w.tolist() for w in where] == [np.flatnonzero(labels == i).tolist() for i in ids]
    numbers, where = members(np.array([3, 1, 3, 2]))  # integers too, as numpy.unique orders them
    assert numbers.tolist() == [1, 2, 3] and [w.tolist() for w in where] == [[1], [3], [0, 2]]
    none, groups = members(np.array([], dtype=int))
    assert none.size == 0 and groups == []
