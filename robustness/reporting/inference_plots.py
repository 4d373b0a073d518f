"""Figures of what one test set can tell: the significance map, the test-set size, the rankings' agreement.

The style, colours and axes helpers are :mod:`robustness.reporting.plotting`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib as mpl
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, ScalarFormatter

from robustness.reporting.plotting import axes, strategy_style
from robustness.scheme import DEFAULT, lower_is_better, metric_label
from robustness.statistics.ranking_methods import RANKING_METHODS
from robustness.statistics.ranks import format_target, random_l1, target_rule

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["resolution_curve", "significance_map", "significance_cells", "significance_legend", "test_set_size",
           "ranking_agreement_heatmap"]


def significance_map(pairwise: pd.DataFrame, *, strategy: str, metric: str = DEFAULT.metric, average: str = "micro",
                     ax: Axes | None = None, legend: bool = True, fontsize: float | None = None) -> Axes:
    """challengeR-style significance map: cell (row, column) dark when the row's run scores significantly higher.

    Runs are ordered by their rank on the whole test set, best first.

    Parameters
    ----------
    pairwise : DataFrame
        The significance analysis table (``pairwise.parquet``).
    strategy, metric, average : str
        The scheme.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).
    legend : bool
        Draw the legend below the map (a figure of several maps draws one for all: :func:`significance_legend`).
    fontsize : float, optional
        Of the run names (default 6, 4.5 beyond 25 runs).

    Returns
    -------
    matplotlib.axes.Axes
    """
    lower = lower_is_better(metric)  # the differences are in the metric's own sign
    d = pairwise[(pairwise.strategy == strategy) & (pairwise.metric == metric) & (pairwise.average == average)]
    ranks = dict(zip(d.run, d["rank"])) | dict(zip(d.other, d.other_rank))
    order = sorted(ranks, key=lambda s: (ranks[s], s))
    pos = {s: i for i, s in enumerate(order)}
    better = np.zeros((len(order), len(order)), dtype=bool)
    for row in d.itertuples():
        if row.significant:
            winner, loser = (row.run, row.other) if (row.diff > 0) != lower else (row.other, row.run)
            better[pos[winner], pos[loser]] = True
    ax = significance_cells(better, order, ax=ax, color=strategy_style(strategy)["color"], fontsize=fontsize)
    n = len(order)
    color = strategy_style(strategy)["color"]
    ax.set_title(f"{strategy_style(strategy)['label']}, {average} {metric}")
    if legend:
        ax.legend(handles=significance_legend(color), loc="upper center", bbox_to_anchor=(0.5, -0.28 if n > 25 else
                                                                                           -0.2), ncols=2, fontsize=6)
    return ax


def significance_cells(better: np.ndarray, order: list, *, ax: Axes | None = None, color: str = "#1f77b4",
                       fontsize: float | None = None) -> Axes:
    """A significance map's cells: (row, column) in ``color`` where the row's run is significantly better.

    Parameters
    ----------
    better : ndarray of bool (R, R)
        ``better[i, j]``: run ``order[i]`` is significantly better than ``order[j]``.
    order : list of str
        The runs, best first (rows top to bottom, columns left to right).
    ax : matplotlib.axes.Axes, optional
    color : str
    fontsize : float, optional
        Of the run names (default 6, 4.5 beyond 25 runs).

    Returns
    -------
    matplotlib.axes.Axes
    """
    n = len(order)
    m = np.where(np.asarray(better, dtype=bool), 1.0, 0.0)
    np.fill_diagonal(m, 2)
    ax = axes(ax, figsize=(3.6, 3.6))
    ax.imshow(m, cmap=ListedColormap(["#f2f2f2", color, "#ffffff"]), vmin=0, vmax=2, interpolation="nearest")
    size = fontsize or (4.5 if n > 25 else 6)
    ax.set_xticks(range(n), order, rotation=90, fontsize=size)
    ax.set_yticks(range(n), order, fontsize=size)
    ax.grid(False)
    return ax


def significance_legend(color: str) -> list:
    """The significance map's legend entries (a significant cell in ``color``, the others grey).

    Parameters
    ----------
    color : str

    Returns
    -------
    list of matplotlib.patches.Patch
    """
    return [Patch(color=color, label="row run significantly better"),
            Patch(color="#f2f2f2", label="no evidence of a difference")]


def test_set_size(per_size: pd.DataFrame, *, average: str, metric: str = DEFAULT.metric, official: str | None = None,
                  tolerance: float | None = None, n_runs: int | None = None, unit: str = "encounter",
                  ax: Axes | None = None) -> Axes:
    """Expected L1 to the ranking on unlimited data vs test-set size, per strategy.

    Parameters
    ----------
    per_size : DataFrame
        ``ranking_uncertainty.csv``.
    average, metric : str
    official : str, optional
        The strategy whose interval is drawn as a band, and the two priors' average (``expected_l1_both``, which
        the size claim reads) as crosses where it differs from the estimate.
    tolerance : float, optional
        A dotted line at this L1 (the size target, :func:`robustness.statistics.ranks.size_target`).
    n_runs : int, optional
        The number of runs, for the target's rule and a random order's L1 in the legend (default: the tolerance,
        one place per run).
    unit : str
        What a unit is, for the x axis.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    d = per_size[(per_size.metric == metric) & (per_size.average == average)]
    for name in dict.fromkeys(d.strategy):
        g = d[d.strategy == name].sort_values("m")
        st = strategy_style(name)
        label = st.pop("label")
        ax.plot(g.m, g.expected_l1, marker="o", markersize=2, label=label, **st)
        if name == official:
            level = float(g.confidence.iloc[0]) if "confidence" in g else 0.95
            ax.fill_between(g.m, g.low, g.high, color=st["color"], alpha=0.15, linewidth=0,
                            label=f"{level:.0%} interval ({label})")
            if "expected_l1_both" in g and not np.allclose(g.expected_l1_both, g.expected_l1, equal_nan=True):
                ax.plot(g.m, g.expected_l1_both, color=st["color"], linestyle="none", marker="x", markersize=4,
                        markeredgewidth=0.9, label=f"two priors averaged ({label}):\nthe size claim's curve")
    observed = d[d.observed_size].m
    if len(observed):
        ax.axvline(observed.iloc[0], color="black", linewidth=0.6, linestyle="-", label="this test set")
    if tolerance is not None:
        runs = int(tolerance) if n_runs is None else int(n_runs)
        ax.axhline(tolerance, color="black", linewidth=0.6, linestyle=":",
                   label=f"L1 = {format_target(tolerance)} ({target_rule(tolerance, runs)};\na random order: "
                         f"{random_l1(runs):.1f})")
    ax.set_xscale("log", base=2)

    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(f"test-set size ({unit}s, log scale)")
    ax.set_ylabel("expected L1 to the ranking on\nunlimited data (estimate)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{metric_label(metric)}, {average}")
    return ax


