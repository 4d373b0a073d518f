"""Surface-element metrics per volume pair: the package against DeepMind's surface-distance and the voxel model.

    python -m benchmarks.bench_surfels

On the volumes of :mod:`benchmarks.bench_surface` (256 x 256 x 128 voxels, spacing 2.5 x 0.8 x 0.8 mm, three
object sizes), prints side by side for NSD@2, HD95, the mean distance and HD on surface elements:

- the package: :func:`robustness.overlap.boundary.boundary_scores` with ``nsd_surfel@2``, ``hd95_surfel``,
  ``assd_surfel`` and ``hd_surfel`` (cube codes with numpy, the element areas, two exact distance transforms);
- DeepMind's surface-distance (``pip install surface-distance``): ``compute_surface_distances`` once, then
  ``compute_surface_dice_at_tolerance``, ``compute_robust_hausdorff`` at 95 and 100 and
  ``compute_average_surface_distance``;
- the package's voxel model for the same four metrics (``nsd@2``, ``hd95``, ``assd``, ``hd``), what the element
  model costs beside it.

Timings are the best of three runs on this machine; the ratios are what to read.
"""

from __future__ import annotations

import warnings

import numpy as np

from benchmarks.bench_overlap import best
from benchmarks.bench_surface import SHAPE, SPACING, ellipsoid

ELEMENTS = ["nsd_surfel@2", "hd95_surfel", "assd_surfel", "hd_surfel"]
VOXELS = ["nsd@2", "hd95", "assd", "hd"]


def deepmind(run, ref):
    """The four numbers by DeepMind's functions (the reference is its ground truth)."""
    import surface_distance as sd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        dist = sd.compute_surface_distances(ref, run, SPACING)
    to_pred, to_gt = dist["distances_gt_to_pred"], dist["distances_pred_to_gt"]
    area_gt, area_pred = dist["surfel_areas_gt"], dist["surfel_areas_pred"]
    assd = (np.dot(to_pred, area_gt) + np.dot(to_gt, area_pred)) / (area_gt.sum() + area_pred.sum())
    return [sd.compute_surface_dice_at_tolerance(dist, 2.0), sd.compute_robust_hausdorff(dist, 95), assd,
            sd.compute_robust_hausdorff(dist, 100)]


def main(argv=None):
    from robustness.overlap.boundary import boundary_scores

    rng = np.random.default_rng(0)
    print(f"== surface-element metrics of one volume pair, {SHAPE[2]} x {SHAPE[1]} x {SHAPE[0]} voxels, spacing "
          f"{SPACING[2]} x {SPACING[1]} x {SPACING[0]} mm")
    print(f"{'object':24s} {'package ms':>11s} {'DeepMind ms':>12s} {'x DeepMind':>11s} {'voxel model ms':>15s} "
          f"{'/ voxels':>9s} {'max |diff|':>11s}")
    for label, radii in (("lesion, radius 10 mm", (10, 10, 10)), ("tumour, radius 40 mm", (40, 40, 40)),
                         ("organ, 100 x 70 x 70 mm", (100, 70, 70))):
        centre = (SHAPE[0] / 2, SHAPE[1] / 2, SHAPE[2] / 2)
        ref = ellipsoid(centre, radii, rng)
        run = ellipsoid((centre[0] + 1, centre[1] - 3, centre[2] + 2), radii, rng)
        boundary_scores(ref[:8, :8, :8], run[:8, :8, :8], ELEMENTS + VOXELS, SPACING)  # compile
        diff = float(np.max(np.abs(boundary_scores(run, ref, ELEMENTS, SPACING) - np.array(deepmind(run, ref)))))
        t_ours = best(lambda: boundary_scores(run, ref, ELEMENTS, SPACING), 3)
        t_dm = best(lambda: deepmind(run, ref), 3)
        t_vox = best(lambda: boundary_scores(run, ref, VOXELS, SPACING), 3)
        print(f"{label:24s} {t_ours * 1e3:11.1f} {t_dm * 1e3:12.1f} {t_dm / t_ours:11.1f} {t_vox * 1e3:15.1f} "
              f"{t_ours / t_vox:9.2f} {diff:11.2e}")
    print("max |diff|: the package's four numbers against DeepMind's")


if __name__ == "__main__":
    main()
