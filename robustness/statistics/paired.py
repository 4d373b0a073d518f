"""Paired one-sided tests between runs on per-case scores: the package's one Wilcoxon and one t-test in numpy.

Every test here is computed for any number of weightings of the cases at once (a weighting: how many times each
case counts; all ones: the table as it is; bootstrap draws: a resample), so that the leaderboard of a table and
each of its thousand resamples go through the same lines:

- the Wilcoxon signed-rank test: normal approximation with R's tie correction, differences within ``tol`` of 0
  dropped, optionally R's continuity correction (``wilcox.test(correct=TRUE)``: 0.5 off the statistic). Each
  pair's differences are sorted by size once; a weighting's statistic is then sums over the groups of equal
  ``|d|`` (tie-averaged ranks from the groups' cumulative counts);
- the paired t-test, one-sided (two-pass variance, as ``numpy.std``).

With one weighting (``weights`` None) the Wilcoxon test of every pair of runs runs in one vectorised pass over
blocks of pairs, with the same numbers to the last digit (tested against the pair-by-pair path).

The resampling engines' test-based ranking runs the same Wilcoxon test (no continuity correction) in a numba
kernel (:mod:`robustness._kernels.signed_rank`); ``tests/statistics/test_paired.py`` holds both to scipy's
``wilcoxon`` and ``ttest_1samp`` and to a naive twin.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr
from scipy.stats import t as student

from robustness.statistics.multiplicity import adjust
from robustness.statistics.ranks import TIE_TOL

__all__ = ["signed_rank_p", "t_p", "paired_p_values", "wins", "runs_beaten"]

#: Differences held at once by the all-pairs Wilcoxon of one weighting (pairs x cases): bounded memory.
_BLOCK = 1 << 20


def _signed_rank(d: np.ndarray, w: np.ndarray, *, continuity: bool, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided p-values that ``d`` > 0 and that ``d`` < 0, for every weighting ``w`` (B, n) of ``d`` (n,)."""
    keep = np.abs(d) > tol
    d, w = d[keep], w[:, keep]
    order = np.argsort(np.abs(d), kind="stable")
    d, w = d[order], w[:, order]
    a = np.abs(d)
    if d.size:
        starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
        counts = np.add.reduceat(w, starts, axis=1)  # (B, G): weight of each group of equal |d|
        positive = np.add.reduceat(w * (d > 0), starts, axis=1)
    else:
        counts = positive = np.zeros((w.shape[0], 0))
    ranks = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2.0
    w_plus = (ranks * positive).sum(axis=1)
    return _normal_p(w_plus, counts.sum(axis=1), (counts ** 3 - counts).sum(axis=1), continuity=continuity)


def _normal_p(w_plus: np.ndarray, n: np.ndarray, ties: np.ndarray, *,
              continuity: bool) -> tuple[np.ndarray, np.ndarray]:
    """The two one-sided p-values of the signed-rank statistic ``w_plus`` of ``n`` differences.

    Normal approximation; ``ties`` is the sum of ``t^3 - t`` over the groups of equal ``|d|``; 1 where ``n`` is 0.
    """
    total = n * (n + 1) / 2.0
    sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - ties / 48.0)
    cc = 0.5 if continuity else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z_pos = (w_plus - n * (n + 1) / 4.0 - cc) / sigma
        z_neg = (total - w_plus - n * (n + 1) / 4.0 - cc) / sigma
    return np.where(n > 0, ndtr(-z_pos), 1.0), np.where(n > 0, ndtr(-z_neg), 1.0)


