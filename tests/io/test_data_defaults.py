"""Defaults read from the data: the masks' scale detected from the values present, a covering foreground refused.

- gold masks holding only 0 and 1 (plain label maps, PNG or NIfTI) read 1 as foreground, with no note, and score
  exactly as with --foreground 1 --background 0;
- 0/255 masks keep 255 on 0; a 0/1 file among them is read on its own scale with its note, as before;
- a foreground the user did not name that covers most of every annotator mask is refused by every command
  within seconds (one line naming the folder, exit 2, before any fit); named values are scored as read, with
  the warning.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from experiments import calibration, design_study, score
from experiments import rank_convergence as main_job
from experiments._cli import run
from robustness.errors import MaskWarning
from robustness.io import load_raters
from robustness.io.raters import detect_scale
from robustness.overlap import compute_overlap
from tests.conftest import write_png


def _raters(root, high: int, *, seed=0, n=4, size=12, inverted=False):
    """Gold a, b and runs r, s: blobs of 1 (or ``high``) on 0, or the reverse when ``inverted``."""
    rng = np.random.default_rng(seed)
    for r in ("a", "b", "r", "s"):
        for k in range(n):
            blob = np.zeros((size, size), bool)
            y, x = rng.integers(2, size - 5, 2)
            blob[y:y + 3 + rng.integers(0, 2), x:x + 3 + rng.integers(0, 2)] = True
            fg = ~blob if inverted else blob
            write_png(root / r / f"i{k}.png", np.where(fg, high, 0).astype(np.uint8))
    return root


def _scores(ch):
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    return counts.strategy_counts("majority")


def test_label_maps_read_1_as_foreground_without_a_note(tmp_path):
    root = _raters(tmp_path / "d", 1)
    ch = load_raters(root, gold=["a", "b"])
    assert ch.source.annotator_format.foreground == 1 and not ch.source.annotator_format.given
    explicit = load_raters(root, gold=["a", "b"], foreground=1, background=0)
    assert explicit.source.annotator_format.given
    np.testing.assert_array_equal(_scores(ch), _scores(explicit))
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    assert not [n for n in list(ch.notes) + list(counts.notes) if "stored as" in n]


def test_nifti_label_maps_are_detected_too(tmp_path):
    sitk = pytest.importorskip("SimpleITK")
    rng = np.random.default_rng(1)
    for r in ("a", "b", "r"):
        for k in range(3):
            arr = np.zeros((3, 6, 6), np.uint8)
            arr[1, 1:4, rng.integers(1, 3):5] = 1
            (tmp_path / "v" / r).mkdir(parents=True, exist_ok=True)
            sitk.WriteImage(sitk.GetImageFromArray(arr), str(tmp_path / "v" / r / f"c{k}.nii.gz"))
    ch = load_raters(tmp_path / "v", gold=["a", "b"])
    assert (ch.source.annotator_format.foreground, ch.source.annotator_format.background) == (1, 0)
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    assert not [n for n in counts.notes if "stored as" in n]
    assert counts.strategy_counts("majority")[0, :, 0].sum() > 0  # the runs' 1s meet the gold's


def test_0_255_masks_keep_255_and_a_0_1_file_among_them_is_noted(tmp_path):
    root = _raters(tmp_path / "d", 255)
    assert detect_scale(sorted((root / "a").iterdir())) == (255, 0)
    write_png(root / "r" / "i0.png", (np.asarray(np.arange(144).reshape(12, 12) % 7 == 0, np.uint8)))
    ch = load_raters(root, gold=["a", "b"])
    assert ch.source.annotator_format.foreground == 255
    with pytest.warns(MaskWarning, match="stored as 0/1"):
        counts = compute_overlap(ch, strategies=["majority"], rng=0)
    assert any("stored as 0/1 where the others are 0/255" in n for n in counts.notes)


def test_detection_skips_empty_masks_and_reads_a_bounded_sample(tmp_path):
    empty = [write_png(tmp_path / f"e{k}.png", np.zeros((4, 4), np.uint8)) for k in range(3)]
    ones = write_png(tmp_path / "one.png", np.eye(4, dtype=np.uint8))
    grey = write_png(tmp_path / "grey.png", (np.eye(4) * 255).astype(np.uint8))
    assert detect_scale(empty) == (255, 0)  # nothing to tell: the default
    assert detect_scale(empty + [ones]) == (1, 0)
    assert detect_scale([ones, grey]) == (255, 0)
    assert detect_scale([ones] * 4 + [grey]) == (1, 0)  # four non-empty masks decide


@pytest.mark.parametrize("command", [score, main_job, design_study, calibration])
def test_a_covering_foreground_is_refused_within_seconds_by_every_command(tmp_path, capsys, command):
    root = _raters(tmp_path / "d", 255, inverted=True)  # the blobs are 0: the foreground 255 covers ~90%
    out = tmp_path / "out"
    args = ["--layout", "raters", "--gold", "a,b", "--out", str(out), "--quiet"]
    like = command in (design_study, calibration)
    args = (["--like", str(root), "--quick"] if like else ["--data", str(root)]) + args
    start = time.perf_counter()
    assert run(command.main, args) == 2
    took = time.perf_counter() - start
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if x.startswith("error: ")]
    assert line.startswith(f"error: {root}: the foreground (value 255) covers more than half of the image in 8 of 8")
    assert "did you mean --foreground 0 --background 255?" in line and "fitting" not in err
    assert took < 20, took
    assert not (out / "meta.json").exists()


def test_named_values_are_scored_as_read_with_the_warning(tmp_path, capsys):
    root = _raters(tmp_path / "d", 255, inverted=True)
    assert run(score.main, ["--data", str(root), "--layout", "raters", "--gold", "a,b", "--foreground", "255",
                            "--background", "0", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "did you mean --foreground 0 --background 255?" in capsys.readouterr().err


def test_one_stray_value_does_not_flip_the_scale_of_every_file(tmp_path):
    """Most non-empty gold masks decide: a 2 in one 0/1 map is that file's stray pixel (its note), not a reason to
    read every map as 255 on 0 (which would erase their 1s)."""
    root = _raters(tmp_path / "d", 1)
    first = root / "a" / "i0.png"
    from PIL import Image

    arr = np.asarray(Image.open(first)).copy()
    arr[0, 0] = 2
    write_png(first, arr)
    assert detect_scale(sorted((root / "a").iterdir()) + sorted((root / "b").iterdir())) == (1, 0)


def test_one_value_given_takes_the_other_end_of_0_255(tmp_path, capsys):
    root = _raters(tmp_path / "d", 255, inverted=True)
    assert load_raters(root, gold=["a", "b"], background=255).source.annotator_format.foreground == 0
    assert load_raters(root, gold=["a", "b"], foreground=0).source.annotator_format.background == 255
    assert run(score.main, ["--data", str(root), "--layout", "raters", "--gold", "a,b", "--background", "255",
                            "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert "both 255" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_refused_run_does_not_block_the_corrected_one(tmp_path, capsys):
    """The refusal leaves only the counts' cache in --out; the rerun with the values the error names proceeds."""
    root = _raters(tmp_path / "d", 255, inverted=True)
    out = tmp_path / "out"
    common = ["--data", str(root), "--layout", "raters", "--gold", "a,b", "--out", str(out), "--quiet",
              "--orders", "4", "--bootstrap", "20", "--outer", "4", "--no-figures"]
    assert run(main_job.main, common) == 2
    capsys.readouterr()
    assert run(main_job.main, common + ["--foreground", "0", "--background", "255"]) == 0
    assert (out / "meta.json").exists()
    # results of another input are still protected
    other = _raters(tmp_path / "e", 1, seed=5)
    assert run(main_job.main, [*common[:1], str(other), *common[2:]]) == 2
    assert "holds results of another input" in capsys.readouterr().err
