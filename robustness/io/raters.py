"""The "one sub-folder per rater" layout (e.g. BU-BIL): which rater is gold, which value is foreground.

Each sub-folder is a rater holding one mask per image under the same file name
(PNG or TIFF; names matched case-insensitively, and said). The user names the
gold annotators and the foreground and background values, or a threshold for
anti-aliased masks. Files of one dataset that use the other scale (0/1 where
the others are 0/255, or the reverse) are read on their own scale, with a note
(see :class:`~robustness.io.masks.MaskFormat`). A gold annotator without a mask for
some image is a note that counts them (that image is scored against the
others); a rater folder without masks, or a rater folder that is a broken
symbolic link (a drive that is not mounted), is an error, or with
``RaterOptions(empty_folders='skip')`` a note (a broken link named in ``gold`` or ``runs``
is always an error). Files beside the rater folders and sub-folders of a
rater folder (never read) are noted; a run whose name cannot name its result
files (a leading ``.``, a backslash) is refused when loading. Nothing in the
input folder is written to.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from robustness.errors import InputError, options_with, parameter
from robustness.io.challenge import Challenge
from robustness.io.folders import (
    Listing,
    attach_runs,
    build,
    check_policy,
    check_run_name,
    checked_shapes,
    entries,
    examples,
    ignored_folders,
    not_a_file,
)
from robustness.io.folders import folder as _folder
from robustness.io.masks import MaskFormat, mask_suffix, read_grey
from robustness.io.volumes import check_grids, labels_in, read_volume

__all__ = ["RaterOptions", "detect_scale", "load_raters"]

#: A rater folder without masks, dropped with a warning instead of refused (a command: --skip-empty-folders).
_SKIP_EMPTY = parameter("RaterOptions", "empty_folders") + "='skip'"


@dataclass(frozen=True)
class RaterOptions:
    """How :func:`load_raters` reads the masks beyond their two values, and what it does with an incomplete folder.

    Parameters
    ----------
    threshold : int, optional
        Foreground is every value ``>= threshold`` (``<= threshold`` when ``foreground < background``), for
        anti-aliased masks.
    binarize, strict, stray_tolerance
        See :class:`~robustness.io.masks.MaskFormat`.
    missing : {'error', 'empty'}
        A run without a mask for some image: error, or score it as empty (as :func:`robustness.io.load_dermavqa`).
    mismatched : {'error', 'skip'}
        A run's mask of another shape than the image: error, or drop the image.
    empty_folders : {'error', 'skip'}
        A rater folder without masks, or a broken link: error, or drop it with a note.

    Examples
    --------
    >>> RaterOptions(threshold=128, empty_folders="skip").threshold
    128
    """

    threshold: int | None = None
    binarize: bool = False
    strict: bool = False
    stray_tolerance: float = 1e-3
    missing: str = "error"
    mismatched: str = "error"
    empty_folders: str = "error"

    def __post_init__(self) -> None:
        """Refuse an unknown policy before any file is read.

        Raises
        ------
        ValueError
            A policy that is none of its choices.
        """
        check_policy("missing", self.missing, ("error", "empty"))
        check_policy("mismatched", self.mismatched)
        check_policy("empty_folders", self.empty_folders)


def _stem(p: Path) -> str:
    """A mask file's image id: its name without the mask suffix (``case1.nii.gz`` is ``case1``)."""
    suffix = mask_suffix(p.name)
    assert suffix is not None  # only mask files get here
    return p.name[:-len(suffix)]


def _masks_of(rater_dir: Path, notes: list) -> tuple[dict[str, Path], list[str]]:
    """``{lower-case stem: path}`` of a rater's mask files, and the names of its other files.

    Sub-folders (never read) are noted in ``notes``.
    """
    table: dict[str, Path] = {}
    others, folders = [], []
    for name, kind in entries(rater_dir):
        p = rater_dir / name
        if mask_suffix(name) is None:
            if kind == "dir":
                folders.append(name)
            else:
                others.append(name)
            continue
        if kind != "file":
            raise not_a_file(p, kind)
        key = _stem(p).lower()
        if key in table:
            raise InputError(f"{p}: duplicate mask for image {_stem(p)} (also {table[key].name})")
        table[key] = p
    ignored_folders(rater_dir, folders, notes)
    return table, others


