"""The kernel of the twin made of a challenge's own images (:mod:`robustness.synthetic.image_twin`).

A rater's mask near the truth's border is the set of voxels whose signed distance to the truth (negative inside,
in physical units) lies below a displacement ``offset + scale * F``, ``F`` a smooth random field given on a
coarse lattice and interpolated (trilinearly; a 2D image is a volume of one slice). Only the voxels of a band
around the border are visited: deeper voxels are inside every mask and farther ones outside. Within the band, a
voxel beyond the rater's extreme displacements is decided without interpolating the field.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["threshold_band"]


@njit(cache=True, nogil=True)
def _axis(u, n):
    """Lattice cell and weight along one axis (clamped to the lattice)."""
    if n == 1:
        return 0, 0, 0.0
    if u <= 0.0:
        return 0, 0, 0.0
    if u >= n - 1:
        return n - 1, n - 1, 0.0
    i = int(np.floor(u))
    return i, i + 1, u - i


@njit(cache=True, nogil=True)
def _shortcut(displacement, crop_shape, spacing):
    """``(lo, hi, sure)``: below ``lo`` a voxel is drawn, from ``hi`` on it is not, without interpolating.

    The field lies between the lattice's extremes (linear interpolation), so the displacement ``offset + scale * F``
    lies between its values there; the margin stands far above the interpolation's rounding (a few units in the
    last place), so the bits are those interpolation gives. ``sure`` is false where a displacement may be clipped
    (the clipped ones are counted), the lattice holds a NaN, or the field is not an interpolation everywhere
    (:func:`_interpolates`).
    """
    lattice, lattice_step, offset, scale, bound = displacement
    if not _interpolates(crop_shape, spacing, lattice_step):
        return 0.0, 0.0, False
    lo = np.inf
    hi = -np.inf
    for value in lattice.ravel():
        if np.isnan(value):
            return 0.0, 0.0, False
        lo = min(lo, value)
        hi = max(hi, value)
    a = offset + scale * lo
    b = offset + scale * hi
    margin = 1e-9 * (abs(offset) + abs(a - offset) + abs(b - offset) + 1.0)
    lo = min(a, b) - margin
    hi = max(a, b) + margin
    return lo, hi, lo >= -bound and hi <= bound


@njit(cache=True, nogil=True)
def _interpolates(crop_shape, spacing, lattice_step):
    """Whether every voxel's field is an interpolation, never an extrapolation, and no division fails.

    The x position is not clamped to the lattice below (a negative step or spacing extrapolates), and a zero step
    or crop size raises as interpolating would: the shortcut is taken only where neither can happen.
    """
    return (spacing[2] / lattice_step[2] >= 0.0 and lattice_step[0] != 0.0 and lattice_step[1] != 0.0
            and crop_shape[1] > 0 and crop_shape[2] > 0)


@njit(cache=True, nogil=True)
def threshold_band(flat, dist, crop_shape, spacing, displacement, out, positions):
    """Which band voxels a rater draws: ``dist < clip(offset + scale * F, -bound, bound)``.

    Parameters
    ----------
    flat : int64 (V,)
        The band voxels' flat indices within the crop (C order over ``crop_shape``), increasing.
    dist : float32 (V,)
        Their signed distance to the truth's border (physical units, negative inside).
    crop_shape : int64 (3,)
        The crop's shape (z, y, x); a 2D image has z = 1.
    spacing : float64 (3,)
        The voxel size (z, y, x) in physical units.
    displacement : tuple (lattice, lattice_step, offset, scale, bound)
        The rater's displacement ``offset + scale * F``, clipped to ``[-bound, bound]`` (floats), where the field
        ``F`` is linear between the values ``lattice`` (float64 (Lz, Ly, Lx)) at lattice points: point
        ``(a, b, c)`` sits at physical position ``(a, b, c) * lattice_step`` (float64 (3,)) from the crop's first
        voxel.
    out : uint8
        1 where the voxel is drawn: ``out[v]``, or ``out[positions[v]]`` where ``positions`` is not empty.
    positions : int64 (V,) or (0,)
        Where in ``out`` each voxel's bit goes (a part of a band written into the whole band's bits).

    Returns
    -------
    int
        How many voxels had their displacement clipped (the band was too narrow for them).
    """
    lattice, lattice_step, offset, scale, bound = displacement
    lo, hi, sure = _shortcut(displacement, crop_shape, spacing)  # beyond the rater's extreme displacements
    ny = crop_shape[1]
    nx = crop_shape[2]
    lz, ly, lx = lattice.shape
    fx = spacing[2] / lattice_step[2]
    clipped = 0
    row_start = 0
    row_end = -1
    z0 = z1 = y0 = y1 = 0
    wz = wy = 0.0
    for v in range(flat.size):
        at = positions[v] if positions.size else v
        if sure:
            d = dist[v]
            if d < lo or d >= hi:
                out[at] = 1 if d < lo else 0
                continue
        f = flat[v]
        if f >= row_end or f < row_start:  # a new row (z, y): the band is sorted, so rows repeat
            r = f // nx
            row_start = r * nx
            row_end = row_start + nx
            z = r // ny
            z0, z1, wz = _axis(z * spacing[0] / lattice_step[0], lz)
            y0, y1, wy = _axis((r - z * ny) * spacing[1] / lattice_step[1], ly)
        u = (f - row_start) * fx
        if lx == 1 or u >= lx - 1:
            x0 = lx - 1
            x1 = x0
            wx = 0.0
        else:
            x0 = int(u)
            x1 = x0 + 1
            wx = u - x0
        c00 = lattice[z0, y0, x0] * (1 - wx) + lattice[z0, y0, x1] * wx
        c01 = lattice[z0, y1, x0] * (1 - wx) + lattice[z0, y1, x1] * wx
        field = c00 * (1 - wy) + c01 * wy
        if wz > 0.0:
            c10 = lattice[z1, y0, x0] * (1 - wx) + lattice[z1, y0, x1] * wx
            c11 = lattice[z1, y1, x0] * (1 - wx) + lattice[z1, y1, x1] * wx
            field = field * (1 - wz) + (c10 * (1 - wy) + c11 * wy) * wz
        delta = offset + scale * field
        if delta > bound:
            delta = bound
            clipped += 1
        elif delta < -bound:
            delta = -bound
            clipped += 1
        out[at] = 1 if dist[v] < delta else 0
    return clipped
