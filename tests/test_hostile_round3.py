"""Issue 48: the defects a new organiser and a third hostile round found (items 3-9, 11-13, 15).

One test (or a parametrised family) per item, each written to reproduce the defect first. Every refusal is one
line ``error: ...`` naming the file or option, exit status 2.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from experiments import rank_convergence
from experiments._cli import run
from robustness.errors import InputError
from robustness.io import load_raters
from tests.conftest import as_a_terminal_job, wait_for_workers, write_png

FAST = ["--orders", "3", "--bootstrap", "10", "--outer", "4", "--quiet"]


def one_line_error(capsys, code, *needles):
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert re.search(needle, errors[0]), errors[0]
    return errors[0]


# -- item 3: a foreground value no mask holds ----------------------------------------------------------------------

@pytest.fixture
def cells_drawn_as_0(tmp_path):
    """A raters folder of 0/255 masks whose cells are drawn as 0 on a background of 255 (BU-BIL's scale)."""
    rng = np.random.default_rng(5)
    root = tmp_path / "cells"
    truth = rng.random((12, 16)) < 0.2
    for r in ("expertA", "expertB", "algo1", "algo2"):
        for k in range(3):
            cells = truth ^ (rng.random(truth.shape) < 0.03)
            write_png(root / r / f"img_{k}.png", np.where(cells, 0, 255).astype(np.uint8))
    return root


def test_a_foreground_value_no_mask_holds_is_refused(cells_drawn_as_0, tmp_path, capsys):
    with pytest.raises(InputError, match=r"expertA/img_0\.png.*no gold mask holds the foreground value 1"):
        load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=1)
    out = tmp_path / "out"
    code = run(rank_convergence.main, ["--layout", "raters", "--data", str(cells_drawn_as_0), "--gold",
                                       "expertA,expertB", "--foreground", "1", "--out", str(out), *FAST,
                                       "--no-figures"])
    line = one_line_error(capsys, code, r"no gold mask holds the foreground value 1", r"each of the 2 gold raters holds only 0 and 255\)",
                          r"foreground 0 and background 255 if the objects are drawn as 0",
                          r"foreground 255 and background 0 if they are drawn as 255")
    assert "background 1" not in line
    assert not out.exists()
    # the values the files hold are read as given; a file of another scale among them is still read with a note
    ch = load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=0, background=255)
    assert ch.annotator_masks(0)["expertA"].mean() < 0.5


def test_a_mixed_scale_folder_with_given_values_is_still_read(cells_drawn_as_0):
    # one gold rater on the 0/1 scale (DRIVE's second observer): the other holds the given values, so it is read
    for k in range(3):
        p = cells_drawn_as_0 / "expertA" / f"img_{k}.png"
        from PIL import Image

        raw = np.asarray(Image.open(p))
        write_png(p, (raw == 255).astype(np.uint8))
    ch = load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=0, background=255)
    assert ch.annotators == ("expertA", "expertB")


# -- item 4: a one-voxel fragment decided the lesion metrics; lesion_hd95_pooled ---------------------------------

def _protruding(shape=(10, 10), fragment=True):
    """A 5 x 5 reference lesion; the run's lesion sticks out of it by two pixels, and a 1-pixel fragment lies apart.

    Border pixels (face neighbours, outside is background): the run's 17 lie at 0 (15), 1 and 2 from the
    reference's border; the reference's 16 at 0 (15) and 1 from the run's. HD95 (the larger direction's 95th
    percentile, numpy's linear rule): max(1 + 0.2, 0.25) = 1.2; both directions pooled (33 distances): 1.0.
    """
    ref = np.zeros(shape, bool)
    ref[0:5, 0:5] = True
    run = ref.copy()
    run[2, 5:7] = True
    if fragment:
        run[9, 9] = True
    return run, ref


