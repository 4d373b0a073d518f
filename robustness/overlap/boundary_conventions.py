"""The conventions of the boundary metrics (:mod:`robustness.overlap.boundary`): slices, empty masks, borders.

Where the metric libraries differ, the package names the choice and lets a caller make it: how a volume of one slice
is scored, what distance an empty mask scores against a non-empty one, which voxels are border, and the smallest
lesion. :func:`conventions` checks and spells the four; :func:`~robustness.overlap.boundary.boundary_scores` and
:func:`~robustness.overlap.boundary.boundary_matrix` take any of them as one mapping.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from robustness.errors import deprecated_keywords
from robustness.overlap.lesions import MIN_LESION_SIZE, lesion_size

__all__ = ["ONE_SLICE", "EMPTY_DISTANCES", "MAX_EMPTY_DISTANCE", "BORDERS", "CONVENTION_DEFAULTS", "conventions",
           "chosen_conventions", "empty_mask_distance"]


#: How a volume of one slice (``1 x H x W``, common in converted 2D datasets) is scored: ``2d`` (the default) as the
#: image it is, its border in the plane (SimpleITK's and seg-metrics' numbers); ``3d`` as a slab whose every voxel
#: faces the background above and below, so that every voxel is border (MetricsReloaded's and MONAI's numbers).
ONE_SLICE = ("2d", "3d")

#: What a distance between an empty and a non-empty mask is: ``diagonal`` (the default: the array's largest
#: distance between two voxel centres, so that an empty answer never beats a poor one), ``nan`` (MetricsReloaded:
#: left out), ``inf`` (DeepMind's surface-distance, MONAI), or a number (BraTS: 373.13).
EMPTY_DISTANCES = ("diagonal", "nan", "inf")

#: The largest distance given as a number (a kilometre in mm, far beyond any image's diagonal): the per-image means,
#: their variances and the bootstrap's sums stay far from overflowing (1e200 failed in an eigenvalue solver, 1e308
#: emptied every HD95 interval). Beyond, ``inf`` says it.
MAX_EMPTY_DISTANCE = 1e6

#: Which foreground voxels are border: ``face`` (the default: a face neighbour, 6 in 3D and 4 in 2D, in the
#: background; MetricsReloaded's, SimpleITK's ``BinaryContour(fullyConnected=False)``) or ``full`` (any of the 26, in
#: 2D 8, neighbours: ``BinaryContour(fullyConnected=True)``, seg-metrics' default). Outside the array is background.
BORDERS = ("face", "full")


def conventions(*, empty_distance: str | float = "diagonal", one_slice: str = "2d", border: str = "face",
                min_lesion_size: str | int | float = MIN_LESION_SIZE) -> dict:
    """The conventions of the boundary metrics, checked and spelled (what ``boundary_matrix``'s ``conventions`` hold).

    Parameters
    ----------
    empty_distance : {'diagonal', 'nan', 'inf'} or float
        :data:`EMPTY_DISTANCES`.
    one_slice : {'2d', '3d'}
        :data:`ONE_SLICE`.
    border : {'face', 'full'}
        :data:`BORDERS`.
    min_lesion_size : str or int or float
        The lesion-wise metrics' minimum lesion size (:func:`robustness.overlap.lesions.lesion_size`; default
        :data:`robustness.overlap.lesions.MIN_LESION_SIZE`, none left out).

    Returns
    -------
    dict
        The four, a number as a float, the minimum lesion size spelled ``'<amount> voxels'`` or ``'<amount> mm3'``.

    Raises
    ------
    ValueError
        For a value outside its list (a negative or non-numeric distance).

    Examples
    --------
    >>> conventions(empty_distance="373.13")
    {'empty_distance': 373.13, 'one_slice': '2d', 'border': 'face', 'min_lesion_size': '0 voxels'}
    """
    if isinstance(empty_distance, str) and empty_distance not in EMPTY_DISTANCES:
        try:
            empty_distance = float(empty_distance)
        except ValueError:
            raise ValueError(f"empty_distance must be one of {', '.join(EMPTY_DISTANCES)} or a number, got "
                             f"{empty_distance!r}") from None
    empty_mask_distance((1, 1, 1), np.ones(3), empty_distance)  # refuses a negative or nan number
    if not isinstance(empty_distance, str) and float(empty_distance) > MAX_EMPTY_DISTANCE:
        raise ValueError(f"empty_distance must be at most {MAX_EMPTY_DISTANCE:g} (or 'inf'), got "
                         f"{float(empty_distance):g}")
    if one_slice not in ONE_SLICE:
        raise ValueError(f"one_slice must be one of {', '.join(ONE_SLICE)}, got {one_slice!r}")
    if border not in BORDERS:
        raise ValueError(f"border must be one of {', '.join(BORDERS)}, got {border!r}")
    amount, unit = lesion_size(min_lesion_size)
    return {"empty_distance": empty_distance if isinstance(empty_distance, str) else float(empty_distance),
            "one_slice": one_slice, "border": border, "min_lesion_size": f"{amount:g} {unit}"}


#: The conventions a boundary metric follows, and their defaults (:func:`conventions` checks and spells them).
CONVENTION_DEFAULTS = {"one_slice": "2d", "empty_distance": "diagonal", "border": "face",
                       "min_lesion_size": MIN_LESION_SIZE}


def chosen_conventions(owner: str, given: Mapping[str, Any] | None, deprecated: dict) -> dict:
    """The conventions of a call: ``given``, then the keywords of before (deprecated), over the defaults.

    Parameters
    ----------
    owner : str
        The function called (named in the warning and the error).
    given : mapping or None
        Its ``conventions``.
    deprecated : dict
        Its ``**deprecated`` keywords.

    Returns
    -------
    dict
        The four, as given (:func:`conventions` checks and spells them).
    """
    legacy = deprecated_keywords(owner, deprecated, CONVENTION_DEFAULTS, "conventions={...}")
    chosen = {**CONVENTION_DEFAULTS, **(given or {}), **legacy}
    unknown = sorted(set(chosen) - set(CONVENTION_DEFAULTS))
    if unknown:
        raise ValueError(f"{owner}: no convention {unknown[0]!r} (the conventions: {', '.join(CONVENTION_DEFAULTS)})")
    return chosen


def empty_mask_distance(shape: tuple, sp: Sequence[float] | np.ndarray, empty_distance: str | float) -> float:
    """The distance an empty mask scores against a non-empty one (:data:`EMPTY_DISTANCES`).

    Parameters
    ----------
    shape : tuple
        The array's shape.
    sp : sequence of float
        Its spacing, one per axis.
    empty_distance : str or float

    Returns
    -------
    float
    """
    if isinstance(empty_distance, str):
        if empty_distance not in EMPTY_DISTANCES:
            raise ValueError(f"empty_distance must be one of {', '.join(EMPTY_DISTANCES)} or a number, got "
                             f"{empty_distance!r}")
        return {"nan": math.nan, "inf": math.inf}.get(empty_distance) or _diagonal(shape, sp)
    value = float(empty_distance)
    if not value >= 0:
        raise ValueError(f"empty_distance must be >= 0, got {empty_distance!r}")
    return value


def _diagonal(shape: tuple, spacing: Sequence[float] | np.ndarray) -> float:
    """The largest distance between two voxel centres of the array (physical units)."""
    return math.sqrt(sum(((n - 1) * s) ** 2 for n, s in zip(shape, spacing)))
