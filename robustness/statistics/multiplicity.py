"""Adjusting a family of p-values: the package's one function, :func:`adjust`, with every method of statsmodels.

``statsmodels.stats.multitest.multipletests`` names the methods; R's ``p.adjust`` (challengeR's
``p.adjust.method``) has six of them under other names:

================== ============== ===========================================================================
method             R's name       adjusted p-value of the i-th smallest of m p-values (then capped at 1)
================== ============== ===========================================================================
``none``           none           p itself
``bonferroni``     bonferroni     m p
``sidak``                         1 - (1 - p)^m
``holm``           holm           step-down: max over j <= i of (m - j + 1) p_(j)
``holm-sidak``                    step-down: max over j <= i of 1 - (1 - p_(j))^(m - j + 1)
``simes-hochberg`` hochberg       step-up: min over j >= i of (m - j + 1) p_(j)
``hommel``         hommel         Hommel's closed Simes procedure (Wright 1992's algorithm, as R's)
``fdr_bh``         BH, fdr        step-up: min over j >= i of m p_(j) / j (Benjamini & Hochberg 1995)
``fdr_by``         BY             ``fdr_bh`` times sum_{k<=m} 1/k (Benjamini & Yekutieli 2001)
``fdr_tsbh``                      two-stage BH (Benjamini, Krieger & Yekutieli 2006), valid at ``alpha`` only
``fdr_tsbky``                     two-stage BKY, valid at ``alpha`` only
================== ============== ===========================================================================

The two two-stage methods estimate the number of true nulls at the level ``alpha``: their adjusted p-values
mean "rejected at ``alpha``" and nothing at other levels, so they are statsmodels' own computation, called
here; every other method is written below, operation for operation as R's ``p.adjust`` where R has it, and
checked against statsmodels (equal, or within one unit in the last place for BH and BY, which statsmodels
computes as ``p / (i / n)``) and against a naive twin in ``tests/statistics/test_multiplicity.py``. nan p-values
are left out of the family and stay nan.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from statsmodels.stats.multitest import multipletests

from robustness.statistics.ranking_options import ADJUSTMENTS, R_ADJUSTMENTS

__all__ = ["ADJUSTMENTS", "R_ADJUSTMENTS", "adjust"]


def _step_down(values: np.ndarray) -> np.ndarray:
    """Running maximum: a step-down method's adjusted values, in the order of the sorted p-values."""
    return np.maximum.accumulate(values)


def _step_up(values: np.ndarray) -> np.ndarray:
    """Running minimum from the largest p-value down: a step-up method's adjusted values."""
    return np.minimum.accumulate(values[::-1])[::-1]


def _hommel(p: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of sorted ``p`` (Wright 1992, the algorithm of R's ``p.adjust``)."""
    m = p.size
    i = np.arange(1, m + 1)
    adjusted = np.full(m, np.min(m * p / i))
    q = adjusted.copy()
    for k in range(m - 1, 1, -1):  # subsets of size k
        head = m - k + 1  # p_(1) .. p_(m-k+1) are compared with k p_(j); the tail with Simes over k
        tail_min = np.min(k * p[head:] / np.arange(2, k + 1))
        q[:head] = np.minimum(k * p[:head], tail_min)
        q[head:] = q[head - 1]
        adjusted = np.maximum(adjusted, q)
    return np.maximum(adjusted, p)


def _sorted_adjusted(p: np.ndarray, method: str) -> np.ndarray:
    """The adjusted values of ascending ``p`` (m >= 1) under ``method`` (not capped)."""
    m = p.size
    j = np.arange(1, m + 1)
    if method == "holm":
        return _step_down((m - j + 1) * p)
    if method == "holm-sidak":
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, adjusted 1
            return _step_down(-np.expm1((m - j + 1) * np.log1p(-p)))
    if method == "simes-hochberg":
        return _step_up((m - j + 1) * p)
    if method == "hommel":
        return _hommel(p)
    if method == "fdr_bh":  # R's n / i * p, operation for operation (statsmodels' p / (i / n) may differ by 1 ulp)
        return _step_up(m / j * p)
    if method == "fdr_by":  # R's q * n / i * p
        return _step_up(np.sum(1.0 / j) * m / j * p)
    raise AssertionError(method)


def adjust(p: ArrayLike, method: str = "holm", *, alpha: float = 0.05) -> np.ndarray:
    """Adjusted p-values of one family of tests.

    Parameters
    ----------
    p : array_like
        p-values, any shape; nan entries are left out of the family and stay nan.
    method : str
        One of :data:`ADJUSTMENTS` (module notes).
    alpha : float
        The level of the two-stage methods (``fdr_tsbh``, ``fdr_tsbky``); unused by the others.

    Returns
    -------
    ndarray
        Shaped like ``p``.

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust([0.01, 0.04, 0.03], "fdr_bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ADJUSTMENTS:
        raise ValueError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}, got {method!r}")
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if method == "none" or m == 0:
        out[ok] = q
        return out
    if method == "bonferroni":
        adjusted = q * m
    elif method == "sidak":
        with np.errstate(divide="ignore"):
            adjusted = -np.expm1(m * np.log1p(-q))
    elif method in ("fdr_tsbh", "fdr_tsbky"):
        adjusted = multipletests(q, alpha=alpha, method=method)[1]
    else:
        order = np.argsort(q, kind="stable")
        adjusted = np.empty(m)
        adjusted[order] = _sorted_adjusted(q[order], method)
    out[ok] = np.minimum(1.0, adjusted)
    return out
