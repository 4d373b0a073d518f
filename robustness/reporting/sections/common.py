"""Sentences the QA and per-case table reports share, each read from a verdict row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from robustness.reporting.study_result import StudyResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["unlimited_sentence", "default_rows"]


def default_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The default ranking method's rows (and, in agreement tables, compared with the same method).

    Parameters
    ----------
    table : pandas.DataFrame
        A table with a ``ranking`` column.

    Returns
    -------
    pandas.DataFrame
    """
    if "other_ranking" in table:
        table = table[table.other_ranking == "aggregate"]
    return table[table.ranking == "aggregate"].reset_index(drop=True)


def unlimited_sentence(res: StudyResult, scheme: tuple[str, str, str], n_runs: int, unit: str) -> str:
    """One sentence: the bootstrap's expected distance to unlimited data at N, and the size for L1 <= runs.

    Parameters
    ----------
    res : StudyResult
        With the verdicts ``unlimited_distance``, ``best_stays_first`` and ``units_needed``.
    scheme : (strategy, metric, average)
    n_runs : int
    unit : str
        What a unit is.

    Returns
    -------
    str
    """
    strat, metric, average = scheme
    key = dict(strategy=strat, metric=metric, average=average)
    d = res.verdict("unlimited_distance", **key)[0]
    top = res.verdict("best_stays_first", **key)[0]
    nd = res.verdict("units_needed", **key)[0]
    size = (f"more than {nd['count']}" if nd["statement"] == "beyond" else
            f"at most {nd['value']:.0f}" if nd["statement"] == "already" else f"about {nd['value']:.0f}")
    return (f"Against unlimited data (bootstrap estimate, the observed ranking in the role of the truth): expected "
            f"L1 {d['value']:.1f} ± {1.96 * d['se']:.1f} ({d['value'] / n_runs:.2f} places per "
            f"run) at the test set's {d['count']} {unit}s; the best run stays first in {top['value']:.0%} of "
            f"resamples; an expected L1 of at most {n_runs} (one place per run) needs {size} {unit}s "
            "(ranking_uncertainty.csv).")
