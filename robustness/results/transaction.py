"""How a results folder is replaced: staged writes, one replacement at the end, a lock, and refusal to mix inputs.

The protocol :class:`~robustness.results.folder.ResultsDir` follows, as functions on paths.

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

import fcntl
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from robustness.errors import InputError, parameter
from robustness.files import MAX_META_BYTES, file_mode, kind_of, read_inside

META = "meta.json"
INPUTS = ".inputs"
LOCK = ".lock"
PREVIOUS = ".previous"
STAGING = ".staging-"
COMMIT = ".commit-"
MARKER = ".job"  # the first file of every staging folder: what tells this module's folders from a user's
JOB = re.compile(r"^\.(staging|commit)-[0-9]+$")


def relative_name(name: object) -> bool:
    """A file name a results folder may list: relative, normalised, no ``..``, not hidden.

    Parameters
    ----------
    name : object
        A name read from ``meta.json`` (anything JSON holds).

    Returns
    -------
    bool
        True for a relative POSIX name whose parts are neither empty, ``.``, ``..`` nor hidden.
    """
    if not isinstance(name, str) or not name or "\0" in name or "\\" in name:
        return False
    parts = PurePosixPath(name).parts
    return (not name.startswith("/") and "/".join(parts) == name
            and all(p not in ("", ".", "..") and not p.startswith(".") for p in parts))


def read_meta(path: Path) -> dict:
    """A results folder's ``meta.json``, checked: a JSON object whose ``files`` is a list of relative names.

    Read as the package wrote it (:func:`robustness.files.read_inside`): a link, a FIFO, a device or a file over
    :data:`~robustness.files.MAX_META_BYTES` is refused unread.

    Parameters
    ----------
    path : Path
        The ``meta.json`` file.

    Returns
    -------
    dict
        The parsed object.

    Raises
    ------
    FileNotFoundError
        There is no ``meta.json`` (the run did not finish).
    InputError
        It is a folder, a link or not a file, too large, not JSON, not an object, or ``files`` is not a list of
        relative names.
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
    if not isinstance(files, list) or not all(relative_name(f) for f in files):
        raise InputError(f"{path}: 'files' must be a list of relative file names inside the folder")
    return meta


def read_mark(path: Path) -> str | None:
    """The text of a marker file (``.inputs``, ``.job``).

    Parameters
    ----------
    path : Path
        The marker file.

    Returns
    -------
    str or None
        Its stripped ASCII text, or None when it is missing or cannot be read as ASCII.
    """
    try:
        return path.read_bytes().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def remove(path: Path) -> None:
    """Remove a file, link or folder we own (a link is removed, never followed).

    Parameters
    ----------
    path : Path
        What to remove; nothing happens when it is missing.
    """
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def real_parent(root: Path, name: str, *, create: bool) -> Path | None:
    """``root/name``'s parent folder with no symbolic link on the way (links are replaced when ``create``).

    Parameters
    ----------
    root : Path
        The results folder.
    name : str
        A relative result name.
    create : bool
        Create missing folders and replace links on the way (else only look).

    Returns
    -------
    Path or None
        The parent folder, or None when the way is blocked and ``create`` is False (nothing of ours can be there).

    Raises
    ------
    InputError
        With ``create``, a file is where the name needs a folder.
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


def lock(root: Path) -> tuple[int, bool]:
    """Take ``root/.lock`` exclusively (``flock``); refuse when another process holds it.

    Parameters
    ----------
    root : Path
        The results folder (it exists).

    Returns
    -------
    (fd, created) : tuple of int and bool
        The locked descriptor (the holder's process id written in it) and whether this call created the lock
        file (a refused job then removes it).

    Raises
    ------
    InputError
        Another job holds the lock, or the lock file cannot be opened or is not a regular file.
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
                             f"finish or choose another {parameter('publish', 'out')}") from None
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


def undo(created: list[Path]) -> None:
    """Remove the (empty) folders a refused job created, innermost first.

    Parameters
    ----------
    created : list of Path
        The folders :func:`created_folders` listed, outermost first; removal stops at the first one not empty.
    """
    for folder in reversed(created):
        try:
            folder.rmdir()
        except OSError:
            break


def release(fd: int, staging: Path) -> None:
    """Remove a job's staging folder and give up its lock (a finaliser: never raises on the lock).

    Parameters
    ----------
    fd : int
        The lock's descriptor (:func:`lock`).
    staging : Path
        The job's staging folder.
    """
    remove(staging)
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)  # for every copy of the descriptor too (forked workers hold one)
        os.close(fd)
    except OSError:
        pass


def check_install(root: Path, names: Iterable[str], previous: Iterable[str] = ()) -> None:
    """Refuse, before anything is replaced, a result that cannot take its place in ``root``.

    That is a folder where a result file goes, or a file (not one of the previous results) where a result needs a
    folder.

    Parameters
    ----------
    root : Path
        The results folder.
    names : iterable of str
        The new results' relative names.
    previous : iterable of str
        The previous results' names (files among them may be replaced by folders).

    Raises
    ------
    InputError
        One line naming the path that blocks a result.
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
                                 f"another {parameter('publish', 'out')}")
            if not last and not here.is_dir() and "/".join(parts[:k + 1]) not in ours:
                raise InputError(f"{here}: is a file where the results need a folder ({name}); remove it or "
                                 f"choose another {parameter('publish', 'out')}")


def install(root: Path, commit: Path) -> None:
    """Replace the results in ``root`` by the complete ones in ``commit``; safe to repeat after a kill.

    Parameters
    ----------
    root : Path
        The results folder.
    commit : Path
        A ``.commit-<pid>`` folder: complete results, ``meta.json`` and the previous run's file list.
    """
    meta = read_meta(commit / META)
    new = set(meta["files"])
    try:
        previous = json.loads((commit / PREVIOUS).read_text())
    except (OSError, ValueError):
        previous = []
    if not isinstance(previous, list):
        previous = []
    check_install(root, sorted(new), [p for p in previous if isinstance(p, str)])
    try:
        (root / META).unlink()  # from here on the old results are not complete
    except FileNotFoundError:
        pass
    for name in previous:
        if name in new or not relative_name(name):
            continue
        parent = real_parent(root, name, create=False)
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
            parent = real_parent(root, name, create=True)
            assert parent is not None  # create=True replaces links on the way
            os.replace(src, parent / PurePosixPath(name).name)
    os.replace(commit / META, root / META)
    remove(commit)


def job_folder(entry: Path) -> bool:
    """A ``.staging-<pid>`` or ``.commit-<pid>`` folder this module made: it holds the marker, or nothing.

    Parameters
    ----------
    entry : Path
        An entry of a results folder.

    Returns
    -------
    bool
        True for a real folder (not a link) named like a job's that holds :data:`MARKER` or is empty.
    """
    if not JOB.match(entry.name) or entry.is_symlink() or not entry.is_dir():
        return False
    try:
        return (entry / MARKER).is_file() or not any(entry.iterdir())
    except OSError:
        return False


def created_folders(path: Path) -> list[Path]:
    """The folders ``path.mkdir(parents=True)`` is about to create, outermost first.

    Parameters
    ----------
    path : Path
        The output folder.

    Returns
    -------
    list of Path
        The missing folders on the way to ``path`` (absolute), outermost first.
    """
    out = []
    here = path.absolute()
    while not os.path.lexists(here):
        out.append(here)
        here = here.parent
    return out[::-1]
