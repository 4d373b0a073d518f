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
    finite scores do not depend on the order a sort starts from.
    """
    n_d, n_r = draws.shape
    n_f = noise.shape[0]
    n_m = scales.size
    out = np.empty((n_m, n_d, n_f))
    lo = np.empty(n_r)
    hi = np.empty(n_r)
    values = np.empty(n_r)
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
                for r in range(n_r):
                    values[r] = draws[d, r] + scale * noise[f, r]
                _insertion_sort_desc(values, perm)
                _ranks_from_sorted(values, perm, ranks, 0.0, 0)
                total = 0.0
                for r in range(n_r):
                    if ranks[r] < lo[r]:
                        total += lo[r] - ranks[r]
                    elif ranks[r] > hi[r]:
                        total += ranks[r] - hi[r]
                out[k, d, f] = total
    return out
