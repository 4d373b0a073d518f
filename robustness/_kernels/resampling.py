"""Ranking and resampling kernels: scores from summed statistics, ranks, L1 curves, bootstrap sums (numba).

Plain arrays in, arrays out: no objects, no generators, no pandas. Every
kernel has a slow, obviously correct numpy twin in ``tests/naive.py``.

Scores are ratios of weighted sums, given as one tuple ``weights = (cols, num, den, empty)`` (a scheme table's
:attr:`~robustness.statistics.schemes.Schemes.weights`): scheme ``s`` reads three columns
``cols[s, r]`` of the summed statistics for run ``r`` and scores
``num[s] . v / den[s] . v`` (``empty[s]`` where the denominator is 0). The
weights come from the metric table (:mod:`robustness.overlap.metrics`): micro
Jaccard is ``(1, 0, 0) / (1, 1, 1)`` over (tp, fp, fn), a macro mean is
``(1, 0, 0) / (0, 1, 0)`` over (sum of per-image scores, number of images, -).
Zero weights are skipped, so a nan in an unused column never leaks in.

Ranks: 1 = best (highest score). Scores within ``tol`` of their neighbour in
sorted order are tied (summation-order noise is not a difference); nan scores
rank last, tied among themselves. ``ties``: 0 = average ranks for ties,
1 = min ranks, 2 = max ranks, 3 = first (tied runs ranked in the order of their index),
4 = last (in the reverse order; nan scores, -inf here, keep the order of their index, as R's ``rank`` puts
missing values last in the order they appear).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["rank_rows", "kendall_tau_b", "scores_from_sums", "l1_curves", "resample_sums"]


@njit(cache=True, nogil=True)
def _insertion_sort_desc(scores, perm):
    """Sort ``perm`` by ``scores[perm]`` descending, in place; fast when nearly sorted."""
    for i in range(1, perm.size):
        p = perm[i]
        v = scores[p]
        j = i - 1
        while j >= 0 and scores[perm[j]] < v:
            perm[j + 1] = perm[j]
            j -= 1
        perm[j + 1] = p


@njit(cache=True, nogil=True)
def _tied(higher, lower, tol):
    """Whether two neighbours in sorted order are tied: within ``tol`` (== catches -inf ties, their difference nan)."""
    return (higher == lower) | (higher - lower <= tol)  # without a branch: most neighbours are not tied


@njit(cache=True, nogil=True)
def _group_end(scores, perm, i, tol):
    """The last sorted position of the tie group that starts at ``i`` (neighbours within ``tol`` are tied)."""
    n = perm.size
    j = i
    while j + 1 < n and _tied(scores[perm[j]], scores[perm[j + 1]], tol):
        j += 1
    return j


@njit(cache=True, nogil=True)
def _has_tie(scores, perm, tol):
    """Whether any two neighbours of the sorted order ``perm`` are tied (:func:`_tied`)."""
    tied = False
    for i in range(perm.size - 1):  # every neighbour, without an early exit: most rankings have no tie
        tied |= _tied(scores[perm[i]], scores[perm[i + 1]], tol)
    return tied


@njit(cache=True, nogil=True)
def _group_rank(i, j, ties):
    """The rank every run of the tie group at sorted positions ``i..j`` takes (average, min or max rule)."""
    return (i + j) / 2.0 + 1.0 if ties == 0 else (i + 1.0 if ties == 1 else j + 1.0)


@njit(cache=True, nogil=True)
def _ranks_from_sorted(scores, perm, ranks, tol, ties):
    n = perm.size
    i = 0
    while i < n:
        j = _group_end(scores, perm, i, tol)
        if ties == 3 or ties == 4:
            reverse = ties == 4 and scores[perm[i]] != -np.inf
            for t in range(i, j + 1):
                before = 0
                for u in range(i, j + 1):
                    if perm[u] < perm[t]:
                        before += 1
                ranks[perm[t]] = j + 1.0 - before if reverse else i + 1.0 + before
        else:
            r = _group_rank(i, j, ties)
            for t in range(i, j + 1):
                ranks[perm[t]] = r
        i = j + 1


@njit(cache=True, nogil=True)
def _l1_to(scores, perm, ranks, final, tol, ties):
    """Rank ``scores`` into ``ranks``, and return ``sum |ranks - final|``.

    ``perm`` is re-sorted in place (it is nearly sorted from the previous prefix). For the average, min and max
    rules the distance is summed group by group in sorted order, without writing ``ranks``: ranks and final
    ranks are multiples of 1/2, so every partial sum is exact and the order of summation cannot change it. A
    ranking without a tie (no two neighbours in sorted order within ``tol``) is summed in one plain pass: each
    group is one run, whose rank is its sorted position plus one under all three rules.
    """
    _insertion_sort_desc(scores, perm)
    if ties == 3 or ties == 4:
        _ranks_from_sorted(scores, perm, ranks, tol, ties)
        d = 0.0
        for r in range(ranks.size):
            d += abs(ranks[r] - final[r])
        return d
    n = perm.size
    d = 0.0
    if not _has_tie(scores, perm, tol):  # most rankings: run i of the order takes rank i + 1 under every rule
        for i in range(n):
            d += abs(i + 1.0 - final[perm[i]])
        return d
    i = 0
    while i < n:
        j = _group_end(scores, perm, i, tol)
        r = _group_rank(i, j, ties)
        for t in range(i, j + 1):
            d += abs(r - final[perm[t]])
        i = j + 1
    return d


@njit(cache=True, nogil=True)
def rank_rows(scores, tol, ties):
    """Ranks of every row of a 2-D score array (see the module notes for the rules)."""
    m, n = scores.shape
    out = np.empty((m, n), dtype=np.float64)
    work = np.empty(n, dtype=np.float64)
    perm = np.empty(n, dtype=np.int64)
    for i in range(m):
        for k in range(n):
            v = scores[i, k]
            work[k] = v if v == v else -np.inf
            perm[k] = k
        _insertion_sort_desc(work, perm)
        _ranks_from_sorted(work, perm, out[i], tol, ties)
    return out


@njit(cache=True, nogil=True)
def kendall_tau_b(x, y):
    """Kendall's tau-b of two equal-length vectors (O(n^2); nan if either is constant)."""
    n = x.size
    concordant = 0.0
    discordant = 0.0
    ties_x = 0.0
    ties_y = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    den = np.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    if den == 0:
        return np.nan
    return (concordant - discordant) / den


