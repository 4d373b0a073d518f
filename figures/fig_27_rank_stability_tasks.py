"""Raw ranks across tasks (challengeR's ``stability()``): each run's rank in every task, runs by consensus rank."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them: several tasks).
NEEDS = ("consensus.csv", "ranking.csv")


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots, task_plots

    cons, ranking = read(results_dir, "consensus.csv"), read(results_dir, "ranking.csv")
    cons, panels, family = rank_plots.consensus_panels(cons, ranking.task)  # per strategy and metric, per method
    width = rank_plots.panel_width(cons.assign(task="all"), 4.0)
    with plotting.style():
        fig, axes = plt.subplots(len(panels), 1, figsize=(width, 3.4 * len(panels)), layout="constrained",
                                 squeeze=False)
        for k, (s, method) in enumerate(panels):
            c = cons[(cons.scheme == s) & (cons.ranking == method)]
            order = list(c.sort_values(["rank", "run"], kind="stable").run)
            task_plots.raw_rank_blobs(ranking, c, order, family[s], method=method, ax=axes[k, 0])
            axes[k, 0].set_title(f"{s + ': ' if s else ''}{method}, {len(family[s])} tasks (runs by "
                                 f"{c.consensus.iloc[0]} consensus)", fontsize=9)
        fig.suptitle("Blob area: share of the tasks where the run takes that rank;\nblack: median and middle half of "
                     "its ranks over the tasks;\nred x: consensus rank (no resampling)", fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
