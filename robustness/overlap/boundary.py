"""Boundary metrics with voxel spacing: normalised surface distance, HD95, ASSD (Metrics Reloaded's definitions).

A boundary metric is one entry of :data:`BOUNDARY_METRICS`. It is not a ratio of overlap counts: it scores one
image (2D) or volume (3D) at a time, so only macro averages (per image, then the mean) exist for it.

Definitions (Maier-Hein, Reinke et al. 2024, "Metrics reloaded", Nature Methods 21; the border of a mask is its
foreground voxels with a face neighbour in the background, voxels outside the array counting as background;
``d(a, B)`` is the Euclidean distance in physical units, e.g. mm, between the centre of voxel ``a`` and the
nearest border voxel of ``B``; ``dA`` and ``dB`` are the two borders):

========================= =========================================================================== ======
name                      value                                                                       better
========================= =========================================================================== ======
``nsd@t``                 ``(#{a in dA: d(a, dB) <= t} + #{b in dB: d(b, dA) <= t}) / (|dA| + |dB|)`` higher
``hd95``                  ``max(P95{d(a, dB)}, P95{d(b, dA)})`` (numpy's linear percentile)           lower
``assd``                  ``(sum d(a, dB) + sum d(b, dA)) / (|dA| + |dB|)``                           lower
``hd``                    ``max(max d(a, dB), max d(b, dA))`` (the Hausdorff distance)                lower
``hd<P>``                 ``max(P_P{d(a, dB)}, P_P{d(b, dA)})`` at any percentile (``hd90``)          lower
``masd``                  ``(mean d(a, dB) + mean d(b, dA)) / 2`` (mean average surface d.)           lower
``volume_similarity``     ``1 - ||A| - |B|| / (|A| + |B|)``                                           higher
``abs_volume_difference`` ``||A| - |B||`` times the voxel's volume                                    lower
========================= =========================================================================== ======

Lesion-wise metrics (``lesion_dice``, ``lesion_f1``, ``pq``...: :mod:`robustness.overlap.lesions`) are in the list.

``d <= t`` is decided on squared distances with a relative slack of 1e-9, so that a distance that is exactly the
tolerance in real numbers (two voxels of 1 mm at ``nsd@2``) counts whatever the rounding of the spacing.

Empty masks (:func:`boundary_scores`), in the spirit of the overlap metrics' both-empty policy
(:mod:`robustness.overlap.metrics`):

- both empty: the policy ``one`` (default) gives the best value (NSD 1, distances 0: the run agrees perfectly with
  an empty reference), ``zero`` the worst, ``ignore`` and ``official`` nan (left out of the mean);
- one empty (a run that finds nothing where the reference has a lesion, or the reverse): NSD 0, and the distances
  the worst value, the largest distance between two voxels of the array (its diagonal in physical units), as
  BraTS and many challenges do, so that an empty answer never beats a poor one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.overlap.boundary_conventions import (
    BORDERS,
    CONVENTION_DEFAULTS,
    EMPTY_DISTANCES,
    MAX_EMPTY_DISTANCE,
    ONE_SLICE,
    chosen_conventions,
    conventions,
    empty_mask_distance,
)
from robustness.overlap.boundary_names import (
    BOUNDARY_METRICS,
    BoundaryMetric,
    boundary_metric,
    is_boundary_metric,
    register_boundary_metric,
)
from robustness.overlap.brats import BRATS_SETTINGS, brats_scores
from robustness.overlap.empty import EmptyPolicy, empty_policy
from robustness.overlap.lesions import lesion_matrix, lesion_size
from robustness.overlap.surface_stats import SLACK
from robustness.overlap.surfels import elements

if TYPE_CHECKING:
    from scipy import ndimage
else:
    ndimage = lazy_module("scipy.ndimage")

__all__ = ["BoundaryMetric", "BOUNDARY_METRICS", "register_boundary_metric", "boundary_metric", "is_boundary_metric",
           "boundary_scores", "surface_distances", "boundary_matrix", "crop", "SLACK", "ONE_SLICE", "EMPTY_DISTANCES",
           "BORDERS", "MAX_EMPTY_DISTANCE", "conventions"]


def _border(placed: np.ndarray, planar: bool, border: str) -> np.ndarray:
    """The border voxels of a 3D mask under :data:`BORDERS`' rule (outside the array is background)."""
    if border == "face":
        return _kernels.surface_of(placed, planar)
    structure = np.ones((1, 3, 3) if planar else (3, 3, 3), dtype=bool)
    return placed & ~ndimage.binary_erosion(placed, structure=structure, border_value=0)


