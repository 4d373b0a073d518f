"""The comparisons machine-learning benchmarks report beside a leaderboard, as tables of the per-case studies.

Demšar's Friedman and Nemenyi tests (:mod:`robustness.statistics.friedman`) and rliable's interquartile mean,
probability of improvement and performance profiles (:mod:`robustness.statistics.rliable_metrics`), per
leaderboard of a per-case table or of the main job's per-case scores
(:func:`robustness.studies.table_ranks.rank_tables`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from robustness import _kernels
from robustness.statistics.bayes_signed_rank import bayes_signed_rank
from robustness.statistics.case_rankings import TaskScores, direction, treated_scores
from robustness.statistics.consensus import symdiff_distance
from robustness.statistics.friedman import friedman, tied_groups
from robustness.statistics.multiplicity import adjust
from robustness.statistics.paired import paired_p_values
from robustness.statistics.ranking_methods import get_ranking
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import rank
from robustness.statistics.rliable_metrics import bootstrap_improvement, bootstrap_iqm, bootstrap_profile

__all__ = ["bayes_tables", "friedman_tables", "podium_table", "rliable_tables", "significance_tables",
           "task_distance_tables"]


def friedman_tables(tasks: Sequence[TaskScores], options: RankingOptions) -> dict[str, pd.DataFrame]:
    """``friedman.csv``, ``nemenyi.csv`` and ``cd_groups.csv``: Friedman, Nemenyi and the diagram's bars.

    Friedman's test and Nemenyi's critical difference per leaderboard, every pair's Nemenyi test, and the
    critical-difference diagram's bars (runs whose mean ranks lie within the critical difference of each other).
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
    rows, pairs, bars = [], [], []
    for ts in tasks:
        f = friedman(ts.values, ts.runs, lower_better=direction(ts, options), alpha=options.alpha)
        if len(ts.runs) < 2 or f.n_cases < 2:
            continue
        rows.append({"task": ts.task, "runs": len(ts.runs), "cases": f.n_cases,
                     "cases_left_out": len(ts.cases) - f.n_cases, "chi2": f.statistic, "df": len(ts.runs) - 1,
                     "p": f.p, "alpha": f.alpha, "cd": f.cd})
        pairs.append(f.pairs.assign(task=ts.task))
        bars += _cd_bars(ts.task, f.pairs, f.cd)
    if not rows:
        return {}
    return {"friedman.csv": pd.DataFrame(rows),
            "nemenyi.csv": pd.concat(pairs, ignore_index=True)[["task", "run", "other", "mean_rank",
                                                                 "other_mean_rank", "difference", "p", "differ"]],
            "cd_groups.csv": pd.DataFrame(bars, columns=["task", "group", "first_run", "last_run", "runs",
                                                         "first_mean_rank", "last_mean_rank"])}


def _cd_bars(task, pairs: pd.DataFrame, cd: float) -> list[tuple]:
    """The critical-difference diagram's bars of one leaderboard: maximal runs of places within ``cd``.

    Places in the order of mean rank (ties by name), as the diagram draws them; each bar names its first and last
    run, how many runs it joins and their mean ranks.
    """
    mean = dict(zip(pairs.run, pairs.mean_rank)) | dict(zip(pairs.other, pairs.other_mean_rank))
    order = sorted(mean, key=lambda r: (mean[r], r))
    m = np.array([mean[r] for r in order], dtype=np.float64)
    return [(task, g, order[a], order[b], b - a + 1, float(m[a]), float(m[b]))
            for g, (a, b) in enumerate(tied_groups(m, cd))]


