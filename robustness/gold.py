"""Gold-standard strategies: how several annotators' masks become one reference.

With ``k`` annotators, every pixel shows one of ``2**k`` *rater patterns*
(bit ``j`` set when annotator ``j`` marked it). Every strategy here is a
function of the pattern alone, so each is a look-up table (LUT) of ``2**k``
booleans, and a gold mask is ``lut[pattern]``. This makes building all golds
of an image one pass over its pixels, and lets STAPLE run exactly on the
``2**k`` pattern counts instead of on millions of pixels.

Strategies (registry :data:`AGGREGATES`, plus ``rand1..randN``):

``majority``
    Foreground when at least ``ceil(k / 2)`` of the ``k`` annotators present
    marked the pixel (the official MEDIQA-MAGIC rule: with 4 annotators a 2-2
    tie is foreground; with 2 annotators this is the union).
``intersection`` / ``union``
    All / any of the annotators present.
``staple``
    STAPLE (Warfield, Zou & Wells 2004) as ITK/SimpleITK's ``STAPLEImageFilter``
    computes it, foreground where the estimated probability is strictly above
    0.5; see :func:`staple`.
``randN``
    For every image, one of the annotators present, drawn at random
    (independently per strategy and image, reproducible under ``rng``). These
    need no pixel pass: their counts are the chosen annotator's counts.

For macro scoring the individual annotators are golds too, so that the mean
and the maximum over annotators can be taken per image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "AGGREGATES",
    "StapleResult",
    "staple",
    "majority_lut",
    "intersection_lut",
    "union_lut",
    "annotator_luts",
    "pattern_bits",
    "strategy_names",
    "split_strategies",
    "MAX_ANNOTATORS",
    "STAPLE_MAX_ITER",
]

MAX_ANNOTATORS = 16
#: Default cap on STAPLE's EM iterations (SimpleITK has no cap by default).
STAPLE_MAX_ITER = 1000
#: ITK's convergence rule: every (p_j - p_j_prev)**2 and (q_j - q_j_prev)**2 at most this.
STAPLE_TOL = 1.0e-14


def pattern_bits(k: int) -> np.ndarray:
    """``bits[p, j]``: whether annotator ``j`` is foreground in pattern ``p`` (bool, (2**k, k))."""
    if not 1 <= k <= MAX_ANNOTATORS:
        raise ValueError(f"between 1 and {MAX_ANNOTATORS} annotators per image are supported, got {k}")
    p = np.arange(1 << k)
    return ((p[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)


def majority_lut(k: int) -> np.ndarray:
    """Official majority vote: at least ``ceil(k/2)`` annotators."""
    return pattern_bits(k).sum(axis=1) >= -(-k // 2)


def intersection_lut(k: int) -> np.ndarray:
    return pattern_bits(k).all(axis=1)


def union_lut(k: int) -> np.ndarray:
    return pattern_bits(k).any(axis=1)


def annotator_luts(k: int) -> np.ndarray:
    """One LUT per annotator: annotator ``j``'s own mask (bool, (k, 2**k))."""
    return pattern_bits(k).T.copy()


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


def staple(hist, *, max_iter: int = STAPLE_MAX_ITER, confidence_weight: float = 1.0) -> StapleResult:
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
        q = (nv @ (1.0 - d)) / nv.sum()
        w = _posterior(bits, p, q, g)
        if it != 0 and np.all((p - last_p) ** 2 <= STAPLE_TOL) and np.all((q - last_q) ** 2 <= STAPLE_TOL):
            converged = True
            break
        last_p, last_q = p, q
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = _posterior(all_bits, p, q, g)  # non-occurring patterns may be 0/0 = nan
    prob[occurring] = w
    return StapleResult(prob > 0.5, prob, p, q, it + 1, converged, "em")


def _posterior(bits, p, q, g):
    """``g a / (g a + (1 - g) b)`` for every pattern row of ``bits`` (rater order products, as ITK)."""
    a = np.ones(bits.shape[0])
    b = np.ones(bits.shape[0])
    for j in range(bits.shape[1]):
        a = a * np.where(bits[:, j], p[j], 1.0 - p[j])
        b = b * np.where(bits[:, j], 1.0 - q[j], q[j])
    return g * a / (g * a + (1.0 - g) * b)


AGGREGATES = {
    "majority": majority_lut,
    "intersection": intersection_lut,
    "union": union_lut,
    "staple": None,  # needs the pattern histogram: see staple()
}


def strategy_names(n_random: int = 3, aggregates=tuple(AGGREGATES)) -> list[str]:
    """The default strategy list: ``rand1..randN`` then the aggregates, in paper order."""
    return [f"rand{i}" for i in range(1, n_random + 1)] + list(aggregates)


def split_strategies(names) -> tuple[list[str], int]:
    """Validate strategy names; return (aggregates in registry order, number of rand strategies).

    ``randN`` names must be ``rand1..randN`` without gaps.
    """
    names = list(names)
    aggregates = [a for a in AGGREGATES if a in names]
    rand = sorted(int(s[4:]) for s in names if s.startswith("rand") and s[4:].isdigit())
    unknown = [s for s in names if s not in AGGREGATES and not (s.startswith("rand") and s[4:].isdigit())]
    if unknown:
        raise ValueError(
            f"unknown gold strategy {unknown[0]!r}; choose from rand1..randN, {', '.join(AGGREGATES)}"
        )
    if rand != list(range(1, len(rand) + 1)):
        raise ValueError(f"random strategies must be rand1..randN without gaps, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate strategy in {names}")
    return aggregates, len(rand)
