"""Medical-image masks: NIfTI, NRRD and MetaImage files (2D or 3D) with their voxel geometry, through SimpleITK.

A label mask is read as an integer array in array order (``(z, y, x)`` for a volume, ``(y, x)`` for a 2D image)
with its :class:`Geometry`: the voxel spacing (physical units per voxel, e.g. mm, in array order), the origin
and the direction cosines. A run's mask is compared with its reference only when both describe the same voxels:
:func:`check_same_grid` refuses, in one line that names both files, another size, another spacing, another
origin or another orientation (a relative tolerance of 1e-6: headers written by different tools round
differently). Nothing is resampled: a mask on another grid is an error, never silently moved.

Refused in one line that names the file: a file SimpleITK cannot read (truncated, not an image), a vector image
(several components per voxel), a 4D image, non-integer voxel values (a probability map is not a label mask) and
negative labels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness.errors import InputError

__all__ = ["VOLUME_SUFFIXES", "Geometry", "read_volume", "read_grid", "check_same_grid", "check_grids",
           "volume_suffix", "labels_in"]

#: The file names read as medical images (a NIfTI may be gzipped; ``.mhd`` is a MetaImage header with its data
#: beside it).
VOLUME_SUFFIXES = (".nii.gz", ".nii", ".nrrd", ".nhdr", ".mha", ".mhd")

#: Relative tolerance when comparing two headers' spacing, origin and direction.
GRID_TOLERANCE = 1e-6


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


def _refuse(path: Path, exc: Exception) -> InputError:
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "unreadable")
    return InputError(f"{path}: not a readable medical image ({first[:160]})")


def read_grid(path: str | os.PathLike) -> Geometry:
    """A medical image's geometry from its header alone (no voxel is read).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Geometry

    Raises
    ------
    InputError
        One line naming the file: unreadable, vector-valued or not 2D or 3D.
    """
    import SimpleITK as sitk

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    reader = sitk.ImageFileReader()
    reader.SetFileName(str(path))
    try:
        reader.ReadImageInformation()
    except RuntimeError as exc:
        raise _refuse(path, exc) from None
    _check_layout(path, reader.GetNumberOfComponents(), reader.GetDimension())
    return _geometry(reader)


def _check_layout(path: Path, components: int, dimension: int) -> None:
    """One value per voxel, 2D or 3D: a label mask."""
    if components != 1:
        raise InputError(f"{path}: {components} values per voxel; a label mask has one")
    if dimension not in (2, 3):
        raise InputError(f"{path}: a {dimension}D image; masks must be 2D or 3D")


def read_volume(path: str | os.PathLike) -> tuple[np.ndarray, Geometry]:
    """A label mask and its geometry.

    Parameters
    ----------
    path : str or path-like
        A ``.nii``, ``.nii.gz``, ``.nrrd``, ``.nhdr``, ``.mha`` or ``.mhd`` file.

    Returns
    -------
    (labels, geometry) : (ndarray of int, Geometry)
        ``labels`` in array order, as the file's own integer type.

    Raises
    ------
    InputError
        One line naming the file: unreadable, vector-valued, 4D, non-integer or negative values.
    """
    import SimpleITK as sitk

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    try:
        image = sitk.ReadImage(str(path))
    except RuntimeError as exc:
        raise _refuse(path, exc) from None
    _check_layout(path, image.GetNumberOfComponentsPerPixel(), image.GetDimension())
    labels = sitk.GetArrayFromImage(image)
    if not np.issubdtype(labels.dtype, np.integer):
        finite = labels[np.isfinite(labels)]
        if finite.size != labels.size or not np.array_equal(finite, np.round(finite)):
            raise InputError(f"{path}: non-integer voxel values ({labels.dtype}); a label mask holds whole numbers "
                             "(threshold a probability map first)")
        labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise InputError(f"{path}: negative labels (the smallest is {labels.min()})")
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
    spacings, any_volume = [], False
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
