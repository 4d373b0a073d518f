"""Jaccard and Dice from overlap counts: micro, macro, and mean/max over annotators.

All functions take count arrays whose last axis is ``(tp, fp, fn)`` and whose
second-to-last axis is the image; any leading axes (strategy, run, resample...)
are carried through, so the resampling engine calls the same functions on
gathered subsets.

Definitions (per pair of masks, then averaged):

- Jaccard ``J = TP / (TP + FP + FN)``, Dice ``D = 2 TP / (2 TP + FP + FN)``.
- micro: sum TP, FP, FN over images first, then one ratio. Micro Dice is
  ``2J / (1 + J)`` of micro Jaccard, so both rank runs identically.
- macro: one ratio per image, then the mean over images.
- ``meanofmax`` / ``meanofmean`` (official MEDIQA-MAGIC macro scores): per
  image, the max / mean over the annotators present of the run's score
  against each annotator, then the mean over images.

Both-empty pairs (``TP + FP + FN = 0``) follow the ``empty`` policy:

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
bit for bit: same integer sums, same float divisions, and reductions in the
same order (numpy's ``mean`` over a contiguous axis).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = [
    "METRICS",
    "EMPTY_POLICIES",
    "pair_score",
    "micro",
    "macro",
    "per_image",
    "over_annotators",
    "macro_over_annotators",
    "scores_frame",
    "leaderboard",
    "official_results",
    "agreement",
    "gold_spread",
]

METRICS = ("jaccard", "dice")
EMPTY_POLICIES = ("one", "zero", "ignore", "official")
_EMPTY_VALUE = {"one": 1.0, "zero": 0.0, "ignore": np.nan, "official": np.nan}


def _check(metric, empty):
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty must be one of {EMPTY_POLICIES}, got {empty!r}")


def pair_score(counts, metric: str = "jaccard", *, empty: str = "one") -> np.ndarray:
    """Jaccard or Dice of each (tp, fp, fn) triple along the last axis.

    Examples
    --------
    >>> pair_score([[2, 1, 1], [0, 0, 0]], "dice")
    array([0.66666667, 1.        ])
    >>> pair_score([[2, 1, 1], [0, 0, 0]], "jaccard", empty="official")
    array([0.5, nan])
    """
    _check(metric, empty)
    c = np.asarray(counts, dtype=np.int64)
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    if metric == "jaccard":
        num, den = tp, tp + fn + fp
    else:
        num, den = 2 * tp, 2 * tp + fn + fp
    out = np.full(den.shape, _EMPTY_VALUE[empty], dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def micro(counts, metric: str = "jaccard", *, empty: str = "one") -> np.ndarray:
    """Pool TP/FP/FN over the image axis (-2), then one ratio."""
    return pair_score(np.asarray(counts, dtype=np.int64).sum(axis=-2), metric, empty=empty)


def per_image(counts, metric: str = "jaccard", *, empty: str = "one") -> np.ndarray:
    """One score per image: shape ``counts.shape[:-1]``."""
    return pair_score(counts, metric, empty=empty)


def _mean_last(x, empty):
    x = np.ascontiguousarray(x)
    if empty == "ignore":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(x, axis=-1)
    return np.mean(x, axis=-1)


def macro(counts, metric: str = "jaccard", *, empty: str = "one") -> np.ndarray:
    """Mean over images (axis -2 of ``counts``) of the per-image score."""
    return _mean_last(per_image(counts, metric, empty=empty), empty)


def over_annotators(annotator_counts, valid, metric: str = "jaccard", *, how: str = "max",
                    empty: str = "one") -> np.ndarray:
    """Per image, the max or mean over the annotators present of the per-pair score.

    Parameters
    ----------
    annotator_counts : int array (n_annotators, ..., n_images, 3)
    valid : bool array (n_annotators, n_images)
    how : {'max', 'mean'}

    Returns
    -------
    ndarray (..., n_images)
    """
    if how not in ("max", "mean"):
        raise ValueError(f"how must be 'max' or 'mean', got {how!r}")
    s = pair_score(annotator_counts, metric, empty=empty)  # (n_ann, ..., n_img)
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
        sub = np.moveaxis(s[rows][..., cols], 0, -1)  # (..., m, k)
        sub = np.ascontiguousarray(sub)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if empty == "ignore":
                red = np.nanmax(sub, axis=-1) if how == "max" else np.nanmean(sub, axis=-1)
            else:
                red = np.max(sub, axis=-1) if how == "max" else np.mean(sub, axis=-1)
        out[..., cols] = red
    return out


def macro_over_annotators(annotator_counts, valid, metric: str = "jaccard", *, how: str = "max",
                          empty: str = "one") -> np.ndarray:
    """Official ``meanofmax`` (``how='max'``) or ``meanofmean``: mean over images of :func:`over_annotators`."""
    return _mean_last(over_annotators(annotator_counts, valid, metric, how=how, empty=empty), empty)


# -- tables -----------------------------------------------------------------

def scores_frame(overlap, *, empty: str = "one"):
    """Every run's score under every strategy, metric and averaging, as a tidy table.

    Columns: ``strategy, metric, average, system, score``. Strategies are the
    gold strategies of ``overlap`` (micro and macro) plus ``mean`` and ``max``
    over annotators (macro only).
    """
    import pandas as pd

    rows = []
    for metric in METRICS:
        for s, name in enumerate(overlap.strategies):
            c = overlap.counts[s]
            for average, vals in (("micro", micro(c, metric, empty=empty)),
                                  ("macro", macro(c, metric, empty=empty))):
                rows.append((name, metric, average, vals))
        for how in ("mean", "max"):
            vals = macro_over_annotators(overlap.annotator_counts, overlap.annotator_valid, metric,
                                         how=how, empty=empty)
            rows.append((how, metric, "macro", vals))
    frames = [
        pd.DataFrame({"strategy": st, "metric": me, "average": av, "system": list(overlap.systems), "score": v})
        for st, me, av, v in rows
    ]
    return pd.concat(frames, ignore_index=True)


def leaderboard(overlap, *, empty: str = "one", official: str = "majority"):
    """Wide leaderboard: one row per run, a column per ``strategy_metric_average``.

    Sorted by the official ranking column (``{official}_jaccard_micro``, best first).
    """
    df = scores_frame(overlap, empty=empty)
    df["column"] = df["strategy"] + "_" + df["metric"] + "_" + df["average"]
    wide = df.pivot(index="system", columns="column", values="score")
    order = list(dict.fromkeys(df["column"]))
    wide = wide[order]
    key = f"{official}_jaccard_micro"
    if key in wide:
        wide = wide.sort_values(key, ascending=False, kind="stable")
    wide.columns.name = None
    return wide


def official_results(overlap, system: str, *, empty: str = "official") -> dict:
    """The official scorer's JSON for one run: same keys, same order, same numbers.

    ``jaccard``/``dice`` are micro scores against the majority vote;
    ``*_meanofmax``/``*_meanofmean`` are macro over annotators.
    """
    if "majority" not in overlap.strategies:
        raise ValueError("official results need the 'majority' strategy")
    r = overlap.systems.index(system)
    ac = overlap.annotator_counts[:, r]
    valid = overlap.annotator_valid
    out = {}
    for metric in METRICS:
        for how in ("max", "mean"):
            out[f"{metric}_meanof{how}"] = float(macro_over_annotators(ac, valid, metric, how=how, empty=empty))
    maj = overlap.strategy_counts("majority")[r]
    out["jaccard"] = float(micro(maj, "jaccard", empty=empty))
    out["dice"] = float(micro(maj, "dice", empty=empty))
    out["number_segmentation_instances"] = int(overlap.n_images)
    return out


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
