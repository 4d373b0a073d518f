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
from robustness.studies.steps import Step, run_steps
from robustness.studies.table_comparisons import (
    bayes_tables,
    friedman_tables,
    podium_table,
    rliable_tables,
    significance_tables,
    task_distance_tables,
)

__all__ = ["rank_tables", "RANK_STEPS", "bootstrap_rank_tables", "case_rank_tables"]


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
    given = {"tasks": tasks, "methods": methods, "ranking_options": ranking_options, "options": options,
             # one stream, drawn from in the steps' order: rankings, bootstrap, case ranks, podium
             "gen": options.rng("ranks"), "with_consensus": with_consensus or None,
             "significance": significance or None,
             "rope": getattr(options, "rope", None),  # --rope (the per-case table command and the main job)
             "top_k": getattr(options, "top", None)}  # the per-case table command's --top
    values, tables = run_steps(RANK_STEPS, given)
    return tables, values["notes"]


def _rankings(tasks, methods, ranking_options: RankingOptions, gen: np.random.Generator) -> dict:
    """Every task's ranking under every method."""
    ranking, notes = rank_tasks(tasks, methods, ranking_options, rng=gen)
    return {"ranking": ranking, "ranking.csv": ranking, "rank_notes": notes}


def _bootstrap(tasks, methods, ranking: pd.DataFrame, ranking_options: RankingOptions, options: ResamplingOptions,
               gen: np.random.Generator) -> dict:
    """Every leaderboard's bootstrap rank distribution (:func:`bootstrap_rank_tables`)."""
    tables, boots, left_out = bootstrap_rank_tables(tasks, methods, ranking, ranking_options, options.bootstrap, gen)
    return tables | {"boots": boots, "left_out": left_out}


def _families(tasks, with_consensus) -> dict:
    """The tasks that combine into a consensus (leaderboards of one scheme), where the study wants one."""
    families = {scheme: [t for t in tasks if t.scheme == scheme] for scheme in dict.fromkeys(t.scheme for t in tasks)}
    combined = [family for family in families.values() if len(family) > 1]
    return {"combined": combined if combined and with_consensus else None}


def _consensus(ranking: pd.DataFrame, boots: dict, combined: list, methods, options: ResamplingOptions,
               ranking_options: RankingOptions) -> dict:
    """consensus.csv (with each run's interval of its consensus rank) and the distances between the tasks."""
    consensus_table = pd.concat([_consensus_with_intervals(ranking, boots, family, m, options, ranking_options)
                                 for family in combined for m in methods], ignore_index=True)
    return {"consensus.csv": consensus_table} | task_distance_tables(ranking, combined)


def _friedman(tasks, ranking_options: RankingOptions) -> dict:
    """Friedman's and Nemenyi's tests, and the critical-difference groups."""
    return friedman_tables(tasks, ranking_options)


def _significance(tasks, ranking: pd.DataFrame, ranking_options: RankingOptions) -> dict:
    """The significance map's tests (the main job has its own, over its resampling units: pairwise.parquet)."""
    tables, notes = significance_tables(tasks, ranking, ranking_options)
    return tables | {"significance_notes": notes}


def _rliable(tasks, ranking: pd.DataFrame, ranking_options: RankingOptions, options: ResamplingOptions) -> dict:
    """The interquartile mean, the probability of improvement and the performance profiles."""
    return rliable_tables(tasks, ranking, ranking_options, options.bootstrap, options.rng("rliable"))


def _bayes(tasks, ranking: pd.DataFrame, ranking_options: RankingOptions, rope: float,
           options: ResamplingOptions) -> dict:
    """The Bayesian signed-rank test with a rope (``--rope``)."""
    return bayes_tables(tasks, ranking, ranking_options, rope, options.rng("bayes"))


def _top(ranking: pd.DataFrame, top_k: int) -> dict:
    """The first ``top_k`` runs of every leaderboard (``--top``)."""
    return {"top.csv": pd.concat([top(g, top_k) for _, g in ranking.groupby(["task", "ranking"], sort=False)],
                                 ignore_index=True)}


def _podium(tasks, ranking_options: RankingOptions, gen: np.random.Generator) -> dict:
    """The podium plot's table."""
    return {"podium.parquet": podium_table(tasks, ranking_options, gen)}


def _notes(rank_notes: list, left_out: list, significance_notes: list | None) -> dict:
    """What the rankings, the bootstrap and the tests noted, in that order."""
    return {"notes": rank_notes + left_out + (significance_notes or [])}


#: The per-case tables of :func:`rank_tables`, step by step (:mod:`robustness.studies.steps`): the steps that draw
#: from the one ``gen`` stream (rankings, bootstrap, case ranks, podium) keep that order.
RANK_STEPS = (
    Step(_rankings, makes=("ranking", "rank_notes"), writes=("ranking.csv",)),
    Step(_bootstrap, makes=("boots", "left_out"),
         writes=("rank_bootstrap.csv", "rank_frequency.csv", "rank_bootstrap_tau.csv")),
    Step(case_rank_tables, writes=("per_case.parquet", "case_ranks.csv"),
         status="per-case tables: case ranks, consensus, tests, IQM, podium"),
    Step(_families, makes=("combined",)),
    Step(_consensus, writes=("consensus.csv", "task_distances.csv"), when="combined"),
    Step(_friedman, writes=("friedman.csv", "nemenyi.csv", "cd_groups.csv")),
    Step(_significance, makes=("significance_notes",), writes=("significance.csv",), when="significance"),
    Step(_rliable, writes=("iqm.csv", "improvement.csv", "performance_profile.csv")),
    Step(_bayes, writes=("bayes_signed_rank.csv",), when="rope"),
    Step(_top, writes=("top.csv",), when="top_k"),
    Step(_podium, writes=("podium.parquet",)),
    Step(_notes, makes=("notes",)),
)
