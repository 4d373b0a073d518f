"""Reading a per-case score table from another pipeline (challengeR's long format), checked line by line.

One row per case and algorithm (and optionally per ``strategy`` / ``metric``, and
per task) with a numeric, finite score (or an empty one, where a missing-score
treatment is chosen). Bad tables end in one line naming the file,
row and column: a missing column, a non-numeric or infinite value, the same
(case, algorithm) twice with different values, an algorithm without a value
for some case, a case in two units, a score beyond :data:`MAX_VALUE` in
magnitude. An exact duplicate row is dropped with a note. Every name column
(case, algorithm, task, unit, strategy, metric) is read as the text the file holds,
never inferred: ``1`` and ``1.0`` are two algorithms, ``001`` stays ``001``, and
``NA``, ``None``, ``null`` and ``nan`` are names like any other (an empty cell is
refused). In the score column an empty cell or ``NA``, ``NaN``, ``nan``, ``null``,
``None`` is a missing score.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from robustness.errors import InputError, parameter, shown
from robustness.files import open_regular

__all__ = ["read_case_table", "CaseColumns"]

SCHEME_COLUMNS = ("strategy", "metric")


@dataclass(frozen=True)
class CaseColumns:
    """The columns of a per-case table that hold its case, run (algorithm) and score, and optionally its unit and task.

    Attributes
    ----------
    case, run, value : str
    unit : str, optional
        Groups cases into resampling units (default: the cases).
    task : str, optional
        Default: ``task`` when the table has it.
    """

    case: str = "case"
    run: str = "algorithm"
    value: str = "value"
    unit: str | None = None
    task: str | None = None

#: Scores beyond this magnitude are refused: the means, sums and squares the rankings and intervals take over the
#: cases would overflow to infinity (1e308 and 1.7e308 averaged to inf and tied).
MAX_VALUE = 1e150

#: Characters a name may not hold (line breaks, tabs, NUL and the other C0/C1 controls).
CONTROL = r"[\x00-\x1f\x7f-\x9f\u2028\u2029]"

#: What a score cell holds when the score is missing (R writes ``NA``).
MISSING = frozenset({"", "NA", "NaN", "nan", "NAN", "null", "NULL", "None", "none", "N/A", "n/a", "<NA>"})


def _shown(value, limit: int = 60) -> str:
    """A cell for a message, escaped and cut (a 50 MB cell is not echoed whole)."""
    return shown(value, limit)


def _read(path: Path):


    try:
        f = open_regular(path)  # a FIFO or a device (/dev/zero) is refused before pandas blocks or reads forever
    except InputError as exc:
        if str(exc).endswith(": is a folder, not a file"):
            raise InputError(f"{path}: is a folder, not a table") from None
        raise
    try:
        with f:
            if path.suffix.lower() in (".parquet", ".pq"):
                return pd.read_parquet(f)
            return pd.read_csv(f, dtype=str, keep_default_na=False)  # names as written; scores converted below
    except Exception as exc:  # any reader error means the same thing to the user
        first = (str(exc).splitlines() or [""])[0]
        raise InputError(f"{path}: cannot read the table ({type(exc).__name__}: {_shown(first, 200)})") \
            from None


def read_case_table(path: str | os.PathLike, *, case_column: str = "case", run_column: str = "algorithm",
                    value_column: str = "value", unit_column: str | None = None, task_column: str | None = None,
                    allow_missing: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """The checked table and its notes.

    Parameters
    ----------
    path : path
        A CSV or Parquet file.
    case_column, run_column, value_column : str
        The columns holding the case, the run (challengeR's ``algorithm``) and the score.
    unit_column : str, optional
        A column grouping cases into resampling units.
    task_column : str, optional
        A column naming the task: each task is its own leaderboard, with its own cases. Default: ``task`` when
        the table has that column.
    allow_missing : bool
        Keep empty scores (nan) and (run, case) pairs without a row, for a missing-score treatment
        (:mod:`robustness.statistics.ranking_options`); otherwise they are refused. Text or infinite scores are
        refused either way.

    Returns
    -------
    table : pandas.DataFrame
        ``case`` and ``algorithm`` (and ``task`` and ``unit`` where their columns are named, ``strategy`` and
        ``metric`` when present) as text, ``value`` as float64, exact duplicate rows dropped.
    notes : list of str
        What was done with imperfect input (one line each, naming the file): dropped duplicate rows.

    Raises
    ------
    InputError
        One line naming the file, the row (1-based, header not counted) and what is wrong.
    """
    case, algorithm, value, unit = case_column, run_column, value_column, unit_column
    path = Path(path)
    table = _read(path)
    task = task_column if task_column is not None else ("task" if "task" in table.columns else None)
    for option, column in (("case_column", case), ("run_column", algorithm), ("value_column", value),
                           ("unit_column", unit), ("task_column", task)):
        if column is not None and column not in table.columns:
            raise InputError(f"{path}: no column {column!r} ({parameter('read_case_table', option)}); columns: "
                             + _shown(", ".join(map(str, table.columns)), 300))
    if not len(table):
        raise InputError(f"{path}: the table has no rows")
    keys = [case, algorithm] + [c for c in SCHEME_COLUMNS if c in table.columns] + ([task] if task else [])
    table = table.copy()
    for c in [*keys, *([unit] if unit else [])]:
        table[c] = _names(path, table[c], c)
    table[value] = _scores(path, table, value, algorithm, case, allow_missing)
    notes = []
    exact = table.duplicated(keys + [value])
    if exact.any():
        notes.append(f"{path}: dropped {int(exact.sum())} row(s) that repeat another row exactly "
                     f"(e.g. row {int(np.flatnonzero(exact.to_numpy())[0]) + 1})")
        table = table[~exact.to_numpy()].reset_index(drop=True)
    clash = table.duplicated(keys, keep=False)
    if clash.any():
        rows = np.flatnonzero(clash.to_numpy())[:2]
        r = table.iloc[rows[0]]
        raise InputError(f"{path}: algorithm {_shown(r[algorithm])}, case {_shown(r[case])} has two different values "
                         f"({float(table[value].iloc[rows[0]])!r} and {float(table[value].iloc[rows[1]])!r})")
    if not allow_missing:
        _check_complete(path, table, algorithm, case, task)
    if unit:
        per_case = table.groupby(case)[unit].nunique()
        if (per_case > 1).any():
            c = per_case.index[int(np.argmax(per_case.to_numpy() > 1))]
            raise InputError(f"{path}: case {_shown(c)} lies in {per_case[c]} different units of {unit!r}")
    return table, notes


def _names(path: Path, column: pd.Series, c: str) -> pd.Series:
    """A column of names as text: none empty, none holding a control character (one line naming the row)."""
    missing = column.isna().to_numpy() | (column.astype(str) == "").to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(f"{path}: row {row + 1}: empty {c!r}")
    column = column.astype(str)
    control = column.str.contains(CONTROL, regex=True).to_numpy()
    if control.any():  # a carriage return would start a new row in a CSV result, a tab breaks figure labels
        row = int(np.flatnonzero(control)[0])
        raise InputError(f"{path}: row {row + 1}: {c} {_shown(column.iloc[row])} holds a control character "
                         "(a line break, tab or NUL); names are one line of text: rename it")
    return column


def _scores(path: Path, table: pd.DataFrame, value: str, algorithm: str, case: str, allow_missing: bool) -> pd.Series:
    """The score column as float64 (nan where empty and allowed); text, infinite or huge scores refused."""
    raw = table[value]
    if raw.dtype.kind in "OSUT" or str(raw.dtype) == "str":
        cells = raw.astype(str).str.strip()
        empty = (raw.isna() | cells.isin(MISSING)).to_numpy()
        numbers = pd.to_numeric(cells.where(~empty, None), errors="coerce").astype(np.float64)
    else:
        empty = raw.isna().to_numpy()
        numbers = pd.to_numeric(raw, errors="coerce").astype(np.float64)
    with np.errstate(invalid="ignore"):
        huge = np.isfinite(numbers.to_numpy()) & (np.abs(numbers.to_numpy()) > MAX_VALUE)
    bad = (~np.isfinite(numbers.to_numpy()) & ~(empty & allow_missing)) | huge
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = f"is empty (a missing score: choose a treatment with {parameter('RankingOptions', 'missing')})" \
            if empty[row] else \
            f"is beyond +-{MAX_VALUE:g} (sums over the cases would overflow)" if huge[row] else \
            "is not a finite number"
        cell = _shown(raw.iloc[row]) if str(raw.iloc[row]).strip() else "nan"
        raise InputError(f"{path}: row {row + 1}: {value} {cell} for algorithm "
                         f"{_shown(table[algorithm].iloc[row])}, case {_shown(table[case].iloc[row])} {what}")
    numbers[empty] = np.nan
    return numbers


def _check_complete(path: Path, table: pd.DataFrame, algorithm: str, case: str, task: str | None) -> None:
    """Every algorithm has a value for every case, per scheme (a task has its own runs and cases)."""
    schemes = [c for c in SCHEME_COLUMNS if c in table.columns] + ([task] if task else [])
    groups = table.groupby(schemes, sort=False) if schemes else [((), table)]
    for key, df in groups:  # the schemes of one task share its runs and cases
        algorithms = sorted(set((df if task else table)[algorithm]))
        cases = sorted(set((df if task else table)[case]))
        have = set(zip(df[algorithm], df[case]))
        if len(have) < len(algorithms) * len(cases):
            a, c = next((a, c) for a in algorithms for c in cases if (a, c) not in have)
            where = f" ({', '.join(map(str, key if isinstance(key, tuple) else (key,)))})" if schemes else ""
            raise InputError(f"{path}: no value for algorithm {_shown(a)}, case {_shown(c)}{where}: every algorithm "
                             "needs a value for every case")
