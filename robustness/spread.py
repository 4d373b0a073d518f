"""The annotators' own spread: agreement levels of a challenge and Table 4 (runs' distance from it, in SDs).

- :func:`agreement`: pairwise annotator Jaccard, gold coverage and the runs'
  micro Jaccard: a challenge's vital signs.
- :func:`gold_spread`: how many standard deviations each run lies from the
  annotators' agreement with the STAPLE consensus (the overview's Table 4),
  also leave-one-annotator-out.
"""

from __future__ import annotations

import warnings

import numpy as np

from .metrics import micro, pair_score

__all__ = ["agreement", "gold_spread"]


def agreement(overlap, *, gold: str = "majority") -> dict:
    """How much annotators agree with each other and runs with the gold: a challenge's vital signs.

    Returns a dict with the median, 10th and 90th percentiles of the pairwise
    annotator Jaccard (over images and unordered pairs of annotators present;
    both-empty pairs count as 1), the gold's coverage of the image (median,
    5th and 95th percentile), and the best, median and worst micro Jaccard
    of the runs against ``gold``.
    """
    pair = overlap.pair_counts
    valid = overlap.annotator_valid
    n_ann = pair.shape[0]
    vals = []
    for a in range(n_ann):
        for b in range(a + 1, n_ann):
            both = valid[a] & valid[b]
            vals.append(pair_score(pair[a, b][both], "jaccard", empty="one"))
    pj = np.concatenate(vals) if vals else np.array([np.nan])
    g = overlap.strategy_counts(gold)
    gold_size = g[0, :, 0] + g[0, :, 2]  # tp + fn of any run = |gold|
    cover = gold_size / overlap.n_pixels
    run_j = micro(g, "jaccard")
    return {
        "annotator_pairwise_jaccard_median": float(np.median(pj)),
        "annotator_pairwise_jaccard_p10": float(np.percentile(pj, 10)),
        "annotator_pairwise_jaccard_p90": float(np.percentile(pj, 90)),
        "gold_coverage_median": float(np.median(cover)),
        "gold_coverage_p5": float(np.percentile(cover, 5)),
        "gold_coverage_p95": float(np.percentile(cover, 95)),
        "empty_gold_images": int((gold_size == 0).sum()),
        f"run_micro_jaccard_vs_{gold}_best": float(run_j.max()),
        f"run_micro_jaccard_vs_{gold}_median": float(np.median(run_j)),
        f"run_micro_jaccard_vs_{gold}_worst": float(run_j.min()),
    }


def gold_spread(overlap, *, metric: str = "jaccard", variant: str = "staple", ddof: int = 1,
                empty: str = "one"):
    """How many standard deviations each run lies from the annotators' agreement with the consensus (Table 4).

    Parameters
    ----------
    overlap : OverlapCounts
        Must include the ``staple`` strategy.
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
    empty : str
        Both-empty policy for the per-image scores.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``system, z_mean`` (mean of ``z_i`` over the images
        used; positive = the run agrees less with the consensus than the
        annotators do), ``z_median``, ``images_used``, ``skipped_zero_sd``
        (images where every annotator agrees equally with the consensus, so
        ``sigma_i = 0``), ``skipped_few_annotators`` (fewer than ``ddof + 1``).

    Notes
    -----
    The overview paper (Table 4) reports the average number of standard
    deviations; it does not say whether ``sigma`` is the sample or population
    standard deviation, nor how images with ``sigma = 0`` are handled. We use
    the sample standard deviation and skip such images, reporting how many.
    """
    import pandas as pd

    if variant == "staple":
        if "staple" not in overlap.strategies:
            raise ValueError("gold_spread needs the 'staple' strategy")
        s = overlap.strategies.index("staple")
        g = pair_score(overlap.annotator_vs_gold[:, s], metric, empty=empty)  # (n_ann, n_img)
        valid = overlap.annotator_valid
        run = pair_score(overlap.counts[s], metric, empty=empty)  # (R, n_img)
    elif variant == "leave_one_out":
        g = pair_score(overlap.loo_annotator, metric, empty=empty)  # (n_ann, n_img)
        valid = overlap.loo_valid
        loo = pair_score(overlap.loo_counts, metric, empty=empty)  # (n_ann, R, n_img)
        w = valid[:, None, :]
        run = np.where(w, loo, 0.0).sum(axis=0) / np.maximum(w.sum(axis=0), 1)
    else:
        raise ValueError(f"variant must be 'staple' or 'leave_one_out', got {variant!r}")
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
    return pd.DataFrame({
        "system": list(overlap.systems),
        "z_mean": z.mean(axis=1) if use.any() else np.nan,
        "z_median": np.median(z, axis=1) if use.any() else np.nan,
        "images_used": int(use.sum()),
        "skipped_zero_sd": int(zero.sum()),
        "skipped_few_annotators": int(few.sum()),
    })
