"""How far the test set's ranking may be from the ranking the runs would get on unlimited data.

The paper's convergence curve compares a random subset with its own full test set, so it is 0 at n = N by
construction and says nothing about the full test set's own error. This module estimates the expected L1
between the ranking on a test set of ``m`` units and the ranking on unlimited data, for ``m`` below and above
the test set's size ``N``, and the number of units that brings it under a tolerance.

The estimate comes from an empirical-Bayes posterior of the runs' population scores
(:mod:`robustness.statistics.population`): the plug-in bootstrap, which takes the test set's ranking for the
truth, is biased low (near-ties look wider than they are), and its spread over resamples says nothing about how
far the estimate itself may be off. The interval adds the posterior's spread and the spread of the whole
estimate over resampled test sets (an outer bootstrap of the units). The plug-in estimate and its stability
index (how often the observed best stays first when the test set is resampled) are kept beside it, named for
what they are. ``python -m experiments.calibration`` checks bias and coverage against populations of known truth.

Every number is per scheme and per resampling unit (encounters by default: images of one encounter are not
independent).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtri

from robustness.errors import options_with
from robustness.parallel import batch_generators, batch_sizes, progress_bar, run_batches
from robustness.seeds import SeedLike
from robustness.statistics.inference import draw_counts, tails
from robustness.statistics.population import (
    ScorePosterior,
    delta_covariance,
    matrix_root,
    noisy_l1,
    run_groups,
    score_posterior,
    spread_test,
)
from robustness.statistics.ranks import rank
from robustness.statistics.schemes import Schemes
from robustness.statistics.uncertainty_options import UncertaintyDraws, UncertaintyOptions

__all__ = ["ranking_uncertainty", "expected_l1", "units_needed", "default_sizes", "crossing", "UncertaintyDraws",
           "UncertaintyOptions", "CLAIM_CONFIDENCE", "FLAG_ALPHA"]

#: The confidence of the one-sided size claims ("at least n units"): calibrated by experiments.calibration so
#: that at least 80% of claims reach the target without asking for far more than needed.
CLAIM_CONFIDENCE = 0.95

#: The level of the test that the teams share one within-team spread (``spread_p``,
#: :func:`~robustness.statistics.population.spread_test`) below which the distance is said to depend on what the
#: test set cannot resolve (``distance_band``'s statement ``prior_sensitive``): a team tighter than the others,
#: where the estimate, which shares one spread, errs low at larger sizes. The prior gap (the per-team estimate
#: relative to the shared one) was tried first and did not separate the too-low estimates from the others
#: (docs/calibration.md). The flag speaks of the population ("your teams differ in spread; read the range"):
#: experiments.calibration judges it per population (``prior_flag_differ``, ``prior_flag_silent``), not per test
#: set, where it did not separate the too-low estimates from the others.
FLAG_ALPHA = 0.05


def default_sizes(n_units: int) -> np.ndarray:
    """The test-set sizes studied: ``N/8 .. 64N`` in factors of two (at least 2 units), and ``N`` itself.

    The search runs to 64 times the test set so that a size claim is finite where the data allow one: with few
    runs the size target is small, and a search that stopped at 16N said "more than 16N" where the need was a few
    times that (issue "Where one team is tighter than the noise").

    Parameters
    ----------
    n_units : int
        The test set's size N.

    Returns
    -------
    ndarray of int64
    """
    sizes = {max(2, int(round(n_units * f))) for f in (1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32, 64)}
    return np.array(sorted(sizes | {n_units}), dtype=np.int64)


@dataclass(frozen=True)
class _Question:
    """What every estimate of one call asks: the runs' groups (labels) of the prior, the sizes and the margin."""

    groups: np.ndarray
    sizes: np.ndarray
    margin: float


