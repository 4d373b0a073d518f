"""Lesion-wise metrics against panoptica itself (not part of the suite: panoptica pulls plotly, scikit-image, cc3d
and a command-line stack into the environment).

Two steps, two environments::

    python -m venv /tmp/panenv && /tmp/panenv/bin/pip install panoptica
    /tmp/panenv/bin/python tests/outside/compare_panoptica.py reference /tmp/panoptica.npz
    .venv/bin/python tests/outside/compare_panoptica.py compare /tmp/panoptica.npz

40 random 3D label volumes of boxes and blobs (some lesions shifted, cut, merged, missed or added); panoptica's
``Panoptica_Evaluator`` with semantic input and its naive
threshold matching strictly above IoU 0.5 (this package's rule; panoptica's default also matches at exactly 0.5),
and cc3d's components (26-connected, as here; panoptica's scipy backend is face-connected), against :func:`robustness.overlap.boundary.boundary_scores`: the counts of true
positives, false positives and false negatives, recognition quality (``lesion_f1``), panoptic and segmentation
quality (``pq``, ``sq``), and the matched lesions' summed Dice and mean HD95 (from ``lesion_dice`` and
``lesion_hd95``, whose unmatched terms are known).
"""

from __future__ import annotations

import sys

import numpy as np

N = 40


def volumes(k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1000 + k)
    shape = (24, 40, 40)
    ref = np.zeros(shape, dtype=np.uint8)
    run = np.zeros(shape, dtype=np.uint8)
    for _ in range(int(rng.integers(1, 7))):
        lo = [int(rng.integers(0, s - 6)) for s in shape]
        size = [int(rng.integers(2, 9)) for _ in shape]
        box = tuple(slice(a, a + b) for a, b in zip(lo, size))
        ref[box] = 1
        u = rng.random()
        if u < 0.6:  # found, a little off
            moved = tuple(slice(max(0, s.start + int(rng.integers(-1, 2))), s.stop + int(rng.integers(-1, 2)))
                          for s in box)
            run[moved] = 1
        elif u < 0.8:  # found, badly
            run[tuple(slice(s.start, s.start + max(1, (s.stop - s.start) // 2)) for s in box)] = 1
    for _ in range(int(rng.integers(0, 3))):  # false positives
        lo = [int(rng.integers(0, s - 4)) for s in shape]
        run[tuple(slice(a, a + int(rng.integers(1, 4))) for a in lo)] = 1
    return run, ref


def reference(path: str) -> None:
    from panoptica import (
        CCABackend,
        ConnectedComponentsInstanceApproximator,
        InputType,
        Metric,
        NaiveThresholdMatching,
        Panoptica_Evaluator,
    )

    def evaluator(metrics):
        return Panoptica_Evaluator(
            expected_input=InputType.SEMANTIC,
            instance_approximator=ConnectedComponentsInstanceApproximator(cca_backend=CCABackend.cc3d),
            instance_matcher=NaiveThresholdMatching(matching_threshold=0.5, strict_threshold=True),
            instance_metrics=metrics)

    with_hd95, without = evaluator([Metric.DSC, Metric.IOU, Metric.HD95]), evaluator([Metric.DSC, Metric.IOU])
    out = {}
    for k in range(N):
        run, ref = volumes(k)
        try:
            r = list(with_hd95.evaluate(run, ref, verbose=False).values())[0]
        except NotImplementedError:  # panoptica has no HD95 without a match
            r = list(without.evaluate(run, ref, verbose=False).values())[0]
        out[f"r{k}"] = np.array([r.tp, r.fp, r.fn, r.rq, r.pq, r.sq if r.tp else 0.0,
                                 r.sq_dsc * r.tp if r.tp else 0.0, r.sq_hd95 if r.tp else np.nan], dtype=float)
    np.savez(path, **out)


def compare(path: str) -> None:
    from scipy import ndimage

    from robustness.overlap.boundary import boundary_scores

    ref_values = np.load(path)
    names = ["fp_lesions", "fn_lesions", "lesion_f1", "pq", "sq", "lesion_dice", "lesion_hd95"]
    worst, checked, hd_same, hd_pairs = 0.0, 0, 0, 0
    for k in range(N):
        run, ref = volumes(k)
        fp, fn, f1, pq, sq, dice, hd95 = boundary_scores(run, ref, names)
        tp = ndimage.label(run, structure=np.ones((3, 3, 3)))[1] - int(fp)  # predicted lesions, less the unmatched
        p = ref_values[f"r{k}"]
        total = tp + fp + fn
        diagonal = float(np.sqrt(sum((n - 1) ** 2 for n in run.shape)))
        mine = np.array([tp, fp, fn, f1, pq, sq, dice * total,
                         (hd95 * total - diagonal * (fp + fn)) / tp if tp else np.nan])
        worst = max(worst, float(np.max(np.abs(mine[:7] - p[:7]))))
        if tp:
            hd_same += bool(abs(mine[7] - p[7]) < 1e-9)
            hd_pairs += 1
        checked += 1
    print(f"{checked} volumes; largest difference from panoptica in the counts, rq, pq, sq and summed Dice "
          f"{worst:.2g}; matched lesions' mean HD95 equal in {hd_same} of {hd_pairs} volumes with a match (a "
          "convention: this package's HD95 is MetricsReloaded's)")


if __name__ == "__main__":
    {"reference": reference, "compare": compare}[sys.argv[1]](sys.argv[2])
