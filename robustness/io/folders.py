"""What the folder layouts share: the file-backed mask source, listing folders, shapes from headers, run policies.

Nothing here writes to an input folder. Whatever is skipped, repaired or
guessed is appended to ``notes`` (one line each), which the challenge keeps.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness.errors import InputError
from robustness.io.challenge import Challenge
from robustness.io.masks import MaskFormat, read_mask, read_shape

__all__ = ["FileSource", "folder", "entries", "not_a_file", "ignored_folders", "checked_shapes", "check_policy",
           "attach_runs", "check_run_name", "build", "examples"]


@dataclass(frozen=True)
class FileSource:
    """Masks read from files. ``paths[kind][name][image] -> Path`` (None: scored empty)."""

    annotator_paths: dict
    run_paths: dict
    annotator_format: MaskFormat
    run_format: MaskFormat
    shapes: tuple
    truth_paths: tuple | None = None  # the latent true masks of a written synthetic challenge (truth/)
    reads_into = True  # read(..., out=buffer) decodes into the caller's buffer

    @property
    def has_truth(self) -> bool:
        return self.truth_paths is not None

    def read(self, image: int, kind: str, name: str, *, out=None):
        """One mask and its note (see :meth:`robustness.io.challenge.Challenge.read`; ``out`` as :func:`read_mask`)."""
        if kind == "truth":
            table, fmt = {"truth": self.truth_paths}, self.annotator_format
        else:
            table = self.annotator_paths if kind == "annotator" else self.run_paths
            fmt = self.annotator_format if kind == "annotator" else self.run_format
        path = table[name][image]
        if path is None:
            return np.zeros(self.shapes[image], dtype=bool), None
        mask, note = read_mask(path, fmt, out=out)
        if mask.shape != self.shapes[image]:
            raise InputError(
                f"{path}: mask has shape {mask.shape}, the image has shape {self.shapes[image]}"
            )
        return mask, note

    def subset(self, images) -> FileSource:
        """The same source restricted to ``images`` (positions), renumbered 0..: a batch's worth of paths."""
        pick = lambda seq: [seq[i] for i in images]  # noqa: E731
        return FileSource({a: pick(v) for a, v in self.annotator_paths.items()},
                          {s: pick(v) for s, v in self.run_paths.items()},
                          self.annotator_format, self.run_format, tuple(pick(self.shapes)),
                          None if self.truth_paths is None else tuple(pick(self.truth_paths)))

    def _digest(self, fields) -> str:
        h = hashlib.sha256()
        truth = {} if self.truth_paths is None else {"<truth>": self.truth_paths}
        for table in (self.annotator_paths, self.run_paths, truth):
            for name in sorted(table):
                for p in table[name]:
                    if p is None:
                        h.update(b"<none>")
                        continue
                    try:
                        st = os.stat(p)
                    except OSError as exc:
                        raise InputError(f"{p}: cannot read the file ({exc.strerror})") from None
                    stamp = "|".join(str(getattr(st, f)) for f in fields)
                    h.update(f"{name}|{Path(p).name}|{stamp}".encode())
        return h.hexdigest()

    def fingerprint(self) -> dict:
        """Identity of the input (names, sizes, modification times): decides whether results are of this input."""
        return {
            "files": self._digest(("st_size", "st_mtime_ns")),
            "annotator_format": repr(self.annotator_format),
            "run_format": repr(self.run_format),
        }

    def cache_key(self) -> str:
        """Key of cached counts: adds each file's inode and status-change time, which ``os.utime`` cannot restore.

        Rewriting a file in place and restoring its mtime still changes its ctime, and replacing it by
        another file changes its inode, so stale counts are never reused (one ``stat`` per file, as before).
        """
        return self._digest(("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev"))


# -- listing folders --------------------------------------------------------------------------------------------

_KINDS = {"dir": "a folder", "broken": "a broken symbolic link"}


def folder(path, what) -> Path:
    path = Path(path)
    if not path.exists():
        if path.is_symlink():
            raise InputError(f"{path}: {what} folder is a broken symbolic link (is its drive mounted?)")
        raise InputError(f"{path}: {what} folder not found")
    if not path.is_dir():
        raise InputError(f"{path}: {what} is not a folder")
    return path


def entries(path: Path) -> list[tuple[str, str]]:
    """``(name, kind)`` of every entry of a folder, sorted; kind is ``file``, ``dir``, ``broken`` (a dangling or
    looping symbolic link) or what else it is in words (``a FIFO``, ``a character device``: a symbolic link to
    ``/dev/zero`` is one, not a broken link). Hidden entries (``.name``) are left out."""
    from robustness.files import kind_of

    out = []
    try:
        with os.scandir(path) as it:
            items = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"{path}: cannot list the folder ({exc.strerror})") from None
    for e in items:
        if e.name.startswith("."):
            continue
        try:
            if e.is_file():
                kind = "file"
            elif e.is_dir():
                kind = "dir"
            else:
                kind = kind_of(os.stat(e.path).st_mode)  # follows a link: what it points to
        except OSError:
            kind = "broken"
        out.append((e.name, kind))
    return out


