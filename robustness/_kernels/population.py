"""Kernels of the distance to unlimited data (:mod:`robustness.statistics.population`).

A population is a vector of the runs' population scores (a posterior draw); a test set of ``m`` units scores
them with a noise vector ``scale * noise[f]``. Ranks are average ranks, 1 = best (the package's rule with
``tol = 0``). The distance is the L1 between the test set's ranks and the population's, where runs whose
population scores lie within ``margin`` of each other are tied: run ``i`` may take any rank in
``[1 + A_i, 1 + A_i + B_i]`` with ``A_i`` the runs above it by more than the margin and ``B_i`` the others within
it, and its distance is how far its rank lies outside that range (with ``margin = 0`` and no equal scores, the
ordinary L1 rank change).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from robustness._kernels.resampling import _insertion_sort_desc, _ranks_from_sorted

__all__ = ["margin_l1", "margin_l1_sizes"]


@njit(cache=True, nogil=True)
def _bounds(theta, margin, lo, hi):
    """The rank range ``[lo, hi]`` every run may take when runs within ``margin`` are tied."""
    n = theta.size
    for i in range(n):
        above = 0
        near = 0
        for j in range(n):
            if j == i:
                continue
            d = theta[j] - theta[i]
            if d > margin:
                above += 1
            elif -d <= margin:
                near += 1
        lo[i] = 1.0 + above
        hi[i] = 1.0 + above + near


@njit(cache=True, nogil=True)
def _sort_beside(values, perm):
    """Sort ``values`` in decreasing order in place, moving ``perm`` beside them; True where no two are equal.

    An insertion sort, fast on values nearly in order; ``values[i]`` stays the score of run ``perm[i]``, so the
    order found is that of :func:`~robustness._kernels.resampling._insertion_sort_desc` on the runs' scores.
    """
    n = perm.size
    for i in range(1, n):
        v = values[i]
        p = perm[i]
        j = i - 1
        while j >= 0 and values[j] < v:
            values[j + 1] = values[j]
            perm[j + 1] = perm[j]
            j -= 1
        values[j + 1] = v
        perm[j + 1] = p
    for i in range(n - 1):
        if values[i] == values[i + 1]:  # resampling._tied at tol 0: sorted, a - b <= 0 only where they are equal
            return False
    return True


@njit(cache=True, nogil=True)
def margin_l1(draws, noise, scale, margin):
    """L1 with a margin between noisy rankings and their population's, for every draw and noise vector.

    ``draws`` (D, R) population scores; ``noise`` (F, R) unit noise vectors (multiplied by ``scale``: the
    standard error at the size studied); returns (D, F).
    """
    return margin_l1_sizes(draws, noise, np.array([scale]), margin)[0]


@njit(cache=True, nogil=True)
def margin_l1_sizes(draws, noise, scales, margin):
    """:func:`margin_l1` at several scales (test-set sizes) at once: (M, D, F) for ``scales`` (M,).

    Each draw's rank ranges and its population order are found once for all the scales, and each noise vector's
    sort starts from its order at the previous scale: a pair of runs changes places at most once as the scale
    shrinks, so with decreasing scales (increasing sizes) the sorts together move fewer runs than sorting every
    scale from the population's order. Every number is :func:`margin_l1`'s at that scale: the average ranks of
    finite scores do not depend on the order a sort starts from. A noise vector whose scores hold no equal pair
    ranks each run by its sorted position, without tie groups, and the distance is summed in sorted order (ranks and
    bounds are multiples of 1/2, so the sum is exact in any order).
    """
    n_d, n_r = draws.shape
    n_f = noise.shape[0]
    n_m = scales.size
    out = np.empty((n_m, n_d, n_f))
    lo = np.empty(n_r)
    hi = np.empty(n_r)
    values = np.empty(n_r)
    sorted_values = np.empty(n_r)
    ranks = np.empty(n_r)
    perm = np.empty(n_r, dtype=np.int64)
    start = np.empty(n_r, dtype=np.int64)
    for d in range(n_d):
        _bounds(draws[d], margin, lo, hi)
        for r in range(n_r):
            start[r] = r
        _insertion_sort_desc(draws[d], start)  # the population's order: the noisy scores are nearly in it
        for f in range(n_f):
            for r in range(n_r):
                perm[r] = start[r]
            for k in range(n_m):  # from the previous scale's order
                scale = scales[k]
                for i in range(n_r):  # the noisy scores in the previous order, sorted beside it
                    sorted_values[i] = draws[d, perm[i]] + scale * noise[f, perm[i]]
                tied = not _sort_beside(sorted_values, perm)
                if tied:
                    for i in range(n_r):
                        values[perm[i]] = sorted_values[i]
                    _ranks_from_sorted(values, perm, ranks, 0.0, 0)
                total = 0.0  # in sorted order: multiples of 1/2, so the sum is exact in any order
                for i in range(n_r):
                    r = perm[i]
                    v = ranks[r] if tied else i + 1.0
                    if v < lo[r]:
                        total += lo[r] - v
                    elif v > hi[r]:
                        total += v - hi[r]
                out[k, d, f] = total
    return out
