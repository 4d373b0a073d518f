"""Result folders: staged writes, one replacement at the end, a lock, and refusal to mix inputs.

A study writes its new results into ``OUT/.staging-<pid>/``, nothing else in
``OUT`` changes while it computes. Only when every table and figure is there
(``meta.json`` last) are the previous results replaced:

1. the staging folder is renamed ``OUT/.commit-<pid>/`` (atomic: from here on the
   new results are complete and will be installed even if the process dies);
2. ``OUT/meta.json`` is removed, the files the previous run listed in it (and
   only those) are removed, the new files are moved in, ``meta.json`` last.

Before step 1 every result name is checked against what is in ``OUT`` (a
folder where a file goes, a file where a folder goes): a run that cannot be
installed is refused while the previous results are still whole.

A later job finishes an interrupted step 2 and deletes stale staging folders
(never trusting them). So a failed or interrupted run never destroys earlier
complete results, and a folder without ``meta.json`` is never read
(:func:`open_results`). ``OUT/.lock`` (``fcntl.flock``) keeps a second job out
while one is writing; ``OUT/.inputs`` holds the fingerprint of the input the
results came from. Nothing is written through a symbolic link: a symlink
inside ``OUT`` where a result goes is replaced, never followed, and nothing
outside ``OUT`` is created, replaced or deleted.

A job first checks, reading only, that ``OUT`` is its own (no results of
another input, unless ``force``; no damaged ``meta.json``): a refused job
creates nothing, not even ``OUT/.lock``. Only then does it lock, finish what a
killed job left and clean up; that touches only the names this module creates:
``.staging-<pid>`` and ``.commit-<pid>`` folders that hold its marker file
``.job`` (or are empty) and ``.<name>.<pid>.<random>.tmp`` files of dead
processes. A user's ``.commit-2024/`` or ``.staging-drafts/`` is never touched.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata as md
import io
import json
import os
import platform
import re
import shutil
import stat
import warnings
import weakref
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from robustness.errors import InputError, NoteWarning
from robustness.files import MAX_META_BYTES, atomic_write, file_mode, kind_of, read_inside, remove_stale_temporaries
from robustness.results.escape import csv_frame

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import pandas as pd

__all__ = ["ResultsDir", "open_results", "hold", "atomic_write", "check_output_folder", "remove_stale_temporaries",
           "versions"]

META = "meta.json"
INPUTS = ".inputs"
LOCK = ".lock"
PREVIOUS = ".previous"
STAGING = ".staging-"
COMMIT = ".commit-"
MARKER = ".job"  # the first file of every staging folder: what tells this module's folders from a user's
_JOB = re.compile(r"^\.(staging|commit)-[0-9]+$")
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


def _relative_name(name) -> bool:
    """A file name a results folder may list: relative, normalised, no ``..``, not hidden."""
    if not isinstance(name, str) or not name or "\0" in name or "\\" in name:
        return False
    parts = PurePosixPath(name).parts
    return (not name.startswith("/") and "/".join(parts) == name
            and all(p not in ("", ".", "..") and not p.startswith(".") for p in parts))


def _read_meta(path: Path) -> dict:
    """A results folder's ``meta.json``, checked: a JSON object whose ``files`` is a list of relative names.

    Read as the package wrote it (:func:`robustness.files.read_inside`): a link, a FIFO, a device or a file over
    :data:`~robustness.files.MAX_META_BYTES` is refused unread.
    """
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    if path.is_dir() and not path.is_symlink():
        raise InputError(f"{path}: is a folder, not a meta.json file")
    data = read_inside(path.parent, path.name, limit=MAX_META_BYTES, what="meta.json")
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{path}: damaged meta.json ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: damaged meta.json (not a JSON object)")
    files = meta.get("files", [])
    if not isinstance(files, list) or not all(_relative_name(f) for f in files):
        raise InputError(f"{path}: 'files' must be a list of relative file names inside the folder")
    return meta


def _read_mark(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _remove(path: Path) -> None:
    """Remove a file, link or folder we own (a link is removed, never followed)."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _real_parent(root: Path, name: str, *, create: bool) -> Path | None:
    """``root/name``'s parent folder with no symbolic link on the way (links are replaced when ``create``).

    Returns None when the way is blocked and ``create`` is False (nothing of ours can be there).
    """
    here = root
    for part in PurePosixPath(name).parts[:-1]:
        here = here / part
        if here.is_symlink():
            if not create:
                return None
            here.unlink()
        if not here.exists():
            if not create:
                return None
            here.mkdir()
        elif not here.is_dir():
            if not create:
                return None
            raise InputError(f"{here}: is a file where the results need a folder")
    return here


