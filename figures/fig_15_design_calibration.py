"""Design study: the package's estimate of the distance to unlimited data against the actual distance."""

from __future__ import annotations


def make(results_dir, out_path, *, strategy="majority", average="micro"):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    import matplotlib.pyplot as plt
    import numpy as np

    from figures import base_rows, read, save
    from robustness.reporting import plotting

    design, base = base_rows(results_dir, read(results_dir, "design.csv"))
    unit = base.get("test_unit", "encounter")  # image, volume or encounter (folders before it: encounter)
    d = design[(design.strategy == strategy) & (design.average == average)]
    summary, _ = base_rows(results_dir, read(results_dir, "design_summary.csv"))
    s = summary[(summary.strategy == strategy) & (summary.average == average)].sort_values("encounters")
    color = plotting.strategy_style(strategy)["color"]
    with plotting.style():
        fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.9), layout="constrained")
        ax = axes[0]
        sizes = sorted(d[d.expected_l1_estimate.notna()].encounters.unique())  # the size search has no estimate
        cmap = plt.get_cmap("viridis", len(sizes))
        for k, n in enumerate(sizes):
            e = d[d.encounters == n]
            ax.scatter(e.l1_population, e.expected_l1_estimate, s=8, color=cmap(k), label=f"{n} {unit}s")
        top = float(np.nanmax([d.l1_population.max(), d.expected_l1_estimate.max()])) * 1.05
        ax.plot([0, top], [0, top], color="black", linewidth=0.6, label="estimate = actual")
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_xlabel("actual L1 to the population ranking")
        ax.set_ylabel("estimate of that L1\n(expected L1 at the test set's size)")
        ax.set_title("one point per replicate")
        ax.legend(fontsize=5.5)
        ax = axes[1]
        for measure, label, style in (("l1_population", "actual L1 to the population", "-"),
                                      ("expected_l1_estimate", "the package's estimate", "--"),
                                      ("l1_same_images", "L1 to the truth on the same images", ":")):
            ax.plot(s.encounters, s[measure], color=color, linestyle=style, marker="o", markersize=2.5, label=label)
            ax.fill_between(s.encounters, s[f"{measure}_low"], s[f"{measure}_high"], color=color, alpha=0.12,
                            linewidth=0)
        ax.axhline(base["runs"], color="black", linewidth=0.6, linestyle=":")
        ax.set_xscale("log", base=2)
        from matplotlib.ticker import ScalarFormatter

        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel(f"test {unit}s (log scale)")
        ax.set_ylabel("L1 (mean over replicates, 95% band)")
        ax.set_title("by test-set size")
        ax.legend(fontsize=5.5)
        fig.suptitle(f"{plotting.strategy_style(strategy)['label']}, {average} Jaccard; "
                     f"{int(base['annotators'])} annotators per image, agreement {base['agreement']:g}; "
                     f"dotted: L1 = {int(base['runs'])}", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
