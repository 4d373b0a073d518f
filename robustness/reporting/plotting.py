"""Figures from result tables: convergence curves, forest plots, rank blobs, Kendall's tau heatmaps.

Every function takes tidy tables (as written by the studies), an optional
``ax`` and returns the Axes (or the Figure for multi-panel figures); none does
file I/O. :func:`style` applies the house style (``robustness.mplstyle``):
Okabe-Ito colour-blind-safe colours, sizes readable at column width. Each gold
strategy's colour, dashes and label come from its entry in the registry
(:data:`robustness.overlap.gold.STRATEGIES`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from robustness.errors import deprecated_keywords
from robustness.overlap.gold import ONE_RANDOM, get_strategy
from robustness.scheme import DEFAULT, lower_is_better, metric_label

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["axes", "style", "strategy_style", "convergence", "convergence_figure", "auc_intervals", "forest",
           "interval_note_text", "point_intervals", "rank_blobs", "tau_heatmap", "qa_convergence", "ONE_RANDOM"]

STYLE_FILE = Path(__file__).with_name("robustness.mplstyle")

# Okabe-Ito without black, then grey and Tol's wine: nine colour-blind-safe line colours.
_OKABE_ITO_PLUS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999", "#882255")


def strategy_style(name: str) -> dict:
    """Line style and ``label`` of a gold strategy, from the registry (unknown names get a black line).

    Parameters
    ----------
    name : str

    Returns
    -------
    dict
        Matplotlib line properties and ``label``.
    """
    if name == ONE_RANDOM:
        return dict(color="#777777", linestyle=(0, (1, 1)), label="one random annotator (mean of draws)")
    try:
        strategy = get_strategy(name)
    except ValueError:
        return dict(color="black", linestyle="-", label=name)
    return dict(strategy.style, label=strategy.label)




@contextlib.contextmanager
def style() -> Iterator[None]:
    """Context manager applying the house style.

    Yields
    ------
    None
    """
    with plt.style.context(str(STYLE_FILE)):
        yield


def axes(ax: Axes | None = None, **kw: Any) -> Axes:
    """``ax``, or a new figure's axes: what every plot function starts with, to draw into a caller's axes or alone.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
    **kw
        ``plt.subplots`` options for a new figure, such as ``figsize``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        _, ax = plt.subplots(**kw)
    return ax


def _identical_to(curves: dict, *, rel: float = 0.01) -> dict:
    """For each name whose curve matches an earlier one's, the earlier name and ``=`` or ``≈``.

    ``=`` when equal, ``≈`` when no point differs by more than ``rel`` of the largest value (indistinguishable on
    the plot).
    """
    out: dict = {}
    seen: list = []
    top = max((float(np.nanmax(y)) for y in curves.values() if len(y)), default=0.0)
    for name, y in curves.items():
        for other, yo in seen:
            if len(y) != len(yo):
                continue
            if np.array_equal(y, yo):
                out[name] = (other, "=")
                break
            if np.nanmax(np.abs(y - yo)) <= rel * top:
                out[name] = (other, "≈")
                break
        else:
            seen.append((name, y))
    return out


