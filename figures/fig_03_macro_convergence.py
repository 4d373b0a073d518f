"""Figure 3: macro Jaccard and Dice (per image, then mean), including mean and max over annotators."""

from __future__ import annotations

from figures import fig_02_micro_convergence


def make(results_dir, out_path, *, primary=None):
    """Draw the figure from a results folder; save ``out_path`` .png and .pdf; return the paths."""
    return fig_02_micro_convergence.make(results_dir, out_path, average="macro", primary=primary)


if __name__ == "__main__":
    import sys

    make(sys.argv[1], sys.argv[2])
