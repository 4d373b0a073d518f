"""Boundary metrics: the kernels against their brute-force twins, hand-made cases, and SimpleITK's filters."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robustness import _kernels
from robustness.overlap.boundary import (
    BOUNDARY_METRICS,
    boundary_metric,
    boundary_scores,
    is_boundary_metric,
    surface_distances,
)
from tests.naive import (
    twin_distances_at,
    twin_label_sizes,
    twin_mask_box,
    twin_squared_edt,
    twin_surface_distances,
    twin_surface_of,
    twin_union_box,
)

SPACINGS = st.tuples(*[st.sampled_from([0.3, 0.5, 1.0, 1.7, 3.0])] * 3)


def masks(shape):
    return arrays(np.bool_, shape, elements=st.booleans())


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 6), st.integers(1, 7), st.integers(1, 7)), st.booleans(), st.data())
def test_surface_of_matches_twin(shape, planar, data):
    if planar:
        shape = (1,) + shape[1:]
    m = data.draw(masks(shape))
    np.testing.assert_array_equal(_kernels.surface_of(m, planar), twin_surface_of(m, planar))


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 6)), SPACINGS, st.data())
def test_squared_edt_matches_brute_force(shape, spacing, data):
    src = data.draw(masks(shape))
    got = _kernels.squared_edt(src, np.array(spacing))
    want = twin_squared_edt(src, spacing)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 6)), SPACINGS, st.data())
def test_squared_edt_at_queries_matches_brute_force(shape, spacing, data):
    src, queries = data.draw(masks(shape)), data.draw(masks(shape))
    got = _kernels.squared_edt_at(src, np.array(spacing), queries)
    want = twin_squared_edt(src, spacing)[queries]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 6)), st.data())
def test_mask_box_and_union_box_match_twins(shape, data):
    masks_ = [data.draw(masks(shape)) for _ in range(data.draw(st.integers(1, 3)))]
    boxes = [_kernels.mask_box(m) for m in masks_]
    assert boxes == [twin_mask_box(m) for m in masks_]
    got, want = _kernels.union_box(boxes), twin_union_box(boxes)
    assert (got is None) == (want is None)
    if got is not None:
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        cut = tuple(slice(int(i), int(j)) for i, j in zip(*got))
        assert all(m[cut].sum() == m.sum() for m in masks_)  # the box holds every foreground voxel


@settings(max_examples=60, deadline=None)
@given(arrays(np.int32, st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 6)),
              elements=st.integers(0, 5)))
def test_label_sizes_match_the_twin(labels):
    n = int(labels.max(initial=0)) + int(labels.size % 2)  # sometimes a last label no voxel holds
    assert _kernels.label_sizes(labels, n).tolist() == twin_label_sizes(labels, n).tolist()


def test_mask_box_hand_made():
    a = np.zeros((3, 4, 5), bool)
    assert _kernels.mask_box(a) is None and _kernels.union_box([None, None]) is None
    a[1, 2, 3] = a[2, 1, 1] = True
    assert _kernels.mask_box(a) == (1, 3, 1, 3, 1, 4)
    lo, hi = _kernels.union_box([(1, 3, 1, 3, 1, 4), None, (0, 1, 2, 4, 0, 2)])
    assert lo.tolist() == [0, 1, 0] and hi.tolist() == [3, 4, 4]


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 6)), SPACINGS, st.data())
def test_distances_at_matches_brute_force(shape, spacing, data):
    src = data.draw(masks(shape))
    n = int(np.prod(shape))
    sets = [np.unique(data.draw(st.lists(st.integers(0, n - 1), max_size=6))).astype(np.int64) for _ in range(3)]
    got = _kernels.distances_at(src, sets, np.array(spacing))
    want = twin_distances_at(src, sets, spacing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def test_distances_at_hand_made():
    src = np.zeros((1, 3, 4), bool)
    src[0, 0, 0] = True
    got = _kernels.distances_at(src, [np.array([0, 3]), np.array([11])], np.array([1.0, 2.0, 0.5]))
    np.testing.assert_allclose(got[0], [0.0, 1.5])  # (0,0,3): 3 voxels of 0.5 mm along x
    np.testing.assert_allclose(got[1], [np.hypot(4.0, 1.5)])  # (0,2,3): 2 x 2 mm along y, 3 x 0.5 mm along x
    assert np.isinf(_kernels.distances_at(np.zeros((1, 2, 2), bool), [np.array([0])], np.ones(3))[0]).all()


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 7), st.integers(1, 7)), SPACINGS, st.booleans(), st.data())
def test_surface_distances_and_metrics_match_brute_force(shape, spacing, planar, data):
    if planar:
        shape, spacing = (1,) + shape[1:], (1.0,) + spacing[1:]
    a, b = data.draw(masks(shape)), data.draw(masks(shape))
    d_ab, d_ba = _kernels.surface_distances(a, b, np.array(spacing), planar)
    t_ab, t_ba = twin_surface_distances(a, b, spacing, planar)
    np.testing.assert_allclose(d_ab, t_ab, rtol=1e-12)  # both in the border voxels' C order
    np.testing.assert_allclose(d_ba, t_ba, rtol=1e-12)
    if len(t_ab) and len(t_ba):
        names = ["nsd@1", "nsd@2.5", "hd95", "assd", "hd"]
        arr = (lambda m: m[0]) if planar else (lambda m: m)
        got = boundary_scores(arr(a), arr(b), names, spacing[1:] if planar else spacing,
                              conventions={"one_slice": "3d"})  # a 3D array of one slice here is the twin's slab
        both = np.concatenate([t_ab, t_ba])
        want = [np.mean(both <= 1 + 1e-9), np.mean(both <= 2.5 + 1e-9),
                max(np.percentile(t_ab, 95), np.percentile(t_ba, 95)), both.mean(), both.max()]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def _cube_pair(axis):
    """A 4x4x4 cube and the same cube shifted by one voxel along ``axis``, in a 10x10x10 array."""
    a = np.zeros((10, 10, 10), bool)
    a[2:6, 2:6, 2:6] = True
    return a, np.roll(a, 1, axis=axis)


def test_cube_shifted_by_one_voxel_with_anisotropic_spacing():
    """Worked out by hand: of the cube's 56 border voxels, the 16 of the face the shifted cube leaves lie one step
    away along the shift, the 4 inner voxels of the opposite face one step along the cheapest axis, the other 36
    on the shifted cube's border (0); and the same in the other direction."""
    spacing = (3.0, 1.0, 0.5)  # (z, y, x)
    a, b = _cube_pair(axis=2)  # along x: the 16 at 0.5, the 4 at min(3, 1, 0.5) = 0.5
    d_ab, d_ba = surface_distances(a, b, spacing)
    assert sorted(d_ab.tolist()) == sorted(d_ba.tolist()) == [0.0] * 36 + [0.5] * 20
    got = boundary_scores(a, b, ["nsd@0.4", "nsd@0.5", "hd95", "assd", "hd"], spacing)
    np.testing.assert_allclose(got, [36 / 56, 1.0, 0.5, 20 * 0.5 / 56, 0.5], rtol=1e-15)
    a, b = _cube_pair(axis=0)  # along z: the 16 at 3, the 4 at 0.5
    d_ab, _ = surface_distances(a, b, spacing)
    assert sorted(d_ab.tolist()) == [0.0] * 36 + [0.5] * 4 + [3.0] * 16
    got = boundary_scores(a, b, ["nsd@1", "hd95", "assd", "hd"], spacing)
    # hd95: numpy's linear percentile of 56 sorted values at position 0.95 * 55 = 52.25, inside the 3.0s
    np.testing.assert_allclose(got, [40 / 56, 3.0, (16 * 3 + 4 * 0.5) / 56, 3.0], rtol=1e-15)


