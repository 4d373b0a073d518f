"""Performance profiles per leaderboard: each run's share of cases better than a threshold (rliable's).

Smaller is better for some metrics: there the share of cases below the threshold. A curve above another is better.
The shaded band around each curve is its 95% bootstrap band over resampled cases (rliable's
``plot_performance_profiles``); results written before the band was computed draw the curves alone.
"""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("performance_profile.csv", "iqm.csv")

#: Runs drawn per leaderboard: those with the highest interquartile means.
SHOWN_RUNS = 8


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save, task_unit
    from robustness.reporting import plotting, rank_plots

    profiles, iqms = read(results_dir, "performance_profile.csv"), read(results_dir, "iqm.csv")
    tasks, note = rank_plots.shown_tasks(iqms.task)
    with plotting.style():
        fig, axes = plt.subplots(1, len(tasks), figsize=(4.2 * len(tasks), 3.4), layout="constrained", squeeze=False)
        for k, task in enumerate(tasks):
            ax = axes[0, k]
            g = iqms[iqms.task == task]
            lower = bool(g.lower_better.iloc[0]) if "lower_better" in g else False
            best = g.sort_values("iqm", ascending=lower)
            for j, run in enumerate(best.run.iloc[:SHOWN_RUNS]):
                p = profiles[(profiles.task == task) & (profiles.run == run)]
                ax.step(p.tau, p.share, where="post", color=f"C{j % 10}", lw=1.2, label=run)
                if "low" in p and p.low.notna().any():
                    ax.fill_between(p.tau, p.low, p.high, step="post", color=f"C{j % 10}", alpha=0.15, lw=0)
            unit = task_unit(results_dir, task)
            ax.set_xlabel(f"threshold ({str(task).rsplit(' / ', 1)[-1]} in {unit})" if unit else "threshold (score)")
            ax.set_ylabel(f"share of cases {'below' if lower else 'above'} it")
            ax.set_ylim(-0.02, 1.02)
            more = f" (the {SHOWN_RUNS} of {len(best)} runs with the best IQM)" if len(best) > SHOWN_RUNS else ""
            ax.set_title(f"{task}{more}", fontsize=8)
            ax.legend(fontsize=6, loc="best")
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
