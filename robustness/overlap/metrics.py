"""The metric table and the both-empty policy: per-pair, micro and macro scores from overlap counts.

A metric is one entry of :data:`METRICS`: its numerator and denominator as
weights over ``(tp, fp, fn)``. Everything that scores reads that entry: the
per-image scores and micro sums here, and the resampling kernels (which
receive the weights as coefficient arrays, see :mod:`robustness.statistics.schemes`).
Adding a metric is one call to :func:`register_metric`.

=========== ======================= =========================
metric      numerator               denominator
=========== ======================= =========================
``jaccard`` ``tp``                  ``tp + fp + fn``
``dice``    ``2 tp``                ``2 tp + fp + fn``
=========== ======================= =========================

All functions take count arrays whose last axis is ``(tp, fp, fn)`` and whose
second-to-last axis is the image; any leading axes (strategy, run, resample...)
are carried through.

- micro: sum TP, FP, FN over images first, then one ratio. Micro Dice is
  ``2J / (1 + J)`` of micro Jaccard, so both rank runs identically.
- macro: one ratio per image, then the mean over images.
- ``meanofmax`` / ``meanofmean`` (official MEDIQA-MAGIC macro scores): per
  image, the max / mean over the annotators present of the run's score
  against each annotator, then the mean over images.

Both-empty pairs (denominator 0; for Jaccard and Dice exactly the pairs where
run and reference are both empty) follow one :class:`EmptyPolicy` of
:data:`EMPTY_POLICIES`:

``"one"`` (default)
    score 1: the run agrees perfectly with an empty reference. This is the
    choice of most segmentation toolkits' "both empty" convention and it
    keeps every image in the average.
``"zero"``
    score 0.
``"ignore"``
    the pair is left out of the max/mean over annotators and of the mean over
    images (nan only when nothing is left).
``"official"``
    0/0 = nan, which propagates through max and mean exactly as in the
    official scorer: a single both-empty pair makes the run's macro score nan.

Wherever the official scorer produces no nan, every policy gives its numbers
bit for bit: integer numerators and denominators, the same float division,
and reductions in the same order (numpy's ``mean`` over a contiguous axis).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robustness.overlap.empty import EMPTY_POLICIES, EmptyPolicy, empty_policy

__all__ = [
    "Metric",
    "METRICS",
    "register_metric",
    "get_metric",
    "EmptyPolicy",
    "EMPTY_POLICIES",
    "empty_policy",
    "AVERAGES",
    "pair_score",
    "micro",
    "macro",
    "mean_over_images",
    "per_image",
    "over_annotators",
    "macro_over_annotators",
]

AVERAGES = ("micro", "macro")


@dataclass(frozen=True)
class Metric:
    """A ratio of weighted overlap counts: ``numerator . (tp, fp, fn) / denominator . (tp, fp, fn)``.

    Parameters
    ----------
    name : str
    numerator, denominator : tuple of 3 numbers
        Weights over ``(tp, fp, fn)``. Integer weights keep the arithmetic
        exact (integer sums, one float division).
    description : str
        One line for reports.
    lower_better : bool
        Smaller values are better (an error rate such as ``FP / (TP + FP)``); rankings then put the smallest first.

    Examples
    --------
    >>> precision = Metric("precision", (1, 0, 0), (1, 1, 0), "TP / (TP + FP)")
    >>> float(precision.score([3, 1, 2]))
    0.75
    """

    name: str
    numerator: tuple
    denominator: tuple
    description: str = ""
    lower_better: bool = False

    def __post_init__(self) -> None:
        """Check the weights: three finite numbers each, a denominator that is not all zero."""
        for side in ("numerator", "denominator"):
            w = tuple(getattr(self, side))
            if len(w) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in w):
                raise ValueError(f"metric {self.name!r}: {side} must be 3 finite weights over (tp, fp, fn), got {w}")
            object.__setattr__(self, side, w)
        if not any(self.denominator):
            raise ValueError(f"metric {self.name!r}: the denominator weights are all zero")

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The weights as float64 arrays (for the resampling kernels).

        Returns
        -------
        (numerator, denominator) : ndarray (3,)
        """
        return np.array(self.numerator, dtype=np.float64), np.array(self.denominator, dtype=np.float64)

    def score(self, counts: ArrayLike, *, empty: str | EmptyPolicy = "one") -> np.ndarray:
        """The metric of each (tp, fp, fn) triple along the last axis.

        Parameters
        ----------
        counts : array_like (..., 3)
        empty : str or EmptyPolicy
            What a pair with denominator 0 scores.

        Returns
        -------
        ndarray (...)
        """
        policy = empty_policy(empty)
        c = np.asarray(counts)
        num = _weighted(c, self.numerator)
        den = _weighted(c, self.denominator)
        out = np.full(np.shape(den), policy.value, dtype=np.float64)
        np.divide(num, den, out=out, where=den != 0)
        return out


def _weighted(c, weights):
    """``sum_k w_k c[..., k]`` over the non-zero weights; integer when the weights and counts are."""
    exact = all(float(w).is_integer() for w in weights) and np.issubdtype(c.dtype, np.integer)
    c = c.astype(np.int64 if exact else np.float64, copy=False)
    total = None
    for k, w in enumerate(weights):
        if w:
            term = c[..., k] if w == 1 else (int(w) if exact else w) * c[..., k]
            total = term if total is None else total + term
    return np.zeros(c.shape[:-1], dtype=c.dtype) if total is None else total


#: The metric table: every metric the package computes, by name.
METRICS: dict[str, Metric] = {}


