"""robustness: how far can a challenge leaderboard be trusted?

Data flow (pixels are read once)::

    files (io, masks) / synthetic -> Challenge
      -> overlap (gold registry, numba kernels) -> OverlapCounts        (counts)
      -> schemes (metric table, empty policy)   -> Schemes              (per-unit statistics)
      -> convergence / bootstrap / comparisons  -> results              (tables)
      -> plotting, figures, report                                      (figures, summary)

One table per concept: metrics (:data:`robustness.metrics.METRICS`), gold
strategies (:data:`robustness.gold.STRATEGIES`), both-empty policies
(:data:`robustness.metrics.EMPTY_POLICIES`), ranking methods
(:data:`robustness.ranking_methods.RANKING_METHODS`).

Heavy modules are imported lazily, so ``import robustness`` is cheap.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_SUBMODULES = {
    "data", "errors", "empty", "masks", "lesions", "design", "design_plots", "calibrate", "report", "uncertainty",
    "io", "counts", "synthetic", "patterns", "staple", "gold", "overlap", "metrics", "scores", "spread", "ranking",
    "ranking_methods", "test_based", "parallel", "schemes", "truth", "convergence", "bootstrap", "comparisons",
    "resampling", "plotting", "qa", "results", "files", "checks", "case_table", "raters", "tiff",
}

__all__ = sorted(_SUBMODULES | {"__version__"})


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
