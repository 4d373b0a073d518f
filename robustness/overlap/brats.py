"""BraTS 2023's lesion-wise Dice and HD95, with its matching by dilation (``brats_dice``, ``brats_hd95``).

The rules of the BraTS 2023 evaluation (Saluja et al., BraTS-2023-Metrics, ``eval.py``), for one run's mask against
one reference mask of a region (WT, TC, ET: :func:`robustness.io.raters` regions):

1. The reference's lesions are its 26-connected components, merged where their dilations touch: the reference
   is dilated ``dilation`` times by the 18-neighbour structuring element (face and edge neighbours), and the
   reference voxels inside one 26-connected component of that dilation are one lesion.
2. A run's lesions are its 26-connected components. Each reference lesion, dilated the same way, takes every run
   lesion that meets its dilation (a run lesion can be taken by several); its Dice and HD95 are those of the
   reference lesion against the union of the run lesions it took (HD95 on surface elements, DeepMind's, as BraTS
   computes it: :mod:`robustness.overlap.surfels`), Dice 0 and HD95 374 where it took none.
3. A run lesion no reference lesion takes is a false positive: Dice 0, HD95 374.
4. Reference lesions of at most ``min_volume`` (in physical units: voxels times the voxel's volume) leave the sums.
5. Lesion-wise Dice = sum of the kept lesions' Dice / (kept lesions + false positives); lesion-wise HD95 = (sum of
   their HD95 + 374 x false positives) / the same. Where that is 0 / 0 (no kept lesion, no false positive) Dice is
   1 and HD95 0, as BraTS's code makes them.

The settings of the BraTS 2023 challenges (:data:`BRATS_SETTINGS`): ``dilation`` 3 and ``min_volume`` 50 for
gliomas (GLI), sub-Saharan Africa (SSA) and paediatrics (PED), 1 and 50 for meningiomas (MEN), 1 and 2 for
metastases (MET). ``brats_dice`` is GLI's; ``brats_dice@met`` names another's. On a 2D image (a planar mask) the
same rules run in the plane (8-connected components, the 8-neighbour structuring element).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.overlap.surfels import elements, hdp_weighted

if TYPE_CHECKING:
    from scipy import ndimage
else:
    ndimage = lazy_module("scipy.ndimage")

__all__ = ["BRATS_SETTINGS", "HD95_PENALTY", "brats_scores"]

#: The BraTS 2023 challenges' (dilation iterations, smallest kept lesion volume).
BRATS_SETTINGS: dict[str, tuple[int, float]] = {"gli": (3, 50.0), "ssa": (3, 50.0), "ped": (3, 50.0),
                                                "men": (1, 50.0), "met": (1, 2.0)}

#: BraTS's HD95 of a missed or false-positive lesion (an infinite distance is replaced by it).
HD95_PENALTY = 374.0


def _structures(planar: bool) -> tuple[np.ndarray, np.ndarray]:
    """The components' structure (26 or 8 neighbours) and the dilation's (18 neighbours; 8 in the plane)."""
    if planar:
        plane = np.zeros((3, 3, 3), dtype=bool)
        plane[1] = True
        return plane, plane
    return np.ones((3, 3, 3), dtype=bool), ndimage.generate_binary_structure(3, 2)


def _hd95(a: np.ndarray, b: np.ndarray, spacing: np.ndarray, planar: bool) -> float:
    """DeepMind's surface-element HD95 between two masks, :data:`HD95_PENALTY` where ``b`` is empty."""
    if not b.any():
        return HD95_PENALTY
    box = _kernels.union_box([_kernels.mask_box(a), _kernels.mask_box(b)])
    lo, hi = box
    cut = tuple(slice(int(i), int(j)) for i, j in zip(lo, hi))
    (grid_a, w_a), (grid_b, w_b) = (elements(np.ascontiguousarray(m[cut]), spacing, planar) for m in (a, b))
    d_ab, = _kernels.distances_at(grid_b, [np.flatnonzero(grid_a)], spacing)
    d_ba, = _kernels.distances_at(grid_a, [np.flatnonzero(grid_b)], spacing)
    return hdp_weighted(d_ab, w_a, d_ba, w_b, 95.0)


def brats_scores(run: np.ndarray, reference: np.ndarray, spacing: np.ndarray, *, dilation: int = 3,
                 min_volume: float = 50.0, planar: bool = False) -> tuple[float, float]:
    """BraTS 2023's lesion-wise Dice and HD95 of a run's mask against a reference mask (module notes).

    Parameters
    ----------
    run, reference : ndarray of bool, 3D, one shape
        The masks, or their crops to a box that holds both with ``dilation`` voxels to spare on every side that is
        not the array's edge (:func:`robustness.overlap.boundary.boundary_matrix` crops so).
    spacing : ndarray (3,)
        The voxel size along ``(z, y, x)``.
    dilation : int
        The dilation's iterations.
    min_volume : float
        Reference lesions of at most this volume leave the sums.
    planar : bool
        A 2D mask (its first axis of length 1).

    Returns
    -------
    (dice, hd95) : tuple of float

    Examples
    --------
    Two reference lesions 3 voxels apart merge into one; a run that finds one of them scores that lesion's share:

    >>> ref = np.zeros((1, 12, 20), bool); ref[0, 2:8, 2:8] = True; ref[0, 2:8, 11:17] = True
    >>> run = np.zeros_like(ref); run[0, 2:8, 2:8] = True
    >>> dice, hd95 = brats_scores(run, ref, np.ones(3), dilation=3, min_volume=0, planar=True)
    >>> round(dice, 4)
    0.6667
    """
    labelled, structure = _structures(planar)
    voxel = float(np.prod(spacing[1:] if planar else spacing))
    grown = ndimage.binary_dilation(reference, structure=structure, iterations=dilation)
    merged, n_ref = ndimage.label(grown, structure=labelled)
    merged = np.where(reference, merged, 0)  # each reference voxel takes its dilated component's number
    run_cc, n_run = ndimage.label(run, structure=labelled)
    taken = np.zeros(n_run + 1, dtype=bool)
    dice_sum = hd95_sum = 0.0
    kept = 0
    for k, where in enumerate(ndimage.find_objects(merged), start=1):
        if where is None:
            continue
        # the lesion's dilation reaches `dilation` voxels beyond its box: work inside that margin
        box = tuple(slice(max(s.start - (0 if planar and axis == 0 else dilation), 0),
                          min(s.stop + (0 if planar and axis == 0 else dilation), n))
                    for axis, (s, n) in enumerate(zip(where, merged.shape)))
        lesion = merged[box] == k
        reach = ndimage.binary_dilation(lesion, structure=structure, iterations=dilation)
        hit = np.unique(run_cc[box][reach])
        hit = hit[hit != 0]
        taken[hit] = True
        if np.count_nonzero(lesion) * voxel <= min_volume:
            continue
        kept += 1
        if hit.size == 0:
            hd95_sum += HD95_PENALTY
            continue
        found = np.isin(run_cc, hit)
        whole = np.zeros_like(reference)
        whole[box] = lesion
        dice_sum += 2.0 * np.count_nonzero(found & whole) / (np.count_nonzero(found) + np.count_nonzero(whole))
        hd95_sum += _hd95(whole, found, spacing, planar)
    false_positives = int(np.count_nonzero(~taken[1:]))
    hd95_sum += HD95_PENALTY * false_positives
    total = kept + false_positives
    if total == 0:
        return 1.0, 0.0
    return float(dice_sum / total), float(hd95_sum / total)
