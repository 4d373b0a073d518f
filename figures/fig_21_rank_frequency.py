"""Stacked shares of bootstrap resamples at each rank, per task and ranking method."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ('rank_frequency.csv', 'ranking.csv')


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    ranking, freq = read(results_dir, "ranking.csv"), read(results_dir, "rank_frequency.csv")
    tasks, note = rank_plots.shown_tasks(freq.task)
    keys = [k for k in dict.fromkeys(zip(freq.task, freq.ranking)) if k[0] in tasks]
    with plotting.style():
        fig, where = rank_plots.task_method_grid(keys, width=rank_plots.panel_width(ranking, 3.2))
        for task, method in keys:
            rank_plots.rank_frequency_bars(freq, rank_plots.run_order(ranking, task, method), task=task,
                                           method=method, ax=where[task, method])
        import matplotlib

        n_runs = int(ranking.groupby(["task", "ranking"]).size().max())
        scale = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(1, n_runs), cmap="viridis")
        fig.colorbar(scale, ax=list(where.values()), label=f"rank ({_tie_words(results_dir)})", shrink=0.5)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


def _tie_words(results_dir) -> str:
    """How tied runs are ranked, from the folder's meta.json (the leaderboards' tie rule; average if unknown)."""
    from figures import meta

    options = (meta(results_dir) or {}).get("ranking_options") or {}
    ties = options.get("ties", "average")
    order = "by name" if options.get("semantics") == "challenger" else "in the table's order"
    return {"average": "tied runs: average rank", "min": "tied runs: the best of their places",
            "max": "tied runs: the worst of their places", "first": f"tied runs: {order}",
            "last": f"tied runs: {order}, reversed",
            "random": "tied runs: in a random order"}.get(ties, f"ties: {ties}")


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
