"""STAPLE (Warfield, Zou & Wells 2004) on rater-pattern counts, as ITK/SimpleITK's ``STAPLEImageFilter``.

With ``k`` binary raters every pixel shows one of ``2**k`` patterns; ITK's
EM has no spatial term, so it can run exactly on the pattern histogram
instead of on millions of pixels (see :func:`staple`). The gold strategy
``staple`` (:mod:`robustness.overlap.gold`) is foreground where the posterior is
strictly above 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robustness.overlap.patterns import pattern_bits

__all__ = ["StapleResult", "staple", "STAPLE_MAX_ITER", "STAPLE_TOL"]

#: Default cap on STAPLE's EM iterations. SimpleITK has no cap by default and runs to convergence; real data needs
#: far more than the old cap of 1,000 (BU-BIL dataset 2A: 18,204 and 5,064 iterations on two images, whose masks
#: differ from the capped ones). 100,000 is five times the most seen on real data and costs at most a few seconds
#: per fit (about 17 microseconds an iteration with 3 raters, 65 with 10: the histogram is tiny); an image that still
#: reaches it is a warning that names the image (:func:`robustness.overlap.checks.unconverged_fits`).
STAPLE_MAX_ITER = 100_000

#: ITK's convergence rule: every (p_j - p_j_prev)**2 and (q_j - q_j_prev)**2 at most this.
STAPLE_TOL = 1.0e-14


@dataclass(frozen=True)
class StapleResult:
    """STAPLE on one image's pattern counts.

    Attributes
    ----------
    lut : ndarray of bool, (2**k,)
        Foreground patterns (probability > 0.5).
    probability : ndarray of float, (2**k,)
        Posterior probability of foreground for every pattern (0 or 1 in
        the guarded cases where EM does not run; nan for patterns that do not
        occur and whose posterior is 0/0).
    sensitivity, specificity : ndarray of float, (k,)
    iterations : int
        EM iterations run (0 when a guard applied).
    converged : bool
        False when the iteration cap was reached first.
    rule : str
        Which path produced the result: ``"em"``, ``"all-empty"``,
        ``"all-full"`` or ``"identical"``.
    """

    lut: np.ndarray
    probability: np.ndarray
    sensitivity: np.ndarray
    specificity: np.ndarray
    iterations: int
    converged: bool
    rule: str


def staple(hist: ArrayLike, *, max_iter: int = STAPLE_MAX_ITER, confidence_weight: float = 1.0) -> StapleResult:
    """STAPLE on the pattern histogram of ``k`` binary raters.

    Parameters
    ----------
    hist : array_like of int, (2**k,)
        Number of pixels showing each rater pattern (bit ``j`` = rater ``j``).
    max_iter : int
        Cap on EM iterations; ``converged`` is False when it is reached.
    confidence_weight : float
        ITK's ``ConfidenceWeight``: the prior is this times the mean rater vote.

    Returns
    -------
    StapleResult
        The foreground patterns, their posterior probabilities, the raters' sensitivities and specificities and
        the fit's diagnostics.

    Raises
    ------
    ValueError
        When ``hist`` does not have ``2**k`` entries (k >= 1) or is all zero, or ``max_iter`` is below 1.

    Notes
    -----
    This is the EM of ITK's ``STAPLEImageFilter`` (which has no spatial term),
    run on pattern counts ``n_p``. With ``D_pj`` the vote of rater ``j`` in
    pattern ``p`` and ``N = sum_p n_p``:

    - start: ``W_p = (sum_j D_pj) / k``; prior ``g = c * sum_p n_p W_p / N``;
    - M step: ``p_j = sum_p n_p W_p D_pj / sum_p n_p W_p`` and
      ``q_j = sum_p n_p (1 - W_p)(1 - D_pj) / sum_p n_p (1 - W_p)``;
    - E step: ``a_p = prod_j p_j^D (1 - p_j)^(1-D)``,
      ``b_p = prod_j (1 - q_j)^D q_j^(1-D)``, ``W_p = g a_p / (g a_p + (1 - g) b_p)``;
    - stop after an iteration (not the first) where every squared change of
      ``p_j`` and ``q_j`` is at most 1e-14.

    The gold is ``W_p > 0.5``. Guards (where SimpleITK returns an all-NaN map):
    every rater empty gives an empty gold, every rater full a full gold, and
    identical raters (only the all-0 and all-1 patterns occur, which includes
    a single rater) give their common mask without running EM. Pixel sums are
    taken per pattern here rather than per pixel, so probabilities agree with
    SimpleITK to rounding (about 1e-12); thresholded masks are identical
    unless a pattern's probability lies within that distance of 0.5.

    Examples
    --------
    >>> hist = [50, 5, 5, 40]      # 2 raters: both 0, only rater 0, only rater 1, both 1
    >>> r = staple(hist)
    >>> r.lut.tolist(), r.rule
    ([False, False, False, True], 'em')
    """
    hist = np.asarray(hist, dtype=np.int64)
    n_pat = hist.size
    k = int(np.log2(n_pat))
    if n_pat != 1 << k or k < 1:
        raise ValueError(f"hist must have 2**k entries, got {n_pat}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be >= 1, got {max_iter}")
    full = n_pat - 1
    occurring = np.flatnonzero(hist)
    nan_k = np.full(k, np.nan)
    if occurring.size == 0:
        raise ValueError("hist is all zero (an image without pixels)")
    if set(occurring.tolist()) <= {0, full}:
        lut = np.zeros(n_pat, dtype=bool)
        lut[full] = True
        if occurring.tolist() == [0]:
            rule = "all-empty"
        elif occurring.tolist() == [full]:
            rule = "all-full"
        else:
            rule = "identical"
        return StapleResult(lut, lut.astype(np.float64), nan_k, nan_k, 0, True, rule)

    # EM over the patterns that occur (others carry no pixels; their 0/0 would poison sums)
    all_bits = pattern_bits(k)
    bits = all_bits[occurring]
    d = bits.astype(np.float64)
    not_d = 1.0 - d
    bits_t = np.ascontiguousarray(bits.T)  # (k, patterns): one row per rater for the posterior's products
    n = hist[occurring].astype(np.float64)
    w = d.sum(axis=1) / k
    g = (n @ w) / n.sum() * confidence_weight
    last_p = np.full(k, -10.0)
    last_q = np.full(k, -10.0)
    converged = False
    it = 0
    for it in range(max_iter):
        nw = n * w
        nv = n * (1.0 - w)
        p = (nw @ d) / nw.sum()
        q = (nv @ not_d) / nv.sum()
        w = _posterior(bits_t, p, q, g)
        if it != 0 and ((p - last_p) ** 2).max() <= STAPLE_TOL and ((q - last_q) ** 2).max() <= STAPLE_TOL:
            converged = True
            break
        last_p, last_q = p, q
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = _posterior(np.ascontiguousarray(all_bits.T), p, q, g)  # non-occurring patterns may be 0/0 = nan
    prob[occurring] = w
    return StapleResult(prob > 0.5, prob, p, q, it + 1, converged, "em")


def _posterior(bits_t, p, q, g):
    """``g a / (g a + (1 - g) b)`` for every pattern (column of ``bits_t``, one row per rater).

    ``a`` and ``b`` are products over the raters taken in rater order, as ITK does.
    """
    fa = np.where(bits_t, p[:, None], (1.0 - p)[:, None])
    fb = np.where(bits_t, (1.0 - q)[:, None], q[:, None])
    a, b = fa[0].copy(), fb[0].copy()
    for j in range(1, fa.shape[0]):
        a *= fa[j]
        b *= fb[j]
    return g * a / (g * a + (1.0 - g) * b)
