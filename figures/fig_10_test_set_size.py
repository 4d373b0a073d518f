"""How far the ranking on a test set of m units is from the ranking on unlimited data (bootstrap), against m."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path, *, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import headline, read, save
    from robustness.reporting import inference_plots, plotting

    results_dir = Path(results_dir)
    per_size = read(results_dir, "ranking_uncertainty.csv")
    needed = read(results_dir, "test_set_size.csv")
    p = headline(results_dir, primary, per_size.strategy)
    official, metric = p.strategy, p.metric
    tolerance = float(needed.tolerance.iloc[0])
    boot = read(results_dir, "bootstrap_ci.csv")[["run", "unit"]]
    unit, n_runs = boot.unit.iloc[0], boot.run.nunique()
    averages = [a for a in p.averages if ((per_size.metric == metric) & (per_size.average == a)).any()]
    with plotting.style():
        fig, axes = plt.subplots(1, len(averages), figsize=(3.5 * len(averages) + 1.6, 2.8), sharey=True,
                                 squeeze=False, layout="constrained")
        for ax, average in zip(axes[0], averages):
            inference_plots.test_set_size(per_size, average=average, metric=metric, official=official,
                                          tolerance=tolerance, n_runs=n_runs, unit=unit, ax=ax)
        if len(averages) > 1:  # the panels share the first one's label
            axes[0][-1].set_ylabel("")
        handles, labels = axes[0][-1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside right center", title="gold strategy", title_fontsize=6.5)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
