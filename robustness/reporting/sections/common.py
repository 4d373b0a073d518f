"""Sentences the QA and per-case table reports share, each read from a verdict row."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

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


def needed_text(nd: dict, unit: str) -> str:
    """The size a ``units_needed`` verdict claims, in words.

    Parameters
    ----------
    nd : dict
        A ``units_needed`` verdict.
    unit : str
        What a unit is.

    Returns
    -------
    str
    """
    level = f"{nd['level']:.0%}"
    if nd["statement"] == "beyond":
        point = f" (the estimate reaches it at about {nd['value']:.0f})" if np.isfinite(nd["value"]) else ""
        return f"more than {nd['count']} {unit}s, the largest size tried, to reach it with {level} confidence{point}"
    if nd["statement"] == "already":
        return f"at most {nd['high']:.0f} {unit}s (already at the smallest size tried)"
    return (f"about {nd['value']:.0f} {unit}s, and at least {nd['high']:.0f} to reach it with {level} confidence "
            "(one-sided)")


def unlimited_sentence(res: StudyResult, scheme: tuple[str, str, str], n_runs: int, unit: str) -> str:
    """One sentence: the expected distance to unlimited data at N with its interval, and the size for L1 <= runs.

    Parameters
    ----------
    res : StudyResult
        With the verdicts ``unlimited_distance``, ``best_is_best`` and ``units_needed``.
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
    best = res.verdict("best_is_best", **key)
    nd = res.verdict("units_needed", **key)[0]
    who = (f"; the observed best is the population's best with posterior probability {best[0]['value']:.2f}"
           if best else "")
    return (f"Against unlimited data (empirical-Bayes estimate, interval over resampled test sets): expected "
            f"L1 {d['value']:.1f} ({d['level']:.0%} interval {d['low']:.1f} to {d['high']:.1f}; "
            f"{d['value'] / n_runs:.2f} places per run; {random_baseline(n_runs, d['value'])}) at the test set's "
            f"{d['count']} {unit}s{who}; an expected "
            f"L1 of at most {n_runs} (one place per run) needs {needed_text(nd, unit)} (ranking_uncertainty.csv, "
            "test_set_size.csv).")


def random_baseline(n_runs: int, distance: float | None = None) -> str:
    """The random ranking's expected L1 in prose, and ``distance`` as a share of it.

    Parameters
    ----------
    n_runs : int
    distance : float, optional

    Returns
    -------
    str
        E.g. ``a random order of the 6 runs lies 11.7 away: 25% of that``.
    """
    from robustness.statistics.ranks import random_l1

    base = random_l1(n_runs)
    share = f": {distance / base:.0%} of that" if distance is not None and base > 0 else ""
    return f"a random order of the {n_runs} runs lies {base:.1f} away{share}"