def _lock(root: Path) -> tuple[int, bool]:
    """Take ``root/.lock`` exclusively (``flock``); refuse when another process holds it.

    Returns the descriptor and whether this call created the lock file (a refused job then removes it).
    """
    path = root / LOCK
    flags = os.O_RDWR | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(5):
        if path.is_symlink():
            path.unlink()
        created = True
        try:
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, file_mode())
            except FileExistsError:
                created = False
                fd = os.open(path, flags)
        except FileNotFoundError:
            continue  # removed between the two opens: try again
        except OSError as exc:
            raise InputError(f"{path}: cannot open the lock file ({exc.strerror})") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)

            raise InputError(f"{path}: the lock file is not a regular file ({kind_of(mode)}); remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise InputError(f"{root}: another job (process {holder}) is writing results here; wait for it to "
                             "finish or choose another --out") from None
        try:
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # a refused job removed the file it had created while we waited: lock the new one
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd, created
    raise InputError(f"{path}: the lock file keeps changing; is another job starting here?")


def _undo(created: list[Path]) -> None:
    """Remove the (empty) folders a refused job created, innermost first."""
    for folder in reversed(created):
        try:
            folder.rmdir()
        except OSError:
            break


def _release(fd: int, staging: Path) -> None:
    _remove(staging)
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)  # for every copy of the descriptor too (forked workers hold one)
        os.close(fd)
    except OSError:
        pass


def _check_install(root: Path, names, previous=()) -> None:
    """Refuse, before anything is replaced, a result that cannot take its place in ``root``.

    That is a folder where a result file goes, or a file (not one of the previous results) where a result needs a
    folder.
    """
    ours = set(previous)
    for name in names:
        parts = PurePosixPath(name).parts
        here = root
        for k, part in enumerate(parts):
            here = here / part
            if here.is_symlink() or not os.path.lexists(here):
                break  # a link is replaced, a missing folder created
            last = k == len(parts) - 1
            if last and here.is_dir():
                raise InputError(f"{here}: is a folder where the results need a file; remove it or choose "
                                 "another --out")
            if not last and not here.is_dir() and "/".join(parts[:k + 1]) not in ours:
                raise InputError(f"{here}: is a file where the results need a folder ({name}); remove it or "
                                 "choose another --out")


def _install(root: Path, commit: Path) -> None:
    """Replace the results in ``root`` by the complete ones in ``commit``; safe to repeat after a kill."""
    meta = _read_meta(commit / META)
    new = set(meta["files"])
    try:
        previous = json.loads((commit / PREVIOUS).read_text())
    except (OSError, ValueError):
        previous = []
    if not isinstance(previous, list):
        previous = []
    _check_install(root, sorted(new), [p for p in previous if isinstance(p, str)])
    try:
        (root / META).unlink()  # from here on the old results are not complete
    except FileNotFoundError:
        pass
    for name in previous:
        if name in new or not _relative_name(name):
            continue
        parent = _real_parent(root, name, create=False)
        if parent is None:
            continue
        target = parent / PurePosixPath(name).name
        if target.is_symlink() or target.is_file():
            target.unlink()
            while parent != root and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
    for name in sorted(new) + [INPUTS]:
        src = commit / name
        if src.exists():
            parent = _real_parent(root, name, create=True)
            assert parent is not None  # create=True replaces links on the way
            os.replace(src, parent / PurePosixPath(name).name)
    os.replace(commit / META, root / META)
    _remove(commit)


def _job_folder(entry: Path) -> bool:
    """A ``.staging-<pid>`` or ``.commit-<pid>`` folder this module made: it holds the marker, or nothing."""
    if not _JOB.match(entry.name) or entry.is_symlink() or not entry.is_dir():
        return False
    try:
        return (entry / MARKER).is_file() or not any(entry.iterdir())
    except OSError:
        return False


