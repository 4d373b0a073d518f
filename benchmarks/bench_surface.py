"""Boundary metrics per volume pair: the package's kernels against SimpleITK's filters and the machine's floor.

    python -m benchmarks.bench_surface

On volumes of 256 x 256 x 128 voxels with spacing (z, y, x) = (2.5, 0.8, 0.8) mm, a reference mask (an
ellipsoid with a bumpy surface) and a run's mask (the reference moved by a few voxels, its surface bumped
otherwise) for three object sizes, prints side by side:

- the package: :func:`robustness.overlap.boundary.boundary_scores` for NSD@2, HD95, ASSD and HD together (the
  borders, the box that holds both, two exact distance transforms on it);
- SimpleITK, the usual recipe for the same numbers: ``BinaryContour`` of both masks, ``SignedMaurerDistanceMap``
  of both borders (float32), the distances read at the other border (numpy);
- SimpleITK's ``HausdorffDistanceImageFilter`` on the two borders (the Hausdorff distance and the mean of the two
  directed means only);
- the floor: one pass that reads both masks (``np.count_nonzero`` of each), which every method needs.

Timings are the best of a few runs on this machine; the ratios are what to read.
"""

from __future__ import annotations

import numpy as np

from benchmarks.bench_overlap import best

SHAPE = (128, 256, 256)
SPACING = (2.5, 0.8, 0.8)


def ellipsoid(centre, radii, rng, bumps=0.08):
    """A boolean ellipsoid in physical units with a bumpy surface (a few low-frequency waves)."""
    z, y, x = np.ogrid[:SHAPE[0], :SHAPE[1], :SHAPE[2]]
    pz, py, px = (z - centre[0]) * SPACING[0], (y - centre[1]) * SPACING[1], (x - centre[2]) * SPACING[2]
    r = np.sqrt((pz / radii[0]) ** 2 + (py / radii[1]) ** 2 + (px / radii[2]) ** 2)
    wave = sum(bumps * np.sin(k * np.arctan2(py, px) + rng.uniform(0, 6.3)) * np.cos(k * pz / radii[0])
               for k in (2, 3, 5))
    return r <= 1 + wave


def contours(a, b):
    """SimpleITK's face-connected borders of both masks, with the spacing."""
    import SimpleITK as sitk

    images = []
    for m in (a, b):
        img = sitk.GetImageFromArray(m.astype(np.uint8))
        img.SetSpacing(SPACING[::-1])
        images.append(sitk.BinaryContour(img, fullyConnected=False))
    return images


def sitk_recipe(a, b):
    """NSD@2, HD95, ASSD and HD by SimpleITK's contour and signed Maurer distance filters."""
    import SimpleITK as sitk

    images = contours(a, b)
    maps = [sitk.GetArrayFromImage(sitk.Abs(sitk.SignedMaurerDistanceMap(
        c, insideIsPositive=False, squaredDistance=False, useImageSpacing=True))) for c in images]
    borders = [sitk.GetArrayFromImage(c).astype(bool) for c in images]
    d_ab, d_ba = maps[1][borders[0]], maps[0][borders[1]]
    both = np.concatenate([d_ab, d_ba])
    return [np.mean(both <= 2.0), max(np.percentile(d_ab, 95), np.percentile(d_ba, 95)), both.mean(), both.max()]


def sitk_hausdorff(a, b):
    """SimpleITK's Hausdorff filter on the two borders."""
    import SimpleITK as sitk

    f = sitk.HausdorffDistanceImageFilter()
    f.Execute(*contours(a, b))
    return f.GetHausdorffDistance()


def main(argv=None):
    import SimpleITK as sitk

    from robustness.overlap.boundary import boundary_scores

    sitk.ProcessObject.SetGlobalDefaultNumberOfThreads(2)
    rng = np.random.default_rng(0)
    names = ["nsd@2", "hd95", "assd", "hd"]
    print(f"== boundary metrics of one volume pair, {SHAPE[2]} x {SHAPE[1]} x {SHAPE[0]} voxels, spacing "
          f"{SPACING[2]} x {SPACING[1]} x {SPACING[0]} mm (both on 2 threads)")
    print(f"{'object':22s} {'border voxels':>13s} {'package ms':>11s} {'SimpleITK ms':>13s} {'x SimpleITK':>12s} "
          f"{'HD filter ms':>13s} {'x HD filter':>12s} {'floor ms':>9s} {'/ floor':>8s} {'max |diff|':>11s}")
    for label, radii in (("lesion, radius 10 mm", (10, 10, 10)), ("tumour, radius 40 mm", (40, 40, 40)),
                         ("organ, 100 x 70 x 70 mm", (100, 70, 70))):
        centre = (SHAPE[0] / 2, SHAPE[1] / 2, SHAPE[2] / 2)
        ref = ellipsoid(centre, radii, rng)
        run = ellipsoid((centre[0] + 1, centre[1] - 3, centre[2] + 2), radii, rng)
        boundary_scores(ref[:8, :8, :8], run[:8, :8, :8], names, SPACING)  # compile
        ours = boundary_scores(run, ref, names, SPACING)
        theirs = sitk_recipe(run, ref)
        t_ours = best(lambda: boundary_scores(run, ref, names, SPACING), 3)
        t_sitk = best(lambda: sitk_recipe(run, ref), 3)
        t_hd = best(lambda: sitk_hausdorff(run, ref), 3)
        t_floor = best(lambda: (np.count_nonzero(run), np.count_nonzero(ref)), 5)
        from robustness import _kernels

        n_border = int(_kernels.surface_of(ref, False).sum() + _kernels.surface_of(run, False).sum())
        diff = float(np.max(np.abs(np.array(ours) - np.array(theirs))))
        print(f"{label:22s} {n_border:13d} {t_ours * 1e3:11.1f} {t_sitk * 1e3:13.1f} {t_sitk / t_ours:12.1f} "
              f"{t_hd * 1e3:13.1f} {t_hd / t_ours:12.1f} {t_floor * 1e3:9.1f} {t_ours / t_floor:8.1f} {diff:11.2e}")
    print("max |diff|: the package's four numbers against the SimpleITK recipe's (float32 distance maps there)")


if __name__ == "__main__":
    main()
