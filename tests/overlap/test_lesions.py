"""Lesion-wise metrics against a slow twin written from the definitions, by hand, and through the main job."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from robustness.overlap.boundary import boundary_matrix, boundary_metric, boundary_scores, is_boundary_metric

NAMES = ["lesion_dice", "lesion_jaccard", "lesion_hd95", "lesion_hd95_pooled", "lesion_nsd@1.5", "lesion_f1",
         "lesion_precision", "lesion_recall", "pq", "sq", "fp_lesions", "fn_lesions", "fp_volume", "fn_volume"]


def _pooled_hd95(a, b, spacing):
    """HD95 of both directions' border distances pooled, by brute force (every border voxel to every other)."""
    from scipy.spatial.distance import cdist

    sp = np.ones(a.ndim) if spacing is None else np.asarray(spacing, float)
    structure = ndimage.generate_binary_structure(a.ndim, 1)
    border = [np.argwhere(m & ~ndimage.binary_erosion(m, structure, border_value=0)) * sp for m in (a, b)]
    d = cdist(border[0], border[1])
    return np.percentile(np.concatenate([d.min(axis=1), d.min(axis=0)]), 95)


def _kept(labels, n, voxel, min_size):
    """The components of at least ``min_size`` = (amount, unit), numbered again 1..m in order."""
    amount, unit = min_size
    out, m = np.zeros_like(labels), 0
    for i in range(1, n + 1):
        size = np.count_nonzero(labels == i)
        if (size if unit == "voxels" else size * voxel) >= amount * (1 - 1e-9 * (unit != "voxels")):
            m += 1
            out[labels == i] = m
    return out, m


def twin(run, ref, spacing, names=NAMES, min_size=(0, "voxels")):
    """Every lesion-wise metric from full-size arrays: components, all pairs' IoU, per-lesion voxel metrics."""
    planar = run.ndim == 2
    structure = np.ones((3,) * run.ndim, dtype=bool)
    sp = np.ones(run.ndim) if spacing is None else np.asarray(spacing, float)
    voxel = float(np.prod(sp))
    la, na = _kept(*ndimage.label(run, structure=structure), voxel, min_size)
    lb, nb = _kept(*ndimage.label(ref, structure=structure), voxel, min_size)
    if na == 0 and nb == 0:
        return None
    pairs = []
    for i in range(1, na + 1):
        for j in range(1, nb + 1):
            a, b = la == i, lb == j
            inter = np.count_nonzero(a & b)
            iou = inter / np.count_nonzero(a | b)
            if iou > 0.5:
                pairs.append((i, j, inter, iou))
    tp, fp, fn = len(pairs), na - len(pairs), nb - len(pairs)
    total = tp + fp + fn
    diagonal = np.sqrt(sum(((n - 1) * s) ** 2 for n, s in zip(run.shape, sp)))
    per = {}
    for i, j, inter, iou in pairs:
        a, b = la == i, lb == j
        hd95, nsd = boundary_scores(a, b, ["hd95", "nsd@1.5"], spacing)
        per[i, j] = {"dice": 2 * inter / (a.sum() + b.sum()), "iou": iou, "hd95": hd95, "nsd": nsd,
                     "pooled": _pooled_hd95(a, b, spacing)}
    matched_a = {p[0] for p in pairs}
    matched_b = {p[1] for p in pairs}
    values = {
        "lesion_dice": sum(v["dice"] for v in per.values()) / total,
        "lesion_jaccard": sum(v["iou"] for v in per.values()) / total,
        "lesion_hd95": (sum(v["hd95"] for v in per.values()) + diagonal * (fp + fn)) / total,
        "lesion_hd95_pooled": (sum(v["pooled"] for v in per.values()) + diagonal * (fp + fn)) / total,
        "lesion_nsd@1.5": sum(v["nsd"] for v in per.values()) / total,
        "lesion_f1": 2 * tp / (2 * tp + fp + fn),
        "lesion_precision": tp / (tp + fp) if tp + fp else 0.0,
        "lesion_recall": tp / (tp + fn) if tp + fn else 0.0,
        "pq": sum(v["iou"] for v in per.values()) / (tp + fp / 2 + fn / 2),
        "sq": sum(v["iou"] for v in per.values()) / tp if tp else 0.0,
        "fp_lesions": fp, "fn_lesions": fn,
        "fp_volume": voxel * sum(np.count_nonzero(la == i) for i in range(1, na + 1) if i not in matched_a),
        "fn_volume": voxel * sum(np.count_nonzero(lb == j) for j in range(1, nb + 1) if j not in matched_b),
    }
    del planar
    return np.array([values[n] for n in names])


