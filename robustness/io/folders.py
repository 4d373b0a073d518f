"""What the folder layouts share: the file-backed mask source, listing folders, shapes from headers, run policies.

Nothing here writes to an input folder. Whatever is skipped, repaired or
guessed is appended to ``notes`` (one line each), which the challenge keeps.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness.errors import InputError
from robustness.files import kind_of
from robustness.io.challenge import Challenge
from robustness.io.masks import MaskFormat, read_mask, read_shape
from robustness.io.volumes import read_volume

__all__ = ["FileSource", "folder", "entries", "not_a_file", "ignored_folders", "checked_shapes", "check_policy",
           "attach_runs", "check_run_name", "build", "examples"]


@dataclass(frozen=True)
class FileSource:
    """Masks read from files.

    ``paths[kind][name][image] -> Path`` (None: scored empty).

    Parameters
    ----------
    annotator_paths, run_paths : dict
        ``{annotator or run: [path or None per image]}``; None: no mask, scored as empty.
    annotator_format, run_format : MaskFormat
        How the annotators' and the runs' files are decoded (the truth's as the annotators').
    shapes : tuple of (int, int)
        Each image's shape (rows, columns), from the annotators' headers.
    truth_paths : tuple of Path, optional
        The latent true masks of a written synthetic challenge (``truth/``), one per image.
    labels : tuple of int, optional
        Multi-label masks: the label each image reads (an image is one label of one file; its mask is the voxels
        of that value, whatever the formats say).
    """

    annotator_paths: dict
    run_paths: dict
    annotator_format: MaskFormat
    run_format: MaskFormat
    shapes: tuple
    truth_paths: tuple | None = None  # the latent true masks of a written synthetic challenge (truth/)
    labels: tuple | None = None
    reads_into = True  # read(..., out=buffer) decodes into the caller's buffer

    @property
    def has_truth(self) -> bool:
        """Whether the latent true masks are known (``truth_paths`` given)."""
        return self.truth_paths is not None

    def read(self, image: int, kind: str, name: str, *,
             out: np.ndarray | None = None) -> tuple[np.ndarray, str | None]:
        """One mask and its note (see :meth:`robustness.io.challenge.Challenge.read`; ``out`` as :func:`read_mask`).

        Parameters
        ----------
        image : int
            Position of the image (0-based).
        kind : str
            ``"annotator"``, ``"run"`` or ``"truth"``.
        name : str
            The annotator or run (``"truth"`` for the latent truth).
        out : ndarray of uint8, optional
            A buffer the common TIFFs are decoded into (the mask is then a view of it).

        Returns
        -------
        mask : ndarray of bool, 2-D
            An all-False mask of the image's shape where there is no file.
        note : str or None
            One line naming the file and the repair applied while decoding it, else None.

        Raises
        ------
        InputError
            The file cannot be decoded, or its mask has another shape than the image.
        """
        if kind == "truth":
            if self.truth_paths is None:
                raise InputError("this challenge holds no true masks")
            table, fmt = {"truth": self.truth_paths}, self.annotator_format
        else:
            table = self.annotator_paths if kind == "annotator" else self.run_paths
            fmt = self.annotator_format if kind == "annotator" else self.run_format
        path = table[name][image]
        if path is None:
            return np.zeros(self.shapes[image], dtype=bool), None
        if self.labels is not None:
            mask, note = read_volume(path)[0] == self.labels[image], None
        else:
            mask, note = read_mask(path, fmt, out=out)
        if mask.shape != self.shapes[image]:
            raise InputError(
                f"{path}: mask has shape {mask.shape}, the image has shape {self.shapes[image]}"
            )
        return mask, note

    def subset(self, images: Sequence[int]) -> FileSource:
        """The same source restricted to ``images`` (positions), renumbered 0..: a batch's worth of paths.

        Parameters
        ----------
        images : sequence of int
            Positions (0-based), in the order the subset keeps.

        Returns
        -------
        FileSource
            The same formats, with only those images' paths and shapes.
        """
        pick = lambda seq: [seq[i] for i in images]  # noqa: E731
        return FileSource({a: pick(v) for a, v in self.annotator_paths.items()},
                          {s: pick(v) for s, v in self.run_paths.items()},
                          self.annotator_format, self.run_format, tuple(pick(self.shapes)),
                          None if self.truth_paths is None else tuple(pick(self.truth_paths)),
                          None if self.labels is None else tuple(pick(self.labels)))

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
        """Identity of the input (names, sizes, modification times): decides whether results are of this input.

        Returns
        -------
        dict
            ``files`` (a SHA-256 hex digest of every file's name, size and modification time) and the two
            formats' ``repr``.

        Raises
        ------
        InputError
            A file cannot be read (``stat`` fails).
        """
        return {
            "files": self._digest(("st_size", "st_mtime_ns")),
            "annotator_format": repr(self.annotator_format),
            "run_format": repr(self.run_format),
        } | ({} if self.labels is None else {"labels": list(self.labels)})

    def cache_key(self) -> str:
        """Key of cached counts: adds each file's inode and status-change time, which ``os.utime`` cannot restore.

        Rewriting a file in place and restoring its mtime still changes its ctime, and replacing it by
        another file changes its inode, so stale counts are never reused (one ``stat`` per file, as before).

        Returns
        -------
        str
            A SHA-256 hex digest.

        Raises
        ------
        InputError
            A file cannot be read (``stat`` fails).
        """
        return self._digest(("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev"))


# -- listing folders --------------------------------------------------------------------------------------------

_KINDS = {"dir": "a folder", "broken": "a broken symbolic link"}


def folder(path: str | os.PathLike, what: str) -> Path:
    """An input folder, checked: it exists (a symbolic link to one is fine) and is a folder.

    Parameters
    ----------
    path : str or os.PathLike
        The folder.
    what : str
        What the folder is, in the message (``challenge``, ``reference``, ``raters``...).

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    InputError
        The folder is missing, a broken symbolic link, or not a folder.
    """
    path = Path(path)
    if not path.exists():
        if path.is_symlink():
            raise InputError(f"{path}: {what} folder is a broken symbolic link (is its drive mounted?)")
        raise InputError(f"{path}: {what} folder not found")
    if not path.is_dir():
        raise InputError(f"{path}: {what} is not a folder")
    return path


def entries(path: Path) -> list[tuple[str, str]]:
    """``(name, kind)`` of every entry of a folder, sorted.

    The kind is ``file``, ``dir``, ``broken`` (a dangling or looping symbolic link) or what else it is in words
    (``a FIFO``, ``a character device``: a symbolic link to ``/dev/zero`` is one, not a broken link). Hidden
    entries (``.name``) are left out.

    Parameters
    ----------
    path : Path
        The folder to list.

    Returns
    -------
    list of (str, str)
        ``(name, kind)`` of every entry that is not hidden, sorted by name; symbolic links are followed.

    Raises
    ------
    InputError
        The folder cannot be listed.
    """
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
    """The error for an entry named like a mask that is not a regular file.

    Parameters
    ----------
    path : Path
        The entry.
    kind : str
        What it is, as :func:`entries` says (``dir``, ``broken``, ``a FIFO``...).

    Returns
    -------
    InputError
        One line naming ``path`` and what it is (for the caller to raise).
    """
    return InputError(f"{path}: named like a mask but is {_KINDS.get(kind, f'not a regular file ({kind})')}")


def ignored_folders(path: Path, names: Sequence[str], notes: list[str]) -> None:
    """The note that sub-folders of a mask folder are not read (masks lie in the folder itself).

    Parameters
    ----------
    path : Path
        The mask folder.
    names : sequence of str
        Its sub-folders; none: no note.
    notes : list of str
        Where the note is appended (one line naming ``path``, counting the sub-folders, with some examples).
    """
    if names:
        notes.append(f"{path}: ignored {len(names)} sub-folder(s) (masks are read from the folder itself, not from "
                     f"sub-folders): {examples(names)}")


def examples(names: Iterable[str], limit: int = 3) -> str:
    """The first names of a list for a one-line note, ``, ...`` marking that there are more.

    Parameters
    ----------
    names : iterable of str
        The names, in the order they are shown.
    limit : int
        How many are shown at most (default 3).

    Returns
    -------
    str
        E.g. ``a, b, c, ...``.

    Examples
    --------
    >>> examples(["a", "b", "c", "d"])
    'a, b, c, ...'
    >>> examples(["a", "b"])
    'a, b'
    """
    names = list(names)
    return ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")


# -- shapes and runs --------------------------------------------------------------------------------------------

def checked_shapes(images: Sequence[str], annotators: Iterable[str],
                   ann_paths: Mapping[str, Sequence[Path | None]],
                   notes: list[str] | None = None) -> list[tuple[int, int]]:
    """Each image's shape, from its annotator masks' headers, checked to be the same for all of them.

    Parameters
    ----------
    images : sequence of str
        The image ids.
    annotators : iterable of str
        The annotators, in the order their masks are compared.
    ann_paths : mapping of str to sequence of Path or None
        ``{annotator: [path or None per image]}``; None: the annotator has no mask of that image.
    notes : list of str, optional
        Collects what the decoders said while reading the headers (one line each, naming the file).

    Returns
    -------
    list of (int, int)
        (rows, columns) of every image, in the order of ``images``.

    Raises
    ------
    InputError
        A header cannot be read or fails a check, or two annotator masks of one image differ in shape.
    """
    shapes = []
    for i, image in enumerate(images):
        shape: tuple[int, int] | None = None
        first: Path | None = None
        for a in annotators:
            p = ann_paths[a][i]
            if p is None:
                continue
            s = read_shape(p, notes)
            if shape is None:
                shape, first = s, p
            elif s != shape:
                raise InputError(
                    f"{p}: annotator mask has shape {s}, but {getattr(first, 'name', '')} for the same image has "
                    f"{shape}"
                )
        if shape is None:
            raise InputError(f"image {image}: no annotator mask")
        shapes.append(shape)
    return shapes


def check_policy(name: str, value: str, choices: Sequence[str] = ("error", "skip")) -> None:
    """A loader option that names what to do with imperfect input.

    Parameters
    ----------
    name : str
        The option's name, in the message.
    value : str
        The value given.
    choices : sequence of str
        The values allowed (default ``error`` and ``skip``).

    Raises
    ------
    ValueError
        ``value`` is not one of ``choices``.
    """
    if value not in choices:
        raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, got {value!r}")


def attach_runs(images: Sequence[str], shapes: Sequence[tuple[int, int]],
                run_files: Mapping[str, Mapping[str, Path]], *, missing: str, mismatched: str, notes: list[str],
                key: Callable[[str], str] = lambda x: x) -> tuple[np.ndarray, dict[str, list[Path | None]]]:
    """Resolve every run's file per image; check shapes from headers; apply policies.

    Parameters
    ----------
    images : sequence of str
        The image ids.
    shapes : sequence of (int, int)
        Each image's shape (rows, columns), from :func:`checked_shapes`.
    run_files : mapping of str to mapping of str to Path
        ``{run: {image key: path}}``.
    missing : {'error', 'empty'}
        A run without a mask for some image: error, or score it as empty (with a note counting them).
    mismatched : {'error', 'skip'}
        A run's mask of another shape than the image: error, or drop the image (with a note).
    notes : list of str
        Where notes are appended: missing masks, masks of images not in the reference, dropped images, and
        what the decoders said while reading the headers.
    key : callable, optional
        ``key(image id)`` is the image's key in ``run_files`` (default: the id itself; ``str.lower`` to match
        names case-insensitively).

    Returns
    -------
    keep : ndarray of bool (n_images,)
        False where the image is dropped because a run's mask has another shape.
    run_paths : dict of str to list of Path or None
        ``{run: [path or None per image]}`` (None: no mask, scored as empty).

    Raises
    ------
    ValueError
        An unknown policy.
    InputError
        A missing mask or a shape mismatch under ``'error'``, or a header that cannot be read.
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
                                     "(--missing-masks empty scores missing masks as empty)")
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