def test_a_minimum_lesion_size_leaves_a_fragment_out():
    from robustness.overlap.boundary import boundary_scores

    names = ["lesion_hd95", "lesion_hd95_pooled", "lesion_f1", "fp_lesions", "pq"]
    run, ref = _protruding()
    diagonal = np.hypot(9, 9)
    got = boundary_scores(run, ref, names)  # the default: every component is a lesion
    np.testing.assert_allclose(got, [(1.2 + diagonal) / 2, (1.0 + diagonal) / 2, 2 / 3, 1, (25 / 27) / 1.5])
    for size in (2, "2 voxels", "2vox"):
        np.testing.assert_allclose(boundary_scores(run, ref, names, conventions={"min_lesion_size": size}), [1.2, 1.0, 1, 0, 25 / 27])
    # in the spacing's units (a pixel's area in 2D): 0.25 mm^2 a pixel, the fragment 0.25, the lesion 6.75
    half = boundary_scores(run, ref, names, (0.5, 0.5), conventions={"min_lesion_size": "0.5mm3"})
    np.testing.assert_allclose(half, [0.6, 0.5, 1, 0, 25 / 27])
    kept = boundary_scores(run, ref, names, (0.5, 0.5), conventions={"min_lesion_size": "0.25 mm3"})  # at least: the fragment stays
    assert kept[3] == 1
    # every lesion below the minimum: both masks hold none, the both-empty policy decides (best values by default)
    assert boundary_scores(run, ref, names, conventions={"min_lesion_size": 100}).tolist() == [0, 0, 1, 0, 1]


@pytest.mark.parametrize("value, message", [  # the command names the option once: "expected ...", not the parameter
    ("2.5", r"size: a number of voxels is a whole number, got 2\.5"), ("-1", "size: expected a number of voxels"),
    ("2e12mm3", r"size: expected from 0 to 1e\+09 mm3"), ("ten", "size: expected a number of voxels"),
    ("3 cm3", "size: expected a number")])
def test_a_bad_minimum_lesion_size_is_refused(value, message, tmp_path, capsys):
    from robustness.overlap.boundary import boundary_scores

    run, ref = _protruding()
    with pytest.raises(ValueError, match="min_lesion_size"):
        boundary_scores(run, ref, ["lesion_f1"], conventions={"min_lesion_size": value})
    code = run_main(["--boundary", "lesion_f1", "--min-lesion-size", value, "--out", str(tmp_path / "o")])
    line = one_line_error(capsys, code, r"argument --min-lesion-size: ", message)
    assert "min_lesion_size" not in line and "must be" not in line
    assert not (tmp_path / "o").exists()


def run_main(argv):
    return run(rank_convergence.main, argv + FAST + ["--no-figures"])


@pytest.mark.slow
def test_the_main_job_takes_a_minimum_lesion_size(tmp_path):
    import json

    import pandas as pd

    data = tmp_path / "data"
    for r in ("ann1", "ann2", "run1", "run2"):
        for k in range(3):
            run, ref = _protruding(fragment=r == "run1")
            mask = ref if r.startswith("ann") else run if r == "run1" else np.roll(ref, 1, axis=0)
            write_png(data / r / f"img{k}.png", mask.astype(np.uint8) * 255)
    boards = {}
    for size in (None, "2"):
        out = tmp_path / f"out{size}"
        extra = [] if size is None else ["--min-lesion-size", size]
        assert run_main(["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2", "--boundary",
                         "lesion_f1,lesion_hd95_pooled", "--out", str(out), *extra]) == 0
        board = pd.read_csv(out / "metric_leaderboard.csv")
        boards[size] = board[(board.metric == "lesion_f1") & (board.run == "run1")].value.iloc[0]
        meta = json.loads((out / "meta.json").read_text())
        assert meta["options"]["min_lesion_size"] == ("0 voxels" if size is None else "2 voxels")
    assert boards[None] == pytest.approx(2 / 3) and boards["2"] == 1.0


# -- item 15: the lesions' sizes without a 64-bit copy of the labels -----------------------------------------------

def test_lesion_sizes_take_no_copy_of_the_labels():
    """np.bincount(labels.ravel()) made a 64-bit copy of the labels' box: 12 bytes a voxel at the peak (1.1 GB when
    lesions span a KiTS scan), half the lesion metrics' time. The labels themselves take 4 bytes a voxel."""
    import tracemalloc

    from robustness.overlap.boundary import crop
    from robustness.overlap.lesions import lesions_of

    vol = np.zeros((32, 256, 256), bool)
    vol.reshape(-1)[np.random.default_rng(0).integers(0, vol.size, 1000)] = True
    vol[0, 0, 0] = vol[-1, -1, -1] = True  # lesions span the volume: the box is all of it
    box, inside, _, planar = crop(vol)
    lesions_of(box, inside, planar)  # compiled
    tracemalloc.start()
    try:
        found = lesions_of(box, inside, planar)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found.sizes.sum() == np.count_nonzero(vol) and found.n == found.sizes.size
    assert peak / vol.size < 6, f"{peak / vol.size:.1f} bytes per voxel"


