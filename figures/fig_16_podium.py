"""Podium per task (challengeR's ``podium``): each case's score at its per-case place, joined across places."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('podium.parquet', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save, value_label
    from robustness.reporting import plotting, rank_plots

    ranking, places = read(results_dir, "ranking.csv"), read(results_dir, "podium.parquet")
    tasks, note = rank_plots.shown_tasks(ranking.task)
    with plotting.style():
        n_runs = int(ranking.groupby("task").run.nunique().max()) if len(ranking) else 1
        width = max(4.2, min(12.0, 0.07 * n_runs * n_runs + 1.5))  # R places of R slots each
        cols = len(tasks) if len(tasks) <= 2 else 2
        rows = -(-len(tasks) // cols)
        fig = plt.figure(figsize=(width * cols, 4.4 * rows), layout="constrained")
        grid = fig.add_gridspec(2 * rows, cols, height_ratios=[3, 1.2] * rows)
        for k, task in enumerate(tasks):
            r, c = divmod(k, cols)
            ax = fig.add_subplot(grid[2 * r, c])
            counts = fig.add_subplot(grid[2 * r + 1, c])
            rank_plots.podium(places, rank_plots.run_order(ranking, task), task=task, ax=ax, ax_counts=counts,
                              value=value_label(results_dir, task))
            ax.set_title(f"{task}: per-case scores by place on the case", fontsize=9)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
