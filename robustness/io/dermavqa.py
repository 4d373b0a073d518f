r"""Reading challenges from disk: mask decoding and the two supported folder layouts.

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
    which raters are gold annotators and which pixel value is foreground
    (:mod:`robustness.io.raters`).

Masks are decoded by :mod:`robustness.io.masks` (its rules: every repair reported, never silent).
Nothing is dropped silently either: a run folder (or a plain file in the
submissions folder) that yields no mask is an error, or with
``empty_folders='skip'`` a note that names it; an entry named like a mask that
is a folder, a broken link, a FIFO or a device is an error naming it; files
that are not masks, and sub-folders of ``reference/`` or of a run folder
(masks there are not read), are counted in a note. A run whose name cannot
name its result files (``team\runC``, a suffix ``.h``) is refused when
loading, and a challenge folder without ``reference/`` whose sub-folders hold
masks is told about ``--layout raters``. Hidden entries (``.name``) are not
looked at.

Nothing in an input folder is ever written to.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robustness._lazy import lazy_module
from robustness.errors import InputError, parameter
from robustness.files import file_mode, remove_stale_temporaries
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
    folder,
    ignored_folders,
    not_a_file,
)
from robustness.io.masks import MASK_SUFFIXES, MaskFormat
from robustness.io.raters import load_raters

if TYPE_CHECKING:
    import tifffile
    import tqdm.auto as tqdm_auto
else:
    tifffile = lazy_module("tifffile")
    tqdm_auto = lazy_module("tqdm.auto")

__all__ = ["load_dermavqa", "load_challenge", "write_dermavqa"]

_MASK_NAME = re.compile(r"^(?P<image>.+?)_mask_(?P<rater>.+)\.tiff?$", re.IGNORECASE)
_IMAGE_ID = re.compile(r"^IMG_(?P<encounter>.+)_[^_]+$")


# -- the official layout ------------------------------------------------------------------------------------------

_NAMING = "IMG_<encounter>_<image>_mask_<{}>.tiff"


def _scan_dermavqa(folder: Path, what: str, notes: list | None = None) -> tuple[dict[str, dict[str, Path]], list[str]]:
    """``{rater: {image: path}}`` for every ``*_mask_*.tif(f)`` file in ``folder``, and the other files' names.

    With ``notes``, sub-folders (never read) are noted there.
    """
    out: dict[str, dict[str, Path]] = {}
    others, folders = [], []
    for name, kind in entries(folder):
        m = _MASK_NAME.match(name)
        if m is None:
            if kind == "dir":
                folders.append(name)
            else:
                others.append(name)
            continue
        p = folder / name
        if kind != "file":
            raise not_a_file(p, kind)
        rater, image = m["rater"], m["image"]
        prev = out.setdefault(rater, {}).get(image)
        if prev is not None:
            raise InputError(f"{p}: duplicate {what} mask for image {image}, rater {rater} (also {prev.name})")
        out[rater][image] = p
    if notes is not None:
        ignored_folders(folder, folders, notes)
    return out, others


def _raters_hint(root: Path, reference: Path) -> None:
    """No ``reference/`` in a folder whose sub-folders hold masks: say that it looks like one folder per rater."""
    raters = [name for name, kind in entries(root) if kind == "dir" and name != "submissions"
              and any(Path(n).suffix.lower() in MASK_SUFFIXES for n, k in entries(root / name) if k == "file")]
    if raters:
        raise InputError(f"{reference}: reference folder not found; {root} holds {len(raters)} folder(s) of masks "
                         f"({examples(raters, 3)}): for one folder per rater use {parameter('load_raters', 'gold')}="
                         "[R1, R2, ..]")


def _encounter_of(image: str) -> str:
    m = _IMAGE_ID.match(image)
    return m["encounter"] if m else image


#: How to drop such an entry with a warning instead (a command: --skip-empty-folders).
_HINT = f" ({parameter('load_dermavqa', 'empty_folders')}='skip' drops it with a warning)"


def _folder_runs(sub: Path, empty_folders: str, notes: list, skipped: list) -> dict[str, dict[str, Path]]:
    """The runs of one run folder: itself, or one per suffix of its masks (none: an error, or skipped)."""
    name = sub.name
    check_run_name(name, sub)
    found, others = _scan_dermavqa(sub, f"run {name}", notes)
    if not found:
        what = f"holds {len(others)} other file(s), e.g. {examples(others, 2)}" if others else "is empty"
        if empty_folders == "error":
            raise InputError(f"{sub}: run folder without masks named {_NAMING.format('run')}; it {what}{_HINT}")
        skipped.append(f"{name} ({what})")
        return {}
    if others:
        notes.append(f"{sub}: ignored {len(others)} file(s) not named {_NAMING.format('run')}: {examples(others)}")
    if len(found) == 1:
        return {name: next(iter(found.values()))}
    runs = {}
    for suffix, files in found.items():
        check_run_name(f"{name}/{suffix}", next(iter(files.values())))
        runs[f"{name}/{suffix}"] = files
    return runs


def _runs(sub_dir: Path, empty_folders: str, notes: list) -> dict[str, dict[str, Path]]:
    """Every run of a submissions folder.

    One run per sub-folder (or per suffix inside it), and per suffix of the masks lying in the folder itself. A
    sub-folder or file that yields no mask is an error, or with ``empty_folders='skip'`` a note.
    """
    check_policy("empty_folders", empty_folders)
    runs: dict[str, dict[str, Path]] = {}
    skipped: list[str] = []
    for name, kind in entries(sub_dir):
        if kind == "dir":
            runs.update(_folder_runs(sub_dir / name, empty_folders, notes, skipped))
    broken = {name for name, kind in entries(sub_dir) if kind == "broken"}
    found, others = _scan_dermavqa(sub_dir, "submission")
    for suffix, files in found.items():
        check_run_name(suffix, next(iter(files.values())))
        if suffix in runs:
            raise InputError(f"{sub_dir}: run {suffix!r} appears both as a folder and as a file suffix")
        runs[suffix] = files
    for name in others:
        if empty_folders == "error" and name in broken:
            raise InputError(f"{sub_dir / name}: run folder is a broken symbolic link (is its drive mounted?){_HINT}")
        if empty_folders == "error":
            raise InputError(f"{sub_dir / name}: neither a run folder nor a mask named {_NAMING.format('run')}{_HINT}")
        skipped.append(name)
    if skipped:
        notes.append(f"{sub_dir}: dropped {len(skipped)} entr(y/ies) that yield no run masks: {examples(skipped)}")
    return runs


def load_dermavqa(
    data: str | os.PathLike | None = None,
    *,
    reference: str | os.PathLike | None = None,
    submissions: str | os.PathLike | None = None,
    binarize: bool = False,
    strict: bool = True,
    missing: str = "error",
    mismatched: str = "error",
    empty_folders: str = "error",
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
    empty_folders : {'error', 'skip'}
        A run folder (or a file in the submissions folder) that yields no mask: error, or drop it with a note.

    Returns
    -------
    Challenge
        Images sorted by id; annotators sorted by name; runs sorted by name.
    """
    if data is None and (reference is None or submissions is None):
        raise ValueError("give a challenge folder, or both reference= and submissions=")
    if data is not None:
        root = folder(data, "challenge")
        reference = reference if reference is not None else root / "reference"
        submissions = submissions if submissions is not None else root / "submissions"
    assert reference is not None and submissions is not None  # given, or the challenge folder's
    if data is not None and not Path(reference).exists():
        _raters_hint(root, Path(reference))
    ref_dir = folder(reference, "reference")
    sub_dir = folder(submissions, "submissions")
    notes: list[str] = []
    by_rater = _reference_masks(ref_dir, notes)
    annotators = sorted(by_rater)
    images = sorted({im for v in by_rater.values() for im in v})
    ann_paths = {a: [by_rater[a].get(im) for im in images] for a in annotators}

    runs = _runs(sub_dir, empty_folders, notes)
    if not runs:
        raise InputError(f"{sub_dir}: no run masks named {_NAMING.format('run')} found")

    shapes = checked_shapes(images, annotators, ann_paths, notes)
    keep, run_paths = attach_runs(images, shapes, runs, missing=missing, mismatched=mismatched, notes=notes)
    fmt = MaskFormat(foreground=1, background=0, binarize=binarize, strict=strict)
    encounters = [_encounter_of(im) for im in images]
    truth = _truth_paths(root / "truth", images) if data is not None and (root / "truth").exists() else None
    return build(Listing(images, encounters, shapes, annotators, ann_paths, run_paths, fmt, fmt, truth_paths=truth),
                 keep, notes)


