"""Surface elements (robustness.overlap.surfels): the triangle table regenerated with scikit-image, hand-made
surfaces, and every ``*_surfel`` metric against DeepMind's surface-distance (an independent implementation)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from robustness.overlap.boundary import boundary_matrix, boundary_metric, boundary_scores, is_boundary_metric
from robustness.overlap.surfels import _TRIANGLES, cube_codes, element_areas, elements

METRICS = ("nsd_surfel@{tol}", "hd95_surfel", "hd90_surfel", "hd_surfel", "masd_surfel", "assd_surfel")


def _deepmind():
    sd = pytest.importorskip("surface_distance", reason="DeepMind's surface-distance (pip install surface-distance)")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="surface_distance")
    return sd


def _deepmind_scores(sd, run, reference, spacing, tol):
    """Our metrics from DeepMind's functions: the reference is its ground truth, the run its prediction."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        dist = sd.compute_surface_distances(reference, run, spacing)
    to_pred, to_gt = dist["distances_gt_to_pred"], dist["distances_pred_to_gt"]
    area_gt, area_pred = dist["surfel_areas_gt"], dist["surfel_areas_pred"]
    gt_mean, pred_mean = sd.compute_average_surface_distance(dist)
    return [sd.compute_surface_dice_at_tolerance(dist, tol), sd.compute_robust_hausdorff(dist, 95),
            sd.compute_robust_hausdorff(dist, 90), sd.compute_robust_hausdorff(dist, 100), (gt_mean + pred_mean) / 2,
            (np.dot(to_pred, area_gt) + np.dot(to_gt, area_pred)) / (area_gt.sum() + area_pred.sum())]


def test_the_triangle_table_is_scikit_images_lorensen_marching_cubes_of_the_minority_corners():
    measure = pytest.importorskip("skimage.measure", reason="scikit-image regenerates the table")
    entries = _TRIANGLES.split()
    assert len(entries) == 256
    for code, entry in enumerate(entries):
        minority = code if bin(code).count("1") <= 4 else 255 - code
        cube = np.zeros((2, 2, 2))
        for dz, dy, dx in itertools.product((0, 1), repeat=3):
            cube[dz, dy, dx] = minority >> (4 * dz + 2 * dy + dx) & 1
        if minority == 0:
            assert entry == "-"
            continue
        verts, faces, _, _ = measure.marching_cubes(cube, 0.5, method="lorensen", allow_degenerate=True)
        t = verts.astype(float)[faces]
        want = 4 * np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])  # eighths of each triangle's area vector
        want = np.where(want[:, [0]] != 0, np.sign(want[:, [0]]), 1) * want  # up to sign
        got = np.array([[int(v) for v in tri.split(",")] for tri in entry.split(";")], float)
        got = np.where(got[:, [0]] != 0, np.sign(got[:, [0]]), 1) * got
        canon = lambda a: sorted(map(tuple, np.abs(a).round(9).tolist()))  # noqa: E731
        assert canon(got) == canon(want), code
        assert np.allclose(np.linalg.norm(got, axis=1).sum(), np.linalg.norm(want, axis=1).sum()), code


def test_areas_equal_deepminds_tables_at_any_spacing():
    sd = _deepmind()
    rng = np.random.default_rng(7)
    for spacing in [(1.0, 1.0, 1.0), (3.0, 0.8, 0.7)] + [tuple(rng.uniform(0.2, 4.0, 3)) for _ in range(20)]:
        want = sd.lookup_tables.create_table_neighbour_code_to_surface_area(spacing)
        # DeepMind's kernel numbers corner (dz, dy, dx) 128 >> (4 dz + 2 dy + dx); ours 1 << (4 dz + 2 dy + dx)
        theirs = [sum(1 << (7 - b) for b in range(8) if code >> b & 1) for code in range(256)]
        np.testing.assert_allclose(element_areas(spacing)[theirs], want, rtol=1e-14, atol=0)
        want2 = sd.lookup_tables.create_table_neighbour_code_to_contour_length(spacing[1:])
        theirs2 = [sum(1 << (3 - b) for b in range(4) if code >> b & 1) for code in range(16)]
        np.testing.assert_allclose(element_areas(spacing, planar=True)[theirs2], want2, rtol=1e-14, atol=0)


def test_hand_made_surfaces():
    one = np.zeros((3, 3, 3), bool)
    one[1, 1, 1] = True
    where, areas = elements(one, np.ones(3))
    assert where.sum() == 8 and math.isclose(areas.sum(), math.sqrt(3))  # 8 corner triangles: an octahedron
    assert cube_codes(one).shape == (4, 4, 4) and sorted(cube_codes(one)[where]) == [1, 2, 4, 8, 16, 32, 64, 128]
    pixel = np.zeros((1, 3, 3), bool)
    pixel[0, 1, 1] = True
    where, areas = elements(pixel, np.array([1.0, 2.0, 1.0]), planar=True)
    assert where.shape == (1, 4, 4) and where.sum() == 4 and math.isclose(areas.sum(), 2 * math.sqrt(5))  # a rhombus
    block = np.zeros((4, 6, 7), bool)
    block[1:3, 1:5, 1:6] = True  # a 2 x 4 x 5 block: its surface runs through the outer voxels' centres
    _, areas = elements(block, np.array([2.0, 1.0, 0.5]))
    faces = 2 * (1 * 2.0 * 3 * 1.0 + 1 * 2.0 * 4 * 0.5 + 3 * 1.0 * 4 * 0.5)  # the flat faces of the inner box
    assert areas.sum() > faces  # plus the bevels along its edges and corners
    # a block touching the array's edge has a closed surface: the same area as inside a larger array
    edge = np.zeros((2, 4, 5), bool)
    edge[:, :, :] = block[1:3, 1:5, 1:6]
    assert math.isclose(elements(edge, np.array([2.0, 1.0, 0.5]))[1].sum(), areas.sum())


