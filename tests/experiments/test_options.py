"""Every bad option is refused before any work or write: one line ``error: ...``, exit status 2, no code reprs."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest

from experiments import (
    qa_rank_convergence,
    qa_score,
    rank_convergence,
    score,
    synthetic_summary,
    table_rank_convergence,
)
from experiments._cli import run
from tests.conftest import REPO, tree_digest

CODE = re.compile(r"np\.\w+\(|\(scheme |=\s*'|Traceback|binarize to|missing='")


def refused(main, argv, capsys, match):
    """``main`` refuses ``argv`` with exit status 2 and one line ``error: ...`` matching ``match``."""
    assert run(main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert err.startswith("error: "), err
    assert re.search(match, err), err
    assert not CODE.search(err), err
    return err


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    root = tmp_path_factory.mktemp("options")
    return write_dermavqa(make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=2), root / "ch")


@pytest.fixture(scope="module")
def complete(tiny):
    """A folder holding complete results (so a refusal must leave it intact)."""
    out = tiny.parent / "out"
    assert rank_convergence.main(["--data", str(tiny), "--out", str(out), "--orders", "3", "--bootstrap", "5", "--outer", "4",
                                  "--quiet", "--no-figures"]) == 0
    return out


@pytest.mark.parametrize("option,match", [
    (["--strategies", "majorty"], r"argument --strategies: unknown gold strategy 'majorty'; choose from"),
    (["--strategies", ","], r"argument --strategies: no gold strategy given"),
    (["--strategies", "rand9"], r"argument --strategies: random strategies must be rand1\.\.randN without gaps"),
    (["--orders", "0"], r"argument --orders: must be an integer in 1\.\.10000, got '0'"),
    (["--bootstrap", "-3"], r"argument --bootstrap: must be an integer in 1\.\.20000, got '-3'"),
    (["--step", "0"], r"argument --step: must be an integer in 1\.\.1000000"),
    (["--n-jobs", "0"], r"argument --n-jobs: must be an integer in 1\.\.\d+"),
    (["--seed", "-1"], r"argument --seed: must be an integer >= 0"),
    (["--tolerance", "-1"], r"argument --tolerance: must be a number >= 0"),
    (["--tolerance", "inf"], r"argument --tolerance: must be a number >= 0"),
    (["--synthetic-seed", "x"], r"argument --synthetic-seed: must be an integer >= 0, got 'x'"),
    (["--synthetic-depth", "0"], r"argument --synthetic-depth: must be an integer >= 1, got '0'"),
    (["--synthetic-spacing", "2,1"], r"argument --synthetic-spacing: expected three positive voxel sizes z,y,x in mm"),
    (["--synthetic-spacing", "2,1,1"], r"--synthetic-spacing sets the voxels of a 3D synthetic challenge: give "
                                       r"--synthetic-depth"),
    (["--synthetic-depth", "4"], r"--synthetic-depth makes the embedded synthetic challenge 3D: it does not apply "
                                 r"to --data"),
    (["--foreground", "256"], r"argument --foreground: must be an integer in 0\.\.255"),
    (["--step", "1000"], r"--step 1000 leaves fewer than 2 recorded prefixes of the 9 images"),
    (["--layout", "raters"], r"--layout raters needs --data FOLDER and --gold R1,R2,\.\."),
    (["--binarize", "--threshold", "9"], r"--binarize and --threshold"),
])
@pytest.mark.slow
def test_bad_study_options_leave_previous_results_intact(tiny, complete, capsys, option, match):
    before = tree_digest(complete)
    data = [] if "--layout" in option else ["--data", str(tiny)]
    refused(rank_convergence.main, data + ["--out", str(complete), "--quiet"] + option, capsys, match)
    assert tree_digest(complete) == before


def test_out_under_a_regular_file_and_unwritable(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    refused(rank_convergence.main, ["--out", str(tmp_path / "file" / "out")], capsys,
            r"argument --out: .*file/out: cannot be created: .*file is not a folder")
    refused(score.main, ["--out", str(tmp_path / "file")], capsys, r"file: exists and is not a folder")
    probe = "/sys/kernel/robustness-out"  # root may write anywhere but here
    try:
        import os

        os.mkdir(probe)
        os.rmdir(probe)
        pytest.skip("no unwritable folder on this machine")
    except OSError:
        pass
    refused(rank_convergence.main, ["--out", probe, "--orders", "2", "--bootstrap", "2", "--outer", "4", "--quiet"], capsys,
            r"robustness-out: cannot create the output folder \(")


def test_unreachable_scheduler_fails_fast(capsys):
    import time

    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    refused(rank_convergence.main, ["--scheduler", f"tcp://127.0.0.1:{port}", "--quiet"], capsys,
            rf"argument --scheduler: no Dask scheduler answers at tcp://127\.0\.0\.1:{port}")
    assert time.perf_counter() - t0 < 10


def test_every_command_uses_the_same_convention(tmp_path, capsys):
    refused(score.main, ["--out", str(tmp_path / "o"), "--n-jobs", "0"], capsys, r"--n-jobs: must be an integer in 1\.\.")
    refused(synthetic_summary.main, ["--n-jobs", "-2"], capsys, r"--n-jobs: must be an integer in 1\.\.")
    refused(qa_score.main, ["--gold", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")], capsys,
            r"nope\.json: file not found")
    refused(qa_rank_convergence.main, ["--orders", "0"], capsys, r"--orders: must be an integer in 1\.\.")
    refused(table_rank_convergence.main, ["--table", str(tmp_path / "t.csv"), "--bootstrap", "0", "--outer", "4"], capsys,
            r"--bootstrap: must be an integer in 1\.\.")


@pytest.mark.slow
def test_a_study_needs_two_runs(tiny_dermavqa, tmp_path, capsys):
    import shutil

    shutil.rmtree(tiny_dermavqa / "submissions" / "runB")
    refused(rank_convergence.main, ["--data", str(tiny_dermavqa), "--out", str(tmp_path / "o")], capsys,
            r"the input has 1 run\(s\): a ranking needs at least 2")
    assert score.main(["--data", str(tiny_dermavqa), "--out", str(tmp_path / "s"), "--quiet"]) == 0


def test_unknown_option_is_one_line_exit_2():
    proc = subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--ordres", "3"], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: unrecognized arguments: --ordres 3"


def test_help_shows_every_default():
    from experiments._types import cores

    text = rank_convergence.parser().format_help()
    flat = " ".join(text[text.index("options:"):].split())
    for option, default in (("--layout", "dermavqa"), ("--out DIR", "results/rank_convergence"),
                            ("--synthetic-size", "small"), ("--orders N", "200"),
                            ("--n-jobs N", f"the cores this process may use, here {cores()}"),
                            ("--missing-masks", "error"), ("--unit", "image")):
        i = flat.index(option + " ") if option + " " in flat else flat.index(option)
        assert "default" in flat[i:i + 260] and default in flat[i:i + 260], (option, flat[i:i + 260])
    score_help = score.parser().format_help()
    score_help = " ".join(score_help[score_help.index("options:"):].split())
    assert "--out DIR output folder (required" in score_help


@pytest.mark.parametrize("option, value, match", [
    ("--outer", "1", r"--outer: must be an integer in 2\.\.5000, got '1'"),
    ("--outer", "99999", r"--outer: must be an integer in 2\.\.5000"),
    ("--margin", "-0.1", r"--margin: must be a number in 0\.\.1, got '-0\.1'"),
    ("--margin", "nan", r"--margin: must be a number in 0\.\.1"),
    ("--run-groups", "teams", r"--run-groups: invalid choice: 'teams'"),
    ("--strategies", "majority,,staple", r"--strategies: an empty gold strategy in 'majority,,staple' \(two commas"),
    ("--strategies", "majority,", r"--strategies: an empty gold strategy in 'majority,'"),
    ("--boundary", "hd95,", r"--boundary: an empty boundary metric in 'hd95,'"),
])
def test_distance_options_are_refused_when_parsed(tmp_path, capsys, option, value, match):
    refused(rank_convergence.main, ["--out", str(tmp_path / "o"), option, value], capsys, match)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("module,old,new,value", [
    ("rank_convergence", "--systems", "--runs", "a,b"),
    ("score", "--systems", "--runs", "a,b"),
    ("design_study", "--systems", "--runs", "a,b"),
    ("rank_convergence", "--missing", "--missing-masks", "empty"),
    ("qa_score", "--runs", "--submissions", "answers"),
    ("qa_rank_convergence", "--missing", "--missing-answers", "not_mentioned"),
    ("table_rank_convergence", "--missing", "--missing-scores", "worst"),
])
def test_an_earlier_option_name_still_works_and_says_its_new_name(module, old, new, value, tmp_path, capsys):
    """One word per thing and one meaning per option name (run, not system; --missing-masks, -answers, -scores):
    the earlier names parse to the same value, with one warning line naming the new option."""
    import importlib

    (tmp_path / "gold.json").write_text("[]")
    (tmp_path / "t.csv").write_text("case,algorithm,value\n")
    needed = {"qa_score": ["--gold", str(tmp_path / "gold.json"), "--out", str(tmp_path / "o")],
              "score": ["--out", str(tmp_path / "o")],
              "table_rank_convergence": ["--table", str(tmp_path / "t.csv")]}.get(module, [])
    parser = importlib.import_module(f"experiments.{module}").parser()
    given_new = vars(parser.parse_known_args(needed + [new, value])[0])
    assert capsys.readouterr().err == ""
    given_old = vars(parser.parse_known_args(needed + [old, value])[0])
    assert given_old == given_new
    assert capsys.readouterr().err == f"warning: {old} is deprecated: use {new} (it takes the same values)\n"


def test_the_design_studys_grid_of_run_counts_is_n_runs():
    from experiments import design_study

    text = design_study.parser().format_help()
    assert "--n-runs R1,.." in text and "--runs R1,R2,.." in text  # counts, and the data option: the runs' names


@pytest.mark.parametrize("data", [
    ["--gold", "a,b", "--runs", "c,d", "--foreground", "0", "--background", "255", "--strict",
     "--missing-masks", "empty", "--skip-mismatched", "--skip-empty-folders"],
    ["--gold", "a b,c", "--labels", "1,2"],
    ["--gold", "a,b", "--labels", "all"],
    ["--gold", "a,b", "--regions", "WT=1,2", "X=7"],
    ["--gold", "a,b", "--threshold", "128"],
    ["--gold", "a,b", "--binarize"],
    ["--gold=-a,b", "--runs=-c"],  # values argparse would read as options unless joined to theirs
])
def test_the_data_options_a_report_prints_read_the_challenge_the_same_way(data):
    """The tokens the main job records for the design study's ``--like`` (its report prints them) parse, in the
    design study, to the options the main job was given: nothing dropped (--regions, --strict, --skip-*), nothing
    spelled as Python (a tuple of labels)."""
    import shlex

    from experiments import design_study
    from experiments import rank_convergence as main_job
    from experiments._options import DATA_FLAGS, data_tokens
    from robustness.reporting.sections.rank_convergence import design_command
    from robustness.results.study_result import StudyResult

    given = main_job.parser().parse_args(["--data", "/x y/ch", "--layout", "raters", *data])
    tokens = data_tokens(given)
    again = design_study.parser().parse_args(["--quick", "--like", "/x y/ch", "--layout", "raters", *tokens])
    assert {k: getattr(again, k) for k in DATA_FLAGS} == {k: getattr(given, k) for k in DATA_FLAGS}
    reading = {"layout": "raters", "folder": "/x y/ch", "data_options": tokens}
    meta = {"input": {"source": "/x y/ch", "images": 4, "encounters": 4, "runs": 2, "reading": reading},
            "bootstrap_unit": "image", "bootstrap_units": 4, "empty_policy": "one"}
    res = StudyResult("rank_convergence", tables={}, meta=meta)
    printed = shlex.split(design_command(res))  # as a shell reads the report's command
    assert printed[:3] == ["python", "-m", "experiments.design_study"]
    parsed = design_study.parser().parse_args(printed[3:])
    assert parsed.like == "/x y/ch" and {k: getattr(parsed, k) for k in DATA_FLAGS} == \
        {k: getattr(given, k) for k in DATA_FLAGS}


def test_a_python_callers_report_names_no_folder_it_does_not_know():
    """The library alone records no reading (a Python caller read the challenge): the design command names FOLDER
    and says what it is, rather than pointing at the synthetic generator; the embedded challenge's command (folder
    None) plans with the generator."""
    from robustness.reporting.sections.rank_convergence import _design_pointer, design_command
    from robustness.results.study_result import StudyResult

    meta = {"input": {"source": "the challenge", "images": 4, "encounters": 4, "runs": 2},
            "bootstrap_unit": "image", "bootstrap_units": 4, "empty_policy": "one"}
    python = StudyResult("rank_convergence", tables={}, meta=meta)
    assert design_command(python) == "python -m experiments.design_study --quick --like FOLDER"
    assert "FOLDER being this challenge's folder" in _design_pointer(python)
    def read(reading):
        return StudyResult("rank_convergence", tables={}, meta=meta | {"input": meta["input"] | {"reading": reading}})

    embedded = read({"layout": "dermavqa", "folder": None, "data_options": [], "synthetic": []})
    assert design_command(embedded) == "python -m experiments.design_study --quick"
    assert "FOLDER" not in _design_pointer(embedded)
    older = read({"layout": "dermavqa", "folder": None, "options": {}})  # a folder written before 2026-12-06
    assert design_command(older) == "python -m experiments.design_study --quick"
    shaped = read({"layout": "dermavqa", "folder": None, "data_options": [],
                   "synthetic": ["--synthetic-depth", "8", "--synthetic-spacing", "2,1,1"]})
    assert design_command(shaped) == ("python -m experiments.design_study --quick --synthetic-depth 8 "
                                      "--synthetic-spacing 2,1,1")
    files = read({"layout": "dermavqa", "folder": None, "data_options": [], "synthetic": None})  # --reference...
    assert design_command(files).endswith("--like FOLDER") and "FOLDER being" in _design_pointer(files)
    dashed = read({"layout": "raters", "folder": "-odd", "data_options": ["--gold=-a,b"]})
    assert design_command(dashed) == "python -m experiments.design_study --quick --like=-odd --layout raters --gold=-a,b"


def test_the_reading_records_the_synthetic_shape_and_no_folder_for_masks_given_apart():
    from experiments import rank_convergence as main_job
    from experiments._cli import reading

    p = main_job.parser()
    assert reading(p.parse_args([]))["synthetic"] == []
    shaped = reading(p.parse_args(["--synthetic-depth", "4", "--synthetic-spacing", "2.5,1,1"]))
    assert shaped["synthetic"] == ["--synthetic-depth", "4", "--synthetic-spacing", "2.5,1,1"]
    apart = reading(p.parse_args(["--reference", "/r", "--submissions", "/s"]))
    assert apart["folder"] is None and apart["synthetic"] is None
