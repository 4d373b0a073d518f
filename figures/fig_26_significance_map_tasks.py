"""Significance map per leaderboard (challengeR's ``significanceMap``): which run is significantly better than which."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("significance.csv",)


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import math

    import matplotlib.pyplot as plt
    import numpy as np

    from figures import read, save
    from robustness.reporting import inference_plots, plotting, rank_plots

    table = read(results_dir, "significance.csv")
    tasks, note = rank_plots.shown_tasks(table.task)
    runs = max(int(np.sqrt(len(table[table.task == t]))) + 1 for t in tasks)  # R (R - 1) rows per leaderboard
    names = max(len(str(r)) for r in table.run) * (6.0 if runs <= 25 else 4.5) * 0.6 / 72 + 0.15
    cells = min(6.5, max(1.4, 0.16 * runs if runs <= 25 else 0.1 * runs))
    cols = len(tasks) if len(tasks) <= 3 else math.ceil(math.sqrt(len(tasks)))  # 4: two by two, no empty cell
    rows = math.ceil(len(tasks) / cols)
    color = "#0072B2"  # Okabe-Ito blue: a per-case table has no gold strategy
    with plotting.style():
        fig, axes = plt.subplots(rows, cols, figsize=((cells + names + 0.3) * cols, (cells + names + 0.6) * rows),
                                 squeeze=False, layout="constrained")
        for ax in axes.flat[len(tasks):]:
            ax.set_visible(False)
        for ax, task in zip(axes.flat, tasks):
            t = table[table.task == task]
            rank = dict(zip(t.run, t["rank"])) | dict(zip(t.other, t.other_rank))
            order = sorted(rank, key=lambda r: (np.inf if np.isnan(rank[r]) else rank[r], str(r)))
            pos = {r: k for k, r in enumerate(order)}
            better = np.zeros((len(order), len(order)), dtype=bool)
            hit = t[t.significant.astype(bool)]
            better[[pos[r] for r in hit.run], [pos[r] for r in hit.other]] = True
            inference_plots.significance_cells(better, [str(r) for r in order], ax=ax, color=color)
            ax.set_title(f"{task}\n(runs by {t.ranking.iloc[0]} rank)", fontsize=7)
        fig.legend(handles=inference_plots.significance_legend(color), loc="outside lower center", ncols=2,
                   fontsize=6)
        first = table.iloc[0]
        test = {"wilcoxon": "Wilcoxon signed-rank", "t": "t"}.get(str(first.test), str(first.test))
        how = "no adjustment" if first.adjustment == "none" else f"{first.adjustment} over the ordered pairs"
        fig.suptitle(f"One-sided paired {test} tests of every ordered pair of runs, {how}, at {first.alpha:g}{note}",
                     fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
