"""Each run's rank under every ranking method, one panel per task."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('ranking.csv',)


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    Nothing is drawn (and ``[]`` returned) when the results hold one ranking method only.
    """
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    ranking = read(results_dir, "ranking.csv")
    if ranking.ranking.nunique() < 2:  # one ranking method: nothing to compare
        return []
    tasks, note = rank_plots.shown_tasks(ranking.task)
    with plotting.style():
        many = ranking.groupby("task").run.nunique().max() > 15
        fig, axes = plt.subplots(1, len(tasks), figsize=(3.6 * len(tasks) + 1.4, 5.0 if many else 3.4),
                                 layout="constrained", squeeze=False)
        for k, task in enumerate(tasks):
            rank_plots.method_lines(ranking, task=task, ax=axes[0, k])
        if not many:  # with many runs the names stand at the lines' ends
            axes[0, -1].legend(fontsize=6, loc="center left", bbox_to_anchor=(1.02, 0.5))
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