# -- item 12: every stage of a long job says how far it is -----------------------------------------------------------

def _seen_lines(monkeypatch, module, name):
    """Wrap ``module.name`` so that every call records the status line at that moment."""
    from robustness import progress

    seen, original = [], getattr(module, name)

    def spy(*args, **kw):
        out = original(*args, **kw)
        seen.append(progress._STATE.line())
        return out

    monkeypatch.setattr(module, name, spy)
    return seen


def test_the_pixel_pass_counts_within_an_image(monkeypatch, tmp_path):
    """One 3D image took minutes and the line said "pixel pass: 0/2 images (0%)" throughout: the count now moves
    while an image's boundary and lesion metrics are computed, and reaches the whole image when it is done."""
    import robustness.overlap.boundary as boundary
    from robustness import progress
    from robustness.overlap import compute_overlap

    data = tmp_path / "data"
    for r in ("ann1", "ann2", "run1", "run2", "run3"):
        for k in range(2):
            run_mask, ref = _protruding(fragment=r == "run1")
            write_png(data / r / f"img{k}.png", (ref if r.startswith("ann") else run_mask).astype(np.uint8) * 255)
    ch = load_raters(data, gold=["ann1", "ann2"])
    seen = _seen_lines(monkeypatch, boundary, "lesion_matrix")
    with progress.feedback(True, every=1e6, stream=io.StringIO()):
        compute_overlap(ch, strategies=["majority"], boundary=("lesion_f1", "hd95"), progress=True)
    counts = [float(re.search(r"pixel pass: ([0-9.]+)/2 images", line).group(1)) for line in seen]
    assert len(counts) == 2 and 0 < counts[0] < 1 < counts[1] < 2, seen


@pytest.mark.slow
def test_the_distance_to_unlimited_data_counts_its_resamples(monkeypatch):
    import robustness.statistics.uncertainty as uncertainty
    from robustness import progress
    from robustness.overlap import compute_overlap
    from robustness.statistics.count_schemes import schemes_from_counts
    from robustness.synthetic.challenge import make_challenge

    oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    seen = _seen_lines(monkeypatch, uncertainty, "_outer_batch")
    with progress.feedback(True, every=1e6, stream=io.StringIO()):
        uncertainty.ranking_uncertainty(schemes_from_counts(oc, unit="encounter"), n_resamples=30, rng=0,
                                        progress=True)
    assert [re.sub(r"^\[\d+ s\] ", "", line) for line in seen] == [
        "distance to unlimited data: 1/33 steps (3%)", "distance to unlimited data: 11/33 steps (33%)",
        "distance to unlimited data: 21/33 steps (64%)"], seen