def _reference_masks(ref_dir: Path, notes: list[str]) -> dict:
    """The reference folder's masks by annotator and image; other files are noted (none at all: refused)."""
    by_rater, others = _scan_dermavqa(ref_dir, "reference", notes)
    if not by_rater:
        raise InputError(f"{ref_dir}: no reference masks named {_NAMING.format('annotator')} found"
                         + (f" (it holds {len(others)} other file(s), e.g. {examples(others, 2)})" if others else ""))
    if others:
        notes.append(f"{ref_dir}: ignored {len(others)} file(s) not named {_NAMING.format('annotator')}: "
                     f"{examples(others)}")
    return by_rater


def _truth_paths(truth_dir: Path, images) -> list:
    """The latent true masks a written synthetic challenge keeps in ``truth/`` (one per image, or an error)."""
    found, _ = _scan_dermavqa(folder(truth_dir, "truth"), "truth")
    masks = found.get("truth", {})
    missing = [im for im in images if im not in masks]
    if missing:
        raise InputError(f"{truth_dir}: no true mask {missing[0]}_mask_truth.tiff ({len(missing)} of {len(images)} "
                         "images have none); a truth folder needs one for every image")
    return [masks[im] for im in images]


def load_challenge(data: str | os.PathLike, *, layout: str = "dermavqa", **options: Any) -> Challenge:
    """Dispatch to :func:`load_dermavqa` or :func:`load_raters` by ``layout``.

    Parameters
    ----------
    data : str or os.PathLike
        The challenge folder (``layout='raters'``: the folder of rater sub-folders).
    layout : {'dermavqa', 'raters'}
        The folder layout (module notes).
    **options
        The layout's loader options (e.g. ``binarize``, ``missing``; for ``raters`` ``gold``, ``foreground`` and
        ``options``, a :class:`~robustness.io.raters.RaterOptions`).

    Returns
    -------
    Challenge
        As the loader returns it.

    Raises
    ------
    ValueError
        An unknown layout.
    """
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
    and :func:`load_dermavqa`, read it back. A challenge that knows its latent
    truth (synthetic) also writes ``folder/truth/{image}_mask_truth.tiff``, which
    :func:`load_dermavqa` reads back (the official scorer ignores it). The folder is built under a
    temporary name and renamed into place, so an interrupted write leaves no
    half-written challenge under ``folder`` (and the next write deletes what a
    killed one left).

    Parameters
    ----------
    challenge : Challenge
        The challenge to write (every mask is read once, through its source).
    folder : str or os.PathLike
        A folder that does not exist yet (its parent is created when missing).
    compression : str or None
        The TIFF compression passed to ``tifffile.imwrite`` (default ``'zlib'``; None: uncompressed).
    progress : bool
        Show a progress bar over the images (tqdm).

    Returns
    -------
    Path
        ``folder``.

    Raises
    ------
    InputError
        When ``folder`` already exists.
    """
    folder = Path(folder)
    if folder.exists():
        raise InputError(f"{folder}: already exists; choose a new folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(folder.parent)  # what a killed earlier write left
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.{os.getpid()}.", suffix=".partial"))
    try:
        os.chmod(tmp, file_mode() | (file_mode() & 0o444) >> 2)  # mkdtemp's 0700 would hide the challenge
        ref = tmp / "reference"
        ref.mkdir()
        for run in challenge.runs:
            (tmp / "submissions" / run).mkdir(parents=True)
        if challenge.has_truth:
            (tmp / "truth").mkdir()
        images = range(challenge.n_images)
        if progress:
            images = tqdm_auto.tqdm(images, desc="writing masks", unit="image", leave=False)
        for i in images:
            image = challenge.images[i]
            for a, m in challenge.annotator_masks(i).items():
                tifffile.imwrite(ref / f"{image}_mask_{a}.tiff", m.view(np.uint8), compression=compression)
            for run in challenge.runs:
                m = challenge.run_mask(i, run)
                tifffile.imwrite(tmp / "submissions" / run / f"{image}_mask_{run}.tiff", m.view(np.uint8),
                                 compression=compression)
            if challenge.has_truth:
                t, _ = challenge.read(i, "truth", "truth")
                tifffile.imwrite(tmp / "truth" / f"{image}_mask_truth.tiff", t.view(np.uint8), compression=compression)
        os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder
