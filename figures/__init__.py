"""One module per published figure: ``make(results_dir, out_path)`` loads results, plots, saves PNG and PDF.

Figure modules never recompute: they read the tables a study wrote and draw
them through :mod:`robustness.plotting`. :func:`make_all` draws every figure
of a study's results folder in one call.
"""

from __future__ import annotations

from pathlib import Path

#: The figures of each study, in the order they are drawn.
FIGURES = {
    "rank_convergence": ("fig_02_micro_convergence", "fig_03_macro_convergence", "fig_04_forest",
                         "fig_05_rank_blobs", "fig_06_kendall_tau", "fig_09_significance_map",
                         "fig_10_test_set_size", "fig_11_convergence_auc"),
    "qa_rank_convergence": ("fig_07_qa_convergence",),
    "table_rank_convergence": ("fig_08_table_convergence",),
    "design_study": ("fig_12_design_tau", "fig_13_design_size", "fig_14_design_calibration"),
}


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


def make_all(results_dir, *, study: str = "rank_convergence") -> list[Path]:
    """Every figure of a study's results folder, into ``results_dir/figures``; returns the files."""
    import importlib

    import matplotlib

    if study not in FIGURES:
        raise ValueError(f"study must be one of {', '.join(FIGURES)}; got {study!r}")
    matplotlib.use("Agg")
    results_dir = Path(results_dir)
    paths = []
    for name in FIGURES[study]:
        paths += importlib.import_module(f"figures.{name}").make(results_dir, results_dir / "figures" / name)
    return paths
