"""Resolution: the smallest true score difference between two runs that a test set of n units declares.

A size in rank places ("L1 within one place per run") depends on how close the future runs will be, which no
organiser knows before the challenge. A size in score differences depends on how much two runs' scores move
together from unit to unit, which a test set (a pilot, last year's challenge) shows. This module answers in
those terms, for the test the significance analysis runs
(:func:`robustness.statistics.comparisons.pairwise_comparisons`): a paired two-sided t-test of the difference
between two runs' scores, its standard error the delta method's over the resampling units (each unit's influence
on both runs' ratios of sums), Student's t with ``n - 1`` degrees of freedom.

Definitions
-----------
- A pair's **per-unit SD** ``sigma``: the standard deviation over units of the influence of each unit on the
  difference of the two scores (``sqrt(n Var(d))``, the delta method's variance of the difference ``d`` times the
  number of units); the standard error of the difference on ``n`` units is ``sigma / sqrt(n)``.
- The **detectable difference** at ``n`` units, level ``alpha`` (two-sided) and power ``power``: the true
  difference ``D`` whose test rejects with probability ``power``, from the noncentral t distribution
  (``T ~ t'(n - 1, D sqrt(n) / sigma)``, power ``P(|T| > t_{1 - alpha/2, n-1})``): exact for normal unit-level
  differences, and checked by simulation on populations of known truth (``experiments.calibration``, estimator
  ``resolution``).
- A test set's **resolution**: the detectable difference for a typical pair of leaderboard neighbours, the pairs
  whose order a reader takes from the leaderboard: ``sigma`` is the **median** of the per-unit SDs over the
  neighbouring pairs (``pair_sd``); the upper quartile (``pair_sd_q75``) gives the resolution for the harder
  quarter of those pairs. The interval is the median SD's over test sets like this one: on the log scale, its
  jackknife standard error over units with Student's t (a percentile bootstrap of an SD is too narrow where a few
  large lesions dominate the units' influences).
- The per-pair level is 5%, unadjusted: the level of one planned comparison and of Holm's last step. The
  significance analysis adjusts for multiplicity with Holm; over the ``R - 1`` neighbouring pairs Holm's first
  step tests at ``alpha / (R - 1)``, and ``resolution_holm``, the detectable difference at that level, is a
  difference declared with at least this power whatever the other pairs do.
- ``n`` for a difference ``D``: the smallest number of units whose detectable difference is at most ``D``;
  claimed at the upper end of ``pair_sd``'s interval (a conservative claim, like the package's size claims).

References: Card et al. (2020), "With Little Power Comes Great Responsibility" (EMNLP); Miller (2024), "Adding
Error Bars to Evals" (paired differences, clustered standard errors, the minimum detectable effect).
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import gammaln, ndtr, ndtri, xlogy
from scipy.stats import chi2, nct
from scipy.stats import t as student

from robustness.statistics.ranks import rank
from robustness.statistics.schemes import Schemes
from robustness.statistics.uncertainty import default_sizes

__all__ = ["ALPHA", "POWER", "detectable_difference", "units_for_difference", "pair_sds", "neighbour_pairs",
           "resolution_table", "resolve_table", "pair_sd_summary", "RESOLUTION_COLUMNS", "RESOLVE_COLUMNS", "MAX_UNITS"]

#: The level (two-sided) and power of the resolution answers.
ALPHA = 0.05
POWER = 0.8
#: The most units :func:`units_for_difference` searches (a difference below what this many resolves: inf).
MAX_UNITS = 10_000_000

#: resolution.csv's columns.
RESOLUTION_COLUMNS = ("strategy", "metric", "average", "scheme", "unit", "units", "test_units", "power", "alpha",
                      "pairs", "pair_sd", "pair_sd_low", "pair_sd_high", "pair_sd_q75", "resolution",
                      "resolution_low", "resolution_high", "resolution_q75", "alpha_holm", "resolution_holm")
#: resolve.csv's columns.
RESOLVE_COLUMNS = ("strategy", "metric", "average", "scheme", "unit", "difference", "power", "alpha", "units_needed",
                   "units_needed_low", "units_needed_high", "units_needed_q75", "beyond")


def _power(nc: float, df: float, crit: float) -> float:
    """A two-sided t-test's power at noncentrality ``nc``.

    scipy's noncentral t, or (where its tails fail or warn, far out in them) the same
    probability integrated over the chi distribution, ``E[Phi(nc - crit S) + Phi(-nc - crit S)]`` with
    ``S = sqrt(V / df)``, ``V ~ chi2(df)``.
    """
    with warnings.catch_warnings(record=True) as caught:  # "series did not converge": its value is not trusted
        warnings.simplefilter("always")
        value = float(nct.sf(crit, df, nc) + nct.cdf(-crit, df, nc))
    if np.isfinite(value) and not caught:
        return value
    def integrand(v: float) -> float:
        scale = crit * np.sqrt(v / df)
        return float((ndtr(nc - scale) + ndtr(-nc - scale)) * _chi2_pdf(v, df))

    low, high = (float(chi2.ppf(q, df)) for q in (1e-15, 1 - 1e-15))  # where the chi-square's mass lies
    return float(quad(integrand, low, high, points=[min(max(df - 2.0, low), high)], limit=400)[0])


def _chi2_pdf(v: float, df: float) -> np.float64:
    """``scipy.stats.chi2.pdf(v, df)`` for ``v`` inside the support, to the bit.

    The exponential of scipy's own log-density (``chi2._logpdf``), without the generic method's argument checks,
    which took 95% of the time of :func:`_power`'s integral (tests/statistics/test_resolution.py holds the two
    equal).
    """
    x, d = np.float64(v), np.float64(df)
    return np.exp(xlogy(d / 2. - 1, x) - x / 2. - gammaln(d / 2.) - (np.log(2) * d) / 2.)


@lru_cache(maxsize=4096)
def _noncentrality(df: float, alpha: float, power: float) -> float:
    """The noncentrality at which a two-sided t-test with ``df`` degrees of freedom has this power."""
    crit = float(student.ppf(1 - alpha / 2, df))
    high = crit + float(ndtri(power)) + 3.0  # the power there exceeds the target, but with very few df
    while _power(high, df, crit) < power:
        high *= 2
    return float(brentq(lambda nc: _power(nc, df, crit) - power, 0.0, high, xtol=1e-12, rtol=1e-12))


def detectable_difference(sd: ArrayLike, n: ArrayLike, *, alpha: float = ALPHA, power: float = POWER) -> np.ndarray:
    """The true difference a paired two-sided t-test on ``n`` units declares with probability ``power``.

    Parameters
    ----------
    sd : array_like
        The per-unit SD of the paired differences (module notes).
    n : array_like of int
        Units (at least 2); broadcast against ``sd``.
    alpha : float
        Two-sided level.
    power : float
        In (alpha, 1).

    Returns
    -------
    ndarray
        ``nc(n - 1) * sd / sqrt(n)``, ``nc`` the noncentrality of the noncentral t at which the test has this
        power (nan where ``sd`` is nan).

    Notes
    -----
    With many units the answer tends to the normal formula ``(z_{1 - alpha/2} + z_{power}) sd / sqrt(n)``
    (2.80 standard errors at 5% and 80%); with few the t distribution's heavier tails ask for more.

    Examples
    --------
    >>> float(np.round(detectable_difference(1.0, 10_000) * 100, 3))  # 2.80 standard errors of 0.01
    2.802
    >>> float(np.round(detectable_difference(1.0, 10), 3))  # 10 units: 3.15 standard errors
    0.996
    """
    _check_levels(alpha, power)
    sd_a, n_a = np.broadcast_arrays(np.asarray(sd, dtype=np.float64), np.asarray(n, dtype=np.float64))
    if np.any(n_a < 2):
        raise ValueError(f"n must be at least 2 units, got {n_a.min():g}")
    nc = np.vectorize(lambda m: _noncentrality(float(m) - 1.0, alpha, power), otypes=[np.float64])(n_a)
    return nc * sd_a / np.sqrt(n_a)


def units_for_difference(difference: float, sd: float, *, alpha: float = ALPHA, power: float = POWER,
                         max_units: int = MAX_UNITS) -> float:
    """The fewest units whose paired test declares a true ``difference`` with probability ``power``.

    Parameters
    ----------
    difference : float
        A positive true difference in the score's units.
    sd : float
        The per-unit SD of the paired differences.
    alpha, power : float
    max_units : int
        The largest size searched.

    Returns
    -------
    float
        An integer number of units (at least 2); inf where even ``max_units`` do not suffice or ``sd`` is inf;
        nan where ``sd`` is nan.

    Examples
    --------
    >>> units_for_difference(0.01, 0.05)  # about (2.80 * 0.05 / 0.01)^2 = 196, plus the t's share
    199.0
    """
    _check_levels(alpha, power)
    if not (np.isfinite(difference) and difference > 0):
        raise ValueError(f"the difference must be a positive number, got {difference!r}")
    if np.isnan(sd):
        return float("nan")
    if not np.isfinite(sd):
        return float("inf")
    if sd <= 0:
        return 2.0

    def resolves(m: int) -> bool:
        return bool(detectable_difference(sd, m, alpha=alpha, power=power) <= difference)

    if not resolves(max_units):
        return float("inf")
    lo, hi = 2, 2
    while not resolves(hi):
        lo, hi = hi, min(2 * hi, max_units)
    while lo < hi:  # the smallest m in [lo, hi] that resolves (the detectable difference falls with m)
        mid = (lo + hi) // 2
        if resolves(mid):
            hi = mid
        else:
            lo = mid + 1
    return float(lo)


def _check_levels(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not alpha < power < 1:
        raise ValueError(f"power must lie in (alpha, 1), got {power!r}")


def neighbour_pairs(scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The leaderboard's neighbouring pairs of runs (best first; higher scores better, ties in the runs' order).

    Parameters
    ----------
    scores : array_like (R,)
        Stored higher-is-better (a smaller-is-better metric negated, as :class:`Schemes` stores it).

    Returns
    -------
    (i, j) : ndarray of int (R - 1,)
        Run ``i[k]`` is placed right above run ``j[k]`` (runs without a score are left out).

    Examples
    --------
    >>> neighbour_pairs([0.2, 0.9, 0.5])
    (array([1, 2]), array([2, 0]))
    """
    s = np.asarray(scores, dtype=np.float64)
    scored = np.flatnonzero(np.isfinite(s))
    order = scored[np.lexsort((scored, rank(s[scored], ties="first")))]
    return order[:-1], order[1:]


