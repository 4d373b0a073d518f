"""Figure 2: micro Jaccard and Dice, L1 rank change vs number of test images, one line per gold strategy."""

from __future__ import annotations

from pathlib import Path


def load(results_dir, average):
    """The summarised curves and one example order (order 0) for one averaging."""
    import pandas as pd

    results_dir = Path(results_dir)
    summary = pd.read_csv(results_dir / "curves_summary.csv")
    example = pd.read_parquet(results_dir / "curves.parquet",
                              filters=[("order", "==", 0), ("average", "==", average)])
    return summary, example


def make(results_dir, out_path, *, average="micro"):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    from figures import save
    from robustness import plotting
    from robustness.gold import official_strategy

    summary, example = load(results_dir, average)
    official = official_strategy(list(dict.fromkeys(summary.strategy)))
    with plotting.style():
        fig = plotting.convergence_figure(summary, average=average, example=example, official=official)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
