"""Surface elements: the surface model of DeepMind's surface-distance and of MONAI's ``use_subvoxels``.

The voxel model (:mod:`robustness.overlap.boundary`, MetricsReloaded's) counts border voxels, each with weight 1.
The element model (Nikolov et al. 2021, "Clinically applicable segmentation of head and neck anatomy for
radiotherapy", J Med Internet Res 23(7):e26151; the definition KiTS23 ranks by) puts the surface between voxel
centres: every 2 x 2 x 2 cube of voxel centres (2 x 2 square in 2D) whose corners are neither all inside nor all
outside holds a piece of the iso-surface at 0.5, weighted by that piece's area (length in 2D) in physical units.

- a cube's piece is the classic marching-cubes triangulation (Lorensen and Cline 1987) of its minority corners (the
  inside corners when at most four are inside, else the outside ones), vertices at the edges' midpoints;
  :data:`_TRIANGLES` holds every one of the 256 cubes' triangles as area vectors in eighths of a voxel face,
  generated with scikit-image's ``marching_cubes(method="lorensen")``
  (``tests/overlap/test_surfels.py`` regenerates it); under a spacing ``(s0, s1, s2)`` a triangle's area is the norm
  of its vector times ``(s1 s2, s0 s2, s0 s1)``;
- in 2D a square holds a segment: half its diagonal for one or three inside corners, a side for two corners on
  one side, the whole diagonal for two opposite corners;
- the mask is padded with background, so an object touching the array's edge has a closed surface;
- distances run between cube centres (both masks' cubes on one grid), Euclidean in physical units.

The metrics weight each element by its area: NSD ``(sum of areas within t of the other surface, both ways) /
(both surfaces' areas)`` (DeepMind's surface Dice); ``hd<P>`` the larger of the two directions' area-weighted
percentiles (the first element in distance order whose cumulated area share reaches ``P / 100``); ``assd`` the
area-weighted mean over both surfaces; ``masd`` the mean of the two directions' area-weighted means (DeepMind's two
average surface distances); ``hd`` the largest distance. ``d <= t`` takes the slack of
:data:`robustness.overlap.surface_stats.SLACK`.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike

from robustness.overlap.surface_stats import SLACK

__all__ = ["cube_codes", "element_areas", "elements", "nsd_weighted", "hdp_weighted", "assd_weighted",
           "masd_weighted", "hd_weighted"]

#: Per cube code (bit ``4 dz + 2 dy + dx`` set when corner ``(dz, dy, dx)`` is inside), its triangles' area
#: vectors in eighths (``x,y,z;x,y,z``; ``-``: none), each up to sign (only their norms are used).
_TRIANGLES = (
    '- 1,1,1 1,1,-1 2,2,0;2,2,0 1,-1,1 2,0,2;2,0,2 1,-1,1;1,1,-1 1,1,1;2,2,2;4,0,0 1,-1,-1 1,-1,-1;1,1,1 '
    '2,0,-2;2,0,-2 1,1,-1;2,2,-2;4,0,0 2,-2,0;2,-2,0 1,-1,1;2,-2,2;4,0,0 1,-1,-1;2,-2,-2;4,0,0 4,0,0;4,0,0 1,-1,-1 '
    '0,2,2;0,2,2 1,-1,-1;1,1,-1 0,4,0;1,1,1;2,2,2 1,-1,-1;1,-1,1 0,0,4;1,1,1;2,2,2 1,-1,-1;1,-1,1;1,1,-1 '
    '1,1,1;1,1,1;2,2,2;2,2,2 1,-1,-1;1,-1,-1 0,2,2;0,2,2;1,-1,-1 1,-1,-1;2,0,-2;2,0,-2 0,2,-2;1,1,1;2,0,-2;3,3,3 '
    '1,-1,-1;2,-2,0;2,-2,0 0,2,-2;1,1,1;2,-2,0;3,3,3 1,-1,-1;1,-1,-1;2,-2,-2;4,0,0 1,1,1;2,2,2;4,0,0 1,-1,1 '
    '1,-1,1;1,1,1 0,2,-2;0,2,-2 0,4,0;1,1,-1;2,2,-2 1,-1,1;1,-1,1 1,-1,1;2,0,2;2,0,2 0,2,-2;0,2,-2;1,-1,1 '
    '0,2,2;1,1,-1;2,0,2;3,3,-3 1,-1,-1;1,-1,1 1,-1,-1;1,-1,1;1,1,1 0,0,4;1,1,-1;2,2,-2 1,1,-1;1,1,-1;2,2,-2;2,2,-2 '
    '1,-1,1;2,-2,0;2,-2,0 1,-1,1;1,-1,1;2,-2,2;4,0,0 0,2,-2;1,-1,-1;2,2,0;3,-3,-3 1,1,-1;2,2,-2;4,0,0 2,-2,0;2,-2,0 '
    '0,4,0;1,-1,-1;2,-2,-2 0,4,0;1,-1,1;2,-2,2 0,4,0;0,4,0 1,-1,1;2,-2,0;2,-2,0 1,1,1;2,-2,0;2,0,-2;3,3,3 '
    '0,4,0;1,-1,1;1,-1,1;2,-2,2 0,4,0;1,1,1;2,2,2 1,-1,-1;2,-2,0;2,-2,0 0,4,0;1,-1,-1;1,-1,-1;2,-2,-2 '
    '1,1,-1;2,-2,0;2,0,2;3,3,-3 0,4,0;1,1,-1;2,2,-2 2,-2,0;2,-2,0;2,-2,0;2,-2,0 1,1,-1;2,2,0;2,2,0 1,1,1;2,2,0;2,2,0 '
    '2,2,0;2,2,0 1,1,-1 1,1,-1;1,1,1 1,1,-1;1,1,-1 1,1,-1;2,2,0;2,2,0 0,2,-2;0,2,-2 0,0,4;1,-1,1;2,-2,2 '
    '0,2,-2;0,2,-2;1,1,-1 0,2,2;1,-1,1;2,2,0;3,-3,3 1,-1,-1;1,1,-1 1,-1,-1;1,1,-1;1,1,1 1,1,-1;2,0,-2;2,0,-2 '
    '1,1,-1;1,1,-1;2,2,-2;4,0,0 0,4,0;1,-1,1;2,-2,2 1,-1,1;1,-1,1;2,-2,2;2,-2,2 0,2,2;1,-1,1;2,0,-2;3,-3,3 '
    '1,-1,1;2,-2,2;4,0,0 2,0,-2;2,0,-2 0,0,4;1,-1,-1;2,-2,-2 1,1,-1;2,0,-2;2,0,-2 1,-1,-1;2,0,2;2,2,0;3,-3,-3 '
    '0,0,4;1,1,-1;2,2,-2 0,0,4;0,0,4 0,0,4;1,1,-1;1,1,-1;2,2,-2 0,0,4;1,1,1;2,2,2 1,-1,-1;2,0,-2;2,0,-2 '
    '0,0,4;1,-1,-1;1,-1,-1;2,-2,-2 2,0,-2;2,0,-2;2,0,-2;2,0,-2 1,-1,1;2,0,2;2,0,2 1,-1,1;2,0,-2;2,2,0;3,-3,3 '
    '0,0,4;1,-1,1;2,-2,2 1,1,1;2,0,2;2,0,2 2,0,2;2,0,2 1,-1,1;1,1,-1 1,-1,1;1,1,-1;1,1,1 0,2,-2;0,2,-2;1,1,-1 '
    '0,4,0;1,1,-1;1,1,-1;2,2,-2 0,2,-2;0,2,-2;1,-1,1 0,0,4;1,-1,1;1,-1,1;2,-2,2 0,2,-2;0,2,-2;0,2,-2;0,2,-2 '
    '0,2,2;0,2,2;1,-1,-1 1,-1,-1;1,-1,1;1,1,-1 1,-1,-1;1,-1,1;1,1,-1;1,1,1 0,0,4;1,1,-1;1,1,-1;2,2,-2 '
    '1,-1,-1;1,-1,1;1,1,1 0,4,0;1,-1,1;1,-1,1;2,-2,2 1,-1,-1;1,1,-1;1,1,1 0,2,2;0,2,2;1,1,1 1,-1,-1;1,1,1 '
    '1,-1,-1;2,-2,-2;4,0,0 1,-1,-1;1,-1,-1;2,-2,-2;2,-2,-2 0,2,-2;1,-1,-1;2,0,2;3,-3,-3 0,4,0;1,-1,-1;2,-2,-2 '
    '0,2,2;1,1,-1;2,-2,0;3,3,-3 0,0,4;1,-1,-1;2,-2,-2 0,2,2;0,2,2;1,1,1 0,2,2;0,2,2 1,-1,-1;1,-1,-1;2,-2,-2;4,0,0 '
    '1,-1,1;1,1,-1;1,1,1 1,1,1;2,0,2;2,0,2 1,-1,1;1,1,1 1,1,1;2,2,0;2,2,0 1,1,-1;1,1,1 1,1,1;1,1,1 1,1,1 1,1,1 '
    '1,1,1;1,1,1 1,1,-1;1,1,1 1,1,1;2,2,0;2,2,0 1,-1,1;1,1,1 1,1,1;2,0,2;2,0,2 1,-1,1;1,1,-1;1,1,1 '
    '1,1,1;1,1,1;2,2,2;4,0,0 0,2,2;0,2,2 0,2,2;0,2,2;1,1,1 0,0,4;1,-1,-1;2,-2,-2 0,2,2;1,1,-1;2,-2,0;3,3,-3 '
    '0,4,0;1,-1,-1;2,-2,-2 0,2,-2;1,-1,-1;2,0,2;3,-3,-3 1,-1,-1;1,-1,-1;2,-2,-2;2,-2,-2 1,-1,-1;2,-2,-2;4,0,0 '
    '1,-1,-1;1,1,1 0,2,2;0,2,2;1,1,1 1,-1,-1;1,1,-1;1,1,1 0,4,0;1,1,1;1,1,1;2,2,2 1,-1,-1;1,-1,1;1,1,1 '
    '0,0,4;1,1,1;1,1,1;2,2,2 1,-1,-1;1,-1,1;1,1,-1;1,1,1 1,-1,-1;1,-1,1;1,1,-1 0,2,2;0,2,2;1,-1,-1 '
    '0,2,2;0,2,2;0,2,2;0,2,2 0,0,4;1,-1,-1;1,-1,-1;2,-2,-2 0,2,-2;0,2,-2;1,-1,1 0,4,0;1,-1,-1;1,-1,-1;2,-2,-2 '
    '0,2,-2;0,2,-2;1,1,-1 1,-1,1;1,1,-1;1,1,1 1,-1,1;1,1,-1 2,0,2;2,0,2 1,1,1;2,0,2;2,0,2 0,0,4;1,-1,1;2,-2,2 '
    '1,-1,1;2,0,-2;2,2,0;3,-3,3 1,-1,1;2,0,2;2,0,2 2,0,2;2,0,2;2,0,2;2,0,2 0,0,4;1,-1,1;1,-1,1;2,-2,2 '
    '1,-1,-1;2,0,-2;2,0,-2 0,0,4;1,1,1;2,2,2 0,0,4;1,1,1;1,1,1;2,2,2 0,0,4;0,0,4 0,0,4;1,1,-1;2,2,-2 '
    '1,-1,-1;2,0,2;2,2,0;3,-3,-3 1,1,-1;2,0,-2;2,0,-2 0,0,4;1,-1,-1;2,-2,-2 2,0,-2;2,0,-2 1,-1,1;2,-2,2;4,0,0 '
    '0,2,2;1,-1,1;2,0,-2;3,-3,3 1,-1,1;1,-1,1;2,-2,2;2,-2,2 0,4,0;1,-1,1;2,-2,2 1,-1,1;1,-1,1;2,-2,2;4,0,0 '
    '1,1,-1;2,0,-2;2,0,-2 1,-1,-1;1,1,-1;1,1,1 1,-1,-1;1,1,-1 0,2,2;1,-1,1;2,2,0;3,-3,3 0,2,-2;0,2,-2;1,1,-1 '
    '0,0,4;1,-1,1;2,-2,2 0,2,-2;0,2,-2 1,1,-1;2,2,0;2,2,0 1,1,-1;1,1,-1 1,1,-1;1,1,1 1,1,-1 2,2,0;2,2,0 '
    '1,1,1;2,2,0;2,2,0 1,1,-1;2,2,0;2,2,0 2,2,0;2,2,0;2,2,0;2,2,0 0,4,0;1,1,-1;2,2,-2 1,1,-1;2,-2,0;2,0,2;3,3,-3 '
    '0,4,0;1,1,-1;1,1,-1;2,2,-2 1,-1,-1;2,-2,0;2,-2,0 0,4,0;1,1,1;2,2,2 0,4,0;1,1,1;1,1,1;2,2,2 '
    '1,1,1;2,-2,0;2,0,-2;3,3,3 1,-1,1;2,-2,0;2,-2,0 0,4,0;0,4,0 0,4,0;1,-1,1;2,-2,2 0,4,0;1,-1,-1;2,-2,-2 '
    '2,-2,0;2,-2,0 1,1,-1;2,2,-2;4,0,0 0,2,-2;1,-1,-1;2,2,0;3,-3,-3 1,1,-1;1,1,-1;2,2,-2;4,0,0 1,-1,1;2,-2,0;2,-2,0 '
    '1,1,-1;1,1,-1;2,2,-2;2,2,-2 0,0,4;1,1,-1;2,2,-2 1,-1,-1;1,-1,1;1,1,1 1,-1,-1;1,-1,1 0,2,2;1,1,-1;2,0,2;3,3,-3 '
    '0,2,-2;0,2,-2;1,-1,1 1,-1,1;2,0,2;2,0,2 1,-1,1;1,-1,1 0,4,0;1,1,-1;2,2,-2 0,2,-2;0,2,-2 1,-1,1;1,1,1 1,-1,1 '
    '1,1,1;2,2,2;4,0,0 1,1,1;1,1,1;2,2,2;4,0,0 0,2,-2;1,1,1;2,-2,0;3,3,3 1,-1,-1;2,-2,0;2,-2,0 '
    '0,2,-2;1,1,1;2,0,-2;3,3,3 1,-1,-1;2,0,-2;2,0,-2 0,2,2;0,2,2;1,-1,-1 1,-1,-1;1,-1,-1 1,1,1;1,1,1;2,2,2;2,2,2 '
    '1,-1,-1;1,-1,1;1,1,-1 0,0,4;1,1,1;2,2,2 1,-1,-1;1,-1,1 0,4,0;1,1,1;2,2,2 1,-1,-1;1,1,-1 0,2,2;0,2,2 1,-1,-1 '
    '4,0,0;4,0,0 1,-1,-1;2,-2,-2;4,0,0 1,-1,1;2,-2,2;4,0,0 2,-2,0;2,-2,0 1,1,-1;2,2,-2;4,0,0 2,0,-2;2,0,-2 '
    '1,-1,-1;1,1,1 1,-1,-1 1,1,1;2,2,2;4,0,0 1,-1,1;1,1,-1 2,0,2;2,0,2 1,-1,1 2,2,0;2,2,0 1,1,-1 1,1,1 -'
)


@functools.cache
def _vectors() -> tuple[np.ndarray, np.ndarray]:
    """Every cube's triangle vectors (in voxel-face units) as one array, and each triangle's cube code."""
    vectors, codes = [], []
    for code, entry in enumerate(_TRIANGLES.split()):
        for triangle in ([] if entry == "-" else entry.split(";")):
            vectors.append([int(v) / 8 for v in triangle.split(",")])
            codes.append(code)
    return np.array(vectors), np.array(codes)


def element_areas(spacing: ArrayLike, planar: bool = False) -> np.ndarray:
    """The surface area (2D: contour length) of every cube code under a voxel spacing.

    Parameters
    ----------
    spacing : array_like of 3 floats
        The voxel size along ``(z, y, x)`` (a planar mask's first entry is not used).
    planar : bool
        A 2D mask: 16 square codes (bit ``2 dy + dx``).

    Returns
    -------
    ndarray (256,) or (16,)

    Examples
    --------
    >>> element_areas((1.0, 1.0, 1.0))[[1, 3, 15]].round(4).tolist()  # a corner, an edge, a face's half-space
    [0.2165, 0.7071, 1.0]
    >>> element_areas((1.0, 2.0, 1.0), planar=True)[[1, 3, 5, 6]].round(4).tolist()
    [1.118, 1.0, 2.0, 2.2361]
    """
    s0, s1, s2 = (float(v) for v in np.asarray(spacing, dtype=np.float64).ravel())
    if planar:
        half_diagonal = 0.5 * math.hypot(s1, s2)
        out = np.zeros(16)
        for code in range(1, 15):
            inside = bin(code).count("1")
            out[code] = (half_diagonal if inside in (1, 3) else s2 if code in (3, 12) else s1 if code in (5, 10)
                         else 2 * half_diagonal)
        return out
    vectors, codes = _vectors()
    areas = np.linalg.norm(vectors * np.array([s1 * s2, s0 * s2, s0 * s1]), axis=1)
    return np.bincount(codes, weights=areas, minlength=256)


def cube_codes(mask: np.ndarray, planar: bool = False) -> np.ndarray:
    """The code of every cube of voxel centres of a mask padded with background (one more per axis).

    Parameters
    ----------
    mask : ndarray of bool, 3D
        A planar mask has one slice (its first axis is not padded).
    planar : bool

    Returns
    -------
    ndarray of uint8, shape ``mask.shape + 1`` per axis (planar: ``(1, H + 1, W + 1)``)
        Cube ``(i, j, k)`` has the voxels ``i - 1 .. i`` (``j - 1 .. j``, ``k - 1 .. k``) as its corners.
    """
    if planar:
        padded = np.pad(mask[0].astype(np.uint8), 1)
        h, w = padded.shape[0] - 1, padded.shape[1] - 1
        codes = np.zeros((h, w), np.uint8)
        for dy in (0, 1):
            for dx in (0, 1):
                codes |= padded[dy:dy + h, dx:dx + w] << (2 * dy + dx)
        return codes[None]
    padded = np.pad(mask.astype(np.uint8), 1)
    n = tuple(s - 1 for s in padded.shape)
    codes = np.zeros(n, np.uint8)
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                codes |= padded[dz:dz + n[0], dy:dy + n[1], dx:dx + n[2]] << (4 * dz + 2 * dy + dx)
    return codes


def elements(mask: np.ndarray, spacing: np.ndarray, planar: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A mask's surface elements: the grid of cubes that hold one, and their areas in the grid's C order.

    Parameters
    ----------
    mask : ndarray of bool, 3D
    spacing : ndarray (3,)
    planar : bool

    Returns
    -------
    (where, areas)
        ``where`` a boolean grid of :func:`cube_codes`' shape; ``areas`` one weight per element.
    """
    codes = cube_codes(mask, planar)
    where = (codes != 0) & (codes != (15 if planar else 255))
    return where, element_areas(spacing, planar)[codes[where]]


def nsd_weighted(d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray, tolerance: float) -> float:
    """The surface Dice: the area of both surfaces within ``tolerance`` of the other, over both areas.

    Parameters
    ----------
    d_ab, d_ba : ndarray
        Each element's distance to the other surface (both non-empty).
    w_a, w_b : ndarray
        The elements' areas.
    tolerance : float

    Returns
    -------
    float

    Examples
    --------
    >>> nsd_weighted(np.array([0.0, 2.0]), np.array([1.0, 3.0]), np.array([1.0]), np.array([1.0]), 1.0)
    0.4
    """
    limit = tolerance * tolerance * (1.0 + SLACK)
    within = np.sum(w_a[d_ab * d_ab <= limit]) + np.sum(w_b[d_ba * d_ba <= limit])
    return float(within / (np.sum(w_a) + np.sum(w_b)))


def _percentile(d: np.ndarray, w: np.ndarray, percentile: float) -> float:
    """The first distance, in (distance, area) order, whose cumulated area share reaches ``percentile / 100``."""
    order = np.lexsort((w, d))
    share = np.cumsum(w[order]) / np.sum(w)
    return float(d[order][min(int(np.searchsorted(share, percentile / 100.0)), d.size - 1)])


def hdp_weighted(d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray, percentile: float) -> float:
    """The larger of the two directions' area-weighted ``percentile``-th percentiles (DeepMind's robust HD).

    Parameters
    ----------
    d_ab, w_a, d_ba, w_b : ndarray
    percentile : float

    Returns
    -------
    float

    Examples
    --------
    >>> hdp_weighted(np.array([1.0, 3.0]), np.array([3.0, 1.0]), np.array([0.5]), np.array([1.0]), 75)
    1.0
    """
    return max(_percentile(d_ab, w_a, percentile), _percentile(d_ba, w_b, percentile))


def assd_weighted(d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray) -> float:
    """The area-weighted mean distance over both surfaces.

    Parameters
    ----------
    d_ab, w_a, d_ba, w_b : ndarray

    Returns
    -------
    float
    """
    return float((np.dot(d_ab, w_a) + np.dot(d_ba, w_b)) / (np.sum(w_a) + np.sum(w_b)))


def masd_weighted(d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray) -> float:
    """The mean of the two directions' area-weighted mean distances (DeepMind's average surface distances).

    Parameters
    ----------
    d_ab, w_a, d_ba, w_b : ndarray

    Returns
    -------
    float
    """
    return float((np.dot(d_ab, w_a) / np.sum(w_a) + np.dot(d_ba, w_b) / np.sum(w_b)) / 2)


def hd_weighted(d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray) -> float:
    """The largest distance from an element to the other surface (areas do not matter).

    Parameters
    ----------
    d_ab, w_a, d_ba, w_b : ndarray

    Returns
    -------
    float
    """
    return float(max(d_ab.max(), d_ba.max()))
