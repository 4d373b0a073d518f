"""Figures across the tasks a consensus combines: raw ranks per task, and the tasks clustered by their rankings.

challengeR's ``stability()`` (:func:`raw_rank_blobs`), ``dendrogram()`` (:func:`task_dendrogram`) and ``network()``
(:func:`task_network`), drawn from ``ranking.csv``, ``consensus.csv`` and ``task_distances.csv``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import squareform
from scipy.stats import gaussian_kde

from robustness.reporting.rank_plots import run_colors, tick_runs

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["raw_rank_blobs", "task_dendrogram", "task_network", "tau_densities"]


def raw_rank_blobs(ranking: pd.DataFrame, consensus: pd.DataFrame, order: list, tasks: list, *, method: str,
                   ax: Axes) -> None:
    """ChallengeR's ``stability()`` blob plot: each run's raw rank in every task, no resampling.

    Area of a blob: the share of the tasks where the run takes that rank; black: the median rank over the tasks and
    the range of its middle half (25% to 75%); red cross: the consensus rank.

    Parameters
    ----------
    ranking, consensus : pandas.DataFrame
        ``ranking.csv`` and ``consensus.csv`` (of one consensus: one strategy and metric).
    order : list of str
        The runs, best first (by the consensus).
    tasks : list of str
        The tasks combined.
    method : str
    ax : matplotlib.axes.Axes
    """
    r = ranking[(ranking.ranking == method) & ranking.task.isin(tasks)]
    c = consensus[consensus.ranking == method].set_index("run")["rank"]
    colors = run_colors(order)
    for k, run in enumerate(order):
        ranks = r.loc[r.run == run, "rank"].dropna().to_numpy(dtype=np.float64)
        if not ranks.size:
            continue
        values, counts = np.unique(ranks, return_counts=True)
        ax.scatter(np.full(values.size, k), values, s=300 * counts / len(tasks), color=colors[run], alpha=0.6, lw=0)
        q1, med, q3 = np.quantile(ranks, [0.25, 0.5, 0.75])
        ax.vlines(k, q1, q3, color="black", lw=1)
        ax.scatter([k], [med], marker="_", s=120, color="black")
        if run in c.index:
            ax.scatter([k], [c[run]], marker="x", s=25, color="red", zorder=3)
    ax.plot([-0.5, len(order) - 0.5], [0.5, len(order) + 0.5], color="0.8", lw=0.6, zorder=0)
    tick_runs(ax, range(len(order)), order)
    ax.set_ylabel("rank in the task")
    ax.invert_yaxis()


def _task_matrix(distances: pd.DataFrame, tasks: list) -> np.ndarray:
    index = {t: k for k, t in enumerate(tasks)}
    d = np.zeros((len(tasks), len(tasks)))
    for row in distances.itertuples():
        d[index[row.task], index[row.other]] = d[index[row.other], index[row.task]] = row.symdiff
    return d


def task_dendrogram(distances: pd.DataFrame, tasks: list, *, ax: Axes) -> None:
    """ChallengeR's ``dendrogram()``: the tasks clustered by the distance between their rankings (complete linkage).

    Parameters
    ----------
    distances : pandas.DataFrame
        ``task_distances.csv``'s rows of one consensus and ranking method.
    tasks : list of str
    ax : matplotlib.axes.Axes
    """
    d = _task_matrix(distances, tasks)
    if d.max() == 0:  # nothing to cluster (and scipy's axis would be empty)
        ax.text(0.5, 0.5, f"all {len(tasks)} tasks rank the runs identically", ha="center", va="center",
                transform=ax.transAxes, fontsize=8)
        ax.set_axis_off()
        return
    z = linkage(squareform(d, checks=False), method="complete")
    dendrogram(z, labels=[str(t) for t in tasks], orientation="left", ax=ax, color_threshold=0,
               above_threshold_color="0.3", leaf_font_size=7)
    ax.set_xlabel("symmetric-difference distance (complete linkage)")
    ax.grid(False)


def task_network(distances: pd.DataFrame, tasks: list, winners: dict, *, ax: Axes) -> None:
    """ChallengeR's ``network()``: the tasks placed so that close rankings lie close, coloured by their first run.

    Positions: classical multidimensional scaling of the symmetric-difference distances (tasks ranking the runs
    identically share a node); a line joins every pair of nodes, the darker and wider the closer their rankings.

    Parameters
    ----------
    distances : pandas.DataFrame
        ``task_distances.csv``'s rows of one consensus and ranking method.
    tasks : list of str
    winners : dict
        Task -> the run ranked first there (ties: the runs joined by ``=``).
    ax : matplotlib.axes.Axes
    """
    d = _task_matrix(distances, tasks)
    groups: list[list[int]] = []  # tasks that rank the runs identically share one node
    for k in range(len(tasks)):
        same = next((g for g in groups if d[g[0], k] == 0 and winners[tasks[g[0]]] == winners[tasks[k]]), None)
        if same is None:
            groups.append([k])
        else:
            same.append(k)
    d = d[np.ix_([g[0] for g in groups], [g[0] for g in groups])]
    n = len(groups)
    centre = np.eye(n) - 1.0 / n
    b = -0.5 * centre @ (d ** 2) @ centre
    values, vectors = np.linalg.eigh(b)
    top = np.argsort(values)[::-1][:2]
    xy = vectors[:, top] * np.sqrt(np.clip(values[top], 0.0, None))
    if xy.shape[1] < 2:
        xy = np.column_stack([xy, np.zeros(n)])
    scale = d.max() if d.max() > 0 else 1.0
    for i in range(n):
        for j in range(i + 1, n):
            close = 1.0 - d[i, j] / scale
            ax.plot(xy[[i, j], 0], xy[[i, j], 1], color=str(0.85 - 0.6 * close), lw=0.4 + 2.0 * close, zorder=1)
    colors = run_colors(sorted(set(winners.values()), key=str))
    for k, g in enumerate(groups):
        ax.scatter(xy[k, 0], xy[k, 1], s=120, color=colors[winners[tasks[g[0]]]], zorder=2, edgecolor="white")
        ax.annotate(", ".join(str(tasks[i]) for i in g), xy[k], fontsize=7, xytext=(6, 6 if k % 2 == 0 else -10),
                    textcoords="offset points")
    for run, color in colors.items():
        ax.scatter([], [], s=60, color=color, label=str(run))
    ax.legend(title="first in the task", fontsize=6, title_fontsize=7, loc="best")
    ax.margins(0.15)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


def tau_densities(taus: pd.DataFrame, *, ax: Axes) -> None:
    """The density of Kendall's tau between each task's ranking and its resamples' (challengeR's ``density()``).

    One row per task, each on its own baseline (a ridgeline), so that no task's curve hides another's: a Gaussian
    kernel density estimate (Scott's bandwidth, cut at -1 and 1) scaled to the row's height; a task whose resamples
    all give one tau is a bar there. Overlaid on one axis, a task at tau 1 in every resample (a vertical line)
    covered another's spike at 1, and a spike of 35 flattened every wider curve to the axis.

    Parameters
    ----------
    taus : pandas.DataFrame
        ``rank_bootstrap_tau.csv``'s rows of one ranking method.
    ax : matplotlib.axes.Axes
    """
    grid = np.linspace(-1.0, 1.0, 401)
    groups = [(task, g.tau.dropna().to_numpy(dtype=np.float64)) for task, g in taus.groupby("task", sort=False)]
    groups = [(task, x) for task, x in groups if x.size]
    ticks, labels = [], []
    for k, (task, x) in enumerate(groups):
        base = float(len(groups) - 1 - k)  # the first task on top
        color = f"C{k % 10}"
        if np.ptp(x) == 0:
            ax.vlines(x[0], base, base + 0.85, color=color, lw=2.0)
            labels.append(f"{task} (all {x[0]:.2f})")
        else:
            y = gaussian_kde(x)(grid)
            y = 0.85 * y / y.max()
            ax.fill_between(grid, base, base + y, color=color, alpha=0.25, lw=0)
            ax.plot(grid, base + y, color=color, lw=1.2)
            labels.append(f"{task} (median {np.median(x):.2f})")
        ax.axhline(base, color="0.7", lw=0.5)
        ticks.append(base)
    ax.set_xlim(-1.0, 1.04)  # a bar at tau 1 clear of the frame
    ax.set_ylim(-0.1, max(len(groups), 1) - 0.05)
    ax.set_yticks(ticks, labels, fontsize=7)
    ax.set_xlabel("Kendall's tau to the full ranking")
    ax.set_ylabel("density over resamples\n(each task's scaled to its row)", fontsize=7)
    ax.grid(axis="y", visible=False)
