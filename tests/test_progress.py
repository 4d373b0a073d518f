"""Feedback on long work: status lines at least every 10 s off a terminal, bars on one, nothing with --quiet; the
terminal gets "What to conclude" and the results path, not the whole report."""

from __future__ import annotations

import io
import re
import time

import pytest

from robustness import progress
from robustness.parallel import progress_bar


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.slow
def test_a_status_line_whenever_a_stage_runs_quiet_for_the_interval():
    stream = io.StringIO()
    with progress.feedback(True, every=0.2, stream=stream):
        progress.stage("fitting the generator", printed=False)
        time.sleep(1.0)  # five intervals: room for a loaded machine
        bar = progress.Progress(8, "bootstrap (mean)", "batch")
        bar.update(3)
        time.sleep(1.0)
        bar.close()
    lines = stream.getvalue().splitlines()
    assert any(re.fullmatch(r"\[\d+ s\] fitting the generator", x) for x in lines), lines
    assert any(re.fullmatch(r"\[\d+ s\] bootstrap \(mean\): 3/8 batches \(38%\)", x) for x in lines), lines


def test_no_line_while_output_is_recent_and_nothing_when_quiet():
    stream = io.StringIO()
    with progress.feedback(True, every=5.0, stream=stream):
        time.sleep(0.3)
    assert stream.getvalue() == ""
    stream = io.StringIO()
    with progress.feedback(False, every=0.05, stream=stream):
        time.sleep(0.3)
    assert stream.getvalue() == ""
    assert progress_bar(False, 10, "pixel pass") is None


def test_a_bar_on_a_terminal_replaces_the_status_line(monkeypatch):
    stream = _Tty()
    monkeypatch.setattr("sys.stderr", stream)
    with progress.feedback(True, every=0.1, stream=stream):
        bar = progress_bar(True, 4, "pixel pass", unit="image")
        assert bar._bar is not None  # tqdm
        bar.update(2)
        time.sleep(0.4)
        status = stream.getvalue()
        bar.close()
    assert "pixel pass" in status and "[0 s] pixel pass" not in status  # the bar's text, not the status line


@pytest.mark.slow
def test_the_main_job_prints_what_to_conclude_and_the_path_not_the_report(tmp_path, capsys, monkeypatch):
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    data = write_dermavqa(make_challenge(n_encounters=8, n_images=16, n_runs=5, n_teams=2, rng=1), tmp_path / "c")
    monkeypatch.setattr(progress, "EVERY", 0.5)
    assert job.main(["--data", str(data), "--out", str(tmp_path / "r"), "--orders", "10", "--bootstrap", "50",
                     "--outer", "10", "--no-figures"]) == 0
    out = capsys.readouterr().out
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert out.startswith("## What to conclude\n")
    assert f"The whole report: {tmp_path / 'r' / 'summary.md'}, {tmp_path / 'r' / 'report.html'}" in out
    assert "## Leaderboard" in summary and "## Leaderboard" not in out
    assert len(out.splitlines()) < 20 < len(summary.splitlines())


def test_conclusions_fall_back_to_the_whole_text(tmp_path):
    from experiments._study import conclusions

    assert conclusions("# T\n\n## Other\n\nx\n", tmp_path).startswith("# T\n\n## Other")
    text = "# T\n\n## Recommendation\n\n- a\n- b\n\n## Warnings\n\n- w\n"
    assert conclusions(text, tmp_path, section="Recommendation") == (
        f"## Recommendation\n\n- a\n- b\n\nThe whole report: {tmp_path}/")


@pytest.mark.slow
def test_status_lines_reach_a_log_file(tmp_path):
    """The main job with stderr to a file: status lines, never a bar's carriage returns; stdout the conclusions."""
    import subprocess
    import sys

    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    data = write_dermavqa(make_challenge(n_encounters=8, n_images=16, n_runs=5, n_teams=2, rng=1), tmp_path / "c")
    log = tmp_path / "err.log"
    # the command as `python -m` runs it, its status line due every 0.2 s instead of 10 s (a short run shows some)
    code = ("import sys; from robustness import progress; progress.EVERY = 0.2; "
            "from experiments import _cli, rank_convergence as job; sys.exit(_cli.run(job.main))")
    with open(log, "w") as err:
        proc = subprocess.run([sys.executable, "-c", code, "--data", str(data), "--out", str(tmp_path / "r"),
                               "--orders", "5",
                               "--bootstrap", "20", "--outer", "4", "--no-figures"],
                              cwd=tmp_path, stderr=err, stdout=subprocess.PIPE, text=True)
    assert proc.returncode == 0
    assert "## What to conclude" in proc.stdout and "## Leaderboard" not in proc.stdout
    text = log.read_text()
    assert "\r" not in text  # no bar in a file
    status = [x for x in text.splitlines() if x.startswith("[")]
    assert len(status) >= 3 and all(re.fullmatch(r"\[\d+ s\] .+", x) for x in status), text


@pytest.mark.parametrize("columns", [0, 100])
def test_bars_appear_under_a_pseudo_terminal_even_without_a_size(columns):
    """`script`, ssh without a size and some CI runners give a pseudo-terminal of 0 x 0: tqdm drew nothing there."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    code = ("from robustness.parallel import progress_bar; import time; b = progress_bar(True, 3, 'pixel pass', "
            "unit='image'); b.update(1); time.sleep(0.3); b.close()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    assert proc.wait() == 0
    assert b"pixel pass:" in out and b"/3 [" in out, out