def load_raters(
    folder: str | os.PathLike,
    *,
    gold: list[str] | tuple[str, ...],
    runs: list[str] | tuple[str, ...] | None = None,
    foreground: int | None = None,
    background: int | None = None,
    labels: list[int] | tuple[int, ...] | str | dict | None = None,
    options: RaterOptions | None = None,
    **deprecated: Any,
) -> Challenge:
    """Load a "one sub-folder per rater" challenge (e.g. BU-BIL).

    Parameters
    ----------
    folder : path
        Its sub-folders are raters; each holds one mask per image, with the
        same file name across raters (matched case-insensitively).
    gold : list of str
        The raters that are gold annotators.
    runs : list of str, optional
        The raters scored as runs (default: every other sub-folder).
    foreground, background : int, optional
        The pixel values of the two classes (BU-BIL: foreground 0 on 255). When neither is given (nor
        ``options.threshold``, ``options.binarize`` or ``labels``), they are read from the values present
        (:func:`detect_scale`): 1 on 0 where the gold's masks hold only 0 and 1, else 255 on 0.
    labels : list of int or 'all', optional
        Multi-label masks (medical images): score each of these labels as its own mask (``'all'``: every label
        the gold annotators' masks hold, read once at loading). Each file then gives one image per label,
        ``<image>.label<L>``, whose encounter is the file's image: its labels are resampled together. The
        foreground options do not apply (a label's mask is the voxels of that value). A dict names regions,
        each the union of label values (``{"WT": (1, 2, 4), "TC": (1, 4), "ET": (4,)}``, BraTS's; KiTS's
        ``{"kidney": (1, 2, 3), "masses": (2, 3), "tumor": (2,)}``): one image per file and region,
        ``<image>.<region>``, scored, ranked and reported like a label.
    options : RaterOptions, optional
        A threshold, the other reading rules, and the incomplete-folder policies (default: none, strict reading
        off, every gap an error).
    **deprecated
        ``RaterOptions``' fields as keywords (``threshold=``, ``missing=``...), each with a DeprecationWarning.

    Returns
    -------
    Challenge
        Images sorted by name case-insensitively (spelled as the first gold rater spells them), each its own
        encounter (with ``labels``, one image per label, the file's image its encounter); ``gold`` as annotators
        and ``runs`` as runs, in the order given (default runs: the other sub-folders, sorted by name). Medical
        images of a run or annotator must lie on the voxel grid of the image's first annotator
        (:func:`robustness.io.volumes.check_grids`).

    Raises
    ------
    InputError
        One line naming the folder or file: an unknown rater, a rater named both as gold and as run, a rater
        folder without masks or a broken link (under ``'error'``), an unreadable mask or a shape mismatch.

    Examples
    --------
    >>> ch = load_raters("bu-bil/dataset1/ExpertsAnnotations",
    ...                  gold=["Person1_Amira", "Person2_Amira", "Person3_Amira"],
    ...                  foreground=0, background=255)  # doctest: +SKIP
    """
    opts = options_with("load_raters", options or RaterOptions(), deprecated)
    threshold, binarize, empty_folders = opts.threshold, opts.binarize, opts.empty_folders
    root = _folder(folder, "raters")
    notes: list[str] = []
    gold, runs = _named_raters(root, gold, runs, empty_folders, notes)
    files = _rater_masks(root, gold + runs, empty_folders, notes)
    gold, runs = _with_masks(root, gold, runs, files)
    keys, spelled = _image_keys(files, gold, runs, notes)
    images = [spelled[k] for k in keys]
    ann_paths = {a: [files[a].get(k) for k in keys] for a in gold}
    shapes = checked_shapes(images, gold, ann_paths, notes)
    keep, run_paths = attach_runs(
        images, shapes, {s: files[s] for s in runs},
        missing=opts.missing, mismatched=opts.mismatched, notes=notes, key=str.lower,
    )
    spacings = check_grids(images, gold, ann_paths, run_paths)
    if spacings is not None:
        spacings = [(1.0,) * len(shape) if sp is None else sp for sp, shape in zip(spacings, shapes)]
    foreground, background, given = _scale(ann_paths, foreground, background, threshold, binarize, labels)
    fmt = MaskFormat(foreground=foreground, background=background, binarize=binarize, threshold=threshold,
                     strict=opts.strict, stray_tolerance=opts.stray_tolerance, rescale=True, given=given)
    if labels is None:
        return build(Listing(images, images, shapes, gold, ann_paths, run_paths, fmt, fmt, spacings=spacings), keep,
                     notes)
    return _per_label(labels, (images, shapes, gold, ann_paths, run_paths, keep, spacings), fmt, notes)


