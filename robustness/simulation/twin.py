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
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from robustness.overlap.pixel_pass import OverlapOptions, compute_overlap
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.population import delta_covariance
from robustness.statistics.spread import agreement
from robustness.statistics.uncertainty import expected_l1
from robustness.synthetic.challenge import SyntheticConfig, make_challenge

if TYPE_CHECKING:
    from collections.abc import Callable

    from robustness.io.challenge import Challenge
    from robustness.overlap.counts import OverlapCounts

__all__ = ["challenge_stats", "fit_counts", "check_statistic", "fit", "fit_failures", "STAT_LABELS", "FIT_TOLERANCES",
           "FIT_SEEDS", "bisect_closest"]

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
    "run_separability": "runs' separability (median |z| of paired differences, micro Jaccard)",
    "distance_at_n": "expected L1 to unlimited data at the challenge's size (majority, micro Jaccard)",
    "object_pixels_median": "gold object size in pixels (median over images)",
}

#: Statistics reported beside the fit but not checked (with the reason, written in the tolerance column).
NOT_CHECKED = {
    "object_pixels_median": "not checked: the twin's images are smaller than the challenge's for speed "
                            "(--image-mp sets them); the separability and distance rows check what it changes",
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
    "run_separability": ("ratio", 1.5),
    "distance_at_n": ("fixed ratio", 1.5),
}
#: Simulations of the fitted twin at the challenge's size (seeds ``seed .. seed + 3``): the first is the fit's
#: table, their spread widens the tolerances. The distance to unlimited data at the challenge's size is the one
#: statistic whose tolerance is not widened (``fixed ratio``): the twin's median over these simulations must lie
#: within a factor 1.5 of the challenge's own estimate, or the design study's sizes answer another challenge.
FIT_SEEDS = 4
#: Below this many places (summed over the runs) two distances to unlimited data give the same answer whatever their
#: ratio: one swap of two neighbouring runs is an L1 of 2, so half a place is a quarter of the smallest change.
#: Without it a challenge whose ranking has all but converged (0.7 against 1.1 places on a 3D twin of 4 runs)
#: would refuse for a ratio between two numbers that both say "converged".
DISTANCE_FLOOR = 0.5

#: (run_bias_sd, run_failure) pairs the fit tries: biased runs of the generator's default failure rates, and
#: runs that fail grossly less often or never (expert raters: BU-BIL's worst rater is 0.74, no run misses a cell).
_RUN_SHAPES = ((0.0, 1.0), (0.03, 1.0), (0.06, 1.0), (0.1, 1.0), (0.15, 1.0), (0.0, 0.3), (0.03, 0.3), (0.0, 0.0),
               (0.03, 0.0))


def fit_counts(challenge: Challenge, *, leave_one_out: bool = True) -> OverlapCounts:
    """The counts a challenge's statistics are measured on, for itself and its twin alike: the majority gold.

    Parameters
    ----------
    challenge : Challenge
    leave_one_out : bool
        Also fit each annotator's leave-one-out STAPLE. :func:`challenge_stats` reads none of it; the input's
        counts keep it for the main job's warnings (a leave-one-out fit that does not converge), the twin's own
        simulations leave it out (half of a fit's time on BU-BIL, the statistics unchanged).

    Returns
    -------
    OverlapCounts
        Read by :func:`challenge_stats`.
    """
    return compute_overlap(challenge, strategies=["majority"], rng=0,
                           options=OverlapOptions(leave_one_out=leave_one_out))


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
    a = agreement(counts)
    k = counts.annotator_valid.sum(axis=0)
    n_enc = len(set(counts.encounters))
    g = counts.strategy_counts("majority")
    gold_pixels = (g[0, :, 0] + g[0, :, 2]).astype(np.float64)
    separability, distance = _separability(counts)
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
        "run_separability": separability, "distance_at_n": distance,
        "object_pixels_median": float(np.median(gold_pixels[gold_pixels > 0])) if (gold_pixels > 0).any()
        else float("nan"),
    }


