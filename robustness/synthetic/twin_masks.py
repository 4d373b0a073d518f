"""The twin's whole masks: a rater's mask on a real image, false objects, and counts from the band alone.

:func:`draw_mask` draws one rater's mask on a real image (the band by
:func:`robustness.synthetic.twin_images.draw_band`, the interior of the objects it keeps, false objects as balls
in the background, :func:`place_balls`); :func:`band_counts` counts a rater's TP, FP and FN against the truth
from the band alone (the population pools, :func:`robustness.synthetic.image_twin.twin_pool_counts`), the same
counts as the whole mask's (tested).
"""

from __future__ import annotations

import numpy as np

from robustness.synthetic.twin_images import RaterModel, TwinImage, draw_band, volume_tuple

__all__ = ["place_balls", "ball_voxels", "draw_mask", "truth_mask", "band_counts"]


def place_balls(image: TwinImage, sizes: np.ndarray, count: int, rng: np.random.Generator) -> list[tuple]:
    """False objects: balls in the background, clear of the band's box and of each other.

    A ball that finds no room in 50 tries is left out.

    Parameters
    ----------
    image : TwinImage
    sizes : ndarray of int
        The sizes (voxels) the balls' sizes are drawn from.
    count : int
        Balls asked for.
    rng : numpy.random.Generator

    Returns
    -------
    list of (lo, hi, centre, radius)
        Each ball's box, centre (z, y, x) and radius in voxels.
    """
    if count == 0 or sizes.size == 0:
        return []
    shape = np.array(volume_tuple(image.shape, 1))
    ndim = len(image.shape)
    box_lo, box_hi = np.array(image.origin), np.array(image.origin) + np.array(image.crop)
    placed: list[tuple] = []
    for _ in range(count):
        size = float(sizes[rng.integers(0, sizes.size)])
        radius = (size / np.pi) ** 0.5 if ndim == 2 else (3 * size / (4 * np.pi)) ** (1 / 3)
        r = int(np.ceil(radius))
        for _ in range(50):
            centre = np.array([0 if (ndim == 2 and a == 0) else int(rng.integers(r, max(r + 1, shape[a] - r)))
                               for a in range(3)])
            lo = centre - np.where(np.arange(3) == 0, 0 if ndim == 2 else r, r)
            hi = centre + np.where(np.arange(3) == 0, 1 if ndim == 2 else r + 1, r + 1)
            if np.any(lo < 0) or np.any(hi > shape):
                continue
            if np.all(lo < box_hi) and np.all(hi > box_lo) and image.band.size:
                continue  # overlaps the truth's box
            if any(np.all(lo < h) and np.all(hi > lw) for (lw, h, _, _) in placed):
                continue
            placed.append((lo, hi, centre, radius))
            break
    return placed


def ball_voxels(lo: np.ndarray, hi: np.ndarray, centre: np.ndarray, radius: float, ndim: int,
                shape3: tuple) -> np.ndarray:
    """Flat indices (within the (z, y, x) image) of a digital ball.

    Parameters
    ----------
    lo, hi, centre : ndarray of int (3,)
        The ball's box and centre (:func:`place_balls`).
    radius : float
        In voxels.
    ndim : int
        The image's dimensions (2: a disc in the plane).
    shape3 : tuple
        The image as a volume (:func:`volume_tuple`).

    Returns
    -------
    ndarray of int
    """
    grids = np.meshgrid(*[np.arange(a, b) for a, b in zip(lo, hi)], indexing="ij")
    axes = range(1, 3) if ndim == 2 else range(3)
    inside = sum((grids[a] - centre[a]) ** 2 for a in axes) <= radius ** 2
    return np.ravel_multi_index(tuple(g[inside] for g in grids), shape3)


def draw_mask(image: TwinImage, model: RaterModel, length: float, rng: np.random.Generator, *,
              ball_sizes: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """One rater's whole mask on a real image (the image's shape).

    Parameters
    ----------
    image : TwinImage
    model : RaterModel
    length : float
    rng : numpy.random.Generator
        Draws the field, the misses, then the false objects.
    ball_sizes : ndarray
        Sizes (voxels) the false objects are drawn from.
    out : uint8 ndarray, optional
        A buffer of the image's voxels.

    Returns
    -------
    (mask, clipped) : bool ndarray of the image's shape, int
    """
    n = image.n_voxels
    buf = np.zeros(n, dtype=np.uint8) if out is None else out.reshape(-1)[:n]
    if out is not None:
        buf[:] = 0
    if image.band.size:
        bits, missed, clipped = draw_band(image, model, length, rng)
        buf[image.full] = bits
        if missed.any():  # the kept objects' interiors (each object's voxels are one run of ``interior``)
            buf[image.interior[np.repeat(~missed, np.diff(image.interior_start))]] = 1
        else:
            buf[image.interior] = 1
    else:
        clipped = 0
    count = int(rng.poisson(model.spurious)) if model.spurious > 0 else 0
    shape3 = volume_tuple(image.shape, 1)
    for lo, hi, centre, radius in place_balls(image, ball_sizes, count, rng):
        buf[ball_voxels(lo, hi, centre, radius, len(image.shape), shape3)] = 1
    return buf.view(bool).reshape(image.shape), clipped


def truth_mask(image: TwinImage) -> np.ndarray:
    """A real image's truth.

    Parameters
    ----------
    image : TwinImage

    Returns
    -------
    ndarray of bool
        The image's shape.
    """
    buf = np.zeros(image.n_voxels, dtype=bool)
    buf[image.full[image.dist < 0]] = True
    buf[image.interior] = True
    return buf.reshape(image.shape)


def band_counts(image: TwinImage, bits: np.ndarray, missed: np.ndarray) -> tuple[int, int, int]:
    """TP, FP and FN against the truth of a rater's band and misses (false objects not included).

    Parameters
    ----------
    image : TwinImage
    bits, missed : ndarray
        :func:`draw_band`'s.

    Returns
    -------
    (tp, fp, fn) : int, int, int
    """
    inside = image.dist < 0
    drawn = bits.astype(bool)
    tp_band = int(np.count_nonzero(drawn & inside))
    fp = int(np.count_nonzero(drawn & ~inside))
    kept = ~missed
    interior = np.diff(image.interior_start)
    tp = tp_band + int(interior[kept].sum())
    return tp, fp, image.truth_size - tp