def convergence(summary: pd.DataFrame, *, metric: str, average: str, example: pd.DataFrame | None = None,
                ax: Axes | None = None, band: str | bool | None = None, strategies: list[str] | None = None,
                x: str = "n_images", **deprecated: Any) -> Axes:
    """L1 rank change vs number of test images, one line per strategy.

    Parameters
    ----------
    summary : DataFrame
        ``curves_summary`` table: strategy, metric, average, n, n_images, mean, low, high.
    metric, average : str
        The schemes drawn.
    example : DataFrame, optional
        One order's curves (``curves`` rows of a single order): drawn thin, as
        the paper's single-order figure.
    band : str or True, optional
        Shade the band between ``low`` and ``high`` (e.g. 90% of orders) for
        this strategy only (``True``: every strategy).
    ax : matplotlib.axes.Axes, optional
        Draw into it, without a legend: the caller's figure holds it (``ax.legend()`` draws one there). Default: a
        new figure, with the legend.
    strategies : list of str, optional
        Which strategies, in which order (default: the table's).
    x : {'n_images', 'n'}
        The x axis: images in the prefix, or units.
    **deprecated
        ``legend=`` (bool), still honoured with a DeprecationWarning.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    A strategy whose mean curve equals an earlier one's is drawn dashed and
    labelled ``name (= other)`` (``name (≈ other)`` when no point differs by
    more than 1% of the largest value), so that it is not lost under it.
    """
    legacy = deprecated_keywords("convergence", deprecated, ["legend"], "ax= for a figure whose legend is yours")
    legend = legacy.get("legend", ax is None)
    ax = axes(ax)
    sel = summary[(summary.metric == metric) & (summary.average == average)]
    names = list(dict.fromkeys(sel.strategy)) if strategies is None else list(strategies)
    curves = {n: sel[sel.strategy == n].sort_values("n") for n in names}
    curves = {n: d for n, d in curves.items() if not d.empty}
    same = _identical_to({n: d["mean"].to_numpy() for n, d in curves.items()})
    for name, d in curves.items():
        st = strategy_style(name)
        label = st.pop("label")
        if name in same:
            other, how = same[name]
            label = f"{label} ({how} {strategy_style(other)['label']})"
            st["linestyle"] = (0, (2, 2))
        ax.plot(d[x], d["mean"], label=label, **st)
        if band is True or band == name:
            ax.fill_between(d[x], d["low"], d["high"], facecolor=to_rgba(st["color"], 0.16),
                            edgecolor=to_rgba(st["color"], 0.7), linewidth=0.5)
        if example is not None:
            e = example[(example.metric == metric) & (example.average == average) & (example.strategy == name)]
            if not e.empty:
                e = e.sort_values("n")
                ax.plot(e[x], e["l1"], color=st["color"], linewidth=0.4, alpha=0.35, linestyle="-")

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("test images (n)" if x == "n_images" else "test units (n)")
    ax.set_ylabel("L1 rank change to final ranking\n(sum over runs of |rank shift|)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.set_title(f"{metric_label(metric)}, {average}")
    if legend:
        ax.legend(loc="upper right", ncols=2, handlelength=2.2)
    return ax


def convergence_figure(summary: pd.DataFrame, *, average: str, example: pd.DataFrame | None = None,
                       official: str | None = None, band_label: str = "90% of orders",
                       title: str | None = None) -> Figure:
    """Jaccard and Dice panels side by side (the paper's Figure 3, macro); micro: the Jaccard panel alone (Figure 2).

    Micro Dice is a monotone function of micro Jaccard (2J / (1 + J) of the same pooled counts), so its panel would
    repeat the Jaccard one; the figure says so instead.

    Thick lines: mean over orders; thin: one single order (as the paper showed);
    band: ``band_label`` for the ``official`` strategy only; ``title`` above both.

    Parameters
    ----------
    summary : DataFrame
        ``curves_summary.csv``.
    average : {'micro', 'macro'}
    example : DataFrame, optional
        One order's curves.
    official : str, optional
        The strategy whose band is drawn.
    band_label : str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    # micro Dice = 2J / (1 + J) of the pooled counts: it ranks the runs exactly as micro Jaccard, one panel says all
    metrics = ("jaccard",) if average == "micro" else ("jaccard", "dice")
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.6 if len(metrics) == 1 else 7.0, 2.8), sharey=True,
                             layout="constrained", squeeze=False)
    axes = axes[0]
    for ax, metric in zip(axes, metrics):
        convergence(summary, metric=metric, average=average, example=example, ax=ax, band=official)
    for ax in axes[1:]:
        ax.set_ylabel("")
    if len(metrics) == 1:
        axes[0].text(0.98, 0.97, "micro Dice ranks identically\n(Dice = 2J / (1 + J))", transform=axes[0].transAxes,
                     ha="right", va="top", fontsize=6, color="0.3")
    handles, labels = axes[0].get_legend_handles_labels()
    extra: list = [Line2D([], [], color="grey", linewidth=1.2), Line2D([], [], color="grey", linewidth=0.4)]
    extra_labels = ["mean over orders", "one single order"]
    if official is not None:
        extra.append(Patch(color=strategy_style(official)["color"], alpha=0.18, linewidth=0))
        extra_labels.append(f"{band_label} ({strategy_style(official)['label']})")
    fig.legend(handles + extra, labels + extra_labels, loc="outside right center", title="gold strategy",
               title_fontsize=6.5)
    if title:
        fig.suptitle(title, fontsize=7)
    return fig


def auc_intervals(points: pd.DataFrame, *, metric: str = DEFAULT.metric, average: str, ax: Axes | None = None) -> Axes:
    """Area under the mean L1 curve per strategy with its interval.

    Parameters
    ----------
    points : DataFrame
        ``convergence.csv`` rows of one tolerance.
    metric, average : str
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    d = points[(points.metric == metric) & (points.average == average)]
    d = d.drop_duplicates("strategy").iloc[::-1]
    y = np.arange(len(d))
    for yi, row in zip(y, d.itertuples()):
        color = strategy_style(row.strategy)["color"]
        ax.errorbar(row.auc, yi, xerr=[[row.auc - row.auc_low], [row.auc_high - row.auc]], fmt="o",
                    markersize=3, color=color, ecolor=color, elinewidth=1.0, capsize=2)
    ax.set_yticks(y, [strategy_style(s)["label"] for s in d.strategy])
    ax.set_xlabel("area under the mean L1 curve\n(mean L1 over prefixes; 95% interval over orders)")
    ax.set_title(f"{metric_label(metric)}, {average}")
    ax.grid(axis="y", visible=False)
    return ax


def point_intervals(ax: Axes, points: tuple, interval: tuple, *, color: str,
                    sizes: tuple[float, float, float] = (2.5, 0.8, 0.0)) -> None:
    """Points with their intervals drawn horizontally, each interval a segment of its own.

    A bootstrap interval need not hold its estimate (a percentile or studentized interval from few or skewed
    resamples), and matplotlib's ``errorbar`` refuses such an interval (negative error lengths); here the segment
    is drawn where the interval lies and the point where the estimate does.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    points : (array_like, array_like)
        The estimates and their positions on the other axis.
    interval : (array_like, array_like)
        The intervals' ends (nan: no segment).
    color : str
    sizes : (float, float, float)
        The points' marker size, the segments' line width and their caps' half-length (points; 0: no caps), as
        ``errorbar``'s ``markersize``, ``elinewidth`` and ``capsize``.
    """
    centre, at = (np.asarray(v, dtype=float) for v in points)
    low, high = (np.asarray(v, dtype=float) for v in interval)
    markersize, linewidth, capsize = sizes
    ax.hlines(at, low, high, colors=color, linewidth=linewidth)
    if capsize:
        ax.plot(np.r_[low, high], np.r_[at, at], "|", color=color, markersize=2 * capsize, linestyle="none")
    ax.plot(centre, at, "o", color=color, markersize=markersize, linestyle="none")


def forest(intervals: pd.DataFrame, *, strategy: str, metric: str = DEFAULT.metric, average: str = "micro",
           ax: Axes | None = None, top: int | None = None, unit: str = "", interval_note: bool = True) -> Axes:
    """Leaderboard with bootstrap confidence intervals: one row per run, best on top; the axis says which interval.

    Parameters
    ----------
    intervals : DataFrame
        ``bootstrap_ci.csv`` rows of one interval method.
    strategy, metric, average : str
        The scheme.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).
    top : int, optional
        Only the best ``top`` runs.
    unit : str
        The values' unit (``mm``; :func:`robustness.scheme.metric_unit`), named on the axis.
    interval_note : bool
        Say on the axis which interval is drawn (False: the figure says it once for all its panels,
        :func:`interval_note_text`).

    Returns
    -------
    matplotlib.axes.Axes
    """
    d = intervals[(intervals.strategy == strategy) & (intervals.metric == metric) & (intervals.average == average)]
    d = d.sort_values("score", ascending=not lower_is_better(metric))  # the best on top
    if top is not None:
        d = d.tail(top)
    ax = axes(ax, figsize=(3.5, max(2.0, 0.12 * len(d) + 0.6)))
    y = np.arange(len(d))
    color = strategy_style(strategy)["color"]
    point_intervals(ax, (d["score"], y), (d["low"], d["high"]), color=color)
    ax.set_yticks(y, d["run"])
    ax.tick_params(axis="y", labelsize=5.5)
    direction = ", smaller is better" if lower_is_better(metric) else ""
    ax.set_xlabel(f"{average} {metric_label(metric)}{f' ({unit})' if unit else ''}{direction}"
                  + (f"\n({interval_note_text(d)})" if interval_note else ""))
    ax.set_title(f"gold: {strategy_style(strategy)['label']}")
    ax.grid(axis="y", visible=False)
    return ax


def interval_note_text(intervals: pd.DataFrame) -> str:
    """Which interval a forest plot draws: ``95% CI: studentized bootstrap, 200 resamples of encounters``.

    Parameters
    ----------
    intervals : DataFrame
        ``bootstrap_ci.csv`` rows of one interval method (a run whose interval fell back to the percentile
        bootstrap, its standard error being 0, is named).

    Returns
    -------
    str
    """
    first = intervals.iloc[0]
    methods = list(dict.fromkeys(intervals["method"]))
    how = f"{methods[0]} bootstrap" if len(methods) == 1 else (
        f"{' / '.join(methods)} bootstrap" if "run" not in intervals else
        f"studentized bootstrap; percentile for {', '.join(intervals.run[intervals.method == 'percentile'])}")
    if "unit" in intervals:
        how += f", {int(first['n_resamples'])} resamples of {first['unit']}s"
    return f"{int(round(first['confidence_level'] * 100))}% CI: {how}"


def rank_blobs(rank_distribution: pd.DataFrame, *, strategy: str, metric: str = DEFAULT.metric, average: str = "micro",
               ax: Axes | None = None) -> Axes:
    """challengeR-style blob plot: for each run (ordered by full-set rank), how often it takes each rank.

    Parameters
    ----------
    rank_distribution : DataFrame
        ``rank_distribution.csv``.
    strategy, metric, average : str
        The scheme.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    d = rank_distribution[(rank_distribution.strategy == strategy) & (rank_distribution.metric == metric)
                          & (rank_distribution.average == average)]
    order = d.drop_duplicates("run").sort_values("full_rank")["run"].tolist()
    pos = {s: i + 1 for i, s in enumerate(order)}
    ax = axes(ax, figsize=(3.5, 3.2))
    xs = d["run"].map(pos)
    color = strategy_style(strategy)["color"]
    ax.scatter(xs, d["rank"], s=40 * d["share"], color=color, alpha=0.8, linewidths=0)
    n = len(order)
    ax.plot([1, n], [1, n], color="black", linewidth=0.5, alpha=0.5)
    full = d.drop_duplicates("run")
    ax.scatter(full["run"].map(pos), full["full_rank"], marker="x", s=6, color="black", linewidths=0.5,
               label="rank on the full test set")
    for share in (0.1, 0.5, 1.0):  # size legend: dot area is the share of resamples
        ax.scatter([], [], s=40 * share, color=color, alpha=0.8, linewidths=0, label=f"{share:.0%} of resamples")
    ax.set_xticks(range(1, n + 1), order, rotation=90)
    ax.tick_params(axis="x", labelsize=4.5)
    ax.set_xlabel("run (by rank on the full test set)")
    ax.set_ylabel("rank in bootstrap resamples")
    ax.set_xlim(0.3, n + 0.7)
    ax.set_ylim(n + 0.7, 0.3)
    ax.set_title(f"rank stability, gold: {strategy_style(strategy)['label']} ({average} {metric})")
    ax.legend(loc="lower left", title="dot area: share of resamples at that rank", title_fontsize=6)
    return ax


def tau_heatmap(matrix: pd.DataFrame, *, low: pd.DataFrame | None = None, high: pd.DataFrame | None = None,
                ax: Axes | None = None, title: str | None = None) -> Axes:
    """Kendall's tau between the rankings of different strategies.

    Parameters
    ----------
    matrix : DataFrame
        Square: tau between the strategies of its rows and columns.
    low, high : DataFrame, optional
        Square like ``matrix``: a 95% interval of each tau. The cells above the diagonal then print tau and the
        cells below it its interval, so that every number the figure shows comes with its uncertainty.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax, figsize=(3.2, 2.8))
    m = matrix.to_numpy(dtype=float)
    lo = None if low is None else low.loc[matrix.index, matrix.columns].to_numpy(dtype=float)
    hi = None if high is None else high.loc[matrix.index, matrix.columns].to_numpy(dtype=float)
    finite = m[np.isfinite(m)]  # tau is undefined (nan) where a ranking is all ties
    vmin = np.floor(finite.min() * 20) / 20 - 0.05 if finite.size else -1.0  # spread the colours over the values
    im = ax.imshow(m, vmin=vmin, vmax=1.0, cmap="viridis")
    threshold = vmin + 0.6 * (1.0 - vmin)
    labels = [strategy_style(c)["label"].replace(" over annotators", "") for c in matrix.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            text = f"{m[i, j]:.2f}"
            if lo is not None and hi is not None and i > j:
                text = f"{lo[i, j]:.2f}\n{hi[i, j]:.2f}"
            ax.text(j, i, text.replace("-", "\u2212"), ha="center", va="center",
                    fontsize=5 if "\n" not in text else 4, linespacing=0.95,
                    color="black" if m[i, j] > threshold else "white")
    ax.grid(False)
    ax.figure.colorbar(im, ax=ax, shrink=0.85, label="Kendall's tau")
    if title:
        ax.set_title(title)
    return ax


def qa_convergence(summary: pd.DataFrame, *, ax: Axes | None = None, band: bool = True) -> Axes:
    """QA rank convergence: ``accuracy_all`` (black, with its band) and each parent question (thin).

    Parameters
    ----------
    summary : DataFrame
        The QA study's ``curves_summary.csv``.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).
    band : bool
        Shade the band of orders of ``accuracy_all``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
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
            ax.fill_between(d["n"], d["low"], d["high"], color="black", alpha=0.12, linewidth=0,
                            label="all questions: 90% of orders")

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("test encounters (n)")
    ax.set_ylabel("L1 rank change to final ranking\n(sum over runs of |rank shift|)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right", ncols=2, fontsize=5.5, title="accuracy of", title_fontsize=6)
    return ax
