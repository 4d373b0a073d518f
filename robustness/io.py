"""Reading challenges from disk: mask decoding and the two supported folder layouts.

Layouts
-------
``dermavqa`` (MEDIQA-MAGIC 2025 / DermaVQA-DAS)
    ``CHALLENGE/reference/IMG_{ENC}_{IMG}_mask_{annK}.tiff`` and
    ``CHALLENGE/submissions/<run>/IMG_{ENC}_{IMG}_mask_{SYS}.tiff`` (one folder
    per run, the run named by its folder), or a submissions folder holding the
    masks of several runs directly, told apart by their suffix ``{SYS}``.
    Foreground is the value 1, as in the official scorer.
``raters``
    One sub-folder per rater, each holding one mask per image under the same
    file name (PNG or TIFF; names matched case-insensitively). The user says
    which raters are gold annotators and which pixel value is foreground.

Masks are decoded by :mod:`robustness.masks` (its rules: every repair reported, never silent).

Nothing in an input folder is ever written to.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .data import Challenge
from .errors import InputError
from .masks import MASK_SUFFIXES, MaskFormat, read_mask, read_shape

__all__ = [
    "MaskFormat",
    "read_mask",
    "read_shape",
    "load_dermavqa",
    "load_raters",
    "load_challenge",
    "MASK_SUFFIXES",
    "write_dermavqa",
]

_MASK_NAME = re.compile(r"^(?P<image>.+?)_mask_(?P<rater>.+)\.tiff?$", re.IGNORECASE)
_IMAGE_ID = re.compile(r"^IMG_(?P<encounter>.+)_[^_]+$")


# -- file-backed mask source ------------------------------------------------

@dataclass(frozen=True)
class FileSource:
    """Masks read from files. ``paths[kind][name][image] -> Path`` (None: scored empty)."""

    annotator_paths: dict
    system_paths: dict
    annotator_format: MaskFormat
    system_format: MaskFormat
    shapes: tuple

    def read(self, image: int, kind: str, name: str):
        table = self.annotator_paths if kind == "annotator" else self.system_paths
        fmt = self.annotator_format if kind == "annotator" else self.system_format
        path = table[name][image]
        if path is None:
            return np.zeros(self.shapes[image], dtype=bool), None
        mask, note = read_mask(path, fmt)
        if mask.shape != self.shapes[image]:
            raise InputError(
                f"{path}: mask has shape {mask.shape}, the image has shape {self.shapes[image]}"
            )
        return mask, note

    def fingerprint(self) -> dict:
        h = hashlib.sha256()
        for table in (self.annotator_paths, self.system_paths):
            for name in sorted(table):
                for p in table[name]:
                    if p is None:
                        h.update(b"<none>")
                        continue
                    st = os.stat(p)
                    h.update(f"{name}|{Path(p).name}|{st.st_size}|{st.st_mtime_ns}".encode())
        return {
            "files": h.hexdigest(),
            "annotator_format": repr(self.annotator_format),
            "system_format": repr(self.system_format),
        }


# -- layouts ----------------------------------------------------------------

def _dir(path, what) -> Path:
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: {what} folder not found")
    if not path.is_dir():
        raise InputError(f"{path}: {what} is not a folder")
    return path


def _scan_dermavqa(folder: Path, what: str) -> dict[str, dict[str, Path]]:
    """``{rater: {image: path}}`` for every ``*_mask_*.tif(f)`` file in ``folder``."""
    out: dict[str, dict[str, Path]] = {}
    with os.scandir(folder) as it:
        entries = sorted((e.name, e.is_file()) for e in it)
    for name, is_file in entries:
        m = _MASK_NAME.match(name)
        if not is_file or m is None:
            continue
        p = folder / name
        rater, image = m["rater"], m["image"]
        prev = out.setdefault(rater, {}).get(image)
        if prev is not None:
            raise InputError(f"{p}: duplicate {what} mask for image {image}, rater {rater} (also {prev.name})")
        out[rater][image] = p
    return out


def _encounter_of(image: str) -> str:
    m = _IMAGE_ID.match(image)
    return m["encounter"] if m else image


def _checked_shapes(images, annotators, ann_paths) -> list[tuple[int, int]]:
    shapes = []
    for i, image in enumerate(images):
        shape, first = None, None
        for a in annotators:
            p = ann_paths[a][i]
            if p is None:
                continue
            s = read_shape(p)
            if shape is None:
                shape, first = s, p
            elif s != shape:
                raise InputError(
                    f"{p}: annotator mask has shape {s}, but {first.name} for the same image has {shape}"
                )
        shapes.append(shape)
    return shapes


def _attach_systems(images, shapes, systems_files, *, missing, mismatched, notes, key=lambda x: x):
    """Resolve every run's file per image; check shapes from headers; apply policies.

    Returns ``(keep, system_paths)`` where ``keep`` is a boolean array over
    images (False: dropped because a run's mask has another shape).
    """
    if missing not in ("error", "empty"):
        raise ValueError(f"missing must be 'error' or 'empty', got {missing!r}")
    if mismatched not in ("error", "skip"):
        raise ValueError(f"mismatched must be 'error' or 'skip', got {mismatched!r}")
    keep = np.ones(len(images), dtype=bool)
    system_paths = {}
    wanted = {key(im) for im in images}
    for run, files in systems_files.items():
        paths = []
        n_missing = 0
        for i, image in enumerate(images):
            p = files.get(key(image))
            if p is None:
                if missing == "error":
                    raise InputError(
                        f"run {run!r} has no mask for image {image} "
                        f"(pass missing='empty' / --missing empty to score missing masks as empty)"
                    )
                n_missing += 1
            else:
                s = read_shape(p)
                if s != shapes[i]:
                    if mismatched == "error":
                        raise InputError(
                            f"{p}: run {run!r} mask has shape {s}, the image has shape {shapes[i]} "
                            "(pass mismatched='skip' / --skip-mismatched to drop such images)"
                        )
                    keep[i] = False
            paths.append(p)
        if n_missing:
            notes.append(f"run {run!r} misses {n_missing} of {len(images)} images: scored as empty masks")
        extra = sorted(set(files) - wanted)
        if extra:
            notes.append(f"run {run!r} has {len(extra)} masks for images not in the reference (ignored), e.g. {extra[0]}")
        system_paths[run] = paths
    if not keep.all():
        dropped = [im for im, k in zip(images, keep) if not k]
        notes.append(
            f"dropped {len(dropped)} image(s) where a run's mask shape differs from the image: "
            + ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        )
    return keep, system_paths


def _build(images, encounters, shapes, annotators, ann_paths, system_paths, keep,
           ann_fmt, sys_fmt, notes) -> Challenge:
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        raise InputError("no image left to score after dropping mismatched images")
    pick = lambda seq: [seq[i] for i in idx]  # noqa: E731
    ann_paths = {a: pick(v) for a, v in ann_paths.items()}
    system_paths = {s: pick(v) for s, v in system_paths.items()}
    shapes = tuple(tuple(s) for s in pick(shapes))
    annotated = np.array([[ann_paths[a][i] is not None for a in annotators] for i in range(idx.size)])
    source = FileSource(ann_paths, system_paths, ann_fmt, sys_fmt, shapes)
    return Challenge(
        images=tuple(pick(images)),
        encounters=tuple(pick(encounters)),
        shapes=shapes,
        annotators=tuple(annotators),
        annotated=annotated,
        systems=tuple(system_paths),
        source=source,
        notes=tuple(notes),
    )


def load_dermavqa(
    data: str | os.PathLike | None = None,
    *,
    reference: str | os.PathLike | None = None,
    submissions: str | os.PathLike | None = None,
    binarize: bool = False,
    strict: bool = True,
    missing: str = "error",
    mismatched: str = "error",
) -> Challenge:
    """Load a challenge in the MEDIQA-MAGIC 2025 (DermaVQA-DAS) layout.

    Parameters
    ----------
    data : path, optional
        A challenge folder holding ``reference/`` and ``submissions/``.
    reference, submissions : path, optional
        The two folders, given separately (override ``data``).
    binarize : bool
        Read every non-zero value as foreground (for 0/255 masks). Without
        it foreground is exactly the value 1, as in the official scorer.
    strict : bool
        Reject masks with values other than 0 and 1 (default, since the
        official scorer silently reads such values as background).
    missing : {'error', 'empty'}
        A run without a mask for some image: error, or score it as empty.
    mismatched : {'error', 'skip'}
        A run's mask of another shape than the image: error, or drop the image.

    Returns
    -------
    Challenge
        Images sorted by id; annotators sorted by name; runs sorted by name.
    """
    if data is None and (reference is None or submissions is None):
        raise ValueError("give a challenge folder, or both reference= and submissions=")
    if data is not None:
        root = _dir(data, "challenge")
        reference = reference if reference is not None else root / "reference"
        submissions = submissions if submissions is not None else root / "submissions"
    ref_dir = _dir(reference, "reference")
    sub_dir = _dir(submissions, "submissions")
    notes: list[str] = []
    by_rater = _scan_dermavqa(ref_dir, "reference")
    if not by_rater:
        raise InputError(f"{ref_dir}: no reference masks named IMG_<encounter>_<image>_mask_<annotator>.tiff found")
    annotators = sorted(by_rater)
    images = sorted({im for v in by_rater.values() for im in v})
    ann_paths = {a: [by_rater[a].get(im) for im in images] for a in annotators}

    runs: dict[str, dict[str, Path]] = {}
    for sub in sorted(p for p in sub_dir.iterdir() if p.is_dir()):
        found = _scan_dermavqa(sub, f"run {sub.name}")
        if len(found) == 1:
            runs[sub.name] = next(iter(found.values()))
        else:
            for suffix, files in found.items():
                runs[f"{sub.name}/{suffix}"] = files
    for suffix, files in _scan_dermavqa(sub_dir, "submission").items():
        if suffix in runs:
            raise InputError(f"{sub_dir}: run {suffix!r} appears both as a folder and as a file suffix")
        runs[suffix] = files
    if not runs:
        raise InputError(f"{sub_dir}: no run masks named IMG_<encounter>_<image>_mask_<run>.tiff found")

    shapes = _checked_shapes(images, annotators, ann_paths)
    keep, system_paths = _attach_systems(images, shapes, runs, missing=missing, mismatched=mismatched, notes=notes)
    fmt = MaskFormat(foreground=1, background=0, binarize=binarize, strict=strict)
    encounters = [_encounter_of(im) for im in images]
    return _build(images, encounters, shapes, annotators, ann_paths, system_paths, keep, fmt, fmt, notes)


def load_raters(
    folder: str | os.PathLike,
    *,
    gold: list[str] | tuple[str, ...],
    systems: list[str] | tuple[str, ...] | None = None,
    foreground: int = 255,
    background: int = 0,
    binarize: bool = False,
    strict: bool = False,
    stray_tolerance: float = 1e-3,
    missing: str = "error",
    mismatched: str = "error",
) -> Challenge:
    """Load a "one sub-folder per rater" challenge (e.g. BU-BIL).

    Parameters
    ----------
    folder : path
        Its sub-folders are raters; each holds one mask per image, with the
        same file name across raters (matched case-insensitively).
    gold : list of str
        The raters that are gold annotators.
    systems : list of str, optional
        The raters scored as runs (default: every other sub-folder).
    foreground, background : int
        The pixel values of the two classes (BU-BIL: foreground 0 on 255).
    binarize, strict, stray_tolerance
        See :class:`MaskFormat`.
    missing, mismatched
        See :func:`load_dermavqa`.

    Examples
    --------
    >>> ch = load_raters("bu-bil/dataset1/ExpertsAnnotations",
    ...                  gold=["Person1_Amira", "Person2_Amira", "Person3_Amira"],
    ...                  foreground=0, background=255)  # doctest: +SKIP
    """
    root = _dir(folder, "raters")
    raters = sorted(p.name for p in root.iterdir() if p.is_dir())
    if not raters:
        raise InputError(f"{root}: no rater sub-folders found")
    gold = list(gold)
    if not gold:
        raise ValueError("gold must name at least one rater")
    systems = [r for r in raters if r not in gold] if systems is None else list(systems)
    unknown = [r for r in gold + systems if r not in raters]
    if unknown:
        raise InputError(f"{root}: no rater folder {unknown[0]!r} (found: {', '.join(raters)})")
    both = set(gold) & set(systems)
    if both:
        raise ValueError(f"raters {sorted(both)} are both gold and system")
    if not systems:
        raise InputError(f"{root}: no rater left to score as a run")
    notes: list[str] = []
    files: dict[str, dict[str, Path]] = {}
    case_fixed = []
    for r in gold + systems:
        table: dict[str, Path] = {}
        for p in sorted((root / r).iterdir()):
            if not (p.is_file() and p.suffix.lower() in MASK_SUFFIXES):
                continue
            key = p.stem.lower()
            if key in table:
                raise InputError(f"{p}: duplicate mask for image {p.stem} (also {table[key].name})")
            table[key] = p
        if not table:
            raise InputError(f"{root / r}: no mask files (.png, .tif, .tiff) found")
        files[r] = table
    # Image ids: every name any gold rater has, spelled as the first gold rater spells it.
    spelled: dict[str, str] = {}
    for r in gold:
        for key, p in files[r].items():
            spelled.setdefault(key, p.stem)
    keys = sorted(spelled)
    for r in gold + systems:
        for key, p in files[r].items():
            if key in spelled and p.stem != spelled[key]:
                case_fixed.append(f"{r}/{p.name}")
    if case_fixed:
        notes.append(
            f"matched {len(case_fixed)} file name(s) case-insensitively: " + ", ".join(case_fixed[:4])
            + (", ..." if len(case_fixed) > 4 else "")
        )
    images = [spelled[k] for k in keys]
    ann_paths = {a: [files[a].get(k) for k in keys] for a in gold}
    shapes = _checked_shapes(images, gold, ann_paths)
    keep, system_paths = _attach_systems(
        images, shapes, {s: files[s] for s in systems},
        missing=missing, mismatched=mismatched, notes=notes, key=str.lower,
    )
    fmt = MaskFormat(foreground=foreground, background=background, binarize=binarize,
                     strict=strict, stray_tolerance=stray_tolerance)
    return _build(images, images, shapes, gold, ann_paths, system_paths, keep, fmt, fmt, notes)


def load_challenge(data, *, layout: str = "dermavqa", **options) -> Challenge:
    """Dispatch to :func:`load_dermavqa` or :func:`load_raters` by ``layout``."""
    if layout == "dermavqa":
        return load_dermavqa(data, **options)
    if layout == "raters":
        return load_raters(data, **options)
    raise ValueError(f"layout must be 'dermavqa' or 'raters', got {layout!r}")


def write_dermavqa(challenge: Challenge, folder: str | os.PathLike, *, compression: str | None = "zlib",
                   progress: bool = False) -> Path:
    """Write a challenge to disk in the DermaVQA-DAS layout (binary 0/1 uint8 TIFFs).

    ``folder/reference/{image}_mask_{annotator}.tiff`` and
    ``folder/submissions/{run}/{image}_mask_{run}.tiff``: the official scorer,
    and :func:`load_dermavqa`, read it back. The folder is built under a
    temporary name and renamed into place, so an interrupted write leaves no
    half-written challenge under ``folder``.

    Raises
    ------
    InputError
        When ``folder`` already exists.
    """
    import shutil

    import tifffile

    folder = Path(folder)
    if folder.exists():
        raise InputError(f"{folder}: already exists; choose a new folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".partial"))
    try:
        ref = tmp / "reference"
        ref.mkdir()
        for run in challenge.systems:
            (tmp / "submissions" / run).mkdir(parents=True)
        images = range(challenge.n_images)
        if progress:
            from tqdm.auto import tqdm

            images = tqdm(images, desc="writing masks", unit="image", leave=False)
        for i in images:
            image = challenge.images[i]
            for a, m in challenge.annotator_masks(i).items():
                tifffile.imwrite(ref / f"{image}_mask_{a}.tiff", m.view(np.uint8), compression=compression)
            for run in challenge.systems:
                m = challenge.system_mask(i, run)
                tifffile.imwrite(tmp / "submissions" / run / f"{image}_mask_{run}.tiff", m.view(np.uint8),
                                 compression=compression)
        os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder
