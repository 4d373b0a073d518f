"""Density of Kendall's tau between every task's ranking and its bootstrap resamples' (challengeR's ``density()``)."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("rank_bootstrap_tau.csv",)


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import rankings, read, save
    from robustness.reporting import plotting, rank_plots, task_plots

    taus = read(results_dir, "rank_bootstrap_tau.csv")
    tasks, note = rank_plots.shown_tasks(taus.task)
    taus = taus[taus.task.isin(tasks)]
    methods = rankings(taus)
    with plotting.style():
        rows = max(2.8, 0.45 * len(tasks) + 1.2)  # one row per task (a ridgeline)
        fig, axes = plt.subplots(len(methods), 1, figsize=(6.0, rows * len(methods)), layout="constrained",
                                 squeeze=False)
        for ax, method in zip(axes[:, 0], methods):
            task_plots.tau_densities(taus[taus.ranking == method], ax=ax)
            ax.set_title(f"{method}: how far each task's ranking moves over bootstrap resamples of its cases",
                         fontsize=9)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
