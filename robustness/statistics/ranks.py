"""Rankings from scores, and distances between rankings.

Tie rule
--------
Rank 1 is the best (highest) score. Scores that differ by at most ``tol``
(default 1e-12) from their neighbour in sorted order are tied: a macro score
summed in another order can differ in its last bits, and that is not a
difference between runs. Ties get the average of the ranks they span
(``ties="average"``, default) or the smallest (``ties="min"``, as in
competition rankings "1, 2, 2, 4"). A nan score ranks last (nan scores tie).

Distances
---------
- ``l1``: sum over runs of ``|rank_a - rank_b|``, the paper's measure of rank
  change. On permutations this is Spearman's footrule.
- ``footrule``: the same, optionally normalised by its maximum ``floor(n^2/2)``.
- ``kendall_tau``: Kendall's tau-b (scipy), 1 for identical rankings.
- ``n_changed``: the number of runs whose rank differs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robustness import _kernels

__all__ = ["rank", "l1", "footrule", "kendall_tau", "n_changed", "ties_code", "TIE_TOL", "TIES"]

TIE_TOL = 1e-12
TIES = {"average": 0, "min": 1}


def ties_code(ties: str) -> int:
    """The kernels' integer code of a tie rule.

    Parameters
    ----------
    ties : {'average', 'min'}

    Returns
    -------
    int
        0 for ``average``, 1 for ``min``.
    """
    try:
        return TIES[ties]
    except KeyError:
        raise ValueError(f"ties must be one of {tuple(TIES)}, got {ties!r}") from None


def rank(scores: ArrayLike, *, ties: str = "average", tol: float = TIE_TOL) -> np.ndarray:
    """Ranks along the last axis (1 = best; higher scores are better).

    Parameters
    ----------
    scores : array_like
        Scores along the last axis (nan ranks last).
    ties : {'average', 'min'}
        Tied scores get the average of the ranks they span, or the smallest.
    tol : float
        Scores within ``tol`` of their neighbour in sorted order are tied.

    Returns
    -------
    ndarray of float
        The ranks, shaped like ``scores``.

    Examples
    --------
    >>> rank([0.9, 0.5, 0.9, 0.1])
    array([1.5, 3. , 1.5, 4. ])
    >>> rank([0.9, 0.5, 0.9, 0.1], ties="min")
    array([1., 3., 1., 4.])
    >>> rank([0.2, np.nan, 0.3])
    array([2., 3., 1.])
    """
    code = ties_code(ties)
    if tol < 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 0:
        raise ValueError("scores must have at least one axis")
    flat = np.ascontiguousarray(s.reshape(-1, s.shape[-1]))
    return _kernels.rank_rows(flat, float(tol), code).reshape(s.shape)


def l1(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Sum of absolute rank differences along the last axis (the paper's L1 rank change).

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.

    Returns
    -------
    ndarray
        One distance per ranking pair (the leading axes).
    """
    return np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)).sum(axis=-1)


def footrule(a: ArrayLike, b: ArrayLike, *, normalized: bool = False) -> np.ndarray:
    """Spearman's footrule (= :func:`l1` of rank vectors), optionally normalised to [0, 1].

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.
    normalized : bool
        Divide by the largest possible value, ``floor(n^2 / 2)``.

    Returns
    -------
    ndarray
    """
    d = l1(a, b)
    if normalized:
        n = np.shape(a)[-1]
        d = d / max(n * n // 2, 1)
    return d


def n_changed(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Number of runs whose rank differs.

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.

    Returns
    -------
    ndarray of int
    """
    return (np.asarray(a) != np.asarray(b)).sum(axis=-1)


def kendall_tau(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Kendall's tau-b between rankings (or scores) along the last axis (``scipy.stats.kendalltau``).

    Parameters
    ----------
    a, b : array_like
        Rankings or scores along the last axis, broadcast against each other.

    Returns
    -------
    ndarray
        tau-b per pair of rankings (1 for identical rankings, nan where a ranking ties every run).
    """
    from scipy.stats import kendalltau

    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape[:-1])
    for idx in np.ndindex(out.shape):
        out[idx] = kendalltau(a[idx], b[idx]).statistic
    return out
