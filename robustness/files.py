"""Files the package reads and writes.

Inputs are opened only when they are regular files, results are written atomically through a temporary sibling
with the usual permissions, and what an interrupted writer left behind is cleaned up.

Temporary names carry the writer's process id (``.<name>.<pid>.<random>.tmp``, and ``.partial`` folders of
:func:`robustness.io.write_dermavqa`) so that a later writer can tell a live writer's file from a dead one's;
nothing else is ever deleted (a user's ``.thesis.partial`` stays).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from robustness.errors import InputError, OutputError

__all__ = ["atomic_write", "file_mode", "remove_stale_temporaries", "open_regular", "kind_of", "NO_SPACE",
           "read_inside", "exists_inside", "MAX_TABLE_BYTES", "MAX_FIGURE_BYTES", "MAX_META_BYTES"]

# tempfile.mkstemp/mkdtemp add 8 characters of [a-z0-9_]
_TMP = re.compile(r"^\..+\.(?P<pid>[0-9]+)\.[a-z0-9_]+\.(tmp|partial)$")

#: The largest table, figure and meta.json read back from a results folder (bytes): well above what a study
#: writes (the default main job's largest table, curves.parquet, is a few MB; 10,000 orders about 0.5 GB), so a
#: link to /dev/zero or a planted giant file is refused before it is read.
MAX_TABLE_BYTES = 2 << 30
MAX_FIGURE_BYTES = 64 << 20
MAX_META_BYTES = 64 << 20

#: The errors that mean the results cannot be written for want of room (a full disk, a quota).
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


@functools.cache
def file_mode() -> int:
    """Mode of the files we create: ``0o666`` less the process umask (0644 under the usual umask 022).

    Computed once per process: from ``/proc/self/status`` where there is one, else by setting the umask and
    restoring it at once.

    Returns
    -------
    int
        The permission bits, e.g. ``0o644``.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


# -- reading inputs ----------------------------------------------------------------------------------------------

