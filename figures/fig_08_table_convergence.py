"""Rank convergence of a per-case table: one panel per metric, one line per strategy."""

from __future__ import annotations

#: The tables the figure reads (it is drawn only where the study wrote them).
NEEDS = ("curves_summary.csv",)


def make(results_dir, out_path):
    """Draw the figure from a results folder, once per ranking method; save .png and .pdf; return the paths.

    The aggregate's figure goes to ``out_path``, the others' to ``out_path_<method>``.
    """
    import matplotlib.pyplot as plt

    from figures import for_ranking, method_path, method_title, rankings, read, save
    from robustness.reporting import plotting

    all_rankings = read(results_dir, "curves_summary.csv")
    metrics = list(dict.fromkeys(all_rankings.metric))[:4]
    paths = []
    for ranking in rankings(all_rankings):
        summary = for_ranking(all_rankings, ranking)
        with plotting.style():
            fig, axes = plt.subplots(1, len(metrics), figsize=(3.5 * len(metrics), 2.8), squeeze=False,
                                     layout="constrained")
            for ax, metric in zip(axes[0], metrics):
                plotting.convergence(summary, metric=metric, average="macro", ax=ax, x="n")
            handles, labels = axes[0][0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside right center", title="scheme", title_fontsize=6.5)
            if ranking != "aggregate":
                fig.suptitle(method_title(ranking, summary), fontsize=7)
            paths += save(fig, method_path(out_path, ranking))
    return paths


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
