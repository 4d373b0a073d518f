"""Podium per task: each run at its place, its per-case scores, and how often it takes each per-case rank."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('case_ranks.csv', 'per_case.parquet', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    ranking, per_case, case_ranks = (read(results_dir, n) for n in ("ranking.csv", "per_case.parquet",
                                                                     "case_ranks.csv"))
    tasks, note = rank_plots.shown_tasks(ranking.task)
    with plotting.style():
        width = rank_plots.panel_width(ranking, 3.6)
        fig, axes = plt.subplots(2, len(tasks), figsize=(width * len(tasks), 5.2), layout="constrained",
                                 squeeze=False, height_ratios=(3, 1.3))
        for k, task in enumerate(tasks):
            rank_plots.podium(per_case, case_ranks, rank_plots.run_order(ranking, task), task=task, ax=axes[0, k],
                              ax_counts=axes[1, k])
            axes[0, k].set_title(f"{task}: per-case scores by place", fontsize=9)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