def _as_volume(mask: ArrayLike, one_slice: str = "2d") -> tuple[np.ndarray, bool]:
    """A 3D boolean array (a boolean mask is not copied) and whether it is planar (its first axis does not count)."""
    arr = np.asarray(mask)
    if arr.ndim not in (2, 3):
        raise ValueError(f"a mask must be 2D or 3D, got {arr.ndim} dimensions")
    if one_slice not in ONE_SLICE:
        raise ValueError(f"one_slice must be one of {', '.join(ONE_SLICE)}, got {one_slice!r}")
    arr = arr if arr.dtype == bool else arr != 0
    return (arr[None], True) if arr.ndim == 2 else (arr, arr.shape[0] == 1 and one_slice == "2d")


def _spacing(spacing: ArrayLike | None, ndim: int, planar: bool = False) -> np.ndarray:
    """The voxel size along (z, y, x); 1 along a planar mask's first axis.

    That axis is a 2D image's missing one, or a slice's thickness, which no in-plane distance or area involves.
    """
    sp = np.ones(ndim) if spacing is None else np.asarray(spacing, dtype=np.float64).ravel()
    if sp.size != ndim or not np.all(np.isfinite(sp)) or not np.all(sp > 0):
        raise ValueError(f"spacing must hold {ndim} positive numbers (one per axis), got {spacing!r}")
    sp = np.concatenate([[1.0], sp]) if ndim == 2 else sp.copy()
    if planar:
        sp[0] = 1.0
    return sp


