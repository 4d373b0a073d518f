"""Figures of leaderboards per task (challengeR's figure set), from the tables of a results folder.

Podium, ranking heatmap, bootstrap tau, ranks across methods, dot-and-box, rank frequencies and blob plots.

Every function draws one task (or every task, for the cross-task figures) on the axes it is given and reads
only the tables the per-case table study writes: ``ranking.csv``, ``per_case.parquet``, ``case_ranks.csv``,
``podium.parquet``, ``rank_bootstrap.csv``, ``rank_frequency.csv``, ``rank_bootstrap_tau.csv``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection, PolyCollection

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["SHOWN_TASKS", "shown_tasks", "consensus_panels", "panel_width", "tick_runs", "run_colors",
           "task_method_grid", "run_order", "podium", "ranking_heatmap", "tau_violins", "method_lines", "dot_box",
           "rank_frequency_bars", "rank_blobs_by_task", "rank_blobs_across_tasks", "critical_difference_diagram"]


#: The figures show at most this many leaderboards (tasks, or task / metric); every one is in ranking.csv.
SHOWN_TASKS = 4


def shown_tasks(tasks: Iterable[str]) -> tuple[list, str]:
    """The leaderboards a figure shows (the first :data:`SHOWN_TASKS`) and a note for its title when some are not.

    Parameters
    ----------
    tasks : iterable of str
        Every leaderboard, in the results' order.

    Returns
    -------
    (list of str, str)
    """
    every = list(dict.fromkeys(tasks))
    shown = every[:SHOWN_TASKS]
    note = "" if len(shown) == len(every) else f" (the first {len(shown)} of {len(every)} leaderboards; all in " \
                                                "ranking.csv)"
    return shown, note


def consensus_panels(consensus: pd.DataFrame, tasks: Iterable[str]) -> tuple[pd.DataFrame, list, dict]:
    """The panels of a figure across tasks: one per consensus (strategy and metric) and ranking method.

    Parameters
    ----------
    consensus : pandas.DataFrame
        ``consensus.csv`` (its ``scheme`` column filled with ``""`` where absent).
    tasks : iterable of str
        Every leaderboard, in the results' order.

    Returns
    -------
    (consensus, panels, family)
        The table with ``scheme`` as text; the (scheme, method) pairs in order; scheme -> its tasks.
    """
    scheme = (consensus["scheme"].fillna("").astype(str) if "scheme" in consensus
              else consensus.ranking.map(lambda _: ""))
    consensus = consensus.assign(scheme=scheme)
    panels = list(dict.fromkeys(zip(consensus.scheme, consensus.ranking)))
    every = list(dict.fromkeys(tasks))
    family = {s: [t for t in every if not s or str(t).endswith(f" / {s}")] for s, _ in panels}
    return consensus, panels, family


def panel_width(ranking: pd.DataFrame, base: float = 3.4) -> float:
    """Inches per panel: ``base``, or wider where a leaderboard has many runs (a quarter inch per run).

    Parameters
    ----------
    ranking : pandas.DataFrame
        ``ranking.csv`` (or any table with ``task`` and ``run`` columns).
    base : float

    Returns
    -------
    float
    """
    n_runs = int(ranking.groupby("task").run.nunique().max()) if len(ranking) else 1
    return max(base, 0.24 * n_runs + 1.0)


def tick_runs(ax: Axes, positions: Sequence[float] | np.ndarray, order: list) -> None:
    """Run names as x tick labels, smaller and upright where there are many.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    positions : sequence of float
    order : list of str
        The runs at those positions.
    """
    many = len(order) > 15
    ax.set_xticks(positions, order, rotation=90 if many else 45, ha="center" if many else "right",
                  fontsize=5 if many else 7)


def run_colors(runs: Iterable[str]) -> dict:
    """One colour per run, the same in every panel (runs in sorted order through the colour cycle).

    Parameters
    ----------
    runs : iterable of str

    Returns
    -------
    dict
        Run -> matplotlib colour.
    """
    return {run: f"C{k % 10}" for k, run in enumerate(sorted(set(runs)))}


def task_method_grid(keys: list, *, width: float = 3.2, height: float = 3.6) -> tuple:
    """A figure with a row per task and a column per ranking method.

    Parameters
    ----------
    keys : list of (str, str)
        The (task, method) panels.
    width, height : float
        Inches per panel.

    Returns
    -------
    (figure, dict)
        The figure and its axes by (task, method); unused cells are hidden.
    """
    tasks = list(dict.fromkeys(t for t, _ in keys))
    methods = list(dict.fromkeys(m for _, m in keys))
    fig, axes = plt.subplots(len(tasks), len(methods), figsize=(width * len(methods) + 0.8, height * len(tasks)),
                             layout="constrained", squeeze=False)
    where = {(t, m): axes[tasks.index(t), methods.index(m)] for t, m in keys}
    for ax in axes.ravel():
        if ax not in where.values():
            ax.set_visible(False)
    return fig, where


def _boxes(ax: Axes, boxes: list, colours: list, *, edge: bool = False) -> None:
    """Rectangles (bars) as one collection: thousands of bars draw as fast as one."""
    ax.add_collection(PolyCollection(boxes, facecolors=colours, edgecolors="white" if edge else "none",
                                     linewidths=0.3 if edge else 0.0))


def run_order(ranking: pd.DataFrame, task: str, method: str = "aggregate") -> list:
    """The runs of ``task`` under ``method``, best first (ties by name).

    Parameters
    ----------
    ranking : pandas.DataFrame
        ``ranking.csv``.
    task, method : str

    Returns
    -------
    list of str
    """
    r = ranking[(ranking.task == task) & (ranking.ranking == method)].sort_values(["rank", "run"], kind="stable")
    return list(r.run)


def _cases(per_case: pd.DataFrame, task: str) -> pd.DataFrame:
    if "task" not in per_case:  # the segmentation job's per-case table: a leaderboard is a strategy and metric
        per_case = per_case.assign(task=per_case.strategy.astype(str) + " / " + per_case.metric.astype(str))
    return per_case[per_case.task == task].pivot(index="case", columns="algorithm", values="value")


def podium(places: pd.DataFrame, order: list, *, task: str, ax: Axes, ax_counts: Axes,
           value: str = "score") -> None:
    """The podium (challengeR's): every case's score at its per-case rank, the case's runs joined across the podium.

    The x axis holds one podium place per rank on a case (1 = best), each place a slot per run in leaderboard order;
    a case's score of a run is drawn in the run's slot of the place the run takes on that case, and the case's dots
    are joined from place to place (each segment in the colour of the run at its better end, faint). Below, the
    bars count the cases on which each run takes each place. Ties on a case are broken at random, as
    challengeR's ``podium`` does (``rank(ties.method = "random")``); a missing score takes a place after the scored
    runs and is counted below, not drawn above.

    Parameters
    ----------
    places : pandas.DataFrame
        ``podium.parquet`` (``task, case, run, value, rank``).
    order : list of str
        The runs, best first.
    task : str
    ax, ax_counts : matplotlib.axes.Axes
        The scores' panel and the counts' panel.
    value : str
        The y label.
    """
    t = places[(places.task == task) & places.run.isin(order)]
    n = len(order)
    slot = {run: k for k, run in enumerate(order)}
    colors = run_colors(order)
    x = (t["rank"].to_numpy(dtype=float) - 1.0) * n + t.run.map(slot).to_numpy(dtype=float) + 0.5
    t = t.assign(x=x)
    segments, segment_colors = [], []
    for _, case in t.sort_values(["case", "rank"], kind="stable").groupby("case", sort=False):
        shown = case[np.isfinite(case.value.to_numpy(dtype=float))]
        xy = shown[["x", "value"]].to_numpy(dtype=float)
        segments += [xy[k:k + 2] for k in range(len(xy) - 1)]
        segment_colors += [matplotlib.colors.to_rgba(colors[run], 0.25) for run in shown.run.iloc[:-1]]
    ax.add_collection(LineCollection(segments, colors=segment_colors, linewidths=0.6, zorder=1, rasterized=True))
    ax.scatter(t.x, t.value, c=[colors[run] for run in t.run], s=9 if n <= 15 else 2, zorder=2, rasterized=True,
               linewidths=0)
    edges = [float(k * n) for k in range(n + 1)]
    for axis in (ax, ax_counts):
        for e in edges:
            axis.axvline(e, color="0.3", lw=0.6, ls=(0, (3, 3)), zorder=0)
        axis.set_xlim(-0.5, n * n + 0.5)
    ax.set_xticks(edges, [""] * len(edges))
    ax.set_ylabel(value)
    ax.grid(False)
    counts = t.groupby(["rank", "run"]).size()
    boxes = [[(a, 0), (a + 1, 0), (a + 1, h), (a, h)] for a, h in
             (((rk - 1.0) * n + slot[run], float(c)) for (rk, run), c in counts.items())]
    _boxes(ax_counts, boxes, [colors[run] for _, run in counts.index])
    ax_counts.set_ylim(0, max(int(counts.max()) if len(counts) else 1, 1) * 1.05)
    every = max(1, int(np.ceil(n / 15)))
    ax_counts.set_xticks((np.arange(n) + 0.5) * n, [f"{k + 1}." if k % every == 0 else "" for k in range(n)],
                         fontsize=7 if n <= 15 else 5)
    ax_counts.set_xlabel("podium: place on a case")
    ax_counts.set_ylabel("cases")
    ax_counts.grid(False)
    handles = [matplotlib.lines.Line2D([], [], color=colors[run], marker="o", ms=3, lw=1) for run in order]
    ax.legend(handles, order, fontsize=5 if n > 8 else 6, loc="upper left", bbox_to_anchor=(1.0, 1.0),
              ncols=1 if n <= 20 else 2, frameon=False)  # beside the panel: the dots stay visible


def ranking_heatmap(case_ranks: pd.DataFrame, order: list, *, task: str, ax: Axes) -> None:
    """The ranking heatmap (challengeR's): runs (by place) against per-case rank; colour: the number of cases.

    Parameters
    ----------
    case_ranks : pandas.DataFrame
        ``case_ranks.csv``.
    order : list of str
    task : str
    ax : matplotlib.axes.Axes
    """
    c = case_ranks[case_ranks.task == task]
    n_r = len(order)
    top = int(np.ceil(c["rank"].max())) if len(c) else n_r
    m = np.zeros((n_r, top))
    where = {run: k for k, run in enumerate(order)}
    rows = c.run.map(where).to_numpy()
    keep = ~np.isnan(rows.astype(float))
    np.add.at(m, (rows[keep].astype(int), np.ceil(c["rank"].to_numpy()[keep]).astype(int) - 1),
              c.cases.to_numpy()[keep])  # a tied (averaged) rank is counted at the place it rounds up to
    im = ax.imshow(m, cmap="Blues", aspect="auto", origin="upper")
    small = 6 if n_r <= 12 else 4
    ax.set_yticks(range(n_r), order, fontsize=small + 1)
    ax.set_xticks(range(top), [str(k + 1) for k in range(top)], fontsize=small + 1)
    ax.set_xlabel("rank on a case")
    if n_r <= 12:  # the counts in the cells; beyond that the colour alone stays readable
        for (i, j), v in np.ndenumerate(m):
            if v:
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=6,
                        color="white" if v > m.max() / 2 else "black")
    ax.figure.colorbar(im, ax=ax, label="cases", shrink=0.8)


def tau_violins(taus: pd.DataFrame, *, ax: Axes) -> None:
    """Kendall's tau between each task's ranking and its bootstrap resamples', one violin per task and method.

    Parameters
    ----------
    taus : pandas.DataFrame
        ``rank_bootstrap_tau.csv``.
    ax : matplotlib.axes.Axes
    """
    groups = list(taus.groupby(["task", "ranking"], sort=False))
    data = [g.tau.dropna().to_numpy() for _, g in groups]
    pos = np.arange(1, len(groups) + 1)
    keep = [k for k, d in enumerate(data) if d.size]
    if keep:
        parts = ax.violinplot([data[k] for k in keep], positions=pos[keep], showmedians=True, widths=0.8)
        bodies: Any = parts["bodies"]  # the violins' PolyCollections (matplotlib types them as one Collection)
        for body in bodies:
            body.set_alpha(0.5)
    ax.set_xticks(pos, [f"{t}\n{m}" for (t, m), _ in groups], fontsize=7)
    ax.set_ylabel("Kendall's tau to the full ranking")
    ax.set_ylim(min(-0.05, *(float(d.min()) for d in data if d.size)) if keep else -1, 1.02)


def method_lines(ranking: pd.DataFrame, *, task: str, ax: Axes) -> None:
    """Each run's rank under every ranking method (challengeR's line plot), one line per run.

    Parameters
    ----------
    ranking : pandas.DataFrame
        ``ranking.csv``.
    task : str
    ax : matplotlib.axes.Axes
    """
    r = ranking[ranking.task == task]
    methods = list(dict.fromkeys(r.ranking))
    order = run_order(ranking, task, methods[0])
    x = np.arange(len(methods))
    colors = run_colors(order)
    for run in order:
        y = [r[(r.ranking == m) & (r.run == run)]["rank"].iloc[0] if ((r.ranking == m) & (r.run == run)).any()
             else np.nan for m in methods]
        ax.plot(x, y, marker="o", color=colors[run], label=run, ms=5 if len(order) <= 15 else 2,
                lw=1.2 if len(order) <= 15 else 0.7)
        if len(order) > 15 and not np.isnan(y[-1]):  # too many runs for a legend: names at the lines' ends
            ax.annotate(run, (x[-1], y[-1]), xytext=(4, 0), textcoords="offset points", fontsize=4, va="center",
                        color=colors[run])
    ax.set_xticks(x, methods, fontsize=8)
    ax.invert_yaxis()
    ax.set_ylabel("rank")
    ax.set_title(task, fontsize=9)


def dot_box(per_case: pd.DataFrame, order: list, *, task: str, ax: Axes, value: str = "score") -> None:
    """Per-case scores of every run (dots) with their box plot, runs by place.

    Parameters
    ----------
    per_case : pandas.DataFrame
        ``per_case.parquet``.
    order : list of str
    task : str
    ax : matplotlib.axes.Axes
    value : str
        The y label.
    """
    wide = _cases(per_case, task).reindex(columns=order)
    data = [wide[run].dropna().to_numpy(dtype=float) for run in order]
    ax.boxplot(data, positions=np.arange(1, len(order) + 1), widths=0.6, showfliers=False)
    jitter = np.random.default_rng(0)  # only spreads the dots sideways; the values are the data's
    colors = run_colors(order)
    xs = np.concatenate([k + 1 + jitter.uniform(-0.18, 0.18, d.size) for k, d in enumerate(data)])
    ax.scatter(xs, np.concatenate(data), s=6, alpha=0.5, rasterized=True,
               c=np.concatenate([[colors[order[k]]] * d.size for k, d in enumerate(data)]))
    tick_runs(ax, np.arange(1, len(order) + 1), order)
    ax.set_ylabel(value)
    ax.set_title(task, fontsize=9)


def rank_frequency_bars(freq: pd.DataFrame, order: list, *, task: str, method: str, ax: Axes) -> None:
    """Stacked shares of bootstrap resamples at each rank, one bar per run (by place).

    Parameters
    ----------
    freq : pandas.DataFrame
        ``rank_frequency.csv``.
    order : list of str
    task, method : str
    ax : matplotlib.axes.Axes
    """
    f = freq[(freq.task == task) & (freq.ranking == method)]
    wide = f.pivot_table(index="rank", columns="run", values="share", aggfunc="sum", fill_value=0.0)
    wide = wide.reindex(columns=order, fill_value=0.0)
    cmap = matplotlib.colormaps["viridis"]
    shares = wide.to_numpy(dtype=float)  # (ranks, runs)
    tops = np.cumsum(shares, axis=0)
    boxes, colours = [], []
    for i, rk in enumerate(wide.index):  # one colour scale for every panel: rank 1 dark, the last rank light
        for k in np.flatnonzero(shares[i]):
            lo, hi = tops[i, k] - shares[i, k], tops[i, k]
            boxes.append([(k - 0.4, lo), (k + 0.4, lo), (k + 0.4, hi), (k - 0.4, hi)])
            colours.append(cmap((rk - 1) / max(len(order) - 1, 1)))
    _boxes(ax, boxes, colours, edge=len(order) <= 12)
    ax.set_xlim(-0.6, len(order) - 0.4)
    tick_runs(ax, range(len(order)), order)
    ax.set_ylabel("share of resamples")
    ax.set_ylim(0, 1)
    ax.set_title(f"{task} ({method})", fontsize=9)


def rank_blobs_by_task(freq: pd.DataFrame, summary: pd.DataFrame, order: list, *, task: str, method: str,
                       ax: Axes) -> None:
    """The blob plot (challengeR's) with the median rank and the 95% rank interval over resamples.

    Area of a blob: share of resamples at that rank; black: median and interval; red cross: the rank on the whole
    test set.

    Parameters
    ----------
    freq, summary : pandas.DataFrame
        ``rank_frequency.csv`` and ``rank_bootstrap.csv``.
    order : list of str
    task, method : str
    ax : matplotlib.axes.Axes
    """
    f = freq[(freq.task == task) & (freq.ranking == method)]
    s = summary[(summary.task == task) & (summary.ranking == method)].set_index("run")
    colors = run_colors(order)
    for k, run in enumerate(order):
        g = f[f.run == run]
        ax.scatter(np.full(len(g), k), g["rank"], s=300 * g.share, color=colors[run], alpha=0.6, lw=0)
        if run in s.index:
            ax.vlines(k, s.loc[run, "low"], s.loc[run, "high"], color="black", lw=1)
            ax.scatter([k], [s.loc[run, "median_rank"]], marker="_", s=120, color="black")
            ax.scatter([k], [s.loc[run, "rank"]], marker="x", s=25, color="red", zorder=3)
    ax.plot([-0.5, len(order) - 0.5], [0.5, len(order) + 0.5], color="0.8", lw=0.6, zorder=0)
    tick_runs(ax, range(len(order)), order)
    ax.set_ylabel("rank")
    ax.invert_yaxis()
    ax.set_title(f"{task} ({method})", fontsize=9)


def rank_blobs_across_tasks(freq: pd.DataFrame, summary: pd.DataFrame, order: list, tasks: list, *, method: str,
                            ax: Axes) -> None:
    """The cross-task blob plot (challengeR's): each run's bootstrap rank distribution in every task, side by side.

    Parameters
    ----------
    freq, summary : pandas.DataFrame
        ``rank_frequency.csv`` and ``rank_bootstrap.csv``.
    order : list of str
        The runs, best first (by the consensus).
    tasks : list of str
    method : str
    ax : matplotlib.axes.Axes
    """
    f = freq[freq.ranking == method]
    s = summary[summary.ranking == method].set_index(["task", "run"])
    width = 0.8 / max(len(tasks), 1)
    for j, task in enumerate(tasks):
        g = f[f.task == task]
        offset = -0.4 + width * (j + 0.5)
        xs = g.run.map({run: k for k, run in enumerate(order)}).to_numpy(dtype=float) + offset
        ax.scatter(xs, g["rank"], s=200 * g.share, color=f"C{j % 10}", alpha=0.55, lw=0, label=task)
        for k, run in enumerate(order):
            if (task, run) in s.index:
                row = s.loc[(task, run)]
                ax.vlines(k + offset, row["low"], row["high"], color=f"C{j % 10}", lw=0.8)
                ax.scatter([k + offset], [row["median_rank"]], marker="_", s=40, color="black", lw=1)
    tick_runs(ax, range(len(order)), order)
    ax.set_ylabel("rank in the task")
    ax.invert_yaxis()
    ax.set_title(f"{method} (runs by consensus rank)", fontsize=9)


def critical_difference_diagram(mean_ranks: dict, cd: float, bars: Iterable[tuple[str, str]], *, ax: Axes) -> None:
    """Demšar's critical-difference diagram: runs on the axis of mean ranks, bars joining those within CD.

    Parameters
    ----------
    mean_ranks : dict
        Run -> mean rank over the cases (1 = best).
    cd : float
        Nemenyi's critical difference.
    bars : iterable of (str, str)
        The first and last run each bar joins (``cd_groups.csv``, the study's), in the diagram's order: by mean
        rank, ties by name.
    ax : matplotlib.axes.Axes
    """
    order = sorted(mean_ranks, key=lambda r: (mean_ranks[r], r))
    m = np.array([mean_ranks[r] for r in order])
    k = len(order)
    ax.hlines(0, 1, k, color="black", lw=1)
    for t in range(1, k + 1):
        ax.vlines(t, 0, 0.08, color="black", lw=0.8)
        ax.text(t, 0.12, str(t), ha="center", va="bottom", fontsize=7)
    ax.hlines(0.45, 1, 1 + cd, color="C3", lw=1.5)
    ax.vlines([1, 1 + cd], 0.4, 0.5, color="C3", lw=1.5)
    ax.text(1 + cd / 2, 0.52, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=7, color="C3")
    half = (k + 1) // 2
    for i, (run, value) in enumerate(zip(order, m)):
        left = i < half
        depth = -0.25 - 0.18 * (i if left else k - 1 - i)
        x_text = 0.6 if left else k + 0.4
        ax.plot([value, value, x_text], [0, depth, depth], color="0.35", lw=0.7)
        ax.text(x_text + (-0.05 if left else 0.05), depth, f"{run} ({value:.2f})", ha="right" if left else "left",
                va="center", fontsize=7)
    place = {run: i for i, run in enumerate(order)}
    for j, (first, last) in enumerate(bars):
        y = -0.1 - 0.07 * j
        ax.hlines(y, m[place[first]] - 0.03, m[place[last]] + 0.03, color="black", lw=3)
    ax.set_xlim(0.6 - 0.1 * max(len(r) for r in order), k + 0.4 + 0.1 * max(len(r) for r in order))
    ax.set_ylim(-0.3 - 0.18 * half, 0.7)
    ax.axis("off")
