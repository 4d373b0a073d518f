"""The Bayesian signed-rank test with a rope down each leaderboard: P(better), P(equivalent), P(worse) per pair."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them: ``--rope``).
NEEDS = ("bayes_signed_rank.csv",)


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt
    import numpy as np

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    table = read(results_dir, "bayes_signed_rank.csv")
    tasks, note = rank_plots.shown_tasks(table.task)
    pairs = max(int((table.task == t).sum()) for t in tasks)
    colours = {"p_better": "#0072B2", "p_rope": "#BBBBBB", "p_worse": "#D55E00"}
    names = {"p_better": "better by more than the rope", "p_rope": "within the rope", "p_worse": "worse by more"}
    with plotting.style():
        fig, axes = plt.subplots(len(tasks), 1, figsize=(7.0, (0.8 + 0.28 * pairs) * len(tasks) + 0.6),
                                 layout="constrained", squeeze=False)
        for ax, task in zip(axes[:, 0], tasks):
            t = table[table.task == task].reset_index(drop=True)
            y = np.arange(len(t))[::-1]
            left = np.zeros(len(t))
            for column in ("p_better", "p_rope", "p_worse"):
                ax.barh(y, t[column], left=left, color=colours[column], height=0.7, label=names[column])
                left += t[column].to_numpy(dtype=float)
            ax.axvline(0.95, color="black", lw=0.8, ls=":")
            ax.set_yticks(y, [f"{a} vs {b}" for a, b in zip(t.run, t.other)], fontsize=7)
            ax.set_xlim(0, 1)
            ax.grid(False)
            ax.set_title(f"{task}: each run against the next one down (rope {float(t.rope.iloc[0]):g})", fontsize=8)
        axes[-1, 0].set_xlabel("posterior probability (dotted: 0.95, a decision)")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=7)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
