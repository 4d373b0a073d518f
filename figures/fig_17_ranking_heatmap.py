"""Ranking heatmap per task: runs by place against their rank on each case (number of cases)."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('case_ranks.csv', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    ranking, case_ranks = read(results_dir, "ranking.csv"), read(results_dir, "case_ranks.csv")
    tasks, note = rank_plots.shown_tasks(ranking.task)
    with plotting.style():
        width = rank_plots.panel_width(ranking, 3.8)
        height = max(3.4, 0.12 * len(rank_plots.run_order(ranking, tasks[0])))
        fig, axes = plt.subplots(1, len(tasks), figsize=(width * len(tasks), height), layout="constrained",
                                 squeeze=False)
        for k, task in enumerate(tasks):
            rank_plots.ranking_heatmap(case_ranks, rank_plots.run_order(ranking, task), task=task, ax=axes[0, k])
            axes[0, k].set_title(task, fontsize=9)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
