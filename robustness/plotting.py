"""Figures from result tables: convergence curves, forest plots, rank blobs, Kendall's tau heatmaps.

Every function takes tidy tables (as written by the studies), an optional
``ax`` and returns the Axes (or the Figure for multi-panel figures); none does
file I/O. :func:`style` applies the house style (``robustness.mplstyle``):
Okabe-Ito colour-blind-safe colours, sizes readable at column width. Each gold
strategy's colour, dashes and label come from its entry in the registry
(:data:`robustness.gold.STRATEGIES`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from .gold import get_strategy

__all__ = ["style", "strategy_style", "convergence", "convergence_figure", "forest",
           "rank_blobs", "tau_heatmap", "qa_convergence"]

STYLE_FILE = Path(__file__).with_name("robustness.mplstyle")

# Okabe-Ito without black, then grey and Tol's wine: nine colour-blind-safe line colours.
_OKABE_ITO_PLUS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999", "#882255")


def strategy_style(name: str) -> dict:
    """Line style and ``label`` of a gold strategy, from the registry (unknown names get a black line)."""
    try:
        strategy = get_strategy(name)
    except ValueError:
        return dict(color="black", linestyle="-", label=name)
    return dict(strategy.style, label=strategy.label)


@contextlib.contextmanager
def style():
    """Context manager applying the house style."""
    import matplotlib.pyplot as plt

    with plt.style.context(str(STYLE_FILE)):
        yield


def _ax(ax, **kw):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(**kw)
    return ax


def convergence(summary, *, metric: str, average: str, example=None, ax=None, band: bool = True,
                strategies=None, x: str = "n_images", legend: bool = True):
    """L1 rank change vs number of test images, one line per strategy.

    Parameters
    ----------
    summary : DataFrame
        ``curves_summary`` table: strategy, metric, average, n, n_images, mean, low, high.
    example : DataFrame, optional
        One order's curves (``curves`` rows of a single order): drawn thin, as
        the paper's single-order figure.
    band : bool
        Shade the band between ``low`` and ``high`` (e.g. 90% of orders).
    """
    ax = _ax(ax)
    sel = summary[(summary.metric == metric) & (summary.average == average)]
    names = list(dict.fromkeys(sel.strategy)) if strategies is None else list(strategies)
    for name in names:
        d = sel[sel.strategy == name].sort_values("n")
        if d.empty:
            continue
        st = strategy_style(name)
        label = st.pop("label")
        ax.plot(d[x], d["mean"], label=label, **st)
        if band:
            ax.fill_between(d[x], d["low"], d["high"], color=st["color"], alpha=0.07, linewidth=0)
        if example is not None:
            e = example[(example.metric == metric) & (example.average == average) & (example.strategy == name)]
            if not e.empty:
                e = e.sort_values("n")
                ax.plot(e[x], e["l1"], color=st["color"], linewidth=0.4, alpha=0.45, linestyle="-")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("test images (n)" if x == "n_images" else "test units (n)")
    ax.set_ylabel("L1 rank change to final ranking\n(sum over runs of |rank shift|)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.set_title(f"{metric.capitalize()}, {average}")
    if legend:
        ax.legend(loc="upper right", ncols=2, handlelength=2.2)
    return ax


def convergence_figure(summary, *, average: str, example=None, band_label: str = "90% of orders"):
    """Jaccard and Dice panels side by side (the paper's Figure 2 for micro, Figure 3 for macro)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.8), sharey=True, layout="constrained")
    for ax, metric in zip(axes, ("jaccard", "dice")):
        convergence(summary, metric=metric, average=average, example=example, ax=ax, legend=False)
    axes[1].set_ylabel("")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", title=f"gold (band: {band_label};\nthin: one order)",
               title_fontsize=6.5)
    return fig


