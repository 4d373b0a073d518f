"""Result folders: a study's results written into a staging folder and installed whole at the end.

:class:`ResultsDir` is what a study writes through; :func:`open_results` what readers open;
:func:`hold` what a rebuilt report holds. The on-disk protocol (staging, lock, replacement, what a later job
finishes or cleans up) is :mod:`robustness.results.transaction`.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import warnings
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robustness import background
from robustness._lazy import lazy_module
from robustness.errors import InputError, NoteWarning, parameter, shown
from robustness.files import atomic_write, remove_stale_temporaries
from robustness.results import transaction
from robustness.results.checksums import CHECKSUMS, checked, digest, record
from robustness.results.escape import csv_frame
from robustness.results.provenance import versions
from robustness.results.transaction import COMMIT, INPUTS, LOCK, MARKER, META, PREVIOUS, STAGING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pq = lazy_module("pyarrow.parquet")

__all__ = ["ResultsDir", "open_results", "hold", "atomic_write", "check_output_folder", "remove_stale_temporaries",
           "versions"]

_HELD: dict[str, weakref.finalize] = {}


# -- the output folder ------------------------------------------------------------------------------------------

def check_output_folder(path: str | os.PathLike) -> Path:
    """``path`` is a folder, or can be created as one; checked without creating anything.

    Parameters
    ----------
    path : str or os.PathLike
        The output folder, existing or to be created.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path` (nothing is created).

    Raises
    ------
    InputError
        ``path`` is a file or a broken link, lies under a file, or its nearest existing folder is not writable.
    """
    p = Path(path)
    try:
        return _checked_output_folder(p)
    except OSError as exc:  # a name longer than the file system takes (ENAMETOOLONG), a loop of links...
        raise InputError(f"{shown(p, 200)}: cannot be used as the output folder ({exc.strerror or exc})") from None


def _checked_output_folder(p: Path) -> Path:
    if p.exists():
        if not p.is_dir():
            raise InputError(f"{p}: exists and is not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError(f"{p}: the output folder is not writable")
        return p
    if p.is_symlink():
        raise InputError(f"{p}: is a broken symbolic link")
    parent = p.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{p}: cannot be created: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{p}: cannot be created: {parent} is not writable")
    return p


class ResultsDir:
    """A results folder being (re)written by one study: staged, locked, replaced at the end.

    Parameters
    ----------
    path : str or os.PathLike
        The output folder (created if needed).
    fingerprint : str
        Identity of the input data.
    force : bool
        Overwrite a folder that holds results of another input (or foreign files).

    Attributes
    ----------
    path : Path
        The output folder (results appear here only at :meth:`finish`).
    staging : Path
        Where this run writes; :meth:`file` gives a path inside it.
    written : list of str
        The files written so far (relative names), listed in ``meta.json``.

    Raises
    ------
    InputError
        ``path`` cannot be created, another job holds its lock, it holds results of another input (unless
        ``force``), or its ``meta.json`` is damaged (unless ``force``).
    """

    def __init__(self, path: str | os.PathLike, *, fingerprint: str, force: bool = False) -> None:
        self.path = check_output_folder(path)
        if self.path.is_dir():  # read only: a refused job creates nothing, not even the lock file
            self._check_owner(fingerprint, force)
            self._previous_files(force)
        created = transaction.created_folders(self.path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot create the output folder ({exc.strerror})") from None
        key = os.path.realpath(self.path)
        if key in _HELD:  # an earlier job of this process stopped without finishing
            _HELD.pop(key)()
        try:
            fd, made_lock = transaction.lock(self.path)
        except BaseException:
            transaction.undo(created)
            raise
        self.staging = self.path / f"{STAGING}{os.getpid()}"
        self._release = weakref.finalize(self, transaction.release, fd, self.staging)
        _HELD[key] = self._release
        try:  # again under the lock: another job may have written meanwhile
            self._check_owner(fingerprint, force)
            self._previous_files(force)
        except BaseException:
            self._release()
            if made_lock:
                (self.path / LOCK).unlink(missing_ok=True)
            transaction.undo(created)
            raise
        try:
            self._recover()
            for entry in self.path.iterdir():
                if entry.name.startswith(STAGING) and transaction.job_folder(entry):
                    transaction.remove(entry)  # left by a killed job: never trusted
            if (self.path / "cache").is_symlink():
                (self.path / "cache").unlink()
            for folder in (self.path, self.path / "cache"):
                remove_stale_temporaries(folder)
            self.previous = self._previous_files(force)
            self.staging.mkdir()
            atomic_write(self.staging / MARKER, lambda f: f.write(f"{os.getpid()}\n".encode()))
            if not (self.path / META).exists():  # no complete results: the folder is this input's from now on
                atomic_write(self.path / INPUTS, lambda f: f.write(f"{fingerprint}\n".encode()))
        except BaseException:
            self._release()
            raise
        self.fingerprint = fingerprint
        self.written: list[str] = []
        self.digests: dict[str, dict] = {}  # the tables' checksums, from the bytes written

    def _commits(self) -> list[Path]:
        found = [e for e in self.path.iterdir() if e.name.startswith(COMMIT) and transaction.job_folder(e)]
        return sorted(found, key=lambda p: p.stat(follow_symlinks=False).st_mtime)

    def _recover(self):
        for commit in self._commits():
            if (commit / META).is_file():
                transaction.install(self.path, commit)
                warnings.warn(f"{self.path}: completed the replacement of results that an interrupted job "
                              f"({commit.name[len(COMMIT):]}) had finished computing", NoteWarning, stacklevel=3)
            else:
                transaction.remove(commit)

    def _check_owner(self, fingerprint, force):
        if force:
            return
        foreign = [e for e in self.path.iterdir() if e.name not in (LOCK, INPUTS) and not transaction.job_folder(e)]
        marks = {transaction.read_mark(c / INPUTS) for c in [self.path, *self._commits()]}
        if foreign and fingerprint not in marks and not self._only_our_cache(foreign):
            raise InputError(f"{self.path}: output folder holds results of another input; pass "
                             f"{parameter('publish', 'force')}=True to overwrite it or choose another {_OUT}")

    def _only_our_cache(self, foreign: list[Path]) -> bool:
        """Whether a run of ours left only its cache here (refused or interrupted before any result was written).

        The folder carries our input mark and no ``meta.json``, and its one other entry is the ``cache`` folder,
        whose entries are keyed by their own inputs: nothing of the user's and no result to protect.
        """
        return ((self.path / INPUTS).is_file() and not (self.path / META).exists()
                and all(e.name == "cache" and e.is_dir() and not e.is_symlink() for e in foreign))

    def _previous_files(self, force) -> list[str]:
        try:
            return list(transaction.read_meta(self.path / META)["files"])
        except FileNotFoundError:
            return []
        except InputError:
            if force:
                return []  # cannot tell which files were ours: leave them, overwrite what we write
            raise InputError(f"{self.path / META}: damaged or not written by this package; remove it, pass "
                             f"{parameter('publish', 'force')}=True, or choose another {_OUT}") from None

    # -- writing (into the staging folder) --------------------------------------------------------------------
    def file(self, name: str) -> Path:
        """Path of result ``name`` inside the staging folder (its folder created).

        Parameters
        ----------
        name : str
            The result's name relative to the output folder, e.g. ``"tables/ranks.csv"`` (normalised, no ``..``,
            no hidden part).

        Returns
        -------
        Path
            Where to write the result; the writer adds ``name`` to :attr:`written`.

        Raises
        ------
        ValueError
            When ``name`` is absolute, not normalised, or has a hidden part.
        """
        if not transaction.relative_name(name):
            raise ValueError(f"result names are relative, normalised and not hidden; got {name!r}")
        path = self.staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def _write(self, name, data: bytes):
        atomic_write(self.file(name), lambda f: f.write(data))
        self.written.append(name)
        if checked(name):
            self.digests[name] = digest(data)

    def write_text(self, name: str, text: str) -> None:
        """Write a text result (UTF-8) and list it in :attr:`written`.

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        text : str
            The whole content of the file.
        """
        self._write(name, text.encode())

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write a binary result (a PDF) and list it in :attr:`written`.

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        data : bytes
            The whole content of the file.
        """
        self._write(name, data)

    def write_json(self, name: str, obj: Any) -> None:
        """Write a JSON result (indented by 2; values JSON does not know are written as their ``str``).

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        obj : object
            What to write: dicts, lists, numbers, strings and None, at any depth.
        """
        self.write_text(name, json.dumps(obj, indent=2, default=str) + "\n")

    def write_csv(self, name: str, frame: pd.DataFrame, **kw: Any) -> None:
        """Write a CSV whose floats round-trip exactly (shortest repr) and whose whole-number counts are integers.

        Text cells a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``...) are written behind a
        ``'`` (:func:`robustness.results.escape.csv_frame`); :func:`~robustness.results.study_result.read_table`
        reads them back as they were.

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        frame : pandas.DataFrame
            The table (count columns are written as integers: :func:`integral_counts`).
        **kw
            Passed on to :meth:`pandas.DataFrame.to_csv`, e.g. ``index=False``.
        """
        self.write_text(name, csv_frame(integral_counts(frame)).to_csv(**kw))

    def write_parquet(self, name: str, frame: pd.DataFrame) -> None:
        """Write a Parquet result (without the frame's index).

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        frame : pandas.DataFrame
            The table.
        """
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        self._write(name, buf.getvalue())

    def write_parquet_frames(self, name: str, frames: Iterable[pd.DataFrame]) -> None:
        """Write one Parquet file from frames of the same columns, one row group each, written as they come.

        Memory: one frame at a time.

        Parameters
        ----------
        name : str
            The result's relative name (see :meth:`file`).
        frames : iterable of pandas.DataFrame
            The row groups, in order (consumed lazily; their indexes are left out). No frame at all leaves an empty
            file.
        """

        def write(f):
            writer = None
            for frame in frames:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(f, table.schema)
                writer.write_table(table)
            if writer is not None:
                writer.close()

        atomic_write(self.file(name), write)
        self.written.append(name)
        self.digests.pop(name, None)  # read back at the end

    def write_tables(self, tables: Mapping[str, Any], *, index: Callable[[str], bool], n_jobs: int = 1) -> None:
        """Write a study's tables: data frames as CSV or Parquet by their names, callables as streamed Parquet.

        Parameters
        ----------
        tables : mapping
            Name -> data frame, or a callable giving the frames of :meth:`write_parquet_frames`.
        index : callable
            ``index(name)``: whether a CSV table keeps its index.
        n_jobs : int
            Above 1, the streamed tables are written by a process of their own (:mod:`robustness.background`).
        """
        streamed = {name: value for name, value in tables.items() if callable(value)}
        aside = background.start(self._write_all, streamed, index, n_jobs=n_jobs) if streamed else None
        self._write_all({name: v for name, v in tables.items() if name not in streamed}, index)
        if aside is not None:
            written, digests = aside.result()  # the other process's bookkeeping, taken over here
            self.written += written
            self.digests.update(digests)

    def _write_all(self, tables: Mapping[str, Any], index: Callable[[str], bool]) -> tuple[list[str], dict]:
        for name, value in tables.items():
            if callable(value):
                self.write_parquet_frames(name, value())
            elif name.endswith(".parquet"):
                self.write_parquet(name, value)
            else:
                self.write_csv(name, value, index=index(name))
        return list(tables), {name: self.digests[name] for name in tables if name in self.digests}

    def finish(self, meta: dict) -> None:
        """Write ``meta.json`` last, then replace the previous results by this run's (see the module notes).

        Parameters
        ----------
        meta : dict
            What ``meta.json`` records of the run (settings, versions...); its ``files`` entry is set to the
            results written, its ``checksums`` to every table's and figure's size and SHA-256
            (:mod:`robustness.results.checksums`).

        Raises
        ------
        InputError
            When a result cannot take its place in the output folder (a folder where a file goes, or a file where
            a folder goes); the previous results are then left whole.
        """
        meta = dict(meta, files=sorted(set(self.written)))
        meta[CHECKSUMS] = record(self.staging, meta["files"], self.digests)  # checked before a rebuild
        atomic_write(self.staging / PREVIOUS, lambda f: f.write(json.dumps(self.previous).encode()))
        atomic_write(self.staging / INPUTS, lambda f: f.write(f"{self.fingerprint}\n".encode()))
        transaction.check_install(self.path, meta["files"], self.previous)  # refuse before replacing anything
        atomic_write(self.staging / META,
                     lambda f: f.write((json.dumps(meta, indent=2, default=str) + "\n").encode()))
        commit = self.path / f"{COMMIT}{os.getpid()}"
        os.rename(self.staging, commit)
        transaction.install(self.path, commit)
        self._release()


def integral_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with float columns that hold only whole numbers (and possibly nan) as (nullable) integers.

    Counts come out of pandas as floats when a column once held a missing value; written as ``314.0`` they
    read as measurements. Columns whose values are fractions anywhere stay floats.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; only columns whose names say they hold counts (``n``, ``n_images``, ``skipped_*``,
        ``*_count``...) are converted.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when no column changes, else a copy with those columns as ``Int64``.
    """
    out = frame
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind != "f" or not len(values):
            continue
        finite = values.to_numpy()[np.isfinite(values.to_numpy())]
        whole = finite.size and np.array_equal(finite, np.round(finite)) and not np.isinf(values.to_numpy()).any()
        if whole and _count_like(str(column)):
            if out is frame:
                out = frame.copy()
            out[column] = values.astype("Int64")
    return out


_OUT = parameter("publish", "out")  # the results folder, as errors name it (a command: --out)
_COUNTS = {"n", "n_images", "n_units", "convergence_n", "images", "images_used", "annotators", "pixels", "order",
           "position", "iterations", "count"}


def _count_like(name: str) -> bool:
    """Columns that hold counts by name (quantiles of counts such as ``median_n`` are not counts)."""
    return name in _COUNTS or name.startswith("skipped_") or name.endswith(("_iterations", "_count"))


def open_results(path: str | os.PathLike) -> tuple[Path, dict]:
    """A complete results folder and its ``meta.json``; refuses incomplete or damaged ones (one line).

    Parameters
    ----------
    path : str or os.PathLike
        The results folder a study wrote.

    Returns
    -------
    (path, meta) : tuple of Path and dict
        The folder as a Path, and its ``meta.json`` (checked: its ``files`` are relative names inside it).

    Raises
    ------
    InputError
        When the folder has no ``meta.json`` (the run did not finish), an interrupted job left a replacement
        half done, or ``meta.json`` is damaged.
    """
    path = Path(path)
    if path.is_dir() and any(e.name.startswith(COMMIT) and transaction.job_folder(e) for e in path.iterdir()):
        raise InputError(f"{path}: a job was interrupted while replacing these results; run the study again "
                         "to complete it")
    try:
        return path, transaction.read_meta(path / META)
    except FileNotFoundError:
        raise InputError(f"{path}: no complete results here (meta.json missing: the run did not finish)") from None


@contextlib.contextmanager
def hold(path: str | os.PathLike) -> Iterator[Path]:
    """Hold a complete results folder's lock while files it lists are rewritten in place (a rebuilt report).

    Parameters
    ----------
    path : str or os.PathLike
        The results folder.

    Yields
    ------
    Path
        ``path`` as a Path, locked until the context ends.

    Raises
    ------
    InputError
        Another job is writing results there.
    """
    fd, _ = transaction.lock(Path(path))
    try:
        yield Path(path)
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        except OSError:
            pass
