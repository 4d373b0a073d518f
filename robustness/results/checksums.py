"""Checksums of a results folder's tables and figures: recorded in ``meta.json``, checked before a rebuild.

A study writes, beside ``files``, ``checksums``: every table (``.csv``, ``.parquet``) and figure (``figures/``) it
wrote, with its size in bytes and its SHA-256. ``python -m experiments.report`` rebuilds the report from those files
alone, so it first checks each against the record (:func:`check_files`): a table cut short (a full disk, an
interrupted copy), edited or removed after the run is refused in one line naming it, and nothing is rebuilt. The
report's own files (summary.md, report.html, report.pdf, recommendation.md) are what a rebuild writes, not what it
reads: they are not recorded. A folder written before checksums were recorded is rebuilt with a warning that says
its tables were not checked.

The record guards against accidents, not against someone who rewrites ``meta.json`` too.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Iterable
from pathlib import Path

from robustness.errors import InputError, NoteWarning
from robustness.files import MAX_FIGURE_BYTES, MAX_TABLE_BYTES, read_inside

__all__ = ["digest", "checked", "record", "check_files", "CHECKSUMS"]

#: The key of ``meta.json`` that holds the record.
CHECKSUMS = "checksums"


def checked(name: str) -> bool:
    """Whether a result file is an input of the report (a table or a figure), whose checksum is recorded.

    Parameters
    ----------
    name : str
        The file's name relative to the results folder.

    Returns
    -------
    bool

    Examples
    --------
    >>> checked("ranking.csv"), checked("figures/fig_04_forest.png"), checked("summary.md")
    (True, True, False)
    """
    return name.endswith((".csv", ".parquet")) or name.startswith("figures/")


def digest(data: bytes) -> dict:
    """A file's record: its size and SHA-256.

    Parameters
    ----------
    data : bytes

    Returns
    -------
    dict
        ``{"bytes": int, "sha256": str}``.
    """
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def record(folder: Path, names: Iterable[str], known: dict | None = None) -> dict:
    """The checksums of the tables and figures among ``names``, read from ``folder`` (or taken from ``known``).

    Parameters
    ----------
    folder : Path
        Where the files are (a staging folder).
    names : iterable of str
        The files written (relative names).
    known : dict, optional
        Records already computed while writing (name -> :func:`digest`).

    Returns
    -------
    dict
        Name -> :func:`digest`, for the names :func:`checked` selects, sorted by name.
    """
    known = known or {}
    return {name: known[name] if name in known else digest((folder / name).read_bytes())
            for name in sorted(set(names)) if checked(name)}


def check_files(folder: Path, meta: dict) -> None:
    """Check every recorded table and figure of a results folder against ``meta.json`` before a rebuild.

    Parameters
    ----------
    folder : Path
        A complete results folder.
    meta : dict
        Its ``meta.json``.

    Raises
    ------
    InputError
        Naming the first file that is missing, of another size or of other content than the study wrote.

    Warns
    -----
    NoteWarning
        When ``meta.json`` records no checksums (a folder written before 2026-12-06): its tables are not checked.
    """
    recorded = meta.get(CHECKSUMS)
    if recorded is None:
        warnings.warn(f"{folder}: meta.json records no checksums of its tables (written before they were "
                      "recorded): the tables are not checked before the rebuild", NoteWarning, stacklevel=2)
        return
    if not isinstance(recorded, dict):
        raise InputError(f"{folder / 'meta.json'}: damaged meta.json ('{CHECKSUMS}' is not an object)")
    for name, want in recorded.items():
        if not (isinstance(want, dict) and isinstance(want.get("bytes"), int) and isinstance(want.get("sha256"), str)):
            raise InputError(f"{folder / 'meta.json'}: damaged meta.json (the checksum of {name!r})")
        path = folder / name
        limit = MAX_FIGURE_BYTES if name.startswith("figures/") else MAX_TABLE_BYTES
        if path.is_dir() and not path.is_symlink():
            raise InputError(f"{path}: not the file the study wrote: a folder where it wrote a file; run the study "
                             "again")
        if not os.path.lexists(path):
            raise InputError(f"{path}: not the file the study wrote: it is missing (meta.json records "
                             f"{want['bytes']:,} bytes); run the study again")
        got = digest(read_inside(folder, name, limit=limit, what="figure" if name.startswith("figures/") else "table"))
        if got["bytes"] != want["bytes"]:
            raise InputError(f"{path}: not the file the study wrote: {got['bytes']:,} bytes where meta.json records "
                             f"{want['bytes']:,} (cut short or changed after the run); run the study again")
        if got["sha256"] != want["sha256"]:
            raise InputError(f"{path}: not the file the study wrote: its content differs from the checksum "
                             "meta.json records (changed after the run); run the study again")
