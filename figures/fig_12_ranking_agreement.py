"""Kendall's tau between the ranking methods' leaderboards under each gold strategy (macro), with intervals."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    One panel per metric with a row per gold strategy; with a single strategy
    (QA, most per-case tables) one panel with a row per metric. Nothing is drawn
    (and ``[]`` returned) when the results hold one ranking method only.
    """
    import matplotlib.pyplot as plt

    from figures import rankings, read, save
    from robustness.reporting import inference_plots, plotting

    results_dir = Path(results_dir)
    name = "kendall_tau.csv" if (results_dir / "kendall_tau.csv").exists() else "agreement.csv"
    if not (results_dir / name).exists():  # a per-case table study without the resampling engines
        return []
    tau = read(results_dir, name)
    if len(rankings(tau)) < 2:
        return []
    macro = tau[tau.average == "macro"]
    metrics = list(dict.fromkeys(macro.metric))
    by_metric = macro.strategy.nunique() > 1
    panels = ([m for m in ("jaccard", "dice") if m in metrics] or metrics[:4]) if by_metric else [None]
    n_rows = macro.strategy.nunique() if by_metric else len(metrics)
    with plotting.style():
        fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels) + 0.6, 0.3 * n_rows + 1.5),
                                 squeeze=False, layout="constrained")
        for ax, metric in zip(axes[0], panels):
            inference_plots.ranking_agreement_heatmap(tau, metric=metric, rows="strategy" if by_metric else "metric",
                                                      ax=ax)
        fig.suptitle("Kendall's tau between ranking methods (full test set; 95% bootstrap interval)", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
