"""One module per published figure: ``make(results_dir, out_path)`` loads results, plots, saves PNG and PDF.

Figure modules never recompute: they read the tables a study wrote and draw
them through :mod:`robustness.plotting`.
"""

from __future__ import annotations

from pathlib import Path

FIGURES = ("fig_02_micro_convergence", "fig_03_macro_convergence", "fig_04_forest", "fig_05_rank_blobs",
           "fig_06_kendall_tau")


def save(fig, out_path) -> list[Path]:
    """Save ``fig`` as ``out_path`` with .png and .pdf suffixes; close it."""
    import matplotlib.pyplot as plt

    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix in (".png", ".pdf"):
        p = out.with_suffix(suffix)
        fig.savefig(p)
        paths.append(p)
    plt.close(fig)
    return paths


def make_all(results_dir, *, official: str = "majority") -> list[Path]:
    """Every figure of a rank-convergence results folder, into ``results_dir/figures``."""
    import importlib

    import matplotlib

    matplotlib.use("Agg")
    results_dir = Path(results_dir)
    paths = []
    for name in FIGURES:
        mod = importlib.import_module(f"figures.{name}")
        kw = {"strategy": official} if name in ("fig_04_forest", "fig_05_rank_blobs") else {}
        paths += mod.make(results_dir, results_dir / "figures" / name, **kw)
    return paths