@njit(cache=True, nogil=True)
def _scheme_scores(sums, cols, num, den, empty, s, out):
    """``out[r] = num[s] . sums[cols[s, r]] / den[s] . sums[cols[s, r]]`` (``empty[s]`` where the denominator is 0)."""
    n0, n1, n2 = num[s, 0], num[s, 1], num[s, 2]
    d0, d1, d2 = den[s, 0], den[s, 1], den[s, 2]
    e = empty[s]
    for r in range(cols.shape[1]):
        v0 = sums[cols[s, r, 0]]
        v1 = sums[cols[s, r, 1]]
        v2 = sums[cols[s, r, 2]]
        n = 0.0
        d = 0.0
        if n0 != 0:
            n += n0 * v0
        if n1 != 0:
            n += n1 * v1
        if n2 != 0:
            n += n2 * v2
        if d0 != 0:
            d += d0 * v0
        if d1 != 0:
            d += d1 * v1
        if d2 != 0:
            d += d2 * v2
        out[r] = n / d if d != 0 else e


@njit(cache=True, nogil=True)
def scores_from_sums(sums, weights):
    """Scores (S, R) from summed statistics ``sums`` (M,) through ``weights = (cols, num, den, empty)``."""
    cols, num, den, empty = weights
    n_s, n_r = cols.shape[0], cols.shape[1]
    out = np.empty((n_s, n_r), dtype=np.float64)
    for s in range(n_s):
        _scheme_scores(sums, cols, num, den, empty, s, out[s])
    return out


@njit(cache=True, nogil=True)
def l1_curves(x, weights, orders, positions, final_ranks, tol, ties):
    """L1 rank change to ``final_ranks`` after every prefix of every order.

    ``x`` (U, M) per-unit additive statistics, scored through ``weights = (cols, num, den, empty)``;
    ``orders`` (K, U) unit permutations; ``positions`` (P,) increasing prefix lengths to record.
    One running sum per order, so all prefixes of an order cost one pass.
    Returns float32 (S, K, P).
    """
    cols, num, den, empty = weights
    n_s, n_r = cols.shape[0], cols.shape[1]
    n_k, n_u = orders.shape
    n_p = positions.size
    m = x.shape[1]
    out = np.empty((n_s, n_k, n_p), dtype=np.float32)
    cum = np.empty(m, dtype=np.float64)
    perm = np.empty((n_s, n_r), dtype=np.int64)
    ranks = np.empty(n_r, dtype=np.float64)
    work = np.empty(n_r, dtype=np.float64)
    for k in range(n_k):
        cum[:] = 0.0
        for s in range(n_s):
            for r in range(n_r):
                perm[s, r] = r
        p = 0
        for n in range(n_u):
            row = x[orders[k, n]]
            for c in range(m):
                cum[c] += row[c]
            if p < n_p and n + 1 == positions[p]:
                for s in range(n_s):
                    _scheme_scores(cum, cols, num, den, empty, s, work)
                    for r in range(n_r):
                        if work[r] != work[r]:
                            work[r] = -np.inf
                    out[s, k, p] = _l1_to(work, perm[s], ranks, final_ranks[s], tol, ties)
                p += 1
    return out


@njit(cache=True, nogil=True)
def resample_sums(x, idx):
    """``out[b] = sum_j x[idx[b, j]]`` for every resample ``b`` (in draw order)."""
    n_b, n_j = idx.shape
    m = x.shape[1]
    out = np.zeros((n_b, m), dtype=np.float64)
    for b in range(n_b):
        acc = out[b]
        for j in range(n_j):
            row = x[idx[b, j]]
            for c in range(m):
                acc[c] += row[c]
    return out
