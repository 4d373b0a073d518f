"""Hostile input (issue 17): STAPLE to convergence, bad gold flagged, nothing dropped, no hang, no traceback.

Items 5-7 and 11-15 of issue 17 (the decoders' items are in test_decoding.py, the results folder's in
test_results_safety.py). Every refusal is one line ``error: ...`` with exit status 2 and writes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from experiments import (
    design_study,
    qa_rank_convergence,
    qa_score,
    rank_convergence,
    score,
    table_rank_convergence,
)
from experiments._cli import run
from robustness.errors import InputError
from robustness.io import RaterOptions, load_dermavqa, load_raters
from tests.conftest import REPO, as_a_terminal_job, tree_digest, wait_for_workers, write_png
from tests.experiments.test_options import refused
from tests.io.test_warnings import everywhere

ARGS = ["--orders", "3", "--bootstrap", "5", "--outer", "4", "--quiet", "--no-figures"]


# -- item 5: STAPLE runs to convergence, and an image that does not converge is a warning --------------------------

#: Rater patterns of 6,821 pixels (3 raters) on which ITK's EM needs 4,186 iterations: capped at 1,000 the
#: STAPLE mask differs from the converged one in 259 pixels.
SLOW_HIST = [6139, 327, 45, 0, 214, 0, 85, 11]


@pytest.mark.slow
def test_staple_runs_to_convergence_and_equals_simpleitk_uncapped():
    import SimpleITK as sitk

    from robustness.overlap.staple import STAPLE_MAX_ITER, staple

    hist = np.array(SLOW_HIST)
    codes = np.repeat(np.arange(hist.size), hist)
    masks = [((codes >> j) & 1).astype(np.uint8).reshape(19, 359) for j in range(3)]
    f = sitk.STAPLEImageFilter()
    f.SetForegroundValue(1.0)
    ref = sitk.GetArrayFromImage(f.Execute([sitk.GetImageFromArray(m) for m in masks])) > 0.5
    assert f.GetElapsedIterations() > 4000  # SimpleITK, uncapped (its default)
    r = staple(hist)
    assert r.converged and r.iterations == f.GetElapsedIterations() + 1 and STAPLE_MAX_ITER >= 100_000
    np.testing.assert_array_equal(r.lut[codes].reshape(19, 359), ref)
    capped = staple(hist, max_iter=1000)  # the old cap: another mask
    assert not capped.converged and (capped.lut[codes].reshape(19, 359) != ref).sum() == 259


@pytest.mark.slow
@pytest.mark.parametrize("command", ["score", "rank_convergence"])
def test_unconverged_staple_is_a_warning_in_every_command(tiny_dermavqa, tmp_path, capsys, monkeypatch, command):
    from dataclasses import fields

    from robustness.overlap.pixel_pass import OverlapOptions

    # a cap real data would reach, as every command's pass options default to it
    capped = tuple(2 if f.name == "staple_max_iter" else d
                   for f, d in zip(fields(OverlapOptions), OverlapOptions.__init__.__defaults__))
    monkeypatch.setattr(OverlapOptions.__init__, "__defaults__", capped)
    main = {"score": score.main, "rank_convergence": rank_convergence.main}[command]
    out = tmp_path / "out"
    extra = ARGS if command == "rank_convergence" else ["--quiet"]
    assert run(main, ["--data", str(tiny_dermavqa), "--out", str(out)] + extra) == 0
    everywhere(out, capsys.readouterr().err, "image IMG_ENC00001_00001: staple did not converge within 2 EM "
                                             "iterations: its gold is the last iterate's")


# -- item 6: an annotation of another object ------------------------------------------------------------------------

def test_annotation_of_another_object_is_a_warning_naming_rater_and_image(tmp_path, capsys):
    root = tmp_path / "raters"
    rng = np.random.default_rng(4)
    for k in range(3):
        cell = np.zeros((30, 40), np.uint8)
        cell[5:15, 5:20] = 1
        for r in ("Person1", "Person2", "Person3", "Person4", "run", "run2"):
            m = cell.copy()
            m[rng.random(m.shape) < 0.02] ^= 1
            if r == "Person2" and k == 1:  # traced another cell
                m[:] = 0
                m[18:28, 22:38] = 1
            write_png(root / r / f"P{k}0.png", np.where(m == 1, 0, 255).astype(np.uint8))
    out = tmp_path / "out"
    assert run(score.main, ["--layout", "raters", "--data", str(root), "--gold", "Person1,Person2,Person3,Person4",
                            "--foreground", "0", "--background", "255", "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    everywhere(out, err, "annotator 'Person2' disagrees with every other annotator on 1 image(s): P10 (Jaccard at "
                         "most 0.0")
    everywhere(out, err, "; its mask has Jaccard below 0.1 with each of theirs while they agree with each other "
                         "(median Jaccard >= 0.5): a different object traced, or the file of another image?")
    assert err.count("disagrees with every other annotator") == 1


# -- item 7: nothing ignored without a word --------------------------------------------------------------------------

@pytest.fixture
def raters(tmp_path):
    root = tmp_path / "raters"
    rng = np.random.default_rng(2)
    for r in ("a", "b", "run1", "run2"):
        for k in range(2):
            write_png(root / r / f"s{k}.png", np.where(rng.random((6, 8)) < 0.3, 255, 0).astype(np.uint8))
    return root


def test_rater_folder_that_is_a_broken_link_is_said(raters, tmp_path):
    (raters / "run3").symlink_to(tmp_path / "unmounted" / "run3")
    with pytest.raises(InputError, match=r"raters/run3: rater folder is a broken symbolic link \(is its drive "
                                         r"mounted\?\) \(`RaterOptions\.empty_folders`='skip' drops it with a warning\)$"):
        load_raters(raters, gold=["a", "b"])
    ch = load_raters(raters, gold=["a", "b"], options=RaterOptions(empty_folders="skip"))
    assert ch.runs == ("run1", "run2")
    assert f"{raters}: dropped 1 rater folder(s) that are broken symbolic links: run3" in ch.notes
    with pytest.raises(InputError, match=r"raters/run3: rater folder is a broken symbolic link \(is its drive "
                                         r"mounted\?\)$"):
        load_raters(raters, gold=["a", "run3"], options=RaterOptions(empty_folders="skip"))


def test_run_folder_that_is_a_broken_link_is_said(tiny_dermavqa, tmp_path):
    (tiny_dermavqa / "submissions" / "runC").symlink_to(tmp_path / "unmounted")
    with pytest.raises(InputError, match=r"submissions/runC: run folder is a broken symbolic link \(is its drive "
                                         r"mounted\?\) \(`load_dermavqa.empty_folders`='skip' drops it with a warning\)$"):
        load_dermavqa(tiny_dermavqa)
    ch = load_dermavqa(tiny_dermavqa, empty_folders="skip")
    assert any("dropped 1 entr" in n and "runC" in n for n in ch.notes)
    (tiny_dermavqa / "reference").rename(tmp_path / "elsewhere")
    (tiny_dermavqa / "reference").symlink_to(tmp_path / "gone")
    with pytest.raises(InputError, match=r"challenge/reference: reference folder is a broken symbolic link"):
        load_dermavqa(tiny_dermavqa)


def test_masks_in_sub_folders_are_said(tiny_dermavqa, raters):
    (tiny_dermavqa / "reference" / "extra").mkdir()
    shutil.copy(next((tiny_dermavqa / "reference").glob("*.tiff")), tiny_dermavqa / "reference" / "extra")
    (tiny_dermavqa / "submissions" / "runA" / "v2").mkdir()
    ch = load_dermavqa(tiny_dermavqa)
    assert (f"{tiny_dermavqa / 'reference'}: ignored 1 sub-folder(s) (masks are read from the folder itself, not "
            "from sub-folders): extra") in ch.notes
    assert any(n.startswith(f"{tiny_dermavqa / 'submissions' / 'runA'}: ignored 1 sub-folder(s)") for n in ch.notes)
    (raters / "run1" / "more").mkdir()
    write_png(raters / "run1" / "more" / "s0.png", np.zeros((6, 8), np.uint8))
    (raters / "README.txt").write_text("about the raters")
    ch = load_raters(raters, gold=["a", "b"])
    assert any(n.startswith(f"{raters / 'run1'}: ignored 1 sub-folder(s)") for n in ch.notes)
    assert f"{raters}: ignored 1 file(s) that are not rater folders: README.txt" in ch.notes


# -- item 11: a scheduler that does not answer, or is not a scheduler ----------------------------------------------

@pytest.fixture
def short_wait(monkeypatch):
    import robustness.parallel as parallel

    monkeypatch.setattr(parallel, "SCHEDULER_TIMEOUT", 0.5, raising=False)


def test_scheduler_that_accepts_but_never_answers_is_refused_in_time(short_wait, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()  # the kernel accepts connections; nobody ever answers
        port = s.getsockname()[1]
        t0 = time.perf_counter()
        refused(rank_convergence.main, ["--scheduler", f"tcp://127.0.0.1:{port}", "--quiet"], capsys,
                rf"argument --scheduler: no Dask scheduler answers at tcp://127\.0\.0\.1:{port}: it accepted the "
                r"connection but said nothing within 0\.5 s$")
        assert time.perf_counter() - t0 < 30


def test_server_of_another_protocol_is_refused_without_allocating(short_wait, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]

        def answer():
            conn, _ = s.accept()
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")  # 8 bytes read as 3 EiB
            time.sleep(1)
            conn.close()

        threading.Thread(target=answer, daemon=True).start()
        refused(rank_convergence.main, ["--scheduler", f"127.0.0.1:{port}", "--quiet"], capsys,
                rf"no Dask scheduler answers at 127\.0\.0\.1:{port}: what answers there does not speak Dask's "
                r"protocol$")


@pytest.mark.parametrize("address", ["inproc://127.0.0.1/1/2", "ucx://127.0.0.1:8786", "tls://127.0.0.1:8786",
                                     "ws://host:1"])
def test_other_transports_are_refused_in_one_line(capsys, address):
    scheme = address.split("://")[0]
    refused(rank_convergence.main, ["--scheduler", address, "--quiet"], capsys,
            rf"argument --scheduler: {address}: the {scheme}:// transport is not supported; give tcp://HOST:PORT, "
            r"HOST:PORT or 'local'$")


def test_a_real_scheduler_is_accepted():
    from dask.distributed import LocalCluster

    from experiments._types import scheduler_address

    with LocalCluster(n_workers=0, processes=False, scheduler_kwargs={"protocol": "tcp"}, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        assert scheduler_address(cluster.scheduler_address) == cluster.scheduler_address


# -- item 12: FIFOs and devices as inputs ---------------------------------------------------------------------------

@pytest.fixture
def fifo():
    """``make(path)``: a FIFO; a watchdog opens its far end after 10 s so that a reader that blocks fails, not hangs."""
    made, stop = [], threading.Event()

    def watchdog():
        while not stop.wait(10):
            for p in made:
                try:
                    os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass

    threading.Thread(target=watchdog, daemon=True).start()

    def make(path):
        if path.exists():
            path.unlink()
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    stop.set()


@pytest.fixture
def qa(tmp_path):
    """A small QA challenge: definitions and gold in one folder, two runs in ``runs/``."""
    from robustness.qa import make_qa_challenge, synthetic_questions

    qs = synthetic_questions()
    defs = [{"qid": q.qid, "options_en": list(q.options), "question_en": q.qid} for q in qs.questions]
    (tmp_path / "closedquestions_definitions_imageclef2025.json").write_text(json.dumps(defs))
    gold, runs = make_qa_challenge(n_encounters=5, n_runs=2, rng=0, questions=qs)
    gold.write(tmp_path / "gold.json")
    (tmp_path / "runs").mkdir()
    for r in runs:
        r.write(tmp_path / "runs" / f"{r.name}.json")
    return tmp_path


def test_fifo_among_the_qa_runs_is_refused(qa, fifo, capsys):
    f = fifo(qa / "runs" / "team9.json")
    err = refused(qa_score.main, ["--gold", str(qa / "gold.json"), "--submissions", str(qa / "runs"), "--out",
                                  str(qa / "o")], capsys, r".")
    assert err == f"error: {f}: is not a regular file (a FIFO)"
    assert not (qa / "o").exists()


@pytest.mark.parametrize("option", ["--gold", "--definitions"])
def test_fifo_as_gold_or_definitions_is_not_a_regular_file(qa, fifo, capsys, option):
    path = qa / ("gold.json" if option == "--gold" else "closedquestions_definitions_imageclef2025.json")
    fifo(path)
    argv = ["--gold", str(qa / "gold.json"), "--submissions", str(qa / "runs"), "--out", str(qa / "o")]
    if option == "--definitions":
        argv += ["--definitions", str(path)]
    err = refused(qa_score.main, argv, capsys, r".")
    assert err == f"error: argument {option}: {path}: is not a regular file (a FIFO)"


def test_fifo_as_table_is_refused(tmp_path, fifo, capsys):
    t = fifo(tmp_path / "scores.csv")
    err = refused(table_rank_convergence.main, ["--table", str(t), "--out", str(tmp_path / "o"), "--quiet"], capsys,
                  r".")
    assert err == f"error: {t}: is not a regular file (a FIFO)"


def test_link_to_dev_zero_as_qa_file_or_table_is_refused_unread(qa, tmp_path, capsys):
    run_file = qa / "runs" / "zero.json"
    run_file.symlink_to("/dev/zero")
    err = refused(qa_score.main, ["--gold", str(qa / "gold.json"), "--submissions", str(qa / "runs"), "--out",
                                  str(qa / "o")], capsys, r".")
    assert err == f"error: {run_file}: is not a regular file (a character device)"
    table = tmp_path / "t.csv"
    table.symlink_to("/dev/zero")
    err = refused(table_rank_convergence.main, ["--table", str(table), "--out", str(tmp_path / "o")], capsys, r".")
    assert err == f"error: {table}: is not a regular file (a character device)"
    err = refused(qa_rank_convergence.main, ["--baselines", str(table), "--out", str(tmp_path / "o")], capsys, r".")
    assert err == f"error: argument --baselines: {table}: is not a regular file (a character device)"


# -- item 13: every size option has a bound, checked when parsed -----------------------------------------------------

@pytest.mark.parametrize("option,value,bound", [("--orders", "1000000000", "10000"),
                                                ("--bootstrap", "1000000000", "20000"),
                                                ("--step", "10000000000", "1000000"),
                                                ("--test-step", "10000000000", "1000000"),
                                                ("--n-jobs", "2000", str(4 * os.cpu_count())),
                                                ("--n-jobs", "99999999999999999999", str(4 * os.cpu_count())),
                                                ("--orders", "9" * 5000, "10000")])
def test_size_options_are_bounded_when_parsed(tmp_path, capsys, option, value, bound):
    out = tmp_path / "o"
    err = refused(rank_convergence.main, [option, value, "--out", str(out)], capsys,
                  rf"^error: argument {option}: must be an integer in 1\.\.{bound}, got ")
    assert len(err) < 200
    assert not out.exists()


@pytest.mark.parametrize("option,value,match", [
    ("--encounters", "50,1000000", r"--encounters: must be an integer in 2\.\.10000"),
    ("--pool", "1000000000", r"--pool: must be an integer in 4\.\.1000000"),
    ("--max-encounters", "0", r"--max-encounters: must be an integer in 4\.\.100000"),
    ("--replicates", "100000", r"--replicates: must be an integer in 2\.\.1000"),
    ("--n-runs", "5000", r"--n-runs: must be an integer in 2\.\.100"),
    ("--populations", "1000", r"--populations: must be an integer in 1\.\.100"),
    ("--orders", "100000", r"--orders: must be an integer in 1\.\.10000"),
    ("--bootstrap", "100000", r"--bootstrap: must be an integer in 2\.\.20000"),
    ("--image-mp", "5000", r"--image-mp: must be a number in 0\.0001\.\.12"),
    ("--n-jobs", "2000", r"--n-jobs: must be an integer in 1\.\."),
])
def test_design_study_sizes_are_bounded(tmp_path, capsys, option, value, match):
    refused(design_study.main, [option, value, "--out", str(tmp_path / "o")], capsys, match)
    assert not (tmp_path / "o").exists()


def test_bounds_are_stated_in_help():
    text = " ".join(rank_convergence.parser().format_help().split())
    assert "random orders of images (default 200) (at most 10,000)" in text
    assert "bootstrap resamples (default 1000) (at most 20,000)" in text
    assert f"the numbers do not depend on it) (at most {4 * os.cpu_count()})" in text  # --n-jobs
    text = " ".join(design_study.parser().format_help().split())
    assert "(at most 20,000)" in text and "(at most 12)" in text


# -- item 14: tracebacks become one line ------------------------------------------------------------------------------

IDLE_WORKER = """
import sys, time
from experiments._cli import run
from robustness.parallel import run_batches

