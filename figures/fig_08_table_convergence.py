"""Rank convergence of a per-case table: one panel per metric, one line per strategy."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import save
    from robustness import plotting

    summary = pd.read_csv(Path(results_dir) / "curves_summary.csv")
    metrics = list(dict.fromkeys(summary.metric))[:4]
    with plotting.style():
        fig, axes = plt.subplots(1, len(metrics), figsize=(3.5 * len(metrics), 2.8), squeeze=False,
                                 layout="constrained")
        for ax, metric in zip(axes[0], metrics):
            plotting.convergence(summary, metric=metric, average="macro", ax=ax, x="n", legend=False)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside right center", title="scheme", title_fontsize=6.5)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
