"""Medical-image masks: NIfTI, NRRD and MetaImage files (2D or 3D) with their voxel geometry, through SimpleITK.

A label mask is read as an integer array in array order (``(z, y, x)`` for a volume, ``(y, x)`` for a 2D image)
with its :class:`Geometry`: the voxel spacing (physical units per voxel, e.g. mm, in array order), the origin
and the direction cosines. A run's mask is compared with its reference only when both describe the same voxels:
:func:`check_same_grid` refuses, in one line that names both files, another size, another spacing, another
origin or another orientation (a relative tolerance of 1e-6: headers written by different tools round
differently). Nothing is resampled: a mask on another grid is an error, never silently moved.

Refused in one line that names the file: a file SimpleITK cannot read (truncated, not an image), a vector image
(several components per voxel), a 4D image, non-integer voxel values (a probability map is not a label mask),
negative labels, labels above :data:`MAX_LABEL` and a voxel spacing that is not a positive number. Before
SimpleITK opens a file, its header is checked (:mod:`robustness.io.headers`): nothing it points to outside its
folder is read, a NIfTI cut short or holding NaN is refused, and no image has more than
:data:`~robustness.io.headers.MAX_VOXELS` voxels.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robustness._lazy import lazy_module
from robustness.errors import InputError, NoteWarning
from robustness.io.headers import MAX_VOXELS, check_header, check_voxels

if TYPE_CHECKING:
    import SimpleITK as sitk
else:
    sitk = lazy_module("SimpleITK")

__all__ = ["VOLUME_SUFFIXES", "Geometry", "read_volume", "read_grid", "check_same_grid", "check_grids",
           "volume_suffix", "labels_in", "MAX_VOXELS", "MAX_LABEL"]

#: The file names read as medical images (a NIfTI may be gzipped; ``.mhd`` is a MetaImage header with its data
#: beside it).
VOLUME_SUFFIXES = (".nii.gz", ".nii", ".nrrd", ".nhdr", ".mha", ".mhd")

#: Relative tolerance when comparing two headers' spacing, origin and direction.
GRID_TOLERANCE = 1e-6

#: The largest label a mask may hold (a 32-bit signed integer): labels are whole numbers used as keys, and a float
#: label beyond 2**63 would wrap round to a negative number when read as an integer.
MAX_LABEL = 2 ** 31 - 1


def volume_suffix(name: str | os.PathLike) -> str | None:
    """The medical-image suffix of a file name (``.nii.gz`` counts as one), or None.

    Parameters
    ----------
    name : str or path-like

    Returns
    -------
    str or None

    Examples
    --------
    >>> volume_suffix("case_001.nii.gz"), volume_suffix("a.NRRD"), volume_suffix("mask.png")
    ('.nii.gz', '.nrrd', None)
    """
    low = str(name).lower()
    return next((s for s in VOLUME_SUFFIXES if low.endswith(s)), None)


@dataclass(frozen=True)
class Geometry:
    """Where a mask's voxels lie: size, spacing and origin in array order, direction cosines as SimpleITK gives.

    Attributes
    ----------
    shape : tuple of int
        The array's shape (``(z, y, x)`` or ``(y, x)``).
    spacing : tuple of float
        Physical size of a voxel along each array axis.
    origin : tuple of float
        Physical position of the first voxel (SimpleITK's order, x first).
    direction : tuple of float
        Direction cosines (SimpleITK's row-major matrix, x first).
    """

    shape: tuple
    spacing: tuple
    origin: tuple
    direction: tuple

    def describe(self) -> str:
        """The grid in words, x first as image viewers say.

        Returns
        -------
        str
            ``256 x 256 x 128 voxels of 0.8 x 0.8 x 2.5``.
        """
        return (" x ".join(str(n) for n in self.shape[::-1]) + " voxels of "
                + " x ".join(f"{s:g}" for s in self.spacing[::-1]))


def _geometry(image) -> Geometry:
    size = image.GetSize()[::-1]
    return Geometry(shape=tuple(int(n) for n in size), spacing=tuple(float(s) for s in image.GetSpacing()[::-1]),
                    origin=tuple(float(v) for v in image.GetOrigin()),
                    direction=tuple(float(v) for v in image.GetDirection()))


def _plain(line: str) -> str:
    """An ITK message line without its object address and function prefixes (``NrrdImageIO(0x..): ``)."""
    line = re.sub(r"^(itk::|ITK )?(ERROR|WARNING):\s*", "", line.strip())
    line = re.sub(r"^\w+\(0x[0-9a-fA-F]+\):\s*", "", line)
    return re.sub(r"^\[\w+\]\s*_?\w+:\s*", "", line).strip()


def _itk_problem(exc: Exception, said: list[str]) -> str:
    """What an ITK exception (and what ITK printed while it ran) says is wrong, in one bounded line.

    The exception's first line names an ITK source file; the problem is on its ``ERROR:`` line and, for NRRD, on
    the last ``[nrrd]`` line (``type (short) and encoding (raw) require endian info``).
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    error = next((_plain(line) for line in lines if "ERROR:" in line), "")
    detail = [_plain(line) for line in lines if line.startswith("[")] + [_plain(line) for line in said]
    parts = [t.rstrip(":. ") for t in (error, "; ".join(detail[-2:])) if t.rstrip(":. ")] or ["unreadable"]
    text = " ".join(": ".join(dict.fromkeys(parts)).split())
    return text if len(text) <= 240 else text[:240] + "..."


def _refuse(path: Path, exc: Exception, said: list[str]) -> InputError:
    return InputError(f"{path}: not a readable medical image ({_itk_problem(exc, said)})")


@contextlib.contextmanager
def _itk_output(path: Path, notes: list | None) -> Iterator[list[str]]:
    """What ITK prints on stderr while it reads (MetaImage's ``data not read completely``...), captured.

    Yields the list the captured lines are put in (after the block). When the read succeeds, each line becomes a
    note (``FILE: SimpleITK: ...``): added to ``notes``, else issued as a
    :class:`~robustness.errors.NoteWarning`; never raw output.
    """
    said: list[str] = []
    sys.stderr.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        ok = False
        try:
            yield said
            ok = True
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text = sink.read(1 << 16).decode("utf-8", "replace")
            said += [_plain(line) for line in text.splitlines() if line.strip()][:20]
    if ok:
        for line in dict.fromkeys(said):
            note = f"SimpleITK: {line[:240]}"
            if notes is not None:
                notes.append(f"{path}: {note}")
            else:
                warnings.warn(f"{path}: {note}", NoteWarning, stacklevel=3)


def _check_spacing(path: Path, geometry: Geometry) -> None:
    if not all(math.isfinite(s) and s > 0 for s in geometry.spacing):
        raise InputError(f"{path}: voxel spacing {' x '.join(f'{s:g}' for s in geometry.spacing[::-1])}; a spacing "
                         "must be a positive number along every axis")


def _sitk():
    """SimpleITK, with ITK's own warnings off.

    What they warn about (a spacing of 0, a file cut short) is checked here first and refused in one line
    (:mod:`robustness.io.headers`), never left as a raw line on stderr.
    """
    sitk.ProcessObject.SetGlobalWarningDisplay(False)
    return sitk


def read_grid(path: str | os.PathLike, *, notes: list | None = None) -> Geometry:
    """A medical image's geometry from its header alone (no voxel is read).

    Parameters
    ----------
    path : str or path-like
    notes : list, optional
        Collects what ITK printed while reading (one line each, naming the file); default: issued as warnings.

    Returns
    -------
    Geometry

    Raises
    ------
    InputError
        One line naming the file: unreadable, vector-valued or not 2D or 3D.
    """
    sitk = _sitk()

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    check_header(path)
    reader = sitk.ImageFileReader()
    reader.SetFileName(str(path))
    try:
        with _itk_output(path, notes) as said:
            reader.ReadImageInformation()
    except RuntimeError as exc:
        raise _refuse(path, exc, said) from None
    _check_layout(path, reader.GetNumberOfComponents(), reader.GetDimension())
    geometry = _geometry(reader)
    _check_spacing(path, geometry)
    if math.prod(geometry.shape) > MAX_VOXELS:
        raise InputError(f"{path}: image of {geometry.describe().split(' voxels')[0]} voxels "
                         f"({math.prod(geometry.shape)}) is larger than the limit of {MAX_VOXELS} voxels")
    return geometry


def _check_layout(path: Path, components: int, dimension: int) -> None:
    """One value per voxel, 2D or 3D: a label mask."""
    if components != 1:
        raise InputError(f"{path}: {components} values per voxel; a label mask has one")
    if dimension not in (2, 3):
        raise InputError(f"{path}: a {dimension}D image; masks must be 2D or 3D")


def read_volume(path: str | os.PathLike, *, notes: list | None = None) -> tuple[np.ndarray, Geometry]:
    """A label mask and its geometry.

    Parameters
    ----------
    path : str or path-like
        A ``.nii``, ``.nii.gz``, ``.nrrd``, ``.nhdr``, ``.mha`` or ``.mhd`` file.
    notes : list, optional
        Collects what ITK printed while reading (one line each, naming the file); default: issued as warnings.

    Returns
    -------
    (labels, geometry) : (ndarray of int, Geometry)
        ``labels`` in array order, as the file's own integer type.

    Raises
    ------
    InputError
        One line naming the file: unreadable, vector-valued, 4D, non-integer or negative values.
    """
    sitk = _sitk()

    path = Path(path)
    read_grid(path, notes=notes)  # the header first: nothing outside its folder, a bounded size, a positive spacing
    check_voxels(path)
    try:
        with _itk_output(path, notes) as said:
            image = sitk.ReadImage(str(path))
    except RuntimeError as exc:
        raise _refuse(path, exc, said) from None
    _check_layout(path, image.GetNumberOfComponentsPerPixel(), image.GetDimension())
    labels = sitk.GetArrayFromImage(image)
    if labels.size and not np.issubdtype(labels.dtype, np.integer):
        finite = np.isfinite(labels)
        if not finite.all():
            raise InputError(f"{path}: {labels.size - np.count_nonzero(finite)} voxel(s) hold NaN or infinity; a "
                             "label mask holds whole numbers")
        if not np.array_equal(labels, np.round(labels)):
            raise InputError(f"{path}: non-integer voxel values ({labels.dtype}); a label mask holds whole numbers "
                             "(threshold a probability map first)")
    if labels.size and labels.min() < 0:
        raise InputError(f"{path}: negative labels (the smallest is {labels.min():g})")
    if labels.size and labels.max() > MAX_LABEL:
        raise InputError(f"{path}: a label of {labels.max():g} is above the largest label read ({MAX_LABEL})")
    if not np.issubdtype(labels.dtype, np.integer):
        labels = labels.astype(np.int64)
    return labels, _geometry(image)


def _close(a: tuple, b: tuple, scale: float) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= GRID_TOLERANCE * max(scale, abs(x), abs(y)) for x, y in zip(a, b))


def check_same_grid(run: tuple[str | os.PathLike, Geometry], reference: tuple[str | os.PathLike, Geometry]) -> None:
    """Refuse, in one line naming both files, a run's mask on another voxel grid than its reference's.

    Parameters
    ----------
    run, reference : (path, Geometry)

    Raises
    ------
    InputError
        Another size, spacing, origin or orientation.
    """
    (rp, rg), (gp, gg) = run, reference
    if rg.shape != gg.shape:
        raise InputError(f"{rp}: {rg.describe()}, but its reference {gp} has {gg.describe()} (a mask must lie on "
                         "its reference's voxel grid; nothing is resampled)")
    if not _close(rg.spacing, gg.spacing, 0.0):
        raise InputError(f"{rp}: voxel spacing {' x '.join(f'{s:g}' for s in rg.spacing[::-1])}, but its reference "
                         f"{gp} has {' x '.join(f'{s:g}' for s in gg.spacing[::-1])}")
    extent = max(n * s for n, s in zip(gg.shape, gg.spacing))
    if not _close(rg.origin, gg.origin, extent):
        raise InputError(f"{rp}: origin {tuple(round(v, 6) for v in rg.origin)}, but its reference {gp} has "
                         f"{tuple(round(v, 6) for v in gg.origin)}")
    if not _close(rg.direction, gg.direction, 1.0):
        raise InputError(f"{rp}: another orientation (direction cosines) than its reference {gp}; reorient one "
                         "of them (a flipped or permuted mask would be scored against the wrong voxels)")


def labels_in(labels: np.ndarray) -> list[int]:
    """The labels a mask holds, background (0) left out.

    Parameters
    ----------
    labels : ndarray of int

    Returns
    -------
    list of int

    Examples
    --------
    >>> labels_in(np.array([[0, 2], [2, 5]]))
    [2, 5]
    """
    return [int(v) for v in np.unique(labels) if v != 0]


def check_grids(images: list[str], annotators: list[str], ann_paths: dict, run_paths: dict) -> list | None:
    """Every medical-image mask of an image on the voxel grid of its first annotator's (:func:`check_same_grid`).

    Parameters
    ----------
    images : list of str
    annotators : list of str
    ann_paths, run_paths : dict
        ``{annotator or run: [path or None per image]}``.

    Returns
    -------
    list of tuple or None
        Each image's voxel spacing in array order (1 per axis for a 2D image file); None when no image is a
        medical image.

    Raises
    ------
    InputError
        One line naming the mask and the reference it differs from.
    """
    spacings: list[tuple | None] = []
    any_volume = False
    for i, _ in enumerate(images):
        first = next((ann_paths[a][i] for a in annotators if ann_paths[a][i] is not None), None)
        if first is None or not volume_suffix(first):
            spacings.append(None)
            continue
        any_volume = True
        reference = (first, read_grid(first))
        spacings.append(reference[1].spacing)
        for table in (ann_paths, run_paths):
            for paths in table.values():
                p = paths[i]
                if p is not None and p != first:
                    check_same_grid((p, read_grid(p)), reference)
    return spacings if any_volume else None
