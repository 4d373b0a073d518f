"""R's arithmetic for the aggregates challengeR compares exactly: ``mean``, ``median`` and the type-7 ``quantile``.

challengeR ranks aggregated values by comparing them exactly, as R computes them. R's ``mean`` of doubles is not
numpy's: it accumulates the values in order in long double (80-bit extended precision on x86-64), divides by
``n``, then adds the mean of the residuals accumulated the same way, and rounds once to double (R's
``summary.c``). So ``mean(c(0.1, 0.2))`` is 0.15000000000000002 and ``mean(c(0.1, 0.3, 0.2))`` is 0.2, where
numpy gives 0.15000000000000002 and 0.20000000000000004. ``median`` is the middle value, or R's ``mean`` of the
two middle ones; the type-7 ``quantile`` is ``(1 - h) x[lo] + h x[hi]`` at ``index = 1 + (n - 1) p`` (``lo``
and ``hi`` its floor and ceiling, ``h = index - lo``), the value ``x[lo]`` itself where ``h`` is 0 or the two
order statistics are equal (R's ``quantile.default``).

The functions take the values in the order R would see them (the rows of the per-case table), which matters
only where the long-double sum rounds. numpy's ``longdouble`` is the same 80-bit format on x86-64 Linux, where
challengeR is usually run; elsewhere (:data:`EXTENDED` False) the results can differ from R's in the last bit.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["r_mean", "r_means", "r_median", "r_quantile", "r_aggregate", "EXTENDED"]

#: Whether numpy's long double has the 64-bit mantissa of R's LDOUBLE on x86-64.
EXTENDED = np.finfo(np.longdouble).nmant >= 63


def r_mean(x: np.ndarray) -> float:
    """R's ``mean`` of doubles (module notes), in the order given.

    Parameters
    ----------
    x : ndarray (n,)
        Finite or not; nan for an empty ``x``.

    Returns
    -------
    float

    Examples
    --------
    >>> r_mean(np.array([0.1, 0.2])), r_mean(np.array([0.1, 0.3, 0.2])), float(np.mean([0.1, 0.3, 0.2]))
    (0.15000000000000002, 0.2, 0.20000000000000004)
    """
    v = np.asarray(x, dtype=np.float64).astype(np.longdouble)
    if v.size == 0:
        return math.nan
    n = np.longdouble(v.size)
    s = np.add.accumulate(v)[-1] / n  # accumulate: one value after the other, as R's loop
    if math.isfinite(float(s)):
        s = s + np.add.accumulate(v - s)[-1] / n
    return float(s)


def r_means(x: np.ndarray) -> np.ndarray:
    """R's ``mean`` of every row of ``x`` (:func:`r_mean` on each, at once).

    Parameters
    ----------
    x : ndarray (R, n)
        n >= 1.

    Returns
    -------
    ndarray (R,)

    Examples
    --------
    >>> r_means(np.array([[0.1, 0.2], [0.15, 0.15]])).tolist()
    [0.15000000000000002, 0.15]
    """
    v = np.asarray(x, dtype=np.float64).astype(np.longdouble).T  # (n, R): one value of every row at a time
    n = np.longdouble(v.shape[0])
    total = np.zeros(v.shape[1], dtype=np.longdouble)
    for value in v:  # in order, as R's loop (numpy's sum would pair the values)
        total += value
    s = total / n
    finite = np.isfinite(s)
    shift = np.where(finite, s, 0)
    total[:] = 0
    for value in v:
        total += value - shift
    return np.where(finite, s + total / n, s).astype(np.float64)


def r_median(x: np.ndarray) -> float:
    """R's ``median`` (module notes).

    Parameters
    ----------
    x : ndarray (n,)

    Returns
    -------
    float

    Examples
    --------
    >>> r_median(np.array([0.3, 0.1, 0.2, 0.4]))
    0.25
    """
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = s.size
    if n == 0:
        return math.nan
    half = (n + 1) // 2
    return float(s[half - 1]) if n % 2 else r_mean(s[half - 1:half + 1])


def r_quantile(x: np.ndarray, p: float) -> float:
    """R's type-7 ``quantile(x, p)`` (module notes).

    Parameters
    ----------
    x : ndarray (n,)
    p : float
        In [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> r_quantile(np.array([0.0, 0.1, 0.7]), 0.25)
    0.05
    """
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = s.size
    if n == 0:
        return math.nan
    index = 1.0 + (n - 1) * float(p)
    lo, hi = math.floor(index), math.ceil(index)
    q = float(s[lo - 1])
    if index > lo and s[hi - 1] != q:
        h = index - lo
        q = (1.0 - h) * q + h * float(s[hi - 1])
    return q


def r_aggregate(x: np.ndarray, how: str | float) -> float:
    """``mean``, ``median`` or the type-7 quantile at level ``how``, as R computes it.

    Parameters
    ----------
    x : ndarray (n,)
    how : 'mean', 'median', 'min', 'max' or float

    Returns
    -------
    float
    """
    if how == "mean":
        return r_mean(x)
    if how == "median":
        return r_median(x)
    if how in ("min", "max"):
        return float(np.min(x) if how == "min" else np.max(x))
    return r_quantile(x, float(how))
