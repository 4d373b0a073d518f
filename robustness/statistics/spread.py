"""The annotators' own spread: agreement levels of a challenge and Table 4 (runs' distance from it, in SDs).

- :func:`agreement`: pairwise annotator Jaccard, gold coverage and the runs'
  micro Jaccard: a challenge's vital signs.
- :func:`gold_spread`: how many standard deviations each run lies from the
  annotators' agreement with the STAPLE consensus (the overview's Table 4),
  also leave-one-annotator-out.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from robustness.errors import renamed_keyword
from robustness.overlap.metrics import micro, pair_score
from robustness.seeds import SeedLike
from robustness.statistics.inference import draw_counts, tails

if TYPE_CHECKING:

    from robustness.overlap.counts import OverlapCounts
    from robustness.overlap.empty import EmptyPolicy

__all__ = ["agreement", "gold_spread", "encounter_icc", "pairwise_annotator_jaccard"]


def encounter_icc(values: ArrayLike, encounters: Sequence) -> np.ndarray:
    """Intra-class correlation of per-image values within encounters, one per row: one-way ANOVA ICC(1).

    ``ICC = (MSB - MSW) / (MSB + (n0 - 1) MSW)`` with the between- and
    within-encounter mean squares and ``n0 = (N - sum n_g^2 / N) / (G - 1)``
    for unequal group sizes (Shrout & Fleiss 1979; Donner 1986).

    Parameters
    ----------
    values : array_like (..., N)
        Per-image values, one row per run (or a single row).
    encounters : sequence (N,)
        The encounter of every image.

    Returns
    -------
    ndarray
        One ICC per row; nan where no encounter has two images.

    Examples
    --------
    >>> v = np.array([[1.0, 1.1, 5.0, 5.2, 9.0, 8.9]])
    >>> float(encounter_icc(v, ["a", "a", "b", "b", "c", "c"])[0]) > 0.99
    True
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    codes = np.unique(np.asarray(encounters), return_inverse=True)[1].reshape(-1)
    g = int(codes.max()) + 1 if codes.size else 0
    sizes = np.bincount(codes, minlength=g).astype(np.float64)
    n = float(codes.size)
    if g < 2 or n <= g:
        return np.full(values.shape[0], np.nan)
    sums = np.zeros((values.shape[0], g))
    np.add.at(sums.T, codes, values.T)
    means = sums / sizes
    grand = values.mean(axis=1, keepdims=True)
    msb = (sizes * (means - grand) ** 2).sum(axis=1) / (g - 1)
    msw = ((values - means[:, codes]) ** 2).sum(axis=1) / (n - g)
    n0 = (n - (sizes**2).sum() / n) / (g - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (msb - msw) / (msb + (n0 - 1) * msw)


def pairwise_annotator_jaccard(overlap: OverlapCounts) -> np.ndarray:
    """The Jaccard of every unordered pair of annotators on every image where both are present.

    Both-empty pairs count as 1; pairs in order (0, 1), (0, 2), ..., images in order within a pair. The counts
    may hold no run: only the annotators' pairs are read.

    Parameters
    ----------
    overlap : OverlapCounts

    Returns
    -------
    ndarray of float
        ``[nan]`` with fewer than two annotators.
    """
    pair = overlap.pair_counts
    valid = overlap.annotator_valid
    n_ann = pair.shape[0]
    vals = []
    for a in range(n_ann):
        for b in range(a + 1, n_ann):
            both = valid[a] & valid[b]
            vals.append(pair_score(pair[a, b][both], "jaccard", empty="one"))
    return np.concatenate(vals) if vals else np.array([np.nan])


def agreement(overlap: OverlapCounts, *, strategy: str | None = None, **deprecated: str) -> dict:
    """How much annotators agree with each other and runs with the gold: a challenge's vital signs.

    Parameters
    ----------
    overlap : OverlapCounts
    strategy : str, optional
        The gold strategy the runs are scored against (None: ``majority``).
    **deprecated
        ``gold=``, the old name of ``strategy``, with a DeprecationWarning (not both).

    Returns
    -------
    dict
        The statistics below.

    Notes
    -----
    The median, 10th and 90th percentiles of the pairwise
    annotator Jaccard (over images and unordered pairs of annotators present;
    both-empty pairs count as 1), the gold's coverage of the image (median,
    5th and 95th percentile), the best, median and worst micro Jaccard
    of the runs against ``strategy``'s gold, and the median over runs of the intra-class
    correlation of their per-image Jaccard within encounters (:func:`encounter_icc`).
    """
    strategy = renamed_keyword("agreement", deprecated, "gold", "strategy", strategy)
    if strategy is None:
        strategy = "majority"
    pj = pairwise_annotator_jaccard(overlap)
    g = overlap.strategy_counts(strategy)
    gold_size = g[0, :, 0] + g[0, :, 2]  # tp + fn of any run = |gold|
    cover = gold_size / overlap.n_pixels
    run_j = micro(g, "jaccard")
    icc = encounter_icc(pair_score(g, "jaccard", empty="one"), overlap.encounters)
    return {
        "annotator_pairwise_jaccard_median": float(np.median(pj)),
        "annotator_pairwise_jaccard_p10": float(np.percentile(pj, 10)),
        "annotator_pairwise_jaccard_p90": float(np.percentile(pj, 90)),
        "gold_coverage_median": float(np.median(cover)),
        "gold_coverage_p5": float(np.percentile(cover, 5)),
        "gold_coverage_p95": float(np.percentile(cover, 95)),
        "empty_gold_images": int((gold_size == 0).sum()),
        f"run_micro_jaccard_vs_{strategy}_best": float(run_j.max()),
        f"run_micro_jaccard_vs_{strategy}_median": float(np.median(run_j)),
        f"run_micro_jaccard_vs_{strategy}_worst": float(run_j.min()),
        "run_jaccard_icc_median": float(np.nanmedian(icc)) if np.isfinite(icc).any() else float("nan"),
    }


def _variant_scores(overlap: OverlapCounts, metric: str, variant: str, empty: str | EmptyPolicy) -> tuple:
    """Each annotator's score against the variant's gold, which annotators count, and each run's score (per image).

    ``staple``: against STAPLE; ``leave_one_out``: each annotator against the others' majority, and each run
    against the same golds, averaged over the valid ones.
    """
    if variant == "staple":
        if "staple" not in overlap.strategies:
            raise ValueError("gold_spread needs the 'staple' strategy")
        s = overlap.strategies.index("staple")
        g = pair_score(overlap.annotator_vs_gold[:, s], metric, empty=empty)  # (n_ann, n_img)
        return g, overlap.annotator_valid, pair_score(overlap.counts[s], metric, empty=empty)  # run: (R, n_img)
    if variant == "leave_one_out":
        g = pair_score(overlap.loo_annotator, metric, empty=empty)  # (n_ann, n_img)
        valid = overlap.loo_valid
        loo = pair_score(overlap.loo_counts, metric, empty=empty)  # (n_ann, R, n_img)
        w = valid[:, None, :]
        return g, valid, np.where(w, loo, 0.0).sum(axis=0) / np.maximum(w.sum(axis=0), 1)
    raise ValueError(f"variant must be 'staple' or 'leave_one_out', got {variant!r}")


def _per_run_interval(draws: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of each run (row) over its finite resampled values (nan where none is finite)."""
    draws = np.where(np.isfinite(draws), draws, np.nan)
    ok = ~np.isnan(draws).all(axis=1)
    low, high = np.full(draws.shape[0], np.nan), np.full(draws.shape[0], np.nan)
    if ok.any():
        low[ok], high[ok] = np.nanquantile(draws[ok], [lo, hi], axis=1)
    return low, high


def gold_spread(overlap: OverlapCounts, *, metric: str = "jaccard", variant: str = "staple", ddof: int = 1,
                empty: str | EmptyPolicy = "one", n_resamples: int = 1000, confidence: float = 0.95,
                rng: SeedLike = None) -> pd.DataFrame:
    """How many standard deviations each run lies from the annotators' agreement with the consensus (Table 4).

    Parameters
    ----------
    overlap : OverlapCounts
        Must include the ``staple`` strategy (for ``variant='staple'``).
    metric : {'jaccard', 'dice'}
    variant : {'staple', 'leave_one_out'}
        ``staple``: per image ``i``, ``g_ij = score(annotator j, STAPLE_i)``,
        ``mu_i`` and ``sigma_i`` their mean and standard deviation over the
        annotators present, and ``z_i = (mu_i - score(run, STAPLE_i)) / sigma_i``.
        ``leave_one_out``: annotator ``j`` is scored against the STAPLE
        consensus of the *other* annotators (``C_ij``), so it cannot agree with
        a consensus that contains itself, and the run's score is its mean score
        against the same consensuses ``C_ij``.
    ddof : int
        Delta degrees of freedom of ``sigma_i`` (1: the sample standard
        deviation over the 3-4 annotators; 0: population).
    empty : str or EmptyPolicy
        Both-empty policy for the per-image scores.
    n_resamples, confidence, rng
        Percentile intervals of ``z_mean`` and ``z_pooled`` over encounters
        drawn with replacement (SPEC 7 ``rng``).

    Returns
    -------
    pandas.DataFrame
        One row per run (``run``):

        - ``z_mean`` (paper-compatible: the mean of ``z_i`` over the images with
          ``sigma_i > 0``; positive = the run agrees less with the consensus
          than the annotators do), ``z_mean_low``, ``z_mean_high``;
        - ``z_median``: the median of ``z_i``;
        - ``z_pooled``: the mean difference ``mu_i - score_i`` over the images
          with at least two annotators divided by the pooled annotator standard
          deviation ``sqrt(mean_i sigma_i^2)``: one scale for all images, so
          images where the annotators happen to agree exactly (``sigma_i`` near
          0) cannot dominate; ``z_pooled_low``, ``z_pooled_high``;
        - ``small_sd_share``: the share of the sum of ``z_i`` contributed by the
          10% of images with the smallest ``sigma_i`` (a diagnostic of ``z_mean``);
        - ``images_used``, ``skipped_zero_sd`` (``sigma_i = 0``: left out of
          ``z_mean``), ``skipped_few_annotators`` (fewer than 2).

    Notes
    -----
    The overview paper (Table 4) reports the average number of standard
    deviations; it does not say whether ``sigma`` is the sample or population
    standard deviation, nor how images with ``sigma = 0`` are handled. We use
    the sample standard deviation and skip such images, reporting how many.
    With 3 annotators ``sigma_i`` has 2 degrees of freedom, so ``1 / sigma_i``
    is heavy-tailed (``E[sigma / s] = 1.77`` for normal scores): the mean of
    per-image ratios is dominated by a few images. ``z_pooled`` is the version
    that does not depend on them.
    """
    g, valid, run = _variant_scores(overlap, metric, variant, empty)
    k = valid.sum(axis=0)
    gv = np.where(valid, g, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mu = np.nanmean(gv, axis=0)
        sd = np.nanstd(gv, axis=0, ddof=ddof)
    few = k < ddof + 1 if ddof else k < 1
    few |= k < 2
    zero = ~few & ~(sd > 0)
    use = ~few & ~zero
    z = (mu[use][None, :] - run[:, use]) / sd[use][None, :]
    diff = mu[None, ~few] - run[:, ~few]  # (R, images with >= 2 annotators)
    var = sd[~few] ** 2
    # encounter sums for the interval: z over the images used, differences and variances over the others
    enc = np.unique(np.asarray(overlap.encounters), return_inverse=True)[1].reshape(-1)
    n_enc = int(enc.max()) + 1 if enc.size else 0

    def by_encounter(values, mask):  # (..., images in mask) -> (..., encounters)
        out = np.zeros(values.shape[:-1] + (n_enc,))
        np.add.at(out.T, enc[mask], np.moveaxis(values, -1, 0))
        return out

    zs, zc = by_encounter(z, use), by_encounter(np.ones(int(use.sum())), use)
    ds, vs, dc = by_encounter(diff, ~few), by_encounter(var, ~few), by_encounter(np.ones(int((~few).sum())), ~few)
    w = draw_counts(np.random.default_rng(rng), n_enc, n_resamples) if n_enc else np.zeros((0, 0))
    lo, hi = tails(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        z_mean_b = (zs @ w.T) / (w @ zc)  # (R, B)
        z_pool_b = ((ds @ w.T) / (w @ dc)) / np.sqrt((w @ vs) / (w @ dc))
        z_pooled = diff.mean(axis=1) / np.sqrt(var.mean()) if var.size and var.mean() > 0 else np.full(len(run), np.nan)
    z_mean_low, z_mean_high = _per_run_interval(z_mean_b, lo, hi) if use.any() else (np.nan, np.nan)
    z_pooled_low, z_pooled_high = _per_run_interval(z_pool_b, lo, hi) if var.size else (np.nan, np.nan)
    order = np.argsort(sd[use], kind="stable")[: max(1, int(round(0.1 * use.sum())))] if use.any() else \
        np.zeros(0, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        small_share = z[:, order].sum(axis=1) / z.sum(axis=1) if use.any() else np.nan
    return pd.DataFrame({
        "run": list(overlap.runs),
        "z_mean": z.mean(axis=1) if use.any() else np.nan,
        "z_mean_low": z_mean_low,
        "z_mean_high": z_mean_high,
        "z_median": np.median(z, axis=1) if use.any() else np.nan,
        "z_pooled": z_pooled,
        "z_pooled_low": z_pooled_low,
        "z_pooled_high": z_pooled_high,
        "small_sd_share": small_share,
        "images_used": int(use.sum()),
        "skipped_zero_sd": int(zero.sum()),
        "skipped_few_annotators": int(few.sum()),
    })
