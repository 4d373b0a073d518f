"""The verdicts the resampling studies state on their tables (:mod:`robustness.studies.common`'s).

Each function reads the tables a resampling study wrote and adds the rows of
its claims (:data:`robustness.results.claims.CLAIMS`) to a
:class:`~robustness.results.study_result.Verdicts`: how many pairs of runs
differ, how fast each scheme's ranking settles, how far the test set is from
unlimited data, and how the rankings of the methods agree.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from robustness.overlap.gold import is_random
from robustness.results.claims import ClaimName
from robustness.results.study_result import Verdicts
from robustness.scheme import DEFAULT
from robustness.statistics.convergence import Convergence
from robustness.statistics.uncertainty import FLAG_ALPHA
from robustness.statistics.verdicts import best_with_ties
from robustness.studies.common import only

__all__ = ["significance_verdicts", "resampling_verdicts", "unlimited_verdicts", "fastest_verdicts",
           "ranking_verdicts"]



#: The claims of the one significance analysis, by its test (paired t-test, then Wilcoxon) and pairwise.parquet's
#: column of that test's decisions: all pairs, neighbours.
_DIFFER: tuple[tuple[ClaimName, ClaimName, str], ...] = (
    ("pairs_differ", "neighbours_differ", "significant"),
    ("pairs_differ_wilcoxon", "neighbours_differ_wilcoxon", "significant_wilcoxon"))

def significance_verdicts(verdicts: Verdicts, pairwise: pd.DataFrame, schemes: Iterable[tuple]) -> None:
    """How many pairs (and neighbouring pairs) of runs differ: the analytic paired test, and the Wilcoxon check.

    Claims ``pairs_differ``, ``neighbours_differ`` (Holm over all pairs), ``neighbours_only_differ`` (Holm over the
    neighbouring pairs alone, the other family), ``pairs_differ_wilcoxon``, ``neighbours_differ_wilcoxon``; the
    neighbouring pairs without evidence of a difference are the subject of ``neighbours_differ``.

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    pairwise : pandas.DataFrame
        ``pairwise.parquet``.
    schemes : iterable of (strategy, metric, average)
    """
    for strat, metric, average in schemes:
        d = pairwise[(pairwise.strategy == strat) & (pairwise.metric == metric) & (pairwise.average == average)]
        if d.empty:
            continue
        n = d[d.neighbours]
        key = dict(strategy=strat, metric=metric, average=average, table="pairwise.parquet")
        for pairs, neighbours, column in _DIFFER:
            k = int(d[column].sum())
            verdicts.add(pairs, statement="none" if k == 0 else "some", count=k, total=len(d), **key)
            k = int(n[column].sum())
            same = [f"{x.run} ~ {x.other}" for x in n[~n[column]].itertuples()]
            verdicts.add(neighbours, statement="none" if k == 0 else "some", count=k, total=len(n), subject=same,
                         **key)
        if "significant_delta_neighbours" in n:
            k = int(n.significant_delta_neighbours.sum())
            verdicts.add("neighbours_only_differ", statement="none" if k == 0 else "some", count=k, total=len(n),
                         **key)


def fastest_verdicts(verdicts: Verdicts, conv: Convergence, points: pd.DataFrame, *, lenient: float,
                     test_sets: tuple[np.ndarray, list] | None = None, metric: str = DEFAULT.metric) -> None:
    """Which strategy's curve is lowest (smallest area under the mean L1 curve), per averaging.

    With ``test_sets`` (:func:`robustness.statistics.convergence.auc_over_test_sets` and its schemes' names), a
    strategy is named only if its paired differences with every other strategy over resampled test sets lie below
    zero (Bonferroni-adjusted percentile intervals): a claim about the gold, which holds for a new test set. Without,
    the differences over this test set's orders (Monte Carlo intervals: a claim about this test set only). Otherwise
    the tied ones (claim ``fastest_convergence``; ``statement`` ``fastest`` or ``tied``; ``count``: the number of
    resampled test sets, 0 when the orders were used).

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    conv : Convergence
    points : pandas.DataFrame
        ``convergence.csv``.
    lenient : float
        The tolerance whose AUC row is quoted (the AUC is the same for every tolerance).
    test_sets : (ndarray (S', B), list of (strategy, metric, average)), optional
    metric : str
    """
    auc = conv.order_auc()  # (S, K)
    for average in dict.fromkeys(n[2] for n in conv.schemes.names):
        scheme = [s for s, n in enumerate(conv.schemes.names) if n[1] == metric and n[2] == average]
        drawn = [s for s in scheme if is_random(conv.schemes.names[s][0])]
        idx = [s for s in scheme if s not in drawn]  # a random annotator is a draw, not a candidate
        here = points[(points.metric == metric) & (points.average == average) & (points.tolerance == lenient)
                      & (points.ranking == conv.ranking)].set_index("strategy")
        if len(drawn) > 1:
            a = here.loc[[conv.schemes.names[s][0] for s in drawn], "auc"]
            verdicts.add("random_gold_spread", ranking=conv.ranking, metric=metric, average=average,
                         statement="auc", value=float(a.mean()), low=float(a.min()), high=float(a.max()),
                         count=len(drawn), table="convergence.csv")
        if len(idx) < 2:
            continue
        names = [conv.schemes.names[s][0] for s in idx]
        count = 0
        if test_sets is not None:
            outer, outer_names = test_sets
            rows = [outer_names.index(conv.schemes.names[s]) for s in idx]
            v = best_with_ties(outer[rows], names, higher_is_better=False, interval="percentile")
            count = outer.shape[1]
        else:
            v = best_with_ties(auc[idx], names, higher_is_better=False, interval="normal")
        p = here.loc[v.tied[0]]
        verdicts.add("fastest_convergence", ranking=conv.ranking, metric=metric, average=average,
                     statement="fastest" if v.best else "tied", subject=v.tied, value=p.auc, se=p.auc_se,
                     low=p.auc_low, high=p.auc_high, level=v.level, count=count, table="strategy_comparison.csv")


def resampling_verdicts(verdicts: Verdicts, tables: dict, schemes: Iterable[tuple], *, lenient: float,
                        tolerance: float) -> None:
    """What the QA and per-case table reports state per scheme (of the default ranking method).

    The convergence points (``convergence_point``, one per tolerance; ``statement`` reached or only_at_n), the
    area under the curve (``curve_auc``), the distance to unlimited data at the test set's size
    (``unlimited_distance``, with its interval; ``best_stays_first``, the plug-in stability of the observed best;
    ``best_is_best``, the posterior probability that it is the population's best), the size needed for one place
    per run (``units_needed``: the estimate, and where the interval's ends reach the target; statement
    ``at_least`` with the upper end as the conservative claim) and the significance analysis
    (:func:`significance_verdicts`).

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    tables : dict
        The study's tables.
    schemes : iterable of (strategy, metric, average)
    lenient, tolerance : float
    """
    points = only(tables["convergence.csv"])
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        p = points[(points.strategy == strat) & (points.metric == metric) & (points.average == average)]
        for x in p.itertuples():
            verdicts.add("convergence_point", statement="reached" if x.reached else "only_at_n",
                         value=x.convergence_n, low=x.convergence_n_low, high=x.convergence_n_high, level=0.95,
                         count=int(x.n_units), total=None, subject=[f"{x.tolerance:g}"], table="convergence.csv",
                         **key)
        if len(p):
            verdicts.add("curve_auc", value=p.auc.iloc[0], se=p.auc_se.iloc[0], low=p.auc_low.iloc[0],
                         high=p.auc_high.iloc[0], level=0.95, table="convergence.csv", **key)
    unlimited_verdicts(verdicts, tables, schemes, lenient=lenient)
    significance_verdicts(verdicts, tables["pairwise.parquet"], schemes)


def unlimited_verdicts(verdicts: Verdicts, tables: dict, schemes: Iterable[tuple], *, lenient: float) -> None:
    """What a report states about the distance to unlimited data, per scheme.

    ``unlimited_distance`` (the estimate at the test set's size with its interval), ``best_stays_first`` (the
    plug-in stability of the observed best), ``best_is_best`` (the posterior probability that it is the
    population's best; statement ``tied`` where several runs tie for first on the test set: then the probability
    that one of them is, and every one of them named) and ``units_needed`` (the estimate, and where the
    interval's ends reach ``lenient``; statement ``at_least`` with the upper end as the conservative claim,
    ``beyond`` or ``already``).

    Parameters
    ----------
    verdicts : Verdicts
    tables : dict
        With ranking_uncertainty.csv, rank_keep.csv and test_set_size.csv.
    schemes : iterable of (strategy, metric, average)
    lenient : float
        The target expected L1 (:func:`robustness.statistics.ranks.size_target`).
    """
    per_size, needed, runs = tables["ranking_uncertainty.csv"], tables["test_set_size.csv"], tables["rank_keep.csv"]
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        at = per_size[(per_size.strategy == strat) & (per_size.metric == metric) & (per_size.average == average)]
        row = at[at.observed_size].iloc[0]
        verdicts.add("unlimited_distance", value=row.expected_l1, se=row.expected_l1_se, low=row.low, high=row.high,
                     level=row.confidence, count=int(row.m), table="ranking_uncertainty.csv", **key)
        verdicts.add("best_stays_first", value=row.p_best_stays, count=int(row.m), table="ranking_uncertainty.csv",
                     **key)
        best = runs[(runs.strategy == strat) & (runs.metric == metric) & (runs.average == average)]
        if len(best):
            top = best.sort_values("rank").iloc[0]
            tied = best[best["rank"] == top["rank"]]  # average ranks: runs tied for first share one rank
            if len(tied) > 1:  # no observed best: the chance that one of them is the population's best
                verdicts.add("best_is_best", statement="tied", value=float(tied.p_best.sum()),
                             subject=list(tied.run), table="rank_keep.csv", **key)
            else:
                verdicts.add("best_is_best", value=top.p_best, subject=[top.run], table="rank_keep.csv", **key)
        _band_verdicts(verdicts, at, row, key)
        nd = needed[(needed.strategy == strat) & (needed.metric == metric) & (needed.average == average)].iloc[0]
        verdicts.add("units_needed", statement="beyond" if nd.beyond else "already" if nd.already else "at_least",
                     value=nd.units_needed_point, low=nd.units_needed_low, high=nd.units_needed,
                     level=nd.confidence, count=int(nd.largest_size), subject=[f"{lenient:g}"],
                     table="test_set_size.csv", **key)
        low, beyond = nd.get("units_needed_range_low", np.nan), bool(nd.get("beyond_range_high", False))
        if np.isfinite(low) or beyond:  # the band is there (folders written before it have no range)
            verdicts.add("units_needed_range", statement="beyond" if beyond else "within", low=low,
                         high=nd.units_needed_range_high, count=int(nd.largest_size), subject=[f"{lenient:g}"],
                         table="test_set_size.csv", **key)


def resolution_verdicts(verdicts: Verdicts, tables: dict, schemes: Iterable[tuple]) -> None:
    """What a report states about the resolution, per scheme: at the test set's size and, given, for a difference.

    ``resolution`` (the detectable difference at N with its interval; ``count`` of the ``total`` neighbouring pairs
    whose observed difference is smaller, ``subject`` those pairs flattened: upper run, lower run, ...) and
    ``resolve_units`` (resolve.csv: the units at which the difference asked for is declared with 80% power; the
    estimate, and the claim at the upper end of the SD's interval as ``high``; statement ``beyond`` where no size
    searched suffices).

    Parameters
    ----------
    verdicts : Verdicts
    tables : dict
        With resolution.csv and pairwise.parquet (and resolve.csv where a difference was asked for).
    schemes : iterable of (strategy, metric, average)
    """
    table, pairs = tables["resolution.csv"], tables["pairwise.parquet"]
    resolve = tables.get("resolve.csv")
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        rows = table[(table.strategy == strat) & (table.metric == metric) & (table.average == average)]
        at_n = rows[rows.units == rows.test_units]
        if at_n.empty:
            continue
        row = at_n.iloc[0]
        nb = pairs[(pairs.strategy == strat) & (pairs.metric == metric) & (pairs.average == average)
                   & pairs.neighbours]
        close = nb[nb["diff"].abs() < row.resolution] if np.isfinite(row.resolution) else nb.iloc[:0]
        verdicts.add("resolution", value=row.resolution, low=row.resolution_low, high=row.resolution_high,
                     level=0.95, count=len(close), total=len(nb), subject=[x for r in close.itertuples()
                                                                          for x in (r.run, r.other)],
                     table="resolution.csv", **key)
        if resolve is not None:
            need = resolve[(resolve.strategy == strat) & (resolve.metric == metric) & (resolve.average == average)]
            if len(need):
                n = need.iloc[0]
                verdicts.add("resolve_units", statement="beyond" if n.beyond else "at_least",
                             value=n.units_needed, low=n.units_needed_low, high=n.units_needed_high, level=0.95,
                             subject=[f"{n.difference:g}"], table="resolve.csv", **key)


def _band_verdicts(verdicts: Verdicts, at: pd.DataFrame, observed: pd.Series, key: dict) -> None:
    """``distance_band`` of one scheme at the test set's size and at eight times it (or the largest size below).

    ``observed`` is the row of ``at`` at the test set's size. The statement is ``prior_sensitive`` where the test
    that the teams share one within-team spread rejects it at :data:`FLAG_ALPHA` (``spread_p``), ``settled``
    otherwise; ``subject``: the band's other end, the prior gap at the far size, ``spread_p``.
    """
    if "band_low" not in at.columns:  # folders written before the band
        return
    n = int(observed.m)
    far = at[at.m <= 8 * n].sort_values("m").iloc[-1]
    spread_p = float(observed.get("spread_p", np.nan))  # folders written before the test have no spread_p
    flagged = bool(np.isfinite(spread_p) and spread_p < FLAG_ALPHA)
    for row in (observed, far):
        if not np.isfinite(row.band_low):
            continue
        verdicts.add("distance_band", statement="prior_sensitive" if flagged else "settled", value=row.expected_l1,
                     low=row.band_low, high=row.band_high, level=row.confidence, count=int(row.m), total=n,
                     subject=[str(row.band_other), f"{far.prior_gap:.6g}", f"{spread_p:.6g}"],
                     table="ranking_uncertainty.csv", **key)


def ranking_verdicts(v: Verdicts, tables: dict, schemes: list[tuple], *,
                     agreement_file: str = "kendall_tau.csv") -> None:
    """What the comparison of ranking methods states, per scheme.

    Who is first under each method (``first_place``), Kendall's tau between every two methods' leaderboards
    (``method_agreement``) and, over the golds, the range of tau between two methods
    (``method_agreement_range``). Nothing with one method only.

    Parameters
    ----------
    v : Verdicts
    tables : dict
    schemes : list of (strategy, metric, average)
    agreement_file : str
    """
    ci = tables["bootstrap_ci.csv"]
    ci = ci[ci.reported]
    methods = list(dict.fromkeys(ci.ranking))
    if len(methods) < 2:
        return
    agreement = tables[agreement_file]
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        for method in methods:
            board = ci[(ci.ranking == method) & (ci.strategy == strat) & (ci.metric == metric)
                       & (ci.average == average)]
            top = board[board["rank"] == board["rank"].min()].run.tolist()
            v.add("first_place", ranking=method, statement="alone" if len(top) == 1 else "tied", subject=top,
                  count=len(top), table="bootstrap_ci.csv", **key)
        tau = agreement[(agreement.strategy == strat) & (agreement.other == strat) & (agreement.metric == metric)
                        & (agreement.average == average)]
        for i, a in enumerate(methods):
            for b in methods[i + 1:]:
                row = tau[(tau.ranking == a) & (tau.other_ranking == b)]
                if len(row):
                    row = row.iloc[0]
                    v.add("method_agreement", ranking=a, subject=[a, b], value=row.tau, low=row.tau_low,
                          high=row.tau_high, level=0.95, table=agreement_file, **key)
    strat, metric, average = schemes[0]
    span = agreement[(agreement.strategy == agreement.other) & (agreement.metric == metric)
                     & (agreement.average == average) & (agreement.ranking != agreement.other_ranking)]
    if span.strategy.nunique() > 1:
        v.add("method_agreement_range", metric=metric, average=average, count=int(span.strategy.nunique()),
              low=span.tau.min(), high=span.tau.max(), table=agreement_file)
