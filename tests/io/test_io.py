"""Loaders on small generated folders in both layouts, and every bad input with its message."""

from __future__ import annotations

import re

import numpy as np
import pytest

from robustness.errors import InputError, MaskWarning
from robustness.io import MaskFormat, RaterOptions, load_dermavqa, load_raters, read_mask, write_dermavqa
from tests.conftest import tree_digest, write_png, write_tiff

# -- the official layout ------------------------------------------------------

def test_dermavqa_layout_model(tiny_dermavqa):
    before = tree_digest(tiny_dermavqa)
    ch = load_dermavqa(tiny_dermavqa)
    assert ch.images == ("IMG_ENC00001_00001", "IMG_ENC00001_00002", "IMG_ENC00002_00001")
    assert ch.encounters == ("ENC00001", "ENC00001", "ENC00002")
    assert ch.shapes == ((5, 6), (4, 4), (7, 3))
    assert ch.annotators == ("ann0", "ann1", "ann2", "ann3")
    assert ch.annotators_of(0) == ("ann0", "ann1", "ann2")
    assert ch.annotators_of(2) == ("ann1", "ann2", "ann3")
    assert ch.annotated.sum(axis=1).tolist() == [3, 4, 3]
    assert ch.runs == ("runA", "runB")
    import tifffile

    masks = ch.annotator_masks(1)
    for a, m in masks.items():
        raw = tifffile.imread(tiny_dermavqa / "reference" / f"IMG_ENC00001_00002_mask_{a}.tiff")
        np.testing.assert_array_equal(m, raw == 1)
        assert m.dtype == bool
    raw = tifffile.imread(tiny_dermavqa / "submissions" / "runB" / "IMG_ENC00002_00001_mask_runB.tiff")
    np.testing.assert_array_equal(ch.run_mask("IMG_ENC00002_00001", "runB"), raw == 1)
    assert tree_digest(tiny_dermavqa) == before  # inputs untouched


def test_dermavqa_separate_folders_and_suffix_runs(tiny_dermavqa, tmp_path):
    # one folder holding several suffixes: each suffix is a run
    flat = tmp_path / "flat"
    for run in ("runA", "runB"):
        for p in (tiny_dermavqa / "submissions" / run).iterdir():
            flat.mkdir(exist_ok=True)
            (flat / p.name).write_bytes(p.read_bytes())
    ch = load_dermavqa(reference=tiny_dermavqa / "reference", submissions=flat)
    assert ch.runs == ("runA", "runB")
    ref = load_dermavqa(tiny_dermavqa)
    np.testing.assert_array_equal(ch.run_mask(0, "runA"), ref.run_mask(0, "runA"))


def test_missing_reference_folder(tmp_path):
    (tmp_path / "c" / "submissions").mkdir(parents=True)
    with pytest.raises(InputError, match=r"c/reference: reference folder not found"):
        load_dermavqa(tmp_path / "c")


def test_no_masks_found(tmp_path):
    (tmp_path / "c" / "reference").mkdir(parents=True)
    (tmp_path / "c" / "reference" / "README.txt").write_text("hello")
    (tmp_path / "c" / "submissions").mkdir()
    with pytest.raises(InputError, match=r"reference: no reference masks named IMG_<encounter>_<image>_mask_<annotator>\.tiff found"):
        load_dermavqa(tmp_path / "c")