def test_nsd_counts_a_distance_equal_to_the_tolerance():
    """Two voxels of 0.1 mm are 0.2 mm in real numbers; 0.1 * 2 in floating point must still count at nsd@0.2."""
    a = np.zeros((1, 8), bool)
    a[0, 1] = True
    b = np.zeros((1, 8), bool)
    b[0, 3] = True
    assert boundary_scores(a, b, ["nsd@0.2", "nsd@0.19"], (1.0, 0.1)).tolist() == [1.0, 0.0]


def test_empty_masks_follow_the_documented_policy():
    empty = np.zeros((3, 4, 5), bool)
    some = empty.copy()
    some[1, 1, 1] = True
    spacing = (2.0, 1.0, 1.0)
    diagonal = np.sqrt((2 * 2.0) ** 2 + 3.0**2 + 4.0**2)
    names = ["nsd@1", "hd95", "assd"]
    assert boundary_scores(empty, empty, names, spacing).tolist() == [1.0, 0.0, 0.0]
    assert boundary_scores(empty, empty, names, spacing, empty="zero").tolist() == [0.0, diagonal, diagonal]
    assert np.isnan(boundary_scores(empty, empty, names, spacing, empty="ignore")).all()
    assert np.isnan(boundary_scores(empty, empty, names, spacing, empty="official")).all()
    for run, ref in ((empty, some), (some, empty)):
        assert boundary_scores(run, ref, names, spacing).tolist() == [0.0, diagonal, diagonal]


