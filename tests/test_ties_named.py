"""Issue 48 item 2: an exact tie is never called a win, and two runs do not have "other neighbouring places"."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from experiments import rank_convergence as job
from experiments._cli import run


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """Three runs, two of them copies of each other (an exact tie on every image) and better than the third."""
    from robustness.synthetic.challenge import make_challenge
    from tests.conftest import write_png

    root = tmp_path_factory.mktemp("tied")
    ch = make_challenge(n_encounters=12, n_images=12, max_images_per_encounter=1, n_annotators=3, min_annotators=3,
                        n_runs=2, n_teams=1, skill_range=(0.2, 0.9), rng=4)
    scores = {}
    for i in range(ch.n_images):
        for name, mask in ch.annotator_masks(i).items():
            write_png(root / "c" / name / f"case{i:02d}.png", np.where(mask, 255, 0).astype(np.uint8))
        for name in ch.runs:
            write_png(root / "c" / name / f"case{i:02d}.png", np.where(ch.run_mask(i, name), 255, 0).astype(np.uint8))
            scores[name] = scores.get(name, 0)
    best = max(ch.runs, key=lambda r: ch.source.skill[r])
    shutil.copytree(root / "c" / best, root / "c" / "copy")
    out = root / "out"
    assert run(job.main, ["--data", str(root / "c"), "--layout", "raters", "--gold", "ann0,ann1,ann2", "--orders",
                          "4", "--bootstrap", "60", "--outer", "6", "--quiet", "--no-figures", "--out",
                          str(out)]) == 0
    return out, best


def _conclude(out):
    summary = (out / "summary.md").read_text()
    return summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]


def test_an_exact_tie_for_first_is_called_a_tie(tied):
    out, best = tied
    import pandas as pd

    board = pd.read_csv(out / "leaderboard.csv").set_index("run")
    col = "majority_jaccard_micro"
    assert board.loc[best, col] == board.loc["copy", col] == board[col].max()
    conclude = _conclude(out)
    first = next(line for line in conclude.splitlines() if line.startswith("- **First place**"))
    assert "the observed best" not in first
    assert "tie for first" in first and best in first and "copy" in first
    moved = [line for line in conclude.splitlines() if line.startswith("- **What moves the first place**")]
    assert all(f"{best} is first under" not in m and "copy is first under" not in m for m in moved)


def test_no_other_neighbouring_places_where_every_one_is_said(tmp_path):
    """Two runs, one pair of neighbours: the bullet says whether that one place is established, nothing about
    'the other' places."""
    from robustness.reporting.sections.rank_convergence import separable_text

    assert separable_text(1, 1).endswith("the one neighbouring place is established.")
    assert separable_text(0, 1).endswith("the one neighbouring place is not established.")
    assert separable_text(3, 3).endswith("every neighbouring place is established.")
    assert separable_text(1, 3).endswith("the other neighbouring places are not established.")
    assert separable_text(0, 3).endswith("neighbouring places are not established.")
