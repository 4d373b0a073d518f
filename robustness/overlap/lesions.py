"""Lesion-wise (instance) metrics: connected components, one-to-one matching, per-lesion scores, detection, PQ.

The challenges with the most participants score lesions, not voxels (BraTS 2023 on, autoPET, multiple-sclerosis
lesion challenges; panoptica). Here, for one run's mask against one reference mask (2D or 3D):

1. **Lesions** are the connected components of each mask, under full connectivity (8 neighbours in 2D, 26 in 3D:
   cc3d's and BraTS's default; :data:`CONNECTIVITY`).
2. **Matching** is one-to-one: a predicted and a reference lesion match where their intersection over union is
   above :data:`MATCH_IOU` (0.5, panoptic quality's rule; above 0.5 a lesion can match at most one other, so the
   matching is unique without any assignment step).
   Components smaller than the minimum lesion size (``min_lesion_size``, :data:`MIN_LESION_SIZE`: in voxels, or
   in mm^3 of the spacing's units; by default none is left out) are not lesions in either mask: they are neither
   matched nor counted, so a one-voxel fragment beside a lesion no longer halves the run's F1.
3. **Per-lesion scores** of each matched pair (the two components alone): Dice, Jaccard, HD95, HD95 of both
   directions pooled (``lesion_hd95_pooled``: panoptica's per-lesion HD95, medpy's ``hd95``) and NSD at a
   tolerance, as :mod:`robustness.overlap.boundary` and :mod:`robustness.overlap.metrics` define them.
4. **Lesion-wise scores** (BraTS 2023's aggregation): the sum over matched pairs of the per-lesion score, each
   unmatched lesion (a false positive: a predicted lesion that matches none; a false negative: a reference lesion
   no prediction matches) adding the penalty, divided by ``TP + FP + FN``. The penalty is 0 for Dice, Jaccard and
   NSD, and the volume's diagonal for the HD95s (the largest distance between two voxel centres of the array, the
   package's empty-mask distance; BraTS's 373.13 is the diagonal of 240 x 240 x 155 voxel *edges*).
5. **Detection**: ``lesion_precision = TP / (TP + FP)``, ``lesion_recall = TP / (TP + FN)``,
   ``lesion_f1 = 2 TP / (2 TP + FP + FN)``; ``fp_lesions``, ``fn_lesions`` (counts) and ``fp_volume``,
   ``fn_volume`` (the unmatched lesions' volume in physical units: voxels times the voxel's volume).
6. **Panoptic quality** (Kirillov et al. 2019): ``pq = sum of matched IoUs / (TP + FP / 2 + FN / 2)`` =
   ``sq`` (the matched pairs' mean IoU) x ``rq`` (``lesion_f1``).

Both masks empty: nan here, the both-empty policy decides later (as for the boundary metrics). One mask empty:
every lesion of the other is unmatched (lesion-wise Dice 0, HD95 the diagonal, F1 0, PQ 0, its lesions counted).
A ratio with a zero denominator (precision without predicted lesions, recall without reference lesions, ``sq``
without a match) is 0 where the other side has lesions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.overlap.surface_stats import hd95_of, hdp_pooled_of, nsd_of

if TYPE_CHECKING:
    from scipy import ndimage
else:
    ndimage = lazy_module("scipy.ndimage")

__all__ = ["LESION_METRICS", "CONNECTIVITY", "MATCH_IOU", "MIN_LESION_SIZE", "MAX_LESION_VOXELS", "MAX_LESION_MM3",
           "Lesions", "lesions_of", "match", "lesion_values", "lesion_matrix", "is_lesion_metric", "lesion_kind",
           "lesion_size"]

#: The connectivity of a lesion: ``full`` (8 neighbours in 2D, 26 in 3D).
CONNECTIVITY = "full"

#: Two lesions match where their intersection over union is above this.
MATCH_IOU = 0.5

#: The fixed lesion-wise metrics: name -> (higher is better, description). ``lesion_nsd@<t>`` is parsed.
LESION_METRICS: dict[str, tuple[bool, str]] = {
    "lesion_dice": (True, "lesion-wise Dice (BraTS: matched lesions' Dice, 0 for each unmatched lesion)"),
    "lesion_jaccard": (True, "lesion-wise Jaccard (0 for each unmatched lesion)"),
    "lesion_hd95": (False, "lesion-wise HD95 (the volume's diagonal for each unmatched lesion)"),
    "lesion_hd95_pooled": (False, "lesion-wise HD95 of both directions pooled (panoptica's per-lesion HD95; the "
                                  "volume's diagonal for each unmatched lesion)"),
    "lesion_f1": (True, "detection F1 over lesions (= recognition quality)"),
    "lesion_precision": (True, "detection precision over lesions"),
    "lesion_recall": (True, "detection recall (sensitivity) over lesions"),
    "pq": (True, "panoptic quality (segmentation quality x recognition quality)"),
    "sq": (True, "segmentation quality: the matched lesions' mean IoU"),
    "fp_lesions": (False, "false-positive lesions (predicted lesions that match none)"),
    "fn_lesions": (False, "false-negative lesions (reference lesions no prediction matches)"),
    "fp_volume": (False, "volume of the false-positive lesions (physical units)"),
    "fn_volume": (False, "volume of the false-negative lesions (physical units)"),
}

#: The default minimum lesion size: every connected component is a lesion (as panoptica's and cc3d's components,
#: and this package before 2026-12-06). BraTS's ``brats_*`` metrics keep their own thresholds.
MIN_LESION_SIZE = "0 voxels"
#: The largest minimum in voxels (the largest image read, :data:`robustness.io.headers.MAX_VOXELS`).
MAX_LESION_VOXELS = 2**29
#: The largest minimum in mm^3 (a cubic metre).
MAX_LESION_MM3 = 1e9

_SIZE = re.compile(r"^\s*(?P<amount>[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(?P<unit>vox|voxels?|mm3|mm\^3|mm\u00b3)?\s*$",
                   re.IGNORECASE)

_LESION_NSD = re.compile(r"^lesion_nsd@(?P<tol>[0-9]*\.?[0-9]+)$")


def is_lesion_metric(name: str) -> bool:
    """Whether ``name`` is a lesion-wise metric.

    Parameters
    ----------
    name : str

    Returns
    -------
    bool

    Examples
    --------
    >>> is_lesion_metric("lesion_nsd@2"), is_lesion_metric("pq"), is_lesion_metric("hd95")
    (True, True, False)
    """
    return name in LESION_METRICS or _LESION_NSD.match(str(name)) is not None


def lesion_kind(name: str) -> tuple[str, float, bool, str]:
    """A lesion-wise metric's statistic, NSD tolerance, direction and description.

    Parameters
    ----------
    name : str

    Returns
    -------
    (statistic, tolerance, lower_better, description)
    """
    if name in LESION_METRICS:
        higher, text = LESION_METRICS[name]
        return name, 0.0, not higher, text
    match_ = _LESION_NSD.match(str(name))
    if match_ is None:
        raise ValueError(f"unknown lesion-wise metric {name!r}")
    tol = float(match_.group("tol"))
    if not tol > 0:
        raise ValueError(f"{name}: the NSD's tolerance must be positive")
    return "lesion_nsd", tol, False, f"lesion-wise NSD at a tolerance of {tol:g} (0 for each unmatched lesion)"


def lesion_size(value: str | int | float) -> tuple[float, str]:
    """A minimum lesion size as ``(amount, unit)``: a whole number of voxels, or a volume in mm^3.

    Parameters
    ----------
    value : str or int or float
        ``10``, ``"10"``, ``"10 voxels"``, ``"10vox"`` (voxels) or ``"2.5mm3"``, ``"2.5 mm^3"`` (the spacing's units
        cubed; in 2D the pixel's area). A component is a lesion when its size is at least this.

    Returns
    -------
    (float, {'voxels', 'mm3'})

    Raises
    ------
    ValueError
        Naming ``min_lesion_size``: not a number with an optional unit, a fraction of a voxel, negative, or above
        :data:`MAX_LESION_VOXELS` voxels or :data:`MAX_LESION_MM3` mm^3.

    Examples
    --------
    >>> lesion_size(8), lesion_size("2.5 mm3"), lesion_size("0 voxels")
    ((8.0, 'voxels'), (2.5, 'mm3'), (0.0, 'voxels'))
    """
    found = None if isinstance(value, bool) else _SIZE.match(str(value))
    if found is None:
        raise ValueError(f"min_lesion_size must be a number of voxels (10, '10 voxels') or a volume ('2.5 mm3'), got "
                         f"{str(value)[:60]!r}")
    amount = float(found.group("amount"))
    unit = "mm3" if (found.group("unit") or "").lower().startswith("mm") else "voxels"
    top = MAX_LESION_MM3 if unit == "mm3" else MAX_LESION_VOXELS
    if unit == "voxels" and amount != int(amount):
        raise ValueError(f"min_lesion_size: a number of voxels is a whole number, got {amount:g} (a volume: '"
                         f"{amount:g} mm3')")
    if not 0 <= amount <= top:
        raise ValueError(f"min_lesion_size must be from 0 to {top:g} {unit}, got {amount:g}")
    return amount, unit


@dataclass(frozen=True)
class Lesions:
    """The connected components of one mask.

    Attributes
    ----------
    labels : ndarray of int32
        Component numbers 1..n within the mask's box (0: background).
    origin : ndarray (3,)
        Where the box starts in the (3D) array.
    sizes : ndarray (n,)
        Voxels per component.
    slices : list of tuple of slice
        Each component's box within ``labels``.
    """

    labels: np.ndarray
    origin: np.ndarray
    sizes: np.ndarray
    slices: list

    @property
    def n(self) -> int:
        """The number of lesions."""
        return int(self.sizes.size)


def _no_lesions() -> Lesions:
    return Lesions(np.zeros((0, 0, 0), dtype=np.int32), np.zeros(3, dtype=np.int64), np.zeros(0, np.int64), [])


def lesions_of(box: tuple | None, inside: np.ndarray | None, planar: bool, *,
               min_size: str | int | float = MIN_LESION_SIZE, voxel: float = 1.0) -> Lesions:
    """The lesions of a mask given as :func:`robustness.overlap.boundary.crop` gives it.

    Parameters
    ----------
    box : tuple or None
        The foreground's box ``(z0, z1, y0, y1, x0, x1)`` (None: empty).
    inside : ndarray of bool or None
        The 3D mask within it.
    planar : bool
        A 2D mask (its first axis of length 1): components in the plane.
    min_size : str or int or float
        The minimum lesion size (:func:`lesion_size`): smaller components are left out.
    voxel : float
        A voxel's volume (a pixel's area in 2D), for a minimum in mm^3.

    Returns
    -------
    Lesions
    """
    amount, unit = lesion_size(min_size)
    if box is None or inside is None:
        return _no_lesions()
    structure = np.ones((3, 3, 3), dtype=bool)
    if planar:
        structure[0] = structure[2] = False
    labels, n = ndimage.label(inside, structure=structure)
    labels = np.ascontiguousarray(labels, dtype=np.int32)
    sizes = _kernels.label_sizes(labels, n)
    slices = list(ndimage.find_objects(labels))
    # at least the minimum (a relative slack of 1e-9 absorbs the rounding of the spacing's product)
    keep = sizes >= amount if unit == "voxels" else sizes * voxel >= amount * (1 - 1e-9)
    if not keep.all():
        if not keep.any():
            return _no_lesions()
        renumber = np.zeros(n + 1, dtype=np.int32)
        renumber[1:][keep] = np.arange(1, int(keep.sum()) + 1, dtype=np.int32)
        labels = renumber[labels]
        sizes, slices = sizes[keep], [s for s, k in zip(slices, keep) if k]
    return Lesions(labels, np.array(box[0::2], dtype=np.int64), sizes, slices)


def match(a: Lesions, b: Lesions, threshold: float = MATCH_IOU) -> list[tuple[int, int, int]]:
    """The matched pairs ``(i, j, intersection)`` of ``a``'s and ``b``'s lesions (0-based; IoU above threshold).

    One-to-one by construction for a threshold of 0.5 or more; below it, pairs are taken greedily by IoU (largest
    first), each lesion at most once.

    Parameters
    ----------
    a, b : Lesions
    threshold : float

    Returns
    -------
    list of (int, int, int)
    """
    if not (a.n and b.n):
        return []
    lo = np.maximum(a.origin, b.origin)
    hi = np.minimum(a.origin + a.labels.shape, b.origin + b.labels.shape)
    if np.any(hi <= lo):
        return []
    la = a.labels[tuple(slice(int(s - o), int(e - o)) for s, e, o in zip(lo, hi, a.origin))]
    lb = b.labels[tuple(slice(int(s - o), int(e - o)) for s, e, o in zip(lo, hi, b.origin))]
    both = (la > 0) & (lb > 0)
    pair, inter = np.unique(la[both].astype(np.int64) * (b.n + 1) + lb[both], return_counts=True)
    i, j = pair // (b.n + 1) - 1, pair % (b.n + 1) - 1
    iou = inter / (a.sizes[i] + b.sizes[j] - inter)
    keep = iou > threshold
    order = np.argsort(-iou[keep], kind="stable")
    taken_a, taken_b, out = set(), set(), []
    for k in order:
        ii, jj = int(i[keep][k]), int(j[keep][k])
        if ii not in taken_a and jj not in taken_b:
            taken_a.add(ii)
            taken_b.add(jj)
            out.append((ii, jj, int(inter[keep][k])))
    return sorted(out)


def _component(les: Lesions, k: int, lo: np.ndarray, shape: tuple) -> np.ndarray:
    """Lesion ``k`` alone as a mask of ``shape`` starting at ``lo`` in the array."""
    out = np.zeros(shape, dtype=bool)
    sl = les.slices[k]
    start = np.array([s.start for s in sl]) + les.origin - lo
    part = les.labels[sl] == k + 1
    out[tuple(slice(int(s), int(s) + n) for s, n in zip(start, part.shape))] = part
    return out


def _pair_distances(a: Lesions, i: int, b: Lesions, j: int, spacing: np.ndarray, planar: bool):
    """The two directed surface-distance sets of lesion ``i`` of ``a`` and lesion ``j`` of ``b`` (alone)."""
    boxes = []
    for les, k in ((a, i), (b, j)):
        sl = les.slices[k]
        boxes.append((np.array([s.start for s in sl]) + les.origin, np.array([s.stop for s in sl]) + les.origin))
    lo = np.minimum(boxes[0][0], boxes[1][0])
    hi = np.maximum(boxes[0][1], boxes[1][1])
    shape = tuple(int(x) for x in hi - lo)
    return _kernels.surface_distances(_component(a, i, lo, shape), _component(b, j, lo, shape), spacing, planar)


@dataclass(frozen=True)
class _Detection:
    """One run's lesions matched to one reference's: what the detection metrics are computed from."""

    run: Lesions
    reference: Lesions
    pairs: list
    tp: int
    fp: int
    fn: int
    ious: list
    voxel: float

    def unmatched_volume(self, lesions: Lesions, matched: set) -> float:
        """The volume (physical units) of ``lesions`` not in ``matched``."""
        return self.voxel * sum(int(lesions.sizes[i]) for i in range(lesions.n) if i not in matched)


#: The lesion-wise metrics of detection (counts, F1, panoptic quality, unmatched volumes) by statistic.
_DETECTION: dict[str, Callable[[_Detection], float]] = {
    "lesion_f1": lambda m: 2 * m.tp / (2 * m.tp + m.fp + m.fn),
    "lesion_precision": lambda m: m.tp / (m.tp + m.fp) if m.tp + m.fp else 0.0,
    "lesion_recall": lambda m: m.tp / (m.tp + m.fn) if m.tp + m.fn else 0.0,
    "pq": lambda m: sum(m.ious) / (m.tp + m.fp / 2 + m.fn / 2),
    "sq": lambda m: sum(m.ious) / m.tp if m.tp else 0.0,
    "fp_lesions": lambda m: m.fp,
    "fn_lesions": lambda m: m.fn,
    "fp_volume": lambda m: m.unmatched_volume(m.run, {i for i, _, _ in m.pairs}),
    "fn_volume": lambda m: m.unmatched_volume(m.reference, {j for _, j, _ in m.pairs}),
}


def lesion_values(run: Lesions, reference: Lesions, names: list[str], spacing: np.ndarray, planar: bool,
                  worst_distance: float) -> np.ndarray:
    """Every lesion-wise metric of ``names`` for one run's lesions against one reference's (module notes).

    Parameters
    ----------
    run, reference : Lesions
    names : list of str
        Lesion-wise metric names.
    spacing : ndarray (3,)
        The voxel size along (z, y, x) (1 along a 2D mask's missing axis).
    planar : bool
    worst_distance : float
        The HD95 penalty of an unmatched lesion (the volume's diagonal).

    Returns
    -------
    ndarray (len(names),)
        nan for every metric where both masks are empty.
    """
    if not (run.n or reference.n):
        return np.full(len(names), np.nan)
    pairs = match(run, reference)
    tp, fp, fn = len(pairs), run.n - len(pairs), reference.n - len(pairs)
    total = tp + fp + fn
    ious = [inter / (run.sizes[i] + reference.sizes[j] - inter) for i, j, inter in pairs]
    detection = _Detection(run, reference, pairs, tp, fp, fn, ious, float(np.prod(spacing)))
    distances = {}
    out = np.empty(len(names))
    for k, name in enumerate(names):
        statistic, tol, _, _ = lesion_kind(name)
        if statistic in ("lesion_dice", "lesion_jaccard"):
            per = [(2 * inter / (run.sizes[i] + reference.sizes[j]) if statistic == "lesion_dice" else iou)
                   for (i, j, inter), iou in zip(pairs, ious)]
            out[k] = sum(per) / total
        elif statistic in ("lesion_hd95", "lesion_hd95_pooled", "lesion_nsd"):
            per = []
            for i, j, _ in pairs:
                if (i, j) not in distances:
                    distances[i, j] = _pair_distances(run, i, reference, j, spacing, planar)
                d_ab, d_ba = distances[i, j]
                per.append(hd95_of(d_ab, d_ba) if statistic == "lesion_hd95" else
                           hdp_pooled_of(d_ab, d_ba, 95.0) if statistic == "lesion_hd95_pooled" else
                           nsd_of(d_ab, d_ba, tol))
            penalty = 0.0 if statistic == "lesion_nsd" else worst_distance
            out[k] = (sum(per) + penalty * (fp + fn)) / total
        else:
            out[k] = _DETECTION[statistic](detection)
    return out


def lesion_matrix(items: list, n_runs: int, names: list[str], geometry: tuple[bool, np.ndarray, float],
                  both_empty: np.ndarray, *, min_size: str | int | float = MIN_LESION_SIZE,
                  advance: Callable[[float], None] | None = None) -> np.ndarray:
    """Every (reference, run) pair's lesion-wise metrics, each mask's components found once.

    Parameters
    ----------
    items : list of tuple
        :func:`robustness.overlap.boundary.crop`'s results: the runs, then the references.
    n_runs : int
    names : list of str
    geometry : (planar, spacing, worst_distance)
        The masks' common geometry (bool, ndarray (3,), float): whether they are planar, the voxel spacing and
        the HD95 of an unmatched lesion.
    both_empty : ndarray (len(names),)
        What a pair of two empty masks scores (the both-empty policy's values); also a pair whose components are
        all below ``min_size``.
    min_size : str or int or float
        The minimum lesion size (:func:`lesion_size`).
    advance : callable, optional
        Called with 1 after each mask's lesions are found and after each (reference, run) pair is scored (a
        progress count: ``len(items) + (len(items) - n_runs) * n_runs`` steps in all).

    Returns
    -------
    ndarray (len(items) - n_runs, n_runs, len(names))
    """
    planar, spacing, worst_distance = geometry
    voxel = float(np.prod(spacing))
    step = advance or (lambda _: None)
    lesions = []
    for box, inside, _, _ in items:
        lesions.append(lesions_of(box, inside, planar, min_size=min_size, voxel=voxel))
        step(1)
    out = np.empty((len(items) - n_runs, n_runs, len(names)))
    for g in range(len(items) - n_runs):
        for r in range(n_runs):
            values = lesion_values(lesions[r], lesions[n_runs + g], names, spacing, planar, worst_distance)
            out[g, r] = both_empty if np.isnan(values).all() else values
            step(1)
    return out