def test_names_directions_and_refusals():
    assert is_boundary_metric("nsd@2") and is_boundary_metric("hd95") and not is_boundary_metric("dice")
    assert boundary_metric("nsd@2").tolerance == 2.0 and not boundary_metric("nsd@2").lower_better
    assert all(m.lower_better for m in BOUNDARY_METRICS.values() if m.name != "volume_similarity")
    assert not boundary_metric("volume_similarity").lower_better and boundary_metric("hd99").tolerance == 99
    with pytest.raises(ValueError, match="unknown boundary metric 'nsd2'"):
        boundary_metric("nsd2")
    with pytest.raises(ValueError, match="positive"):
        boundary_metric("nsd@0")
    with pytest.raises(ValueError, match="different shapes"):
        surface_distances(np.zeros((3, 3)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="spacing must hold 3 positive numbers"):
        surface_distances(np.zeros((2, 3, 3)), np.zeros((2, 3, 3)), (1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="2D or 3D"):
        surface_distances(np.zeros(3), np.zeros(3))


def test_a_tolerance_per_label_names_its_labels_and_scores_each_at_its_own():
    per = boundary_metric("nsd@kidney=1.0330/masses=1.133/tumor=1.15")
    assert per.name == "nsd@kidney=1.033/masses=1.133/tumor=1.15" and is_boundary_metric(per.name)
    assert per.for_label("masses").tolerance == 1.133 and per.for_label("masses").kind == "nsd"
    assert boundary_metric("nsd@1=2/2=3").for_label(2).tolerance == 3.0  # label values match by their text
    a = np.zeros((5, 9, 9), bool)
    a[1:4, 2:7, 2:7] = True
    b = np.roll(a, 2, axis=2)  # every border distance is 0 or a multiple of 0.7 (spacing 0.7 along x)
    for label, tol in (("kidney", 1.033), ("tumor", 1.15)):
        got = boundary_scores(a, b, [per], (1.0, 1.0, 0.7), label=label)
        assert got[0] == boundary_scores(a, b, [f"nsd@{tol}"], (1.0, 1.0, 0.7))[0]
    assert boundary_scores(a, b, [per], (1.0, 1.0, 0.7), label="kidney")[0] != boundary_scores(
        a, b, ["nsd@1.5"], (1.0, 1.0, 0.7))[0]
    with pytest.raises(ValueError, match="no tolerance for label 'cyst'"):
        per.for_label("cyst")
    with pytest.raises(ValueError, match="no tolerance for label None"):
        boundary_scores(a, b, [per])
    for bad in ("nsd@kidney=1/kidney=2", "nsd@kidney=0"):
        with pytest.raises(ValueError, match="each label once, with a positive tolerance"):
            boundary_metric(bad)


def _full_border_twin(mask, planar):
    """Foreground voxels with any of the 26 (planar: 8) neighbours in the zero-padded background."""
    p = np.pad(mask, 1)
    inner = (slice(1, -1),) * 3
    edge = np.zeros_like(mask)
    for dz, dy, dx in itertools.product((-1, 0, 1), repeat=3):
        if (dz, dy, dx) != (0, 0, 0) and not (planar and dz):
            edge |= ~np.roll(p, (dz, dy, dx), axis=(0, 1, 2))[inner]
    return mask & edge


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), planar=st.booleans())
def test_full_connectivity_borders_equal_their_twin_and_simpleitks_fully_connected_contour(seed, planar):
    import SimpleITK as sitk

    from robustness.overlap.boundary import _border, conventions

    rng = np.random.default_rng(seed)
    shape = (1,) + tuple(rng.integers(2, 10, 2)) if planar else tuple(rng.integers(2, 9, 3))
    mask = rng.random(shape) < rng.uniform(0.2, 0.9)
    np.testing.assert_array_equal(_border(mask, planar, "full"), _full_border_twin(mask, planar))
    inner = np.pad(mask, ((0, 0) if planar else (1, 1), (1, 1), (1, 1)))  # away from the array's edge
    image = sitk.GetImageFromArray((inner[0] if planar else inner).astype(np.uint8))
    contour = sitk.GetArrayFromImage(sitk.BinaryContour(image, fullyConnected=True)).astype(bool)
    np.testing.assert_array_equal(_border(inner, planar, "full"), contour[None] if planar else contour)
    spacing = tuple(rng.uniform(0.5, 2.0, 3))
    other = np.roll(mask, 1, axis=2)
    if mask.any() and other.any():
        b_run, b_ref = _full_border_twin(mask, planar), _full_border_twin(other, planar)
        pa, pb = np.argwhere(b_run) * spacing, np.argwhere(b_ref) * spacing
        d = np.sqrt(((pa[:, None] - pb[None]) ** 2).sum(-1))
        want = max(d.min(1).max(), d.min(0).max())
        got = boundary_scores(mask, other, ["hd"], spacing, conventions={"border": "full", "one_slice": "2d"})[0]
        assert got == pytest.approx(want, rel=1e-12)
    assert conventions(border="full")["border"] == "full"
    with pytest.raises(ValueError, match="border must be one of face, full"):
        conventions(border="26")
    with pytest.raises(ValueError, match="empty_distance must be >= 0"):
        conventions(empty_distance=-1)
    with pytest.raises(ValueError, match="empty_distance must be one of"):
        conventions(empty_distance="far")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_one_direction_of_each_distance_metric_is_that_directions_statistic(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(2, 9, 3))
    run, ref = rng.random(shape) < 0.4, rng.random(shape) < 0.4
    if not run.any() or not ref.any():
        return
    spacing = tuple(rng.uniform(0.5, 2.0, 3))
    d_run, d_ref = surface_distances(run, ref, spacing)  # the run's border to the reference's, and back
    names = ["hd95_run_to_ref", "hd95_ref_to_run", "hd90_run_to_ref", "hd_ref_to_run", "masd_run_to_ref",
             "assd_ref_to_run", "nsd_run_to_ref@1.5", "nsd_ref_to_run@1.5"]
    want = [np.percentile(d_run, 95), np.percentile(d_ref, 95), np.percentile(d_run, 90), d_ref.max(), d_run.mean(),
            d_ref.mean(), np.mean(d_run <= 1.5 * (1 + 1e-9)), np.mean(d_ref <= 1.5 * (1 + 1e-9))]
    np.testing.assert_allclose(boundary_scores(run, ref, names, spacing), want, rtol=1e-12, atol=1e-15)
    symmetric = boundary_scores(run, ref, ["hd", "hd_run_to_ref", "hd_ref_to_run"], spacing)
    assert symmetric[0] == max(symmetric[1:])
    assert boundary_metric("hd95_run_to_ref").lower_better and not boundary_metric("nsd_ref_to_run@2").lower_better
    for bad in ("pq_run_to_ref", "nsd_run_to_ref@a=1/b=2", "dice_ref_to_run"):
        with pytest.raises(ValueError):
            boundary_metric(bad)


