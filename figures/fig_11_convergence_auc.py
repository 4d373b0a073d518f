"""Area under the mean L1 curve per gold strategy with its Monte Carlo interval (the numbers behind Figures 2, 3)."""

from __future__ import annotations


def make(results_dir, out_path, *, metric=None, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    The metric is ``metric``, else the headline scheme's (``primary``, else the folder's meta.json).
    """
    import matplotlib.pyplot as plt

    from figures import for_ranking, headline, read, save
    from robustness.reporting import plotting

    points = for_ranking(read(results_dir, "convergence.csv"))
    points = points[points.tolerance == points.tolerance.max()]
    metric = metric or headline(results_dir, primary, points.strategy).metric
    averages = [a for a in ("micro", "macro") if ((points.metric == metric) & (points.average == a)).any()]
    with plotting.style():
        fig, axes = plt.subplots(1, len(averages), figsize=(3.5 * len(averages), 2.6), squeeze=False,
                                 layout="constrained")
        for ax, average in zip(axes[0], averages):
            plotting.auc_intervals(points, metric=metric, average=average, ax=ax)
        k = int(points.n_orders.iloc[0])
        fig.suptitle(f"Smaller: the ranking settles sooner on the test set's own ranking ({k} orders; 95% intervals)",
                     fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
