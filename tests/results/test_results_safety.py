"""The results folder under hostile conditions (issue 17, items 8, 9, 10 and the full disk of 14).

A failed install leaves the earlier results whole; recovery touches only names the package creates, and only
after the input, the options and the ownership are checked; a refused run leaves nothing behind, not even
``OUT/.lock``; ``--out`` inside an input is refused when parsed; a full disk is one line.
"""

from __future__ import annotations

import errno
import os
import time

import pytest

from experiments import qa_score, rank_convergence, score, table_rank_convergence
from experiments._cli import run
from robustness.errors import InputError
from robustness.results.folder import ResultsDir, open_results
from tests.conftest import tree_digest
from tests.experiments.test_options import refused


def tables(out):
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and "cache" not in p.parts and p.name != ".lock"}


# -- item 8: a file where the results need a folder ---------------------------------------------------------------

def test_a_file_where_results_need_a_folder_is_refused_before_anything_is_replaced(tmp_path):
    out = tmp_path / "out"
    first = ResultsDir(out, fingerprint="A")
    first.write_text("orders.csv", "seed 0")
    first.finish({"seed": 0})
    (out / "figures").write_text("a plain file of the user's, named like the figures folder")
    before = tables(out)
    second = ResultsDir(out, fingerprint="A")
    second.write_text("orders.csv", "seed 5")
    second.write_text("bootstrap_ci.csv", "seed 5")
    second.write_text("figures/fig.png", "png")
    with pytest.raises(InputError, match=rf"^{out / 'figures'}: is a file where the results need a folder "
                                         r"\(figures/fig\.png\); remove it or choose another `publish\.out`$"):
        second.finish({"seed": 5})
    second._release()
    assert tables(out) == before  # meta.json and the seed-0 tables, whole
    assert open_results(out)[1]["seed"] == 0
    third = ResultsDir(out, fingerprint="A")  # a later run without figures is not blocked
    third.write_text("orders.csv", "seed 6")
    third.finish({"seed": 6})
    assert open_results(out)[1]["seed"] == 6 and (out / "figures").is_file()


@pytest.mark.slow
def test_a_file_where_results_need_a_folder_through_a_command(tiny_dermavqa, tmp_path, capsys):
    out = tmp_path / "out"
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--strategies", "staple",
                            "--quiet"]) == 0
    (out / "official").write_text("the user's notes")
    before = tables(out)
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {out / 'official'}: is a file where the results need a folder (official/runA.json); "
                   "remove it or choose another --out\n")
    assert tables(out) == before
    open_results(out)
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--strategies", "staple",
                            "--quiet"]) == 0


# -- item 9: recovery touches only the package's own names, after the ownership check -----------------------------

@pytest.fixture
def users_things(tmp_path):
    out = tmp_path / "out"
    done = ResultsDir(out, fingerprint="A")
    done.write_text("t.csv", "A's table")
    done.finish({})
    old = time.time() - 7200
    for name in (".commit-2024", ".staging-drafts", ".thesis.partial", ".staging-1"):
        (out / name).mkdir()
        (out / name / "chapter.tex").write_text("months of work")
        os.utime(out / name, (old, old))
    (out / ".notes.tmp").write_text("mine")
    os.utime(out / ".notes.tmp", (old, old))
    return out


def test_a_refused_run_touches_nothing(users_things):
    out = users_things
    before = tree_digest(out)
    with pytest.raises(InputError, match="output folder holds results of another input"):
        ResultsDir(out, fingerprint="B")
    assert tree_digest(out) == before


def test_recovery_never_deletes_a_users_folders(users_things):
    out = users_things
    keep = [".commit-2024", ".staging-drafts", ".thesis.partial", ".staging-1", ".notes.tmp"]
    forced = ResultsDir(out, fingerprint="B", force=True)
    forced.write_text("t.csv", "B's table")
    forced.finish({})
    for name in keep:
        assert (out / name).exists(), name
    assert (out / ".commit-2024" / "chapter.tex").read_text() == "months of work"
    assert open_results(out)[1]["files"] == ["t.csv"]  # a user's .commit-2024 is not an interrupted install


