"""Blob plot across tasks: each run's bootstrap rank distribution in every task side by side (per ranking method)."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them: several tasks).
NEEDS = ("consensus.csv", "rank_bootstrap.csv", "rank_frequency.csv")


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    cons, freq, summary = (read(results_dir, n) for n in ("consensus.csv", "rank_frequency.csv",
                                                           "rank_bootstrap.csv"))
    tasks, note = rank_plots.shown_tasks(freq.task)
    methods = list(dict.fromkeys(cons.ranking))
    width = rank_plots.panel_width(cons.assign(task="all"), 4.0) + 0.3 * len(tasks)
    with plotting.style():
        fig, axes = plt.subplots(len(methods), 1, figsize=(width, 3.6 * len(methods)), layout="constrained",
                                 squeeze=False)
        for k, method in enumerate(methods):
            order = list(cons[cons.ranking == method].sort_values(["rank", "run"], kind="stable").run)
            rank_plots.rank_blobs_across_tasks(freq, summary, order, tasks, method=method, ax=axes[k, 0])
        axes[0, 0].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="task")
        fig.suptitle("Blob area: share of resamples at a rank; line: 95% rank interval; black: median" + note,
                     fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
