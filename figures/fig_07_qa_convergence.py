"""Closed QA: L1 rank change vs number of test encounters, overall accuracy and each parent question."""

from __future__ import annotations


def make(results_dir, out_path):
    """Draw the figure from a QA results folder, once per ranking method; save .png and .pdf; return the paths.

    The aggregate's figure goes to ``out_path``, the others' to ``out_path_<method>``.
    """
    import matplotlib.pyplot as plt

    from figures import for_ranking, method_path, method_title, rankings, read, save
    from robustness.reporting import plotting

    summary = read(results_dir, "curves_summary.csv")
    paths = []
    for ranking in rankings(summary):
        with plotting.style():
            fig, ax = plt.subplots(figsize=(4.2, 2.8), layout="constrained")
            plotting.qa_convergence(for_ranking(summary, ranking), ax=ax)
            if ranking != "aggregate":
                ax.set_title(method_title(ranking, for_ranking(summary, ranking)), fontsize=7)
            paths += save(fig, method_path(out_path, ranking))
    return paths


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
