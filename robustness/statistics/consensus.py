"""A consensus ranking across tasks: the runs ordered by their (weighted) mean or median rank over the tasks.

``mean-rank`` averages each task's ranks as the task ranked them (under its tie rule); ``euclidean`` is
challengeR's ``consensus(method = "euclidean")``: each task's ranks are first re-ranked with average ties (R's
``relation_scores``), then averaged. The two differ wherever a task has ties under another rule than average:
T1 = {A 0.9, B 0.9, C 0.1}, T2 = {C 0.9, A 0.5, B 0.1} under min ties give mean ranks A 1.5, B 2, C 2 (B and C
tied), and challengeR's A 1.75, C 2, B 2.25.

``borda`` and ``copeland`` are relations' (R package relations 0.6-18, ``relation_consensus(method = "Borda")``
and ``"Copeland"``, which challengeR's ``consensus(method = ...)`` calls): each task's ranking is the relation
"i is ranked at least as well as j" (``as.relation`` of the ranks: incidence ``rank_i <= rank_j``) and a run's
score is a weighted sum over the tasks (``relation_scores``): ``borda``, the runs ranked at or above it, itself and
every run tied with it included (its rank under ``max`` ties); ``copeland``, the runs ranked above it minus those
ranked below (tied runs count on neither side). Lower is better for both, and relations ranks the runs by them
with average ties. T1 = {A 0.9, B 0.9, C 0.1}, T2 = {C 0.9, A 0.5, B 0.1} under min ties: Borda A 4, B 5, C 4 (A
and C tied, then B); T1 = T2 = A > B > C, T3 = B > C > A: Copeland A -2, B -2, C 4 (A and B tied, then C).
A task's Copeland score is twice the run's average-ties rank minus the number of runs plus one, so without absent
runs and with equal weights ``copeland`` orders the runs as ``euclidean``.

``pairwise-majority`` is the Copeland method of social choice (Copeland 1951), which this package called
``copeland`` before it followed relations: every pair of runs is compared by majority over the tasks (weighted), a
run scores +1 for each run it is ranked above in more of the tasks' weight than below, -1 for each the reverse, 0
for a tie; higher is better (:data:`HIGHER_BETTER`). It can tie runs a mean rank separates (three tasks in a cycle
tie every run) and separate runs it ties (T1 = T2 = A > B > C, T3 = B > C > A: A beats B 2 to 1, so A, B, C).

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
HIGHER_BETTER = frozenset({"pairwise-majority"})


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
    method : {'mean-rank', 'median-rank', 'euclidean', 'borda', 'copeland', 'pairwise-majority'}
    weights : mapping, optional
        Task -> weight (default 1 each; with ``median-rank``, a weighted median).
    ties : str
        The tie rule of the consensus ranks.

    Returns
    -------
    pandas.DataFrame
        Columns ``ranking, consensus, run, value, rank, absent`` (``value``: the mean or median rank, relations'
        Borda or Copeland score, or the pairwise-majority score), best first.
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
    with np.errstate(over="ignore"):
        total = w.sum()
    if (w < 0).any() or total <= 0:
        raise ValueError("task weights must be >= 0 with a positive sum")
    if not np.isfinite(total):
        raise ValueError(f"weights must be finite with a finite sum (they are relative), got {w.max():g}")
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
    at_or_above = x[..., :, None, :] <= x[..., None, :, :]  # [..., i, j, t]: run i ranked at least as well as j
    return at_or_above.sum(axis=-3) @ w  # relations: colSums of each task's incidence, weighted, summed


def _copeland(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    # relations: colSums - rowSums of each task's incidence: runs above minus runs below, weighted, summed
    return np.sign(x[..., None, :, :] - x[..., :, None, :]).sum(axis=-3) @ w


def _pairwise_majority(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    above = (x[..., :, None, :] < x[..., None, :, :]).astype(np.float64) @ w  # [..., i, j]: weight of i above j
    return np.sign(above - np.swapaxes(above, -1, -2)).sum(axis=-1)


#: The consensus statistics: ranks (..., R, T) of the runs in the tasks and task weights (T,) -> (..., R).
CONSENSUS_WEIGHTED = {"mean-rank": _mean_rank, "median-rank": _median_rank, "euclidean": _mean_rank,
                      "borda": _borda, "copeland": _copeland, "pairwise-majority": _pairwise_majority}


def consensus_values(ranks: np.ndarray, weights: np.ndarray, method: str = "mean-rank") -> np.ndarray:
    """Every run's consensus statistic from its ranks in the tasks.

    A run absent from a task (nan) counts there as one place below that task's last.

    Parameters
    ----------
    ranks : ndarray (..., R, T)
        Ranks of R runs in T tasks (leading axes: resamples); nan where a run is not ranked.
    weights : ndarray (T,)
    method : {'mean-rank', 'median-rank', 'euclidean', 'borda', 'copeland', 'pairwise-majority'}

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