def test_the_table_study_names_its_stages_and_counts(monkeypatch, tmp_path):
    import pandas as pd

    import robustness.studies.table_ranks as table
    from experiments import table_rank_convergence
    from robustness import progress

    rng = np.random.default_rng(1)
    rows = [{"case": c, "algorithm": f"A{a}", "value": rng.random(), "task": t}
            for t in ("T1", "T2") for c in range(8) for a in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    seen = _seen_lines(monkeypatch, table, "bootstrap_task_ranks")
    monkeypatch.setattr(progress, "EVERY", 1e6)
    assert run(table_rank_convergence.main, ["--table", str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"),
                                             "--orders", "3", "--bootstrap", "20", "--outer", "4",
                                             "--no-figures"]) == 0
    assert seen and all(re.search(r"\] rank bootstrap: \d/\d+ leaderboards", line) for line in seen), seen
    assert "starting" not in " ".join(seen)


# -- item 7: numbers at the edge of the floats --------------------------------------------------------------------

def _table_csv(tmp_path, scale=1.0, tasks=("T1", "T2")):
    import pandas as pd

    rng = np.random.default_rng(3)
    rows = [{"case": c, "algorithm": f"A{a}", "value": (rng.random() + a / 4) * scale, "task": t}
            for t in tasks for c in range(10) for a in range(3)]
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_huge_task_weights_are_refused_and_the_library_keeps_the_consensus(tmp_path, capsys):
    import pandas as pd

    from experiments import table_rank_convergence
    from robustness.statistics.consensus import consensus

    code = run(table_rank_convergence.main, ["--table", str(_table_csv(tmp_path)), "--task-weights",
                                             "T1=1e308,T2=1e308", "--out", str(tmp_path / "o"), *FAST])
    one_line_error(capsys, code, r"argument --task-weights: .*at most 1e\+06")
    assert not (tmp_path / "o").exists()
    ranking = pd.DataFrame({"task": ["T1"] * 3 + ["T2"] * 3, "run": list("abc") * 2, "rank": [1, 2, 3, 1, 3, 2],
                            "ranking": "aggregate"})
    with pytest.raises(ValueError, match=r"weights .* finite"):
        consensus(ranking, weights={"T1": 1e308, "T2": 1e308})
    assert consensus(ranking, weights={"T1": 1e6, "T2": 1e6}).run.tolist()[0] == "a"


def test_bca_bounds_at_scores_near_the_largest_accepted(tmp_path):
    """Scores near 1e149 (inside the +-1e150 bound of per-case tables) made BCa's acceleration overflow (cubes):
    every BCa bound was empty. The acceleration does not depend on the scale: it is computed on scaled values."""
    import pandas as pd

    from experiments import table_rank_convergence
    from robustness.statistics.inference import bootstrap_interval

    rng = np.random.default_rng(0)
    dist, jack = rng.normal(1.0, 0.1, (2, 200)), rng.normal(1.0, 0.01, (2, 30))
    est = np.array([1.0, 1.02])
    low, high = bootstrap_interval(est, dist, jack, method="bca")
    big_low, big_high = bootstrap_interval(est * 1e149, dist * 1e149, jack * 1e149, method="bca")
    assert np.all(np.isfinite(big_low)) and np.all(np.isfinite(big_high))
    np.testing.assert_allclose(big_low / 1e149, low, rtol=1e-12)
    np.testing.assert_allclose(big_high / 1e149, high, rtol=1e-12)
    out = tmp_path / "o"
    assert run(table_rank_convergence.main, ["--table", str(_table_csv(tmp_path, 1e149, ("T1",))), "--out",
                                             str(out), *FAST, "--no-figures"]) == 0
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    bca = ci[(ci.method == "bca") & (ci.ranking == "aggregate")]
    assert len(bca) and np.isfinite(bca[["low", "high"]].to_numpy()).all()


@pytest.mark.parametrize("value", ["1e308", "1e7"])
def test_an_empty_distance_beyond_the_bound_is_refused(value, tmp_path, capsys):
    from robustness.overlap.boundary import conventions

    code = run_main(["--boundary", "hd95", "--empty-distance", value, "--out", str(tmp_path / "o")])
    one_line_error(capsys, code, r"argument --empty-distance: .*at most 1e\+06")
    with pytest.raises(ValueError, match=r"empty_distance .*at most 1e\+06"):
        conventions(empty_distance=float(value))
    assert conventions(empty_distance=1e6)["empty_distance"] == 1e6


@pytest.mark.slow
def test_a_run_without_spread_gets_an_interval_and_the_caption_says_which(tmp_path):
    """A run equal to the gold on every image (HD95 0 everywhere) has a standard error of 0: the studentized
    interval is undefined there and showed [nan, nan] without a word. Its interval is the percentile bootstrap's
    ([0, 0]: every resampled test set gives 0), and the caption names the run."""
    import pandas as pd

    data = tmp_path / "data"
    rng = np.random.default_rng(2)
    for k in range(8):
        ref = np.zeros((24, 24), bool)
        ref[4:14, 5:12 + k % 3] = True
        for r in ("ann1", "ann2", "exact"):
            write_png(data / r / f"img{k}.png", ref.astype(np.uint8) * 255)
        for r in ("off1", "off2"):
            write_png(data / r / f"img{k}.png", np.roll(ref, int(rng.integers(1, 3)), axis=1).astype(np.uint8) * 255)
    out = tmp_path / "o"
    assert run_main(["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2", "--boundary", "hd95",
                     "--primary", "majority:hd95:macro", "--out", str(out)]) == 0
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    row = ci[(ci.reported) & (ci.metric == "hd95") & (ci.strategy == "majority") & (ci.run == "exact")].iloc[0]
    assert (row.low, row.high, row.method) == (0.0, 0.0, "percentile")
    summary = (out / "summary.md").read_text()
    assert "nan" not in summary.split("## Leaderboard", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"percentile bootstrap for exact \(its standard error is 0", summary), summary


# -- item 8: --top K where runs tie at the cut -------------------------------------------------------------------

@pytest.mark.slow
def test_top_k_keeps_the_runs_tied_at_the_cut(tmp_path):
    import pandas as pd

    from experiments import table_rank_convergence
    from robustness.statistics.case_rankings import top

    def board(ranks):
        return pd.DataFrame({"task": "T", "ranking": "aggregate", "run": [f"r{k}" for k in range(len(ranks))],
                             "rank": ranks})

    assert top(board([1.5, 1.5, 3.0]), 1).run.tolist() == ["r0", "r1"]  # average ties: 1.5 was above the cut
    assert top(board([1.0, 2.5, 2.5, 4.0]), 2).run.tolist() == ["r0", "r1", "r2"]
    assert top(board([1.0, 1.0, 3.0]), 2).run.tolist() == ["r0", "r1"]  # min ties
    assert top(board([1.0, 2.0, 3.0]), 2).run.tolist() == ["r0", "r1"]
    rows = [{"case": c, "algorithm": a, "value": v} for c in range(6)
            for a, v in (("A", 0.9), ("B", 0.9), ("C", 0.5 + 0.01 * c))]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "o"
    assert run(table_rank_convergence.main, ["--table", str(tmp_path / "t.csv"), "--top", "1", "--out", str(out),
                                             *FAST, "--no-figures"]) == 0
    listed = pd.read_csv(out / "top.csv")
    assert sorted(listed[listed.ranking == "aggregate"].run) == ["A", "B"]
    assert "A (1.5), B (1.5)" in (out / "summary.md").read_text()


# -- item 9: a results folder's tables are checked against meta.json before a rebuild ------------------------------

@pytest.fixture(scope="module")
def table_results(tmp_path_factory):
    import pandas as pd

    root = tmp_path_factory.mktemp("results9")
    rng = np.random.default_rng(0)
    rows = [{"case": c, "algorithm": f"A{a}", "value": float(rng.random() + 0.1 * a)} for c in range(8)
            for a in range(4)]
    pd.DataFrame(rows).to_csv(root / "t.csv", index=False)
    out = root / "out"
    from experiments import table_rank_convergence

    assert run(table_rank_convergence.main, ["--table", str(root / "t.csv"), "--out", str(out), *FAST]) == 0
    return out


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncate", "edit", "remove", "figure"])
def test_a_damaged_table_is_refused_before_a_rebuild(table_results, tmp_path, capsys, damage):
    import shutil

    from experiments import report

    folder = tmp_path / "copy"
    shutil.copytree(table_results, folder)
    before = (folder / "summary.md").read_bytes()
    table = folder / "ranking.csv"
    if damage == "truncate":  # cut short in the middle of a row, as a full disk or an interrupted copy leaves it
        table.write_bytes(table.read_bytes()[: len(table.read_bytes()) // 2])
    elif damage == "edit":  # the same size, one digit changed
        data = bytearray(table.read_bytes())
        k = next(i for i in range(len(data) - 1, 0, -1) if chr(data[i]).isdigit() and data[i] != ord("9"))
        data[k] += 1
        table.write_bytes(bytes(data))
    elif damage == "remove":
        table.unlink()
    else:
        figure = next((folder / "figures").glob("*.png"))
        figure.write_bytes(figure.read_bytes()[:100])
        table = figure
    code = run(report.main, [str(folder)])
    if damage == "remove":  # the report's own reading says it first
        one_line_error(capsys, code, re.escape(str(table)) + r": table not found")
    else:
        one_line_error(capsys, code, re.escape(str(table)) + r": not the file the study wrote", r"run the study again")
    assert (folder / "summary.md").read_bytes() == before  # nothing rebuilt from it


@pytest.mark.slow
def test_an_intact_folder_rebuilds_and_an_old_one_says_it_is_not_checked(table_results, tmp_path, capsys):
    import json
    import shutil

    from experiments import report

    folder = tmp_path / "copy"
    shutil.copytree(table_results, folder)
    meta = json.loads((folder / "meta.json").read_text())
    assert {"ranking.csv", "verdicts.csv"} <= set(meta["checksums"])
    assert any(name.startswith("figures/") for name in meta["checksums"])
    assert "summary.md" not in meta["checksums"]  # what a rebuild writes is not an input of it
    assert run(report.main, [str(folder), "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err
    del meta["checksums"]  # a folder written before the checksums
    (folder / "meta.json").write_text(json.dumps(meta))
    assert run(report.main, [str(folder), "--quiet"]) == 0
    assert "meta.json records no checksums of its tables" in capsys.readouterr().err


# -- item 11: direction controls, long option values, signed and huge sizes in words ------------------------------

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "evil\u202egpj.exe" shows as "evilexe.jpg"


@pytest.mark.slow
def test_direction_controls_are_escaped_in_every_medium(tmp_path):
    import pandas as pd

    from experiments import table_rank_convergence
    from robustness.results.study_result import read_table

    names = [f"evil{RLO}gpj.exe", "plain", "other\u2066isolate\u2069"]
    rng = np.random.default_rng(4)
    rows = [{"case": c, "algorithm": a, "value": rng.random() + 0.2 * k, "task": f"T{RLO}1"}
            for c in range(8) for k, a in enumerate(names)]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "o"
    assert run(table_rank_convergence.main, ["--table", str(tmp_path / "t.csv"), "--out", str(out), *FAST]) == 0
    controls = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
    for path in [out / "summary.md", out / "report.html", *out.glob("*.csv")]:
        text = path.read_text(encoding="utf-8")
        assert not controls.search(text), path.name
    summary = (out / "summary.md").read_text()
    assert "evil\\u202egpj.exe" in summary and "evil\\u202egpj.exe" in (out / "report.html").read_text()
    # the package reads its tables back with the names as they were
    assert set(read_table(out / "ranking.csv").run) == set(names)


def test_direction_controls_are_escaped_in_figures_and_messages():
    from robustness.errors import shown
    from robustness.results.escape import figure_text

    assert figure_text(f"a{RLO}b") == "a\\u202eb" and shown(f"a{RLO}b") == "a\\u202eb"


@pytest.mark.parametrize("option", ["--primary", "--boundary", "--ranking", "--unit", "--out"])
def test_a_huge_option_value_gives_one_line_of_at_most_2000_characters(option, capsys):
    code = run(rank_convergence.main, [option, "x" * 5000])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err[:500]
    assert len(lines[0]) <= 2000, len(lines[0])


def test_the_design_warning_says_sizes_in_words():
    import pandas as pd

    from robustness.studies.design import _answer_warnings

    def rec(design, real_high):
        main = pd.DataFrame([{"strategy": "majority", "average": "micro", "units_needed_point": 900.0,
                              "units_needed_low": 700.0, "units_needed": real_high, "beyond": False,
                              "already": False, "largest_size": 1e308}])
        sizes = pd.DataFrame([{"strategy": "majority", "average": "micro", "encounters_for_l1": design,
                               "encounters_for_l1_optimistic": design, "encounters_for_l1_conservative": design,
                               "largest_size": 64.0}])
        return {"main_answer": main, "sizes": sizes}

    said = " ".join(_answer_warnings(rec(-2.0, 1e308), None, "volume"))
    assert "-2" not in said and "at most 2" in said, said
    assert not re.search(r"\d{10}", said), said  # 1e308 was printed as a 309-digit integer
    assert "1e+308" in said or "more than" in said, said


# -- item 5: a long name is shortened for a figure, whole in the tables ----------------------------------------------

@pytest.mark.slow
def test_a_long_name_is_shortened_in_figures_and_whole_in_the_tables(tmp_path, capsys):
    import pandas as pd
    from PIL import Image

    from experiments import table_rank_convergence

    long = "A" * 150 + "_team_" + "B" * 144 + "_end"
    rng = np.random.default_rng(0)
    rows = [{"case": c, "algorithm": a, "value": rng.random() + 0.1 * k} for c in range(10)
            for k, a in enumerate([long, "B1", "C2"])]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "o"
    assert run(table_rank_convergence.main, ["--table", str(tmp_path / "t.csv"), "--out", str(out), *FAST]) == 0
    err = capsys.readouterr().err
    assert "UserWarning" not in err and "constrained_layout" not in err, err
    assert long in set(pd.read_csv(out / "ranking.csv").run) and long in (out / "summary.md").read_text()
    sizes = {p.name: Image.open(p).size for p in (out / "figures").glob("*.png")}
    assert sizes and max(max(s) for s in sizes.values()) < 1000, sizes  # the suite draws at 50 dpi


# -- item 13: figures -------------------------------------------------------------------------------------------

@pytest.fixture
def drawn(monkeypatch):
    """Every figure a figure module saves, kept open (its artists) instead of written."""
    import figures

    kept = []

    def keep(fig, out_path):
        kept.append(fig)
        return []

    monkeypatch.setattr(figures, "save", keep)
    return kept


@pytest.fixture(scope="module")
def hd95_results(tmp_path_factory):
    """The main job on written 3D NIfTI volumes (spacing 3 x 0.8 x 0.8 mm) with HD95 as the headline."""
    from robustness.synthetic.volumes import VolumeConfig, write_volume_challenge

    root = tmp_path_factory.mktemp("hd95")
    write_volume_challenge(root / "data", VolumeConfig(n_volumes=6, shape=(6, 20, 20), labels=1), rng=0)
    out = root / "out"
    assert run(rank_convergence.main, ["--layout", "raters", "--data", str(root / "data"), "--gold", "ann1,ann2,ann3",
                                       "--boundary", "hd95", "--primary", "majority:hd95:macro", "--out", str(out),
                                       *FAST, "--no-figures"]) == 0
    return out


@pytest.mark.slow
def test_the_forest_plot_names_its_interval_once_and_distances_carry_their_unit(hd95_results, drawn, tmp_path):
    from figures import fig_04_forest

    fig_04_forest.make(hd95_results, tmp_path / "f")
    (ax,) = drawn[0].axes
    assert ax.get_xlabel() == "macro hd95 (mm), smaller is better"
    assert drawn[0].get_supxlabel().startswith("95% CI: ")
    # micro and macro side by side (a Jaccard headline): one line under each panel, the interval said once below,
    # and the two panels' labels apart (their second lines ran into each other)
    drawn.clear()
    fig_04_forest.make(hd95_results, tmp_path / "g", primary=_scheme("majority:jaccard:micro"))
    fig = drawn[0]
    fig.canvas.draw()
    labels = [ax.xaxis.label for ax in fig.axes]
    assert len(labels) == 2 and all("\n" not in t.get_text() for t in labels)
    first, second = (t.get_window_extent() for t in labels)
    assert first.x1 < second.x0


def _scheme(text):
    from robustness.scheme import Scheme

    return Scheme(*text.split(":"))


@pytest.mark.slow
def test_distances_in_pixels_for_plain_images_and_per_case_axes_carry_the_unit(hd95_results, drawn, tmp_path):
    import json

    from figures import distance_unit, fig_20_dot_box, value_label

    assert value_label(hd95_results, "majority / hd95") == "hd95 (mm)"
    assert value_label(hd95_results, "majority / jaccard") == "score"
    (tmp_path / "meta.json").write_text(json.dumps({"study": "rank_convergence", "input": {}, "files": []}))
    assert distance_unit(tmp_path) == "pixels"  # images without a spacing (PNG, TIFF)
    (tmp_path / "meta.json").write_text(json.dumps({"study": "table_rank_convergence", "files": []}))
    assert distance_unit(tmp_path) is None and value_label(tmp_path, "T / hd95") == "score"  # a table's own units
    fig_20_dot_box.make(hd95_results, tmp_path / "f")
    assert drawn[0].axes[0].get_ylabel() == "hd95 (mm)"


def test_the_rank_frequency_colour_bar_says_the_study_s_tie_rule(tmp_path, drawn, monkeypatch):
    import figures
    from experiments import table_rank_convergence

    monkeypatch.setitem(figures.FIGURES, "table_rank_convergence", ("fig_21_rank_frequency",))
    out = tmp_path / "o"
    assert run(table_rank_convergence.main, ["--table", str(_table_csv(tmp_path, tasks=("T1",))), "--preset",
                                             "challenger", "--out", str(out), *FAST]) == 0
    bar = drawn[0].axes[-1]  # the colour bar's axes
    assert bar.get_ylabel() == "rank (tied runs: the best of their places)", bar.get_ylabel()


def test_the_tau_densities_give_every_task_a_row_of_its_own(drawn, tmp_path):
    import pandas as pd

    from figures import fig_29_bootstrap_tau_density

    rng = np.random.default_rng(0)
    taus = pd.concat([pd.DataFrame({"task": "noisy", "ranking": "aggregate", "resample": range(200),
                                    "tau": rng.choice([-0.33, 0.0, 0.33, 0.67, 1.0], 200)}),
                      pd.DataFrame({"task": "clear", "ranking": "aggregate", "resample": range(200), "tau": 1.0}),
                      pd.DataFrame({"task": "middle", "ranking": "aggregate", "resample": range(200),
                                    "tau": np.where(rng.random(200) < 0.97, 1.0, 0.67)})])
    taus.to_csv(tmp_path / "rank_bootstrap_tau.csv", index=False)
    fig_29_bootstrap_tau_density.make(tmp_path, tmp_path / "f")
    (ax,) = drawn[0].axes
    assert [t.get_text().split(" (")[0] for t in ax.get_yticklabels()] == ["noisy", "clear", "middle"]
    rows = {}  # the vertical extent of each task's drawing: no two overlap
    for artist in ax.lines + ax.collections:
        ys = (artist.get_ydata() if hasattr(artist, "get_ydata") else
              np.concatenate([p.vertices[:, 1] for p in artist.get_paths()]))
        if len(ys) and np.ptp(ys) > 0:
            rows.setdefault(int(np.floor(np.min(ys) + 1e-9)), []).append((np.min(ys), np.max(ys)))
    assert sorted(rows) == [0, 1, 2]
    assert all(hi < k + 1 for k, spans in rows.items() for _, hi in spans)


@pytest.mark.slow
def test_the_leaderboard_interval_column_names_the_headline_scheme(hd95_results):
    summary = (hd95_results / "summary.md").read_text()
    board = summary.split("## Leaderboard", 1)[1].split("\n## ", 1)[0]
    assert "| majority hd95 macro 95% CI |" in board, board


def test_prose_breaks_long_words_so_no_report_is_wider_than_a_phone():
    """The design report was 440 px wide at 400: a 49-character name of a function in a paragraph (measured in
    headless Chromium, tests/browser; 400 px after). Tables scroll in their wrapper; prose breaks long words."""
    from robustness.reporting.document import _CSS

    rule = re.search(r"([a-z0-9,]+)\{overflow-wrap:anywhere\}", _CSS)
    assert rule and {"p", "li", "figcaption", "h2"} <= set(rule.group(1).split(","))


# -- item 6: Ctrl-C during the lesion metrics ---------------------------------------------------------------------

@pytest.mark.slow
def test_ctrl_c_during_the_lesion_metrics_stops_the_job(tmp_path):
    """Ctrl-C (SIGINT to the job's process group, as a terminal sends it) while the pixel pass computes lesion-wise
    metrics of 3D volumes: one line ``interrupted``, exit status 130, no results, no traceback (the command exits
    without joining its workers' threads, where a second interrupt printed one). (A job started in the background of
    a non-interactive shell, ``cmd &``, inherits SIGINT ignored, as POSIX shells set it: Python then never sees
    Ctrl-C, in any stage; the hostile round's report matches that.)"""
    import os
    import signal
    import subprocess
    import sys
    import time

    sitk = pytest.importorskip("SimpleITK")
    from scipy import ndimage

    rng = np.random.default_rng(0)
    data = tmp_path / "data"
    for v in range(4):  # enough work that the pass lasts well past the signal on a fast machine
        base = ndimage.gaussian_filter(rng.random((96, 128, 128)), 2) > 0.53  # many lesions of every size
        for r in ("ann1", "ann2", "run1", "run2", "run3"):
            (data / r).mkdir(parents=True, exist_ok=True)
            img = sitk.GetImageFromArray((base ^ (rng.random(base.shape) < 0.002)).astype(np.uint8))
            sitk.WriteImage(img, str(data / r / f"case{v}.nii.gz"))
    out = tmp_path / "out"

    proc = subprocess.Popen([sys.executable, "-m", "experiments.rank_convergence", "--layout", "raters", "--data",
                             str(data), "--gold", "ann1,ann2", "--boundary", "lesion_hd95,lesion_f1", "--out",
                             str(out), *FAST, "--no-figures", "--n-jobs", "2"],
                            cwd=Path(__file__).resolve().parents[1], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=as_a_terminal_job)
    # the pass over the volumes runs its first batch in the job's process, then forks the workers (the first
    # children of the process) for the others, and writes the folder's cache when it ends: the signal comes once
    # the workers exist, while the cache is not yet written (about 9 s of pass here)
    wait_for_workers(proc)
    time.sleep(0.5)  # the workers at work on the lesion metrics
    assert proc.poll() is None, proc.communicate()
    assert not (out / "cache").exists(), "the pass ended before the signal: give it more work"
    os.killpg(proc.pid, signal.SIGINT)
    stopped = time.time()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "interrupted", err
    assert "Traceback" not in err, err
    assert time.time() - stopped < 10 and not (out / "meta.json").exists()
