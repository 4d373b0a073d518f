"""The comparisons machine-learning benchmarks report beside a leaderboard, as tables of the per-case studies.

Demšar's Friedman and Nemenyi tests (:mod:`robustness.statistics.friedman`) and rliable's interquartile mean,
probability of improvement and performance profiles (:mod:`robustness.statistics.rliable_metrics`), per
leaderboard of a per-case table or of the main job's per-case scores (:func:`robustness.studies.table.rank_tables`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from robustness.statistics.case_rankings import TaskScores, direction
from robustness.statistics.friedman import friedman
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.rliable_metrics import bootstrap_improvement, bootstrap_iqm, performance_profile

__all__ = ["friedman_tables", "rliable_tables"]


def friedman_tables(tasks: Sequence[TaskScores], options: RankingOptions) -> dict[str, pd.DataFrame]:
    """``friedman.csv`` (Friedman's test and Nemenyi's critical difference per leaderboard) and ``nemenyi.csv``.

    On each leaderboard's cases where every run has a score (:func:`robustness.statistics.friedman.friedman`), at
    the ranking options' level; leaderboards with fewer than two runs or two such cases have none.

    Parameters
    ----------
    tasks : sequence of TaskScores
    options : RankingOptions
        The direction and the level (``alpha``).

    Returns
    -------
    dict
        File name -> table (empty where no leaderboard has a test).
    """
    rows, pairs = [], []
    for ts in tasks:
        f = friedman(ts.values, ts.runs, lower_better=direction(ts, options), alpha=options.alpha)
        if len(ts.runs) < 2 or f.n_cases < 2:
            continue
        rows.append({"task": ts.task, "runs": len(ts.runs), "cases": f.n_cases,
                     "cases_left_out": len(ts.cases) - f.n_cases, "chi2": f.statistic, "df": len(ts.runs) - 1,
                     "p": f.p, "alpha": f.alpha, "cd": f.cd})
        pairs.append(f.pairs.assign(task=ts.task))
    if not rows:
        return {}
    return {"friedman.csv": pd.DataFrame(rows),
            "nemenyi.csv": pd.concat(pairs, ignore_index=True)[["task", "run", "other", "mean_rank",
                                                                 "other_mean_rank", "difference", "p", "differ"]]}


def rliable_tables(tasks: Sequence[TaskScores], ranking: pd.DataFrame, options: RankingOptions, n_resamples: int,
                    rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """``iqm.csv``, ``improvement.csv`` and ``performance_profile.csv`` (:mod:`robustness.statistics.rliable_metrics`).

    Per leaderboard: every run's interquartile mean over its scored cases with a 95% bootstrap interval; the
    probability that each run beats the next one down its leaderboard (the first ranking method's order) on a case;
    every run's share of cases better than each of 41 thresholds spanning the scores.

    Parameters
    ----------
    tasks : sequence of TaskScores
    ranking : pandas.DataFrame
        ``ranking.csv``'s rows (the leaderboards' order).
    options : RankingOptions
        The direction.
    n_resamples : int
        Bootstrap resamples of the cases.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        File name -> table (empty where no run has two scored cases).
    """
    iqms, improvement, profiles = [], [], []
    first = ranking.ranking.iloc[0] if len(ranking) else None
    for ts in tasks:
        lower = direction(ts, options)
        scored = [r for r in range(len(ts.runs)) if (~np.isnan(ts.values[r])).sum() >= 2]
        if not scored:
            continue
        for r in scored:
            x = ts.values[r][~np.isnan(ts.values[r])]
            value, low, high = bootstrap_iqm(x[None, :], n_resamples, rng)
            iqms.append({"task": ts.task, "run": ts.runs[r], "iqm": float(value[0]), "low": float(low[0]),
                         "high": float(high[0]), "cases": int(x.size), "lower_better": lower})
        order = ranking[(ranking.task == ts.task) & (ranking.ranking == first)].sort_values(["rank", "run"],
                                                                                           kind="stable").run
        index = {run: k for k, run in enumerate(ts.runs)}
        placed = [index[run] for run in order if index[run] in scored]
        sign = -1.0 if lower else 1.0
        for a, b in zip(placed[:-1], placed[1:]):
            x, y = (sign * ts.values[k][~np.isnan(ts.values[k])] for k in (a, b))
            p, p_low, p_high = bootstrap_improvement(x, y, n_resamples, rng)
            improvement.append({"task": ts.task, "run": ts.runs[a], "other": ts.runs[b], "p": p, "low": p_low,
                                "high": p_high})
        finite = ts.values[np.isfinite(ts.values)]
        taus = np.linspace(finite.min(), finite.max(), 41)
        for r in scored:
            x = ts.values[r][~np.isnan(ts.values[r])]
            sign = -1.0 if lower else 1.0  # smaller is better: the share below each threshold
            share = performance_profile(sign * x[None, :], sign * taus)[0]
            profiles += [{"task": ts.task, "run": ts.runs[r], "tau": t, "share": s} for t, s in zip(taus, share)]
    if not iqms:
        return {}
    return {"iqm.csv": pd.DataFrame(iqms),
            "improvement.csv": pd.DataFrame(improvement, columns=["task", "run", "other", "p", "low", "high"]),
            "performance_profile.csv": pd.DataFrame(profiles)}
