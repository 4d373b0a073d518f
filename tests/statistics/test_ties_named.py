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


@pytest.mark.slow
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
    assert "the likelihood's probability" in first and "claims below 0.5" in first  # with its measured calibration
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


@pytest.mark.slow
def test_reports_on_other_data_name_no_paper_and_no_teams(tied):
    """Issue 48 item 10: on data that is not MEDIQA-MAGIC's, "the paper" is never named without its reference, no
    heading cites "the paper's" figures, and the runs' groups are groups, not teams."""
    out, _ = tied
    summary = (out / "summary.md").read_text()
    assert '"The paper" below' not in summary and "the paper's" not in summary.lower()
    assert "The paper" not in summary
    headings = [line for line in summary.splitlines() if line.startswith("#")]
    assert not [h for h in headings if "paper" in h.lower()]
    assert "MEDIQA-MAGIC 2025 overview (ImageCLEF 2025, CEUR-WS)'s Figures 2 and 3" in summary
    assert "within-team" not in summary and "each team its own" not in summary


def test_the_readme_names_every_metric_family_and_the_notebooks():
    """Issue 48 item 14: the README names the lesion-wise, surface-element, pooled and BraTS metrics, the notebooks,
    and `make run` installs the runtime alone (the test tools come with `make test`)."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    readme = (repo / "README.md").read_text()
    for name in ("hd95_surfel", "nsd_surfel@t", "hd95_pooled", "lesion_f1", "lesion_hd95_pooled", "pq", "brats_dice",
                 "brats_hd95", "volume_similarity", "--min-lesion-size", "notebooks/", "01_synthetic_walkthrough.ipynb",
                 "02_bubil_case_study.ipynb", "resolution.csv"):
        assert name in readme, name
    make = (repo / "Makefile").read_text()
    run_target = make.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    runtime_recipe = make.split("$(RUNTIME): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    test_recipe = make.split("$(STAMP): $(RUNTIME)", 1)[1].split("\n\n", 1)[0]
    assert run_target.split()[0] == "$(RUNTIME)" and "-e ." in runtime_recipe and "[test]" not in runtime_recipe
    assert "'.[test]'" in test_recipe and "\ntest: $(STAMP)" in make
