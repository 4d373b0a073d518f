"""A consensus ranking across tasks: the runs ordered by their (weighted) mean or median rank over the tasks.

``mean-rank`` averages each task's ranks as the task ranked them (under its tie rule); ``euclidean`` is
challengeR's ``consensus(method = "euclidean")``: each task's ranks are first re-ranked with average ties (R's
``relation_scores``), then averaged. The two differ wherever a task has ties under another rule than average:
T1 = {A 0.9, B 0.9, C 0.1}, T2 = {C 0.9, A 0.5, B 0.1} under min ties give mean ranks A 1.5, B 2, C 2 (B and C
tied), and challengeR's A 1.75, C 2, B 2.25.

``borda`` orders the runs by their mean Borda count over the tasks: in each task, the number of runs ranked below
the run plus half the runs tied with it (de Borda 1781; relations' ``"Borda"``). Without absent runs and with equal
weights it orders the runs as ``euclidean`` does (a run's Borda count is the number of runs minus its average
rank), so the two differ only where a run is absent from a task or the weights differ. ``copeland`` compares every
pair of runs by majority over the tasks (weighted): a run scores +1 for each run it is ranked above in more of the
tasks' weight than below, -1 for each the reverse, 0 for a tie (Copeland 1951; relations' ``"Copeland"``). Borda
and Copeland values are higher-better; the others lower-better (:data:`HIGHER_BETTER`).

The consensus of :func:`robustness.statistics.case_rankings.rank_tasks`' leaderboards (``consensus.csv``) and
of their bootstrap resamples (:func:`consensus_values`: every resample's ranks at once).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from robustness.statistics.ranking_options import CONSENSUS
from robustness.statistics.ranks import rank

__all__ = ["consensus", "consensus_values", "symdiff_distance", "CONSENSUS_WEIGHTED", "CONSENSUS", "HIGHER_BETTER"]

#: The consensus methods whose value is better when higher (the rank follows it).
HIGHER_BETTER = frozenset({"borda", "copeland"})


def consensus(ranking: pd.DataFrame, *, method: str = "mean-rank", weights: Mapping[str, float] | None = None,
              ties: str = "min") -> pd.DataFrame:
    """A consensus ranking across tasks: runs ordered by their (weighted) mean or median rank over the tasks.

    ``mean-rank`` is the BraTS ranking across regions; ``euclidean`` is challengeR's ``consensus(method =
    "euclidean")`` (module notes). A run absent from a task gets that task's number of ranked runs plus one there
    (listed in the ``absent`` column).

    Parameters
    ----------
    ranking : pandas.DataFrame
        :func:`~robustness.statistics.case_rankings.rank_tasks`' frame for one ranking method.
    method : {'mean-rank', 'median-rank', 'euclidean', 'borda', 'copeland'}
    weights : mapping, optional
        Task -> weight (default 1 each; with ``median-rank``, a weighted median).
    ties : str
        The tie rule of the consensus ranks.

    Returns
    -------
    pandas.DataFrame
        Columns ``ranking, consensus, run, value, rank, absent`` (``value``: the mean or median rank, the mean
        Borda count or the Copeland score), best first.
    """
    if method not in CONSENSUS:
        raise ValueError(f"consensus must be one of {', '.join(CONSENSUS)}, got {method!r}")
    wide = ranking.pivot(index="run", columns="task", values="rank")
    tasks = list(dict.fromkeys(ranking["task"]))
    wide = wide.reindex(columns=tasks)
    absent = wide.isna()
    w = np.array([float((weights or {}).get(t, 1.0)) for t in tasks])
    if weights:
        unknown = set(weights) - set(tasks)
        if unknown:
            raise ValueError(f"weights name unknown task(s): {', '.join(sorted(map(str, unknown)))}")
    if (w < 0).any() or w.sum() <= 0:
        raise ValueError("task weights must be >= 0 with a positive sum")
    stat = consensus_values(wide.to_numpy(dtype=np.float64), w, method)
    out = pd.DataFrame({"ranking": ranking["ranking"].iloc[0] if len(ranking) else "", "consensus": method,
                        "run": wide.index, "value": stat,
                        "rank": rank(stat, ties=ties, lower_better=method not in HIGHER_BETTER),
                        "absent": [", ".join(np.array(tasks)[a]) for a in absent.to_numpy()]})
    return out.sort_values(["rank", "run"], kind="stable").reset_index(drop=True)


def _mean_rank(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x @ w / w.sum()


def _median_rank(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1, x.shape[-1])
    return np.array([_weighted_median(row, w) for row in flat]).reshape(x.shape[:-1])


def _borda(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    below = x[..., None, :, :] > x[..., :, None, :]  # [..., i, j, t]: run j ranked below run i in task t
    tied = x[..., None, :, :] == x[..., :, None, :]
    count = below.sum(axis=-2) + 0.5 * (tied.sum(axis=-2) - 1)  # (..., R, T): the run itself is tied with itself
    return count @ w / w.sum()


def _copeland(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    above = (x[..., :, None, :] < x[..., None, :, :]).astype(np.float64) @ w  # [..., i, j]: weight of i above j
    return np.sign(above - np.swapaxes(above, -1, -2)).sum(axis=-1)


#: The consensus statistics: ranks (..., R, T) of the runs in the tasks and task weights (T,) -> (..., R).
CONSENSUS_WEIGHTED = {"mean-rank": _mean_rank, "median-rank": _median_rank, "euclidean": _mean_rank,
                      "borda": _borda, "copeland": _copeland}


def consensus_values(ranks: np.ndarray, weights: np.ndarray, method: str = "mean-rank") -> np.ndarray:
    """Every run's consensus statistic from its ranks in the tasks.

    A run absent from a task (nan) counts there as one place below that task's last.

    Parameters
    ----------
    ranks : ndarray (..., R, T)
        Ranks of R runs in T tasks (leading axes: resamples); nan where a run is not ranked.
    weights : ndarray (T,)
    method : {'mean-rank', 'median-rank', 'euclidean', 'borda', 'copeland'}

    Returns
    -------
    ndarray (..., R)
    """
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        last = np.nanmax(ranks, axis=-2, keepdims=True)  # a task where no run is ranked: 0
    filled = np.where(np.isnan(ranks), np.nan_to_num(last, nan=0.0) + 1.0, ranks)
    if method == "euclidean":  # each task's ranks re-ranked with average ties, as challengeR's relation_scores
        filled = np.swapaxes(rank(np.swapaxes(filled, -1, -2), ties="average", tol=0.0, lower_better=True), -1, -2)
    return CONSENSUS_WEIGHTED[method](filled, weights)


def _weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The lower weighted median, averaged with the next value where the weight splits exactly in half."""
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    keep = w > 0
    x, w = x[keep], w[keep]
    cum = np.cumsum(w) / w.sum()
    k = int(np.searchsorted(cum, 0.5))
    if np.isclose(cum[k], 0.5) and k + 1 < x.size:
        return float((x[k] + x[k + 1]) / 2)
    return float(x[k])


def symdiff_distance(a: np.ndarray, b: np.ndarray) -> int:
    """The symmetric-difference distance between two rankings of the same runs (relations' ``"symdiff"``).

    A ranking is the relation "run i is ranked at least as well as run j" (rank ``<=``, 1 = best); the distance is
    the number of ordered pairs of runs in one relation and not the other. Two strict orders differing by one
    swap are 2 apart; a tie against a strict order of the same two runs, 1. challengeR clusters tasks with it
    (``dendrogram(dist = "symdiff")``). Runs not ranked (nan) must be filled first (as :func:`consensus_values`
    places them: after the last).

    Parameters
    ----------
    a, b : ndarray (R,)
        Ranks of the same runs.

    Returns
    -------
    int

    Examples
    --------
    >>> symdiff_distance(np.array([1.0, 2.0, 3.0]), np.array([2.0, 1.0, 3.0]))
    2
    >>> symdiff_distance(np.array([1.0, 1.0]), np.array([1.0, 2.0]))
    1
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("symdiff_distance needs every run ranked in both (fill absent runs first)")
    return int(((a[:, None] <= a[None, :]) != (b[:, None] <= b[None, :])).sum())