def _signed_rank_rows(d: np.ndarray, *, continuity: bool, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_signed_rank` of every row of ``d`` (P, n) under one weighting (every case once), at once.

    The same numbers to the last digit: the ranks, their sums and the tie term are integers or halves (exact in
    float64 in any order of summation), and the rest is the same arithmetic element by element. A nan difference
    is dropped, as a case one of the two runs lacks.
    """
    n_rows, n_cases = d.shape
    a = np.abs(d)
    kept = a > tol
    key = np.where(kept, a, np.nan)  # nan sorts after every size, an infinite one too
    order = np.argsort(key, axis=1, kind="stable")  # the kept differences first, in _signed_rank's order
    a = np.take_along_axis(key, order, axis=1)
    positive = np.take_along_axis(kept & (d > 0), order, axis=1)
    n = kept.sum(axis=1).astype(np.float64)
    idx = np.arange(n_cases)
    inside = idx[None, :] < n[:, None]
    new = np.ones((n_rows, n_cases), dtype=bool)
    new[:, 1:] = a[:, 1:] != a[:, :-1]
    last = np.ones((n_rows, n_cases), dtype=bool)
    last[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)  # each case's group of equal |d|
    end = np.minimum.accumulate(np.where(last, idx, n_cases)[:, ::-1], axis=1)[:, ::-1]
    size = (end - start + 1).astype(np.float64)
    ranks = start + (size + 1) / 2.0  # midranks
    w_plus = np.where(inside & positive, ranks, 0.0).sum(axis=1)
    ties = np.where(inside, size * size - 1, 0.0).sum(axis=1)  # a group of t adds t (t^2 - 1) = t^3 - t
    return _normal_p(w_plus, n, ties, continuity=continuity)


def _t(d: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-sided paired t-test p-values that the mean of ``d`` is > 0 and < 0, for every weighting ``w`` (B, n).

    1 where the test is undefined (fewer than 2 cases); constant differences (standard deviation within
    :data:`TIE_TOL`) are certain in their direction.
    """
    n = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (w * d).sum(axis=1) / n
        sd = np.sqrt((w * (d - mean[:, None]) ** 2).sum(axis=1) / (n - 1))
        z = mean / (sd / np.sqrt(n))
        df = np.maximum(n - 1, 1)
        constant = ~(sd > TIE_TOL)
        p_pos = np.where(constant, np.where(mean > 0, 0.0, 1.0), student.sf(z, df))
        p_neg = np.where(constant, np.where(mean < 0, 0.0, 1.0), student.sf(-z, df))
    return np.where(n < 2, 1.0, p_pos), np.where(n < 2, 1.0, p_neg)


def signed_rank_p(d: np.ndarray, *, continuity: bool = False, tol: float = TIE_TOL) -> float:
    """One-sided p-value of the Wilcoxon signed-rank test that the differences ``d`` are positive (module notes).

    Parameters
    ----------
    d : ndarray (n,)
    continuity : bool
        R's continuity correction.
    tol : float
        Differences this close to 0 are dropped. No difference left: p = 1.

    Returns
    -------
    float

    Examples
    --------
    >>> round(signed_rank_p(np.full(4, 0.8), continuity=True), 4)  # challengeR's test TtR-03
    0.0359
    >>> round(signed_rank_p(np.full(4, 0.8)), 4)
    0.0228
    """
    d = np.asarray(d, dtype=np.float64)
    return float(_signed_rank(d, np.ones((1, d.size)), continuity=continuity, tol=tol)[0][0])


def t_p(d: np.ndarray) -> float:
    """One-sided paired t-test p-value that the mean of ``d`` is positive (1 where it is undefined).

    Parameters
    ----------
    d : ndarray (n,)

    Returns
    -------
    float
    """
    d = np.asarray(d, dtype=np.float64)
    return float(_t(d, np.ones((1, d.size)))[0][0])


def paired_p_values(values: np.ndarray, weights: np.ndarray | None = None, *, test: str = "wilcoxon",
                    continuity: bool = False, lower_better: bool = False, tol: float = TIE_TOL) -> np.ndarray:
    """p-values of the one-sided tests "run i is better than run j" for every ordered pair.

    Parameters
    ----------
    values : ndarray (R, N)
        Per-case scores (nan: no score; a pair is tested on the cases both runs have).
    weights : ndarray (B, N) or (N,), optional
        How many times each case counts, per weighting (default: once).
    test : {'wilcoxon', 't'}
    continuity : bool
        R's continuity correction of the Wilcoxon test.
    lower_better : bool
    tol : float
        Wilcoxon: differences this close to 0 are dropped.

    Returns
    -------
    ndarray (R, R), or (B, R, R) with two-dimensional ``weights``
        ``p[..., i, j]``; nan on the diagonal.
    """
    if test not in ("wilcoxon", "t"):
        raise ValueError(f"test must be wilcoxon or t, got {test!r}")
    values = np.asarray(values, dtype=np.float64)
    w_all = np.ones((1, values.shape[1])) if weights is None else np.asarray(weights, dtype=np.float64)
    w_all = np.atleast_2d(w_all)
    n_b, n_r = w_all.shape[0], values.shape[0]
    p = np.full((n_b, n_r, n_r), np.nan)
    sign = -1.0 if lower_better else 1.0
    if weights is None and test == "wilcoxon":  # one weighting: every pair at once, a block of pairs at a time
        i_all, j_all = np.triu_indices(n_r, k=1)
        block = max(1, _BLOCK // max(values.shape[1], 1))
        for start in range(0, i_all.size, block):
            a, b = i_all[start:start + block], j_all[start:start + block]
            p[0, a, b], p[0, b, a] = _signed_rank_rows(sign * (values[a] - values[b]), continuity=continuity,
                                                       tol=tol)
        return p[0]
    for i in range(n_r):
        for j in range(i + 1, n_r):
            both = ~np.isnan(values[i]) & ~np.isnan(values[j])
            d = sign * (values[i, both] - values[j, both])
            w = w_all[:, both]
            if test == "t":
                p[:, i, j], p[:, j, i] = _t(d, w)
            else:
                p[:, i, j], p[:, j, i] = _signed_rank(d, w, continuity=continuity, tol=tol)
    return p if weights is not None and np.ndim(weights) == 2 else p[0]


def wins(p: np.ndarray, adjustment: str = "holm", alpha: float = 0.05) -> np.ndarray:
    """Runs each run beats: ``p[i, j]`` ("i is better than j") adjusted together, a win where it is ``<= alpha``.

    The one rule of the test-based ranking outside its numba kernel (which counts ``< alpha``; the two differ only
    where an adjusted p-value equals alpha exactly).

    Parameters
    ----------
    p : ndarray (R, R)
        One-sided p-values, nan on the diagonal (left out of the family: never a win).
    adjustment : str
        :func:`robustness.statistics.multiplicity.adjust`'s method.
    alpha : float

    Returns
    -------
    ndarray of int (R,)
    """
    return (adjust(p, adjustment, alpha=alpha) <= alpha).sum(axis=1)


def runs_beaten(values: np.ndarray, weights: np.ndarray | None = None, *, test: str = "wilcoxon",
                continuity: bool = False, adjustment: str = "holm", alpha: float = 0.05,
                lower_better: bool = False) -> np.ndarray:
    """Runs each run beats significantly: ``p <= alpha`` after adjusting the ``R (R - 1)`` p-values together.

    A run without any score under a weighting is left out of its tests and of the family adjusted together (its
    count is nan).

    Parameters
    ----------
    values : ndarray (R, N)
    weights : ndarray (B, N), optional
    test, continuity, lower_better
        As :func:`paired_p_values`.
    adjustment : str
        :func:`robustness.statistics.multiplicity.adjust`'s method.
    alpha : float

    Returns
    -------
    ndarray (R,), or (B, R) with ``weights``
    """
    w = np.ones((1, values.shape[1])) if weights is None else np.asarray(weights, dtype=np.float64)
    p = paired_p_values(values, w, test=test, continuity=continuity, lower_better=lower_better)
    has = (~np.isnan(values)).astype(np.float64)
    scored = (w @ has.T) > 0  # (B, R)
    out = np.full(scored.shape, np.nan)
    for b in range(w.shape[0]):
        s = np.flatnonzero(scored[b])
        out[b, s] = wins(p[b][np.ix_(s, s)], adjustment, alpha)
    return out[0] if weights is None else out
