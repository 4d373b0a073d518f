"""Result folders: atomic writes, provenance, and refusal to mix results of different inputs.

A results folder holds ``.inputs`` (the fingerprint of the input the results
came from, written first) and ``meta.json`` (written last, after every table).
A folder without ``meta.json`` is incomplete: an interrupted run leaves it
that way, and :func:`open_results` refuses to read it. A new run first deletes
the files the previous run listed in its ``meta.json`` (only those), so no
stale table survives beside the new ones.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

from .errors import InputError

__all__ = ["ResultsDir", "open_results", "atomic_write", "versions"]

META = "meta.json"
INPUTS = ".inputs"


def atomic_write(path: Path, write) -> None:
    """Write a file through ``write(fileobj)`` into a temporary sibling, then rename it into place.

    An interrupted write leaves at most a ``*.tmp`` file, which nothing reads.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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


class ResultsDir:
    """A folder being (re)written by one study.

    Parameters
    ----------
    path : path
    fingerprint : str
        Identity of the input data.
    force : bool
        Overwrite a folder that holds results of another input.

    Raises
    ------
    InputError
        ``path`` is non-empty and holds results of another input (or foreign
        files), unless ``force``.
    """

    def __init__(self, path, *, fingerprint: str, force: bool = False):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"{self.path}: output exists and is not a folder")
        if self.path.exists() and any(self.path.iterdir()) and not force:
            mark = self.path / INPUTS
            if not mark.exists() or mark.read_text().strip() != fingerprint:
                raise InputError(
                    f"{self.path}: output folder holds results of another input; "
                    "pass --force to overwrite it or choose another --out"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        self._remove_previous()
        try:
            (self.path / META).unlink()  # from now on the folder is incomplete
        except FileNotFoundError:
            pass
        self.write_text(INPUTS, fingerprint + "\n")
        self.written: list[str] = []

    def _remove_previous(self):
        """Delete the files the previous complete run listed in its meta.json (and nothing else),
        so that no stale table of an earlier run sits beside the new ones."""
        meta = self.path / META
        try:
            files = json.loads(meta.read_text()).get("files", [])
        except (FileNotFoundError, ValueError):
            return
        root = self.path.resolve()
        for name in files:
            p = (self.path / name).resolve()
            if root in p.parents and p.is_file():
                p.unlink()

    def file(self, name: str) -> Path:
        return self.path / name

    def _write(self, name, data: bytes):
        atomic_write(self.path / name, lambda f: f.write(data))
        if not name.startswith("."):
            self.written.append(name)

    def write_text(self, name: str, text: str):
        self._write(name, text.encode())

    def write_json(self, name: str, obj):
        self.write_text(name, json.dumps(obj, indent=2, default=str) + "\n")

    def write_csv(self, name: str, frame, **kw):
        self.write_text(name, frame.to_csv(float_format="%.17g", **kw))

    def write_parquet(self, name: str, frame):
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        self._write(name, buf.getvalue())

    def write_parquet_frames(self, name: str, frames):
        """One Parquet file from frames of the same columns, one row group each, written as they come
        (memory: one frame at a time)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        def write(f):
            writer = None
            for frame in frames:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(f, table.schema)
                writer.write_table(table)
            if writer is not None:
                writer.close()

        atomic_write(self.path / name, write)
        self.written.append(name)

    def finish(self, meta: dict):
        """Write ``meta.json`` last: the folder is complete."""
        meta = dict(meta, files=sorted(set(self.written)))
        atomic_write(self.path / META, lambda f: f.write((json.dumps(meta, indent=2, default=str) + "\n").encode()))


def open_results(path) -> tuple[Path, dict]:
    """A complete results folder and its ``meta.json``; refuses incomplete ones."""
    path = Path(path)
    meta = path / META
    if not meta.exists():
        raise InputError(f"{path}: no complete results here (meta.json missing: the run did not finish)")
    return path, json.loads(meta.read_text())


def versions() -> dict:
    """Versions of the package and of what its numbers depend on."""
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for name in ("robustness", "numpy", "scipy", "numba", "pandas", "matplotlib", "joblib", "SimpleITK",
                 "statsmodels", "tifffile", "imagecodecs", "pillow", "pyarrow"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    out["cpu_count"] = os.cpu_count()
    return out