def test_names_and_refusals():
    assert is_boundary_metric("nsd_surfel@2") and is_boundary_metric("hd99_surfel")
    assert not is_boundary_metric("dice_surfel") and not is_boundary_metric("nsd_surfel")
    metric = boundary_metric("nsd_surfel@2.0")
    assert metric.name == "nsd_surfel@2" and metric.surface == "elements" and metric.tolerance == 2.0
    per = boundary_metric("nsd_surfel@kidney=1.033/tumor=1.15")
    assert per.for_label("tumor").surface == "elements" and per.for_label("tumor").tolerance == 1.15
    assert boundary_metric("hd95").surface == "voxels" and boundary_metric("hd95_surfel").name == "hd95_surfel"
    with pytest.raises(ValueError, match="unknown boundary metric"):
        boundary_metric("pq_surfel")


def _blob(rng, shape):
    mask = rng.random(shape) < rng.uniform(0.05, 0.5)
    return ndimage.binary_dilation(mask) if rng.random() < 0.5 else mask


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), planar=st.booleans())
def test_every_surfel_metric_equals_deepminds(seed, planar):
    sd = _deepmind()
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(2, 14, 2 if planar else 3))
    run, reference = _blob(rng, shape), _blob(rng, shape)
    if not run.any() or not reference.any():
        return
    spacing = tuple(rng.uniform(0.3, 3.0, len(shape)))
    tol = float(rng.uniform(0.5, 4.0))
    got = boundary_scores(run, reference, [m.format(tol=tol) for m in METRICS], spacing)
    np.testing.assert_allclose(got, _deepmind_scores(sd, run, reference, spacing, tol), rtol=1e-12, atol=1e-12)


def test_one_direction_on_elements_equals_deepminds_directed_numbers():
    sd = _deepmind()
    rng = np.random.default_rng(11)
    for _ in range(20):
        shape = tuple(rng.integers(3, 12, 3))
        run, reference = _blob(rng, shape), _blob(rng, shape)
        if not run.any() or not reference.any():
            continue
        spacing = tuple(rng.uniform(0.3, 3.0, 3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            dist = sd.compute_surface_distances(reference, run, spacing)
        gt_to_pred, pred_to_gt = sd.compute_average_surface_distance(dist)
        overlap_gt, overlap_pred = sd.compute_surface_overlap_at_tolerance(dist, 1.7)
        got = boundary_scores(run, reference, ["masd_surfel_ref_to_run", "masd_surfel_run_to_ref",
                                               "nsd_surfel_ref_to_run@1.7", "nsd_surfel_run_to_ref@1.7"], spacing)
        np.testing.assert_allclose(got, [gt_to_pred, pred_to_gt, overlap_gt, overlap_pred], rtol=1e-12, atol=1e-14)


def test_the_matrix_equals_every_pair_and_empty_masks_follow_the_policy():
    rng = np.random.default_rng(3)
    shape, spacing = (6, 9, 8), (2.0, 0.9, 0.8)
    runs = [_blob(rng, shape) for _ in range(3)] + [np.zeros(shape, bool)]
    references = [_blob(rng, shape), np.zeros(shape, bool)]
    names = [m.format(tol=1.5) for m in METRICS] + ["hd95"]
    matrix = boundary_matrix(runs, references, names, spacing)
    for g, ref in enumerate(references):
        for r, run in enumerate(runs):
            np.testing.assert_array_equal(matrix[g, r], boundary_scores(run, ref, names, spacing))
    assert matrix[1, 3].tolist() == [1.0, 0, 0, 0, 0, 0, 0]  # both empty: the best value under ``one``
    assert matrix[0, 3, 0] == 0.0 and matrix[0, 3, 1] == matrix[0, 3, -1] > 0  # one empty: the worst


def test_surface_elements_change_the_numbers_as_the_issue_measured():
    """The voxel model and the element model differ: on a ball moved by two voxels the surface Dice is higher and
    the mean distance lower on elements (the border voxels' staircase weighs more than its area)."""
    z, y, x = np.ogrid[:20, :20, :20]
    ball = (z - 9.5) ** 2 + (y - 9.5) ** 2 + (x - 9.5) ** 2 <= 36
    shifted = np.roll(ball, 2, axis=2)
    nsd, nsd_surfel, assd, assd_surfel = boundary_scores(shifted, ball, ["nsd@1.5", "nsd_surfel@1.5", "assd",
                                                                         "assd_surfel"], (1.0, 1.0, 1.0))
    assert 0 < nsd < nsd_surfel < 1 and 0 < assd_surfel < assd