def pair_sds(numerator: np.ndarray, denominator: np.ndarray, i: np.ndarray, j: np.ndarray,
             weights: np.ndarray | None = None) -> np.ndarray:
    """The per-unit SD of the paired differences of pairs ``(i, j)`` (module notes), per scheme.

    Parameters
    ----------
    numerator, denominator : ndarray (U, S, R)
        Every unit's numerator and denominator (:meth:`Schemes.ratio_parts`).
    i, j : ndarray of int (S, P)
        The pairs of each scheme.
    weights : ndarray (B, U), optional
        How often each unit is drawn in each of ``B`` resamples (default: once each, ``B = 1``).

    Returns
    -------
    ndarray (B, S, P)
        ``sqrt(sum_u w_u (l_iu - l_ju)^2 / (n - 1))`` with ``l`` each unit's influence on a run's ratio of sums
        and ``n = sum_u w_u``: ``sqrt(n)`` times the delta method's standard error of the difference
        (:func:`robustness.statistics.population.delta_covariance`).
    """
    a = np.asarray(numerator, dtype=np.float64)
    b = np.asarray(denominator, dtype=np.float64)
    w = np.ones((1, a.shape[0])) if weights is None else np.asarray(weights, dtype=np.float64)
    n = w.sum(axis=1)  # (B,)
    total_a = np.einsum("bu,usr->bsr", w, a)
    total_b = np.einsum("bu,usr->bsr", w, b)
    s_idx = np.arange(a.shape[1])[:, None]
    out = np.empty((w.shape[0], a.shape[1], np.shape(i)[1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = total_a / total_b  # (B, S, R)
        for k in range(w.shape[0]):  # one resample at a time: memory U x S x P
            influence = (a - ratio[k][None] * b) / (total_b[k][None] / n[k])  # (U, S, R)
            influence = np.where(np.isfinite(influence), influence, 0.0)
            d = influence[:, s_idx, i] - influence[:, s_idx, j]  # (U, S, P)
            out[k] = np.sqrt(np.einsum("u,usp->sp", w[k], d * d) / max(n[k] - 1.0, 1.0))
    return out


def _sd_summaries(numerator, denominator, i, j, weights=None):
    """Median and upper quartile of the pairs' per-unit SDs, per resample and scheme: two (B, S) arrays."""
    sds = pair_sds(numerator, denominator, i, j, weights)
    if sds.shape[-1] == 0:
        nan = np.full(sds.shape[:2], np.nan)
        return nan, nan
    return np.median(sds, axis=-1), np.quantile(sds, 0.75, axis=-1)


def _neighbours(schemes: Schemes) -> tuple[np.ndarray, np.ndarray]:
    """Every scheme's neighbouring pairs on its leaderboard, as (S, R - 1) index arrays (runs with scores)."""
    pairs = [neighbour_pairs(s) for s in schemes.scores()]
    width = min((len(p[0]) for p in pairs), default=0)  # a run without a score under one scheme: fewer pairs
    return (np.array([p[0][:width] for p in pairs], dtype=np.int64).reshape(len(pairs), width),
            np.array([p[1][:width] for p in pairs], dtype=np.int64).reshape(len(pairs), width))


def pair_sd_summary(schemes: Schemes) -> tuple[np.ndarray, np.ndarray]:
    """Every scheme's median and upper quartile of its neighbouring pairs' per-unit SDs (module notes).

    Parameters
    ----------
    schemes : Schemes

    Returns
    -------
    (median, q75) : ndarray (S,), ndarray (S,)
    """
    num, den = schemes.ratio_parts()
    i, j = _neighbours(schemes)
    med, q75 = _sd_summaries(num, den, i, j)
    return med[0], q75[0]


def _jackknife_interval(num, den, i, j, med, confidence) -> tuple[np.ndarray, np.ndarray]:
    """The median SD's interval: on the log scale, its jackknife standard error over units, Student's t (n - 1 df).

    The percentile bootstrap of an SD is too narrow where the units' influences are heavy-tailed (micro scores,
    a few large lesions): on the calibration's populations it covered the population's SD in 41% to 89% of test
    sets of 35 encounters, this interval in 76% to 94% (macro: 83% to 90% and 93% to 100%).
    """
    n = num.shape[0]
    if n < 3:
        nan = np.full(med.shape, np.nan)
        return nan, nan
    leave_one_out = _sd_summaries(num, den, i, j, 1.0 - np.eye(n))[0]  # (n, S)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(leave_one_out)
        se = np.sqrt((n - 1) / n * ((logs - logs.mean(axis=0)) ** 2).sum(axis=0))
        q = float(student.ppf(0.5 + confidence / 2, n - 1))
        return np.exp(np.log(med) - q * se), np.exp(np.log(med) + q * se)


def resolution_table(schemes: Schemes, *, sizes: ArrayLike | None = None, confidence: float = 0.95,
                     alpha: float = ALPHA, power: float = POWER) -> pd.DataFrame:
    """Every scheme's resolution at every test-set size, with its interval over resampled test sets.

    Parameters
    ----------
    schemes : Schemes
        On the unit the significance analysis resamples (the main job's encounters by default).
    sizes : array_like of int, optional
        Test-set sizes in units (default: the test set's own ``N``, ``N/8 .. 64N``:
        :func:`robustness.statistics.uncertainty.default_sizes`).
    confidence : float
        Of the per-unit SD's interval (on the log scale, the jackknife's standard error over units).
    alpha, power : float

    Returns
    -------
    pandas.DataFrame
        :data:`RESOLUTION_COLUMNS`, one row per scheme and size: ``pair_sd`` and ``pair_sd_q75`` (median and upper
        quartile of the neighbouring pairs' per-unit SDs, in the metric's units), ``pair_sd_low/high`` (the
        median's interval: the jackknife over units on the log scale), ``resolution`` (the detectable difference at
        ``pair_sd``; ``resolution_low/high`` at the interval's ends, ``resolution_q75`` at ``pair_sd_q75``),
        ``resolution_holm`` (at Holm's first level over the neighbouring pairs, ``alpha_holm``); ``test_units``
        is the test set's size N.

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> from robustness.overlap import compute_overlap
    >>> from robustness.statistics.count_schemes import schemes_from_counts
    >>> counts = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=3, n_teams=1, rng=0),
    ...                          strategies=["majority"], rng=0)
    >>> sc = schemes_from_counts(counts, unit="encounter", metrics=["jaccard"], annotators=[])
    >>> t = resolution_table(sc, sizes=[8, 100])
    >>> bool((t.resolution.iloc[1::2].to_numpy() < t.resolution.iloc[::2].to_numpy()).all())  # more units
    True
    """
    _check_levels(alpha, power)
    n_units = schemes.n_units
    grid = default_sizes(n_units) if sizes is None else np.unique(np.asarray(sizes, dtype=np.int64))
    if grid.size and grid.min() < 2:
        raise ValueError(f"sizes must be at least 2 units, got {grid.min()}")
    num, den = schemes.ratio_parts()
    i, j = _neighbours(schemes)
    med, q75 = (x[0] for x in _sd_summaries(num, den, i, j))
    low, high = _jackknife_interval(num, den, i, j, med, confidence)
    m = max(i.shape[1], 1)
    alpha_holm = alpha / m
    rows = []
    for s, (strategy, metric, average) in enumerate(schemes.names):
        for n in grid.tolist():
            d = detectable_difference(np.array([med[s], low[s], high[s], q75[s]]), n, alpha=alpha, power=power)
            rows.append({"strategy": strategy, "metric": metric, "average": average,
                         "scheme": f"{strategy}:{metric}:{average}", "unit": schemes.unit, "units": int(n),
                         "test_units": n_units, "power": power, "alpha": alpha, "pairs": int(i.shape[1]),
                         "pair_sd": med[s], "pair_sd_low": low[s], "pair_sd_high": high[s], "pair_sd_q75": q75[s],
                         "resolution": d[0], "resolution_low": d[1], "resolution_high": d[2], "resolution_q75": d[3],
                         "alpha_holm": alpha_holm,
                         "resolution_holm": float(detectable_difference(med[s], n, alpha=alpha_holm, power=power))})
    return pd.DataFrame(rows, columns=list(RESOLUTION_COLUMNS))


def resolve_table(resolution: pd.DataFrame, difference: float, *, alpha: float = ALPHA, power: float = POWER,
                  max_units: int = MAX_UNITS) -> pd.DataFrame:
    """The units that resolve a true ``difference``, per scheme, from :func:`resolution_table`'s SDs.

    Parameters
    ----------
    resolution : pandas.DataFrame
        :func:`resolution_table`'s rows (one size per scheme is enough).
    difference : float
        A true difference in the score's units (positive).
    alpha, power : float
    max_units : int

    Returns
    -------
    pandas.DataFrame
        :data:`RESOLVE_COLUMNS`: ``units_needed`` at the median SD (the estimate), ``units_needed_low`` and
        ``units_needed_high`` at the ends of its interval (``units_needed_high`` is the claim), ``units_needed_q75``
        at the upper quartile; ``beyond``: even ``max_units`` do not suffice (inf).
    """
    if not (np.isfinite(difference) and difference > 0):
        raise ValueError(f"the difference must be a positive number, got {difference!r}")
    rows = []
    for _, r in resolution.drop_duplicates(["strategy", "metric", "average"]).iterrows():
        need = {k: units_for_difference(difference, float(r[c]), alpha=alpha, power=power, max_units=max_units)
                for k, c in (("units_needed", "pair_sd"), ("units_needed_low", "pair_sd_low"),
                             ("units_needed_high", "pair_sd_high"), ("units_needed_q75", "pair_sd_q75"))}
        rows.append({"strategy": r.strategy, "metric": r.metric, "average": r.average, "scheme": r.scheme,
                     "unit": r.unit, "difference": float(difference), "power": power, "alpha": alpha, **need,
                     "beyond": bool(np.isinf(need["units_needed_high"]))})
    return pd.DataFrame(rows, columns=list(RESOLVE_COLUMNS))