def podium_table(tasks: Sequence[TaskScores], options: RankingOptions, rng: np.random.Generator) -> pd.DataFrame:
    """``podium.parquet``: every score with its per-case rank, ties broken at random (challengeR's ``podium``).

    challengeR's podium ranks each case's runs with ``ties.method = "random"`` on the data after ``na.treat`` (a
    number replaces a missing score; otherwise a missing score is ranked after the scored runs and not drawn).

    Parameters
    ----------
    tasks : sequence of TaskScores
    options : RankingOptions
        The direction and the missing-score treatment.
    rng : numpy.random.Generator
        For the ties.

    Returns
    -------
    pandas.DataFrame
        Columns ``task, case, run, value, rank``.
    """
    frames = []
    fill = options.missing if isinstance(options.missing, float) else None
    for ts in tasks:
        shown = ts.values if fill is None else np.where(np.isnan(ts.values), fill, ts.values)  # R's na.treat
        places = rank(shown.T, ties="random", lower_better=direction(ts, options), rng=rng).T
        r_idx, c_idx = np.meshgrid(np.arange(len(ts.runs)), np.arange(len(ts.cases)), indexing="ij")
        frames.append(pd.DataFrame({"task": ts.task, "case": np.array(ts.cases)[c_idx.ravel()],
                                    "run": np.array(ts.runs)[r_idx.ravel()], "value": shown.ravel(),
                                    "rank": places.ravel()}))
    return pd.concat(frames, ignore_index=True)


def rliable_tables(tasks: Sequence[TaskScores], ranking: pd.DataFrame, options: RankingOptions, n_resamples: int,
                    rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """``iqm.csv``, ``improvement.csv`` and ``performance_profile.csv`` (:mod:`robustness.statistics.rliable_metrics`).

    Per leaderboard: every run's interquartile mean over its scored cases with a 95% bootstrap interval; the
    probability that each run beats the next one down its leaderboard (the first ranking method's order) on a case;
    every run's share of cases better than each of 41 thresholds spanning the scores, with a 95% bootstrap band
    (rliable's performance profile). Where resampling units group the cases (``--unit``, the main job's
    encounters), the intervals resample whole units.

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
    band_rng = rng.spawn(1)[0]  # the profiles' bands: a stream of their own (the other tables' draws unchanged)
    first = ranking.ranking.iloc[0] if len(ranking) else None
    for ts in tasks:
        lower = direction(ts, options)
        scored = [r for r in range(len(ts.runs)) if (~np.isnan(ts.values[r])).sum() >= 2]
        if not scored:
            continue
        grouped = (int(ts.units.max()) + 1 if ts.units.size else 0) < len(ts.cases)

        def units(r: int, ts: TaskScores = ts, grouped: bool = grouped) -> np.ndarray | None:
            """The units of run ``r``'s scored cases where units group the cases (whole units resampled)."""
            return ts.units[~np.isnan(ts.values[r])] if grouped else None

        for r in scored:
            x = ts.values[r][~np.isnan(ts.values[r])]
            value, low, high = bootstrap_iqm(x[None, :], n_resamples, rng, units=units(r))
            iqms.append({"task": ts.task, "run": ts.runs[r], "iqm": float(value[0]), "low": float(low[0]),
                         "high": float(high[0]), "cases": int(x.size), "lower_better": lower})
        order = ranking[(ranking.task == ts.task) & (ranking.ranking == first)].sort_values(["rank", "run"],
                                                                                           kind="stable").run
        index = {run: k for k, run in enumerate(ts.runs)}
        placed = [index[run] for run in order if index[run] in scored]
        sign = -1.0 if lower else 1.0
        for a, b in zip(placed[:-1], placed[1:]):
            x, y = (sign * ts.values[k][~np.isnan(ts.values[k])] for k in (a, b))
            p, p_low, p_high = bootstrap_improvement(x, y, n_resamples, rng, units_x=units(a), units_y=units(b))
            improvement.append({"task": ts.task, "run": ts.runs[a], "other": ts.runs[b], "p": p, "low": p_low,
                                "high": p_high})
        finite = ts.values[np.isfinite(ts.values)]
        taus = np.linspace(finite.min(), finite.max(), 41)
        for r in scored:
            x = ts.values[r][~np.isnan(ts.values[r])]
            sign = -1.0 if lower else 1.0  # smaller is better: the share below each threshold
            share, low, high = bootstrap_profile(sign * x[None, :], sign * taus, n_resamples, band_rng,
                                                 units=units(r))
            profiles += [{"task": ts.task, "run": ts.runs[r], "tau": t, "share": s, "low": lo, "high": hi}
                         for t, s, lo, hi in zip(taus, share[0], low[0], high[0])]
    if not iqms:
        return {}
    return {"iqm.csv": pd.DataFrame(iqms),
            "improvement.csv": pd.DataFrame(improvement, columns=["task", "run", "other", "p", "low", "high"]),
            "performance_profile.csv": pd.DataFrame(profiles)}


def _unit_means(ts: TaskScores, values: np.ndarray) -> tuple[np.ndarray, bool]:
    """Each run's mean over each resampling unit's cases it has (nan: none), where units group cases; else as is."""
    n_units = int(ts.units.max()) + 1 if ts.units.size else 0
    if n_units >= len(ts.cases):
        return values, False
    has = ~np.isnan(values)
    sums, counts = np.zeros((len(ts.runs), n_units)), np.zeros((len(ts.runs), n_units))
    for r in range(len(ts.runs)):
        np.add.at(sums[r], ts.units[has[r]], values[r, has[r]])
        np.add.at(counts[r], ts.units[has[r]], 1.0)
    return np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan), True


