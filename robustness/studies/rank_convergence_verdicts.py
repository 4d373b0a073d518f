"""The main job's verdicts: every finding its report states, from its tables.

See :data:`robustness.results.study_result.VERDICT_COLUMNS` for a verdict row's fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from robustness.overlap.gold import get_strategy, is_random
from robustness.overlap.metrics import AVERAGES
from robustness.results.study_result import Verdicts
from robustness.scheme import Scheme
from robustness.statistics.verdicts import best_with_ties
from robustness.studies.common import only
from robustness.studies.rank_convergence_metrics import label_verdicts, metric_verdicts
from robustness.studies.resampling_verdicts import (
    fastest_verdicts,
    ranking_verdicts,
    resolution_verdicts,
    significance_verdicts,
    unlimited_verdicts,
)

if TYPE_CHECKING:

    from robustness.overlap.counts import OverlapCounts
    from robustness.studies.common import Resampled

__all__ = ["verdicts", "winner_verdicts", "FIRST_PLACE_TAIL"]


#: The share of resamples below which a run is "not first" with confidence (two-sided 95%: 2.5% per side).
FIRST_PLACE_TAIL = 0.025


def winner_verdicts(v: Verdicts, dist: pd.DataFrame, primary: Scheme) -> None:
    """Which other gold, averaging or metric moves the first place away from the headline's winner.

    For every scheme that differs from the headline in one respect (another fixed gold, the other averaging,
    another overlap metric), from the bootstrap rank distributions (the same resampled test sets for every
    scheme): its observed winner, the share of resamples in which that run is first under it, and where the
    headline's winner stands under it. Statement ``moves`` when the headline's winner is first under the other
    scheme in fewer than :data:`FIRST_PLACE_TAIL` of resamples (its 95% rank interval there excludes first place),
    ``may move`` when the observed winners differ but that is not established (tied), ``same`` otherwise.

    Parameters
    ----------
    v : Verdicts
        Where the rows are added.
    dist : pandas.DataFrame
        rank_distribution.csv.
    primary : Scheme
        The headline scheme.
    """
    dist = dist[dist.ranking == "aggregate"]
    first = dist[dist["rank"] == 1]

    def winner(key):
        rows = dist[(dist.strategy == key[0]) & (dist.metric == key[1]) & (dist.average == key[2])]
        return None if rows.empty else rows.sort_values("full_rank", kind="stable").run.iloc[0]

    def share_first(key, run):
        rows = first[(first.strategy == key[0]) & (first.metric == key[1]) & (first.average == key[2])
                     & (first.run == run)]
        return float(rows.share.sum())

    lead = winner(primary.key)
    if lead is None:
        return
    head = dist[(dist.strategy == primary.key[0]) & (dist.metric == primary.key[1]) & (dist.average == primary.key[2])]
    if (head.drop_duplicates("run").full_rank == head.full_rank.min()).sum() > 1:  # tied for first: no one to move
        return
    keys = list(dict.fromkeys(zip(dist.strategy, dist.metric, dist.average)))
    others = [k for k in keys if k != primary.key and not is_random(k[0])
              and sum(a != b for a, b in zip(k, primary.key)) == 1
              and (k[2] == primary.average or not get_strategy(k[0]).macro_only)]
    for key in others:
        other = winner(key)
        mine = dist[(dist.strategy == key[0]) & (dist.metric == key[1]) & (dist.average == key[2])
                    & (dist.run == lead)]
        p_lead = share_first(key, lead)
        statement = "same" if other == lead else ("moves" if p_lead < FIRST_PLACE_TAIL else "may move")
        v.add("winner_by_scheme", strategy=key[0], metric=key[1], average=key[2], statement=statement,
              subject=[other, lead], value=share_first(key, other), low=p_lead,
              count=int(mine.full_rank.iloc[0]) if len(mine) else -1, total=int(dist.run.nunique()),
              table="rank_distribution.csv")


def verdicts(counts: OverlapCounts, tables: dict[str, Any], res: Resampled, truth: tuple | None, *,
             primary: Scheme, lenient: float, test_sets: tuple | None = None) -> Verdicts:
    """Every finding the main job's report states (see :data:`robustness.results.study_result.VERDICT_COLUMNS`).

    Parameters
    ----------
    counts : OverlapCounts
        The pixel pass's counts (its fits, and whether a latent truth is known).
    tables : dict
        The tables written so far, by name.
    res : Resampled
        The curves and bootstrap of every ranking method.
    truth : tuple or None
        truth.csv and each scheme's Kendall tau to the truth (synthetic data), or None.
    primary : Scheme
        The headline scheme.
    lenient : float
        The size target (expected L1).
    test_sets : tuple, optional
        The golds' curves over resampled test sets and their scheme names.

    Returns
    -------
    Verdicts
    """
    v = Verdicts()
    headline = [primary.with_average(a) for a in primary.averages]
    significance_verdicts(v, tables["pairwise.parquet"], headline)
    if "metric_agreement.csv" in tables:
        metric_verdicts(v, tables, primary)
    if "label_agreement.csv" in tables:
        label_verdicts(v, tables, primary)
    unlimited_verdicts(v, tables, headline, lenient=lenient)
    resolution_verdicts(v, tables, headline)
    fastest_verdicts(v, res.convergence["aggregate"], tables["convergence.csv"], lenient=lenient,
                     test_sets=test_sets, metric=primary.metric)
    # the two golds whose rankings agree least (headline metric and averaging), and how many other pairs'
    # intervals reach it
    agreement = only(tables["kendall_tau.csv"])
    m = agreement[(agreement.metric == primary.metric) & (agreement.average == primary.average)]
    off = m[m.strategy < m.other]
    if len(off):
        lo = off.sort_values("tau").iloc[0]
        v.add("least_gold_agreement", metric=primary.metric, average=primary.average, subject=[lo.strategy, lo.other],
              value=lo.tau, low=lo.tau_low, high=lo.tau_high, level=0.95,
              count=int((off.tau_low <= lo.tau_high).sum()) - 1, total=len(off) - 1, table="kendall_tau.csv")
    # Table 4: how much of the paper's mean z comes from the images where the annotators agree most
    s = tables["gold_spread.csv"]
    staple = s[(s.metric == primary.metric) & (s.variant == "staple")]
    v.add("small_sd_share", metric=primary.metric, value=staple.small_sd_share.median() if len(staple) else np.nan,
          table="gold_spread.csv")
    for f, name in enumerate(counts.fits):
        v.add("fit_not_converged", strategy=name, count=int((~counts.fit_converged[f]).sum()),
              total=counts.n_images, table="images.csv")
    if truth is not None:
        table, taus = truth
        for average in AVERAGES:
            scheme = table.index[(table.metric == primary.metric) & (table.average == average)]
            random = table.strategy[scheme].map(is_random).to_numpy(bool)
            drawn, idx = scheme[random], scheme[~random]  # a draw is not a candidate
            if len(drawn) > 1:
                t = table.tau_to_truth[drawn]
                v.add("random_gold_spread", metric=primary.metric, average=average, statement="tau_to_truth",
                      value=float(t.mean()), low=float(t.min()), high=float(t.max()), count=len(drawn),
                      table="truth.csv")
            if len(idx) < 2:
                continue
            verdict = best_with_ties(taus[idx], list(table.strategy[idx]))
            lead = table.loc[idx].set_index("strategy").loc[verdict.tied[0]]
            v.add("truth_best", metric=primary.metric, average=average,
                  statement="best" if verdict.best else "tied",
                  subject=verdict.tied, value=lead.tau_to_truth, low=lead.tau_low, high=lead.tau_high,
                  level=verdict.level, table="truth.csv")
    ranking_verdicts(v, tables, [primary.with_average("macro")])
    winner_verdicts(v, tables["rank_distribution.csv"], primary)
    return v
