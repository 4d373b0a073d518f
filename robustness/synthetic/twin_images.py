"""The twin's real images: each truth as a band of signed distances, and a rater's mask drawn on it.

A real image's truth (:data:`TRUTH_RULE`) is kept as the band of voxels within ``bound`` of its border, with their
signed distances (physical units, negative inside), and the voxels deeper inside (:class:`TwinImage`). A rater
(:class:`RaterModel`) draws the voxels whose distance lies below a displacement ``offset + wobble F``, ``F`` a
smooth random field of unit variance (:func:`field_lattice`); objects are missed by size class and false objects
are balls in the background. :func:`draw_band` draws the band (a numba kernel,
:func:`robustness._kernels.threshold_band`), :func:`draw_mask` the whole mask, :func:`band_counts` the counts
against the truth from the band alone. The model is :mod:`robustness.synthetic.image_twin`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import ndimage

from robustness import _kernels

__all__ = ["TRUTH_RULE", "MISS_CLASSES", "SMOOTHING", "LATTICE_PER_LENGTH", "size_class", "volume_tuple",
           "object_labels",
           "signed_distance", "TwinImage", "field_lattice", "RaterModel", "draw_band"]

#: How a real image's truth is built from its gold annotators.
TRUTH_RULE = "majority vote of the real gold annotators (foreground where at least ceil(k/2) of k draw it)"

#: Objects are missed by size class: a rater's chance to miss a one-voxel speck is not its chance to miss the
#: main object. Class ``c`` holds objects of ``MISS_CLASSES[c]`` to ``MISS_CLASSES[c + 1]`` voxels.
MISS_CLASSES = np.array([0, 10, 100, 1_000, 10_000, np.inf])


def size_class(sizes: np.ndarray) -> np.ndarray:
    """Every object's size class (:data:`MISS_CLASSES`).

    Parameters
    ----------
    sizes : array_like of int
        Voxels per object.

    Returns
    -------
    ndarray of int
    """
    return (np.searchsorted(MISS_CLASSES, np.asarray(sizes), side="right") - 1).clip(0, MISS_CLASSES.size - 2)


#: The random field's lattice: the field is white noise on a lattice of step ``length / LATTICE_PER_LENGTH``,
#: smoothed by a Gaussian of ``SMOOTHING`` lattice steps and interpolated; its correlation at distance r is then
#: ``exp(-r^2 / (4 (SMOOTHING step)^2))``, one half at ``2 SMOOTHING sqrt(ln 2) step = length``.
SMOOTHING = 1.5
LATTICE_PER_LENGTH = 2 * SMOOTHING * float(np.sqrt(np.log(2)))


def volume_tuple(shape_or_spacing: tuple, fill: float | int) -> tuple:
    """A 2D shape or spacing as the (z, y, x) of a volume of one slice.

    Parameters
    ----------
    shape_or_spacing : tuple
        Two or three values.
    fill : float or int
        The z value of a 2D one (1).

    Returns
    -------
    tuple
        Three values.
    """
    t = tuple(shape_or_spacing)
    return ((fill,) + t) if len(t) == 2 else t


def object_labels(truth: np.ndarray) -> tuple[np.ndarray, int]:
    """The truth's objects: connected components with full connectivity (8 in 2D, 26 in 3D).

    Parameters
    ----------
    truth : ndarray of bool

    Returns
    -------
    (labels, n) : int32 ndarray of the truth's shape (0 background, 1..n), int
    """
    labels, n = ndimage.label(truth, structure=np.ones((3,) * truth.ndim, dtype=bool))
    return labels.astype(np.int32), int(n)


def signed_distance(truth: np.ndarray, spacing: tuple) -> np.ndarray:
    """Each voxel's distance to the truth's border in physical units: negative inside, positive outside.

    Inside, minus the distance to the nearest background voxel; outside, the distance to the nearest truth voxel
    (so the truth is exactly ``d < 0``). An empty truth: every voxel +inf.

    Parameters
    ----------
    truth : ndarray of bool
    spacing : tuple of float
        One voxel size per axis.

    Returns
    -------
    ndarray of float32
    """
    if not truth.any():
        return np.full(truth.shape, np.inf, dtype=np.float32)
    outside = ndimage.distance_transform_edt(~truth, sampling=spacing)
    inside = ndimage.distance_transform_edt(truth, sampling=spacing) if not truth.all() else \
        np.full(truth.shape, np.inf)
    return np.where(truth, -inside, outside).astype(np.float32)


@dataclass(frozen=True, eq=False)
class TwinImage:
    """One real image's truth as the twin keeps it: a band of signed distances around its border.

    Attributes
    ----------
    shape : tuple of int
        The image's shape as read (2D or 3D).
    spacing : tuple of float
        Its voxel size (z, y, x) (a 2D image: z = 1).
    origin, crop : tuple of int
        Where the box holding the band starts in the (z, y, x) image, and its shape.
    band : int64 (V,)
        The band's voxels (flat indices within the box).
    full : int64 (V,)
        The same voxels' flat indices within the image.
    dist : float32 (V,)
        Their signed distance to the truth's border.
    obj : int32 (V,)
        The truth object nearest to each (1..K).
    interior : int64 (Q,)
        The voxels deeper inside than the band (flat within the image), object by object.
    interior_start : int64 (K + 1,)
        Object ``k``'s interior is ``interior[interior_start[k - 1]:interior_start[k]]``.
    object_sizes : int64 (K,)
        Voxels per object.
    bound : float
        The band's half-width (physical units).
    band_inside : int64 (K,)
        Band voxels inside each object (``dist < 0``).
    """

    shape: tuple
    spacing: tuple
    origin: tuple
    crop: tuple
    band: np.ndarray
    full: np.ndarray
    dist: np.ndarray
    obj: np.ndarray
    interior: np.ndarray
    interior_start: np.ndarray
    object_sizes: np.ndarray
    bound: float
    band_inside: np.ndarray

    @property
    def n_objects(self) -> int:
        """The truth's objects."""
        return int(self.object_sizes.size)

    @property
    def truth_size(self) -> int:
        """The truth's voxels."""
        return int(self.object_sizes.sum())

    @property
    def n_voxels(self) -> int:
        """The image's voxels."""
        return int(np.prod(self.shape))

    @classmethod
    def build(cls, truth: np.ndarray, spacing: tuple, bound: float) -> TwinImage:
        """The band of a truth mask of half-width ``bound`` (physical units).

        Parameters
        ----------
        truth : ndarray of bool
            2D or 3D.
        spacing : tuple of float
            One voxel size per axis of ``truth``.
        bound : float
            Positive.

        Returns
        -------
        TwinImage
        """
        shape = tuple(int(s) for s in truth.shape)
        t3 = truth.reshape(volume_tuple(shape, 1))
        sp3 = tuple(float(s) for s in volume_tuple(tuple(spacing), 1.0))
        labels, n = object_labels(t3)
        if n == 0:
            empty64 = np.zeros(0, dtype=np.int64)
            return cls(shape, sp3, (0, 0, 0), (1, 1, 1), empty64, empty64, np.zeros(0, np.float32),
                       np.zeros(0, np.int32), empty64, np.zeros(1, np.int64), empty64, float(bound), empty64)
        margin = [int(np.ceil(bound / s)) + 1 if t3.shape[a] > 1 else 0 for a, s in enumerate(sp3)]
        where = np.nonzero(t3)
        lo = [max(0, int(w.min()) - m) for w, m in zip(where, margin)]
        hi = [min(t3.shape[a], int(w.max()) + 1 + m) for a, (w, m) in enumerate(zip(where, margin))]
        box = tuple(slice(a, b) for a, b in zip(lo, hi))
        sub = t3[box]
        d = signed_distance(sub, sp3)
        # the nearest truth object of every voxel of the box (inside: its own)
        _, nearest = ndimage.distance_transform_edt(~sub, sampling=sp3, return_indices=True)
        obj_of = labels[box][tuple(nearest)]
        in_band = np.abs(d) <= bound
        band = np.flatnonzero(in_band).astype(np.int64)
        crop = sub.shape
        coords = np.unravel_index(band, crop)
        full = np.ravel_multi_index(tuple(c + o for c, o in zip(coords, lo)), t3.shape).astype(np.int64)
        deep = (d < -bound)
        deep_flat = np.flatnonzero(deep)
        deep_obj = obj_of.reshape(-1)[deep_flat]
        order = np.argsort(deep_obj, kind="stable")
        deep_full = np.ravel_multi_index(tuple(c + o for c, o in zip(np.unravel_index(deep_flat[order], crop), lo)),
                                         t3.shape).astype(np.int64)
        start = np.concatenate([[0], np.cumsum(np.bincount(deep_obj, minlength=n + 1)[1:])]).astype(np.int64)
        sizes = np.bincount(labels[box][sub], minlength=n + 1)[1:].astype(np.int64)
        dist = d.reshape(-1)[band].astype(np.float32)
        obj = obj_of.reshape(-1)[band].astype(np.int32)
        inside = np.bincount(obj[dist < 0], minlength=n + 1)[1:].astype(np.int64)
        return cls(shape, sp3, tuple(lo), tuple(crop), band, full, dist, obj, deep_full, start, sizes, float(bound),
                   inside)

    def interior_of(self, k: int) -> np.ndarray:
        """Object ``k``'s interior voxels.

        Parameters
        ----------
        k : int
            1-based.

        Returns
        -------
        ndarray of int64
            Flat indices within the image.
        """
        return self.interior[self.interior_start[k - 1]:self.interior_start[k]]

    @cached_property
    def inner(self) -> tuple:
        """The band's inner part, within a third of the bound, and the band's bits as the truth draws them.

        Returns
        -------
        tuple
            (positions in the band, their box indices, their distances, the band's bits with every voxel inside 1).

        A rater whose offset plus six wobbles stays inside the inner part is drawn there alone (:func:`draw_band`):
        beyond it, its displacement is smaller than the distance in all but one voxel in about a billion.
        """
        positions = np.flatnonzero(np.abs(self.dist) <= self.bound / 3).astype(np.int64)
        return (positions, np.ascontiguousarray(self.band[positions]), np.ascontiguousarray(self.dist[positions]),
                (self.dist < 0).astype(np.uint8))


