"""What the folder layouts share: listing folders, shapes from headers, run policies, the challenge built.

Nothing here writes to an input folder. Whatever is skipped, repaired or
guessed is appended to ``notes`` (one line each), which the challenge keeps.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness.errors import InputError, parameter
from robustness.files import kind_of
from robustness.io.challenge import Challenge
from robustness.io.file_source import FileSource
from robustness.io.masks import MaskFormat, read_shape

__all__ = ["folder", "entries", "not_a_file", "ignored_folders", "checked_shapes", "check_policy",
           "attach_runs", "check_run_name", "build", "Listing", "examples"]


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
                                     f"({parameter('loader', 'missing')}='empty' scores missing masks as empty)")
                n_missing += 1
            else:
                s = read_shape(p, notes)
                if s != shapes[i]:
                    if mismatched == "error":
                        raise InputError(
                            f"{p}: run {run!r} mask has shape {s}, the image has shape {shapes[i]} "
                            f"({parameter('loader', 'mismatched')}='skip' drops such images)"
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


@dataclass(frozen=True)
class Listing:
    """What a loader found, image by image, before :func:`build` keeps the images.

    Attributes
    ----------
    images, encounters : sequence of str
        Each image's id and its encounter.
    shapes : sequence of tuple of int
        Each image's shape.
    annotators : sequence of str
        The annotators, in challenge order.
    annotator_paths, run_paths : mapping of str to sequence of Path or None
        ``{annotator or run: [path or None per image]}``; None: no mask (an annotator that did not annotate the
        image, a run's mask scored as empty).
    annotator_format, run_format : MaskFormat
        How the annotators' and the runs' files are decoded.
    truth_paths : sequence of Path, optional
        The latent true masks, one per image (a written synthetic challenge).
    labels : sequence of int or str, optional
        The label each image reads from its multi-label files (:class:`FileSource`), or its region's name.
    spacings : sequence of tuple, optional
        Each image's voxel size (medical images).
    regions : dict, optional
        Region name -> the label values whose union it is.
    """

    images: Sequence[str]
    encounters: Sequence[str]
    shapes: Sequence[tuple[int, ...]]
    annotators: Sequence[str]
    annotator_paths: Mapping[str, Sequence[Path | None]]
    run_paths: Mapping[str, Sequence[Path | None]]
    annotator_format: MaskFormat
    run_format: MaskFormat
    truth_paths: Sequence[Path] | None = None
    labels: Sequence[int | str] | None = None
    spacings: Sequence[tuple] | None = None
    regions: dict | None = None


def build(listing: Listing, keep: np.ndarray, notes: Iterable[str]) -> Challenge:
    """The file-backed challenge of the images that are kept.

    Parameters
    ----------
    listing : Listing
        What the loader found.
    keep : ndarray of bool
        Which images are kept (from :func:`attach_runs`).
    notes : iterable of str
        What the loader did with imperfect input (kept by the challenge).

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
    ann_paths = {a: pick(v) for a, v in listing.annotator_paths.items()}
    run_paths = {s: pick(v) for s, v in listing.run_paths.items()}
    shapes = tuple(tuple(s) for s in pick(listing.shapes))
    annotated = np.array([[ann_paths[a][i] is not None for a in listing.annotators] for i in range(idx.size)])
    truth_paths = None if listing.truth_paths is None else tuple(pick(listing.truth_paths))
    source = FileSource(ann_paths, run_paths, listing.annotator_format, listing.run_format, shapes, truth_paths,
                        None if listing.labels is None else tuple(pick(listing.labels)),
                        None if listing.regions is None else tuple((n, tuple(v)) for n, v in listing.regions.items()))
    return Challenge(
        images=tuple(pick(listing.images)),
        encounters=tuple(pick(listing.encounters)),
        shapes=shapes,
        annotators=tuple(listing.annotators),
        annotated=annotated,
        runs=tuple(run_paths),
        source=source,
        notes=tuple(notes),
        spacings=None if listing.spacings is None else tuple(tuple(v) for v in pick(listing.spacings)),
    )
