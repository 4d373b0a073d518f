"""Rank convergence, bootstrap and significance for per-case scores from any pipeline (a challengeR-style table).

The table has one row per case and run with a score (higher is better) in long
format, optionally ``strategy`` and ``metric`` columns holding several schemes and
a column grouping cases into resampling units (:func:`robustness.io.read_case_table`).
Scores are averaged over cases (macro), as challengeR does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from robustness.reporting.study_result import StudyResult, Verdicts
from robustness.studies.common import (
    ResamplingOptions,
    bootstrap_tables,
    convergence_tables,
    methods_meta,
    ranking_verdicts,
    resample,
    resampling_verdicts,
    uncertainty_tables,
)

if TYPE_CHECKING:
    from robustness.statistics.schemes import Schemes

__all__ = ["TableOptions", "run", "fingerprint"]

STUDY = "table_rank_convergence"
#: The report and its figure show at most this many schemes of a table.
SHOWN_SCHEMES = 4


@dataclass(frozen=True)
class TableOptions(ResamplingOptions):
    """The per-case table study's options: those of every resampling study."""


def fingerprint(schemes: Schemes) -> str:
    """The identity of a table's scores (decides whether a results folder holds this input's results).

    Parameters
    ----------
    schemes : Schemes

    Returns
    -------
    str
    """
    return hashlib.sha256(schemes.x.tobytes() + repr(schemes.names).encode()
                          + "|".join(schemes.runs).encode()).hexdigest()


def run(schemes: Schemes, options: TableOptions = TableOptions(), *, source: str, n_jobs: int = 1,
        progress: bool = False, notes: Iterable[str] = ()) -> StudyResult:
    """The study on the schemes of a per-case table (:func:`robustness.statistics.schemes.schemes_from_table`).

    Parameters
    ----------
    schemes : Schemes
        Macro schemes of the table, on its resampling unit.
    options : TableOptions
    source : str
        The table's path, for the report.
    n_jobs : int
    progress : bool
    notes : iterable of str
        What reading the table noted.

    Returns
    -------
    StudyResult
    """
    lenient = float(len(schemes.runs))
    resampled = resample(schemes, options, n_jobs=n_jobs, progress=progress)
    tables = uncertainty_tables(schemes, options, n_jobs=n_jobs, tolerance=lenient)
    curves, curve_notes = convergence_tables(resampled.convergence, tolerance=options.tolerance, lenient=lenient,
                                             all_curves=options.all_curves)
    tables.update(curves)
    tables.update(bootstrap_tables(resampled.bootstrap, agreement_file="agreement.csv"))
    verdicts = Verdicts()
    resampling_verdicts(verdicts, tables, schemes.names, lenient=lenient, tolerance=options.tolerance)
    ranking_verdicts(verdicts, tables, schemes.names[:SHOWN_SCHEMES], agreement_file="agreement.csv")
    return StudyResult(STUDY, tables=tables, verdicts=verdicts.frame(), meta={
        "options": asdict(options), "methods": methods_meta(), "ranking": list(options.ranking),
        "input": {"table": source, "fingerprint": fingerprint(schemes), "runs": len(schemes.runs),
                  "units": schemes.n_units, "unit": schemes.unit, "schemes": [list(n) for n in schemes.names]},
        "warnings": list(notes) + curve_notes})
