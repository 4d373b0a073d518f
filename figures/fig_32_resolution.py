"""The smallest true difference between two runs a test set of n units declares with 80% power, against n."""

from __future__ import annotations

from pathlib import Path

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("resolution.csv",)


def make(results_dir, out_path, *, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import distance_unit, headline, read, save, unit_word
    from robustness.reporting import inference_plots, plotting
    from robustness.scheme import metric_unit

    results_dir = Path(results_dir)
    table = read(results_dir, "resolution.csv")
    p = headline(results_dir, primary, table.strategy)
    asked = read(results_dir, "resolve.csv") if (results_dir / "resolve.csv").is_file() else None
    difference = None if asked is None or asked.empty else float(asked.difference.iloc[0])
    averages = [a for a in p.averages if ((table.metric == p.metric) & (table.average == a)
                                          & (table.strategy == p.strategy)).any()]
    unit = unit_word(results_dir, str(table.unit.iloc[0]))
    with plotting.style():
        fig, axes = plt.subplots(1, len(averages), figsize=(3.5 * len(averages) + 1.8, 2.8), sharey=True,
                                 squeeze=False, layout="constrained")
        for ax, average in zip(axes[0], averages):
            inference_plots.resolution_curve(table, strategy=p.strategy, metric=p.metric, average=average, unit=unit,
                                             difference=difference, ax=ax)
            ax.set_title(f"{p.strategy_label}, {average} {p.metric_label}", fontsize=8)
            value_unit = metric_unit(p.metric, distance_unit(results_dir))
            if value_unit:  # a distance: its unit on the axis
                ax.set_ylabel(ax.get_ylabel().replace(", log scale", f" in {value_unit}, log scale"))
        if len(averages) > 1:
            axes[0][-1].set_ylabel("")
        handles, labels = axes[0][-1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside right center", fontsize=6.5)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
