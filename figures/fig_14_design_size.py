"""Design study: the distance to the population ranking, and the encounters needed for a target, by agreement.

Both against the annotators' agreement: the distance at the base test-set size, and the test encounters needed
for it to fall to a target.
"""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("design_summary.csv", "sizes_by_agreement.csv")


def make(results_dir, out_path):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt

    from figures import base_rows, read, save
    from robustness.reporting import design_plots, plotting
    from robustness.simulation.recommendation import one_random
    from robustness.statistics.ranks import format_target

    summary = one_random(read(results_dir, "design_summary.csv"))
    rows, base = base_rows(results_dir, summary.drop(columns="agreement"))
    summary = summary.loc[rows.index]
    unit = base.get("test_unit", "encounter") + "s"  # image, volume or encounter (folders before it: encounter)
    target = float(base.get("target_l1", base["runs"]))
    sizes = read(results_dir, "sizes_by_agreement.csv")  # the study's: where the mean L1 falls to the target
    largest = int(summary.encounters.max())
    at_size = summary[summary.encounters == int(base["size"])]
    with plotting.style():
        fig, axes = plt.subplots(2, 2, figsize=(7.0, 5.0), sharex=True, layout="constrained")
        for col, average in enumerate(("micro", "macro")):
            design_plots.design_by_agreement(at_size, average=average, ax=axes[0, col])
            axes[0, col].axhline(target, color="black", linewidth=0.5, linestyle=":")
            design_plots.design_size(sizes, average=average, grid=summary.encounters.unique(), ax=axes[1, col])
            axes[1, col].set_title("")
        axes[0, 0].set_ylabel(f"L1 to the population ranking\nat {int(base['size'])} {unit} (95% CI)")
        axes[1, 0].set_ylabel(f"test {unit} for L1 <= {format_target(target)}\n(mean over replicates, 95% CI)")
        for ax in axes.flat:
            ax.set_xlabel("")
        fig.supxlabel("annotator agreement (1 = annotators equal the truth)", fontsize=8)
        handles, labels = axes[0, 1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside right center", title="gold strategy (Jaccard)", title_fontsize=6.5)
        fig.suptitle(f"{int(base['annotators'])} annotators per image. Below: the test-set size at which the mean "
                     f"L1 falls to {format_target(target)} (log-linear between the sizes simulated);\ntriangles: more "
                     "than the "
                     f"largest size simulated for that scheme (the grid's, or up to {largest} {unit} where the size "
                     "search went on)", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
