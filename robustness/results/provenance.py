"""Where a results folder's numbers come from: the versions of this package and of its numeric dependencies."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform

__all__ = ["DISTRIBUTION", "versions"]

#: This package's distribution name on the package index (its import name is ``robustness``).
DISTRIBUTION = "leaderboard-robustness"


def versions() -> dict:
    """Versions of the package and of what its numbers depend on.

    Returns
    -------
    dict
        ``{"python": version, <distribution>: version or None (not installed)..., "cpu_count": int}``.
    """
    out: dict[str, str | int | None] = {"python": platform.python_version()}
    try:  # this package under its distribution name (another project's distribution is named "robustness")
        out["robustness"] = md.version(DISTRIBUTION)
    except md.PackageNotFoundError:
        out["robustness"] = None
    for name in ("numpy", "scipy", "numba", "pandas", "matplotlib", "joblib", "SimpleITK",
                 "statsmodels", "tifffile", "imagecodecs", "pillow", "pyarrow"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    out["cpu_count"] = os.cpu_count()
    return out
