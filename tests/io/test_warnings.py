"""Every loader note reaches the user: on the terminal (``warning: ...``), in summary.md and in meta.json."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from experiments import rank_convergence as job
from experiments import score, synthetic_summary
from experiments._cli import run
from robustness.io import load_dermavqa, load_raters
from robustness.overlap import compute_overlap
from robustness.overlap.checks import duplicate_raters, foreground_coverage
from robustness.results.folder import open_results
from tests.conftest import write_png

ARGS = ["--orders", "3", "--bootstrap", "5", "--outer", "4", "--quiet", "--no-figures"]


def everywhere(out, err, text):
    assert any(line.startswith("warning: ") and text in line for line in err.splitlines()), err
    _, meta = open_results(out)
    assert any(text in w for w in meta["warnings"]), meta["warnings"]
    summary = (out / "summary.md").read_text()
    assert "## Warnings\n\n- " in summary and text in summary.split("## Warnings")[1]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["rank_convergence", "score"])
def test_loader_notes_are_printed_listed_and_kept(tiny_dermavqa, tmp_path, capsys, command):
    (tiny_dermavqa / "submissions" / "runB" / "IMG_ENC00002_00001_mask_runB.tiff").unlink()
    main = {"rank_convergence": job.main, "score": score.main}[command]
    out = tmp_path / "out"
    extra = ARGS if command == "rank_convergence" else ["--quiet"]
    assert run(main, ["--data", str(tiny_dermavqa), "--out", str(out), "--missing-masks", "empty"] + extra) == 0
    everywhere(out, capsys.readouterr().err, "run 'runB' misses 1 of 3 images: scored as empty masks")


@pytest.mark.slow
def test_decoding_repairs_are_listed(tmp_path, capsys):
    rng = np.random.default_rng(1)
    root = tmp_path / "raters"
    for r in ("a", "b", "c", "run", "run2"):
        for k in range(3):
            m = np.where(rng.random((40, 50)) < 0.2, 0, 255).astype(np.uint8)
            if r == "run" and k == 1:
                m[0, 0] = 20  # one stray pixel: repaired and said
            write_png(root / r / f"s{k}.png", m)
    out = tmp_path / "out"
    assert run(job.main, ["--layout", "raters", "--data", str(root), "--gold", "a,b,c", "--foreground", "0",
                          "--background", "255", "--out", str(out)] + ARGS) == 0
    everywhere(out, capsys.readouterr().err, "run/s1.png: 1 pixel(s) with value(s) {20}")


def test_synthetic_summary_prints_warnings(tiny_dermavqa, capsys):
    (tiny_dermavqa / "reference" / "notes.txt").write_text("x")
    assert run(synthetic_summary.main, ["--data", str(tiny_dermavqa)]) == 0
    assert "warning: " in capsys.readouterr().err


@pytest.mark.slow
def test_duplicate_runs_and_copied_annotator(tiny_dermavqa, tmp_path, capsys):
    sub = tiny_dermavqa / "submissions"
    shutil.copytree(sub / "runA", sub / "runC")
    for p in (sub / "runC").iterdir():
        p.rename(p.with_name(p.name.replace("runA", "runC")))
    (sub / "runD").mkdir()
    for p in (tiny_dermavqa / "reference").glob("*_mask_ann1.tiff"):
        shutil.copy(p, sub / "runD" / p.name.replace("ann1", "runD"))
    counts = compute_overlap(load_dermavqa(tiny_dermavqa), rng=0)
    found = duplicate_raters(counts)
    assert any(w.startswith("runs 'runA' and 'runC' are identical on all 3 images") for w in found), found
    assert any(w.startswith("run 'runD' is identical to annotator 'ann1' on all 3 image(s)") for w in found), found
    assert not any("runB" in w for w in found)
    out = tmp_path / "out"
    assert run(job.main, ["--data", str(tiny_dermavqa), "--out", str(out)] + ARGS) == 0
    everywhere(out, capsys.readouterr().err, "runs 'runA' and 'runC' are identical")


def test_near_copies_count_as_copies_and_far_ones_do_not():
    from robustness.io.arrays import from_arrays

    rng = np.random.default_rng(2)
    a = rng.random((100, 100)) < 0.5
    near, far = a.copy(), a.copy()
    near[0, :2] = ~near[0, :2]  # 2 of ~5000 pixels: Jaccard > 0.999
    far[0, :20] = ~far[0, :20]
    ch = from_arrays({"x": {"ann0": rng.random((100, 100)) < 0.5}},
                     {"a": {"x": a}, "near": {"x": near}, "far": {"x": far}})
    counts = compute_overlap(ch, rng=0)
    assert counts.run_twins[0, 1] == 1 and counts.run_twins[0, 2] == 0 and counts.run_twins[1, 2] == 0
    assert [w.split(" are ")[0] for w in duplicate_raters(counts)] == ["runs 'a' and 'near'"]


def test_swapped_foreground_is_suspected(tmp_path):
    rng = np.random.default_rng(3)
    root = tmp_path / "raters"
    for r in ("a", "b", "run"):
        for k in range(4):
            write_png(root / r / f"s{k}.png", np.where(rng.random((10, 10)) < 0.1, 0, 255).astype(np.uint8))
    wrong = compute_overlap(load_raters(root, gold=["a", "b"]), rng=0)  # default foreground 255: the background
    found = foreground_coverage(wrong, foreground=255, background=0)
    assert len(found) == 1 and found[0].endswith("did you mean `load_raters.foreground` 0 `load_raters.background` 255?")
    right = compute_overlap(load_raters(root, gold=["a", "b"], foreground=0, background=255), rng=0)
    assert foreground_coverage(right, foreground=0, background=255) == []
