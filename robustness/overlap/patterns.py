"""Rater patterns: with ``k`` annotators every pixel shows one of ``2**k`` patterns (bit ``j`` = annotator ``j``).

A pixel-level gold that depends only on the pattern is a look-up table (LUT)
of ``2**k`` booleans. numpy is imported on first use, so the gold registry
(:mod:`robustness.overlap.gold`), which registers these LUTs, stays cheap to import.
"""

from __future__ import annotations

__all__ = ["MAX_ANNOTATORS", "pattern_bits", "majority_lut", "intersection_lut", "union_lut", "annotator_luts"]

MAX_ANNOTATORS = 16


def pattern_bits(k: int):
    """``bits[p, j]``: whether annotator ``j`` is foreground in pattern ``p`` (bool, (2**k, k))."""
    import numpy as np

    if not 1 <= k <= MAX_ANNOTATORS:
        raise ValueError(f"between 1 and {MAX_ANNOTATORS} annotators per image are supported, got {k}")
    p = np.arange(1 << k)
    return ((p[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)


def majority_lut(k: int):
    """Official majority vote: at least ``ceil(k/2)`` annotators."""
    return pattern_bits(k).sum(axis=1) >= -(-k // 2)


def intersection_lut(k: int):
    """All annotators present."""
    return pattern_bits(k).all(axis=1)


def union_lut(k: int):
    """Any annotator present."""
    return pattern_bits(k).any(axis=1)


def annotator_luts(k: int):
    """One LUT per annotator: annotator ``j``'s own mask (bool, (k, 2**k))."""
    return pattern_bits(k).T.copy()