def field_lattice(image: TwinImage, length: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A smooth Gaussian random field of unit variance over an image's band box, on a lattice (module notes).

    Parameters
    ----------
    image : TwinImage
    length : float
        The distance (physical units) at which the field's correlation falls to one half.
    rng : numpy.random.Generator

    Returns
    -------
    (lattice, step) : float64 (Lz, Ly, Lx), float64 (3,)
        Point ``(a, b, c)`` sits ``(a, b, c) * step`` from the box's first voxel.
    """
    step = np.full(3, float(length) / LATTICE_PER_LENGTH)
    extent = np.array(image.crop) * np.array(image.spacing)
    n = np.where(np.array(image.crop) > 1, np.ceil(extent / step).astype(int) + 1, 1)
    pad = int(np.ceil(4 * SMOOTHING))
    padded = np.where(n > 1, n + 2 * pad, 1)
    white = rng.standard_normal(tuple(int(v) for v in padded))
    sigma = [SMOOTHING if v > 1 else 0.0 for v in n]
    smooth = ndimage.gaussian_filter(white, sigma=sigma, mode="constant", truncate=4.0)
    core = tuple(slice(pad, pad + int(v)) if v > 1 else slice(0, 1) for v in n)
    # unit variance between lattice points on average: interpolating (1 - u) a + u b of neighbours correlated
    # rho has variance 2/3 + rho/3 averaged over u, per interpolated axis
    rho = float(np.exp(-1.0 / (4 * SMOOTHING ** 2)))
    active = int(sum(v > 1 for v in n))
    return smooth[core] / _smoothing_sd(tuple(v > 1 for v in n)) / (2 / 3 + rho / 3) ** (active / 2), step


_SD_CACHE: dict = {}


def _smoothing_sd(axes: tuple) -> float:
    """The standard deviation of white noise after the lattice's Gaussian smoothing along ``axes``."""
    if axes not in _SD_CACHE:
        size = int(2 * np.ceil(4 * SMOOTHING) + 1)
        delta = np.zeros(tuple(size if a else 1 for a in axes))
        delta[tuple(size // 2 if a else 0 for a in axes)] = 1.0
        kernel = ndimage.gaussian_filter(delta, sigma=[SMOOTHING if a else 0.0 for a in axes], mode="constant",
                                         truncate=4.0)
        _SD_CACHE[axes] = float(np.sqrt((kernel ** 2).sum()))
    return _SD_CACHE[axes]


@dataclass(frozen=True)
class RaterModel:
    """One rater's parameters on one image (module notes): the border's offset and wobble, misses, false objects.

    ``p_miss`` is the chance to miss an object of each size class (:data:`MISS_CLASSES`), or one chance for all.
    """

    offset: float
    wobble: float
    p_miss: float | np.ndarray = 0.0
    spurious: float = 0.0


_NO_POSITIONS = np.zeros(0, dtype=np.int64)


def draw_band(image: TwinImage, model: RaterModel, length: float, rng: np.random.Generator, *,
              lattice: tuple | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """A rater's band voxels and missed objects on one image.

    Parameters
    ----------
    image : TwinImage
    model : RaterModel
    length : float
        The field's correlation length (:func:`field_lattice`).
    rng : numpy.random.Generator
        Draws, in order, the field (unless ``lattice`` is given), then one uniform per object for the misses.
    lattice : (lattice, step), optional
        A field shared with other raters (common random numbers), instead of a fresh one.

    Returns
    -------
    (bits, missed, clipped) : uint8 (V,), bool (K,), int
        The band voxels drawn (0 in missed objects), which objects are missed, and how many displacements were
        clipped to the band.
    """
    if lattice is None:
        lattice = field_lattice(image, length, rng)
    crop = np.array(image.crop, dtype=np.int64)
    spacing = np.array(image.spacing, dtype=np.float64)
    displacement = (lattice[0], lattice[1], float(model.offset), float(model.wobble), float(image.bound))
    if abs(model.offset) + 6 * model.wobble <= image.bound / 3:  # the inner part decides (property notes)
        positions, flat, dist, bits = image.inner
        bits = bits.copy()
        clipped = _kernels.threshold_band(flat, dist, crop, spacing, displacement, bits, positions)
    else:
        bits = np.empty(image.band.size, dtype=np.uint8)
        clipped = _kernels.threshold_band(image.band, image.dist, crop, spacing, displacement, bits,
                                          _NO_POSITIONS)
    chance = np.asarray(model.p_miss, dtype=np.float64)
    if chance.ndim:
        chance = chance[size_class(image.object_sizes)]
    missed = rng.random(image.n_objects) < chance
    if missed.any():
        bits[missed[image.obj - 1]] = 0
    return bits, missed, int(clipped)
