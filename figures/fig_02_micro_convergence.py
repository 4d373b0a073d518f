"""Figure 2: micro Jaccard and Dice, L1 rank change vs number of test images, one line per gold strategy."""

from __future__ import annotations

from pathlib import Path


def load(results_dir, average):
    """The summarised curves and one example order (order 0) for one averaging, every ranking method.

    curves.parquet is read in part (one order, one averaging): the one table a figure does not read whole.
    """
    import pandas as pd

    from figures import read

    results_dir = Path(results_dir)
    summary = read(results_dir, "curves_summary.csv")
    example = pd.read_parquet(results_dir / "curves.parquet",
                              filters=[("order", "==", 0), ("average", "==", average)])
    return summary, example


def make(results_dir, out_path, *, average="micro", primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    Macro curves are drawn once per ranking method in the results (the
    aggregate's at ``out_path``, the others' at ``out_path_<method>``); micro
    leaderboards exist for the aggregate only.
    """
    from figures import for_ranking, headline, method_path, method_title, rankings, save
    from robustness.reporting import plotting

    summary, example = load(results_dir, average)
    official = headline(results_dir, primary, summary.strategy).strategy
    paths = []
    for ranking in rankings(summary) if average == "macro" else ["aggregate"]:
        title = None if ranking == "aggregate" else method_title(ranking, for_ranking(summary, ranking),
                                                                 x_note="; x: mean number of images in the prefix")
        with plotting.style():
            fig = plotting.convergence_figure(for_ranking(summary, ranking), average=average,
                                              example=for_ranking(example, ranking), official=official, title=title)
            paths += save(fig, method_path(out_path, ranking))
    return paths


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
