"""The rank tables of a per-case study: every leaderboard's ranking, bootstrap rank distribution and case ranks.

:func:`rank_tables` computes them, and the comparisons of :mod:`robustness.studies.table_comparisons`, on one
random stream (the order of the draws is the table study's, so the numbers are those of one pass).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from robustness import _kernels
from robustness.progress import stage
from robustness.statistics.case_rankings import TaskScores, bootstrap_task_ranks, direction, rank_tasks, top
from robustness.statistics.consensus import HIGHER_BETTER, consensus, consensus_values
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import rank
from robustness.studies.common import ResamplingOptions
from robustness.studies.table_comparisons import (
    bayes_tables,
    friedman_tables,
    podium_table,
    rliable_tables,
    significance_tables,
    task_distance_tables,
)

__all__ = ["rank_tables", "bootstrap_rank_tables", "case_rank_tables"]


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


def _consensus_with_intervals(ranking, boots, tasks, method, options, ranking_options):
    """The consensus of one method with each run's 95% interval of its consensus rank over the resamples.

    ``tasks``: the leaderboards of one scheme. The tasks' cases are resampled independently; resample ``b`` of
    every task is combined into one consensus. ``--task-weights`` names the tasks by their task column's value.
    """
    given = dict(options.task_weights)
    weights = {t.task: given[_task_part(t)] for t in tasks if _task_part(t) in given} or None
    ranking = ranking[ranking.task.isin([t.task for t in tasks])]
    ties = ranking_options.ties if ranking_options.ties != "random" else "min"
    frame = consensus(ranking[ranking.ranking == method], method=options.consensus, weights=weights, ties=ties)
    runs = list(frame.run)
    w = np.array([float((weights or {}).get(t.task, 1.0)) for t in tasks])
    per_task = []
    for t in tasks:
        b = boots[t.task, method]  # (B, R_t), nan: not ranked in that resample
        full = np.full((b.shape[0], len(runs)), np.nan)
        idx = [runs.index(r) for r in t.runs if r in runs]
        full[:, idx] = b[:, [k for k, r in enumerate(t.runs) if r in runs]]
        per_task.append(full)
    stat = consensus_values(np.stack(per_task, axis=2), w, options.consensus)  # ranks (B, R, T)
    ranks = rank(stat, ties=ties, lower_better=options.consensus not in HIGHER_BETTER)
    lo, med, hi = np.quantile(ranks, [0.025, 0.5, 0.975], axis=0)
    return frame.assign(median_rank=med, low=lo, high=hi, resamples=ranks.shape[0], scheme=tasks[0].scheme)


def _task_part(t: TaskScores) -> str:
    """The value of the task column in a leaderboard's name (its first part: ``task / strategy / metric``)."""
    return t.task if not t.scheme else t.task[: -len(t.scheme) - 3]


def rank_tables(tasks: Sequence[TaskScores], methods: Sequence[str], ranking_options: RankingOptions,
                options: ResamplingOptions, *, n_jobs: int = 1, with_consensus: bool = True,
                significance: bool = True) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Every task's ranking under every method, the consensus, and bootstrap rank distributions (module notes).

    Parameters
    ----------
    tasks : sequence of TaskScores
    methods : sequence of str
    ranking_options : RankingOptions
    options : ResamplingOptions
        ``bootstrap`` resamples and ``seed``; a table study's ``consensus`` and ``task_weights``, ``rope`` and ``top``.
    n_jobs : int
        Unused (the rankings of a per-case table take seconds); kept for the studies' common signature.
    with_consensus : bool
        Combine several tasks into ``consensus.csv`` (not for leaderboards of one task under several metrics).
    significance : bool
        The significance map's tests (``significance.csv``).

    Returns
    -------
    (tables, notes)
    """
    gen = options.rng("ranks")  # one stream, drawn from in this order: rankings, bootstrap, case ranks, podium
    ranking, notes = rank_tasks(tasks, methods, ranking_options, rng=gen)
    tables = {"ranking.csv": ranking}
    bootstrap, boots, left_out = bootstrap_rank_tables(tasks, methods, ranking, ranking_options, options.bootstrap,
                                                       gen)
    notes += left_out
    stage("per-case tables: case ranks, consensus, tests, IQM, podium", printed=False)
    cases = case_rank_tables(tasks, ranking_options, gen)
    families = {scheme: [t for t in tasks if t.scheme == scheme] for scheme in dict.fromkeys(t.scheme for t in tasks)}
    combined = [family for family in families.values() if len(family) > 1]
    if combined and with_consensus:
        tables["consensus.csv"] = pd.concat([_consensus_with_intervals(ranking, boots, family, m, options,
                                                                       ranking_options)
                                             for family in combined for m in methods], ignore_index=True)
        tables.update(task_distance_tables(ranking, combined))
    tables.update(friedman_tables(tasks, ranking_options))
    if significance:  # the main job has its own, over its resampling units (pairwise.parquet)
        extra, significance_notes = significance_tables(tasks, ranking, ranking_options)
        tables.update(extra)
        notes += significance_notes
    tables.update(rliable_tables(tasks, ranking, ranking_options, options.bootstrap, options.rng("rliable")))
    rope = getattr(options, "rope", None)  # --rope (the per-case table command and the main job)
    if rope is not None:
        tables.update(bayes_tables(tasks, ranking, ranking_options, rope, options.rng("bayes")))
    k = getattr(options, "top", None)  # the per-case table command's --top
    if k is not None:
        tables["top.csv"] = pd.concat([top(g, k) for _, g in ranking.groupby(["task", "ranking"], sort=False)],
                                      ignore_index=True)
    tables.update(cases)
    tables["podium.parquet"] = podium_table(tasks, ranking_options, gen)
    tables.update(bootstrap)
    return tables, notes