def _short(ranking: str) -> str:
    """A ranking method's label for a figure's tick (the registry's short label, else its name)."""
    method = RANKING_METHODS.get(ranking)
    return (method.short_label or method.name) if method else ranking


def ranking_agreement_heatmap(agreement: pd.DataFrame, *, average: str = "macro", metric: str | None = None,
                              rows: str = "strategy", ax: Axes | None = None) -> Axes:
    """Kendall's tau between the rankings of two ranking methods (columns) under each gold strategy (rows).

    ``agreement`` is the ``kendall_tau.csv`` table (``metric, average, ranking,
    strategy, other_ranking, other, tau, tau_low, tau_high``); each cell shows
    tau on the whole test set and its 95% bootstrap interval; a grey cell is
    undefined (a ranking that ties every run).

    Parameters
    ----------
    agreement : DataFrame
    average : str
    metric : str, optional
        Only this metric.
    rows : {'strategy', 'metric'}
        ``metric`` puts the metrics in the rows instead (one strategy, several metrics, as in QA).
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax, figsize=(3.6, 3.0))
    d = agreement[(agreement.average == average) & (agreement.strategy == agreement.other)
                  & (agreement.ranking != agreement.other_ranking)]
    if metric is not None:
        d = d[d.metric == metric]
    methods = list(dict.fromkeys(list(agreement.ranking) + list(agreement.other_ranking)))
    pairs = [(a, b) for i, a in enumerate(methods) for b in methods[i + 1:]
             if ((d.ranking == a) & (d.other_ranking == b)).any()]
    names = list(dict.fromkeys(d[rows]))
    m = np.full((len(names), len(pairs)), np.nan)
    text = np.full(m.shape, "n/a", dtype=object)
    for row in d.itertuples():
        if (row.ranking, row.other_ranking) in pairs:
            i, j = names.index(getattr(row, rows)), pairs.index((row.ranking, row.other_ranking))
            m[i, j] = row.tau
            if row.tau == row.tau:
                text[i, j] = f"{row.tau:.2f}\n[{row.tau_low:.2f}, {row.tau_high:.2f}]"

    cmap = mpl.colormaps["viridis"].with_extremes(bad="#d9d9d9")
    low = np.nanmin(m) if np.isfinite(m).any() else 0.0
    vmin = max(-1.0, np.floor(low * 20) / 20 - 0.05)  # spread the colours over the values present
    im = ax.imshow(np.ma.masked_invalid(m), vmin=vmin, vmax=1.0, cmap=cmap, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            light = m[i, j] != m[i, j] or m[i, j] > vmin + 0.6 * (1.0 - vmin)
            ax.text(j, i, text[i, j], ha="center", va="center", fontsize=4.8, color="black" if light else "white")
    ax.set_xticks(range(len(pairs)), [f"{_short(a)}\nvs\n{_short(b)}" for a, b in pairs], fontsize=5.5)
    label = (lambda n: strategy_style(n)["label"].replace(" over annotators", "")) if rows == "strategy" else str
    ax.set_yticks(range(len(names)), [label(n) for n in names])
    ax.grid(False)
    ax.figure.colorbar(im, ax=ax, shrink=0.85, label="Kendall's tau")
    ax.set_title(f"{metric_label(metric) + ', ' if metric else ''}{average}")
    return ax


def resolution_curve(table: pd.DataFrame, *, strategy: str, metric: str, average: str, unit: str = "encounter",
                     difference: float | None = None, ax: Axes | None = None) -> Axes:
    """The resolution (the smallest true difference declared with 80% power) against the test-set size.

    Parameters
    ----------
    table : DataFrame
        ``resolution.csv`` (:func:`robustness.statistics.resolution.resolution_table`).
    strategy, metric, average : str
        The scheme drawn.
    unit : str
        What a unit is, for the x axis.
    difference : float, optional
        A difference asked for (``--resolve``): a horizontal line.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    d = table[(table.strategy == strategy) & (table.metric == metric) & (table.average == average)].sort_values("units")
    if d.empty:
        return ax
    st = strategy_style(strategy)
    color = st["color"]
    ax.fill_between(d.units, d.resolution_low, d.resolution_high, color=color, alpha=0.15, linewidth=0,
                    label="95% interval (SD's)")
    ax.plot(d.units, d.resolution, color=color, marker="o", markersize=2, label="median neighbouring pair")
    ax.plot(d.units, d.resolution_q75, color=color, linestyle="--", linewidth=0.8, label="upper quartile of pairs")
    ax.plot(d.units, d.resolution_holm, color=color, linestyle=":", linewidth=0.8, label="Holm's first level")
    ax.axvline(int(d.test_units.iloc[0]), color="black", linewidth=0.6, label="this test set")
    if difference is not None:
        ax.axhline(difference, color="grey", linewidth=0.6, linestyle="-.", label=f"difference asked: {difference:g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    plain = FuncFormatter(lambda v, _: f"{v:g}")  # no mathtext: the package's style leaves it off
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else ""))
    ax.set_xlabel(f"test-set size ({unit}s, log scale)")
    ax.set_ylabel(f"smallest difference declared\n(80% power; {metric_label(metric)}, log scale)")
    return ax