def _with_masks(root: Path, gold: list, runs: list, files: dict) -> tuple[list, list]:
    """The gold and run raters left with masks (``files``): at least one of each."""
    gold = [r for r in gold if r in files]
    runs = [r for r in runs if r in files]
    if not gold:
        raise InputError(f"{root}: no gold rater with masks left")
    if not runs:
        raise InputError(f"{root}: no rater left to score as a run")
    return gold, runs


def _scale(gold_paths: dict, foreground, background, threshold, binarize: bool, labels) -> tuple[int, int, bool]:
    """The foreground and background values (detected where none is given), and whether any value was given.

    One value given: the other is the other end of 0/255. Given values are checked against the gold's masks.
    """
    given = foreground is not None or background is not None or threshold is not None
    if not given and not binarize and labels is None:
        foreground, background = detect_scale(_files(gold_paths))
    if foreground is None:
        foreground = 255 if background != 255 else 0
    if background is None:
        background = 0 if foreground != 0 else 255
    if given and threshold is None and not binarize:
        check_given_scale(gold_paths, foreground, background)
    return foreground, background, given


def _files(paths: dict) -> list[Path]:
    """Every file of ``paths`` (rater -> one path or None per image), rater by rater."""
    return [p for rater_paths in paths.values() for p in rater_paths if p is not None]


def _named_raters(root: Path, gold, runs, empty_folders: str, notes: list) -> tuple[list, list]:
    """The gold and run raters, checked against the folder's sub-folders (one line naming the problem)."""
    listed = entries(root)
    raters = [name for name, kind in listed if kind == "dir"]
    broken = [name for name, kind in listed if kind == "broken"]
    gold = list(gold)
    if not gold:
        raise InputError(f"{parameter('load_raters', 'gold')} must name at least one rater")
    _check_broken(root, broken, gold + ([] if runs is None else list(runs)), empty_folders)
    if not raters:
        raise InputError(f"{root}: no rater sub-folders found")
    runs = [r for r in raters if r not in gold] if runs is None else list(runs)
    unknown = [r for r in gold + runs if r not in raters]
    if unknown:
        raise InputError(f"{root}: no rater folder {unknown[0]!r} (found: {', '.join(raters)})")
    both = set(gold) & set(runs)
    if both:
        raise InputError(f"rater(s) {', '.join(sorted(both))} named both as gold and as run")
    for r in runs:
        check_run_name(r, root / r)
    if broken:
        notes.append(f"{root}: dropped {len(broken)} rater folder(s) that are broken symbolic links: "
                     f"{examples(broken)}")
    loose = [name for name, kind in listed if kind not in ("dir", "broken")]
    if loose:
        notes.append(f"{root}: ignored {len(loose)} file(s) that are not rater folders: {examples(loose)}")
    return gold, runs


def _check_broken(root: Path, broken: list, named: list, empty_folders: str) -> None:
    """A rater folder that is a broken link (on a drive that is not mounted) is refused where named or not skipped."""
    for name in broken:
        if name in named or empty_folders == "error":
            raise InputError(f"{root / name}: rater folder is a broken symbolic link (is its drive mounted?)"
                             + ("" if name in named else f" ({_SKIP_EMPTY} drops it with a warning)"))


