"""Leaderboard with bootstrap confidence intervals (forest plot) under one gold strategy, micro and macro."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path, *, strategy=None, metric="jaccard", method=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``strategy``: the gold strategy to show (default: the results' official one, see
    :func:`robustness.overlap.gold.official_strategy`); ``method``: the interval (default: the one the report
    shows, the table's ``reported`` rows).
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import for_ranking, save
    from robustness.overlap.gold import official_strategy
    from robustness.reporting import plotting

    ci = pd.read_csv(Path(results_dir) / "bootstrap_ci.csv")
    ci = for_ranking(ci[ci.reported] if method is None else ci[ci.method == method])
    strategy = strategy or official_strategy(list(dict.fromkeys(ci.strategy)))
    n = ci.system.nunique()
    with plotting.style():
        fig, axes = plt.subplots(1, 2, figsize=(7.0, max(2.2, 0.11 * n + 0.8)), layout="constrained")
        for ax, average in zip(axes, ("micro", "macro")):
            plotting.forest(ci, strategy=strategy, metric=metric, average=average, ax=ax)
            ax.set_title(f"{average}, gold: {plotting.strategy_style(strategy)['label']}")
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
