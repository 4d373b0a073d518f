"""Kendall's tau between the rankings under different gold strategies (the headline metric, micro and macro)."""

from __future__ import annotations


def make(results_dir, out_path, *, metric=None, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    The metric is ``metric``, else the headline scheme's (``primary``, else the folder's meta.json).
    """
    import matplotlib.pyplot as plt

    from figures import for_ranking, headline, read, save
    from robustness.reporting import plotting
    from robustness.scheme import metric_label

    tau = for_ranking(read(results_dir, "kendall_tau.csv"))
    metric = metric or headline(results_dir, primary, tau.strategy).metric
    averages = [a for a in ("micro", "macro") if ((tau.metric == metric) & (tau.average == a)).any()]  # a boundary
    with plotting.style():  # metric exists macro only
        fig, axes = plt.subplots(1, len(averages), figsize=(3.5 * len(averages), 3.1), squeeze=False,
                                 layout="constrained")
        for ax, average in zip(axes[0], averages):
            m = tau[(tau.metric == metric) & (tau.average == average)]
            order = list(dict.fromkeys(m.strategy))
            table = {c: m.pivot(index="strategy", columns="other", values=c).loc[order, order]
                     for c in ("tau", "tau_low", "tau_high")}
            plotting.tau_heatmap(table["tau"], low=table["tau_low"], high=table["tau_high"], ax=ax,
                                 title=f"{metric_label(metric)}, {average}")
        fig.suptitle("Kendall's tau between the rankings under two golds: above the diagonal tau, below it "
                     "its 95% interval\n(percentile bootstrap, both rankings recomputed on every resample)", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
