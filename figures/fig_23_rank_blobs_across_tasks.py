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
    cons, panels, family = rank_plots.consensus_panels(cons, freq.task)  # per strategy and metric, per method
    tasks, note = rank_plots.shown_tasks(max(family.values(), key=len))
    width = rank_plots.panel_width(cons.assign(task="all"), 4.0) + 0.3 * len(tasks)
    with plotting.style():
        fig, axes = plt.subplots(len(panels), 1, figsize=(width, 3.6 * len(panels)), layout="constrained",
                                 squeeze=False)
        for k, (s, method) in enumerate(panels):
            c = cons[(cons.scheme == s) & (cons.ranking == method)]
            order = list(c.sort_values(["rank", "run"], kind="stable").run)
            shown, _ = rank_plots.shown_tasks(family[s])
            rank_plots.rank_blobs_across_tasks(freq, summary, order, shown, method=method, ax=axes[k, 0])
            if s:
                axes[k, 0].set_title(f"{s}: {method} (runs by consensus rank)", fontsize=9)
            handles, labels = axes[k, 0].get_legend_handles_labels()
            labels = [label[: -len(s) - 3] if s and label.endswith(f" / {s}") else label for label in labels]
            if k == 0 or s != panels[k - 1][0]:  # a legend where the tasks' names change
                axes[k, 0].legend(handles, labels, fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                                  title="task")
        fig.suptitle("Blob area: share of resamples at a rank; line: 95% rank interval; black: median" + note,
                     fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
