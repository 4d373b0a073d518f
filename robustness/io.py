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

Decoding rules (all reported, never silent)
-------------------------------------------
- RGB(A) masks whose colour channels are equal are read as grey (alpha is
  ignored); unequal channels are an error.
- A mask holding only the expected background and foreground values is read
  as ``value == foreground``.
- A 0/255 mask where 0/1 is expected is an error that says so (the official
  scorer would score it as empty); ``binarize=True`` reads ``value != background``.
- Other values ("stray" pixels): when they are at most ``stray_tolerance`` of
  the image, each is assigned to the nearer of foreground and background (ties
  go to background) and a :class:`~robustness.errors.MaskWarning` counts them;
  beyond that, or with ``strict=True``, the mask is rejected as not binary.

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

from . import _kernels
from .data import Challenge
from .errors import InputError

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

MASK_SUFFIXES = (".tif", ".tiff", ".png")
_TIFF = (".tif", ".tiff")
_MASK_NAME = re.compile(r"^(?P<image>.+?)_mask_(?P<rater>.+)\.tiff?$", re.IGNORECASE)
_IMAGE_ID = re.compile(r"^IMG_(?P<encounter>.+)_[^_]+$")


@dataclass(frozen=True)
class MaskFormat:
    """How the pixel values of a mask file map to foreground.

    Parameters
    ----------
    foreground, background : int
        The two expected pixel values.
    binarize : bool
        Read every value other than ``background`` as foreground.
    strict : bool
        Reject any value other than the two expected ones.
    stray_tolerance : float
        Largest fraction of an image's pixels that may hold other values
        before the mask is rejected as not binary (see module notes).
    """

    foreground: int = 1
    background: int = 0
    binarize: bool = False
    strict: bool = False
    stray_tolerance: float = 0.0

    def __post_init__(self):
        for name in ("foreground", "background"):
            v = getattr(self, name)
            if not (isinstance(v, (int, np.integer)) and 0 <= v <= 255):
                raise ValueError(f"{name} must be an integer in 0..255, got {v!r}")
        if self.foreground == self.background:
            raise ValueError("foreground and background must differ")
        if not 0.0 <= self.stray_tolerance < 1.0:
            raise ValueError(f"stray_tolerance must be in [0, 1), got {self.stray_tolerance}")


# -- single files -----------------------------------------------------------

def _tiff_shape_fast(path: Path) -> tuple[int, int] | None:
    """(rows, columns) from the first IFD of a classic single-sample TIFF, else None.

    Reads a few hundred bytes (the header and the first IFD's ImageWidth,
    ImageLength and SamplesPerPixel tags, TIFF 6.0 section 2). Anything else
    (BigTIFF, several samples per pixel, odd layouts) returns None so that the
    caller falls back to tifffile.
    """
    import struct

    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8 or head[:4] not in (b"II*\0", b"MM\0*"):
            return None
        e = "<" if head[:2] == b"II" else ">"
        (offset,) = struct.unpack(e + "I", head[4:8])
        f.seek(offset)
        raw = f.read(2)
        if len(raw) < 2:
            return None
        (n,) = struct.unpack(e + "H", raw)
        entries = f.read(12 * n)
    if len(entries) < 12 * n:
        return None
    tags = {}
    for k in range(n):
        tag, typ, count = struct.unpack(e + "HHI", entries[12 * k:12 * k + 8])
        if tag in (256, 257, 277) and count == 1:
            value = entries[12 * k + 8:12 * k + 12]
            if typ == 3:  # SHORT
                tags[tag] = struct.unpack(e + "H", value[:2])[0]
            elif typ == 4:  # LONG
                tags[tag] = struct.unpack(e + "I", value)[0]
    if 256 not in tags or 257 not in tags or tags.get(277, 1) != 1:
        return None
    return int(tags[257]), int(tags[256])


def read_shape(path: str | os.PathLike) -> tuple[int, int]:
    """(rows, columns) of an image file, from its header only."""
    path = Path(path)
    try:
        if path.suffix.lower() in _TIFF:
            shape = _tiff_shape_fast(path)
            if shape is not None:
                return shape
            import tifffile

            with tifffile.TiffFile(path) as tif:
                shape = tif.pages[0].shape
                if len(shape) == 3 and shape[0] in (3, 4) and shape[-1] not in (3, 4):
                    shape = shape[1:]  # planar RGB(A)
                return int(shape[0]), int(shape[1])
        from PIL import Image

        with Image.open(path) as im:
            w, h = im.size
            return int(h), int(w)
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except Exception as exc:  # any decoder error means the same thing to the user
        raise InputError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None