def blobs(rng, shape, n, p_keep):
    """A few random boxes, some shifted or cut: lesions that match, miss, merge or split."""
    out = np.zeros(shape, dtype=bool)
    for _ in range(n):
        lo = [int(rng.integers(0, s - 1)) for s in shape]
        size = [int(rng.integers(1, max(2, s // 3))) for s in shape]
        if rng.random() < p_keep:
            out[tuple(slice(a, a + b) for a, b in zip(lo, size))] = True
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_lesion_metrics_equal_the_twin(seed, planar):
    rng = np.random.default_rng(seed)
    shape = (24, 24) if planar else (10, 14, 14)
    ref = blobs(rng, shape, int(rng.integers(0, 5)), 1.0)
    run = ref.copy()
    run = np.roll(run, int(rng.integers(-1, 2)), axis=-1) if rng.random() < 0.7 else blobs(rng, shape, 3, 0.8)
    run |= blobs(rng, shape, int(rng.integers(0, 3)), 0.5)
    spacing = None if rng.random() < 0.5 else rng.uniform(0.5, 2.0, len(shape))
    # a minimum lesion size: none, in voxels, or in the spacing's units cubed
    min_size = [(0, "voxels"), (int(rng.integers(1, 12)), "voxels"), (float(rng.uniform(0.5, 12)), "mm3")][seed % 3]
    spelled = f"{min_size[0]:g} {min_size[1]}"
    want = twin(run, ref, spacing, min_size=min_size)
    got = boundary_scores(run, ref, NAMES, spacing, empty="official", conventions={"min_lesion_size": spelled})
    if want is None:
        assert np.isnan(got).all()
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the matrix path (every run against every reference, masks cropped) gives the same numbers
    np.testing.assert_array_equal(boundary_matrix([run, ref], [ref], NAMES, spacing, empty="official",
                                                  conventions={"min_lesion_size": spelled})[0, 0], got)


def _cube(vol, corner, size):
    vol[tuple(slice(c, c + s) for c, s in zip(corner, size))] = True


def test_a_run_that_misses_the_small_lesions_ranks_below_one_that_finds_them_all():
    ref = np.zeros((40, 40, 40), bool)
    _cube(ref, (2, 2, 2), (20, 20, 20))
    _cube(ref, (30, 30, 30), (5, 5, 5))
    _cube(ref, (30, 2, 30), (5, 5, 5))
    misses = np.zeros_like(ref)
    _cube(misses, (2, 2, 2), (20, 20, 20))  # the big lesion exactly, nothing else
    smaller = np.zeros_like(ref)  # every lesion one voxel too small along one axis
    _cube(smaller, (2, 2, 2), (19, 20, 20))
    _cube(smaller, (30, 30, 30), (4, 5, 5))
    _cube(smaller, (30, 2, 30), (4, 5, 5))
    voxel = [boundary_scores(r, ref, ["nsd@1"])[0] for r in (misses, smaller)]
    jaccard = [np.count_nonzero(r & ref) / np.count_nonzero(r | ref) for r in (misses, smaller)]
    assert jaccard[0] > jaccard[1]  # voxel-wise, the run that misses two lesions looks better
    names = ["lesion_dice", "lesion_f1", "pq", "fn_lesions", "lesion_hd95"]
    a, b = (boundary_scores(r, ref, names) for r in (misses, smaller))
    assert a[0] == pytest.approx(1 / 3) and a[1] == pytest.approx(0.5) and a[3] == 2
    assert b[0] > a[0] and b[1] == 1.0 and b[2] > a[2] and b[3] == 0 and b[4] < a[4]
    del voxel


def test_empty_masks_and_names():
    ref = np.zeros((8, 8), bool)
    ref[1:3, 1:3] = ref[5:7, 5:7] = True
    empty = np.zeros_like(ref)
    got = dict(zip(NAMES, boundary_scores(empty, ref, NAMES)))
    assert got["lesion_f1"] == 0 and got["fn_lesions"] == 2 and got["fn_volume"] == 8 and got["pq"] == 0
    assert got["lesion_hd95"] == pytest.approx(np.hypot(7, 7))  # the unmatched lesions' penalty: the diagonal
    both = boundary_scores(empty, empty, NAMES, empty="one")
    assert both.tolist() == [boundary_metric(n).best for n in NAMES]
    assert np.isnan(boundary_scores(empty, empty, NAMES, empty="ignore")).all()
    assert is_boundary_metric("lesion_nsd@2") and boundary_metric("lesion_nsd@2.0").name == "lesion_nsd@2"
    assert not boundary_metric("lesion_dice").lower_better and boundary_metric("fp_volume").lower_better
    with pytest.raises(ValueError, match="unknown boundary metric"):
        boundary_metric("lesion_dize")


def test_lesions_touching_the_array_s_edge():
    """Lesions on opposite faces of the array stay two lesions (no wrap-around), a lesion on the edge is matched
    and scored like any other (its voxels on the edge are border: outside the array is background), and its
    lesion-wise HD95 is the pair's own HD95."""
    ref = np.zeros((6, 10, 12), bool)
    ref[:, 0:3, 0:3] = True  # touches five faces of the array
    ref[2:4, 4:7, 9:12] = True  # touches the last face along x
    run = np.zeros_like(ref)
    run[:, 0:3, 0:4] = True
    run[2:4, 4:7, 10:12] = True
    first = np.zeros_like(ref)
    first[:, 0:3, 0:3] = True
    second = ref & ~first
    spacing = (2.0, 0.9, 0.6)
    names = ["fp_lesions", "fn_lesions", "lesion_f1", "lesion_hd95", "lesion_dice"]
    got = dict(zip(names, boundary_scores(run, ref, names, spacing)))
    assert got["fp_lesions"] == 0 and got["fn_lesions"] == 0 and got["lesion_f1"] == 1.0
    pair_hd95 = [boundary_scores(run & mask_region, part, ["hd95"], spacing)[0]
                 for part, mask_region in ((first, _region(first)), (second, _region(second)))]
    assert got["lesion_hd95"] == pytest.approx(np.mean(pair_hd95), abs=1e-12)
    dice = [2 * np.count_nonzero(run & part) / (np.count_nonzero(run & _region(part)) + np.count_nonzero(part))
            for part in (first, second)]
    assert got["lesion_dice"] == pytest.approx(np.mean(dice), abs=1e-12)
    # a lesion on the first and one on the last slice along x are two components, not one through the edge
    wrap = np.zeros_like(ref)
    wrap[2:4, 4:7, 0] = wrap[2:4, 4:7, -1] = True
    assert boundary_scores(wrap, wrap, ["fp_lesions", "fn_lesions", "lesion_f1"], spacing).tolist() == [0, 0, 1]
    assert boundary_scores(wrap, np.zeros_like(wrap), ["fp_lesions"], spacing)[0] == 2


def _region(part):
    """The box around a lesion, one voxel wider: where the run's matching lesion lies in the test above."""
    box = np.zeros_like(part)
    lo = np.argwhere(part).min(0)
    hi = np.argwhere(part).max(0) + 2
    box[tuple(slice(max(a - 1, 0), b) for a, b in zip(lo, hi))] = True
    return box


@pytest.mark.slow
def test_the_main_job_ranks_by_lesion_wise_metrics(tmp_path):
    import pandas as pd

    from experiments import rank_convergence as job
    from robustness.io.dermavqa import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    ch = make_challenge(n_encounters=4, n_images=8, n_runs=4, n_teams=2, rng=2)
    data = write_dermavqa(ch, tmp_path / "challenge")
    out = tmp_path / "out"
    assert job.main(["--data", str(data), "--out", str(out), "--boundary", "lesion_dice,lesion_f1,hd95",
                     "--orders", "4", "--bootstrap", "20", "--outer", "3", "--quiet", "--no-figures"]) == 0
    board = pd.read_csv(out / "metric_leaderboard.csv")
    assert {"lesion_dice", "lesion_f1", "hd95"} <= set(board.metric)
