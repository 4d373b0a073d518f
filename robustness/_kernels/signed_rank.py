"""Test-based ranking kernels: paired Wilcoxon signed-rank tests between every pair of runs, Holm, runs beaten (numba).

Plain arrays in, arrays out. Every kernel has a slow numpy twin in ``tests/naive.py``.

The inputs are prepared once per scheme and pair of runs ``(i, j)``
(:mod:`robustness.statistics.test_based`): the units whose difference ``d = score_i -
score_j`` is defined and nonzero, sorted by ``|d|`` (``order``), whether ``d``
is positive (``positive``), and where a new value of ``|d|`` starts
(``new_group``; ``length`` units per pair; ``positive`` is 1.0 or 0.0). A set of units is a weight per unit
``w``: 0/1 for a prefix of a random order, draw counts for a bootstrap
resample, all ones for the whole test set.

The weighted statistic equals ``scipy.stats.wilcoxon`` on the units repeated by
their weights (zero differences dropped, midranks for ties of ``|d|``, normal
approximation with tie correction, no continuity correction):
``T+ = sum of the midranks of the positive d``, ``n = number of nonzero d``,
``z = (T+ - n(n+1)/4) / sqrt((n(n+1)(2n+1) - sum(t^3 - t)/2) / 24)`` over the
tie groups ``t``; ``z = 0`` when ``n = 0``. The one-sided p-value of "i scores
higher than j" is ``Phi(-z)``, of "j higher than i" ``Phi(z)``.

The kernels of runs beaten take these as one tuple ``tests = (order, positive, new_group, length, pair_i, pair_j,
n_runs, alpha, holm)`` (:class:`~robustness.statistics.test_based.PairedTests` keeps it): the pairs' runs, the
number of runs, the level and whether Holm adjusts.

Runs beaten: for every scheme, the ``2 P`` one-sided hypotheses (every ordered
pair of runs) are adjusted together by Holm's step-down method (or not at all)
and run ``i`` scores the number of runs ``j`` it beats significantly (adjusted
p-value ``< alpha``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from robustness._kernels.resampling import _l1_to

__all__ = ["signed_rank_z", "runs_beaten", "beaten_l1_curves", "beaten_resamples"]

_SQRT2 = math.sqrt(2.0)


@njit(cache=True, nogil=True)
def _pair_z(w, order, positive, new_group, length):
    """Z of the signed-rank statistic of one pair (see the module notes).

    ``positive`` is 1.0/0.0 (float): the sum of positive weights is a product,
    not a branch on a random sign, which keeps the loop free of mispredictions.
    """
    below = 0.0  # weight of the groups already closed (smaller |d|)
    t_plus = 0.0
    ties = 0.0
    g_w = 0.0  # weight and positive weight of the open group
    g_pos = 0.0
    for k in range(length):
        if new_group[k]:  # close the open group (an empty one adds nothing)
            t_plus += g_pos * (below + (g_w + 1.0) * 0.5)
            ties += g_w * g_w * g_w - g_w
            below += g_w
            g_w = 0.0
            g_pos = 0.0
        wk = w[order[k]]
        g_w += wk
        g_pos += wk * positive[k]
    t_plus += g_pos * (below + (g_w + 1.0) * 0.5)
    ties += g_w * g_w * g_w - g_w
    below += g_w
    if below == 0:
        return 0.0
    n = below
    se = math.sqrt((n * (n + 1.0) * (2.0 * n + 1.0) - ties / 2.0) / 24.0)
    return (t_plus - n * (n + 1.0) * 0.25) / se


@njit(cache=True, nogil=True)
def _z_alpha(alpha):
    """The z above which a one-sided p-value ``Phi(-z)`` falls below ``alpha`` (bisection), minus a margin.

    With the margin it is a filter that never drops a significant pair.
    """
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(mid / _SQRT2) < alpha:
            hi = mid
        else:
            lo = mid
    return lo - 1e-6


@njit(cache=True, nogil=True)
def signed_rank_z(w, order, positive, new_group, length):
    """Z (S, P) of every scheme's and pair's signed-rank test on the units weighted by ``w``."""
    n_s, n_p = length.shape
    out = np.zeros((n_s, n_p))
    for s in range(n_s):
        for p in range(n_p):
            out[s, p] = _pair_z(w, order[s, p], positive[s, p], new_group[s, p], length[s, p])
    return out


@njit(cache=True, nogil=True)
def _wins_from_z(z, pair_i, pair_j, alpha, z_alpha, holm, wins):
    """Add to ``wins`` (R,) the runs each run beats significantly, from the pairs' z (P,)."""
    n_p = z.size
    m = 2 * n_p  # every ordered pair is one one-sided hypothesis
    p_small = np.empty(n_p)
    winner = np.empty(n_p, dtype=np.int64)
    c = 0
    for q in range(n_p):
        if abs(z[q]) <= z_alpha:
            continue  # p >= alpha either way
        if z[q] > 0:
            pv = 0.5 * math.erfc(z[q] / _SQRT2)
            a = pair_i[q]
        elif z[q] < 0:
            pv = 0.5 * math.erfc(-z[q] / _SQRT2)
            a = pair_j[q]
        else:
            continue  # p = 1/2 both ways: never significant
        if pv < alpha:
            p_small[c] = pv
            winner[c] = a
            c += 1
    if not holm:
        for k in range(c):
            wins[winner[k]] += 1.0
        return
    idx = np.argsort(p_small[:c])
    for k in range(c):
        if p_small[idx[k]] < alpha / (m - k):  # Holm: the k-th smallest p against alpha / (m - k)
            wins[winner[idx[k]]] += 1.0
        else:
            break