def test_no_runs_found(tiny_dermavqa, tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    with pytest.raises(InputError, match=r"nothing: no run masks named"):
        load_dermavqa(reference=tiny_dermavqa / "reference", submissions=empty)


def test_corrupt_file_names_the_file(tiny_dermavqa):
    bad = tiny_dermavqa / "reference" / "IMG_ENC00001_00001_mask_ann1.tiff"
    bad.write_bytes(b"this is not a tiff")
    with pytest.raises(InputError, match=r"IMG_ENC00001_00001_mask_ann1\.tiff: cannot read the file"):
        load_dermavqa(tiny_dermavqa)


def test_truncated_file_is_refused_from_its_header(tiny_dermavqa):
    p = tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00001_mask_runA.tiff"
    data = p.read_bytes()
    p.write_bytes(data[: len(data) - 20])  # header intact, pixels cut: the strip offsets say so when loading
    with pytest.raises(InputError, match=r"IMG_ENC00001_00001_mask_runA\.tiff: cannot read the file \(TIFF cut "
                                         r"short: strip 0 ends at byte \d+, the file has \d+\)"):
        load_dermavqa(tiny_dermavqa)


def test_system_shape_mismatch_error_and_skip(tiny_dermavqa):
    p = tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00002_mask_runA.tiff"
    write_tiff(p, np.zeros((9, 9), np.uint8))
    with pytest.raises(InputError, match=r"IMG_ENC00001_00002_mask_runA\.tiff: run 'runA' mask has shape \(9, 9\), the image has shape \(4, 4\)"):
        load_dermavqa(tiny_dermavqa)
    ch = load_dermavqa(tiny_dermavqa, mismatched="skip")
    assert ch.images == ("IMG_ENC00001_00001", "IMG_ENC00002_00001")
    assert any("dropped 1 image(s)" in n and "IMG_ENC00001_00002" in n for n in ch.notes)


def test_annotator_shapes_disagree(tiny_dermavqa):
    write_tiff(tiny_dermavqa / "reference" / "IMG_ENC00001_00002_mask_ann3.tiff", np.zeros((3, 3), np.uint8))
    with pytest.raises(InputError, match=r"IMG_ENC00001_00002_mask_ann3\.tiff: annotator mask has shape \(3, 3\), but .* has \(4, 4\)"):
        load_dermavqa(tiny_dermavqa)


def test_system_missing_images_error_and_empty(tiny_dermavqa):
    (tiny_dermavqa / "submissions" / "runB" / "IMG_ENC00002_00001_mask_runB.tiff").unlink()
    with pytest.raises(InputError, match=r"run 'runB' has no mask for image IMG_ENC00002_00001 \(`loader.missing`='empty' "):
        load_dermavqa(tiny_dermavqa)
    ch = load_dermavqa(tiny_dermavqa, missing="empty")
    assert "run 'runB' misses 1 of 3 images: scored as empty masks" in ch.notes
    assert not ch.run_mask(2, "runB").any()
    assert ch.run_mask(2, "runB").shape == (7, 3)


def test_duplicate_ids(tiny_dermavqa):
    src = tiny_dermavqa / "reference" / "IMG_ENC00001_00001_mask_ann0.tiff"
    (tiny_dermavqa / "reference" / "IMG_ENC00001_00001_mask_ann0.tif").write_bytes(src.read_bytes())
    with pytest.raises(InputError, match=r"duplicate reference mask for image IMG_ENC00001_00001, rater ann0"):
        load_dermavqa(tiny_dermavqa)


def test_0_255_masks_said_and_binarize_option(tiny_dermavqa):
    p = tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00001_mask_runA.tiff"
    m = np.zeros((5, 6), np.uint8)
    m[1:3, 2:5] = 255
    write_tiff(p, m)
    ch = load_dermavqa(tiny_dermavqa)
    with pytest.raises(InputError, match=r"mask_runA\.tiff: mask stored as 0/255 where foreground is 1 \(the official scorer would score it as empty\); `MaskFormat\.binarize`=True reads"):
        ch.run_mask(0, "runA")
    ch = load_dermavqa(tiny_dermavqa, binarize=True)
    assert ch.run_mask(0, "runA").sum() == 6


def test_non_binary_mask(tiny_dermavqa):
    p = tiny_dermavqa / "reference" / "IMG_ENC00002_00001_mask_ann2.tiff"
    write_tiff(p, np.arange(21, dtype=np.uint8).reshape(7, 3))
    ch = load_dermavqa(tiny_dermavqa)
    with pytest.raises(InputError, match=r"mask_ann2\.tiff: not a binary mask: values \{0, 1, 2, 3, 4, 5, \.\.\.\} \(19 pixels besides foreground 1 and background 0\)"):
        ch.annotator_masks(2)


def test_float_and_16bit_masks(tmp_path):
    p = write_tiff(tmp_path / "f.tiff", np.array([[0.0, 1.0], [1.0, 0.0]], np.float32))
    assert read_mask(p)[0].tolist() == [[False, True], [True, False]]
    p = write_tiff(tmp_path / "g.tiff", np.array([[0.0, 0.5]], np.float32))
    with pytest.raises(InputError, match=r"g\.tiff: not a binary mask: non-integer values"):
        read_mask(p)
    p = write_tiff(tmp_path / "h.tiff", np.array([[0, 65535]], np.uint16))
    with pytest.raises(InputError, match=r"h\.tiff: not a binary mask: values \{0, 65535\} outside 0\.\.255"):
        read_mask(p)


def test_rgb_masks_equal_and_unequal_channels(tmp_path):
    grey = np.array([[0, 255], [255, 0]], np.uint8)
    p = write_png(tmp_path / "rgb.png", np.stack([grey] * 3, axis=-1))
    fmt = MaskFormat(foreground=255, background=0)
    assert read_mask(p, fmt)[0].tolist() == [[False, True], [True, False]]
    bad = np.stack([grey, grey, 255 - grey], axis=-1)
    p = write_png(tmp_path / "colour.png", bad)
    with pytest.raises(InputError, match=r"colour\.png: colour mask with unequal channels in 4 pixels"):
        read_mask(p, fmt)


def test_stray_values_warning_and_strict(tmp_path):
    m = np.full((40, 50), 255, np.uint8)
    m[10:20, 10:30] = 0
    m[0, 0] = 24  # nearer to 0: foreground
    m[0, 1] = 200  # nearer to 255: background
    p = write_png(tmp_path / "stray.png", m)
    fmt = MaskFormat(foreground=0, background=255, stray_tolerance=1e-3)
    mask, note = read_mask(p, fmt)
    assert mask.sum() == 200 + 1 and mask[0, 0] and not mask[0, 1]
    assert re.search(r"stray\.png: 2 pixel\(s\) with value\(s\) \{24, 200\} besides foreground 0 and background 255: "
                     r"each assigned to the nearer", note)
    with pytest.raises(InputError, match=r"stray\.png: not a binary mask: values \{0, 24, 200, 255\} \(2 pixels besides"):
        read_mask(p, MaskFormat(foreground=0, background=255, strict=True))
    with pytest.raises(InputError, match=r"stray\.png: not a binary mask"):
        read_mask(p, MaskFormat(foreground=0, background=255, stray_tolerance=1e-4))  # 2/2000 > 1e-4


def test_mask_format_validation():
    with pytest.raises(ValueError, match="foreground and background must differ"):
        MaskFormat(foreground=1, background=1)
    with pytest.raises(ValueError, match="foreground must be an integer in 0..255, got 300"):
        MaskFormat(foreground=300)


# -- the raters layout --------------------------------------------------------

@pytest.fixture
def raters_folder(tmp_path):
    rng = np.random.default_rng(3)
    root = tmp_path / "raters"
    for r in ("expertA", "expertB", "expertC", "algo1", "algo2"):
        for k in range(4):
            m = np.where(rng.random((6, 8)) < 0.3, 0, 255).astype(np.uint8)  # foreground 0 on 255
            name = f"seg_{k}.png" if not (r == "expertC" and k == 2) else f"Seg_{k}.png"
            write_png(root / r / name, m)
    return root


def test_raters_layout(raters_folder):
    before = tree_digest(raters_folder)
    ch = load_raters(raters_folder, gold=["expertA", "expertB", "expertC"], foreground=0, background=255)
    assert ch.images == ("seg_0", "seg_1", "seg_2", "seg_3")
    assert ch.annotators == ("expertA", "expertB", "expertC")
    assert ch.runs == ("algo1", "algo2")
    assert ch.annotated.all()
    assert any("case-insensitively" in n and "expertC/Seg_2.png" in n for n in ch.notes)
    from PIL import Image

    raw = np.asarray(Image.open(raters_folder / "expertC" / "Seg_2.png"))
    np.testing.assert_array_equal(ch.annotator_masks(2)["expertC"], raw == 0)
    assert tree_digest(raters_folder) == before


def test_raters_unknown_rater_and_empty_folder(raters_folder, tmp_path):
    with pytest.raises(InputError, match=r"raters: no rater folder 'expertZ' \(found: algo1, algo2, expertA"):
        load_raters(raters_folder, gold=["expertZ"])
    (tmp_path / "none").mkdir()
    with pytest.raises(InputError, match=r"none: no rater sub-folders found"):
        load_raters(tmp_path / "none", gold=["a"])
    (raters_folder / "empty").mkdir()
    with pytest.raises(InputError, match=r"raters/empty: no mask files"):
        load_raters(raters_folder, gold=["expertA"], runs=["empty"])


def test_raters_duplicate_case_variants(raters_folder):
    src = raters_folder / "algo1" / "seg_1.png"
    (raters_folder / "algo1" / "SEG_1.png").write_bytes(src.read_bytes())
    with pytest.raises(InputError, match=r"algo1/seg_1\.png: duplicate mask for image seg_1 \(also SEG_1\.png\)"):
        load_raters(raters_folder, gold=["expertA"])


def test_raters_missing_image(raters_folder):
    (raters_folder / "algo2" / "seg_3.png").unlink()
    with pytest.raises(InputError, match=r"run 'algo2' has no mask for image seg_3"):
        load_raters(raters_folder, gold=["expertA"], foreground=0, background=255)
    ch = load_raters(raters_folder, gold=["expertA"], foreground=0, background=255, options=RaterOptions(missing="empty"))
    assert "run 'algo2' misses 1 of 4 images: scored as empty masks" in ch.notes


# -- writing ----------------------------------------------------------------

def test_write_dermavqa_roundtrip(tmp_path):
    from robustness.synthetic.challenge import make_challenge

    ch = make_challenge(n_encounters=3, n_images=5, n_runs=3, n_teams=1, rng=2)
    out = write_dermavqa(ch, tmp_path / "c")
    back = load_dermavqa(out)
    assert back.images == ch.images and back.runs == ch.runs and back.annotators == ch.annotators
    np.testing.assert_array_equal(back.annotated, ch.annotated)
    assert back.encounters == ch.encounters
    for i in range(ch.n_images):
        for a, m in ch.annotator_masks(i).items():
            np.testing.assert_array_equal(back.annotator_masks(i)[a], m)
        for s in ch.runs:
            np.testing.assert_array_equal(back.run_mask(i, s), ch.run_mask(i, s))
        assert ch.has_truth and back.has_truth  # the latent truth travels with the written challenge
        np.testing.assert_array_equal(back.read(i, "truth", "truth")[0], ch.read(i, "truth", "truth")[0])
    with pytest.raises(InputError, match=r"c: already exists"):
        write_dermavqa(ch, out)


def test_truth_folder_needs_every_image(tmp_path):
    from robustness.synthetic.challenge import make_challenge

    ch = make_challenge(n_encounters=2, n_images=3, n_runs=2, n_teams=1, rng=2)
    out = write_dermavqa(ch, tmp_path / "c")
    victim = sorted((out / "truth").iterdir())[0]
    victim.unlink()
    image = victim.name.removesuffix("_mask_truth.tiff")
    with pytest.raises(InputError, match=rf"truth: no true mask {image}_mask_truth.tiff \(1 of 3 images"):
        load_dermavqa(out)
    import shutil

    shutil.rmtree(out / "truth")  # a real challenge has no truth folder: loads without one
    assert not load_dermavqa(out).has_truth


def test_write_is_atomic(tmp_path, monkeypatch):
    import tifffile

    from robustness.synthetic.challenge import make_challenge

    ch = make_challenge(n_encounters=2, n_images=3, n_runs=2, n_teams=1, rng=2)
    calls = {"n": 0}
    real = tifffile.imwrite

    def failing(*a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(tifffile, "imwrite", failing)
    with pytest.raises(KeyboardInterrupt):
        write_dermavqa(ch, tmp_path / "c")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("byteorder", ["<", ">"])
@pytest.mark.parametrize("shape,dtype,kw", [
    ((5, 7), np.uint8, {}), ((300, 200), np.uint8, {"compression": "zlib"}), ((70000, 3), np.uint8, {}),
    ((4, 6), np.uint16, {}), ((9, 8), bool, {}), ((4, 6, 3), np.uint8, {"photometric": "rgb"}),
    ((3, 4, 6), np.uint8, {"photometric": "rgb", "planarconfig": "separate"}),
])
def test_header_shape_reader_agrees_with_tifffile(tmp_path, byteorder, shape, dtype, kw):
    import tifffile

    from robustness.io import read_shape

    p = tmp_path / "x.tiff"
    tifffile.imwrite(p, np.zeros(shape, dtype), byteorder=byteorder, **kw)
    full = tifffile.imread(p).shape
    expected = full[:2] if full[-1] in (3, 4) else full[-2:]
    assert read_shape(p) == tuple(expected)


# -- nothing dropped silently (issue 10) --------------------------------------------------------

@pytest.mark.parametrize("make", ["png", "no_mask_in_name", "empty", "plain_file"])
def test_run_that_yields_no_masks_is_an_error_or_a_named_warning(tiny_dermavqa, make):
    sub = tiny_dermavqa / "submissions"
    if make == "png":
        for p in (sub / "runB").iterdir():
            p.rename(p.with_suffix(".png"))
    elif make == "no_mask_in_name":
        for p in (sub / "runB").iterdir():
            p.rename(p.with_name(p.name.replace("_mask_", "_")))
    elif make == "empty":
        for p in (sub / "runB").iterdir():
            p.unlink()
    else:
        (sub / "notes.txt").write_text("a plain file among the runs")
    name = "notes.txt" if make == "plain_file" else "runB"
    with pytest.raises(InputError, match=rf"submissions/{re.escape(name)}: .*`load_dermavqa.empty_folders`='skip' drops"):
        load_dermavqa(tiny_dermavqa)
    ch = load_dermavqa(tiny_dermavqa, empty_folders="skip")
    assert ("runB" in ch.runs) == (make == "plain_file")
    assert any("dropped 1 entr" in n and name in n for n in ch.notes)


@pytest.mark.parametrize("kind", ["folder", "broken link", "link loop"])
def test_entry_named_like_a_mask_that_is_not_a_file(tiny_dermavqa, kind):
    p = tiny_dermavqa / "reference" / "IMG_ENC00001_00001_mask_ann3.tiff"
    if kind == "folder":
        p.mkdir()
    elif kind == "broken link":
        p.symlink_to(tiny_dermavqa / "nowhere.tiff")
    else:
        p.symlink_to(p)
    what = {"folder": "a folder", "broken link": "a broken symbolic link", "link loop": "a broken symbolic link"}[kind]
    with pytest.raises(InputError, match=rf"IMG_ENC00001_00001_mask_ann3\.tiff: named like a mask but is {what}"):
        load_dermavqa(tiny_dermavqa)


def test_other_files_beside_masks_are_counted(tiny_dermavqa):
    (tiny_dermavqa / "reference" / "README.txt").write_text("about the masks")
    (tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00001_mask_runA.png").write_bytes(b"x")
    ch = load_dermavqa(tiny_dermavqa)
    assert any("reference: ignored 1 file(s)" in n and "README.txt" in n for n in ch.notes)
    assert any("runA: ignored 1 file(s)" in n for n in ch.notes)


def test_raters_missing_annotator_mask_is_a_note_with_counts(raters_folder):
    (raters_folder / "expertB" / "seg_1.png").unlink()
    (raters_folder / "expertB" / "seg_3.png").unlink()
    ch = load_raters(raters_folder, gold=["expertA", "expertB", "expertC"], foreground=0, background=255)
    assert "annotator 'expertB' has no mask for 2 of 4 images (seg_1, seg_3): scored against the other " \
           "annotators there" in ch.notes
    assert ch.annotators_of("seg_1") == ("expertA", "expertC")


def test_raters_folder_like_mask_and_empty_rater(raters_folder):
    (raters_folder / "algo1" / "seg_9.png").mkdir()
    with pytest.raises(InputError, match=r"algo1/seg_9\.png: named like a mask but is a folder"):
        load_raters(raters_folder, gold=["expertA"], foreground=0, background=255)
    (raters_folder / "algo1" / "seg_9.png").rmdir()
    (raters_folder / "empty").mkdir()
    ch = load_raters(raters_folder, gold=["expertA"], foreground=0, background=255,
                     options=RaterOptions(empty_folders="skip"))
    assert "empty" not in ch.runs
    assert any("dropped rater 'empty' without mask files (it is empty)" in n for n in ch.notes)


def test_raters_reading_options_old_keywords_still_work_with_a_warning(raters_folder):
    """RaterOptions' fields passed as load_raters keywords (the form before it): the same challenge, warned."""
    (raters_folder / "empty").mkdir()
    new = load_raters(raters_folder, gold=["expertA", "expertB"], foreground=0, background=255,
                      options=RaterOptions(threshold=128, empty_folders="skip", missing="empty"))
    with pytest.warns(DeprecationWarning, match=r"load_raters\(\): threshold=, empty_folders=, missing= are depr"):
        old = load_raters(raters_folder, gold=["expertA", "expertB"], foreground=0, background=255, threshold=128,
                          empty_folders="skip", missing="empty")
    assert (old.images, old.annotators, old.runs, old.notes) == (new.images, new.annotators, new.runs, new.notes)
    for i in range(old.n_images):
        for run in old.runs:
            np.testing.assert_array_equal(old.run_mask(i, run), new.run_mask(i, run))
    with pytest.raises(TypeError, match="unexpected keyword argument 'treshold'"):
        load_raters(raters_folder, gold=["expertA"], treshold=128)


def test_raters_options_refuse_an_unknown_policy_before_reading():
    with pytest.raises(ValueError, match="empty_folders must be 'error' or 'skip', got 'drop'"):
        RaterOptions(empty_folders="drop")
    with pytest.raises(ValueError, match="missing must be 'error' or 'empty', got 'skip'"), \
            pytest.warns(DeprecationWarning):
        load_raters("/nonexistent/folder", gold=["a"], missing="skip")


# -- the per-rater layout's values (issue 10) ------------------------------------------------------

def test_threshold_reads_anti_aliased_masks_in_both_polarities(tmp_path):
    ramp = np.array([[0, 60, 127, 128, 200, 255]], np.uint8)
    p = write_png(tmp_path / "aa.png", ramp)
    assert read_mask(p, MaskFormat(foreground=255, background=0, threshold=128))[0].tolist() == [
        [False, False, False, True, True, True]]
    assert read_mask(p, MaskFormat(foreground=0, background=255, threshold=60))[0].tolist() == [
        [True, True, False, False, False, False]]
    with pytest.raises(ValueError, match="give binarize or threshold"):
        MaskFormat(binarize=True, threshold=3)


def test_raters_mixing_0_1_and_0_255_files_are_read_per_file(raters_folder):
    from PIL import Image

    src = raters_folder / "algo1" / "seg_2.png"
    raw = np.asarray(Image.open(src))
    write_png(src, (raw == 255).astype(np.uint8))  # the same mask on the 0/1 scale (foreground 0 -> 0)
    ch = load_raters(raters_folder, gold=["expertA"], foreground=0, background=255)
    with pytest.warns(MaskWarning, match=r"algo1/seg_2\.png: stored as 0/1 where the others are 0/255: read 1 as 255 "
                                         r"\(background\)"):
        m = ch.run_mask("seg_2", "algo1")
    np.testing.assert_array_equal(m, raw == 0)
    strict = MaskFormat(foreground=0, background=255)  # without rescale (the official layout): refused
    with pytest.raises(InputError, match="not a binary mask"):
        read_mask(src, strict)


def test_float_mask_with_inf_is_one_line(tmp_path):
    p = write_tiff(tmp_path / "inf.tiff", np.array([[0.0, np.inf], [1.0, np.nan]], np.float32))
    with pytest.raises(InputError, match=r"inf\.tiff: not a binary mask: 2 pixel\(s\) are inf or nan"):
        read_mask(p)
