"""The boundary metrics as reductions of two directed surface-distance sets.

One definition for the voxel-wise metrics of :mod:`robustness.overlap.boundary` and the per-lesion ones of
:mod:`robustness.overlap.lesions`.

``d <= t`` is decided on squared distances with a relative slack of :data:`SLACK`, so that a distance that is
exactly the tolerance in real numbers (two voxels of 1 mm at ``nsd@2``) counts whatever the rounding of the spacing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SLACK", "nsd_of", "hd95_of", "hdp_of", "hdp_pooled_of", "assd_of", "masd_of", "hd_of"]

#: Relative slack on squared distances when comparing a distance with the NSD's tolerance.
SLACK = 1e-9


def nsd_of(d_ab: np.ndarray, d_ba: np.ndarray, tolerance: float) -> float:
    """The normalised surface distance: the share of both borders' voxels within ``tolerance`` of the other border.

    Parameters
    ----------
    d_ab, d_ba : ndarray
        The two directed distance sets (both non-empty).
    tolerance : float

    Returns
    -------
    float

    Examples
    --------
    >>> nsd_of(np.array([0.0, 2.0]), np.array([1.0]), 1.0)
    0.6666666666666666
    """
    limit = tolerance * tolerance * (1.0 + SLACK)
    hits = np.count_nonzero(d_ab * d_ab <= limit) + np.count_nonzero(d_ba * d_ba <= limit)
    return float(hits / (d_ab.size + d_ba.size))


def hd95_of(d_ab: np.ndarray, d_ba: np.ndarray) -> float:
    """The larger of the two directions' 95th percentiles (numpy's linear percentile).

    Parameters
    ----------
    d_ab, d_ba : ndarray

    Returns
    -------
    float
    """
    return hdp_of(d_ab, d_ba, 95.0)


def hdp_of(d_ab: np.ndarray, d_ba: np.ndarray, percentile: float) -> float:
    """The larger of the two directions' ``percentile``-th percentiles (numpy's linear percentile).

    Parameters
    ----------
    d_ab, d_ba : ndarray
    percentile : float
        In (0, 100].

    Returns
    -------
    float
    """
    return float(max(np.percentile(d_ab, percentile), np.percentile(d_ba, percentile)))


def hdp_pooled_of(d_ab: np.ndarray, d_ba: np.ndarray, percentile: float) -> float:
    """The ``percentile``-th percentile of both directions' distances pooled into one set (medpy's, seg-metrics').

    Parameters
    ----------
    d_ab, d_ba : ndarray
    percentile : float
        In (0, 100].

    Returns
    -------
    float

    Examples
    --------
    >>> hdp_pooled_of(np.array([3.0, 4.0, 5.0, 6.0]), np.array([3.0, 4.0]), 95)
    5.75
    """
    return float(np.percentile(np.concatenate([d_ab, d_ba]), percentile))


def masd_of(d_ab: np.ndarray, d_ba: np.ndarray) -> float:
    """The mean average surface distance: the mean of the two directions' means (MetricsReloaded's MASD).

    Parameters
    ----------
    d_ab, d_ba : ndarray

    Returns
    -------
    float

    Examples
    --------
    >>> masd_of(np.array([0.0, 2.0]), np.array([1.0]))
    1.0
    """
    return float((d_ab.mean() + d_ba.mean()) / 2)


def assd_of(d_ab: np.ndarray, d_ba: np.ndarray) -> float:
    """The average symmetric surface distance.

    Parameters
    ----------
    d_ab, d_ba : ndarray

    Returns
    -------
    float
    """
    return float((d_ab.sum() + d_ba.sum()) / (d_ab.size + d_ba.size))


def hd_of(d_ab: np.ndarray, d_ba: np.ndarray) -> float:
    """The Hausdorff distance (the larger of the two directions' maxima).

    Parameters
    ----------
    d_ab, d_ba : ndarray

    Returns
    -------
    float
    """
    return float(max(d_ab.max(), d_ba.max()))