def surface_distances(a: ArrayLike, b: ArrayLike, spacing: ArrayLike | None = None, *,
                      one_slice: str = "2d") -> tuple[np.ndarray, np.ndarray]:
    """Distances from every border voxel of ``a`` to ``b``'s border, and from ``b``'s to ``a``'s.

    Parameters
    ----------
    a, b : array_like, 2D or 3D, same shape
        Masks (non-zero is foreground), in array order (``(y, x)`` or ``(z, y, x)``).
    spacing : array_like, optional
        The voxel size along each axis in array order (default 1).
    one_slice : {'2d', '3d'}
        A volume of one slice: scored as 2D (the default) or as a 3D slab (:data:`ONE_SLICE`).

    Returns
    -------
    (d_ab, d_ba) : ndarray
        In the border voxels' C order; empty for an empty mask, ``inf`` where the other mask is empty.

    Examples
    --------
    >>> a = np.zeros((5, 5), bool); a[1:3, 1:3] = True
    >>> b = np.roll(a, 1, axis=1)
    >>> surface_distances(a, b)[0].tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    va, planar = _as_volume(a, one_slice)
    vb, _ = _as_volume(b, one_slice)
    if va.shape != vb.shape:
        raise ValueError(f"masks of different shapes: {np.shape(a)} and {np.shape(b)}")
    return _kernels.surface_distances(va, vb, _spacing(spacing, np.ndim(a), planar), planar)


def boundary_scores(run: ArrayLike, reference: ArrayLike, metrics: Sequence[str | BoundaryMetric],
                    spacing: ArrayLike | None = None, *, empty: str | EmptyPolicy = "one",
                    conventions: Mapping[str, Any] | None = None, label: object = None,
                    **deprecated: Any) -> np.ndarray:
    """Every boundary metric of a run's mask against a reference mask (module notes for empty masks).

    Parameters
    ----------
    run, reference : array_like, 2D or 3D, same shape
    metrics : sequence of str or BoundaryMetric
    spacing : array_like, optional
        The voxel size along each axis in array order (default 1).
    empty : str or EmptyPolicy
        What a pair of two empty masks scores: ``one`` the best value, ``zero`` the worst, ``ignore`` and
        ``official`` nan.
    conventions : mapping, optional
        Any of :func:`conventions`' four, the others at their defaults: ``one_slice`` (a volume of one slice scored
        as 2D, the default, or as a 3D slab), ``empty_distance`` (between an empty and a non-empty mask, also the
        HD95 of an unmatched lesion), ``border`` (the voxel model's border voxels), ``min_lesion_size`` (smaller
        components are not lesions: ``8`` voxels, ``'2.5 mm3'``; default none left out).
    label : int or str, optional
        The masks' label or region, for a metric with a tolerance per label.
    **deprecated
        The four conventions as keywords (deprecated: pass ``conventions``).

    Returns
    -------
    ndarray (len(metrics),)

    Examples
    --------
    A 2 x 3 x 3 block (every voxel on its border) and the block moved by one voxel: the 6 voxels of each face
    the other leaves are 1 away, the other 12 of each border 0.

    >>> a = np.zeros((4, 6, 6), bool); a[1:3, 1:4, 1:4] = True
    >>> boundary_scores(a, np.roll(a, 1, axis=2), ["nsd@1", "hd95", "assd"]).round(4).tolist()
    [1.0, 1.0, 0.3333]
    """
    chosen = chosen_conventions("boundary_scores", conventions, deprecated)
    one_slice, empty_distance, border, min_lesion_size = (chosen[k] for k in CONVENTION_DEFAULTS)
    table = [boundary_metric(m).for_label(label) for m in metrics]
    if border != "face" or any(m.kind in ("lesion", "volume", "brats") or m.surface == "elements" for m in table):
        return boundary_matrix([run], [reference], table, spacing, empty=empty, conventions=chosen)[0, 0]
    lesion_size(min_lesion_size)  # checked whatever the metrics
    d_ab, d_ba = surface_distances(run, reference, spacing, one_slice=one_slice)
    vol, planar = _as_volume(run, one_slice)
    worst_distance = empty_mask_distance(vol.shape, _spacing(spacing, np.ndim(run), planar), empty_distance)
    return _reduced(table, d_ab, d_ba, worst_distance, empty_policy(empty))


def _reduced(table, d_ab, d_ba, worst_distance, policy, w_a=None, w_b=None):
    """The metrics from the two directed distance sets, empty masks by the module's rules.

    With ``w_a`` and ``w_b`` the sets are of surface elements, and these their areas.
    """
    if d_ab.size and d_ba.size:
        if w_a is not None:
            return np.array([m.reduce_weighted(d_ab, w_a, d_ba, w_b) for m in table])
        return np.array([m.reduce(d_ab, d_ba) for m in table])
    if d_ab.size or d_ba.size:  # one mask empty
        return np.array([m.worst(worst_distance) for m in table], dtype=np.float64)
    return np.array([m.both_empty(policy, worst_distance) for m in table], dtype=np.float64)


def crop(mask: ArrayLike, one_slice: str = "2d") -> tuple:
    """A mask as its foreground's box and the mask inside it (what :func:`boundary_matrix` keeps of a run).

    Parameters
    ----------
    mask : array_like, 2D or 3D
    one_slice : {'2d', '3d'}
        A volume of one slice: planar (the default) or a 3D slab (:data:`ONE_SLICE`).

    Returns
    -------
    (box, inside, shape, planar)
        ``box`` the foreground's ``(z0, z1, y0, y1, x0, x1)``, ends exclusive (None: empty); ``inside`` the
        boolean mask within it; ``shape`` the 3D shape; ``planar`` whether the mask was 2D.
    """
    vol, planar = _as_volume(mask, one_slice)
    box = _kernels.mask_box(vol)
    inside = None if box is None else vol[box[0]:box[1], box[2]:box[3], box[4]:box[5]].copy()
    return box, inside, vol.shape, planar


def boundary_matrix(runs: Sequence, references: Sequence, metrics: Sequence[str | BoundaryMetric],
                    spacing: ArrayLike | None = None, *, empty: str | EmptyPolicy = "one",
                    conventions: Mapping[str, Any] | None = None, label: object = None,
                    advance: Callable[[float], None] | None = None, **deprecated: Any) -> np.ndarray:
    """Every run's boundary metrics against every reference of one image, with one distance transform per mask.

    The same numbers as :func:`boundary_scores` pair by pair, at the cost of ``len(runs) + len(references)``
    distance transforms instead of twice their product: each mask's border distance map is computed once on the
    box that holds every mask's foreground, and read at every other mask's border.

    Parameters
    ----------
    runs, references : sequence of array_like (2D or 3D, all of one shape) or of :func:`crop` results
        A cropped mask costs memory in proportion to its object, not to the image.
    metrics : sequence of str or BoundaryMetric
    spacing : array_like, optional
    empty : str or EmptyPolicy
    conventions : mapping, optional
        As :func:`boundary_scores` takes them (``one_slice`` for masks given as arrays: :func:`crop`'s results
        carry their own).
    label : int or str, optional
        The image's label or region, for a metric with a tolerance per label (:meth:`BoundaryMetric.for_label`).
    advance : callable, optional
        Called with the share of the work done as it advances (the shares add up to 1 by the end): a progress
        count within an image whose metrics take minutes.

    **deprecated
        The four conventions as keywords (deprecated: pass ``conventions``).

    Returns
    -------
    ndarray (len(references), len(runs), len(metrics))
    """
    made = chosen_conventions("boundary_matrix", conventions, deprecated)
    one_slice, empty_distance, border, min_lesion_size = (made[k] for k in CONVENTION_DEFAULTS)
    if border not in BORDERS:
        raise ValueError(f"border must be one of {', '.join(BORDERS)}, got {border!r}")
    lesion_size(min_lesion_size)
    every = [boundary_metric(m).for_label(label) for m in metrics]
    at = _by_kind(every)
    policy = empty_policy(empty)
    items = [m if isinstance(m, tuple) else crop(m, one_slice) for m in list(runs) + list(references)]
    geometry = _geometry(items, spacing, empty_distance)
    _, sp, worst_distance = geometry
    out = np.empty((len(references), len(runs), len(every)))
    steps = _steps(at, every, len(runs), len(references))

    def step(done: float) -> None:
        if advance is not None and steps:
            advance(done / steps)

    def both_empty(kind: str) -> np.ndarray:
        return np.array([every[k].both_empty(policy, worst_distance) for k in at[kind]], dtype=np.float64)

    if at["volume"]:
        out[:, :, at["volume"]] = _volumes(items, len(runs), [every[k] for k in at["volume"]], sp,
                                           both_empty("volume"))
    if at["lesion"]:
        out[:, :, at["lesion"]] = lesion_matrix(items, len(runs), [every[k].name for k in at["lesion"]], geometry,
                                                both_empty("lesion"), min_size=min_lesion_size, advance=step)
    if at["brats"]:
        out[:, :, at["brats"]] = _brats(items, len(runs), [every[k] for k in at["brats"]], geometry,
                                        both_empty("brats"), step)
    for surface in ("voxels", "elements"):
        chosen = [k for k in at["distance"] if every[k].surface == surface]
        if chosen:
            out[:, :, chosen] = _distances(items, len(runs), [every[k] for k in chosen], geometry, policy, surface,
                                           border, step)
    return out


def _by_kind(every: list) -> dict[str, list[int]]:
    """The metrics' positions by how they are computed: lesion, volume, brats, distance (the rest)."""
    kinds = ("lesion", "volume", "brats")
    return {kind: [k for k, m in enumerate(every) if (m.kind if m.kind in kinds else "distance") == kind]
            for kind in (*kinds, "distance")}