def test_a_killed_jobs_staging_and_commit_are_still_cleaned(tmp_path):
    from tests.results.test_results import killed

    out = tmp_path / "out"
    first = ResultsDir(out, fingerprint="A")
    first.write_text("t.csv", "x")
    killed(first)
    assert (out / f".staging-{os.getpid()}" / ".job").is_file()
    later = ResultsDir(out, fingerprint="A")
    later.finish({})
    assert not [p for p in out.iterdir() if p.name.startswith((".staging-", ".commit-"))]


# -- item 10: --out inside an input, and no .lock left by a refused run ----------------------------------------------

def test_refused_run_leaves_no_lock(tmp_path):
    out = tmp_path / "someone-elses"
    out.mkdir()
    (out / "thesis.pdf").write_text("not results")
    with pytest.raises(InputError, match="output folder holds results of another input"):
        ResultsDir(out, fingerprint="A")
    assert sorted(p.name for p in out.iterdir()) == ["thesis.pdf"]


def test_out_inside_the_input_is_refused_when_parsed(tiny_dermavqa, tmp_path, capsys):
    before = tree_digest(tiny_dermavqa)
    for out in (tiny_dermavqa / "results", tiny_dermavqa / "submissions" / "res", tiny_dermavqa):
        err = refused(score.main, ["--data", str(tiny_dermavqa), "--out", str(out)], capsys,
                      r"lies inside the input folder --data")
        assert err == (f"error: --out {out} lies inside the input folder --data {tiny_dermavqa}: nothing is ever "
                       "written into an input; choose another --out")
    refused(rank_convergence.main, ["--reference", str(tiny_dermavqa / "reference"), "--submissions",
                                    str(tiny_dermavqa / "submissions"), "--out",
                                    str(tiny_dermavqa / "submissions" / "x")], capsys,
            r"lies inside the input folder --submissions")
    assert tree_digest(tiny_dermavqa) == before


def test_out_inside_a_raters_folder_is_refused(tmp_path, capsys):
    from tests.conftest import write_png
    from tests.io.test_decoding import MASK

    root = tmp_path / "raters"
    for r in ("a", "b", "run"):
        write_png(root / r / "x.png", MASK)
    before = tree_digest(root)
    refused(rank_convergence.main, ["--layout", "raters", "--data", str(root), "--gold", "a,b", "--out",
                                    str(root / "results")], capsys,
            rf"--out {root / 'results'} lies inside the input folder --data {root}")
    assert tree_digest(root) == before


def test_out_beside_qa_and_table_inputs_is_refused(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    gold = tmp_path / "gold.json"
    gold.write_text("[]")
    refused(qa_score.main, ["--gold", str(gold), "--submissions", str(runs), "--out", str(runs / "out")], capsys,
            r"lies inside the input folder --submissions")
    refused(qa_score.main, ["--gold", str(gold), "--submissions", str(runs), "--out", str(tmp_path)], capsys,
            rf"--out {tmp_path} is the folder holding --gold {gold}: results go to a folder of their own")
    table = tmp_path / "scores.csv"
    table.write_text("case,algorithm,value\n")
    refused(table_rank_convergence.main, ["--table", str(table), "--out", str(tmp_path)], capsys,
            r"is the folder holding --table")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.json", "runs", "scores.csv"]


# -- item 14: a full disk --------------------------------------------------------------------------------------------

def test_full_disk_is_one_line_and_keeps_earlier_results(tiny_dermavqa, tmp_path, capsys, monkeypatch):
    import robustness.files as files

    out = tmp_path / "out"
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 0
    before = tables(out)
    real, calls = files.os.fsync, []

    def full(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(files.os, "fsync", full)
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet", "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    assert err.endswith(": cannot write the file: no space left on device\n"), err
    monkeypatch.undo()
    assert tables(out) == before
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_full_disk_outside_atomic_writes_is_one_line(capsys):
    def main(argv):
        raise OSError(errno.ENOSPC, "No space left on device", "/results/figures/fig_02.png")

    assert run(main, []) == 2
    assert capsys.readouterr().err == ("error: /results/figures/fig_02.png: cannot write the results: no space left "
                                       "on device\n")
