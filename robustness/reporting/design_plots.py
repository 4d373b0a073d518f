"""Figures of the design study: ranking measures against test-set size and annotator agreement.

Like :mod:`robustness.reporting.plotting` (whose house style and strategy styles they use):
tidy tables in (``design_summary.csv``), an optional ``ax``, the Axes out, no file I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.ticker import NullLocator, ScalarFormatter

from robustness.reporting.plotting import axes, strategy_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["design_tau", "design_by_agreement", "design_size"]


def design_tau(summary: pd.DataFrame, *, average: str, measure: str = "tau_population", highlight: str | None = None,
               ax: Axes | None = None, unit: str = "encounter") -> Axes:
    """A ranking measure (mean over replicates) against the test-set size, one line per strategy.

    Parameters
    ----------
    summary : DataFrame
        ``design_summary.csv`` of one setting.
    average : str
    measure : str
        A measure of :data:`robustness.simulation.recommendation.MEASURES`.
    highlight : str, optional
        The strategy whose 95% band over replicates is drawn.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).
    unit : str
        The test-set unit (``image``, ``volume`` or ``encounter``), for the x axis.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    d = summary[(summary.average == average)]
    for name in dict.fromkeys(d.strategy):
        g = d[d.strategy == name].sort_values("encounters")
        st = strategy_style(name)
        label = st.pop("label")
        ax.plot(g.encounters, g[measure], marker="o", markersize=2.5, label=label, **st)
        if name == highlight:
            ax.fill_between(g.encounters, g[f"{measure}_low"], g[f"{measure}_high"], color=st["color"], alpha=0.18,
                            linewidth=0, label=f"95% interval over replicates ({label})")
    ax.set_xscale("log", base=2)

    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(f"test {unit}s (log scale)")
    ax.set_title(average)
    return ax


def design_by_agreement(summary: pd.DataFrame, *, average: str, measure: str = "l1_population",
                        ax: Axes | None = None) -> Axes:
    """A measure at one test-set size (mean and 95% interval over replicates) against the annotators' agreement.

    Parameters
    ----------
    summary : DataFrame
        ``design_summary.csv`` at one size.
    average, measure : str
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    d = summary[summary.average == average]
    for k, name in enumerate(dict.fromkeys(d.strategy)):
        g = d[d.strategy == name].sort_values("agreement")
        st = strategy_style(name)
        label = st.pop("label")
        x = g.agreement + (k - 4) * 0.004  # a small dodge keeps the intervals apart
        ax.errorbar(x, g[measure], yerr=[g[measure] - g[f"{measure}_low"], g[f"{measure}_high"] - g[measure]],
                    marker="o", markersize=2.5, capsize=0, elinewidth=0.6, label=label, **st)
    ax.set_title(average)
    return ax


def design_size(sizes: pd.DataFrame, *, average: str, grid: Iterable[int], ax: Axes | None = None) -> Axes:
    """Encounters needed for a target against the annotators' agreement.

    On a log axis ticked at the ``grid`` of test-set sizes, with the sizes where the ends of the L1's 95%
    interval over replicates reach the target (vertical lines); a target not reached on the grid is a triangle
    above the largest size (dotted).

    Parameters
    ----------
    sizes : DataFrame
        :func:`robustness.simulation.recommendation.needed_by_agreement`: strategy, agreement, needed, needed_low,
        needed_high.
    average : str
    grid : iterable of int
        The test-set sizes simulated.
    ax : matplotlib.axes.Axes, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = axes(ax)
    grid = sorted(int(n) for n in grid)
    largest = grid[-1]
    d = sizes[sizes.average == average]
    for name in dict.fromkeys(d.strategy):
        g = d[d.strategy == name].sort_values("agreement")
        st = strategy_style(name)
        label = st.pop("label")
        y = g.needed.to_numpy(dtype=float)
        reached = ~np.isnan(y)
        ax.plot(g.agreement[reached], y[reached], marker="o", markersize=2.5, label=label, **st)
        if "needed_low" in g:  # the 95% interval over replicates; an upper end beyond the grid reaches the top
            low = g.needed_low.to_numpy(dtype=float)
            high = np.where(np.isnan(g.needed_high.to_numpy(dtype=float)), largest * 1.45, g.needed_high)
            has = ~np.isnan(low)
            ax.vlines(g.agreement[has], low[has], high[has], color=st["color"], linewidth=0.8, alpha=0.7)
        if (~reached).any():  # beyond the sizes simulated for this scheme: a triangle just above its largest
            own = g.largest.to_numpy(dtype=float) if "largest" in g else np.full(len(g), float(largest))
            ax.scatter(g.agreement[~reached], own[~reached] * 1.25, marker="^", s=12, color=st["color"])
    ax.axhline(largest, color="black", linewidth=0.5, linestyle=":")
    ax.set_yscale("log", base=2)
    ax.set_ylim(grid[0] / 1.25, largest * 1.5)
    ax.set_yticks(grid, [str(n) for n in grid])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("annotator agreement (1 = annotators equal the truth)")
    ax.set_title(average)
    return ax