# -- SimpleITK, an independent implementation ---------------------------------------------------------------------

def _sitk_image(mask, spacing):
    import SimpleITK as sitk

    img = sitk.GetImageFromArray(np.pad(mask, 1).astype(np.uint8))  # outside the array is background
    img.SetSpacing(tuple(float(s) for s in spacing[::-1]))  # SimpleITK orders axes (x, y, z)
    return img


def _random_pairs(n, seed):
    rng = np.random.default_rng(seed)
    cases = [(*_cube_pair(2), (3.0, 1.0, 0.5)), (*_cube_pair(0), (3.0, 1.0, 0.5))]
    while len(cases) < n:
        shape = tuple(rng.integers(2, 14, 3))
        a, b = rng.random(shape) < rng.uniform(0.1, 0.6), rng.random(shape) < rng.uniform(0.1, 0.6)
        if a.any() and b.any():
            cases.append((a, b, tuple(rng.uniform(0.2, 3.0, 3))))
    return cases


def test_borders_hausdorff_and_mean_distances_equal_simpleitk():
    """SimpleITK's BinaryContour (face-connected) gives the same borders; its HausdorffDistanceImageFilter (double
    precision) on them the same Hausdorff distance and mean of the two directed means to 1e-6 mm (measured: 4e-15);
    its signed Maurer distance map (float32) every border voxel's distance to float32 precision (1e-5)."""
    sitk = pytest.importorskip("SimpleITK")
    for a, b, spacing in _random_pairs(60, seed=7):
        d_ab, d_ba = surface_distances(a, b, spacing)
        ca = sitk.BinaryContour(_sitk_image(a, spacing), fullyConnected=False)
        cb = sitk.BinaryContour(_sitk_image(b, spacing), fullyConnected=False)
        border_a = sitk.GetArrayFromImage(ca)[1:-1, 1:-1, 1:-1].astype(bool)
        border_b = sitk.GetArrayFromImage(cb)[1:-1, 1:-1, 1:-1].astype(bool)
        np.testing.assert_array_equal(border_a, _kernels.surface_of(a, False))
        np.testing.assert_array_equal(border_b, _kernels.surface_of(b, False))
        hd = sitk.HausdorffDistanceImageFilter()
        hd.Execute(ca, cb)
        assert abs(max(d_ab.max(), d_ba.max()) - hd.GetHausdorffDistance()) <= 1e-6
        assert abs((d_ab.mean() + d_ba.mean()) / 2 - hd.GetAverageHausdorffDistance()) <= 1e-6
        to_b = sitk.Abs(sitk.SignedMaurerDistanceMap(cb, insideIsPositive=False, squaredDistance=False,
                                                     useImageSpacing=True))
        np.testing.assert_allclose(d_ab, sitk.GetArrayFromImage(to_b)[1:-1, 1:-1, 1:-1][border_a], rtol=1e-5,
                                   atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 7), st.integers(1, 7)), SPACINGS, st.booleans(),
       st.sampled_from(["one", "zero", "ignore"]), st.data())