def not_a_file(path: Path, kind: str) -> InputError:
    return InputError(f"{path}: named like a mask but is {_KINDS.get(kind, f'not a regular file ({kind})')}")


def ignored_folders(path: Path, names, notes: list) -> None:
    """The note that sub-folders of a mask folder are not read (masks lie in the folder itself)."""
    if names:
        notes.append(f"{path}: ignored {len(names)} sub-folder(s) (masks are read from the folder itself, not from "
                     f"sub-folders): {examples(names)}")


def examples(names, limit: int = 3) -> str:
    names = list(names)
    return ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")


# -- shapes and runs --------------------------------------------------------------------------------------------

def checked_shapes(images, annotators, ann_paths, notes=None) -> list[tuple[int, int]]:
    shapes = []
    for i, image in enumerate(images):
        shape, first = None, None
        for a in annotators:
            p = ann_paths[a][i]
            if p is None:
                continue
            s = read_shape(p, notes)
            if shape is None:
                shape, first = s, p
            elif s != shape:
                raise InputError(
                    f"{p}: annotator mask has shape {s}, but {first.name} for the same image has {shape}"
                )
        shapes.append(shape)
    return shapes


def check_policy(name: str, value: str, choices=("error", "skip")) -> None:
    """A loader option that names what to do with imperfect input."""
    if value not in choices:
        raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, got {value!r}")


def attach_runs(images, shapes, run_files, *, missing, mismatched, notes, key=lambda x: x):
    """Resolve every run's file per image; check shapes from headers; apply policies.

    Returns ``(keep, run_paths)`` where ``keep`` is a boolean array over
    images (False: dropped because a run's mask has another shape).
    """
    check_policy("missing", missing, ("error", "empty"))
    check_policy("mismatched", mismatched)
    keep = np.ones(len(images), dtype=bool)
    run_paths = {}
    wanted = {key(im) for im in images}
    for run, files in run_files.items():
        paths = []
        n_missing = 0
        for i, image in enumerate(images):
            p = files.get(key(image))
            if p is None:
                if missing == "error":
                    raise InputError(f"run {run!r} has no mask for image {image} "
                                     "(--missing empty scores missing masks as empty)")
                n_missing += 1
            else:
                s = read_shape(p, notes)
                if s != shapes[i]:
                    if mismatched == "error":
                        raise InputError(
                            f"{p}: run {run!r} mask has shape {s}, the image has shape {shapes[i]} "
                            "(--skip-mismatched drops such images)"
                        )
                    keep[i] = False
            paths.append(p)
        if n_missing:
            notes.append(f"run {run!r} misses {n_missing} of {len(images)} images: scored as empty masks")
        extra = sorted(set(files) - wanted)
        if extra:
            notes.append(f"run {run!r} has {len(extra)} masks for images not in the reference (ignored), "
                         f"e.g. {extra[0]}")
        run_paths[run] = paths
    if not keep.all():
        dropped = [im for im, k in zip(images, keep) if not k]
        notes.append(f"dropped {len(dropped)} image(s) where a run's mask shape differs from the image: "
                     + examples(dropped, 5))
    return keep, run_paths


def check_run_name(run: str, path) -> None:
    """A run's name must be able to name its result files (``official/<run>.json``, ``/`` written ``__``)."""
    name = run.replace("/", "__")
    why = ("starts with '.' (a hidden file)" if name.startswith(".") else "holds a backslash" if "\\" in name
           else "holds a control character" if any(ord(c) < 32 for c in name) else None)
    if why:
        raise InputError(f"{path}: run name '{run}' {why}, which cannot name its result files "
                         "(official/<run>.json): rename it")


def build(images, encounters, shapes, annotators, ann_paths, run_paths, keep, ann_fmt, sys_fmt,
          notes, truth_paths=None) -> Challenge:
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        raise InputError("no image left to score after dropping mismatched images")
    pick = lambda seq: [seq[i] for i in idx]  # noqa: E731
    ann_paths = {a: pick(v) for a, v in ann_paths.items()}
    run_paths = {s: pick(v) for s, v in run_paths.items()}
    shapes = tuple(tuple(s) for s in pick(shapes))
    annotated = np.array([[ann_paths[a][i] is not None for a in annotators] for i in range(idx.size)])
    truth_paths = None if truth_paths is None else tuple(pick(truth_paths))
    source = FileSource(ann_paths, run_paths, ann_fmt, sys_fmt, shapes, truth_paths)
    return Challenge(
        images=tuple(pick(images)),
        encounters=tuple(pick(encounters)),
        shapes=shapes,
        annotators=tuple(annotators),
        annotated=annotated,
        runs=tuple(run_paths),
        source=source,
        notes=tuple(notes),
    )