def _rater_masks(root: Path, raters: list, empty_folders: str, notes: list) -> dict[str, dict[str, Path]]:
    """Every rater's masks by image key; a rater without masks refused or dropped (``empty_folders``)."""
    files: dict[str, dict[str, Path]] = {}
    for r in raters:
        table, others = _masks_of(root / r, notes)
        if not table:
            what = f"it holds {len(others)} other file(s), e.g. {examples(others, 2)}" if others else "it is empty"
            if empty_folders == "error":
                raise InputError(f"{root / r}: no mask files (.png, .tif, .tiff, .nii, .nii.gz, .nrrd, .mha, .mhd) "
                                 f"found; {what} "
                                 f"({_SKIP_EMPTY} drops such a rater with a warning)")
            notes.append(f"{root / r}: dropped rater {r!r} without mask files ({what})")
            continue
        if others:
            notes.append(f"{root / r}: ignored {len(others)} file(s) that are not masks: {examples(others)}")
        files[r] = table
    return files


def _image_keys(files: dict, gold: list, runs: list, notes: list) -> tuple[list, dict]:
    """The images: every name any gold rater has (sorted keys), spelled as the first gold rater spells it."""
    spelled: dict[str, str] = {}
    for r in gold:
        for key, p in files[r].items():
            spelled.setdefault(key, _stem(p))
    keys = sorted(spelled)
    case_fixed = [f"{r}/{p.name}" for r in gold + runs for key, p in files[r].items()
                  if key in spelled and _stem(p) != spelled[key]]
    if case_fixed:
        notes.append(f"matched {len(case_fixed)} file name(s) case-insensitively: {examples(case_fixed, 4)}")
    for r in gold:
        lacking = [spelled[k] for k in keys if k not in files[r]]
        if lacking:
            notes.append(f"annotator {r!r} has no mask for {len(lacking)} of {len(keys)} images "
                         f"({examples(lacking)}): scored against the other annotators there")
    return keys, spelled


#: Gold masks :func:`detect_scale` decodes: the first non-empty ones in file order, at most this many.
SCALE_SAMPLE = 4
#: At most this many gold masks are decoded to find :data:`SCALE_SAMPLE` non-empty ones.
SCALE_SCAN = 64


def detect_scale(paths: list[Path], sample: int = SCALE_SAMPLE) -> tuple[int, int]:
    """The (foreground, background) values the masks are stored with, from the values present.

    Decodes gold masks in order until ``sample`` non-empty ones are seen (an empty mask holds 0 on either scale;
    at most :data:`SCALE_SCAN` files are decoded): when most of them hold only 0 and 1, the masks are label maps
    (1 on 0), else 255 on 0. A file on the other scale is then read on its own scale with a note, as with given
    values, and a stray value in one file (a 2 in a 0/1 map) is that file's note, not the whole challenge's scale.

    Parameters
    ----------
    paths : list of Path
        The gold annotators' mask files.
    sample : int
        How many non-empty masks decide.

    Returns
    -------
    tuple of int
        ``(1, 0)`` or ``(255, 0)``.
    """
    label_maps = others = 0
    for p in paths[:SCALE_SCAN]:
        top = int(read_grey(p).max(initial=0))
        if top == 0:
            continue
        label_maps += top == 1
        others += top > 1
        if label_maps + others >= sample:
            break
    return (1, 0) if label_maps > others else (255, 0)


_SCALES = ({0, 1}, {0, 255})