def forest(intervals, *, strategy: str, metric: str = "jaccard", average: str = "micro", ax=None, top=None):
    """Leaderboard with bootstrap confidence intervals: one row per run, best on top."""
    d = intervals[(intervals.strategy == strategy) & (intervals.metric == metric) & (intervals.average == average)]
    d = d.sort_values("score", ascending=True)
    if top is not None:
        d = d.tail(top)
    ax = _ax(ax, figsize=(3.5, max(2.0, 0.12 * len(d) + 0.6)))
    y = np.arange(len(d))
    color = strategy_style(strategy)["color"]
    ax.errorbar(d["score"], y, xerr=[d["score"] - d["low"], d["high"] - d["score"]], fmt="o", markersize=2.5,
                color=color, ecolor=color, elinewidth=0.8, capsize=0)
    ax.set_yticks(y, d["system"])
    ax.tick_params(axis="y", labelsize=5.5)
    ax.set_xlabel(f"{average} {metric.capitalize()} ({int(round(d['confidence_level'].iloc[0] * 100))}% CI)")
    ax.set_title(f"gold: {strategy_style(strategy)['label']}")
    ax.grid(axis="y", visible=False)
    return ax


def rank_blobs(rank_distribution, *, strategy: str, metric: str = "jaccard", average: str = "micro", ax=None):
    """challengeR-style blob plot: for each run (ordered by full-set rank), how often it takes each rank."""
    d = rank_distribution[(rank_distribution.strategy == strategy) & (rank_distribution.metric == metric)
                          & (rank_distribution.average == average)]
    order = d.drop_duplicates("system").sort_values("full_rank")["system"].tolist()
    pos = {s: i + 1 for i, s in enumerate(order)}
    ax = _ax(ax, figsize=(3.5, 3.2))
    xs = d["system"].map(pos)
    ax.scatter(xs, d["rank"], s=40 * d["share"], color=strategy_style(strategy)["color"], alpha=0.8, linewidths=0)
    n = len(order)
    ax.plot([1, n], [1, n], color="black", linewidth=0.5, alpha=0.5)
    full = d.drop_duplicates("system")
    ax.scatter(full["system"].map(pos), full["full_rank"], marker="x", s=6, color="black", linewidths=0.5,
               label="full test set")
    ax.set_xticks(range(1, n + 1), order, rotation=90)
    ax.tick_params(axis="x", labelsize=4.5)
    ax.set_xlabel("run (by rank on the full test set)")
    ax.set_ylabel("rank in bootstrap resamples")
    ax.set_xlim(0.3, n + 0.7)
    ax.set_ylim(n + 0.7, 0.3)
    ax.set_title(f"rank stability, gold: {strategy_style(strategy)['label']} ({average} {metric})")
    ax.legend(loc="lower left", markerscale=2)
    return ax


def tau_heatmap(matrix, *, ax=None, title: str | None = None):
    """Kendall's tau between the rankings of different strategies (a square DataFrame)."""
    ax = _ax(ax, figsize=(3.2, 2.8))
    m = matrix.to_numpy(dtype=float)
    vmin = np.floor(np.nanmin(m) * 20) / 20 - 0.05  # spread the colours over the values present
    im = ax.imshow(m, vmin=vmin, vmax=1.0, cmap="viridis")
    threshold = vmin + 0.6 * (1.0 - vmin)
    labels = [strategy_style(c)["label"].replace(" over annotators", "") for c in matrix.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=5,
                    color="black" if m[i, j] > threshold else "white")
    ax.grid(False)
    ax.figure.colorbar(im, ax=ax, shrink=0.85, label="Kendall's tau")
    if title:
        ax.set_title(title)
    return ax


def qa_convergence(summary, *, ax=None, band: bool = True):
    """QA rank convergence: ``accuracy_all`` (black, with its band) and each parent question (thin)."""
    ax = _ax(ax)
    metrics = list(dict.fromkeys(summary.metric))
    parents = [m for m in metrics if m != "all"]
    colors = _OKABE_ITO_PLUS
    for k, metric in enumerate(parents):
        d = summary[summary.metric == metric].sort_values("n")
        ax.plot(d["n"], d["mean"], color=colors[k % len(colors)], linewidth=0.8, label=metric)
    if "all" in metrics:
        d = summary[summary.metric == "all"].sort_values("n")
        ax.plot(d["n"], d["mean"], color="black", linewidth=1.8, label="all questions")
        if band:
            ax.fill_between(d["n"], d["low"], d["high"], color="black", alpha=0.12, linewidth=0)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("test encounters (n)")
    ax.set_ylabel("L1 rank change to final ranking\n(sum over runs of |rank shift|)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right", ncols=2, fontsize=5.5, title="accuracy of", title_fontsize=6)
    return ax