def test_boundary_matrix_equals_every_pair(shape, spacing, planar, empty, data):
    """One transform per mask on the box of all of them gives the pairwise numbers, empty masks included."""
    from robustness.overlap.boundary import boundary_matrix, crop

    if planar:
        shape, spacing = shape[1:], spacing[1:]
    runs = [data.draw(masks(shape)) for _ in range(3)]
    refs = [data.draw(masks(shape)) for _ in range(2)]
    if data.draw(st.booleans()):
        runs[0][:] = False
    names = ["nsd@1.5", "hd95", "assd", "hd"]
    got = boundary_matrix([crop(r) for r in runs], refs, names, spacing, empty=empty)
    for g, ref in enumerate(refs):
        for r, run in enumerate(runs):
            np.testing.assert_allclose(got[g, r], boundary_scores(run, ref, names, spacing, empty=empty),
                                       rtol=1e-12, equal_nan=True)


def test_one_slice_volumes_are_scored_as_images_unless_asked():
    """A 1 x H x W volume scores as the H x W image (SimpleITK's, seg-metrics' numbers); one_slice='3d' keeps the
    slab, every voxel facing the background above and below (MetricsReloaded's, MONAI's)."""
    rng = np.random.default_rng(3)
    a = ndimage_blob(rng, (40, 40))
    b = np.roll(a, 2, axis=1) | np.roll(a, 1, axis=0)
    names = ["nsd@1", "hd95", "assd", "masd", "hd90", "volume_similarity", "abs_volume_difference", "lesion_dice"]
    flat = boundary_scores(a, b, names, (0.5, 0.7))
    np.testing.assert_array_equal(boundary_scores(a[None], b[None], names, (3.0, 0.5, 0.7)), flat)
    slab = boundary_scores(a[None], b[None], names, (3.0, 0.5, 0.7), conventions={"one_slice": "3d"})
    assert slab[1] < flat[1] and slab[2] < flat[2]  # every voxel is border in the slab: distances shrink
    d_ab, d_ba = surface_distances(a, b, (0.5, 0.7))
    assert flat[3] == pytest.approx((d_ab.mean() + d_ba.mean()) / 2)
    assert flat[4] == pytest.approx(max(np.percentile(d_ab, 90), np.percentile(d_ba, 90)))
    na, nb = a.sum(), b.sum()
    assert flat[5] == pytest.approx(1 - abs(na - nb) / (na + nb)) and flat[6] == pytest.approx(abs(na - nb) * 0.35)


