"""Significance map (challengeR style) under the headline gold and metric: which run is significantly above which."""

from __future__ import annotations


def make(results_dir, out_path, *, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``primary``: the scheme whose gold and metric are shown (default: the results' headline scheme, see
    :func:`figures.headline`).
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import headline, read, save
    from robustness.reporting import inference_plots, plotting

    pairwise = read(results_dir, "pairwise.parquet")
    p = headline(results_dir, primary, pairwise.strategy)
    strategy, metric = p.strategy, p.metric
    averages = [a for a in p.averages if ((pairwise.strategy == strategy) & (pairwise.metric == metric)
                                          & (pairwise.average == a)).any()]
    runs = pd.concat([pairwise.run, pairwise.other]).unique()
    n = len(runs)
    # sized to the runs: a cell per run, room for the longest name below and beside each map
    font = 6.0 if n <= 25 else 4.5
    names = max(len(str(r)) for r in runs) * font * 0.6 / 72 + 0.15
    cells = min(6.5, max(1.4, 0.16 * n if n <= 25 else 0.1 * n))
    with plotting.style():
        fig, axes = plt.subplots(1, len(averages), figsize=((cells + names + 0.2) * len(averages),
                                                            cells + names + 0.75), squeeze=False,
                                 layout="constrained")
        for ax, average in zip(axes[0], averages):
            inference_plots.significance_map(pairwise, strategy=strategy, metric=metric, average=average, ax=ax,
                                      legend=False, fontsize=font)
        unit = pairwise.unit.iloc[0]
        fig.legend(handles=inference_plots.significance_legend(plotting.strategy_style(strategy)["color"]),
                   loc="outside lower center", ncols=2, fontsize=6)
        fig.suptitle(f"Paired t-test with delta-method standard errors over {unit}s, two-sided, Holm over all "
                     "pairs, 5%", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
