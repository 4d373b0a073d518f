"""Writing files safely: atomically through a temporary sibling, with the usual permissions, and cleaning up
what an interrupted writer left behind.

Temporary names carry the writer's process id (``.<name>.<pid>.<random>.tmp``)
so that a later writer can tell a live writer's file from a dead one's.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["atomic_write", "file_mode", "remove_stale_temporaries"]

_TMP = re.compile(r"^\..+\.(?P<pid>\d+)\.[^.]+\.(tmp|partial)$")


@functools.cache
def file_mode() -> int:
    """Mode of the files we create: ``0o666`` less the process umask (0644 under the usual umask 022)."""
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


def atomic_write(path: Path, write) -> None:
    """Write a file through ``write(fileobj)`` into a temporary sibling, then rename it into place.

    An interrupted write leaves at most a ``.<name>.<pid>.<random>.tmp`` file, which nothing reads and
    :func:`remove_stale_temporaries` deletes once its process is gone. The rename replaces a symbolic link
    at ``path`` instead of writing through it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(folder, *, max_age_s: float = 3600.0) -> int:
    """Delete what an interrupted writer left in ``folder``: ``*.tmp`` files (:func:`atomic_write`) and
    ``*.partial`` folders (:func:`robustness.io.write_dermavqa`).

    One tagged with the id of a process that no longer runs is deleted; an untagged one (older versions)
    once it is older than ``max_age_s``. Returns how many were deleted.
    """
    removed = 0
    try:
        found = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in found:
        if not (entry.name.startswith(".") and entry.name.endswith((".tmp", ".partial"))):
            continue
        m = _TMP.match(entry.name)
        try:
            old = time.time() - entry.stat(follow_symlinks=False).st_mtime > max_age_s
            if not (not _alive(int(m["pid"])) if m else old):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
    return removed