def test_empty_distance_conventions():
    a = np.zeros((6, 6), bool)
    a[2:4, 2:4] = True
    empty = np.zeros_like(a)
    assert boundary_scores(a, empty, ["hd95"])[0] == pytest.approx(np.hypot(5, 5))  # the diagonal
    assert np.isnan(boundary_scores(a, empty, ["hd95"], conventions={"empty_distance": "nan"})[0])  # MetricsReloaded
    assert boundary_scores(a, empty, ["hd95", "lesion_hd95"], conventions={"empty_distance": "inf"}).tolist() == [np.inf] * 2
    assert boundary_scores(a, empty, ["assd", "nsd@1"], conventions={"empty_distance": 373.13}).tolist() == [373.13, 0.0]  # BraTS
    with pytest.raises(ValueError, match="empty_distance"):
        boundary_scores(a, empty, ["hd95"], conventions={"empty_distance": "huge"})


def ndimage_blob(rng, shape):
    from scipy import ndimage

    return ndimage.gaussian_filter(rng.random(shape), 3) > 0.5


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), planar=st.booleans())
def test_the_pooled_percentile_equals_medpy(seed, planar):
    """``hd95_pooled`` and ``hd<P>_pooled``: the percentile of both directions' distances in one set, equal to
    medpy's ``hd95`` (and to numpy's percentile of medpy's distances for another P), with face borders (medpy's
    connectivity 1) and full ones (connectivity ``ndim``); medpy's ``hd`` and ``assd`` equal ``hd`` and ``assd``."""
    binary = pytest.importorskip("medpy.metric.binary", reason="medpy (pip install medpy)")
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(3, 12, 2 if planar else 3))
    a = rng.random(shape) < rng.uniform(0.1, 0.6)
    b = (np.roll(a, 1, axis=-1) | (rng.random(shape) < 0.05)) & (rng.random(shape) < 0.95)
    if not a.any() or not b.any():
        return
    spacing = tuple(rng.uniform(0.5, 2.0, len(shape)))
    for connectivity, border in ((1, "face"), (len(shape), "full")):
        distances = binary.__dict__["__surface_distances"]
        pooled = np.hstack([distances(a, b, spacing, connectivity), distances(b, a, spacing, connectivity)])
        want = [binary.hd95(a, b, spacing, connectivity), np.percentile(pooled, 90), binary.hd(a, b, spacing,
                connectivity), binary.assd(a, b, spacing, connectivity)]
        got = boundary_scores(a, b, ["hd95_pooled", "hd90_pooled", "hd", "assd"], spacing, conventions={"border": border})
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_pooled_percentile_by_hand_and_its_names():
    """Two directions of 4 and 2 distances: the pooled 95th percentile is numpy's over the 6, not the larger of
    the two directions' own; names, refusals and the description."""
    a = np.zeros((1, 9), bool)
    a[0, 0:4] = True  # border: all four cells (a 1 x n strip)
    b = np.zeros((1, 9), bool)
    b[0, 6:8] = True
    pa, pb = np.argwhere(a)[:, 1].astype(float), np.argwhere(b)[:, 1].astype(float)
    d_ab = np.abs(pa[:, None] - pb[None]).min(1)  # 6, 5, 4, 3
    d_ba = np.abs(pb[:, None] - pa[None]).min(1)  # 3, 4
    pooled = np.sort(np.concatenate([d_ab, d_ba]))  # 3, 3, 4, 4, 5, 6: 95th linear percentile 5 + 0.75 * 1
    assert boundary_scores(a, b, ["hd95_pooled"])[0] == pytest.approx(5.75, abs=1e-12)
    assert boundary_scores(a, b, ["hd95"])[0] == pytest.approx(max(np.percentile(d_ab, 95),
                                                                   np.percentile(d_ba, 95)), abs=1e-12)
    assert np.percentile(pooled, 95) == pytest.approx(5.75)
    metric = boundary_metric("hd95.0_pooled")
    assert metric.name == "hd95_pooled" and metric.pooled and metric.lower_better and is_boundary_metric("hd99_pooled")
    assert "pooled" in metric.description and boundary_metric("hd90_pooled").tolerance == 90
    for bad, message in (("hd95_pooled_run_to_ref", "one direction applies"),
                         ("assd_pooled", "unknown boundary metric"), ("hd_pooled", "the pooled percentile applies")):
        with pytest.raises(ValueError, match=message):
            boundary_metric(bad)


