"""rliable's interval estimates per leaderboard: interquartile means, probabilities of improvement, 95% intervals."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("iqm.csv", "improvement.csv")

#: Runs drawn per leaderboard: those with the best interquartile means.
SHOWN_RUNS = 15


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt
    import numpy as np

    from figures import read, save, task_unit
    from robustness.reporting import plotting, rank_plots

    iqms, better = read(results_dir, "iqm.csv"), read(results_dir, "improvement.csv")
    tasks, note = rank_plots.shown_tasks(iqms.task)
    rows = min(SHOWN_RUNS, max(int((iqms.task == t).sum()) for t in tasks))
    with plotting.style():
        fig, axes = plt.subplots(len(tasks), 2, figsize=(9.0, (0.9 + 0.25 * rows) * len(tasks)),
                                 layout="constrained", squeeze=False)
        for k, task in enumerate(tasks):
            g = iqms[iqms.task == task]
            lower = bool(g.lower_better.iloc[0]) if "lower_better" in g else False
            g = g.sort_values("iqm", ascending=lower).iloc[:SHOWN_RUNS]
            y = np.arange(len(g))[::-1]
            ax = axes[k, 0]
            plotting.point_intervals(ax, (g.iqm, y), (g.low, g.high), color="#0072B2", sizes=(4, 1.2, 2))
            ax.set_yticks(y, list(g.run), fontsize=7)
            unit = task_unit(results_dir, task)
            ax.set_xlabel(f"interquartile mean{f' ({unit})' if unit else ''} (95% interval)"
                          + (": smaller is better" if lower else ""))
            total = int((iqms.task == task).sum())
            more = f", the {SHOWN_RUNS} best of {total}" if len(g) < total else ""
            ax.set_title(f"{task}{more}", fontsize=8)
            b = better[better.task == task].iloc[:SHOWN_RUNS - 1]
            ax = axes[k, 1]
            yb = np.arange(len(b))[::-1]
            plotting.point_intervals(ax, (b.p, yb), (b.low, b.high), color="#009E73", sizes=(4, 1.2, 2))
            ax.axvline(0.5, color="black", lw=0.8, ls=":")
            ax.set_yticks(yb, [f"{a} vs {o}" for a, o in zip(b.run, b.other)], fontsize=7)
            ax.set_xlim(0, 1)
            ax.set_xlabel("P(a case of the first beats one of the second) (dotted: 0.5, tied)")
            ax.set_title(f"{task}: probability of improvement down the leaderboard", fontsize=8)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