def square(x):
    return x * x

def main(argv):
    assert list(run_batches(square, [(i,) for i in range(8)], n_jobs=2)) == [i * i for i in range(8)]
    print("ready", flush=True)  # the worker now waits for work
    time.sleep(60)

sys.exit(run(main, []))
"""


def test_ctrl_c_with_an_idle_worker_is_one_line():
    proc = subprocess.Popen([sys.executable, "-c", IDLE_WORKER], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=as_a_terminal_job)
    assert proc.stdout.readline() == "ready\n"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: every process of the job gets it
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "interrupted\n", err


def test_ctrl_c_wrapped_by_numba_is_still_one_line(capsys):
    """A Ctrl-C that lands while numba unpickles a cached kernel comes back as a SystemError caused by the
    KeyboardInterrupt (seen on a fresh clone, where the kernels load from a cold cache): still one line, 130."""
    from experiments._cli import run

    def interrupted_in_a_kernel(argv):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(<function count_run_words>) returned a result with an exception set") \
                from exc

    def other_system_error(argv):
        raise SystemError("not an interrupt")

    assert run(interrupted_in_a_kernel, []) == 130
    assert capsys.readouterr().err == "interrupted\n"
    with pytest.raises(SystemError, match="not an interrupt"):
        run(other_system_error, [])


@pytest.mark.slow
def test_ctrl_c_with_two_jobs_is_one_line(tmp_path):
    """Ctrl-C reaches every process of the job (the terminal signals the process group): the workers ignore it."""
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "experiments.rank_convergence", "--n-jobs", "2", "--quiet",
                             "--no-figures", "--orders", "2000", "--bootstrap", "20000", "--out", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_a_terminal_job)
    wait_for_workers(proc)
    time.sleep(1.0)  # the workers are at work
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.splitlines()[-1] == "interrupted", err
    assert [line for line in err.splitlines() if not line.startswith("warning: ")] == ["interrupted"], err


def test_macro_only_strategies_are_refused_when_parsed(tiny_dermavqa, tmp_path, capsys):
    for main in (score.main, rank_convergence.main):
        refused(main, ["--data", str(tiny_dermavqa), "--out", str(tmp_path / "o"), "--strategies", "mean"], capsys,
                r"^error: argument --strategies: mean average each run's scores over the annotators per image "
                r"\(macro only\): add a gold with pixel counts, e.g\. majority,mean$")
    refused(score.main, ["--data", str(tiny_dermavqa), "--out", str(tmp_path / "o"), "--strategies", "mean,max"],
            capsys, r"mean, max average each run's scores")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["shape", "missing"])
def test_cache_with_wrong_shapes_or_a_missing_array_is_a_warning(tiny_dermavqa, tmp_path, capsys, damage):
    out = tmp_path / "o"
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 0
    first = (out / "leaderboard.csv").read_bytes()
    (cache,) = (out / "cache").glob("overlap-*.npz")
    with np.load(cache) as z:
        arrays = {k: z[k] for k in z.files}
    if damage == "shape":
        arrays["ann_counts"] = arrays["ann_counts"][:, :, :1]
        what = "array 'ann_counts' has shape (4, 2, 1, 3), expected (4, 2, 3, 3)"
    else:
        del arrays["pair"]
        what = "no array 'pair'"
    np.savez_compressed(cache, **arrays)
    capsys.readouterr()
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 0
    everywhere(out, capsys.readouterr().err, f"{cache}: ignoring damaged overlap cache ({what}); counting again")
    assert (out / "leaderboard.csv").read_bytes() == first


@pytest.mark.slow
def test_damaged_cache_notice_is_a_warning_line(tiny_dermavqa, tmp_path, capsys):
    out = tmp_path / "o"
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 0
    (cache,) = (out / "cache").glob("overlap-*.npz")
    cache.write_bytes(cache.read_bytes()[:100])
    capsys.readouterr()
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "RuntimeWarning" not in err
    assert f"warning: {cache}: ignoring unreadable overlap cache (" in err


@pytest.mark.parametrize("kind", ["backslash folder", "hidden suffix"])
def test_run_names_that_cannot_name_a_result_file_are_refused_when_loaded(tiny_dermavqa, tmp_path, capsys, kind):
    sub = tiny_dermavqa / "submissions"
    if kind == "backslash folder":
        (sub / "runB").rename(sub / "team\\runC")
        where, name, why = sub / "team\\runC", "team\\runC", "holds a backslash"
    else:
        for p in (sub / "runB").iterdir():  # masks in the submissions folder itself: the suffix names the run
            p.rename(sub / p.name.replace("_mask_runB", "_mask_.h"))
        (sub / "runB").rmdir()
        where, name, why = sorted(sub.glob("*.tiff"))[0], ".h", "starts with '.' (a hidden file)"
    out = tmp_path / "o"
    err = refused(score.main, ["--data", str(tiny_dermavqa), "--out", str(out), "--quiet"], capsys, r".")
    assert err == (f"error: {where}: run name '{name}' {why}, which cannot name its result files "
                   "(official/<run>.json): rename it")
    assert not out.exists()


def test_qa_answer_with_a_5000_digit_integer_is_one_line(qa, capsys):
    path = qa / "runs" / "run01.json"
    records = json.loads(path.read_text())
    key = next(k for k in records[0] if k != "encounter_id")
    path.write_text(json.dumps(records).replace(f'"{key}": {records[0][key]}', f'"{key}": {"9" * 5000}', 1))
    err = refused(qa_score.main, ["--gold", str(qa / "gold.json"), "--submissions", str(qa / "runs"), "--out",
                                  str(qa / "o")], capsys, r".")
    assert err.startswith(f"error: {path}: not a usable JSON file (Exceeds the limit (4300 digits) for integer "
                          "string conversion"), err
    assert len(err) < 300


# -- item 15: clearer messages ----------------------------------------------------------------------------------------

def test_per_rater_folder_without_layout_raters_gets_a_hint(raters, tmp_path, capsys):
    refused(score.main, ["--data", str(raters), "--out", str(tmp_path / "o")], capsys,
            rf"^error: {raters / 'reference'}: reference folder not found; {raters} holds 4 folder\(s\) of masks "
            r"\(a, b, run1, \.\.\.\): for one folder per rater use --layout raters --gold R1,R2,\.\.$")


def test_inputs_untouched_by_every_refusal(tiny_dermavqa, tmp_path, capsys):
    before = tree_digest(tiny_dermavqa)
    refused(score.main, ["--data", str(tiny_dermavqa), "--out", str(tmp_path / "o"), "--n-jobs", "100000"], capsys,
            r"--n-jobs")
    assert tree_digest(tiny_dermavqa) == before