def _created_folders(path: Path) -> list[Path]:
    """The folders ``path.mkdir(parents=True)`` is about to create, outermost first."""
    out = []
    here = path.absolute()
    while not os.path.lexists(here):
        out.append(here)
        here = here.parent
    return out[::-1]


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
        created = _created_folders(self.path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot create the output folder ({exc.strerror})") from None
        key = os.path.realpath(self.path)
        if key in _HELD:  # an earlier job of this process stopped without finishing
            _HELD.pop(key)()
        try:
            fd, made_lock = _lock(self.path)
        except BaseException:
            _undo(created)
            raise
        self.staging = self.path / f"{STAGING}{os.getpid()}"
        self._release = weakref.finalize(self, _release, fd, self.staging)
        _HELD[key] = self._release
        try:  # again under the lock: another job may have written meanwhile
            self._check_owner(fingerprint, force)
            self._previous_files(force)
        except BaseException:
            self._release()
            if made_lock:
                (self.path / LOCK).unlink(missing_ok=True)
            _undo(created)
            raise
        try:
            self._recover()
            for entry in self.path.iterdir():
                if entry.name.startswith(STAGING) and _job_folder(entry):
                    _remove(entry)  # left by a killed job: never trusted
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

    def _commits(self) -> list[Path]:
        found = [e for e in self.path.iterdir() if e.name.startswith(COMMIT) and _job_folder(e)]
        return sorted(found, key=lambda p: p.stat(follow_symlinks=False).st_mtime)

    def _recover(self):
        for commit in self._commits():
            if (commit / META).is_file():
                _install(self.path, commit)
                warnings.warn(f"{self.path}: completed the replacement of results that an interrupted job "
                              f"({commit.name[len(COMMIT):]}) had finished computing", NoteWarning, stacklevel=3)
            else:
                _remove(commit)

    def _check_owner(self, fingerprint, force):
        if force:
            return
        foreign = [e for e in self.path.iterdir() if e.name not in (LOCK, INPUTS) and not _job_folder(e)]
        marks = {_read_mark(self.path / INPUTS)} | {_read_mark(c / INPUTS) for c in self._commits()}
        if foreign and fingerprint not in marks and not self._only_our_cache(foreign):
            raise InputError(f"{self.path}: output folder holds results of another input; "
                             "pass --force to overwrite it or choose another --out")

    def _only_our_cache(self, foreign: list[Path]) -> bool:
        """Whether a run of ours left only its cache here (refused or interrupted before any result was written).

        The folder carries our input mark and no ``meta.json``, and its one other entry is the ``cache`` folder,
        whose entries are keyed by their own inputs: nothing of the user's and no result to protect.
        """
        return ((self.path / INPUTS).is_file() and not (self.path / META).exists()
                and all(e.name == "cache" and e.is_dir() and not e.is_symlink() for e in foreign))

    def _previous_files(self, force) -> list[str]:
        try:
            return list(_read_meta(self.path / META)["files"])
        except FileNotFoundError:
            return []
        except InputError:
            if force:
                return []  # cannot tell which files were ours: leave them, overwrite what we write
            raise InputError(f"{self.path / META}: damaged or not written by this package; "
                             "remove it, pass --force, or choose another --out") from None

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
        if not _relative_name(name):
            raise ValueError(f"result names are relative, normalised and not hidden; got {name!r}")
        path = self.staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def _write(self, name, data: bytes):
        atomic_write(self.file(name), lambda f: f.write(data))
        self.written.append(name)

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

    def finish(self, meta: dict) -> None:
        """Write ``meta.json`` last, then replace the previous results by this run's (see the module notes).

        Parameters
        ----------
        meta : dict
            What ``meta.json`` records of the run (settings, versions...); its ``files`` entry is set to the
            results written.

        Raises
        ------
        InputError
            When a result cannot take its place in the output folder (a folder where a file goes, or a file where
            a folder goes); the previous results are then left whole.
        """
        meta = dict(meta, files=sorted(set(self.written)))
        atomic_write(self.staging / PREVIOUS, lambda f: f.write(json.dumps(self.previous).encode()))
        atomic_write(self.staging / INPUTS, lambda f: f.write(f"{self.fingerprint}\n".encode()))
        _check_install(self.path, meta["files"], self.previous)  # refuse before replacing anything
        atomic_write(self.staging / META,
                     lambda f: f.write((json.dumps(meta, indent=2, default=str) + "\n").encode()))
        commit = self.path / f"{COMMIT}{os.getpid()}"
        os.rename(self.staging, commit)
        _install(self.path, commit)
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
    if path.is_dir() and any(e.name.startswith(COMMIT) and _job_folder(e) for e in path.iterdir()):
        raise InputError(f"{path}: a job was interrupted while replacing these results; run the study again "
                         "to complete it")
    try:
        return path, _read_meta(path / META)
    except FileNotFoundError:
        raise InputError(f"{path}: no complete results here (meta.json missing: the run did not finish)") from None


#: This package's distribution name on the package index (its import name is ``robustness``).
DISTRIBUTION = "leaderboard-robustness"


def versions() -> dict:
    """Versions of the package and of what its numbers depend on.

    Returns
    -------
    dict
        ``{"python": version, <distribution>: version or None (not installed)..., "cpu_count": int}``.
    """
    out: dict[str, str | int | None] = {"python": platform.python_version()}
    try:  # this package under its distribution name (another project's distribution is named "robustness")
        out["robustness"] = md.version(DISTRIBUTION)
    except md.PackageNotFoundError:
        out["robustness"] = None
    for name in ("numpy", "scipy", "numba", "pandas", "matplotlib", "joblib", "SimpleITK",
                 "statsmodels", "tifffile", "imagecodecs", "pillow", "pyarrow"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    out["cpu_count"] = os.cpu_count()
    return out


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
    fd, _ = _lock(Path(path))
    try:
        yield Path(path)
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        except OSError:
            pass
