"""Figures of the design study: ranking measures against test-set size and annotator agreement.

Like :mod:`robustness.reporting.plotting` (whose house style and strategy styles they use):
tidy tables in (``design_summary.csv``), an optional ``ax``, the Axes out, no file I/O.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullLocator

from robustness.reporting.plotting import axes, strategy_style

__all__ = ["design_tau", "design_by_agreement", "design_size"]


def design_tau(summary, *, average: str, measure: str = "tau_population", highlight: str | None = None, ax=None):
    """Design study: a ranking measure (mean over replicates) against the test-set size, one line per strategy;
    the 95% band over replicates for ``highlight``."""
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
    from matplotlib.ticker import ScalarFormatter

    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("test encounters (log scale)")
    ax.set_title(average)
    return ax


def design_by_agreement(summary, *, average: str, measure: str = "l1_population", ax=None):
    """Design study: a measure at one test-set size (mean and 95% interval over replicates) against the
    annotators' agreement, one line per strategy."""
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


def design_size(sizes, *, average: str, grid, ax=None):
    """Design study: encounters needed for a target (``design_size`` table: strategy, agreement, needed) against
    the annotators' agreement, on a log axis ticked at the ``grid`` of test-set sizes, with the sizes where the
    ends of the L1's 95% interval over replicates reach the target (vertical lines); a target not reached on the
    grid is a triangle above the largest size (dotted)."""
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
        if (~reached).any():
            ax.scatter(g.agreement[~reached], np.full((~reached).sum(), largest * 1.25), marker="^", s=12,
                       color=st["color"])
    ax.axhline(largest, color="black", linewidth=0.5, linestyle=":")
    ax.set_yscale("log", base=2)
    ax.set_ylim(grid[0] / 1.25, largest * 1.5)
    ax.set_yticks(grid, [str(n) for n in grid])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("annotator agreement (1 = annotators equal the truth)")
    ax.set_title(average)
    return ax
