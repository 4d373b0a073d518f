"""Results folders: a failed or interrupted run never destroys earlier results; a lock; no write through links."""

from __future__ import annotations

import gc
import json
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from experiments import rank_convergence as job
from experiments import score
from experiments._cli import run
from robustness.errors import InputError
from robustness.results import folder as rs
from robustness.results import transaction
from robustness.results.folder import ResultsDir, open_results
from tests.conftest import REPO, only_figures, tree_digest

ARGS = ["--orders", "4", "--bootstrap", "10", "--outer", "4", "--quiet", "--no-figures"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    return write_dermavqa(make_challenge(n_encounters=5, n_images=8, n_runs=4, n_teams=2, rng=6),
                          tmp_path_factory.mktemp("res") / "ch")


def tables(out):
    """Every result file (not the cache) and its bytes."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and "cache" not in p.parts and p.name != ".lock"}


def killed(results_dir):
    """What SIGKILL does to a job holding ``results_dir``: the lock goes with the process, nothing is cleaned."""
    _, _, (fd, _), _ = results_dir._release.detach()
    os.close(fd)
    rs._HELD.pop(os.path.realpath(results_dir.path), None)


def complete(data, out, *extra):
    assert job.main(["--data", str(data), "--out", str(out)] + ARGS + list(extra)) == 0
    return tables(out)


@pytest.mark.slow
def test_bad_mask_found_in_the_pixel_pass_keeps_previous_results(data, tmp_path, capsys):
    import shutil

    copy = tmp_path / "ch"
    shutil.copytree(data, copy)
    out = tmp_path / "out"
    before = complete(copy, out)
    bad = copy / "submissions" / "team1-run1" / "IMG_ENC00001_00001_mask_team1-run1.tiff"
    bad.write_bytes(bad.read_bytes()[:-40])  # header intact: found only when decoded
    assert run(job.main, ["--data", str(copy), "--out", str(out), "--force"] + ARGS) == 2
    assert "cannot read the file" in capsys.readouterr().err
    gc.collect()
    assert tables(out) == before
    open_results(out)
    assert not list(out.glob(".staging-*")) and not list(out.glob(".commit-*"))


def test_interrupted_replacement_is_completed_by_the_next_job(tmp_path, monkeypatch):
    out = tmp_path / "out"
    first = ResultsDir(out, fingerprint="A")
    for name in ("a.csv", "old.csv", "figures/f.png"):
        first.write_text(name, "first " + name)
    first.finish({"run": 1})
    second = ResultsDir(out, fingerprint="A")
    second.write_text("a.csv", "second a")
    second.write_text("new.csv", "second new")
    real, calls = os.replace, []

    def dying(src, dst):
        if ".commit-" in str(src):
            calls.append(dst)
        if len(calls) == 2:  # killed after the first new file is in place
            raise KeyboardInterrupt
        return real(src, dst)

    monkeypatch.setattr(rs.os, "replace", dying)
    with pytest.raises(KeyboardInterrupt):
        second.finish({"run": 2})
    monkeypatch.undo()
    killed(second)
    with pytest.raises(InputError, match="interrupted while replacing these results"):
        open_results(out)
    with pytest.warns(UserWarning, match="completed the replacement of results"):
        third = ResultsDir(out, fingerprint="A")
    _, meta = open_results(out)
    assert meta["run"] == 2 and meta["files"] == ["a.csv", "new.csv"]
    assert (out / "a.csv").read_text() == "second a" and (out / "new.csv").read_text() == "second new"
    assert not (out / "old.csv").exists() and not (out / "figures").exists()
    third.finish({"run": 3})


def test_files_of_an_interrupted_run_never_survive_beside_results(tmp_path):
    out = tmp_path / "out"
    first = ResultsDir(out, fingerprint="synthetic")
    first.write_text("truth.csv", "synthetic truth")
    killed(first)
    later = ResultsDir(out, fingerprint="real", force=True)
    assert not list(out.glob(".staging-*"))[1:]  # only the new job's own staging folder
    later.write_text("leaderboard.csv", "x")
    later.finish({})
    assert sorted(p.name for p in out.iterdir()) == [".inputs", ".lock", "leaderboard.csv", "meta.json"]


@pytest.mark.slow
def test_stale_temporaries_are_cleaned(tmp_path, data):
    out = tmp_path / "out"
    complete(data, out)
    dead = 2 ** 22 + 12345  # above pid_max on Linux: never alive
    (out / "cache" / f".overlap-x.npz.{dead}.abcd.tmp").write_bytes(b"half")
    (out / f".leaderboard.csv.{dead}.efgh.tmp").write_bytes(b"half")
    (out / f".staging-{dead}").mkdir()
    (out / f".staging-{dead}" / transaction.MARKER).write_text(f"{dead}\n")  # what a killed job's staging folder holds
    (out / f".staging-{dead}" / "stale.csv").write_text("never trusted")
    complete(data, out)
    assert not [p.name for p in out.rglob("*") if p.name.endswith(".tmp") or ".staging-" in str(p)]
    assert not (out / "stale.csv").exists()


def test_second_job_on_the_same_folder_is_refused_naming_the_holder(tmp_path, capsys):
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from robustness.results.folder import ResultsDir
        r = ResultsDir({str(out)!r}, fingerprint="x")
        print("locked", flush=True)
        time.sleep(60)
        """)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert run(job.main, ["--out", str(out), "--force"] + ARGS) == 2
        err = capsys.readouterr().err.strip()
        assert err == (f"error: {out}: another job (process {holder.pid}) is writing results here; wait for it "
                       "to finish or choose another --out")
    finally:
        holder.kill()
        holder.wait()
    ResultsDir(out, fingerprint="x").finish({})  # the lock died with its process