def check_given_scale(paths: dict[str, list], foreground: int, background: int) -> None:
    """Refuse given foreground and background values that no gold rater's masks are stored with.

    A file on the other scale (0/255 where the values given are 0/1, or the reverse) is read on its own scale, for
    datasets that mix the two. When the first informative mask of *every* gold rater (one holding a value besides
    0; at most :data:`SCALE_SCAN` files decoded) is on the other scale, the values name none of the files: read on
    its own scale, every mask would follow the guess of which end is the object (cells drawn as 0 on 255, read with
    a foreground of 1, were read inverted, every Jaccard 0.999).

    Parameters
    ----------
    paths : dict of str to list of (Path or None)
        Each gold rater's mask files (None: no mask for that image).
    foreground, background : int
        The values given.

    Raises
    ------
    InputError
        Naming the first such file, the values it holds and the two readings of them.
    """
    expected = {foreground, background}
    if expected not in _SCALES:
        return
    other = _SCALES[1 - _SCALES.index(expected)]
    decoded, seen = 0, []
    for files in paths.values():
        found = None
        for p in files:
            if p is None:
                continue
            if decoded >= SCALE_SCAN:
                return  # too few decoded to tell for every rater: each file is read on its own scale, with a note
            decoded += 1
            values = set(np.unique(read_grey(p)).tolist())
            if not values <= {0}:
                found = p, values
                break
        if found is None:
            continue
        if not (found[1] <= other and not found[1] <= expected):
            return  # this rater holds the values given (or values of its own, refused when read)
        seen.append(found[0])
    if not seen:
        return
    low, high = sorted(other)
    raise InputError(
        f"{seen[0]}: no gold mask holds the foreground value {foreground} (the first mask holding a value besides 0 "
        f"of {'each of the ' + str(len(seen)) + ' gold raters' if len(seen) > 1 else 'the gold rater'} holds only "
        f"{low} and {high}): give the values the masks hold: foreground {low} and background {high} if the objects "
        f"are drawn as {low}, foreground {high} and background {low} if they are drawn as {high}")


def _regions(labels: dict) -> dict[str, tuple[int, ...]]:
    """Regions (name -> labels), checked: each lists distinct labels >= 1."""
    regions = {str(n): tuple(int(v) for v in values) for n, values in labels.items()}
    if not regions or any(not v or min(v) < 1 or len(set(v)) != len(v) for v in regions.values()):
        raise InputError(f"{parameter('load_raters', 'labels')} as regions: each region lists distinct labels >= 1 "
                         "(0 is the background), got "
                         f"{labels}")
    return regions


def _labels(labels, gold_paths: list, notes: list) -> list[int]:
    """The labels to score, checked: those listed, or with 'all' those found in the gold annotators' masks (said)."""
    if isinstance(labels, str):
        if labels != "all":
            raise InputError(f"{parameter('load_raters', 'labels')} must be a list of labels or 'all', got {labels!r}")
        found: set[int] = set()
        for p in gold_paths:
            found.update(labels_in(read_volume(p)[0]))
        if not found:
            raise InputError(f"{parameter('load_raters', 'labels')}='all': the gold annotators' masks hold no label "
                             "besides the background 0")
        labels = sorted(found)
        notes.append(f"labels found in the gold annotators' masks: {', '.join(map(str, labels))}")
    labels = [int(v) for v in labels]
    if not labels or min(labels) < 1 or len(set(labels)) != len(labels):
        raise InputError(f"{parameter('load_raters', 'labels')} must list distinct labels >= 1 (0 is the background), "
                         f"got {labels}")
    return labels


def _per_label(labels, files: tuple, fmt: MaskFormat, notes: list) -> Challenge:
    """One image per (file, label) or (file, region): the file's paths repeated, each reading one label or region.

    ``files``: the images, their shapes, the gold raters, the annotators' and the runs' paths, which images are
    kept and their spacings, as :func:`load_raters` found them.
    """
    images, shapes, gold, ann_paths, run_paths, keep, spacings = files
    regions = _regions(labels) if isinstance(labels, dict) else None
    chosen = list(regions) if regions is not None else _labels(labels, _files(ann_paths), notes)
    rows = [(i, x) for i in range(len(images)) for x in chosen]
    repeat = lambda seq: [seq[i] for i, _ in rows]  # noqa: E731
    named = "{}" if regions is not None else "label{}"  # an image per region is named by the region
    listing = Listing([f"{images[i]}.{named.format(x)}" for i, x in rows], repeat(images), repeat(shapes), gold,
                      {a: repeat(v) for a, v in ann_paths.items()}, {r: repeat(v) for r, v in run_paths.items()},
                      fmt, fmt, labels=[x for _, x in rows], spacings=None if spacings is None else repeat(spacings),
                      regions=regions)
    return build(listing, np.array(repeat(list(keep))), notes)
