"""BraTS 2023's lesion-wise Dice and HD95 against the BraTS evaluation code itself (not part of the suite: it needs
nibabel, cc3d, pandas < 2 and its own copy of DeepMind's surface-distance, from its repository).

Two steps, two environments::

    git clone https://github.com/rachitsaluja/BraTS-2023-Metrics /tmp/brats-metrics   # or any copy of it
    python -m venv /tmp/bratsenv && /tmp/bratsenv/bin/pip install "numpy<2" "scipy<1.14" "pandas<2" nibabel \
        connected-components-3d
    /tmp/bratsenv/bin/python tests/outside/compare_brats.py reference /tmp/brats-metrics /tmp/brats.npz
    .venv/bin/python tests/outside/compare_brats.py compare /tmp/brats.npz

30 random label volumes (labels 1, 2, 3 as BraTS 2023: necrosis, oedema, enhancing tumour) of blobs, some found,
cut, moved, missed or added by the run, under three challenge settings (GLI, MEN, MET); BraTS's
``get_LesionWiseScores`` on the NIfTI files (its regions WT, TC and ET: components, merging and matching by
dilation, per-lesion Dice and HD95 with its surface-distance) and its aggregation (:func:`_aggregate`), against
:func:`robustness.overlap.brats.brats_scores` on the same regions (WT = 1, 2, 3; TC = 1, 3; ET = 3).
"""

from __future__ import annotations

import sys

import numpy as np

N = 30
SETTINGS = {"BraTS-GLI": "gli", "BraTS-MEN": "men", "BraTS-MET": "met"}
REGIONS = {"WT": (1, 2, 3), "TC": (1, 3), "ET": (3,)}
SPACING = (1.0, 1.0, 1.0)  # BraTS's volumes are 1 mm isotropic; its code reads the header's zooms


def volumes(k: int) -> tuple[np.ndarray, np.ndarray]:
    """A reference and a run label volume (x, y, z as nibabel reads them)."""
    rng = np.random.default_rng(2000 + k)
    shape = (40, 44, 30)
    ref = np.zeros(shape, dtype=np.uint8)
    run = np.zeros(shape, dtype=np.uint8)
    x, y, z = np.ogrid[:shape[0], :shape[1], :shape[2]]
    for _ in range(int(rng.integers(1, 6))):
        c = rng.uniform((3, 3, 3), np.array(shape) - 3)
        r = rng.uniform(1.0, 6.0, 3)
        for label, scale in ((2, 1.0), (1, 0.6), (3, 0.35)):  # oedema around a core with an enhancing centre
            blob = ((x - c[0]) / (r[0] * scale)) ** 2 + ((y - c[1]) / (r[1] * scale)) ** 2 + (
                (z - c[2]) / (r[2] * scale)) ** 2 <= 1
            ref[blob] = label
        u = rng.random()
        shift = rng.integers(-2, 3, 3)
        if u < 0.7:  # found, moved a little
            run[np.roll(ref == 2, shift, axis=(0, 1, 2)) & (run == 0)] = 2
            for label in (1, 3):
                run[np.roll(ref == label, shift, axis=(0, 1, 2))] = label
    for _ in range(int(rng.integers(0, 3))):  # false positives
        c = rng.uniform(0, shape)
        blob = ((x - c[0]) ** 2 + (y - c[1]) ** 2 + (z - c[2]) ** 2) <= rng.uniform(1, 9)
        run[blob] = rng.integers(1, 4)
    return run, ref


def _aggregate(scores, threshold: float) -> tuple[float, float]:
    """BraTS's get_LesionWiseResults after its per-lesion step, written out here: under pandas >= 1.5 its
    ``DataFrame.replace(np.inf, 374)`` fails on the column of arrays. Lesions of at most ``threshold`` leave the
    sums, an infinite HD95 is 374, a false positive adds Dice 0 and HD95 374, and 0 / 0 gives Dice 1, HD95 0."""
    _, _, fp, _, pairs = scores[:5]
    kept = [(dice, 374.0 if np.isinf(hd) else hd) for _, _, volume, dice, hd in pairs if volume > threshold]
    n = len(kept) + len(fp)
    if n == 0:
        return 1.0, 0.0
    return sum(d for d, _ in kept) / n, (sum(h for _, h in kept) + 374.0 * len(fp)) / n


def reference(repo: str, path: str) -> None:
    import os
    import tempfile

    import nibabel as nib

    sys.path.insert(0, repo)
    import metrics as brats  # noqa: PLC0415  (the BraTS repository's module, on the path given)

    out = np.full((N, len(SETTINGS), len(REGIONS), 2), np.nan)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(N):
            run, ref = volumes(k)
            files = []
            for name, data in (("run", run), ("ref", ref)):
                files.append(os.path.join(tmp, f"{name}{k}.nii.gz"))
                nib.save(nib.Nifti1Image(data, np.diag(list(SPACING) + [1.0])), files[-1])
            for s, setting in enumerate(SETTINGS.values()):
                dilation, threshold = {"gli": (3, 50), "men": (1, 50), "met": (1, 2)}[setting]
                for j, region in enumerate(REGIONS):
                    out[k, s, j] = _aggregate(brats.get_LesionWiseScores(files[0], files[1], region, dilation),
                                              threshold)
    np.savez(path, out=out)
    print(f"wrote {path}: {N} volumes x {len(SETTINGS)} settings x {len(REGIONS)} regions")


def compare(path: str) -> int:
    from robustness.overlap.brats import BRATS_SETTINGS, brats_scores

    want = np.load(path)["out"]
    got = np.full_like(want, np.nan)
    for k in range(N):
        run, ref = volumes(k)
        for s, setting in enumerate(SETTINGS.values()):
            dilation, min_volume = BRATS_SETTINGS[setting]
            for j, values in enumerate(REGIONS.values()):
                got[k, s, j] = brats_scores(np.isin(run, values), np.isin(ref, values), np.array(SPACING),
                                            dilation=dilation, min_volume=min_volume)
    diff = np.abs(got - want)
    print(f"{want[..., 0].size} region scores: Dice max |diff| {diff[..., 0].max():.2e}, HD95 max |diff| "
          f"{diff[..., 1].max():.2e}; equal to 1e-9 in {int(np.sum(np.all(diff <= 1e-9, axis=-1)))} of "
          f"{want[..., 0].size}; Dice from 0 to 1: {np.round(np.percentile(want[..., 0], [0, 50, 100]), 3)}")
    return 0 if np.all(diff <= 1e-9) else 1


if __name__ == "__main__":
    if sys.argv[1] == "reference":
        reference(sys.argv[2], sys.argv[3])
    else:
        sys.exit(compare(sys.argv[2]))