def _separability(counts: OverlapCounts) -> tuple[float, float]:
    """How far apart the runs are against their noise, and what that means for the ranking.

    The median over pairs of runs of ``|difference| / SE(difference)`` of their micro Jaccard against the
    majority vote (delta-method covariance over encounters), and the main job's estimate of the expected L1 to
    the ranking on unlimited data at the challenge's number of encounters (its seed fixed: a twin and the
    challenge are measured alike). nan with fewer than two runs.
    """
    if len(counts.runs) < 2:
        return float("nan"), float("nan")
    schemes = schemes_from_counts(counts, unit="encounter", strategies=["majority"], metrics=["jaccard"],
                                  averages=("micro",), annotators=[])
    num, den = schemes.ratio_parts()
    theta, cov = delta_covariance(num, den)
    theta, cov = theta[0], cov[0]
    i, j = np.triu_indices(theta.size, 1)
    var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(theta[i] - theta[j]) / np.sqrt(var)
    z = z[np.isfinite(z)]
    distance = float(expected_l1(schemes, [schemes.n_units], rng=0)[0, 0])
    return float(np.median(z)) if z.size else float("nan"), distance


def _simulate(config, seed):
    return challenge_stats(fit_counts(make_challenge(config, rng=seed), leave_one_out=False))


def bisect_closest(measure: Callable[[float], float], target: float, lo: float, hi: float, *,
                   increasing: bool = True, steps: int = 6) -> float:
    """The value in ``[lo, hi]`` whose ``measure`` is closest to ``target``, by bisection.

    Parameters
    ----------
    measure : callable
        A value's statistic (a twin simulated with it, with common random numbers across values).
    target : float
    lo, hi : float
        The interval searched.
    increasing : bool
        Whether the statistic grows with the value.
    steps : int
        Bisection steps (``measure`` is called once each).

    Returns
    -------
    float
        Of the midpoints tried, the one whose statistic was closest to ``target``.
    """
    best: tuple[float, float] | None = None
    for _ in range(steps):
        mid = (lo + hi) / 2
        value = measure(mid)
        if best is None or abs(value - target) < best[1]:
            best = (mid, abs(value - target))
        if (value < target) == increasing:
            lo = mid
        else:
            hi = mid
    assert best is not None  # steps >= 1
    return best[0]


def _fit_runs(search: SyntheticConfig, target: dict, seed: int) -> SyntheticConfig:
    """The runs' skills fitted under each of :data:`_RUN_SHAPES` (bias spread, gross-failure rate).

    Returns the shape whose best, median and worst run Jaccard lie closest to the target's.
    """
    best_fit: tuple[float, SyntheticConfig] | None = None
    for bias, failure in _RUN_SHAPES:
        c = replace(search, run_bias_sd=bias, run_failure=failure)
        hi = bisect_closest(lambda v: _simulate(replace(c, skill_range=(min(c.skill_range[0], v), v)), seed)[
            "run_jaccard_best"], target["run_jaccard_best"], 0.05, 1.0)
        c = replace(c, skill_range=(min(c.skill_range[0], hi), hi))
        lo = bisect_closest(lambda v: _simulate(replace(c, skill_range=(v, c.skill_range[1])), seed)[
            "run_jaccard_worst"], target["run_jaccard_worst"], 0.0, c.skill_range[1])
        c = replace(c, skill_range=(lo, c.skill_range[1]))
        got = _simulate(c, seed)
        err = sum((got[k] - target[k]) ** 2 for k in ("run_jaccard_best", "run_jaccard_median", "run_jaccard_worst"))
        if best_fit is None or err < best_fit[0]:
            best_fit = (err, c)
    assert best_fit is not None  # _RUN_SHAPES is not empty
    return best_fit[1]


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
    small: dict[str, Any] = dict(n_encounters=sim_enc, n_images=max(sim_enc, int(round(n_img * sim_enc / n_enc))))
    if depth is not None:
        config = replace(config, depth=int(depth), spacing=tuple(spacing or (1.0, 1.0, 1.0)))
        for _ in range(2):  # the volume's share of the lesion, against the largest slice's share the range sets
            got = _simulate(replace(config, **small), seed)["coverage_median"]
            scale = target["coverage_median"] / got if got > 0 else 1.0
            low, high = (float(np.clip(v * scale, 1e-4, 0.95)) for v in config.coverage_range)
            config = replace(config, coverage_range=(low, high))
    search = replace(config, **small)
    for _ in range(rounds):
        search = replace(search, agreement=bisect_closest(
            lambda v: _simulate(replace(search, agreement=v), seed)["annotator_pairwise_jaccard_median"],
            target["annotator_pairwise_jaccard_median"], 0.0, 1.0))
        search = _fit_runs(search, target, seed)
        if np.isfinite(target.get("icc", np.nan)) and n_img > n_enc:
            search = replace(search, encounter_correlation=bisect_closest(
                lambda v: _simulate(replace(search, encounter_correlation=v), seed)["icc"], target["icc"], 0.0,
                1.0))
    config = replace(search, n_encounters=n_enc, n_images=n_img)
    # the twin at the challenge's size, four times: the first is the fit, the spread is its own sampling noise
    twins = [_simulate(config, seed + k) for k in range(FIT_SEEDS)]
    rows = []
    for k in STAT_LABELS:
        fitted, within, text = check_statistic(k, float(target[k]), [float(x[k]) for x in twins])
        rows.append({"statistic": STAT_LABELS[k], "target": float(target[k]), "fitted": fitted, "tolerance": text,
                     "within": within})
    if depth is not None:
        rows.append({"statistic": "slices per volume", "target": target.get("slices", np.nan), "fitted": depth,
                     "tolerance": "set", "within": True})
    return config, pd.DataFrame(rows)