def _distances(parts, weights, question: _Question, counts: tuple[int, int], rng, *, full=True, known=None,
               prior="shared"):
    """The estimate on one (re)sample of units: expected L1 (S, M) with its posterior and Monte Carlo spreads.

    ``counts``: the populations drawn and the noise vectors per population. With ``full``, also the plug-in's
    expected L1 (S, M) and the posterior's expected number of pairs within the margin (S,) (an outer resample
    needs the estimate only). ``known`` (S, R): population scores that set the prior
    (:func:`~robustness.statistics.population.score_posterior`; the calibration's diagnostic). ``prior``: the
    within-group variance (:data:`~robustness.statistics.population.PRIORS`).
    """
    num, den = parts
    groups, sizes, margin = question.groups, question.sizes, question.margin
    n_draws, n_noise = counts
    theta, cov = delta_covariance(num, den, weights)  # (S, R), (S, R, R)
    n = float(num.shape[0] if weights is None else np.sum(weights))
    n_s, n_r = theta.shape
    est = np.full((n_s, sizes.size), np.nan)
    post_sd, mc_se, plugin = est.copy(), est.copy(), est.copy()
    within = np.full(n_s, np.nan)
    for s in range(n_s):
        if not np.all(np.isfinite(theta[s])):
            continue
        posterior = score_posterior(theta[s], cov[s], groups, known=None if known is None else known[s], prior=prior)
        draws = posterior.draws(n_draws, rng)
        noise = rng.standard_normal((n_noise, n_r)) @ matrix_root(cov[s] * n).T
        if full:
            gaps = np.abs(draws[:, :, None] - draws[:, None, :])
            within[s] = ((gaps <= margin).sum(axis=(1, 2)) - n_r).mean() / 2
        est[s], post_sd[s], mc_se[s] = _per_draw(draws, noise, sizes, margin)
        if full:  # every size in one call, each size's mean over its own (1, F) rankings
            plugin[s] = [per.mean() for per in noisy_l1(theta[s][None], noise, 1 / np.sqrt(sizes), margin)]
    return est, post_sd, mc_se, plugin, within


def _per_draw(draws, noise, sizes, margin):
    """Per size: the mean over draws of the expected L1, its posterior SD (Monte Carlo noise removed), its MC SE.

    One array per statistic, (M,), every size at once: each reduction runs along the last axis, as it would on
    one size's (D, F) array, so the numbers are those of a loop over the sizes, bit for bit, at a fraction of the
    calls (the outer resamples make this the main job's most frequent call), and one kernel call for every size.
    """
    per = noisy_l1(draws, noise, 1 / np.sqrt(sizes), margin)  # (M, D, F)
    means = per.mean(axis=2)  # (M, D)
    n_d, n_f = per.shape[1:]
    within_var = per.var(axis=2, ddof=1).mean(axis=1) / n_f if n_f > 1 else np.zeros(len(sizes))
    between = means.var(axis=1, ddof=1) if n_d > 1 else np.zeros(len(sizes))
    return means.mean(axis=1), np.sqrt(np.maximum(between - within_var, 0.0)), np.sqrt(between / n_d)


def _outer_batch(parts, question: _Question, size, counts: tuple[int, int], child):
    """``size`` outer resamples of the units: the estimate on each (B, S, M)."""
    n_units = parts[0].shape[0]
    drawn = draw_counts(child, n_units, size).astype(np.float64)  # (B, U)
    out = []
    for b in range(size):
        keep = np.flatnonzero(drawn[b])
        sub = (parts[0][keep], parts[1][keep])
        out.append(_distances(sub, drawn[b, keep], question, counts, child, full=False)[0])
    return np.stack(out)