def significance_tables(tasks: Sequence[TaskScores], ranking: pd.DataFrame, options: RankingOptions
                        ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """``significance.csv``: challengeR's significance map per leaderboard, as a table.

    For every ordered pair of runs, the one-sided paired test "the run is better than the other" of the test-based
    ranking (``options.test``, ``continuity``), on the cases both runs have after the test-based ranking's
    missing-score treatment; the ``R (R - 1)`` p-values of a leaderboard adjusted together (``options.adjustment``);
    significant where the adjusted p-value is at most ``options.alpha`` (the test-based ranking's rule: a run's
    test-based value is its row's count of significant cells). ``rank`` and ``other_rank`` are the first ranking
    method's (``ranking``), which orders the map; ``test``, ``adjustment`` and ``alpha`` name the test. Under
    ``rank-last``, which a paired test cannot apply, each pair is tested on the cases both runs have (a note says
    so). Where cases are grouped into resampling units (``--unit``), the pairs are tested on the units: each run's
    mean over the unit's cases it has (cases of one unit are not independent; ``cases`` then counts units and
    ``tested_on`` says so), as the resampling engines' test-based ranking does.

    Parameters
    ----------
    tasks : sequence of TaskScores
    ranking : pandas.DataFrame
        ``ranking.csv``'s rows.
    options : RankingOptions

    Returns
    -------
    (dict, list of str)
        File name -> table (empty without a leaderboard of two runs), and the notes.
    """
    rows, notes = [], []
    first = ranking.ranking.iloc[0] if len(ranking) else None
    how = options if options.missing != "rank-last" else replace(options, missing="drop")
    for ts in tasks:
        if len(ts.runs) < 2:
            continue
        lower = direction(ts, options)
        values, _ = treated_scores(ts, ts.values, get_ranking("test-based"), how, lower)
        if how is not options and np.isnan(ts.values).any():
            note = ("significance map: missing scores left out of each pair's test (rank-last has no meaning in a "
                    "paired test)")
            notes += [note] if note not in notes else []
        values, grouped = _unit_means(ts, values)
        p = paired_p_values(values, test=options.test, continuity=options.continuity, lower_better=lower)
        p_adj = adjust(p, options.adjustment, alpha=options.alpha)
        has = ~np.isnan(values)
        shared = has.astype(np.int64) @ has.T.astype(np.int64)
        placed = ranking[(ranking.task == ts.task) & (ranking.ranking == first)].set_index("run")["rank"]
        ii, jj = np.where(~np.eye(len(ts.runs), dtype=bool))
        runs = np.asarray(ts.runs, dtype=object)
        rows.append(pd.DataFrame({"task": ts.task, "run": runs[ii], "other": runs[jj], "p": p[ii, jj],
                                  "p_adjusted": p_adj[ii, jj], "significant": p_adj[ii, jj] <= options.alpha,
                                  "cases": shared[ii, jj], "tested_on": "unit means" if grouped else "cases",
                                  "test": options.test, "adjustment": options.adjustment,
                                  "alpha": options.alpha, "ranking": first,
                                  "rank": placed.reindex(runs[ii]).to_numpy(dtype=np.float64),
                                  "other_rank": placed.reindex(runs[jj]).to_numpy(dtype=np.float64)}))
    return ({"significance.csv": pd.concat(rows, ignore_index=True)} if rows else {}), notes


def task_distance_tables(ranking: pd.DataFrame, families: Sequence[Sequence[TaskScores]]) -> dict[str, pd.DataFrame]:
    """``task_distances.csv``: how far apart the tasks' rankings are, per consensus family and ranking method.

    For every pair of tasks of a family (the leaderboards of one strategy and metric a consensus combines): the
    symmetric-difference distance between their rankings (:func:`robustness.statistics.consensus.symdiff_distance`,
    challengeR's ``dendrogram(dist = "symdiff")``; a run absent from a task placed after its last, as the consensus
    places it) and Kendall's tau-b between them; ``pairs`` is the largest possible distance, R (R - 1).

    Parameters
    ----------
    ranking : pandas.DataFrame
        ``ranking.csv``'s rows.
    families : sequence of sequences of TaskScores
        The tasks of each consensus (two or more each).

    Returns
    -------
    dict
        File name -> table (empty without a family).
    """
    rows = []
    for family in families:
        names = [t.task for t in family]
        for method in dict.fromkeys(ranking.ranking):
            wide = ranking[(ranking.ranking == method) & ranking.task.isin(names)].pivot(
                index="run", columns="task", values="rank").reindex(columns=names)
            last = np.nan_to_num(wide.max(axis=0).to_numpy(dtype=np.float64), nan=0.0)
            x = np.where(wide.isna(), last[None, :] + 1.0, wide.to_numpy(dtype=np.float64))
            n = x.shape[0]
            for a in range(len(names)):
                for b in range(a + 1, len(names)):
                    rows.append({"scheme": family[0].scheme, "ranking": method, "task": names[a],
                                 "other": names[b], "symdiff": symdiff_distance(x[:, a], x[:, b]),
                                 "pairs": n * (n - 1),
                                 "tau": float(_kernels.kendall_tau_b(np.ascontiguousarray(x[:, a]),
                                                                     np.ascontiguousarray(x[:, b])))})
    return {"task_distances.csv": pd.DataFrame(rows)} if rows else {}


def bayes_tables(tasks: Sequence[TaskScores], ranking: pd.DataFrame, options: RankingOptions, rope: float,
                 rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """``bayes_signed_rank.csv``: the Bayesian signed-rank test between neighbours down each leaderboard.

    Each run against the next one down the first ranking method's leaderboard, on the cases both have
    (:func:`robustness.statistics.bayes_signed_rank.bayes_signed_rank`, 50,000 posterior samples, prior 0.5):
    the probabilities that the run is better by more than ``rope``, within it, or worse, and the decision (a
    probability of at least 0.95) or ``undecided``. Where resampling units group the cases, on each run's mean
    per unit (``tested_on``), as the significance map.

    Parameters
    ----------
    tasks : sequence of TaskScores
    ranking : pandas.DataFrame
        ``ranking.csv``'s rows (the leaderboards' order).
    options : RankingOptions
        The direction.
    rope : float
        Half-width of the region of practical equivalence, in the scores' units.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        File name -> table (empty without a leaderboard of two runs).
    """
    rows = []
    first = ranking.ranking.iloc[0] if len(ranking) else None
    for ts in tasks:
        sign = -1.0 if direction(ts, options) else 1.0
        values, grouped = _unit_means(ts, ts.values)
        order = ranking[(ranking.task == ts.task) & (ranking.ranking == first)].sort_values(
            ["rank", "run"], kind="stable").run
        index = {run: k for k, run in enumerate(ts.runs)}
        placed = [index[run] for run in order]
        for a, b in zip(placed[:-1], placed[1:]):
            x, y = sign * values[a], sign * values[b]
            if not (~np.isnan(x) & ~np.isnan(y)).any():
                continue
            r = bayes_signed_rank(x, y, rope, rng=rng)
            rows.append({"task": ts.task, "run": ts.runs[a], "other": ts.runs[b], "rope": rope,
                         "p_better": r.p_better, "p_rope": r.p_rope, "p_worse": r.p_worse,
                         "decision": r.decision, "cases": r.cases,
                         "tested_on": "unit means" if grouped else "cases", "samples": r.samples})
    return {"bayes_signed_rank.csv": pd.DataFrame(rows)} if rows else {}
