"""A deprecated keyword's warning names the caller's line, however deep in the package the keyword is read.

Python shows a DeprecationWarning by default only where ``__main__`` triggers it: a warning attributed to a line
of the package would be hidden from the script that passes the old keyword, the one reader it is for.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from robustness.errors import deprecated_keywords
from robustness.io import load_raters
from robustness.overlap import compute_overlap
from robustness.overlap.boundary import boundary_scores
from robustness.statistics import rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.uncertainty import ranking_uncertainty
from robustness.synthetic.challenge import make_challenge
from tests.conftest import write_png


def _warned_here(call) -> list[str]:
    """The files every DeprecationWarning of ``call()`` is attributed to (at least one warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    files = [w.filename for w in caught if issubclass(w.category, DeprecationWarning)]
    assert files, "no DeprecationWarning"
    return files


@pytest.fixture(scope="module")
def tiny():
    return make_challenge(n_encounters=4, n_images=5, n_runs=3, n_teams=1, rng=0)


def test_options_read_through_helpers_warn_at_the_callers_line(tiny, tmp_path):
    counts = compute_overlap(tiny, rng=0)
    schemes = schemes_from_counts(counts, unit="encounter", metrics=["jaccard"], annotators=[])
    for root in ("a", "b", "run"):
        write_png(tmp_path / root / "s0.png", np.array([[0, 255], [255, 255]], np.uint8))
    calls = {
        "compute_overlap, an options field": lambda: compute_overlap(tiny, rng=0, leave_one_out=False),
        "compute_overlap, n_random": lambda: compute_overlap(tiny, rng=0, n_random=1),
        "ranking_uncertainty": lambda: ranking_uncertainty(schemes, sizes=[4], n_resamples=2, rng=0, margin=0.0),
        "rank_convergence": lambda: rank_convergence(schemes, n_orders=2, rng=0, step=2),
        "load_raters": lambda: load_raters(tmp_path, gold=["a", "b"], threshold=128),
        "boundary_scores": lambda: boundary_scores(np.eye(4, dtype=bool), np.eye(4, dtype=bool), ["hd95"],
                                                   empty_distance=9.0),
    }
    elsewhere = {name: files for name, call in calls.items() if set(files := _warned_here(call)) != {__file__}}
    assert not elsewhere


def test_a_direct_call_warns_at_its_callers_line():
    assert _warned_here(lambda: deprecated_keywords("run", {"seed": 1}, ["seed"], "RunOptions(seed=...)")) \
        == [__file__]


@pytest.mark.slow  # a fresh interpreter: about 2 CPU-s
def test_a_script_passing_an_old_keyword_sees_the_warning_under_pythons_default_filters(tmp_path):
    script = tmp_path / "old.py"
    script.write_text("from robustness.overlap import compute_overlap\n"
                      "from robustness.synthetic.challenge import make_challenge\n"
                      "compute_overlap(make_challenge(n_encounters=2, n_images=2, n_runs=2, n_teams=1, rng=0), rng=0,\n"
                      "                leave_one_out=False)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert f"{script}:3: DeprecationWarning: compute_overlap(): leave_one_out= is deprecated" in done.stderr
