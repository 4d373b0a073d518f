"""A small 3D multi-rater, multi-label challenge written as medical images (NIfTI by default).

Every volume holds one object per label (an ellipsoid with a bumpy surface, in physical units, so that an
anisotropic spacing draws it the same). Annotators draw it with their own surface jitter and a small bias of its
size; runs with their own skill on each label (around an overall skill): a larger jitter, a bias of size and a
shift of their own, and spurious blobs now and then. The rater folders are the per-rater layout
(:func:`robustness.io.load_raters`): one folder per annotator and per run, one file per volume with the same name,
labels as voxel values (0 the background).

This is the embedded test bed of the 3D readers, the labels and the boundary metrics, written as files (it knows
no latent truth). Volumes with the 2D generator's knobs and a latent truth, in memory, come from
:func:`robustness.synthetic.challenge.make_challenge` with ``depth``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import SimpleITK as sitk

from robustness.seeds import SeedLike

__all__ = ["VolumeConfig", "write_volume_challenge"]


@dataclass(frozen=True)
class VolumeConfig:
    """The volume challenge's sizes.

    Attributes
    ----------
    n_volumes : int
    shape : (int, int, int)
        Voxels along (z, y, x).
    spacing : (float, float, float)
        Voxel size along (z, y, x) in mm.
    labels : int
        Objects per volume (labels 1..labels).
    n_annotators, n_runs : int
    label_skill_sd : float
        How much a run's skill differs between labels (standard deviation around its overall skill; 0: every
        label ranks the runs alike), so that the label can change the ranking.
    suffix : str
        ``.nii.gz``, ``.nii``, ``.nrrd``, ``.mha``...
    """

    n_volumes: int = 6
    shape: tuple = (12, 40, 40)
    spacing: tuple = (3.0, 0.8, 0.8)
    labels: int = 2
    n_annotators: int = 3
    n_runs: int = 5
    label_skill_sd: float = 0.15
    suffix: str = ".nii.gz"


def _object(shape, spacing, centre, radii, jitter, rng):
    """An ellipsoid (physical units) whose radius varies with direction by a few low-frequency waves.

    Only the ellipsoid's box (its radii grown by the largest wave) is computed; returns the box's slices and the
    object's mask within it.
    """
    amps = [jitter * rng.normal() for _ in range(3)]
    phases = [rng.uniform(0, 2 * np.pi) for _ in range(3)]
    reach = 1.0 + sum(abs(a) for a in amps)
    lo = [max(0, int(np.floor(c - reach * r / s))) for c, r, s in zip(centre, radii, spacing)]
    hi = [min(n, int(np.ceil(c + reach * r / s)) + 1) for c, r, s, n in zip(centre, radii, spacing, shape)]
    if any(b <= a for a, b in zip(lo, hi)):
        return (slice(0, 0),) * 3, np.zeros((0, 0, 0), bool)
    z, y, x = np.ogrid[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
    pz, py, px = ((z - centre[0]) * spacing[0], (y - centre[1]) * spacing[1], (x - centre[2]) * spacing[2])
    r = np.sqrt((pz / radii[0]) ** 2 + (py / radii[1]) ** 2 + (px / radii[2]) ** 2)
    angle = np.arctan2(py, px)
    wave = sum(a * np.sin(k * angle + ph) for a, k, ph in zip(amps, (2, 3, 4), phases))
    box = (slice(lo[0], hi[0]), slice(lo[1], hi[1]), slice(lo[2], hi[2]))
    return box, r <= 1.0 + wave


def write_volume_challenge(folder: str | os.PathLike, config: VolumeConfig = VolumeConfig(), *,
                           rng: SeedLike = None) -> dict:
    """Write the challenge: ``folder/<rater>/<volume><suffix>`` for annotators ``ann1..`` and runs ``run1..``.

    Parameters
    ----------
    folder : path
        Created; must not hold rater folders of another challenge (files are overwritten).
    config : VolumeConfig
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``annotators``, ``runs`` (names), ``volumes`` (file stems), ``spacing``, ``skill`` (every run's skill on
        each label, higher is better).
    """
    c = config
    rng = np.random.default_rng(rng)
    root = Path(folder)
    annotators = [f"ann{j + 1}" for j in range(c.n_annotators)]
    runs = [f"run{r + 1}" for r in range(c.n_runs)]
    overall = np.linspace(0.9, 0.3, c.n_runs)  # run1 the best
    ann_bias = rng.normal(0.0, 0.04, c.n_annotators)
    run_bias = rng.normal(0.0, 0.12, c.n_runs) * (1.2 - overall)
    skill = np.clip(overall[:, None] + rng.normal(0.0, c.label_skill_sd, (c.n_runs, c.labels)), 0.05, 0.95)
    extent = np.array(c.shape) * np.array(c.spacing)
    volumes = [f"case{v + 1:03d}" for v in range(c.n_volumes)]
    for name in annotators + runs:
        (root / name).mkdir(parents=True, exist_ok=True)
    for vol in volumes:
        objects = []
        for lab in range(1, c.labels + 1):
            radii = extent * rng.uniform(0.12, 0.22, 3)
            centre_mm = extent * (0.3 + 0.4 * rng.random(3))
            objects.append((lab, centre_mm, radii))
        for kind, names in (("annotator", annotators), ("run", runs)):
            for j, name in enumerate(names):
                out = np.zeros(c.shape, np.uint8)
                for lab, centre_mm, radii in objects:
                    if kind == "annotator":
                        scale, jitter, shift = 1.0 + ann_bias[j], 0.05, np.zeros(3)
                    else:
                        scale = 1.0 + run_bias[j]
                        jitter = 0.05 + 0.25 * (1 - skill[j, lab - 1])
                        shift = rng.normal(0.0, 4.0 * (1 - skill[j, lab - 1]), 3)
                    centre = (centre_mm + shift) / np.array(c.spacing)
                    box, inside = _object(c.shape, c.spacing, centre, radii * scale, jitter, rng)
                    out[box][inside] = lab
                    if kind == "run" and rng.random() < 0.5 * (1 - skill[j, lab - 1]):  # a spurious blob
                        spot = rng.uniform(0.1, 0.9, 3) * np.array(c.shape)
                        box, inside = _object(c.shape, c.spacing, spot, extent * 0.05, 0.0, rng)
                        view = out[box]
                        view[inside & (view == 0)] = lab
                img = sitk.GetImageFromArray(out)
                img.SetSpacing(tuple(float(s) for s in c.spacing[::-1]))
                sitk.WriteImage(img, str(root / name / f"{vol}{c.suffix}"), useCompression=True)
    return {"annotators": annotators, "runs": runs, "volumes": volumes, "spacing": tuple(c.spacing),
            "skill": {run: skill[r].tolist() for r, run in enumerate(runs)}}
