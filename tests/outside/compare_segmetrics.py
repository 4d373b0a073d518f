"""``hd95_pooled``, ``hd`` and ``assd`` under ``border="full"`` against seg-metrics itself (not part of the suite:
seg-metrics pins its own stack; medpy, which defines the pooled percentile the same way, is checked in the suite).

Two steps, two environments::

    python -m venv /tmp/medenv && /tmp/medenv/bin/pip install seg-metrics==1.2.8
    /tmp/medenv/bin/python tests/outside/compare_segmetrics.py reference /tmp/segmetrics.npz
    .venv/bin/python tests/outside/compare_segmetrics.py compare /tmp/segmetrics.npz

40 random 3D masks (about 40% foreground, touching the array's edges; the run is the reference moved by one voxel,
cut and sprinkled) with random anisotropic spacing, given to ``seg_metrics.write_metrics`` in array order with its
default full connectivity. seg-metrics' ``hd95`` is the 95th percentile of both directions' distances pooled
(``hd95_pooled`` here), its ``msd`` the mean of the pooled distances (``assd``); its distances come from SimpleITK's
float32 Maurer map, hence a tolerance of 1e-5 mm.
"""

from __future__ import annotations

import sys

import numpy as np

N = 40
NAMES = ["hd95_pooled", "hd", "assd"]


def masks(k: int) -> tuple[np.ndarray, np.ndarray, list[float]]:
    rng = np.random.default_rng(2000 + k)
    shape = tuple(int(s) for s in rng.integers(6, 18, 3))
    run = rng.random(shape) < 0.4
    ref = (np.roll(run, 1, axis=2) | (rng.random(shape) < 0.05)) & (rng.random(shape) < 0.95)
    return run, ref, [float(s) for s in rng.uniform(0.5, 2.0, 3)]


def reference(path: str) -> None:
    import warnings

    import seg_metrics.seg_metrics as sg

    warnings.filterwarnings("ignore")
    values = []
    for k in range(N):
        run, ref, spacing = masks(k)
        out = sg.write_metrics(labels=[1], gdth_img=ref.astype(np.uint8), pred_img=run.astype(np.uint8),
                               spacing=spacing, metrics=["hd95", "hd", "msd"], verbose=False)[0]
        values.append([out["hd95"][0], out["hd"][0], out["msd"][0]])
    np.savez(path, values=np.array(values))


def compare(path: str) -> None:
    from robustness.overlap.boundary import boundary_scores

    theirs = np.load(path)["values"]
    ours = np.array([boundary_scores(*masks(k)[:2], NAMES, masks(k)[2], conventions={"border": "full"}) for k in range(N)])
    gap = np.abs(ours - theirs)
    for j, name in enumerate(NAMES):
        print(f"{name}: equal to seg-metrics within 1e-5 in {(gap[:, j] <= 1e-5).sum()} of {N} "
              f"(largest gap {gap[:, j].max():.2g})")
    face = np.array([boundary_scores(*masks(k)[:2], ["assd"], masks(k)[2])[0] for k in range(N)])
    print(f"assd with face borders: equal within 1e-5 in {(np.abs(face - theirs[:, 2]) <= 1e-5).sum()} of {N}")
    sys.exit(0 if (gap <= 1e-5).all() else 1)


if __name__ == "__main__":
    {"reference": reference, "compare": compare}[sys.argv[1]](sys.argv[2])
