"""Rank distribution over bootstrap resamples (challengeR's blob plot) under the headline scheme."""

from __future__ import annotations


def make(results_dir, out_path, *, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``primary``: the scheme to show (default: the results' headline scheme, see :func:`figures.headline`).
    """
    import matplotlib.pyplot as plt

    from figures import for_ranking, headline, read, save
    from robustness.reporting import plotting

    dist = for_ranking(read(results_dir, "rank_distribution.csv"))
    p = headline(results_dir, primary, dist.strategy)
    with plotting.style():
        fig, ax = plt.subplots(figsize=(5.0, 4.2), layout="constrained")
        plotting.rank_blobs(dist, strategy=p.strategy, metric=p.metric, average=p.average, ax=ax)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
