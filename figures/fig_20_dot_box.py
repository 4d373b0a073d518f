"""Dot-and-box plots per task: every run's per-case scores, runs by place."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('per_case.parquet', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save, value_label
    from robustness.reporting import plotting, rank_plots

    ranking, per_case = read(results_dir, "ranking.csv"), read(results_dir, "per_case.parquet")
    tasks, note = rank_plots.shown_tasks(ranking.task)
    with plotting.style():
        width = rank_plots.panel_width(ranking)
        fig, axes = plt.subplots(1, len(tasks), figsize=(width * len(tasks), 3.4), layout="constrained",
                                 squeeze=False)
        for k, task in enumerate(tasks):
            rank_plots.dot_box(per_case, rank_plots.run_order(ranking, task), task=task, ax=axes[0, k],
                               value=value_label(results_dir, task))
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
