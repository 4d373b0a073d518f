"""Rank distribution over bootstrap resamples (challengeR's blob plot) under one gold strategy."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path, *, strategy=None, metric="jaccard", average="micro"):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``strategy``: the gold strategy to show (default: the results' official one, see
    :func:`robustness.overlap.gold.official_strategy`).
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import for_ranking, save
    from robustness.overlap.gold import official_strategy
    from robustness.reporting import plotting

    dist = for_ranking(pd.read_csv(Path(results_dir) / "rank_distribution.csv"))
    strategy = strategy or official_strategy(list(dict.fromkeys(dist.strategy)))
    with plotting.style():
        fig, ax = plt.subplots(figsize=(5.0, 4.2), layout="constrained")
        plotting.rank_blobs(dist, strategy=strategy, metric=metric, average=average, ax=ax)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
