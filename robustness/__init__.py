"""robustness: how far can a challenge leaderboard be trusted?

Data flow (pixels are read once)::

    io / synthetic -> Challenge -> overlap (numba kernels) -> OverlapCounts
                   -> metrics, ranking -> resampling -> plotting

Heavy modules are imported lazily, so ``import robustness`` is cheap.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_SUBMODULES = {
    "data", "errors", "io", "synthetic", "gold", "overlap", "metrics", "ranking", "resampling", "plotting",
    "qa", "results",
}

__all__ = sorted(_SUBMODULES | {"__version__"})


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