def _steps(at: dict, every: list, n_runs: int, n_references: int) -> int:
    """The progress steps of :func:`boundary_matrix`: a mask's transform or a pair's matching each."""
    n_items, n_pairs = n_runs + n_references, n_runs * n_references
    return ((n_items + n_pairs if at["lesion"] else 0) + (n_pairs if at["brats"] else 0)
            + n_items * len({every[k].surface for k in at["distance"]}))


def _geometry(items, spacing, empty_distance) -> tuple[bool, np.ndarray, float]:
    """The masks' ``geometry`` (the helpers take it): whether they are planar, the spacing, the empty distance."""
    shape, planar = (items[0][2], items[0][3]) if items else ((1, 1, 1), False)
    if any(it[2] != shape for it in items):
        raise ValueError("masks of different shapes")
    given = 3 if spacing is None else np.size(spacing)
    if given == 2 and not planar:
        raise ValueError(f"spacing must hold 3 positive numbers (one per axis), got {spacing!r}")
    sp = _spacing(spacing, 2 if given == 2 else 3, planar)
    return planar, sp, empty_mask_distance(shape, sp, empty_distance)


def _volumes(items, n_r, table, sp, both_empty) -> np.ndarray:
    """The volume metrics (G, R, K) from the masks' voxel counts; ``both_empty`` (K,) where both masks are empty."""
    sizes = [0 if inside is None else int(np.count_nonzero(inside)) for _, inside, _, _ in items]
    voxel = float(np.prod(sp))
    out = np.empty((len(items) - n_r, n_r, len(table)))
    for g in range(len(items) - n_r):
        for r in range(n_r):
            a, b = sizes[r], sizes[n_r + g]
            for k, m in enumerate(table):
                out[g, r, k] = (both_empty[k] if a == b == 0 else
                                1 - abs(a - b) / (a + b) if m.name == "volume_similarity" else abs(a - b) * voxel)
    return out