def test_conventions_are_one_mapping_and_the_keywords_of_before_still_work():
    """boundary_scores and boundary_matrix take any of the four conventions as one mapping; the keywords one by one
    give the same numbers with a DeprecationWarning, and a convention that does not exist is refused by name."""
    from robustness.overlap.boundary import boundary_matrix

    a = np.zeros((6, 6), bool)
    a[1:4, 1:4] = True
    empty = np.zeros_like(a)
    new = boundary_scores(a, empty, ["hd95", "assd"], conventions={"empty_distance": 7.5, "border": "full"})
    assert new.tolist() == [7.5, 7.5]
    with pytest.warns(DeprecationWarning, match=r"boundary_scores\(\): empty_distance=, border= are deprecated"):
        old = boundary_scores(a, empty, ["hd95", "assd"], empty_distance=7.5, border="full")
    assert old.tolist() == new.tolist()
    with pytest.warns(DeprecationWarning, match=r"boundary_matrix\(\): one_slice= is deprecated"):
        boundary_matrix([a], [a], ["hd95"], one_slice="2d")
    with pytest.raises(ValueError, match="no convention 'borders'"):
        boundary_scores(a, a, ["hd95"], conventions={"borders": "full"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'borders'"):
        boundary_scores(a, a, ["hd95"], borders="full")