def check_run_name(run: str, path: str | os.PathLike) -> None:
    """A run's name must be able to name its result files (``official/<run>.json``, ``/`` written ``__``).

    Parameters
    ----------
    run : str
        The run's name.
    path : str or os.PathLike
        Where the run was found (its folder or one of its masks), named in the message.

    Raises
    ------
    InputError
        The name starts with ``.``, holds a backslash or a control character.
    """
    name = run.replace("/", "__")
    why = ("starts with '.' (a hidden file)" if name.startswith(".") else "holds a backslash" if "\\" in name
           else "holds a control character" if any(ord(c) < 32 for c in name) else None)
    if why:
        raise InputError(f"{path}: run name '{run}' {why}, which cannot name its result files "
                         "(official/<run>.json): rename it")


def build(images: Sequence[str], encounters: Sequence[str], shapes: Sequence[tuple[int, int]],
          annotators: Sequence[str], ann_paths: Mapping[str, Sequence[Path | None]],
          run_paths: Mapping[str, Sequence[Path | None]], keep: np.ndarray, ann_fmt: MaskFormat,
          sys_fmt: MaskFormat, notes: Iterable[str], truth_paths: Sequence[Path] | None = None,
          labels: Sequence[int] | None = None, spacings: Sequence[tuple] | None = None) -> Challenge:
    """The file-backed challenge of the images that are kept.

    Parameters
    ----------
    images, encounters : sequence of str
        Each image's id and its encounter.
    shapes : sequence of (int, int)
        Each image's shape (rows, columns).
    annotators : sequence of str
        The annotators, in challenge order.
    ann_paths, run_paths : mapping of str to sequence of Path or None
        ``{annotator or run: [path or None per image]}``; None: no mask (an annotator that did not annotate the
        image, a run's mask scored as empty).
    keep : ndarray of bool
        Which images are kept (from :func:`attach_runs`).
    ann_fmt, sys_fmt : MaskFormat
        How the annotators' and the runs' files are decoded.
    notes : iterable of str
        What the loader did with imperfect input (kept by the challenge).
    truth_paths : sequence of Path, optional
        The latent true masks, one per image (a written synthetic challenge).
    labels : sequence of int, optional
        The label each image reads from its multi-label files (:class:`FileSource`).
    spacings : sequence of tuple, optional
        Each image's voxel size (medical images).

    Returns
    -------
    Challenge
        Over the kept images, with a :class:`FileSource`.

    Raises
    ------
    InputError
        No image is kept.
    """
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        raise InputError("no image left to score after dropping mismatched images")
    pick = lambda seq: [seq[i] for i in idx]  # noqa: E731
    ann_paths = {a: pick(v) for a, v in ann_paths.items()}
    run_paths = {s: pick(v) for s, v in run_paths.items()}
    shapes = tuple(tuple(s) for s in pick(shapes))
    annotated = np.array([[ann_paths[a][i] is not None for a in annotators] for i in range(idx.size)])
    truth_paths = None if truth_paths is None else tuple(pick(truth_paths))
    source = FileSource(ann_paths, run_paths, ann_fmt, sys_fmt, shapes, truth_paths,
                        None if labels is None else tuple(pick(labels)))
    return Challenge(
        images=tuple(pick(images)),
        encounters=tuple(pick(encounters)),
        shapes=shapes,
        annotators=tuple(annotators),
        annotated=annotated,
        runs=tuple(run_paths),
        source=source,
        notes=tuple(notes),
        spacings=None if spacings is None else tuple(tuple(v) for v in pick(spacings)),
    )