def _brats(items, n_r, table, geometry, both_empty, step=lambda _: None):
    """BraTS's lesion-wise scores of every run against every reference.

    On the box that holds every mask with the largest dilation's margin (the array's edge excepted).
    """
    planar, sp, _ = geometry
    out = np.empty((len(items) - n_r, n_r, len(table)))
    box = _kernels.union_box([it[0] for it in items])
    if box is None:
        out[:] = both_empty
        step(out.shape[0] * n_r)
        return out
    margin = max(BRATS_SETTINGS[m.name.partition("@")[2] or "gli"][0] for m in table)
    shape = np.array(items[0][2])
    lo = np.maximum(box[0] - margin, 0)
    hi = np.minimum(box[1] + margin, shape)
    if planar:
        lo[0], hi[0] = 0, 1
    placed = []
    for b, inside, _, _ in items:
        mask = np.zeros(tuple(hi - lo), dtype=bool)
        if b is not None:
            mask[b[0] - lo[0]:b[1] - lo[0], b[2] - lo[1]:b[3] - lo[1], b[4] - lo[2]:b[5] - lo[2]] = inside
        placed.append(mask)
    for g in range(len(items) - n_r):
        for r in range(n_r):
            step(1)
            if items[r][0] is None and items[n_r + g][0] is None:
                out[g, r] = both_empty
                continue
            for k, m in enumerate(table):
                dilation, min_volume = BRATS_SETTINGS[m.name.partition("@")[2] or "gli"]
                dice, hd95 = brats_scores(placed[r], placed[n_r + g], sp, dilation=dilation, min_volume=min_volume,
                                          planar=planar)
                out[g, r, k] = dice if m.statistic == "dice" else hd95
    return out


def _distances(items, n_r, table, geometry, policy, surface, border="face", step=lambda _: None):
    """The distance metrics of every run (the first ``n_r`` items) against every reference, on one surface model.

    One distance transform per mask, on the box that holds every mask's foreground (``step(1)`` after each).
    """
    planar, sp, worst_distance = geometry
    out = np.empty((len(items) - n_r, n_r, len(table)))
    box = _kernels.union_box([it[0] for it in items])
    if box is None:
        out[:] = _reduced(table, np.empty(0), np.empty(0), worst_distance, policy)
        step(len(items))
        return out
    lo, hi = box
    borders, weights = [], []
    for box, inside, _, _ in items:
        placed = np.zeros(tuple(hi - lo), dtype=bool)
        if box is not None:
            placed[box[0] - lo[0]:box[1] - lo[0], box[2] - lo[1]:box[3] - lo[1], box[4] - lo[2]:box[5] - lo[2]] = inside
        grid, areas = elements(placed, sp, planar) if surface == "elements" else (_border(placed, planar, border), None)
        borders.append(grid)
        weights.append(areas)
    where = [np.flatnonzero(b) for b in borders]
    n_g = len(items) - n_r
    # to_ref[g][r]: run r's border's distances to reference g's border (one transform per reference)
    to_ref = []
    for g in range(n_g):
        to_ref.append(_kernels.distances_at(borders[n_r + g], where[:n_r], sp))
        step(1)
    for r in range(n_r):
        to_run = _kernels.distances_at(borders[r], where[n_r:], sp)  # the references' borders to run r's
        step(1)
        for g in range(n_g):
            out[g, r] = _reduced(table, to_ref[g][r], to_run[g], worst_distance, policy, weights[r],
                                 weights[n_r + g])
    return out