def _read_pixels(path: Path) -> np.ndarray:
    try:
        if path.suffix.lower() in _TIFF:
            import tifffile

            return tifffile.imread(path)
        from PIL import Image

        with Image.open(path) as im:
            return np.asarray(im)
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except Exception as exc:
        raise InputError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None


def _to_grey_u8(arr: np.ndarray, path: Path) -> np.ndarray:
    if arr.ndim == 3 and arr.shape[0] in (3, 4) and arr.shape[-1] not in (1, 3, 4):
        arr = np.moveaxis(arr, 0, -1)  # planar TIFF
    if arr.ndim == 3 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if arr.ndim == 3 and arr.shape[-1] in (3, 4):
        r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
        differ = np.count_nonzero((r != g) | (r != b))
        if differ:
            raise InputError(
                f"{path}: colour mask with unequal channels in {differ} pixels; "
                "expected a grey or binary mask"
            )
        arr = r
    if arr.ndim != 2:
        raise InputError(f"{path}: expected a 2-D mask, got an array of shape {arr.shape}")
    if arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    if arr.dtype == bool:
        return np.ascontiguousarray(arr).view(np.uint8)
    lo, hi = arr.min(), arr.max()
    if np.issubdtype(arr.dtype, np.floating) and not np.array_equal(arr, np.round(arr)):
        raise InputError(f"{path}: not a binary mask: non-integer values between {lo} and {hi}")
    if lo < 0 or hi > 255:
        values = np.unique(arr)
        raise InputError(
            f"{path}: not a binary mask: values {_show(values)} outside 0..255"
        )
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _show(values, limit=6) -> str:
    values = [int(v) for v in values]
    text = ", ".join(map(str, values[:limit]))
    return "{" + text + (", ..." if len(values) > limit else "") + "}"


def read_mask(path: str | os.PathLike, fmt: MaskFormat = MaskFormat()) -> tuple[np.ndarray, str | None]:
    """Decode one mask file to a boolean array, following ``fmt``.

    Returns
    -------
    mask : ndarray of bool, 2-D
    note : str or None
        One line describing a repair (stray values), else None.

    Raises
    ------
    InputError
        Unreadable or corrupt file, unequal colour channels, 0/255 where 0/1 is
        expected, or a mask that is not binary. The message names the file.

    Examples
    --------
    >>> import numpy as np, tifffile, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m.tiff")
    >>> tifffile.imwrite(path, np.array([[0, 1], [1, 1]], dtype=np.uint8))
    >>> mask, note = read_mask(path)
    >>> mask.sum(), note
    (np.int64(3), None)
    """
    path = Path(path)
    grey = _to_grey_u8(_read_pixels(path), path)
    if not grey.flags.writeable or grey.base is not None and not grey.base.flags.writeable:
        grey = grey.copy()
    shape = grey.shape
    flat = grey.reshape(-1)
    if (fmt.foreground, fmt.background) == (1, 0) and not fmt.binarize and flat.size and flat.max() <= 1:
        return flat.view(bool).reshape(shape), None  # already 0/1 (the official format): nothing to do
    # one pass, in place (the decoded array is ours): 0/1 mask + value census
    n_fg, n_bg = _kernels.binarize(flat, np.uint8(fmt.foreground), np.uint8(fmt.background), fmt.binarize)
    n_stray = flat.size - n_fg - n_bg
    mask = flat.view(bool).reshape(shape)
    if n_stray == 0 or fmt.binarize:
        return mask, None
    # rare: values besides the two expected ones. Decode again to see them.
    grey = _to_grey_u8(_read_pixels(path), path)
    flat = grey.reshape(-1)
    counts = np.bincount(flat, minlength=256)
    present = np.flatnonzero(counts)
    stray = [v for v in present if v not in (fmt.foreground, fmt.background)]
    if (fmt.foreground, fmt.background) == (1, 0) and set(present) <= {0, 255}:
        raise InputError(
            f"{path}: mask stored as 0/255 where foreground is 1 (the official scorer "
            "would score it as empty); pass binarize to read values > 0 as foreground"
        )
    fraction = n_stray / flat.size
    if fmt.strict or fraction > fmt.stray_tolerance:
        raise InputError(
            f"{path}: not a binary mask: values {_show(present)} "
            f"({n_stray} pixels besides foreground {fmt.foreground} and background {fmt.background})"
        )
    to_fg = [v for v in stray if abs(int(v) - fmt.foreground) < abs(int(v) - fmt.background)]
    if to_fg:
        mask = mask | np.isin(grey, to_fg)  # mask holds value == foreground already
    note = (
        f"{path}: {n_stray} pixel(s) with value(s) {_show(stray)} besides foreground "
        f"{fmt.foreground} and background {fmt.background}: each assigned to the nearer of foreground "
        f"{fmt.foreground} and background {fmt.background} (strict refuses such masks)"
    )
    return mask, note


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