def check_statistic(key: str, target: float, twins: list[float], *,
                    extra: dict | None = None) -> tuple[float, bool | None, str]:
    """One row of the fit table: the twin's value of a statistic, whether it holds, and the rule applied.

    Parameters
    ----------
    key : str
        A statistic of :data:`STAT_LABELS`.
    target : float
        Its value on the challenge.
    twins : list of float
        Its value on each of the :data:`FIT_SEEDS` simulations of the fitted twin (the first is the fit's).
    extra : dict, optional
        Tolerances (as :data:`FIT_TOLERANCES`) that apply beside and before those, checking a statistic
        :data:`NOT_CHECKED` lists (a twin whose images are the challenge's own checks their objects' size).

    Returns
    -------
    fitted : float
        The first twin's value, or the twins' median for a ``fixed ratio`` statistic.
    within : bool or None
        True or False where checked; None where not checked (a statistic that cannot be computed, or one
        :data:`NOT_CHECKED` lists), which is never a pass.
    text : str
        The tolerance applied, or why nothing was checked.
    """
    tolerances = FIT_TOLERANCES | (extra or {})
    kind, tol = tolerances.get(key, ("abs", np.nan))
    values = np.asarray(twins, dtype=np.float64)
    t = float(target)
    f = float(np.median(values)) if kind == "fixed ratio" else float(values[0])
    if key in NOT_CHECKED and key not in (extra or {}):
        return f, None, NOT_CHECKED[key]
    if key not in tolerances:
        return f, True, "copied"  # the structure: set, not fitted
    if not (np.isfinite(t) and np.all(np.isfinite(values))):
        return f, None, ("not checked: one image per encounter, no within-encounter correlation" if key == "icc"
                         else "not checked: not measurable on this challenge")
    if kind == "fixed ratio":
        within = (t > 0 and f > 0 and abs(np.log(f / t)) <= np.log(tol)) or abs(f - t) <= DISTANCE_FLOOR
        return f, bool(within), f"within a factor {tol:.3g} or {DISTANCE_FLOOR:g} place (median of {values.size} twins)"
    if kind == "abs":
        tol = max(tol, 3 * float(np.std(values, ddof=1))) if values.size > 1 else tol
        return f, bool(abs(f - t) <= tol), f"within {tol:.3g}"
    if values.size > 1:
        tol = float(np.exp(max(np.log(tol), 3 * np.std(np.log(np.maximum(values, 1e-12)), ddof=1))))
    within = t > 0 and f > 0 and abs(np.log(f / t)) <= np.log(tol)
    return f, bool(within), f"within a factor {tol:.3g}"


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
    bad = table[[str(w) == "False" for w in table.within]]  # False, numpy's, or read back; None: not checked
    return [f"{r.statistic} is {r.target:.3g} in the challenge but {r.fitted:.3g} in its fitted twin ({r.tolerance})"
            for r in bad.itertuples()]
