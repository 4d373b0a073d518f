"""What every analysis shares to turn draws into intervals and p-values into decisions.

- :func:`tails`: the two quantile levels of a central interval (one place for ``(1 - confidence) / 2``);
- :func:`nanquantile_columns`: numpy's NaN-aware quantiles of every column, bit for bit, without its loop;
- :func:`draw_indices`, :func:`draw_counts`: resamples of units drawn with replacement, as index rows (the
  bootstrap engine) or as draw counts per unit (weighted sums: m-out-of-n resamples, Table 4, Table 5);
- :func:`bootstrap_interval` (percentile and BCa, as ``scipy.stats.bootstrap``), :func:`percentile_interval`,
  :func:`mean_interval`, :func:`t_interval` (means over simulation replicates) and :func:`quantile_interval`
  (a quantile of a sample, distribution-free);

Adjusting p-values: :func:`robustness.statistics.multiplicity.adjust`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from robustness._lazy import lazy_module
from robustness.seeds import SeedLike

if TYPE_CHECKING:
    from scipy import special, stats
else:
    special = lazy_module("scipy.special")
    stats = lazy_module("scipy.stats")

__all__ = ["tails", "nanquantile_columns", "draw_indices", "draw_counts", "bootstrap_interval",
           "studentized_interval", "percentile_interval", "mean_interval", "t_interval", "quantile_interval",
           "members"]


def nanquantile_columns(a: np.ndarray, q: float | Sequence[float] | np.ndarray, *,
                        method: str = "linear") -> np.ndarray:
    """``numpy.nanquantile(a, q, axis=0, method=method)``, equal bit for bit, without its per-column loop.

    numpy computes a NaN-aware quantile along an axis one column at a time (``apply_along_axis``: about 50 us a
    column). A column without NaN has the same quantile as ``numpy.quantile`` computes for all such columns at
    once (the same sort, virtual index and interpolation), so only the columns holding a NaN go through
    ``nanquantile``.

    Parameters
    ----------
    a : ndarray
        Quantiles over the first axis (of each column of a matrix).
    q : float or array_like of float
        Quantile levels in [0, 1].
    method : str
        numpy's quantile method.

    Returns
    -------
    ndarray
        Shape ``np.shape(q) + a.shape[1:]`` (float64 input: the fast path; any other: numpy's own).

    Examples
    --------
    >>> a = np.array([[1.0, np.nan], [2.0, 4.0], [3.0, 6.0]])
    >>> nanquantile_columns(a, [0.5, 1.0]).tolist()
    [[2.0, 5.0], [3.0, 6.0]]
    """
    a = np.asarray(a)
    how: dict[str, Any] = {"axis": 0, "method": method}  # numpy's stubs type the method as a literal
    if a.ndim < 2 or a.shape[0] == 0 or a.dtype != np.float64:
        return np.asarray(np.nanquantile(a, q, **how))
    flat = a.reshape(a.shape[0], -1)
    has_nan = np.isnan(flat).any(axis=0)
    out = np.empty(np.shape(q) + flat.shape[1:], dtype=a.dtype)
    if not has_nan.all():
        out[..., ~has_nan] = np.quantile(flat[:, ~has_nan], q, **how)
    if has_nan.any():
        out[..., has_nan] = np.nanquantile(flat[:, has_nan], q, **how)
    return out.reshape(np.shape(q) + a.shape[1:])


def tails(confidence: float) -> tuple[float, float]:
    """The lower and upper quantile levels of a central ``confidence`` interval.

    Parameters
    ----------
    confidence : float
        E.g. 0.95.

    Returns
    -------
    (low, high) : float
        ``(1 - confidence) / 2`` and one minus it.

    Examples
    --------
    >>> tails(0.95)
    (0.025000000000000022, 0.975)
    """
    low = (1 - confidence) / 2
    return low, 1 - low


def draw_indices(rng: np.random.Generator, n_units: int, n_resamples: int) -> np.ndarray:
    """Resamples of units drawn with replacement, as rows of unit indices.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_units : int
    n_resamples : int

    Returns
    -------
    ndarray of int64 (n_resamples, n_units)
    """
    return rng.integers(0, n_units, (n_resamples, n_units))


def draw_counts(rng: np.random.Generator, n_units: int, n_resamples: int, *, m: int | None = None) -> np.ndarray:
    """How often each unit is drawn in resamples of ``m`` units drawn with replacement.

    The same distribution as :func:`draw_indices` counted per unit (multinomial with equal probabilities),
    for statistics that are weighted sums over units.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_units : int
    n_resamples : int
    m : int, optional
        Units per resample (default ``n_units``; other sizes: the m-out-of-n bootstrap).

    Returns
    -------
    ndarray of int (n_resamples, n_units)
    """
    return rng.multinomial(n_units if m is None else m, np.full(n_units, 1 / n_units), size=n_resamples)


def studentized_interval(estimate: ArrayLike, estimate_se: ArrayLike, distribution: ArrayLike,
                         standard_errors: ArrayLike, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided studentized (bootstrap-t) interval along the last axis of ``distribution``.

    ``t* = (score* - score) / se*`` on every resample; the interval is ``score - q(1 - a) se`` to
    ``score - q(a) se`` with ``q`` the quantiles of ``t*`` (Efron & Tibshirani 1993, 12.5; DiCiccio & Efron
    1996). It corrects for skewness and for a standard error that moves with the score, which the percentile
    interval does not (pooled counts dominated by a few large units).

    Parameters
    ----------
    estimate, estimate_se : array_like
        The statistic on the whole sample and its standard error (shape of ``distribution`` without its last
        axis).
    distribution, standard_errors : array_like
        The statistic and its standard error on every resample, along the last axis.
    confidence : float

    Returns
    -------
    (low, high) : ndarray
        nan where a resample's or the sample's standard error is 0 or not finite.

    Examples
    --------
    >>> low, high = studentized_interval(0.5, 0.1, [0.4, 0.5, 0.6], [0.1, 0.1, 0.1], confidence=0.5)
    >>> round(float(low), 3), round(float(high), 3)
    (0.45, 0.55)
    """
    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(estimate_se, dtype=np.float64)
    dist = np.asarray(distribution, dtype=np.float64)
    ses = np.asarray(standard_errors, dtype=np.float64)
    alpha, _ = tails(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (dist - est[..., None]) / ses
    bad = ~np.all(np.isfinite(t), axis=-1) | ~(se > 0)
    t = np.where(np.isfinite(t), t, 0.0)
    q_low, q_high = np.quantile(t, [alpha, 1 - alpha], axis=-1)
    low = np.where(bad, np.nan, est - q_high * se)
    high = np.where(bad, np.nan, est - q_low * se)
    return low, high


def bootstrap_interval(estimate: ArrayLike, distribution: ArrayLike, jackknife: ArrayLike | None = None, *,
                       method: str = "percentile",
                       confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided percentile or BCa interval along the last axis of ``distribution``.

    Follows ``scipy.stats.bootstrap`` (Efron & Tibshirani 1993, 14.3 and
    15.4): BCa needs the jackknife (leave-one-unit-out) values along the last
    axis of ``jackknife``. Quantiles are linear interpolations (numpy's default).

    Parameters
    ----------
    estimate : array_like
        The statistic on the whole sample (shape of ``distribution`` without its last axis).
    distribution : array_like
        The statistic on every resample, along the last axis.
    jackknife : array_like, optional
        Leave-one-unit-out values along the last axis (BCa only).
    method : {'percentile', 'bca'}
    confidence : float

    Returns
    -------
    (low, high) : ndarray
        nan where the distribution holds nan or BCa's corrections are undefined.
    """
    distribution = np.asarray(distribution, dtype=np.float64)
    alpha, _ = tails(confidence)
    if method == "percentile":
        a1 = np.full(distribution.shape[:-1], alpha)
        a2 = np.full(distribution.shape[:-1], 1 - alpha)
    elif method == "bca":
        if jackknife is None:
            raise ValueError("BCa needs the jackknife values")
        theta = np.asarray(estimate, dtype=np.float64)[..., None]
        b = distribution.shape[-1]
        pct = (np.count_nonzero(distribution < theta, axis=-1)
               + np.count_nonzero(distribution <= theta, axis=-1)) / (2 * b)
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = special.ndtri(pct)
            jk = np.asarray(jackknife, dtype=np.float64)
            n = float(jk.shape[-1])
            u = (n - 1) * (jk.mean(axis=-1, keepdims=True) - jk)
            # the acceleration does not depend on the scale: on scaled values its cubes cannot overflow (scores
            # near 1e149 made every BCa bound empty)
            scale = np.max(np.abs(u), axis=-1, keepdims=True)
            u = u / np.where(scale > 0, scale, 1.0)
            a_hat = 1 / 6 * (np.sum(u**3, axis=-1) / n**3) / (np.sum(u**2, axis=-1) / n**2) ** (3 / 2)
            z_a = float(special.ndtri(alpha))
            num1 = z0 + z_a
            a1 = special.ndtr(z0 + num1 / (1 - a_hat * num1))
            num2 = z0 - z_a
            a2 = special.ndtr(z0 + num2 / (1 - a_hat * num2))
    else:
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    low = np.empty(distribution.shape[:-1])
    high = np.empty(distribution.shape[:-1])
    for idx in np.ndindex(low.shape):
        d = distribution[idx]
        if np.isnan(a1[idx]) or np.isnan(a2[idx]) or np.isnan(d).any():
            low[idx] = high[idx] = np.nan
        else:
            low[idx], high[idx] = np.quantile(d, [a1[idx], a2[idx]])
    return low, high


def percentile_interval(draws: ArrayLike, *, confidence: float = 0.95) -> tuple[float, float]:
    """The central ``confidence`` range of the non-nan ``draws``.

    Parameters
    ----------
    draws : array_like
    confidence : float

    Returns
    -------
    (low, high) : float
        nan, nan when there is no draw.
    """
    d = np.asarray(draws, dtype=np.float64)
    d = d[~np.isnan(d)]
    if not d.size:
        return np.nan, np.nan
    lo, hi = tails(confidence)
    return float(np.quantile(d, lo)), float(np.quantile(d, hi))


def mean_interval(values: ArrayLike, *, n_resamples: int = 1000, confidence: float = 0.95,
                  rng: SeedLike = None) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (one value per unit, units drawn with replacement).

    Parameters
    ----------
    values : array_like
        One value per unit.
    n_resamples : int
    confidence : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (low, high) : float
        nan, nan for no values.

    Examples
    --------
    >>> low, high = mean_interval(np.arange(10.0), rng=0)
    >>> bool(low < 4.5 < high)
    True
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return np.nan, np.nan
    w = draw_counts(np.random.default_rng(rng), values.size, n_resamples)
    means = w @ values / values.size
    lo, hi = tails(confidence)
    return float(np.quantile(means, lo)), float(np.quantile(means, hi))


def t_interval(values: ArrayLike, *, confidence: float = 0.95) -> tuple[float, float, float]:
    """The mean of the non-nan ``values`` (e.g. over simulation replicates) with its Student t interval.

    Parameters
    ----------
    values : array_like
    confidence : float

    Returns
    -------
    (mean, low, high) : float
        The interval is nan with fewer than two values.
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size < 2:
        return (float(v.mean()) if v.size else np.nan), np.nan, np.nan
    half = stats.t.ppf(tails(confidence)[1], v.size - 1) * v.std(ddof=1) / np.sqrt(v.size)
    return float(v.mean()), float(v.mean() - half), float(v.mean() + half)


def quantile_interval(values: ArrayLike, q: float, *, confidence: float = 0.95) -> tuple:
    """Distribution-free interval for the ``q`` quantile from a sample: two order statistics.

    With ``B ~ Binomial(K, q)`` the ranks ``l = B^{-1}((1 - c) / 2)`` and
    ``u = B^{-1}((1 + c) / 2) + 1`` give ``P(x_(l) <= xi_q <= x_(u)) >= c``
    (Hahn & Meeker, Statistical Intervals, 1991, 5.2), clipped to the sample.

    Parameters
    ----------
    values : array_like
        The sample (e.g. one convergence point per random order).
    q : float
        The quantile.
    confidence : float

    Returns
    -------
    (low, high)
        Two values of the sample.

    Examples
    --------
    >>> quantile_interval(np.arange(1, 101), 0.5)
    (np.int64(40), np.int64(61))
    """
    x = np.sort(np.asarray(values))
    k = x.size
    lo_level, hi_level = tails(confidence)
    lo = int(stats.binom.ppf(lo_level, k, q))
    hi = int(stats.binom.ppf(hi_level, k, q)) + 1
    return x[min(max(lo, 1), k) - 1], x[min(max(hi, 1), k) - 1]


def members(labels: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each distinct label and the positions that hold it (ascending): the units of a clustered resample.

    One stable sort instead of a scan per label (linear in the labels, not quadratic).

    Parameters
    ----------
    labels : array_like (n,)

    Returns
    -------
    (ids, positions) : ndarray (K,), list of K ndarray of int
        ``ids`` as :func:`numpy.unique` gives them; ``positions[k]`` equals ``np.flatnonzero(labels == ids[k])``.

    Examples
    --------
    >>> ids, where = members(np.array(["b", "a", "b", "c"]))
    >>> ids.tolist(), [w.tolist() for w in where]
    (['a', 'b', 'c'], [[1], [0, 2], [3]])
    """
    ids, inverse = np.unique(np.asarray(labels), return_inverse=True)
    if not ids.size:
        return ids, []
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    return ids, np.split(order, np.cumsum(np.bincount(inverse, minlength=ids.size))[:-1])
