"""The built-in ranking methods' statistics on per-case scores, under every ranking option, for any case weights.

Each function is one registered method's ``case_statistic``
(:class:`robustness.statistics.ranking_methods.RankingMethod`): the exact statistic a table's leaderboard ranks
(:mod:`robustness.statistics.case_rankings`), and what the resampling engines recompute on every prefix and
resample where no kernel honours the options (:class:`~robustness.statistics.case_statistic.CaseStatistic`).
One signature::

    statistic(values, weights, *, options, lower_better, rng) -> ndarray

``values`` (R, N) are the scores as given (nan: no score after the missing-score treatment); ``weights`` (N,) or
(B, N) how many times each case counts (None: once); the result, (R,) or (B, R), is higher-is-better (a run's
aggregate score negated where smaller scores are better, minus its aggregated rank). The aggregate is computed
on the scores as given, so that a quantile is the quantile of the scores, never of their negatives.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from robustness.statistics.paired import runs_beaten
from robustness.statistics.r_arithmetic import r_aggregate, r_means
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import rank

__all__ = ["aggregate_values", "aggregate", "rank_then_aggregate", "test_based", "rank_na2", "in_r",
           "in_r_resampled", "rank_then_aggregate_grouped"]


def aggregate_values(values: np.ndarray, how: str | float, weights: np.ndarray | None = None) -> np.ndarray:
    """Aggregate along the last axis over the non-missing values, for no, one or many case weightings.

    Parameters
    ----------
    values : ndarray (R, N)
    how : 'mean', 'median', 'min', 'max' or a quantile level in (0, 1)
        A quantile is R's type 7 (numpy's default, ``linear``).
    weights : ndarray (N,) or (B, N), optional
        Whole-number repeats of each case.

    Returns
    -------
    ndarray (R,), or (B, R) with two-dimensional ``weights``
        nan for a run without a score.
    """
    if weights is not None and np.ndim(weights) == 2:
        if how == "mean":  # weighted means of the scored cases, every weighting at once
            have = ~np.isnan(values)
            w = np.asarray(weights, dtype=np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                return (w @ np.where(have, values, 0.0).T) / (w @ have.T.astype(np.float64))
        return np.stack([aggregate_values(values, how, w) for w in weights])
    if weights is not None:
        values = np.repeat(values, np.asarray(weights, dtype=np.int64), axis=-1)
    with np.errstate(invalid="ignore"), warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        # 'mean of empty slice': a run without any score is nan, and the callers report it
        if how == "mean":
            return np.nanmean(values, axis=-1)
        if how == "median":
            return np.nanmedian(values, axis=-1)
        if how in ("min", "max"):
            return (np.nanmin if how == "min" else np.nanmax)(values, axis=-1)
        return np.nanquantile(values, float(how), axis=-1)


def aggregate(values: np.ndarray, weights: np.ndarray | None = None, *, options: RankingOptions = RankingOptions(),
              lower_better: bool = False, rng: np.random.Generator | None = None) -> np.ndarray:
    """Aggregate-then-rank: every run's aggregated score (negated where smaller is better).

    Parameters
    ----------
    values, weights, options, lower_better, rng
        Module notes.

    Returns
    -------
    ndarray
    """
    stat = aggregate_values(values, options.aggregate, weights)
    return -stat if lower_better else stat


def rank_na2(ranks: np.ndarray, missing: np.ndarray, ties: str) -> np.ndarray:
    """Per-case ranks (R, N) with missing scores ranked as challengeR's ``rankNA2`` ranks them.

    After the largest rank of the scored runs of the case, plus 1 (min, random) or the mean of 1..k (average, k
    missing); left out (nan) under max and first, where R's ``rank(na.last="keep")`` leaves them.

    Parameters
    ----------
    ranks : ndarray (R, N)
    missing : ndarray of bool (R, N)
    ties : str

    Returns
    -------
    ndarray (R, N)
    """
    out = np.where(missing, np.nan, ranks)
    k = missing.sum(axis=0)
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):  # a case without any score
        top = np.nan_to_num(np.nanmax(out, axis=0), nan=0.0)
    if ties in ("min", "random"):
        fill = top + 1.0
    elif ties == "average":
        fill = top + (k + 1) / 2.0
    else:
        return out
    return np.where(missing, fill[None, :], out)


def _treat_missing(per_case: np.ndarray, values: np.ndarray, options: RankingOptions) -> np.ndarray:
    """Per-case ranks (R, N) of ``values`` with their missing scores treated as ``options.missing`` says.

    ``drop``: left out (nan); ``rank-last``: :func:`rank_na2`; otherwise the scores were filled before ranking.
    """
    if options.missing == "drop":
        return np.where(np.isnan(values), np.nan, per_case)
    if options.missing == "rank-last":
        return rank_na2(per_case, np.isnan(values), options.ties)
    return per_case


def rank_then_aggregate(values: np.ndarray, weights: np.ndarray | None = None, *,
                        options: RankingOptions = RankingOptions(), lower_better: bool = False,
                        rng: np.random.Generator | None = None) -> np.ndarray:
    """Rank-then-aggregate: minus every run's aggregated per-case rank (missing scores per ``options.missing``).

    Parameters
    ----------
    values, weights, options, lower_better, rng
        Module notes; ``rng`` draws the order of random ties.

    Returns
    -------
    ndarray
    """
    per_case = _treat_missing(rank(values.T, ties=options.ties, lower_better=lower_better, rng=rng).T, values,
                              options)
    if weights is not None and np.ndim(weights) == 2:  # one weighting at a time: ranks repeated, as R would
        return -np.stack([aggregate_values(per_case, options.aggregate, w) for w in weights])
    return -aggregate_values(per_case, options.aggregate, weights)


def test_based(values: np.ndarray, weights: np.ndarray | None = None, *, options: RankingOptions = RankingOptions(),
               lower_better: bool = False, rng: np.random.Generator | None = None) -> np.ndarray:
    """Test-then-rank: the runs each run beats significantly (:func:`robustness.statistics.paired.runs_beaten`).

    Parameters
    ----------
    values, weights, options, lower_better, rng
        Module notes.

    Returns
    -------
    ndarray
    """
    one = weights is not None and np.ndim(weights) == 1
    out = runs_beaten(values, None if weights is None else np.atleast_2d(weights), test=options.test,
                      continuity=options.continuity, adjustment=options.adjustment, alpha=options.alpha,
                      lower_better=lower_better)
    return out[0] if one else out


def in_r(values: np.ndarray, rows: np.ndarray, method: str, *, options: RankingOptions, lower_better: bool,
         rng: np.random.Generator | None = None) -> np.ndarray:
    """``aggregate`` or ``rank-then-aggregate`` as challengeR computes them, from the rows of the per-case table.

    challengeR aggregates each run's values in the order of its rows in R's arithmetic
    (:mod:`robustness.statistics.r_arithmetic`), and ranks each case's runs in the order of that case's rows (which
    ties ``first`` and ``last`` follow); the values are then compared exactly. Same signature and result as the
    two methods' statistics, for one weighting (the table itself).

    Parameters
    ----------
    values : ndarray (R, N)
        After the missing-score treatment.
    rows : ndarray of int (R, N)
        Each score's row in the table (-1 where the table has no row: placed last).
    method : {'aggregate', 'rank-then-aggregate'}
    options, lower_better, rng
        Module notes.

    Returns
    -------
    ndarray (R,)
    """
    order = np.where(rows < 0, np.iinfo(np.int64).max, rows)
    if method == "rank-then-aggregate":
        per_case = np.full(values.shape, np.nan)
        for j in range(values.shape[1]):
            perm = np.argsort(order[:, j], kind="stable")
            per_case[perm, j] = rank(values[perm, j], ties=options.ties, tol=0.0, lower_better=lower_better, rng=rng)
        source, sign = _treat_missing(per_case, values, options), -1.0
    else:
        source, sign = values, (-1.0 if lower_better else 1.0)
    out = np.full(values.shape[0], np.nan)
    for r in range(values.shape[0]):
        x = source[r, np.argsort(order[r], kind="stable")]
        x = x[~np.isnan(x)]
        if x.size:
            out[r] = sign * r_aggregate(x, options.aggregate)
    return out


def in_r_resampled(values: np.ndarray, counts: np.ndarray, order: Sequence[int], *, options: RankingOptions,
                   lower_better: bool) -> np.ndarray:
    """``aggregate`` on bootstrap resamples as challengeR's ``bootstrap`` computes it, in R's arithmetic.

    challengeR's resample is ``merge(drawn cases, task's rows)``, whose rows follow the cases' sorted order, a case
    drawn k times k times in a row; each run's aggregate (R's ``mean``, ``median`` or quantile,
    :mod:`robustness.statistics.r_arithmetic`) is taken over its values in that order and the values are compared
    exactly. A mean of {0.1, 0.2} drawn equally often is 0.15000000000000002 in R, never 0.15: numpy's weighted
    mean ties it with 0.15 in some resamples.

    Parameters
    ----------
    values : ndarray (R, N)
        After the missing-score treatment (nan: left out).
    counts : ndarray of int (B, N)
        How many times each case is drawn in each resample.
    order : sequence of int
        The cases in R's sorted order (:func:`robustness.statistics.collation.case_order`).
    options, lower_better
        Module notes.

    Returns
    -------
    ndarray (B, R)
        Higher-is-better (negated where smaller is better); nan for a run without a score in a resample.
    """
    by = np.asarray(order, dtype=np.int64)
    x, w = values[:, by], np.asarray(counts, dtype=np.int64)[:, by]
    out = np.full((w.shape[0], x.shape[0]), np.nan)
    complete = ~np.isnan(x).any(axis=1)
    mean = options.aggregate == "mean"
    sizes = w.sum(axis=1)
    together = mean and complete.any() and sizes.size > 0 and sizes[0] > 0 and bool((sizes == sizes[0]).all())
    if together:  # resamples of one length (cases resampled): many at once, in blocks of about 2e6 values
        step = max(1, 2_000_000 // int(complete.sum() * sizes[0]))
        for start in range(0, w.shape[0], step):
            index = np.stack([np.repeat(np.arange(x.shape[1]), wb) for wb in w[start:start + step]])  # (b, n)
            picked = x[complete][:, index]  # (R', b, n): each run's values in R's row order
            out[start:start + step, complete] = r_means(picked.reshape(-1, index.shape[1])).reshape(
                picked.shape[:2]).T
    for b, wb in enumerate(w):
        if mean and not together and complete.any():
            out[b, complete] = r_means(np.repeat(x[complete], wb, axis=1))
        for r in np.flatnonzero(~complete) if mean else range(x.shape[0]):
            v = np.repeat(x[r], wb)
            v = v[~np.isnan(v)]
            if v.size:
                out[b, r] = r_aggregate(v, options.aggregate)
    return -out if lower_better else out


def rank_then_aggregate_grouped(values: np.ndarray, counts: np.ndarray, *, options: RankingOptions,
                                lower_better: bool, rng: np.random.Generator | None = None) -> np.ndarray:
    """Rank-then-aggregate on resamples as challengeR's bootstrap computes it: a case drawn k times is one group.

    challengeR's resample repeats a case's rows k times under the same case, and ranks by case: the k copies of
    the R runs' scores are ranked together, R k entries (a run's copies tie with each other), then every entry is
    aggregated. So a case drawn twice has ranks up to 2R and counts twice: about four times a case drawn once,
    where the package's resampling (a case's per-case ranks weighted by its draws) counts it twice. The copies are
    laid out copy after copy (all runs, then all runs again), which ties ``first`` and ``last`` follow.

    Parameters
    ----------
    values : ndarray (R, N)
        After the missing-score treatment.
    counts : ndarray of int (B, N)
        How many times each case is drawn in each resample.
    options, lower_better, rng
        Module notes.

    Returns
    -------
    ndarray (B, R)
        Minus every run's aggregated rank, per resample.
    """
    n_runs = values.shape[0]
    out = np.full((counts.shape[0], n_runs), np.nan)
    for b, row in enumerate(np.asarray(counts, dtype=np.int64)):
        entries = []
        for k in np.unique(row[row > 0]):
            cases = np.flatnonzero(row == k)
            tiled = np.tile(values[:, cases].T, (1, k))  # (cases, k R): copy after copy
            ranks = _treat_missing(rank(tiled, ties=options.ties, lower_better=lower_better, rng=rng).T, tiled.T,
                                   options).T
            entries.append(ranks.reshape(cases.size * k, n_runs).T)  # (R, cases k)
        out[b] = -aggregate_values(np.concatenate(entries, axis=1), options.aggregate)
    return out