@njit(cache=True, nogil=True)
def runs_beaten(w, tests):
    """Runs beaten significantly (S, R) by every run under every scheme, on the units weighted by ``w``."""
    order, positive, new_group, length, pair_i, pair_j, n_runs, alpha, holm = tests
    n_s, n_p = length.shape
    out = np.zeros((n_s, n_runs))
    z = np.empty(n_p)
    z_alpha = _z_alpha(alpha)
    for s in range(n_s):
        for p in range(n_p):
            z[p] = _pair_z(w, order[s, p], positive[s, p], new_group[s, p], length[s, p])
        _wins_from_z(z, pair_i, pair_j, alpha, z_alpha, holm, out[s])
    return out


@njit(cache=True, nogil=True)
def beaten_l1_curves(tests, orders, positions, final_ranks, tol, ties):
    """L1 rank change of the test-based ranking to ``final_ranks`` after the recorded prefixes of every order.

    ``orders`` (K, U) unit permutations; ``positions`` (P,) increasing prefix
    lengths. Each recorded prefix reruns every test on its units. Returns
    float32 (S, K, P).
    """
    length, n_runs = tests[3], tests[6]
    n_s = length.shape[0]
    n_k, n_u = orders.shape
    n_pos = positions.size
    out = np.empty((n_s, n_k, n_pos), dtype=np.float32)
    w = np.zeros(n_u)
    perm = np.empty((n_s, n_runs), dtype=np.int64)
    ranks = np.empty(n_runs)
    for k in range(n_k):
        w[:] = 0.0
        for s in range(n_s):
            for r in range(n_runs):
                perm[s, r] = r
        p = 0
        for n in range(n_u):
            w[orders[k, n]] = 1.0
            if p < n_pos and n + 1 == positions[p]:
                wins = runs_beaten(w, tests)
                for s in range(n_s):
                    out[s, k, p] = _l1_to(wins[s], perm[s], ranks, final_ranks[s], tol, ties)
                p += 1
    return out


@njit(cache=True, nogil=True)
def beaten_resamples(tests, idx):
    """Runs beaten (S, B, R) on every resample ``idx[b]``.

    The resamples' units are drawn with replacement; a unit drawn c times counts c times.
    """
    order, length, n_runs = tests[0], tests[3], tests[6]
    n_s = length.shape[0]
    n_b, n_j = idx.shape
    out = np.empty((n_s, n_b, n_runs))
    w = np.zeros(order.shape[2])  # one weight per unit
    for b in range(n_b):
        w[:] = 0.0
        for j in range(n_j):
            w[idx[b, j]] += 1.0
        wins = runs_beaten(w, tests)
        for s in range(n_s):
            for r in range(n_runs):
                out[s, b, r] = wins[s, r]
    return out
