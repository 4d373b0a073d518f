"""A study's report, built from its results folder alone: ``build(results_dir)``, ``write(results_dir)``.

The report of a study is its registered sections (:mod:`robustness.reporting.sections`)
applied to the folder (:class:`~robustness.results.study_result.StudyResult`),
with what the loaders and checks noted ("Warnings") right after the first
section (what to conclude, or the recommendation), and the list of its tables
("Files") last. Figures that the folder does not hold (a study run with
``--no-figures``) are left out. The same function serves the study itself
(writing into its staging folder before ``meta.json``) and
``python -m experiments.report RESULTS_DIR``, which rebuilds ``summary.md`` and
``report.html`` without recomputing.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from robustness._lazy import lazy_module
from robustness.errors import InputError, shown
from robustness.files import MAX_TABLE_BYTES, atomic_write, read_inside
from robustness.reporting.document import Report
from robustness.reporting.sections.registry import EXTRA_OUTPUTS, TITLES, sections
from robustness.results.checksums import check_files
from robustness.results.folder import hold, open_results
from robustness.results.study_result import TABLES, StudyResult

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.parquet as pq

    from robustness.reporting import pdf as printable
else:
    pd = lazy_module("pandas")
    pq = lazy_module("pyarrow.parquet")
    printable = lazy_module("robustness.reporting.pdf")  # matplotlib: only for --pdf

__all__ = ["build", "outputs", "write"]


def _files_section(r: Report, res: StudyResult) -> None:
    """Every table of the folder: what it holds, rows and columns."""
    r.heading("Files")
    r.paragraph("Every table of this results folder (meta.json lists every file, figures included).")
    rows = []
    assert res.folder is not None  # a report is built from a results folder
    for name in sorted(res.tables):
        data = read_inside(res.folder, name, limit=MAX_TABLE_BYTES, what="table")
        if name.endswith(".parquet"):
            meta = pq.ParquetFile(io.BytesIO(data)).metadata
            shape = (meta.num_rows, meta.num_columns)
        else:
            head = pd.read_csv(io.BytesIO(data), nrows=0)
            shape = (data.count(b"\n") + (not data.endswith(b"\n")) - 1, len(head.columns))
        spec = TABLES.get(name.split("/")[-1])
        rows.append({"file": name, "rows": shape[0], "columns": shape[1], "holds": spec.holds if spec else ""})
    r.table(pd.DataFrame(rows))


def build(results_dir: Path | str, *, meta: dict | None = None, spell: Callable[[str], str] | None = None) -> Report:
    """The report of the study whose results are in ``results_dir``.

    Parameters
    ----------
    results_dir : path
        A complete results folder, or a study's staging folder when ``meta`` is given.
    meta : dict, optional
        The metadata, before ``meta.json`` is written.
    spell : callable, optional
        How the reader's interface names the library's parameters (:class:`Report`'s ``spell``; a command passes
        its options' table).

    Returns
    -------
    Report
    """
    res = StudyResult.load(results_dir, meta=meta)
    listed = sections(res.study)
    r = Report(TITLES[res.study], spell=spell)
    first = None
    for section in listed:
        section.build(r, res)
        first = len(r.blocks) if first is None else first
    # the warnings right after the first section (what to conclude, the recommendation): before any table they
    # may change the reading of
    warned = Report(r.title, spell=spell).warnings(res.warnings).blocks
    r.blocks[first or 0:first or 0] = warned

    # a figure the folder does not hold is left out; one that is there but a link (or a FIFO...) is refused when read
    r.blocks = [b for b in r.blocks if b[0] != "figure" or os.path.lexists(res.folder / b[1])]
    _files_section(r, res)
    return r


def outputs(report: Report, results_dir: Path | str, study: str, *, pdf: bool = False) -> dict[str, str | bytes]:
    """The report's files: ``summary.md``, ``report.html`` (figures embedded), the study's extras, a PDF if asked.

    Parameters
    ----------
    report : Report
    results_dir : path
        Where the figures are.
    study : str
    pdf : bool
        Also the printable document (:func:`robustness.reporting.pdf.to_pdf`).

    Returns
    -------
    dict
        File name -> text (bytes for the PDF).
    """
    out: dict[str, str | bytes] = {"summary.md": report.to_markdown(),
                                   "report.html": report.to_html(Path(results_dir))}
    if pdf:
        out["report.pdf"] = printable.to_pdf(report, Path(results_dir))
    if study in EXTRA_OUTPUTS:
        out.update(EXTRA_OUTPUTS[study](report))
    return out


def write(results_dir: Path | str, *, spell: Callable[[str], str] | None = None) -> list[Path]:
    """Rebuild the report of a complete results folder in place (no recomputation).

    The folder is locked while the files are replaced (atomically), and only files ``meta.json`` already lists
    are written; first every table and figure is checked against the checksums ``meta.json`` records
    (:func:`robustness.results.checksums.check_files`).

    Parameters
    ----------
    results_dir : path
    spell : callable, optional
        As :func:`build`'s.

    Returns
    -------
    list of Path
        The files written.
    """
    folder, meta = open_results(results_dir)
    with hold(folder):
        try:
            report = build(folder, spell=spell)  # in memory: nothing is written before the checks below
            texts = outputs(report, folder, meta.get("study", ""), pdf="report.pdf" in meta.get("files", []))
        except (InputError, KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:  # a table or meta.json the study did not write this way: one line, not a traceback
            check_files(folder, meta)  # a file cut short or changed after the run says so first
            raise InputError(f"{folder}: damaged results folder, the report cannot be rebuilt ({type(exc).__name__}: "
                             f"{shown((str(exc).splitlines() or [''])[0], 200)}); run the study again") from None
        check_files(folder, meta)  # a table that reads but is cut short or changed is refused, not rebuilt from
        written = []
        for name, text in texts.items():
            if name not in meta.get("files", []):
                continue
            atomic_write(folder / name, partial(_write_text, text))
            written.append(folder / name)
    return written


def _write_text(text: str | bytes, f) -> None:
    f.write(text if isinstance(text, bytes) else text.encode())