@pytest.mark.parametrize("meta", [b'{"files": "abc"}', b'{"files": ["../../etc/passwd"]}', b"\xff\xfe[", b"[1, 2]",
                                  b'{"files": ["/abs/path"]}', b'{"files": [".inputs"]}', b"[" * 100000])
def test_damaged_meta_deletes_nothing(tmp_path, meta):
    out = tmp_path / "out"
    first = ResultsDir(out, fingerprint="A")
    first.write_text("t.csv", "table")
    first.finish({})
    for name in ("a", "b", "c"):
        (out / name).write_text("mine")
    (out / "meta.json").write_bytes(meta)
    with pytest.raises(InputError, match=r"meta\.json: damaged or not written by this package; remove it, pass "
                                         r"`publish\.force`=True, or choose another `publish\.out`$"):
        ResultsDir(out, fingerprint="A")
    with pytest.raises(InputError, match=r"meta\.json: "):
        open_results(out)
    forced = ResultsDir(out, fingerprint="A", force=True)  # force: delete nothing it cannot tell is ours
    forced.write_text("t.csv", "new table")
    forced.finish({})
    assert all((out / name).read_text() == "mine" for name in ("a", "b", "c"))
    assert open_results(out)[1]["files"] == ["t.csv"] and (out / "t.csv").read_text() == "new table"


@pytest.mark.slow
def test_damaged_meta_is_one_line_on_the_command_line(data, tmp_path, capsys):
    out = tmp_path / "out"
    complete(data, out)
    (out / "meta.json").write_bytes(b'{"files": "abc"}')
    assert run(job.main, ["--data", str(data), "--out", str(out)] + ARGS) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {out / 'meta.json'}: damaged or not written by this package; remove it, pass --force, "
                   "or choose another --out")


@pytest.mark.slow
def test_damaged_inputs_mark_is_one_line(data, tmp_path, capsys):
    out = tmp_path / "out"
    complete(data, out)
    (out / ".inputs").write_bytes(b"\x00\xff\xfe binary")
    assert run(job.main, ["--data", str(data), "--out", str(out)] + ARGS) == 2
    assert capsys.readouterr().err.strip() == (f"error: {out}: output folder holds results of another input; pass "
                                               "--force to overwrite it or choose another --out")


@pytest.mark.slow
def test_nothing_is_written_through_symbolic_links(data, tmp_path):
    out = tmp_path / "out"
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.png"
    victim.write_bytes(b"precious")
    (outside / "dir").mkdir()
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "fig_02_micro_convergence.png").symlink_to(victim)
    (out / "leaderboard.csv").symlink_to(victim)
    (out / "cache").symlink_to(outside / "dir", target_is_directory=True)
    before = tree_digest(outside)
    with only_figures("rank_convergence", "fig_02_micro_convergence"):  # with the figure the link stood for
        assert job.main(["--data", str(data), "--out", str(out), "--force"] + ARGS[:-1]) == 0
    assert tree_digest(outside) == before
    for name in ("figures/fig_02_micro_convergence.png", "leaderboard.csv", "cache"):
        assert not (out / name).is_symlink()
    assert (out / "figures" / "fig_02_micro_convergence.png").stat().st_size > 1000


