"""Design study: agreement of every scheme's ranking with the runs' population ranking, against test-set size."""

from __future__ import annotations


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import base_rows, read, save
    from robustness.reporting import design_plots, plotting
    from robustness.simulation.recommendation import one_random
    from robustness.statistics.ranks import format_target, random_l1, target_rule

    summary, base = base_rows(results_dir, one_random(read(results_dir, "design_summary.csv")))
    runs = int(base["runs"])
    target = float(base.get("target_l1", runs))
    with plotting.style():
        fig, axes = plt.subplots(2, 2, figsize=(7.0, 5.0), sharex=True, layout="constrained")
        for col, average in enumerate(("micro", "macro")):
            for row, (measure, label) in enumerate((("tau_population", "Kendall's tau to the population ranking"),
                                                    ("l1_population", "L1 to the population ranking"))):
                design_plots.design_tau(summary, average=average, measure=measure, highlight="majority",
                                        ax=axes[row, col], unit=base.get("test_unit", "encounter"))
                axes[row, col].set_ylabel(label if col == 0 else "")
            axes[1, col].axhline(target, color="black", linewidth=0.6, linestyle=":")
        for ax in axes[0]:
            ax.set_xlabel("")
        handles, labels = axes[0, 1].get_legend_handles_labels()  # macro: every strategy, mean and max too
        fig.legend(handles, labels, loc="outside right center", title="gold strategy (Jaccard)", title_fontsize=6.5)
        fig.suptitle(f"{int(base['annotators'])} annotators per image, agreement {base['agreement']:g}; "
                     f"means over replicates; dotted: L1 = {format_target(target)} ({target_rule(target, runs)}; a "
                     f"random order of the runs: {random_l1(runs):.1f})", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