def _band(parts, question: _Question, k, rng, estimate: tuple, z: float) -> dict:
    """The prior-sensitivity band of the expected L1 (S, M): the estimate's interval, extended to other priors'.

    The estimate's prior shares one within-team variance among the teams. The band's lower end reaches down to
    the estimate with each team of two or more runs its own variance (``per_team``) less ``z`` sampling SEs; its
    upper end up to the estimate with each team's variance at its one-sided lower confidence limit (``per_team_low``,
    :data:`~robustness.statistics.population.LOW_LEVEL`) plus ``z`` sampling SEs. A team tighter than the test
    set's noise has a within-team variance of few degrees of freedom whose moment estimate comes out large by
    chance, and the distance, which grows as the team's runs come closer, then runs low; the lower limit allows
    for that chance. Chosen over the per-team estimate widened by its own sampling SE (docs/calibration.md and the
    issue of the same name, "Where one team is tighter than the noise"). Without a team of two or more runs both
    priors are the one-level one and the other end is the plug-in (``plugin``), which takes the observed scores
    for the population's, widened by ``z`` sampling SEs on both sides. The band always holds the estimate's
    interval (``z`` total SEs) and is floored at 0; nan without an outer bootstrap (no sampling SE). ``gap``: the
    per-team end relative to the estimate, ``(other - est) / est``, large where the answer depends on how tight
    the teams are, which the test set cannot resolve. ``estimate``: the estimate, the plug-in, the sampling SE and
    the total SE, each (S, M). ``both``: the two priors' estimates averaged (equal weights; the
    estimate alone where the per-team one is nan), the curve the size claim reads (:func:`units_needed`).
    """
    est, plugin, sampling_se, total_se = estimate
    teams = _has_teams(question.groups)
    resampled = bool(np.isfinite(sampling_se).any())
    per_team = np.full_like(est, np.nan)
    per_team_low = np.full_like(est, np.nan)
    if teams and resampled:
        g_team, g_low = rng.spawn(2)
        per_team = _distances(parts, None, question, (k.draws, k.noise), g_team, full=False, prior="per_team")[0]
        per_team_low = _distances(parts, None, question, (k.draws, k.noise), g_low, full=False,
                                  prior="per_team_low")[0]
    other, upper = (per_team, per_team_low) if teams else (plugin, plugin)
    low, high = np.full_like(est, np.nan), np.full_like(est, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        if resampled:
            low = np.maximum(np.fmin(est - z * total_se, other - z * sampling_se), 0.0)
            high = np.fmax(est + z * total_se, upper + z * sampling_se)
        gap = (other - est) / est
    both = np.where(np.isfinite(per_team), (est + per_team) / 2, est)
    return {"per_team": per_team, "per_team_low": per_team_low, "other": "per_team" if teams else "plugin",
            "low": low, "high": high, "gap": gap, "both": both}


def _has_teams(labels) -> bool:
    """Whether some team holds two or more runs (else the shared and per-team priors are one)."""
    return bool((np.unique(labels, return_counts=True)[1] >= 2).any())


def _p_best(theta, cov, labels, rng, n_draws=4000):
    """Each run's probability of being the population's best: (reported, shared prior, per-team prior).

    The reported one is the likelihood's alone: the population's scores drawn from ``N(theta, cov)``, a flat prior
    without the empirical-Bayes shrinkage. Pooled over the calibration's twelve populations at two seeds its claims
    came true within 0.08 of the claim in 11 of 12 cells (bins, averagings, seeds; the twelfth undecided), where the
    priors' claims below 0.5 came true up to 0.26 more often than claimed (docs/calibration.md); the two priors'
    are kept beside it. Without a team of two or more runs the priors are one. nan where a score is.
    """
    if not np.all(np.isfinite(theta)):
        nan = np.full(theta.size, np.nan)
        return nan, nan, nan
    shared = per_team = score_posterior(theta, cov, labels).p_best(n_draws, rng)
    if _has_teams(labels):
        per_team = score_posterior(theta, cov, labels, prior="per_team").p_best(n_draws, rng)
    flat = ScorePosterior(theta, cov, 0.0, 0.0).p_best(n_draws, rng)  # its draws' matrix_root symmetrises cov
    return flat, shared, per_team


def _stability(theta, cov, n, sizes, n_noise, rng):
    """Plug-in stability at each size: how often the observed best stays first, and each run keeps its rank."""
    n_s, n_r = theta.shape
    top = np.full((n_s, sizes.size), np.nan)
    keep = np.full((n_s, n_r), np.nan)
    for s in range(n_s):
        if not np.all(np.isfinite(theta[s])):
            continue
        noise = rng.standard_normal((n_noise, n_r)) @ matrix_root(cov[s] * n).T
        best = np.argmax(theta[s])
        final = rank(theta[s][None], tol=0.0)[0]
        for k, m in enumerate(sizes):
            vals = theta[s][None] + noise / np.sqrt(m)
            top[s, k] = float((np.argmax(vals, axis=1) == best).mean())
            if m == n:
                keep[s] = (rank(vals, tol=0.0) == final).mean(axis=0)
    return top, keep


def ranking_uncertainty(schemes: Schemes, *, sizes: ArrayLike | None = None, n_resamples: int = 200,
                        options: UncertaintyOptions = UncertaintyOptions(), n_jobs: int = 1, progress: bool = False,
                        rng: SeedLike = None, **deprecated: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Expected L1 between the ranking on ``m`` units and the ranking on unlimited data, with its interval.

    Parameters
    ----------
    schemes : Schemes
        Built with the resampling unit (``unit='encounter'`` is the default of the studies).
    sizes : array of int, optional
        Test-set sizes in units (default :func:`default_sizes`: N/8 .. 64N).
    n_resamples : int
        Outer resamples of the units (the spread of the whole estimate over resampled test sets); 0: the estimate
        only, without its interval (the design study's replicates).
    options : UncertaintyOptions
        The margin, the runs' groups, the observed ranking's tie rule, the interval's confidence and the draws.
    n_jobs : int
        Parallel batches of outer resamples (the same numbers for any ``n_jobs``).
    progress : bool
        Count the work in steps: the estimate, each outer resample, the band, the tests and stability
        (``distance to unlimited data: 11/203 steps``).
    rng : None, int or numpy.random.Generator
    **deprecated
        ``margin``, ``groups``, ``ties``, ``tol``, ``confidence``, ``draws``: the options one by one (deprecated:
        pass ``options``).

    Returns
    -------
    (per_size, per_run) : DataFrames
        ``per_size``: ``strategy, metric, average, m, n_images, observed_size, expected_l1, expected_l1_se, low,
        high`` (the interval at ``confidence``), ``sampling_se`` (outer bootstrap), ``posterior_se``, ``mc_se``
        (Monte Carlo error of the estimate), ``plugin_l1`` (the plug-in bootstrap's estimate, biased low, for
        comparison), ``expected_l1_per_team`` (the estimate with each team of two or more runs its own
        within-team variance; nan without such a team or without ``n_resamples``), ``expected_l1_both`` (the two
        priors' estimates averaged, the size claim's curve; the estimate where the per-team one is nan),
        ``band_other`` (the band's other end: 'per_team', or 'plugin' without a team of two or more runs),
        ``expected_l1_per_team_low`` (the estimate with each team's within-team variance at its one-sided lower
        confidence limit, :data:`~robustness.statistics.population.LOW_LEVEL`), ``band_low``, ``band_high`` (the
        prior-sensitivity band: the interval, extended down to the per-team estimate and up to the lower-limit
        one, each widened by z sampling SEs; nan without ``n_resamples``), ``prior_gap`` (the per-team end
        relative to the estimate),
        ``spread_p`` (the p-value of the test that the teams share one within-team spread,
        :func:`~robustness.statistics.population.spread_test`; nan with fewer than two teams of two or more runs
        or without ``n_resamples``),
        ``p_best_stays`` (plug-in stability: the share of test sets of ``m`` units drawn around the
        observed scores whose best is the observed best; not the probability that the observed best is the
        population's best), ``margin``, ``pairs_within_margin`` (the posterior's expected number of pairs of runs
        within the margin), ``groups``, ``n_resamples``, ``confidence``.
        ``per_run`` (at ``m = N``): ``strategy, metric, average, run, rank, p_best`` (the probability that the
        run is the population's best under the likelihood alone: a flat prior, the scores' normal sampling
        distribution around the observed ones, without the estimate's shrinkage; on the calibration's populations
        its claims came true about as often as they said), ``p_best_shared`` and ``p_best_per_team`` (the
        empirical-Bayes posterior's under each prior the band spans; the same without a team of two or more
        runs), ``p_keep_rank`` (plug-in stability of its rank).

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> from robustness.overlap import compute_overlap
    >>> from robustness.statistics.count_schemes import schemes_from_counts
    >>> oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    >>> per_size, per_run = ranking_uncertainty(schemes_from_counts(oc, unit="encounter"), n_resamples=20, rng=0)
    >>> sorted(set(per_size.m))
    [2, 4, 8, 16, 32, 64, 128, 256, 512]
    """
    options = options_with("ranking_uncertainty", options, deprecated)
    margin, groups, ties, tol = options.margin, options.groups, options.ties, options.tol
    confidence, draws = options.confidence, options.draws
    if n_resamples != 0 and n_resamples < 2:
        raise ValueError(f"n_resamples must be 0 (the estimate only, no interval) or >= 2, got {n_resamples}")
    if not (margin >= 0 and np.isfinite(margin)):
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    k = draws
    n_units = schemes.n_units
    sizes = default_sizes(n_units) if sizes is None else np.unique(np.asarray(sizes, dtype=np.int64))
    if sizes.size == 0 or sizes[0] < 1:
        raise ValueError(f"sizes must be positive numbers of units, got {sizes}")
    labels, grouping = run_groups(schemes.runs, groups)
    parts = schemes.ratio_parts()
    chunks = batch_sizes(n_resamples, 10) if n_resamples else []
    main, stab, post, *outer_children, band_stream, spread_stream = batch_generators(rng, 5 + len(chunks))
    # counted in steps: the estimate, each outer resample, the prior-sensitivity band, the tests and stability
    bar = progress_bar(progress, n_resamples + 3, "distance to unlimited data", unit="step")
    step = bar.update if bar is not None else (lambda _: None)
    question = _Question(labels, sizes, margin)
    est, post_sd, mc_se, plugin, within = _distances(parts, None, question, (k.draws, k.noise), main)
    step(1)
    if chunks:
        args = [(parts, question, size, (k.outer_draws, k.outer_noise), g) for size, g in zip(chunks, outer_children)]
        outer_parts = []
        for done, size in zip(run_batches(_outer_batch, args, n_jobs=n_jobs, prefer="threads"), chunks):
            outer_parts.append(done)
            step(size)
        outer = np.concatenate(outer_parts)  # (B, S, M)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a scheme whose every resample is nan (all runs tied)
            sampling_se = np.nanstd(outer, axis=0, ddof=1)
    else:
        sampling_se = np.full_like(est, np.nan)
    total_se = np.sqrt(sampling_se**2 + post_sd**2)
    z = float(ndtri(tails(confidence)[1]))
    band = _band(parts, question, k, band_stream, (est, plugin, sampling_se, total_se), z)
    step(1)
    theta, cov = delta_covariance(*parts)
    spread_p = np.array([spread_test(theta[s], cov[s], labels, rng=spread_stream)[1]
                         if chunks and np.all(np.isfinite(theta[s])) else np.nan for s in range(theta.shape[0])])
    top, keep = _stability(theta, cov, n_units, sizes, k.plugin_noise, stab)
    step(1)
    if bar is not None:
        bar.close()
    final = rank(schemes.scores(), ties=ties, tol=tol)
    images_per_unit = float(schemes.unit_images.mean())
    rows, runs = [], []
    for s, (strat, metric, average) in enumerate(schemes.names):
        for j, m in enumerate(sizes):
            rows.append({"strategy": strat, "metric": metric, "average": average, "m": int(m),
                         "n_images": m * images_per_unit, "observed_size": bool(m == n_units),
                         "expected_l1": est[s, j], "expected_l1_se": total_se[s, j],
                         "low": max(est[s, j] - z * total_se[s, j], 0.0), "high": est[s, j] + z * total_se[s, j],
                         "expected_l1_per_team": band["per_team"][s, j], "expected_l1_both": band["both"][s, j],
                         "band_other": band["other"],
                         "band_low": band["low"][s, j], "band_high": band["high"][s, j],
                         "expected_l1_per_team_low": band["per_team_low"][s, j],
                         "prior_gap": band["gap"][s, j], "spread_p": spread_p[s],
                         "sampling_se": sampling_se[s, j], "posterior_se": post_sd[s, j], "mc_se": mc_se[s, j],
                         "plugin_l1": plugin[s, j], "p_best_stays": top[s, j], "margin": margin,
                         "pairs_within_margin": within[s], "groups": grouping, "n_resamples": n_resamples,
                         "confidence": confidence})
        p_best, p_shared, p_team = _p_best(theta[s], cov[s], labels, post)
        runs.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average,
                                  "run": list(schemes.runs), "rank": final[s], "p_best": p_best,
                                  "p_best_shared": p_shared, "p_best_per_team": p_team, "p_keep_rank": keep[s]}))
    return pd.DataFrame(rows), pd.concat(runs, ignore_index=True)


def expected_l1(schemes: Schemes, sizes: ArrayLike, *, margin: float = 0.0, groups: str | Mapping[str, str] = "auto",
                known: np.ndarray | None = None, draws: UncertaintyDraws = UncertaintyDraws(),
                rng: SeedLike = None) -> np.ndarray:
    """The estimate of the expected L1 at each size alone: :func:`ranking_uncertainty`'s, without its interval.

    Parameters
    ----------
    schemes : Schemes
    sizes : array of int
        Test-set sizes in units.
    margin, groups, draws
        As in :func:`ranking_uncertainty`.
    known : ndarray (S, R), optional
        The runs' population scores of every scheme, where they are known (a calibration's population): the
        prior's variances are then theirs (:func:`~robustness.statistics.population.score_posterior`), which
        shows what the prior's normal form costs when nothing about it has to be estimated.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray (S, M)
        nan for a scheme with a run of undefined score.
    """
    labels, _ = run_groups(schemes.runs, groups)
    question = _Question(labels, np.asarray(sizes, dtype=np.int64), margin)
    return _distances(schemes.ratio_parts(), None, question, (draws.draws, draws.noise), np.random.default_rng(rng),
                      full=False, known=known)[0]


def crossing(m: np.ndarray, e: np.ndarray, tolerance: float) -> tuple[float, bool, bool]:
    """Where an expected L1 curve falls to a tolerance, by log-linear interpolation between the sizes tried.

    Parameters
    ----------
    m : ndarray
        The sizes, increasing.
    e : ndarray
        The curve at each size (decreasing in ``m``).
    tolerance : float

    Returns
    -------
    (size, beyond, already) : (float, bool, bool)
        ``size`` nan and ``beyond`` where the curve stays above the tolerance; ``already`` where it is at or
        below it at the smallest size (``size`` is then that size).
    """
    below = np.flatnonzero(e <= tolerance)
    if not below.size:
        return np.nan, True, False
    i = below[0]
    if i == 0:
        return float(m[0]), False, True
    t = (e[i - 1] - tolerance) / (e[i - 1] - e[i])  # e[i-1] > tol >= e[i]
    return float(np.exp(np.log(m[i - 1]) + t * (np.log(m[i]) - np.log(m[i - 1])))), False, False


def units_needed(per_size: pd.DataFrame, *, tolerance: float, confidence: float = CLAIM_CONFIDENCE) -> pd.DataFrame:
    """Per scheme, how many units bring the expected L1 to ``tolerance``: a conservative claim and the estimate.

    The size claim reads the two priors' estimates averaged (``expected_l1_both``, equal weights; the
    estimate alone where that column is absent or nan): ``units_needed`` is where its one-sided upper bound, the
    average plus ``z(confidence) * expected_l1_se``, falls to the tolerance (log-linear interpolation between the
    sizes tried), so the claim reads "at least this many units". ``units_needed_point`` is where the average itself
    falls to it, ``units_needed_low`` where the matching lower bound does; ``units_needed_shared``
    (``beyond_shared``) where the shared prior's estimate's bound does, the claim reported before. The shared prior
    alone runs low where the teams' spreads differ in truth, and its claims then reached the target in as few as 14%
    of a design population's test sets; the average's in 72-100% of every design population's at two seeds, at up to
    3.8 times the need (docs/calibration.md; the 95% is nominal: the SE is the shared estimate's). nan where a curve
    stays above the tolerance on the whole grid (``beyond``: more than ``largest_size`` is needed); ``already``
    where it is below at the smallest size. ``units_needed_range_low`` and ``units_needed_range_high``: where the
    prior-sensitivity band's ends fall to the tolerance (nan without the band, and ``beyond_range_high`` where its
    upper end stays above on the whole grid); where the teams' spreads differ (the prior flag), the report tells the
    reader to claim the range's upper end (docs/calibration.md).

    Parameters
    ----------
    per_size : pandas.DataFrame
        The first table of :func:`ranking_uncertainty`.
    tolerance : float
        The target expected L1.
    confidence : float
        Of the one-sided claim (default :data:`CLAIM_CONFIDENCE`).

    Returns
    -------
    pandas.DataFrame
        ``strategy, metric, average, tolerance, units_needed, images_needed, beyond, already, units_needed_point,
        beyond_point, units_needed_low, units_needed_range_low, units_needed_range_high, beyond_range_high,
        units_needed_shared, beyond_shared, largest_size, confidence``.
    """
    z = float(ndtri(confidence))
    rows = []
    for key, d in per_size.groupby(["strategy", "metric", "average"], sort=False):
        d = d.sort_values("m")
        m = d.m.to_numpy(dtype=float)
        e, se = d.expected_l1.to_numpy(), d.expected_l1_se.to_numpy()
        both = d.expected_l1_both.to_numpy(dtype=float) if "expected_l1_both" in d else e  # older folders: none
        both = np.where(np.isfinite(both), both, e)
        ipu = float((d.n_images / d.m).iloc[0])
        need, beyond, already = crossing(m, both + z * se, tolerance)
        point, beyond_point, _ = crossing(m, both, tolerance)
        optimistic, _, _ = crossing(m, both - z * se, tolerance)
        shared, beyond_shared, _ = crossing(m, e + z * se, tolerance)
        range_low, range_high, beyond_high = np.nan, np.nan, False
        if "band_low" in d and np.isfinite(d.band_low).all() and np.isfinite(d.band_high).all():
            range_low = crossing(m, d.band_low.to_numpy(dtype=float), tolerance)[0]
            range_high, beyond_high, _ = crossing(m, d.band_high.to_numpy(dtype=float), tolerance)
        rows.append(dict(zip(["strategy", "metric", "average"], key), tolerance=tolerance,
                         units_needed=need, images_needed=need * ipu, beyond=beyond, already=already,
                         units_needed_point=point, beyond_point=beyond_point, units_needed_low=optimistic,
                         units_needed_range_low=range_low, units_needed_range_high=range_high,
                         beyond_range_high=beyond_high, units_needed_shared=shared, beyond_shared=beyond_shared,
                         largest_size=int(m[-1]), confidence=confidence))
    return pd.DataFrame(rows)
