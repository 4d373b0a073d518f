"""Violins of Kendall's tau between every task's ranking and its bootstrap resamples', per ranking method."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('rank_bootstrap_tau.csv',)


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    taus = read(results_dir, "rank_bootstrap_tau.csv")
    tasks, note = rank_plots.shown_tasks(taus.task)
    taus = taus[taus.task.isin(tasks)]
    with plotting.style():
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * taus.groupby(["task", "ranking"]).ngroups + 1.5), 3.4),
                               layout="constrained")
        rank_plots.tau_violins(taus, ax=ax)
        ax.set_title("How much each ranking moves over bootstrap resamples of cases", fontsize=9)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
