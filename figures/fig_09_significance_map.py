"""Significance map (challengeR style) under the official gold: which run scores significantly higher than which."""

from __future__ import annotations

from pathlib import Path


def make(results_dir, out_path, *, strategy=None, metric="jaccard"):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths.

    ``strategy``: the gold strategy to show (default: the results' official one).
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from figures import save
    from robustness.overlap.gold import official_strategy
    from robustness.reporting import plotting

    pairwise = pd.read_parquet(Path(results_dir) / "pairwise.parquet")
    strategy = strategy or official_strategy(list(dict.fromkeys(pairwise.strategy)))
    averages = [a for a in ("micro", "macro") if ((pairwise.strategy == strategy) & (pairwise.average == a)).any()]
    n = pd.concat([pairwise.system, pairwise.other]).nunique()
    side = min(7.0, max(3.0, 0.09 * n + 1.6))
    with plotting.style():
        fig, axes = plt.subplots(1, len(averages), figsize=(side * len(averages), side + 0.5), squeeze=False,
                                 layout="constrained")
        for ax, average in zip(axes[0], averages):
            plotting.significance_map(pairwise, strategy=strategy, metric=metric, average=average, ax=ax)
        unit = pairwise.unit.iloc[0]
        fig.suptitle(f"Paired bootstrap over {unit}s, two-sided, Holm over all pairs, 5%", fontsize=7)
        return save(fig, out_path)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
