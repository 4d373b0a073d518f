"""Critical-difference diagram per leaderboard: mean ranks over the cases, Nemenyi's CD, bars joining tied runs."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("friedman.csv", "nemenyi.csv", "cd_groups.csv")


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import read, save
    from robustness.reporting import plotting, rank_plots

    tests, pairs = read(results_dir, "friedman.csv"), read(results_dir, "nemenyi.csv")
    groups = read(results_dir, "cd_groups.csv")
    tasks, note = rank_plots.shown_tasks(tests.task)
    runs = int(tests.runs.max())
    with plotting.style():
        size = (min(16.0, max(6.0, 0.5 * runs + 3.0)), (1.2 + 0.2 * runs) * len(tasks))
        fig, axes = plt.subplots(len(tasks), 1, figsize=size, layout="constrained", squeeze=False)
        for k, task in enumerate(tasks):
            t = tests[tests.task == task].iloc[0]
            p = pairs[pairs.task == task]
            mean = dict(zip(p.run, p.mean_rank)) | dict(zip(p.other, p.other_mean_rank))
            bars = groups[groups.task == task].sort_values("group")
            rank_plots.critical_difference_diagram(mean, float(t.cd), zip(bars.first_run, bars.last_run), ax=axes[k, 0])
            axes[k, 0].set_title(f"{task}: Friedman chi2 = {t.chi2:.2f}, df {int(t.df)}, "
                                 f"{'p = ' + format(t.p, '.3g') if t.p > 0 else 'p < 1e-300'} "
                                 f"({int(t.cases)} cases); Nemenyi CD at {t.alpha:g}: runs joined by a bar are tied",
                                 fontsize=8)
        if note:
            fig.suptitle(note.strip(" ()").capitalize(), fontsize=8)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
