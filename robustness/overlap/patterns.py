"""Rater patterns: with ``k`` annotators every pixel shows one of ``2**k`` patterns (bit ``j`` = annotator ``j``).

A pixel-level gold that depends only on the pattern is a look-up table (LUT)
of ``2**k`` booleans. numpy is imported on first use, so the gold registry
(:mod:`robustness.overlap.gold`), which registers these LUTs, stays cheap to import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MAX_ANNOTATORS", "pattern_bits", "majority_lut", "intersection_lut", "union_lut", "annotator_luts"]

MAX_ANNOTATORS = 16


def pattern_bits(k: int) -> np.ndarray:
    """Which annotators are foreground in each pattern.

    Parameters
    ----------
    k : int
        Annotators (1 to :data:`MAX_ANNOTATORS`).

    Returns
    -------
    ndarray of bool (2**k, k)
        ``bits[p, j]``: annotator ``j`` is foreground in pattern ``p``.
    """
    import numpy as np

    if not 1 <= k <= MAX_ANNOTATORS:
        raise ValueError(f"between 1 and {MAX_ANNOTATORS} annotators per image are supported, got {k}")
    p = np.arange(1 << k)
    return ((p[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)


def majority_lut(k: int) -> np.ndarray:
    """Official majority vote: foreground where at least ``ceil(k/2)`` annotators are.

    Parameters
    ----------
    k : int
        Annotators.

    Returns
    -------
    ndarray of bool (2**k,)
    """
    return pattern_bits(k).sum(axis=1) >= -(-k // 2)


def intersection_lut(k: int) -> np.ndarray:
    """Foreground where all annotators are.

    Parameters
    ----------
    k : int
        Annotators.

    Returns
    -------
    ndarray of bool (2**k,)
    """
    import numpy as np

    return np.asarray(pattern_bits(k).all(axis=1))


def union_lut(k: int) -> np.ndarray:
    """Foreground where any annotator is.

    Parameters
    ----------
    k : int
        Annotators.

    Returns
    -------
    ndarray of bool (2**k,)
    """
    import numpy as np

    return np.asarray(pattern_bits(k).any(axis=1))


def annotator_luts(k: int) -> np.ndarray:
    """One LUT per annotator: annotator ``j``'s own mask.

    Parameters
    ----------
    k : int
        Annotators.

    Returns
    -------
    ndarray of bool (k, 2**k)
    """
    return pattern_bits(k).T.copy()