def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words: ``a regular file``, ``a folder``, ``a FIFO``...

    Parameters
    ----------
    mode : int
        The ``st_mode`` of an ``os.stat`` result.

    Returns
    -------
    str
        ``a regular file``, ``a folder``, ``a FIFO``, ``a character device``, ``a block device``, ``a socket``,
        else ``not a regular file``.
    """
    for test, words in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
                        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def open_regular(path: str | os.PathLike, *, what: str = "file") -> BinaryIO:
    """Open ``path`` for reading in binary mode when it is a regular file (a symbolic link to one is fine).

    A FIFO, a device or a socket is refused without blocking on it or reading it (``/dev/zero`` would never
    end), a folder is said to be one, a dangling link is called broken.

    Parameters
    ----------
    path : str or os.PathLike
        The file to open.
    what : str
        What the file is, in the message when it does not exist (default ``file``: ``<path>: file not found``).

    Returns
    -------
    BinaryIO
        The file, open for reading in binary (blocking) mode; the caller closes it.

    Raises
    ------
    InputError
        One line naming ``path``: ``file not found``, ``is a broken symbolic link``, ``is a folder, not a file``,
        ``is not a regular file (a FIFO)``...
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(f"{path}: is a broken symbolic link") from None
        raise InputError(f"{path}: {what} not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{path}: is a broken symbolic link (it loops)") from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO nobody writes to on some systems
            raise InputError(f"{path}: is not a regular file ({kind_of(os.stat(path).st_mode)})") from None
        raise InputError(f"{path}: cannot read the file ({exc.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError(f"{path}: is a folder, not a file")
        raise InputError(f"{path}: is not a regular file ({kind_of(mode)})")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _open_inside(root: Path, name: str) -> int:
    """A descriptor of ``root/name`` reached through no symbolic link below ``root`` (the caller closes it)."""
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise FileNotFoundError(name)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for k, part in enumerate(parts):
            folder = k < len(parts) - 1
            nxt = os.open(part, flags | (getattr(os, "O_DIRECTORY", 0) if folder else 0), dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_inside(root: str | os.PathLike, name: str, *, limit: int, what: str = "file") -> bytes:
    """The bytes of ``root/name``, a regular file of at most ``limit`` bytes reached through no symbolic link.

    How a results folder is read back (``python -m experiments.report``): as the package wrote it. A link (to
    ``/etc/shadow``, to a table elsewhere), a FIFO, a device or a file over ``limit`` is refused before a byte of
    it is read, in one line naming the file.

    Parameters
    ----------
    root : str or os.PathLike
        The folder (the one the user named; it may itself be reached through a link).
    name : str
        A relative name inside it (``figures/fig_04_forest.png``).
    limit : int
        The largest size read, in bytes.
    what : str
        What the file is, for the messages (default ``file``).

    Returns
    -------
    bytes

    Raises
    ------
    InputError
        ``ROOT/NAME: <what> is a symbolic link`` (or ``not found``, ``is not a regular file (a FIFO)``,
        ``holds N bytes, more than the limit of L``).
    """
    path = Path(root) / name
    try:
        fd = _open_inside(Path(root), name)
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise InputError(f"{path}: {what} is a symbolic link (or lies under one); a results folder is read as "
                             "the package wrote it, no link is followed") from None
        if exc.errno == errno.ENXIO:
            raise InputError(f"{path}: {what} is not a regular file (a socket or a FIFO)") from None
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: {what} is not a regular file ({kind_of(st.st_mode)})")
        if st.st_size > limit:
            raise InputError(f"{path}: {what} holds {st.st_size} bytes, more than the limit of {limit}")
        os.set_blocking(f.fileno(), True)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: {what} holds more than the limit of {limit} bytes")
    return data


def exists_inside(root: str | os.PathLike, name: str) -> bool:
    """Whether ``root/name`` is a regular file reached through no symbolic link (:func:`read_inside`).

    Parameters
    ----------
    root : str or os.PathLike
    name : str

    Returns
    -------
    bool
    """
    try:
        fd = _open_inside(Path(root), name)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    finally:
        os.close(fd)


# -- writing results ---------------------------------------------------------------------------------------------

def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """Write a file through ``write(fileobj)`` into a temporary sibling, then rename it into place.

    An interrupted write leaves at most a ``.<name>.<pid>.<random>.tmp`` file, which nothing reads and
    :func:`remove_stale_temporaries` deletes once its process is gone. The rename replaces a symbolic link
    at ``path`` instead of writing through it.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (its folder is created when missing; an existing file is replaced whole).
    write : callable
        ``write(fileobj)`` writes the content to a file open in binary mode (its return value is ignored); the
        file is flushed and synced to disk before the rename.

    Raises
    ------
    OutputError
        No room left on the device (or quota) while writing: one line naming ``path``; nothing is left behind.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    except OSError as exc:
        _no_space(exc, path)
        raise
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            _no_space(exc, path)
        if isinstance(exc, IsADirectoryError):
            raise OutputError(f"{path}: is a folder where a result file goes; remove it or choose another folder") \
                from None
        raise


def _no_space(exc: OSError, path) -> None:
    """Raise the one-line :class:`~robustness.errors.OutputError` when ``exc`` means a full disk or quota."""
    if exc.errno in NO_SPACE:
        raise OutputError(f"{path}: cannot write the file: {os.strerror(exc.errno).lower()}") from None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_temporaries(folder: str | os.PathLike) -> int:
    """Delete what an interrupted writer left in ``folder``.

    That is ``.<name>.<pid>.<random>.tmp`` files (:func:`atomic_write`) and ``.<name>.<pid>.<random>.partial``
    folders (:func:`robustness.io.write_dermavqa`) whose process no longer runs.

    Only those exact names are looked at: a user's ``.notes.tmp`` or ``.thesis.partial`` is never touched,
    however old.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder to clean (not its sub-folders); a folder that cannot be listed is left alone.

    Returns
    -------
    int
        How many files and folders were deleted (one that cannot be deleted is not counted).
    """
    removed = 0
    try:
        found = list(os.scandir(os.fspath(folder)))
    except OSError:
        return 0
    for entry in found:
        m = _TMP.match(entry.name)
        if m is None or _alive(int(m["pid"])):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
    return removed
