"""Fit the synthetic generator to a real challenge: the statistics it must reproduce, and a search for them.

:func:`challenge_stats` measures what matters for a leaderboard study:
images per encounter, annotators per image, how much annotators agree with
each other (median pairwise Jaccard), how good the runs are against the
majority vote (best, median, worst micro Jaccard), how large the lesions are
(the majority gold's coverage of the image) and how strongly per-image scores
are correlated within encounters (:func:`robustness.statistics.spread.encounter_icc`).
:func:`fit` copies the structure (sizes, annotators, runs), sets the lesion-size
range from the coverage quantiles, and finds by bisection the annotators'
``agreement`` (pairwise Jaccard), the runs' ``skill_range`` (best and worst
run, for each of a few pairs of bias spread ``run_bias_sd`` and gross-failure
rate ``run_failure``, keeping the one that also fits the median run best) and
the ``encounter_correlation`` (ICC) that reproduce the target, on simulated
challenges of the target's structure with common random numbers, with images of
the size the design study simulates (``megapixels``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from robustness.overlap.counts import OverlapCounts
    from robustness.simulation.synthetic import SyntheticConfig

__all__ = ["challenge_stats", "fit", "fit_failures", "STAT_LABELS", "FIT_TOLERANCES", "FIT_SEEDS"]

STAT_LABELS = {
    "images": "images",
    "encounters": "encounters",
    "images_per_encounter": "images per encounter",
    "annotators_min": "annotators per image (min)",
    "annotators_max": "annotators per image (max)",
    "runs": "runs",
    "annotator_pairwise_jaccard_median": "annotator pairwise Jaccard (median)",
    "run_jaccard_best": "run micro Jaccard vs majority (best)",
    "run_jaccard_median": "run micro Jaccard vs majority (median)",
    "run_jaccard_worst": "run micro Jaccard vs majority (worst)",
    "coverage_p05": "majority coverage (5%)",
    "coverage_median": "majority coverage (median)",
    "coverage_p95": "majority coverage (95%)",
    "icc": "within-encounter ICC of per-image Jaccard",
}


#: How far a fitted statistic may lie from its target: ``("abs", d)`` within d, ``("ratio", f)`` within a factor f,
#: or three times the twin's own sampling spread at the challenge's size (over :data:`FIT_SEEDS` simulations) where
#: that is larger (a small challenge's statistics are noisy). Jaccards within 0.05 (a tenth of the default runs'
#: spread), lesion sizes within a factor 2 (the log-uniform range the fit sets spans two orders of magnitude), the
#: ICC within 0.15. The structure (images, annotators, runs) is copied, not fitted. A swapped foreground fails
#: here: BU-BIL dataset 1 read without its foreground option has runs at Jaccard 0.99 against the majority.
FIT_TOLERANCES = {
    "annotator_pairwise_jaccard_median": ("abs", 0.05),
    "run_jaccard_best": ("abs", 0.05),
    "run_jaccard_median": ("abs", 0.05),
    "run_jaccard_worst": ("abs", 0.05),
    "coverage_p05": ("ratio", 2.0),
    "coverage_median": ("ratio", 2.0),
    "coverage_p95": ("ratio", 2.0),
    "icc": ("abs", 0.15),
}
#: Simulations of the fitted twin at the challenge's size (seeds ``seed .. seed + 3``): the first is the fit's
#: table, their spread widens the tolerances.
FIT_SEEDS = 4

#: (run_bias_sd, run_failure) pairs the fit tries: biased runs of the generator's default failure rates, and
#: runs that fail grossly less often or never (expert raters: BU-BIL's worst rater is 0.74, no run misses a cell).
_RUN_SHAPES = ((0.0, 1.0), (0.03, 1.0), (0.06, 1.0), (0.1, 1.0), (0.15, 1.0), (0.0, 0.3), (0.03, 0.3), (0.0, 0.0),
               (0.03, 0.0))


def challenge_stats(counts: OverlapCounts) -> dict:
    """The statistics of a challenge's counts that the generator is fitted to (see the module notes).

    Parameters
    ----------
    counts : OverlapCounts
        With the ``majority`` strategy.

    Returns
    -------
    dict
        Statistic name (:data:`STAT_LABELS`) -> value.
    """
    from robustness.statistics.spread import agreement

    a = agreement(counts)
    k = counts.annotator_valid.sum(axis=0)
    n_enc = len(set(counts.encounters))
    return {
        "images": counts.n_images, "encounters": n_enc, "images_per_encounter": counts.n_images / n_enc,
        "annotators_min": int(k.min()), "annotators_max": int(k.max()),
        "annotators_all_share": float((k == k.max()).mean()), "runs": len(counts.runs),
        "annotator_pairwise_jaccard_median": a["annotator_pairwise_jaccard_median"],
        "run_jaccard_best": a["run_micro_jaccard_vs_majority_best"],
        "run_jaccard_median": a["run_micro_jaccard_vs_majority_median"],
        "run_jaccard_worst": a["run_micro_jaccard_vs_majority_worst"],
        "coverage_p05": a["gold_coverage_p5"], "coverage_median": a["gold_coverage_median"],
        "coverage_p95": a["gold_coverage_p95"],
        "icc": a["run_jaccard_icc_median"] if n_enc < counts.n_images else float("nan"),
    }


def _simulate(config, seed):
    from robustness.overlap.pixel_pass import compute_overlap
    from robustness.simulation.synthetic import make_challenge

    return challenge_stats(compute_overlap(make_challenge(config, rng=seed), strategies=["majority"], rng=0))


def _bisect(config, set_value, stat, target, lo, hi, *, seed, increasing=True, steps=6):
    """The value in [lo, hi] whose simulated ``stat`` is closest to ``target`` (bisection, common random numbers)."""
    best = None
    for _ in range(steps):
        mid = (lo + hi) / 2
        value = _simulate(set_value(config, mid), seed)[stat]
        if best is None or abs(value - target) < best[1]:
            best = (mid, abs(value - target))
        if (value < target) == increasing:
            lo = mid
        else:
            hi = mid
    return best[0]


def fit(target: dict, *, base: SyntheticConfig | None = None, seed: int = 0, megapixels: float = 0.0006,
        rounds: int = 1, max_encounters: int = 40, depth: int | None = None,
        spacing: tuple | None = None) -> tuple[SyntheticConfig, pd.DataFrame]:
    """Generator parameters reproducing ``target`` (a :func:`challenge_stats` dict).

    The searches simulate challenges of the target's structure but at most
    ``max_encounters`` encounters and images of about ``megapixels`` (speed);
    the final comparison uses the target's full size.

    Parameters
    ----------
    target : dict
        :func:`challenge_stats` of the challenge to fit.
    base : SyntheticConfig, optional
        The parameters not fitted (default: the generator's defaults).
    seed : int
        Common random numbers of every simulated challenge.
    megapixels : float
        Size of the simulated images.
    rounds : int
        Rounds of the coordinate search.
    max_encounters : int
        Encounters of the challenges simulated during the search.
    depth : int, optional
        Simulate volumes of this many slices (a 3D challenge's twin; ``megapixels`` is then per slice), with
        voxels of ``spacing`` (z, y, x). A lesion fills a smaller share of a volume than of its largest slice, so
        the lesion sizes are then rescaled until the simulated coverage's median meets the target's.
    spacing : tuple of float, optional
        The volumes' voxel size (z, y, x) in mm (default 1, 1, 1); only with ``depth``.

    Returns
    -------
    (config, comparison) : SyntheticConfig, pandas.DataFrame
        The fitted parameters and a table ``statistic, target, fitted`` (the fitted challenge's statistics at
        ``seed``).
    """
    import pandas as pd

    from robustness.simulation.synthetic import SyntheticConfig

    base = base or SyntheticConfig()
    n_enc, n_img = int(target["encounters"]), int(target["images"])
    per_enc = max(1, int(np.ceil(n_img / n_enc)))
    q05, q95 = max(target["coverage_p05"], 1e-4), min(max(target["coverage_p95"], 2e-4), 0.95)
    span = (np.log(q95) - np.log(q05)) / 0.9  # log-uniform: the 5% and 95% quantiles are 0.9 of its span apart
    coverage = (float(np.clip(np.exp(np.log(q05) - 0.05 * span), 1e-4, 0.5)),
                float(np.clip(np.exp(np.log(q95) + 0.05 * span), 2e-4, 0.95)))
    runs = int(target["runs"])
    config = replace(base, n_encounters=n_enc, n_images=n_img, max_images_per_encounter=max(per_enc, 6 if
                     n_img > n_enc else 1), n_annotators=int(target["annotators_max"]),
                     min_annotators=int(target["annotators_min"]),
                     p_all_annotators=float(target.get("annotators_all_share", 1.0)), n_runs=runs,
                     n_teams=min(base.n_teams, runs), coverage_range=coverage, size="small", megapixels=megapixels)
    if n_img == n_enc:
        config = replace(config, encounter_correlation=0.0)
    sim_enc = min(n_enc, max_encounters)
    small = dict(n_encounters=sim_enc, n_images=max(sim_enc, int(round(n_img * sim_enc / n_enc))))
    if depth is not None:
        config = replace(config, depth=int(depth), spacing=tuple(spacing or (1.0, 1.0, 1.0)))
        for _ in range(2):  # the volume's share of the lesion, against the largest slice's share the range sets
            got = _simulate(replace(config, **small), seed)["coverage_median"]
            scale = target["coverage_median"] / got if got > 0 else 1.0
            config = replace(config, coverage_range=tuple(float(np.clip(v * scale, 1e-4, 0.95))
                                                          for v in config.coverage_range))
    search = replace(config, **small)
    for _ in range(rounds):
        search = replace(search, agreement=_bisect(
            search, lambda c, v: replace(c, agreement=v), "annotator_pairwise_jaccard_median",
            target["annotator_pairwise_jaccard_median"], 0.0, 1.0, seed=seed))
        best_fit = None
        for bias, failure in _RUN_SHAPES:  # the runs' bias spread and gross-failure rate, by the error they leave
            c = replace(search, run_bias_sd=bias, run_failure=failure)
            hi = _bisect(c, lambda c, v: replace(c, skill_range=(min(c.skill_range[0], v), v)), "run_jaccard_best",
                         target["run_jaccard_best"], 0.05, 1.0, seed=seed)
            c = replace(c, skill_range=(min(c.skill_range[0], hi), hi))
            lo = _bisect(c, lambda c, v: replace(c, skill_range=(v, c.skill_range[1])), "run_jaccard_worst",
                         target["run_jaccard_worst"], 0.0, c.skill_range[1], seed=seed)
            c = replace(c, skill_range=(lo, c.skill_range[1]))
            got = _simulate(c, seed)
            err = sum((got[k] - target[k]) ** 2
                      for k in ("run_jaccard_best", "run_jaccard_median", "run_jaccard_worst"))
            if best_fit is None or err < best_fit[0]:
                best_fit = (err, c)
        search = best_fit[1]
        if np.isfinite(target.get("icc", np.nan)) and n_img > n_enc:
            search = replace(search, encounter_correlation=_bisect(
                search, lambda c, v: replace(c, encounter_correlation=v), "icc", target["icc"], 0.0, 1.0, seed=seed))
    config = replace(search, n_encounters=n_enc, n_images=n_img)
    # the twin at the challenge's size, four times: the first is the fit, the spread is its own sampling noise
    twins = [_simulate(config, seed + k) for k in range(FIT_SEEDS)]
    fitted = twins[0]
    rows = []
    for k in STAT_LABELS:
        kind, tol = FIT_TOLERANCES.get(k, ("abs", np.nan))
        t, f = float(target[k]), float(fitted[k])
        values = np.array([float(x[k]) for x in twins])
        if not (np.isfinite(t) and np.isfinite(tol)):
            within, text = True, ""  # not fitted (copied structure) or not measured (one image per encounter: no ICC)
        elif kind == "abs":
            tol = max(tol, 3 * float(np.std(values, ddof=1)))
            within, text = abs(f - t) <= tol, f"within {tol:.3g}"
        else:
            logs = np.log(np.maximum(values, 1e-12))
            tol = float(np.exp(max(np.log(tol), 3 * np.std(logs, ddof=1))))
            within, text = t > 0 and f > 0 and abs(np.log(f / t)) <= np.log(tol), f"within a factor {tol:.3g}"
        rows.append({"statistic": STAT_LABELS[k], "target": t, "fitted": f, "tolerance": text,
                     "within": bool(within)})
    if depth is not None:
        rows.append({"statistic": "slices per volume", "target": target.get("slices", np.nan), "fitted": depth,
                     "tolerance": "", "within": True})
    return config, pd.DataFrame(rows)


def fit_failures(table: pd.DataFrame) -> list[str]:
    """The statistics a fit (:func:`fit`'s table) does not reproduce within :data:`FIT_TOLERANCES`, in prose.

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    list of str
        One line per statistic outside its tolerance (empty when the fit holds).
    """
    bad = table[~table.within.astype(bool)]
    return [f"{r.statistic} is {r.target:.3g} in the challenge but {r.fitted:.3g} in its fitted twin ({r.tolerance})"
            for r in bad.itertuples()]
