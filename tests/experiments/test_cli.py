"""Command-line entry points: outputs, one-line errors, light start-up."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from experiments import score, synthetic_summary
from robustness.io import load_dermavqa
from robustness.overlap import compute_overlap
from robustness.statistics import leaderboard as scores
from tests.conftest import REPO, tree_digest


@pytest.mark.parametrize("module", ["experiments.score", "experiments.synthetic_summary", "experiments.rank_convergence",
                                    "experiments.qa_score", "experiments.qa_rank_convergence",
                                    "experiments.table_rank_convergence"])
def test_help_imports_nothing_heavy(module):
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['x', '--help']\n"
        "try:\n"
        f"    runpy.run_module('{module}', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numba', 'statsmodels', 'scipy', 'pandas', 'matplotlib', 'SimpleITK', 'tifffile', 'numpy')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "usage:" in out.stdout
    assert "HEAVY []" in out.stdout


@pytest.mark.slow
def test_score_writes_leaderboard_and_official_json(tiny_dermavqa, tmp_path):
    before = tree_digest(tiny_dermavqa)
    out = tmp_path / "out"
    assert score.main(["--data", str(tiny_dermavqa), "--out", str(out), "--quiet", "--compat", "official"]) == 0
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    oc = compute_overlap(load_dermavqa(tiny_dermavqa), rng=0)
    direct = scores.leaderboard(oc, empty="official")
    assert list(board.index) == list(direct.index)
    np.testing.assert_array_equal(board.to_numpy(), direct.to_numpy())  # %.17g round-trips exactly
    for run in ("runA", "runB"):
        res = json.loads((out / "official" / f"{run}.json").read_text())
        exp = scores.official_results(oc, run, empty="official")
        assert list(res) == list(exp)
        assert all(res[k] == exp[k] or (np.isnan(res[k]) and np.isnan(exp[k])) for k in res)
        assert res["number_segmentation_instances"] == 3
    assert tree_digest(tiny_dermavqa) == before
    assert any((out / "cache").iterdir())


def test_bad_input_one_line_exit_2(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.score", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")],
        cwd=REPO, capture_output=True, text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {tmp_path / 'nope'}: challenge folder not found"


@pytest.mark.slow
def test_synthetic_summary_prints_levels(capsys):
    assert synthetic_summary.main([]) == 0
    out = capsys.readouterr().out
    assert "images                 314 in 100 encounters" in out
    assert "annotator pairwise J   median" in out and "run micro J vs majority best" in out


def test_commands_work_from_any_folder(tmp_path):
    """experiments and figures are installed with the package: no need to stand in the repository."""
    proc = subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--help"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "usage: python -m experiments.rank_convergence" in proc.stdout
    code = "import figures, experiments; print(figures.FIGURES['rank_convergence'][0])"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.stdout.strip() == "fig_02_micro_convergence"
