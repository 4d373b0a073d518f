"""Schemes and per-case tables, both ways: a challenge's per-case scores as a table, any pipeline's table as Schemes.

- :func:`per_case_table`, :func:`per_case_frames`: every macro scheme's per-case scores in challengeR's long
  format (``case, algorithm, value``);
- :func:`schemes_from_table`: :class:`~robustness.statistics.schemes.Schemes` from a per-case table of any
  pipeline (the per-case table study);
- :func:`rank_then_aggregate`: the per-case scores of macro schemes turned into per-case ranks, which add up
  the same way (:mod:`robustness.statistics.ranking_methods`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robustness.errors import InputError
from robustness.overlap.metrics import EmptyPolicy, empty_policy
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.ranks import rank
from robustness.statistics.schemes import SchemeBuilder, Schemes, unit_codes

if TYPE_CHECKING:

    from robustness.overlap.counts import OverlapCounts

__all__ = ["per_case_frames", "per_case_table", "schemes_from_table", "rank_then_aggregate"]


def per_case_frames(schemes: Schemes, overlap: OverlapCounts) -> Iterator[pd.DataFrame]:
    """The per-image scores of every macro scheme as challengeR-style long frames, one scheme at a time.

    Parameters
    ----------
    schemes : Schemes
        Built from ``overlap``.
    overlap : OverlapCounts
        For the image and encounter ids.

    Yields
    ------
    pandas.DataFrame
        ``case, algorithm, value, strategy, metric, encounter``.
    """
    n_img = overlap.n_images
    cases = np.tile(np.asarray(overlap.images, dtype=object), len(schemes.runs))
    algorithms = np.repeat(np.asarray(schemes.runs, dtype=object), n_img)
    encounters = np.tile(np.asarray(overlap.encounters, dtype=object), len(schemes.runs))
    signs = schemes.sign_of
    per_case = schemes.per_case
    assert per_case is not None  # schemes from counts hold every macro scheme's per-image scores
    for k, (strat, metric, average) in enumerate(schemes.names):
        if average == "macro":  # a metric stored negated is given with its own sign
            values = per_case[k].reshape(-1) * signs[k] if signs[k] < 0 else per_case[k].reshape(-1)
            yield pd.DataFrame({"case": cases, "algorithm": algorithms, "value": values,
                                "strategy": strat, "metric": metric, "encounter": encounters})


def per_case_table(overlap: OverlapCounts, *, empty: str | EmptyPolicy = "one",
                   metrics: list | None = None) -> pd.DataFrame:
    """Per-image scores as a challengeR-style long table (:func:`per_case_frames` of every macro scheme).

    Parameters
    ----------
    overlap : OverlapCounts
    empty : str or EmptyPolicy
    metrics : list of str, optional

    Returns
    -------
    pandas.DataFrame
        ``case, algorithm, value, strategy, metric, encounter``; one row per image, run, strategy (plus
        the mean and the max over annotators, as strategies) and metric.
    """
    s = schemes_from_counts(overlap, empty=empty, metrics=metrics, averages=("macro",))
    return pd.concat(list(per_case_frames(s, overlap)), ignore_index=True)


def _checked_columns(table: pd.DataFrame, case: str, run: str, value: str, by: tuple) -> list[str]:
    """The ``by`` columns present, after refusing a missing column or a case scored twice by one run."""
    for c in (case, run, value):
        if c not in table:
            raise InputError(f"per-case table has no column {c!r} (columns: {', '.join(map(str, table.columns))})")
    columns = [b for b in by if b in table]
    keys = [case, run, *columns]
    repeated = table.duplicated(keys, keep=False)
    if repeated.any():
        r = table[repeated].iloc[0]
        other = [c for c in ("task", "strategy", "metric") if c in table and c not in columns]
        hint = f": is {other[0]!r} a column that names schemes? pass it in by" if other else ""
        n_rows = int(((table[keys] == r[keys]).all(axis=1)).sum())
        raise InputError(f"per-case table: algorithm {r[run]!r}, case {r[case]!r} has {n_rows} rows"
                         f"{' for one ' + '/'.join(columns) if columns else ''}{hint}")
    return columns


def schemes_from_table(table: pd.DataFrame, *, case_column: str = "case", run_column: str = "algorithm",
                       value_column: str = "value", by: tuple = ("strategy", "metric"), unit_column: str | None = None,
                       unit_name: str | None = None) -> Schemes:
    """Build macro :class:`Schemes` from a long per-case table (e.g. challengeR's input).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per case and run (and ``by`` columns) with a score (higher is better), in challengeR's long
        format. Every run must have a value for every case.
    case_column, run_column, value_column : str
        The columns holding the case, the run (challengeR's ``algorithm``) and the score.
    by : tuple of str
        Columns that name a scheme (missing columns are ignored). A ``task`` column among them names the scheme's
        strategy (``task`` or ``task/strategy``); tasks must then share their cases (otherwise rank them apart:
        :mod:`robustness.statistics.case_rankings`).
    unit_column : str, optional
        A column grouping cases into resampling units (e.g. ``encounter``);
        default: every case is a unit.
    unit_name : str, optional
        What a unit is, for reports (default: ``unit_column``, or ``case``).

    Returns
    -------
    Schemes
        One macro scheme per value of the ``by`` columns.
    """
    case, run, value = case_column, run_column, value_column
    columns = _checked_columns(table, case, run, value, by)
    groups = table.groupby(columns, sort=False) if columns else [((), table)]
    runs = tuple(sorted(table[run].unique()))
    cases = tuple(sorted(table[case].unique()))
    unit_of = None if unit_column is None else \
        table.drop_duplicates(case).set_index(case)[unit_column].reindex(cases)
    codes, units = unit_codes(cases, unit_of)
    b = SchemeBuilder(codes, len(units))
    policy = empty_policy("one")
    for key, df in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = df.pivot_table(index=run, columns=case, values=value, aggfunc="first")
        wide = wide.reindex(index=runs, columns=cases)
        if wide.isna().any().any():
            r, c = np.argwhere(wide.isna().to_numpy())[0]
            raise InputError(f"per-case table: no value for algorithm {runs[r]!r}, case {cases[c]!r} "
                             f"(scheme {key})")
        label = dict(zip(columns, key))
        strategy = "/".join(str(label[c]) for c in ("task", "strategy") if c in label) or "table"
        name = (strategy, str(label.get("metric", value)), "macro")
        b.macro(name, wide.to_numpy(dtype=np.float64), policy)
    return b.build(runs, units, policy, unit_name or unit_column or "case")


def rank_then_aggregate(schemes: Schemes, *, ties: str = "average") -> Schemes:
    """The macro schemes of ``schemes`` with per-case ranks in place of per-case scores.

    On every case (image, or the case of a per-case table) the runs are ranked
    by their score (1 = best; scores within 1e-12 tie and get the rank of the
    tie rule ``ties``, average by default, :func:`robustness.statistics.ranks.rank`);
    a run without a score on a case (nan) is left out of that case's ranking and its rank there is nan, which the
    empty-pair policy then treats as it treats a nan score (left out of the
    mean, or propagated under ``official``). Each per-case value is **minus**
    the rank, so that the scheme's mean is minus the mean rank and every engine
    ranks it "higher is better": ranking these schemes is ranking the runs by
    mean rank, lower first. Ranks add up, so prefixes and resamples stay
    running sums. Micro schemes have no per-case scores and are dropped.

    Parameters
    ----------
    schemes : Schemes
    ties : {'average', 'min', 'max', 'first'}
        The per-case tie rule.

    Returns
    -------
    Schemes
        The macro schemes, ``ranking="rank-then-aggregate"``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"case": ["c1", "c1", "c2", "c2"], "algorithm": ["a", "b", "a", "b"],
    ...                   "value": [0.9, 0.1, 0.4, 0.5]})
    >>> (-rank_then_aggregate(schemes_from_table(t)).scores()).tolist()  # mean ranks of a and b
    [[1.5, 1.5]]
    """
    macro = [s for s in range(len(schemes.names)) if schemes.is_macro(s)]
    if not macro:
        raise ValueError("rank-then-aggregate ranks per-case scores: it exists for macro schemes only")
    codes = schemes.codes
    per_case = schemes.per_case
    if per_case is None:
        raise ValueError("these schemes carry no per-case scores")
    if codes is None:
        codes = np.arange(schemes.n_units) if per_case.shape[2] == schemes.n_units else None
    if codes is None:
        raise ValueError("these schemes do not say which unit each case belongs to (Schemes.codes)")
    b = SchemeBuilder(codes, schemes.n_units)
    for s in macro:
        v = per_case[s]  # (R, N)
        ranks = rank(v.T, ties=ties).T  # nan scores rank last: the others' ranks are their ranks among the scored runs
        b.macro(schemes.names[s], np.where(np.isnan(v), np.nan, -ranks), schemes.empty)
    return b.build(schemes.runs, schemes.units, schemes.empty, schemes.unit, ranking="rank-then-aggregate")
