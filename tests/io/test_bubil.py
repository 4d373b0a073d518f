"""The raters loader on the real BU-BIL dataset 1 and its real defects (needs ../shared/data)."""

from __future__ import annotations

import numpy as np
import pytest

from robustness.errors import InputError, MaskWarning
from robustness.io import RaterOptions, load_raters
from tests.conftest import tree_digest

GOLD = ["Person1_Amira", "Person2_Amira", "Person3_Amira"]


@pytest.fixture(scope="module")
def experts(bubil):
    return load_raters(bubil / "ExpertsAnnotations", gold=GOLD, foreground=0, background=255)


def test_experts_model(experts):
    ch = experts
    assert ch.n_images == 35
    assert ch.annotators == tuple(GOLD)
    assert len(ch.runs) == 7 and "Person5_Amira" in ch.runs and "Person1_ImageJ" in ch.runs
    assert ch.annotated.all()
    assert set(ch.shapes) <= {(811, 1024), (1030, 1300)}
    # capital-S file names of Person3_Amira are matched and reported
    assert any("case-insensitively" in n and "Person3_Amira/Seg_B18.png" in n for n in ch.notes)
    assert "seg_B18" in ch.images


def test_grey_and_rgb_masks_read_alike(experts, bubil):
    from PIL import Image

    i = experts.images.index("seg_B04")
    grey = experts.annotator_masks(i)["Person1_Amira"]  # mode L
    raw = np.asarray(Image.open(bubil / "ExpertsAnnotations" / "Person1_Amira" / "seg_B04.png"))
    np.testing.assert_array_equal(grey, raw == 0)
    rgb = experts.run_mask(i, "Person1_ImageJ")  # mode RGB, equal channels
    raw = np.asarray(Image.open(bubil / "ExpertsAnnotations" / "Person1_ImageJ" / "seg_B04.png"))
    assert raw.ndim == 3
    np.testing.assert_array_equal(rgb, raw[..., 0] == 0)
    assert 0.005 < rgb.mean() < 0.2  # a cell, not the background


def test_stray_pixel_is_counted_and_repaired(experts, bubil):
    i = experts.images.index("seg_B04")
    with pytest.warns(MaskWarning, match=r"Person5_Amira/seg_B04\.png: 1 pixel\(s\) with value\(s\) \{24\} besides "
                                        r"foreground 0 and background 255: each assigned to the nearer"):
        m = experts.run_mask(i, "Person5_Amira")
    assert m.dtype == bool
    strict = load_raters(bubil / "ExpertsAnnotations", gold=GOLD, runs=["Person5_Amira"],
                         foreground=0, background=255, options=RaterOptions(strict=True))
    with pytest.raises(InputError, match=r"Person5_Amira/seg_B04\.png: not a binary mask: values \{0, 24, 255\}"):
        strict.run_mask(i, "Person5_Amira")


def test_crowd_masks_shape_mismatch(bubil, tmp_path):
    # crowd masks live beside the experts; make a raters folder view with symlinks (nothing copied)
    view = tmp_path / "view"
    view.mkdir()
    for r in GOLD:
        (view / r).symlink_to(bubil / "ExpertsAnnotations" / r)
    (view / "mturk1").symlink_to(bubil / "CrowdsourcedAnnotations" / "mturk_annotation1-1")
    with pytest.raises(InputError, match=r"mturk1/seg_B01\.png: run 'mturk1' mask has shape \(\d+, \d+\), "
                                         r"the image has shape \(811, 1024\)"):
        load_raters(view, gold=GOLD, foreground=0, background=255)
    ch = load_raters(view, gold=GOLD, foreground=0, background=255, options=RaterOptions(mismatched="skip"))
    assert ch.n_images < 35
    assert any(n.startswith("dropped ") for n in ch.notes)


def test_inputs_never_modified(bubil):
    folder = bubil / "ExpertsAnnotations" / "Person5_Amira"
    before = tree_digest(folder)
    ch = load_raters(bubil / "ExpertsAnnotations", gold=GOLD, runs=["Person5_Amira"],
                     foreground=0, background=255)
    with pytest.warns(MaskWarning):
        for i in range(ch.n_images):
            ch.run_mask(i, "Person5_Amira")
    assert tree_digest(folder) == before


@pytest.mark.slow
def test_copied_rater_and_swapped_foreground_are_said(experts, bubil):
    """Person2_ImageJ is pixel-identical to Person2_Amira (a gold annotator) on all 35 images; reading the
    masks without --foreground 0 --background 255 makes every rater agree with everyone (J = 0.99)."""
    from robustness.overlap import compute_overlap
    from robustness.overlap.checks import duplicate_raters, foreground_coverage

    with pytest.warns(MaskWarning):
        counts = compute_overlap(experts, rng=0)
    found = duplicate_raters(counts)
    assert len(found) == 1 and found[0].startswith(
        "run 'Person2_ImageJ' is identical to annotator 'Person2_Amira' on all 35 image(s)")
    assert foreground_coverage(counts, foreground=0, background=255) == []
    swapped = load_raters(bubil / "ExpertsAnnotations", gold=GOLD, runs=["Person1_ImageJ"])
    wrong = compute_overlap(swapped, rng=0)
    assert foreground_coverage(wrong, foreground=255, background=0)[0].endswith(
        "did you mean `load_raters.foreground` 0 `load_raters.background` 255?")
