"""Closed QA: L1 rank change vs number of test encounters, overall accuracy and each parent question."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path):
    """Draw the figure from a QA results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import save
    from robustness import plotting

    summary = pd.read_csv(Path(results_dir) / "curves_summary.csv")
    with plotting.style():
        fig, ax = plt.subplots(figsize=(4.2, 2.8), layout="constrained")
        plotting.qa_convergence(summary, ax=ax)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
