"""Lesion-wise metrics per volume pair: the package against panoptica and the machine's floor.

    python -m benchmarks.bench_lesions
    PANOPTICA_PYTHON=/tmp/panenv/bin/python python -m benchmarks.bench_lesions   # with panoptica beside it

On a 270 x 512 x 512 pair (KiTS's largest scans) with 30 ellipsoidal lesions of 3 to 12 voxels' radius, the run
finding most of them shifted by a voxel, missing some and adding a few, prints side by side:

- the package: :func:`robustness.overlap.boundary.boundary_scores` for lesion_dice, lesion_hd95, lesion_nsd@1,
  lesion_f1 and pq together (components of both masks, the one-to-one matching, each matched pair's surface
  distances);
- panoptica (when ``PANOPTICA_PYTHON`` names an interpreter that has it; it cannot share this environment): its
  ``Panoptica_Evaluator`` on the same volumes (written once to a temporary .npz), cc3d's components, matching
  above IoU 0.5, Dice, IoU and HD95 per matched lesion, timed inside its own process;
- the floor: one pass that reads both masks (``np.count_nonzero`` of each).

Timings are the best of a few runs on this machine; the ratios are what to read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.bench_overlap import best

SHAPE = (270, 512, 512)

PANOPTICA = """
import sys, time
import numpy as np
from panoptica import (CCABackend, ConnectedComponentsInstanceApproximator, InputType, Metric, NaiveThresholdMatching,
                       Panoptica_Evaluator)
data = np.load(sys.argv[1])
run, ref = data["run"].astype(np.uint8), data["ref"].astype(np.uint8)
ev = Panoptica_Evaluator(expected_input=InputType.SEMANTIC,
                         instance_approximator=ConnectedComponentsInstanceApproximator(cca_backend=CCABackend.cc3d),
                         instance_matcher=NaiveThresholdMatching(matching_threshold=0.5, strict_threshold=True),
                         instance_metrics=[Metric.DSC, Metric.IOU, Metric.HD95])
times = []
for _ in range(3):
    t = time.perf_counter()
    ev.evaluate(run, ref, verbose=False)
    times.append(time.perf_counter() - t)
print(min(times))
"""


def lesions(rng) -> tuple[np.ndarray, np.ndarray]:
    """The reference's 30 lesions and the run's answer (most found a voxel off, some missed, a few added)."""
    ref = np.zeros(SHAPE, dtype=bool)
    run = np.zeros(SHAPE, dtype=bool)
    for k in range(34):
        c = np.array([rng.integers(15, s - 15) for s in SHAPE])
        r = rng.uniform(3, 12)
        lo, hi = np.maximum(c - 13, 0), np.minimum(c + 14, SHAPE)
        z, y, x = np.ogrid[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
        ball = (z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2 <= r * r
        box = tuple(slice(a, b) for a, b in zip(lo, hi))
        if k < 30:
            ref[box] |= ball
            if rng.random() < 0.85:
                run[tuple(slice(a + 1, b + 1) for a, b in zip(lo, hi))] |= ball
        else:  # added by the run
            run[box] |= ball
    return run, ref


def main() -> None:
    from robustness.overlap.boundary import boundary_scores

    run, ref = lesions(np.random.default_rng(0))
    names = ["lesion_dice", "lesion_hd95", "lesion_nsd@1", "lesion_f1", "pq"]
    boundary_scores(run, ref, names)  # compile
    ours = best(lambda: boundary_scores(run, ref, names), repeat=3)
    floor = best(lambda: (np.count_nonzero(run), np.count_nonzero(ref)), repeat=3)
    print(f"{SHAPE[0]} x {SHAPE[1]} x {SHAPE[2]} pair, 30 reference lesions:")
    print(f"  package (lesion_dice, lesion_hd95, lesion_nsd@1, lesion_f1, pq)  {ours:8.3f} s")
    other = os.environ.get("PANOPTICA_PYTHON")
    if other:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pair.npz"
            np.savez(path, run=run, ref=ref)
            done = subprocess.run([other, "-c", PANOPTICA, str(path)], capture_output=True, text=True, check=True)
            theirs = float(done.stdout.strip().splitlines()[-1])
        print(f"  panoptica (Dice, IoU, HD95; cc3d components)                     {theirs:8.3f} s  "
              f"({theirs / ours:.1f} x the package's time)")
    else:
        print("  panoptica: not run (set PANOPTICA_PYTHON to an interpreter that has it)")
    print(f"  floor (read both masks once)                                     {floor:8.3f} s  "
          f"(the package: {ours / floor:.0f} x the floor)")


if __name__ == "__main__":
    sys.exit(main())
