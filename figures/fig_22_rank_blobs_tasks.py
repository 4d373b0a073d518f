"""Blob plots per task and method: bootstrap rank distributions with median and 95% rank interval."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('rank_bootstrap.csv', 'rank_frequency.csv', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    ranking, freq, summary = (read(results_dir, n) for n in ("ranking.csv", "rank_frequency.csv",
                                                              "rank_bootstrap.csv"))
    tasks, note = rank_plots.shown_tasks(freq.task)
    keys = [k for k in dict.fromkeys(zip(freq.task, freq.ranking)) if k[0] in tasks]
    with plotting.style():
        fig, where = rank_plots.task_method_grid(keys, width=rank_plots.panel_width(ranking, 3.2))
        for task, method in keys:
            rank_plots.rank_blobs_by_task(freq, summary, rank_plots.run_order(ranking, task, method), task=task,
                                          method=method, ax=where[task, method])
        fig.suptitle("Blob: share of resamples at a rank; black: median and 95% interval; red x: the full set's rank"
                     + note, fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
