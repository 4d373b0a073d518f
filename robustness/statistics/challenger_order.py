"""challengeR's row order and refusals: the rows as ``as.challenge`` holds them, and the tables R stops on.

Used under ``semantics="challenger"`` (:mod:`robustness.statistics.ranking_options`) by
:mod:`robustness.statistics.case_rankings`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from robustness.errors import InputError, parameter
from robustness.statistics.collation import case_order, collated_order
from robustness.statistics.ranking_options import RankingOptions

__all__ = ["r_rows", "untestable_pairs", "no_rank_left", "TaskLike"]


class TaskLike(Protocol):
    """What these functions read of a :class:`robustness.statistics.case_rankings.TaskScores` (no import cycle)."""

    @property
    def task(self) -> str:
        """The leaderboard's name."""

    @property
    def runs(self) -> tuple:
        """The runs."""

    @property
    def cases(self) -> tuple:
        """The cases."""

    @property
    def rows(self) -> np.ndarray | None:
        """Each score's row in the table (-1: none)."""


def untestable_pairs(ts: TaskLike, values: np.ndarray, options: RankingOptions) -> list[str]:
    """Test-based pairs of runs that share no scored case: refused under challengeR's semantics, else notes.

    Parameters
    ----------
    ts : TaskLike
    values : ndarray (R, N)
        After the missing-score treatment.
    options : RankingOptions

    Returns
    -------
    list of str

    Raises
    ------
    InputError
        Under challengeR's semantics (R's ``wilcox.test`` stops: "not enough observations").
    """
    scored = (~np.isnan(values)).astype(np.int64)
    shared = scored @ scored.T
    notes = []
    for i, j in zip(*np.triu_indices(len(ts.runs), 1)):
        if shared[i, j] == 0 and shared[i, i] and shared[j, j]:  # a run without any score is not ranked at all
            what = f"task {ts.task}: runs {ts.runs[i]} and {ts.runs[j]} share no scored case"
            if options.semantics == "challenger":
                raise InputError(f"{what}, so they cannot be tested against each other (challengeR stops here: "
                                 f"'not enough observations'); choose another {parameter('RankingOptions', 'missing')} "
                                 "treatment")
            notes.append(f"{what}: they are not tested against each other (neither beats the other)")
    return notes


def r_rows(ts: TaskLike, collation: str = "C") -> np.ndarray | None:
    """The order challengeR holds a task's scores in: the table's rows, or sorted where it completed the task.

    ``as.challenge`` fills a task's absent (run, case) rows with ``tidyr::complete``, which sorts the whole task
    by algorithm (the factor's levels) and case; a task without absent rows keeps the table's order. Per-case ties
    ``first`` and ``last`` follow this order, and R's mean sums in it.

    Parameters
    ----------
    ts : TaskLike
    collation : {'C', 'locale'}
        How R sorts the names (:mod:`robustness.statistics.collation`).

    Returns
    -------
    ndarray of int (R, N) or None
        Each score's position (None where ``ts`` has no rows).

    Examples
    --------
    >>> import pandas as pd
    >>> from robustness.statistics.case_rankings import task_scores
    >>> table = pd.DataFrame({"case": ["c1", "c1", "c2"], "algorithm": ["b", "a", "b"], "value": [1.0, 2, 3]})
    >>> r_rows(task_scores(table)[0]).tolist()  # absent (a, c2): sorted by algorithm, then case
    [[2, 3], [0, 1]]
    """
    if ts.rows is None or not (ts.rows < 0).any():
        return ts.rows
    runs = np.empty(len(ts.runs), dtype=np.int64)
    runs[collated_order([str(r) for r in ts.runs], collation)] = np.arange(len(ts.runs))
    cases = np.empty(len(ts.cases), dtype=np.int64)
    cases[case_order([str(c) for c in ts.cases], collation)] = np.arange(len(ts.cases))
    return runs[:, None] * len(ts.cases) + cases[None, :]


def no_rank_left(ts: TaskLike, values: np.ndarray, options: RankingOptions) -> None:
    """Refuse, before any work, a rank-then-aggregate task challengeR stops on: no per-case rank left.

    Every score missing, under ties max, first or last, or dropped: R's ``aggregate``, "no rows to aggregate" (the
    method's :attr:`~robustness.statistics.ranking_methods.ChallengerForm.refuse`; a test-based pair that shares no
    scored case is :func:`untestable_pairs`').

    Parameters
    ----------
    ts : TaskLike
    values : ndarray (R, N)
        After the missing-score treatment.
    options : RankingOptions

    Raises
    ------
    InputError
        One line naming the task.
    """
    if np.isnan(values).all() and (options.missing == "drop" or options.ties in ("max", "first", "last")):
        raise InputError(f"task {ts.task}: every score is missing, so no per-case rank is left under ties "
                         f"{options.ties} and missing scores {options.missing} (challengeR stops here: 'no rows to "
                         "aggregate')")
