"""BraTS 2023's lesion-wise Dice and HD95 (robustness.overlap.brats): a plain whole-array twin with DeepMind's
surface-distance for the HD95, hand-made cases, and the cropped path of boundary_matrix."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from robustness.overlap.boundary import boundary_matrix, boundary_metric, boundary_scores, is_boundary_metric
from robustness.overlap.brats import BRATS_SETTINGS, HD95_PENALTY, brats_scores


def _twin(run, reference, spacing, dilation, min_volume):
    """The rules on whole arrays, lesion by lesion, with DeepMind's functions for the HD95 (3D masks only)."""
    sd = pytest.importorskip("surface_distance", reason="DeepMind's surface-distance (pip install surface-distance)")
    full, eighteen = np.ones((3, 3, 3), bool), ndimage.generate_binary_structure(3, 2)
    groups, _ = ndimage.label(ndimage.binary_dilation(reference, eighteen, iterations=dilation), full)
    run_cc, n_run = ndimage.label(run, full)
    taken, rows = set(), []
    for k in np.unique(groups[reference]):
        lesion = reference & (groups == k)
        hit = set(np.unique(run_cc[ndimage.binary_dilation(lesion, eighteen, iterations=dilation)])) - {0}
        taken |= hit
        found = np.isin(run_cc, list(hit)) if hit else np.zeros_like(run)
        dice = 2 * (found & lesion).sum() / (found.sum() + lesion.sum())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hd = sd.compute_robust_hausdorff(sd.compute_surface_distances(lesion, found, spacing), 95)
        rows.append((lesion.sum() * np.prod(spacing), dice, HD95_PENALTY if np.isinf(hd) else hd))
    fp = n_run - len(taken)
    kept = [(d, h) for v, d, h in rows if v > min_volume]
    if not kept and not fp:
        return 1.0, 0.0
    n = len(kept) + fp
    return sum(d for d, _ in kept) / n, (sum(h for _, h in kept) + HD95_PENALTY * fp) / n


def _lesions(rng, shape, n):
    mask = np.zeros(shape, bool)
    z, y, x = np.ogrid[:shape[0], :shape[1], :shape[2]]
    for _ in range(n):
        c = rng.uniform(0, shape)
        r = rng.uniform(0.8, 3.5, 3)
        mask |= ((z - c[0]) / r[0]) ** 2 + ((y - c[1]) / r[1]) ** 2 + ((x - c[2]) / r[2]) ** 2 <= 1
    return mask


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), setting=st.sampled_from(sorted(BRATS_SETTINGS)))
def test_brats_scores_equal_a_whole_array_twin(seed, setting):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(8, 22, 3))
    reference = _lesions(rng, shape, rng.integers(0, 5))
    run = _lesions(rng, shape, rng.integers(0, 5)) | (reference & (rng.random(shape) < 0.7))
    spacing = np.array(rng.uniform(0.6, 1.6, 3))
    dilation, min_volume = BRATS_SETTINGS[setting]
    min_volume = min_volume * rng.uniform(0, 1.5)  # thresholds between the lesions' volumes too
    if not run.any() and not reference.any():
        return
    got = brats_scores(run, reference, spacing, dilation=dilation, min_volume=min_volume)
    np.testing.assert_allclose(got, _twin(run, reference, spacing, dilation, min_volume), rtol=1e-12, atol=1e-12)


def test_hand_made_cases():
    one = np.ones(3)
    ref = np.zeros((12, 30, 30), bool)
    ref[4:8, 4:10, 4:10] = True  # 144 voxels
    ref[4:8, 4:10, 13:19] = True  # 3 voxels apart in x: merged by 3 dilations (gli), not by 1 (met)
    run = np.zeros_like(ref)
    run[4:8, 4:10, 4:10] = True
    run[4:8, 22:26, 22:26] = True  # a false positive, far from both
    dice, hd = brats_scores(run, ref, one, dilation=3, min_volume=50)
    assert dice == pytest.approx((2 * 144 / (144 + 288)) / 2) and hd > HD95_PENALTY / 2  # one lesion, one FP
    dice, hd = brats_scores(run, ref, one, dilation=1, min_volume=2)
    assert dice == pytest.approx(1 / 3) and hd == pytest.approx(2 * HD95_PENALTY / 3)  # two lesions, one found
    small = np.zeros_like(ref)
    small[5, 5, 5] = True
    assert brats_scores(np.zeros_like(ref), small, one) == (1.0, 0.0)  # its only lesion below 50: 0 / 0 -> 1, 0
    assert brats_scores(small, np.zeros_like(ref), one) == (0.0, HD95_PENALTY)  # a false positive alone


def test_names_and_the_cropped_path_of_the_matrix():
    assert is_boundary_metric("brats_dice") and is_boundary_metric("brats_hd95@met")
    assert boundary_metric("brats_dice@gli").name == "brats_dice" and boundary_metric("brats_hd95").lower_better
    with pytest.raises(ValueError, match="the BraTS settings are"):
        boundary_metric("brats_dice@xyz")
    rng = np.random.default_rng(5)
    shape, spacing = (14, 40, 44), np.array([1.0, 0.9, 1.1])
    refs = [_lesions(rng, shape, 3), np.zeros(shape, bool)]
    runs = [_lesions(rng, shape, 2) | refs[0], _lesions(rng, shape, 4), np.zeros(shape, bool)]
    names = ["brats_dice", "brats_hd95", "brats_dice@met", "brats_hd95@met"]
    matrix = boundary_matrix(runs, refs, names, spacing)
    for g, ref in enumerate(refs):
        for r, run in enumerate(runs):
            if not run.any() and not ref.any():
                assert matrix[g, r].tolist() == [1.0, 0.0, 1.0, 0.0]  # the both-empty policy 'one'
                continue
            want = [v for setting in ("gli", "met") for v in brats_scores(
                run, ref, spacing, dilation=BRATS_SETTINGS[setting][0], min_volume=BRATS_SETTINGS[setting][1])]
            np.testing.assert_allclose(matrix[g, r], want, rtol=1e-12)
            np.testing.assert_allclose(boundary_scores(run, ref, names, spacing), want, rtol=1e-12)
    assert boundary_matrix(runs[2:], refs[1:], ["brats_hd95"], spacing, empty="zero")[0, 0, 0] == HD95_PENALTY
