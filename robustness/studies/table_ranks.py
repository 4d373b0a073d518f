"""The rank tables of a per-case study: each leaderboard's bootstrap rank distribution, and each case's ranks.

Parts of :func:`robustness.studies.table.rank_tables`, which calls them in turn on one random stream (the order
of the draws is the table study's, so the numbers are those of one pass).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from robustness import _kernels
from robustness.progress import stage
from robustness.statistics.case_rankings import TaskScores, bootstrap_task_ranks, direction
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import rank

__all__ = ["bootstrap_rank_tables", "case_rank_tables"]


def bootstrap_rank_tables(tasks: Sequence[TaskScores], methods: Sequence[str], ranking: pd.DataFrame,
                          ranking_options: RankingOptions, n_resamples: int,
                          gen: np.random.Generator) -> tuple[dict[str, pd.DataFrame], dict, list[str]]:
    """Every leaderboard's bootstrap rank distribution: rank_bootstrap.csv, rank_frequency.csv, rank_bootstrap_tau.csv.

    Parameters
    ----------
    tasks : sequence of TaskScores
    methods : sequence of str
    ranking : pandas.DataFrame
        ranking.csv (:func:`robustness.statistics.case_rankings.rank_tasks`).
    ranking_options : RankingOptions
    n_resamples : int
        Bootstrap resamples of each leaderboard's units.
    gen : numpy.random.Generator
        The study's stream of ranks (drawn from in task and method order).

    Returns
    -------
    (tables, boots, notes)
        The three tables; ``(task, method) -> ranks (B, R)`` of every resample (a leaderboard of one unit: its
        ranks, held fixed); what was left out, one line each.
    """
    summary, freq, taus, notes = [], [], [], []
    boots = {}
    for ts in tasks:
        one_unit = int(ts.units.max()) + 1 < 2
        if one_unit:
            notes.append(f"task {ts.task}: one case, left out of the bootstrap (a resample of one case is that case:"
                         " it says nothing about a new test set; challengeR leaves it out too); no rank intervals")
        for m in methods:
            full = ranking[(ranking.task == ts.task) & (ranking.ranking == m)].set_index("run")["rank"]
            final = full.reindex(ts.runs).to_numpy(dtype=np.float64)
            if one_unit:  # the consensus's resamples hold its ranks fixed
                boots[ts.task, m] = np.tile(final, (n_resamples, 1))
                summary += [{"task": ts.task, "ranking": m, "run": run, "rank": final[r], "median_rank": final[r],
                             "low": np.nan, "high": np.nan, "resamples": 0}
                            for r, run in enumerate(ts.runs) if not np.isnan(final[r])]
                continue
            stage(f"rank bootstrap: {len(boots)}/{len(tasks) * len(methods)} leaderboards", printed=False)
            boot = bootstrap_task_ranks(ts, m, ranking_options, n_resamples=n_resamples, rng=gen)
            boots[ts.task, m] = boot
            rows, shares = _distribution(ts, m, final, boot)
            summary += rows
            freq += shares
            taus += _taus(ts.task, m, final, boot)
    tables = {
        "rank_bootstrap.csv": pd.DataFrame(summary, columns=[  # its columns when empty (one run, its rank NA)
            "task", "ranking", "run", "rank", "median_rank", "low", "high", "resamples"]),
        "rank_frequency.csv": pd.DataFrame(freq, columns=["task", "ranking", "run", "rank", "share"]),
        "rank_bootstrap_tau.csv": pd.DataFrame(taus, columns=["task", "ranking", "resample", "tau"]),
    }
    return tables, boots, notes


def _distribution(ts: TaskScores, m: str, final: np.ndarray, boot: np.ndarray) -> tuple[list, list]:
    """Each ranked run's median rank and 95% interval over the resamples, and its share at each rank."""
    summary, freq = [], []
    for r, run in enumerate(ts.runs):
        if np.isnan(final[r]):
            continue
        col = boot[:, r]
        col = col[~np.isnan(col)]
        lo, med, hi = np.quantile(col, [0.025, 0.5, 0.975]) if col.size else (np.nan,) * 3
        summary.append({"task": ts.task, "ranking": m, "run": run, "rank": final[r], "median_rank": med,
                        "low": lo, "high": hi, "resamples": int(col.size)})
        values, counts = np.unique(col, return_counts=True)
        freq += [{"task": ts.task, "ranking": m, "run": run, "rank": v, "share": c / boot.shape[0]}
                 for v, c in zip(values, counts)]
    return summary, freq


def _taus(task, m: str, final: np.ndarray, boot: np.ndarray) -> list[dict]:
    """Kendall's tau between the leaderboard and each resample's ranking (the runs ranked in every resample)."""
    keep = ~np.isnan(final) & ~np.isnan(boot).any(axis=0)
    if keep.sum() < 2:
        return []
    x = final[keep]
    return [{"task": task, "ranking": m, "resample": b,
             "tau": _kernels.kendall_tau_b(x, np.ascontiguousarray(boot[b, keep]))} for b in range(boot.shape[0])]


def case_rank_tables(tasks: Sequence[TaskScores], ranking_options: RankingOptions,
                     gen: np.random.Generator) -> dict[str, pd.DataFrame]:
    """per_case.parquet (every score) and case_ranks.csv (on how many cases each run takes each rank).

    Parameters
    ----------
    tasks : sequence of TaskScores
    ranking_options : RankingOptions
        The tie rule and the direction.
    gen : numpy.random.Generator
        The study's stream of ranks (random ties).

    Returns
    -------
    dict
    """
    per_case, case_ranks = [], []
    for ts in tasks:
        r_idx, c_idx = np.meshgrid(np.arange(len(ts.runs)), np.arange(len(ts.cases)), indexing="ij")
        per_case.append(pd.DataFrame({"task": ts.task, "case": np.array(ts.cases)[c_idx.ravel()],
                                      "algorithm": np.array(ts.runs)[r_idx.ravel()], "value": ts.values.ravel()}))
        ranks = rank(ts.values.T, ties=ranking_options.ties, lower_better=direction(ts, ranking_options),
                     rng=gen).T  # (R, N): every run's rank on every case, missing scores last
        case_ranks += [{"task": ts.task, "run": run, "rank": v, "cases": int(c)} for r, run in enumerate(ts.runs)
                       for v, c in zip(*np.unique(ranks[r], return_counts=True))]
    return {"per_case.parquet": pd.concat(per_case, ignore_index=True),
            "case_ranks.csv": pd.DataFrame(case_ranks, columns=["task", "run", "rank", "cases"])}
