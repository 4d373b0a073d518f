"""Leaderboard with bootstrap confidence intervals (forest plot) under the headline gold and metric, micro and macro."""

from __future__ import annotations


def make(results_dir, out_path, *, primary=None, method=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``primary``: the headline scheme whose gold and metric are shown (default: the results', see
    :func:`figures.headline`); ``method``: the interval (default: the one the report shows, the table's
    ``reported`` rows).
    """
    import matplotlib.pyplot as plt

    from figures import distance_unit, for_ranking, headline, read, save
    from robustness.reporting import plotting
    from robustness.scheme import metric_unit

    ci = read(results_dir, "bootstrap_ci.csv")
    ci = for_ranking(ci[ci.reported] if method is None else ci[ci.method == method])
    p = headline(results_dir, primary, ci.strategy)
    n = ci.run.nunique()
    unit = metric_unit(p.metric, distance_unit(results_dir))
    with plotting.style():
        fig, axes = plt.subplots(1, len(p.averages), figsize=(3.5 * len(p.averages), max(2.2, 0.11 * n + 0.8)),
                                 layout="constrained", squeeze=False)
        for ax, average in zip(axes[0], p.averages):
            plotting.forest(ci, strategy=p.strategy, metric=p.metric, average=average, ax=ax, unit=unit,
                            interval_note=False)
            ax.set_title(f"{p.strategy_label}, {average} {p.metric_label}"
                         + (" (headline)" if average == p.average else ""))
        # which interval: said once under the panels (each panel's second line ran into its neighbour's)
        shown = ci[(ci.strategy == p.strategy) & (ci.metric == p.metric) & ci.average.isin(p.averages)]
        fig.supxlabel(plotting.interval_note_text(shown), fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