def register_metric(metric: Metric) -> Metric:
    """Add a metric to :data:`METRICS` (every study then computes it).

    Parameters
    ----------
    metric : Metric

    Returns
    -------
    Metric
        ``metric``, registered.
    """
    if not isinstance(metric, Metric):
        raise TypeError(f"expected a Metric, got {type(metric).__name__}")
    METRICS[metric.name] = metric
    return metric


register_metric(Metric("jaccard", (1, 0, 0), (1, 1, 1), "Jaccard index TP / (TP + FP + FN)"))
register_metric(Metric("dice", (2, 0, 0), (2, 1, 1), "Dice coefficient 2 TP / (2 TP + FP + FN)"))


def get_metric(name: str | Metric) -> Metric:
    """The table entry of a metric (a :class:`Metric` passes through).

    Parameters
    ----------
    name : str or Metric

    Returns
    -------
    Metric
    """
    if isinstance(name, Metric):
        return name
    try:
        return METRICS[name]
    except (KeyError, TypeError):
        raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {name!r}") from None


def pair_score(counts: ArrayLike, metric: str | Metric = "jaccard", *, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """The metric of each (tp, fp, fn) triple along the last axis.

    Parameters
    ----------
    counts : array_like (..., 3)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).

    Returns
    -------
    ndarray (...)

    Examples
    --------
    >>> pair_score([[2, 1, 1], [0, 0, 0]], "dice")
    array([0.66666667, 1.        ])
    >>> pair_score([[2, 1, 1], [0, 0, 0]], "jaccard", empty="official")
    array([0.5, nan])
    """
    m = get_metric(metric)
    return m.score(counts, empty=empty_policy(empty))


def micro(counts: ArrayLike, metric: str | Metric = "jaccard", *, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Pool TP/FP/FN over the image axis (-2), then one ratio.

    Parameters
    ----------
    counts : array_like (..., n_images, 3)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).

    Returns
    -------
    ndarray (...)
    """
    return pair_score(np.asarray(counts, dtype=np.int64).sum(axis=-2), metric, empty=empty)


def per_image(counts: ArrayLike, metric: str | Metric = "jaccard", *,
              empty: str | EmptyPolicy = "one") -> np.ndarray:
    """One score per image.

    Parameters
    ----------
    counts : array_like (..., n_images, 3)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).

    Returns
    -------
    ndarray (..., n_images)
    """
    return pair_score(counts, metric, empty=empty)


def mean_over_images(x: ArrayLike, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """The macro mean over images (the last axis) of per-image values under the both-empty policy.

    Images the policy leaves out (``ignore``: nan) take no part; under ``official`` a nan propagates.

    Parameters
    ----------
    x : array_like (..., n_images)
    empty : str or EmptyPolicy

    Returns
    -------
    ndarray (...)
    """
    policy = empty_policy(empty)
    x = np.ascontiguousarray(x)
    if policy.skip:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(x, axis=-1)
    return np.mean(x, axis=-1)


def macro(counts: ArrayLike, metric: str | Metric = "jaccard", *, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Mean over images (axis -2 of ``counts``) of the per-image score.

    Parameters
    ----------
    counts : array_like (..., n_images, 3)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).

    Returns
    -------
    ndarray (...)
    """
    policy = empty_policy(empty)
    return mean_over_images(per_image(counts, metric, empty=policy), policy)


def over_annotators(annotator_counts: ArrayLike, valid: ArrayLike, metric: str | Metric = "jaccard", *,
                    how: str = "max", empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Per image, the max or mean over the annotators present of the per-pair score.

    Parameters
    ----------
    annotator_counts : int array (n_annotators, ..., n_images, 3)
    valid : bool array (n_annotators, n_images)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).
    how : {'max', 'mean'}

    Returns
    -------
    ndarray (..., n_images)
    """
    if how not in ("max", "mean"):
        raise ValueError(f"how must be 'max' or 'mean', got {how!r}")
    policy = empty_policy(empty)
    s = pair_score(annotator_counts, metric, empty=policy)  # (n_ann, ..., n_img)
    valid = np.asarray(valid, dtype=bool)
    out = np.full(s.shape[1:], np.nan)
    # Images with the same set of annotators are reduced together over a
    # contiguous last axis, which is exactly numpy's 1-D mean/max of that list.
    patterns, inverse = np.unique(valid.T, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for p, rows in enumerate(patterns):
        if not rows.any():
            continue
        cols = np.flatnonzero(inverse == p)
        sub = np.ascontiguousarray(np.moveaxis(s[rows][..., cols], 0, -1))  # (..., m, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if policy.skip:
                red = np.nanmax(sub, axis=-1) if how == "max" else np.nanmean(sub, axis=-1)
            else:
                red = np.max(sub, axis=-1) if how == "max" else np.mean(sub, axis=-1)
        out[..., cols] = red
    return out


def macro_over_annotators(annotator_counts: ArrayLike, valid: ArrayLike, metric: str | Metric = "jaccard", *,
                          how: str = "max", empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Official ``meanofmax`` (``how='max'``) or ``meanofmean``: mean over images of :func:`over_annotators`.

    Parameters
    ----------
    annotator_counts : int array (n_annotators, ..., n_images, 3)
    valid : bool array (n_annotators, n_images)
    metric : str or Metric
        An entry of the metric table.
    empty : str or EmptyPolicy
        The both-empty policy (what a pair with denominator 0 scores).
    how : {'max', 'mean'}

    Returns
    -------
    ndarray (...)
    """
    policy = empty_policy(empty)
    return mean_over_images(over_annotators(annotator_counts, valid, metric, how=how, empty=policy), policy)