def test_a_linked_folder_inside_the_results_is_replaced_not_followed(tmp_path):
    out = tmp_path / "out"
    outside = tmp_path / "outside"
    (outside / "figures").mkdir(parents=True)
    (outside / "figures" / "f.png").write_bytes(b"precious")
    out.mkdir()
    (out / "figures").symlink_to(outside / "figures", target_is_directory=True)
    before = tree_digest(outside)
    r = ResultsDir(out, fingerprint="A", force=True)
    r.write_text("figures/f.png", "ours")
    r.finish({})
    assert tree_digest(outside) == before
    assert not (out / "figures").is_symlink() and (out / "figures" / "f.png").read_text() == "ours"
    r = ResultsDir(out, fingerprint="A")
    (out / "figures").rename(out / "real")  # a later link at a listed folder: the old files are not reached
    (out / "figures").symlink_to(outside / "figures", target_is_directory=True)
    r.write_text("other.csv", "x")
    r.finish({})
    assert tree_digest(outside) == before


@pytest.fixture(scope="module")
def done(data):
    out = data.parent / "done"
    complete(data, out)
    return out


@pytest.mark.slow
def test_tables_are_readable_by_everyone(done):
    out = done
    old = os.umask(0o022)
    try:
        assert stat.S_IMODE((out / "leaderboard.csv").stat().st_mode) == 0o644
        assert stat.S_IMODE((out / "meta.json").stat().st_mode) == 0o644
        assert all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in (out / "cache").iterdir())
    finally:
        os.umask(old)


@pytest.mark.slow
def test_csv_floats_round_trip_without_noise_and_counts_are_integers(data, done, tmp_path):
    out = done
    text = (out / "leaderboard.csv").read_text()
    assert not any(len(v) > 19 for line in text.splitlines()[1:] for v in line.split(",")[1:])  # no %.17g noise
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    from robustness.io import load_dermavqa
    from robustness.overlap import compute_overlap
    from robustness.statistics import leaderboard as scores

    direct = scores.leaderboard(compute_overlap(load_dermavqa(data), rng=0))
    np.testing.assert_array_equal(board.to_numpy(), direct.to_numpy())  # exact round trip
    for name, column in (("convergence.csv", "convergence_n"), ("images.csv", "pixels"),
                         ("gold_spread.csv", "images_used"), ("curves_summary.csv", "n_images")):
        assert pd.read_csv(out / name)[column].dtype.kind == "i", (name, column)
    # a count column that once held a missing value comes out of pandas as floats: written as integers
    frame = pd.DataFrame({"convergence_n": [314.0, np.nan], "median_n": [3.0, 4.5], "score": [0.95, 1.0]})
    r = ResultsDir(tmp_path / "frame", fingerprint="f")
    r.write_csv("t.csv", frame, index=False)
    assert (r.staging / "t.csv").read_text().splitlines() == ["convergence_n,median_n,score", "314,3.0,0.95",
                                                             ",4.5,1.0"]


def test_score_command_is_staged_and_locked_too(data, tmp_path):
    out = tmp_path / "score"
    assert score.main(["--data", str(data), "--out", str(out), "--quiet"]) == 0
    _, meta = open_results(out)
    assert "leaderboard.csv" in meta["files"] and meta["warnings"] == []
    assert any(f.startswith("official/") for f in meta["files"])
    json.loads((out / "official" / "team1-run1.json").read_text())


@pytest.mark.slow
def test_shared_cache_with_concurrent_readers(data, tmp_path):
    """Two processes fill and read one cache folder at once: both get the same counts, nothing half-read."""
    code = textwrap.dedent(f"""
        import numpy as np
        from robustness.io import load_dermavqa
        from robustness.overlap import compute_overlap
        for _ in range(3):
            c = compute_overlap(load_dermavqa({str(data)!r}), cache_dir={str(tmp_path / 'cache')!r}, rng=0)
        print(int(c.counts.sum()))
        """)
    procs = [subprocess.Popen([sys.executable, "-W", "error::RuntimeWarning", "-c", code], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert outs[0][0] == outs[1][0]
    assert not list((tmp_path / "cache").glob("*.tmp"))
