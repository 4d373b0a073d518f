"""Comparisons between runs and between gold strategies: the significance analysis, agreement between golds.

- :func:`pairwise_comparisons`: the package's one significance analysis. For
  every pair of runs under every scheme, the paired bootstrap of the score
  difference over the resampling unit (encounters by default; micro scores
  re-sum counts), a two-sided test from the bootstrap standard error, and a
  Wilcoxon signed-rank test on unit-level scores; Holm over all pairs of a
  scheme; neighbours on the leaderboard flagged in the same table.
- :func:`strategy_agreement`: Kendall's tau between the rankings under
  different gold strategies, with bootstrap intervals;
  :func:`ranking_agreement` the same between ranking methods and golds, from
  bootstraps of every method on the same resamples.
- :func:`pairwise_tests` (image-level one-sided Wilcoxon, Holm over ordered
  pairs, as challengeR's significance maps) and :func:`adjacent_pairs` (bootstrap
  win shares of neighbours) are kept for direct use.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy.special import ndtr
from scipy.stats import t as student

from robustness import _kernels
from robustness.scheme import DEFAULT
from robustness.statistics.bootstrap import BootstrapResult
from robustness.statistics.inference import nanquantile_columns, percentile_interval, tails
from robustness.statistics.multiplicity import ADJUSTMENTS, adjust
from robustness.statistics.paired import paired_p_values
from robustness.statistics.population import delta_covariance
from robustness.statistics.ranks import TIE_TOL, rank
from robustness.statistics.schemes import Schemes

__all__ = ["pairwise_comparisons", "pairwise_tests", "adjacent_pairs", "strategy_agreement",
           "ranking_agreement"]


def pairwise_comparisons(boot: BootstrapResult, *, alpha: float = 0.05, confidence: float = 0.95) -> pd.DataFrame:
    """The significance analysis: every pair of runs under every scheme, on the bootstrap's resampling unit.

    Parameters
    ----------
    boot : BootstrapResult
        The bootstrap of the aggregate scores (its resamples are paired across runs).
    alpha : float
        Family-wise error of Holm's adjustment over the pairs of a scheme.
    confidence : float
        Of the intervals of the differences.

    Returns
    -------
    pandas.DataFrame
        One row per scheme and unordered pair; the columns below.

    Notes
    -----
    For each scheme (``strategy``, ``metric``, ``average``) and each unordered pair of runs (``run`` ranked above
    ``other`` on the whole test set, at ``rank`` and ``other_rank``):

    - ``diff``: score of ``run`` minus score of ``other``, in the metric's own sign (negative for a metric
      where smaller is better); ``diff_low``,
      ``diff_high``: the percentile ``confidence`` interval of the paired
      bootstrap differences (the same resamples for both runs; micro scores
      re-sum TP/FP/FN, macro scores re-average per-image scores);
      ``win_share``: share of resamples in which ``run`` scores strictly better;
    - ``p_bootstrap``: two-sided test of ``diff = 0`` with the bootstrap
      standard error, ``2 Phi(-|diff| / sd*)``; ``p_bootstrap_holm``: Holm over
      all pairs of the scheme; ``significant_bootstrap``: ``p_bootstrap_holm < alpha`` (its count moves with the
      resampling seed: the tails Holm needs rest on a normal approximation to a finite set of resamples);
    - ``p_delta``: two-sided test of ``diff = 0`` with the delta-method standard error of the paired difference
      (each unit's influence on the two ratios of sums; Student's t with ``n_units - 1`` degrees of freedom):
      analytic, so it has no Monte Carlo error, and its small p-values are not read off the tails of a finite
      set of resamples; ``p_delta_holm``: Holm over all pairs of the scheme (``significant``: the analysis the
      reports state, also as ``significant_delta``), and
      ``p_delta_holm_neighbours``: Holm over the leaderboard's neighbouring pairs alone
      (``significant_delta_neighbours``), the other family a reader may have in mind;
    - ``p_wilcoxon``, ``p_wilcoxon_holm``, ``significant_wilcoxon``: two-sided
      Wilcoxon signed-rank test on the unit-level scores (one score per unit and
      run: micro re-sums the unit's counts, macro averages its images), the
      rank-based check: the package's test (:func:`robustness.statistics.paired.paired_p_values`, normal
      approximation with the tie correction, differences within ``TIE_TOL`` of zero dropped), twice the smaller
      one-sided p-value (scipy's ``wilcoxon(method="asymptotic")`` to the last digit where no difference is
      float noise, tested; scipy counts a difference of 1e-16 as signed, the package as a tie);
    - ``neighbours``: the two runs are next to each other on the leaderboard;
      ``unit`` and ``n_units``: what was resampled and how many; ``n_resamples``: the bootstrap's resamples.

    A pair that is not significant has *no evidence of a difference* at this
    level; that is not evidence that the runs are equivalent.
    """
    schemes = boot.schemes
    per_unit = schemes.unit_scores()
    cov = None
    if hasattr(schemes, "ratio_parts"):
        cov = delta_covariance(*schemes.ratio_parts())[1]  # (S, R, R)
    runs = np.asarray(schemes.runs, dtype=object)
    signs = schemes.sign_of
    lo, hi = tails(confidence)
    frames = []
    for s, (strat, metric, average) in enumerate(schemes.names):
        r = boot.final_ranks[s]
        order = np.lexsort((np.arange(r.size), r))  # best first; ties keep their order
        pos = np.empty(r.size, dtype=np.int64)
        pos[order] = np.arange(r.size)
        a, b = np.triu_indices(r.size, k=1)
        i, j = order[a], order[b]  # run i is ranked above (or tied with) j
        est = boot.estimate[s]
        d = boot.distribution[s][:, i] - boot.distribution[s][:, j]  # (B, pairs)
        diff = est[i] - est[j]
        sd = d.std(axis=0, ddof=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_boot = np.where(sd > 0, 2 * ndtr(-np.abs(diff) / np.where(sd > 0, sd, 1)),
                              np.where(diff == 0, 1.0, 0.0))
        p_boot = np.nan_to_num(p_boot, nan=1.0)
        ok = ~np.isnan(per_unit[s]).any(axis=0)  # the units every run has a score on
        p_w = np.ones(i.size)
        if ok.sum() > 1:  # the package's Wilcoxon (paired.py), two-sided: twice the smaller one-sided p
            one = paired_p_values(per_unit[s][:, ok])
            p_w = np.minimum(1.0, 2 * np.minimum(one[i, j], one[j, i]))
        ph, pwh = adjust(p_boot, "holm"), adjust(p_w, "holm")
        neighbours = pos[j] - pos[i] == 1
        p_d = np.full(i.size, np.nan)
        if cov is not None:
            var = cov[s][i, i] + cov[s][j, j] - 2 * cov[s][i, j]
            with np.errstate(invalid="ignore", divide="ignore"):
                z = np.abs(diff) / np.sqrt(np.maximum(var, 0.0))
                p_d = np.where(var > 0, 2 * student.sf(z, max(schemes.n_units - 1, 1)),
                               np.where(diff == 0, 1.0, 0.0))
            p_d = np.nan_to_num(p_d, nan=1.0)
        pdh = adjust(p_d, "holm") if cov is not None else p_d
        pdn = np.full(i.size, np.nan)
        if cov is not None and neighbours.any():
            pdn[neighbours] = adjust(p_d[neighbours], "holm")
        d_low = nanquantile_columns(d, lo) if d.size else np.nan
        d_high = nanquantile_columns(d, hi) if d.size else np.nan
        if signs[s] < 0:  # stored negated (smaller is better): the difference in the metric's own sign
            diff, d_low, d_high = -diff, -d_high, -d_low
        frames.append(pd.DataFrame({
            "strategy": strat, "metric": metric, "average": average, "run": runs[i], "other": runs[j],
            "rank": r[i], "other_rank": r[j], "neighbours": neighbours,
            "diff": diff, "diff_low": d_low, "diff_high": d_high,
            "win_share": (d > 0).mean(axis=0), "significant": (pdh if cov is not None else ph) < alpha,
            "p_bootstrap": p_boot, "p_bootstrap_holm": ph, "significant_bootstrap": ph < alpha,
            "p_delta": p_d, "p_delta_holm": pdh, "significant_delta": pdh < alpha,
            "p_delta_holm_neighbours": pdn, "significant_delta_neighbours": pdn < alpha,
            "p_wilcoxon": p_w, "p_wilcoxon_holm": pwh, "significant_wilcoxon": pwh < alpha,
            "unit": schemes.unit, "n_units": schemes.n_units, "n_resamples": d.shape[0],
        }))
    return pd.concat(frames, ignore_index=True)


def pairwise_tests(schemes: Schemes, *, alpha: float = 0.05, adjustment: str = "holm") -> pd.DataFrame:
    """One-sided paired Wilcoxon signed-rank tests between all runs, per macro scheme.

    For every ordered pair (i, j) of runs, H1: run i's per-image scores are
    higher than run j's. p-values are adjusted over all ordered pairs of a
    scheme with Holm's method (or any other ``adjustment``), as challengeR's
    significance maps do. Micro schemes have no per-image scores and are skipped (use the
    bootstrap's pairwise win shares for them). The test is the package's one
    Wilcoxon (:func:`robustness.statistics.paired.paired_p_values`, on the
    cases where every run has a score): normal approximation with tie
    correction, accurate for the hundreds of cases of a challenge, approximate
    below about 20 cases; differences within 1e-12 of zero are dropped.

    Parameters
    ----------
    schemes : Schemes
        With per-case scores (macro schemes).
    alpha : float
    adjustment : str
        :func:`robustness.statistics.multiplicity.adjust`'s method over the scheme's pairs.

    Returns
    -------
    pandas.DataFrame
        ``strategy, metric, average, run, other, p, p_adjusted, better``.
    """
    if adjustment not in ADJUSTMENTS:
        raise ValueError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}, got {adjustment!r}")
    if schemes.per_case is None:
        raise ValueError("these schemes carry no per-case scores")
    frames = []
    n_r = len(schemes.runs)
    ii, jj = np.where(~np.eye(n_r, dtype=bool))
    for s, (strat, metric, average) in enumerate(schemes.names):
        if not schemes.is_macro(s):
            continue
        v = schemes.per_case[s]
        p = paired_p_values(v[:, ~np.isnan(v).any(axis=0)])[ii, jj]
        p_adj = adjust(p, adjustment, alpha=alpha)
        frames.append(pd.DataFrame({
            "strategy": strat, "metric": metric, "average": average,
            "run": np.asarray(schemes.runs, dtype=object)[ii],
            "other": np.asarray(schemes.runs, dtype=object)[jj],
            "p": p, "p_adjusted": p_adj, "better": p_adj < alpha,
        }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def strategy_agreement(schemes: Schemes, *, ties: str = "average", tol: float = TIE_TOL,
                       boot: BootstrapResult | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Kendall's tau-b between the full-set rankings of every pair of strategies.

    Parameters
    ----------
    schemes : Schemes
    ties : {'average', 'min'}
    tol : float
    boot : BootstrapResult, optional
        A bootstrap of the same schemes' names: adds ``tau_low``/``tau_high``, the percentile ``confidence``
        interval of tau between the two rankings over the resamples (both rankings recomputed on each resample).
    confidence : float

    Returns
    -------
    pandas.DataFrame
        ``metric, average, strategy, other, tau`` (within each metric and averaging; the diagonal is 1).
    """
    ranks = rank(schemes.scores(), ties=ties, tol=tol)
    rows = []
    for s, (strat, metric, average) in enumerate(schemes.names):
        for t, (other, metric2, average2) in enumerate(schemes.names):
            if (metric2, average2) == (metric, average):
                row = {"metric": metric, "average": average, "strategy": strat, "other": other,
                       "tau": float(_kernels.kendall_tau_b(ranks[s], ranks[t]))}
                if boot is not None:
                    bs, bt = boot.schemes.index(strat, metric, average), boot.schemes.index(other, metric, average)
                    row["tau_low"], row["tau_high"] = _tau_interval(boot.ranks[bs], boot.ranks[bt], confidence)
                rows.append(row)
    return pd.DataFrame(rows)


def resampled_taus(ranks_a: np.ndarray, ranks_b: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between two rankings recomputed on the same resamples.

    Parameters
    ----------
    ranks_a, ranks_b : ndarray (B, R)
        The two rankings on every resample.

    Returns
    -------
    ndarray (B,)
    """
    return np.array([_kernels.kendall_tau_b(ranks_a[b].astype(np.float64), ranks_b[b].astype(np.float64))
                     for b in range(ranks_a.shape[0])])


def _tau_interval(ranks_a, ranks_b, confidence) -> tuple:
    """Percentile interval of Kendall's tau-b between two rankings recomputed on the same resamples (B, R)."""
    return percentile_interval(resampled_taus(ranks_a, ranks_b), confidence=confidence)


def ranking_agreement(boots: Iterable[BootstrapResult], *, confidence: float = 0.95) -> pd.DataFrame:
    """Kendall's tau-b between the rankings of every ranking method and gold strategy, with bootstrap intervals.

    Parameters
    ----------
    boots : list of BootstrapResult
        One per ranking method, drawn with the same ``rng`` on the same units,
        so that resample ``b`` is the same draw in all of them (paired).
    confidence : float

    Returns
    -------
    pandas.DataFrame
        ``metric, average, ranking, strategy, other_ranking, other, tau, tau_low, tau_high``.

    Notes
    -----
    One row for every pair of (method, strategy) within
    a metric and averaging that shares the method (agreement between golds) or
    the strategy (agreement between methods); both orders of a pair, the
    diagonal is 1. ``tau``: between the rankings on the whole test set;
    ``tau_low``/``tau_high``: the percentile ``confidence`` interval of tau
    between the two rankings recomputed on every resample. tau is nan where a
    ranking ties every run (test-based ranking with no significant difference).
    """
    boots = list(boots)
    shapes = {(b.ranks.shape[1], b.schemes.units) for b in boots}
    if len(shapes) != 1:
        raise ValueError("ranking_agreement needs bootstraps on the same units with the same number of resamples")
    entries = [(b, s, name) for b in boots for s, name in enumerate(b.schemes.names)]
    done, rows = {}, []
    for ka, (ba, sa, (strat, metric, average)) in enumerate(entries):
        for kb, (bb, sb, (other, metric_b, average_b)) in enumerate(entries):
            if (metric_b, average_b) != (metric, average) or (ba.ranking != bb.ranking and strat != other):
                continue
            key = (min(ka, kb), max(ka, kb))
            if key not in done:
                tau = float(_kernels.kendall_tau_b(ba.final_ranks[sa].astype(np.float64),
                                                   bb.final_ranks[sb].astype(np.float64)))
                done[key] = (tau, *_tau_interval(ba.ranks[sa], bb.ranks[sb], confidence))
            tau, low, high = done[key]
            rows.append({"metric": metric, "average": average, "ranking": ba.ranking, "strategy": strat,
                         "other_ranking": bb.ranking, "other": other, "tau": tau, "tau_low": low, "tau_high": high})
    return pd.DataFrame(rows, columns=["metric", "average", "ranking", "strategy", "other_ranking", "other", "tau",
                                       "tau_low", "tau_high"])


def adjacent_pairs(result: BootstrapResult, *, strategy: str, metric: str = DEFAULT.metric, average: str = "micro",
                   confidence: float = 0.95) -> pd.DataFrame:
    """Neighbours on a leaderboard and whether the bootstrap tells them apart.

    For runs at consecutive positions of the full-set ranking under one scheme,
    ``win_share`` is the share of resamples in which the higher-ranked run
    scores strictly higher; the pair is ``distinguishable`` when it reaches
    ``confidence`` (a one-sided paired bootstrap comparison at 1 - confidence).

    Parameters
    ----------
    result : BootstrapResult
    strategy, metric, average : str
        The scheme.
    confidence : float

    Returns
    -------
    pandas.DataFrame
        ``run, next, score, next_score, win_share, distinguishable``.
    """
    s = result.schemes.index(strategy, metric, average)
    order = np.argsort(-np.nan_to_num(result.estimate[s], nan=-np.inf), kind="stable")
    runs = result.schemes.runs
    rows = []
    for a, b in zip(order[:-1], order[1:]):
        share = float(result.wins[s, a, b])
        rows.append({"run": runs[a], "next": runs[b], "score": result.estimate[s, a],
                     "next_score": result.estimate[s, b], "win_share": share, "distinguishable": share >= confidence})
    return pd.DataFrame(rows)
