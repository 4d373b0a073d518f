"""The package checks itself: draw test sets from a large population of known truth and score its claims.

A population is a synthetic challenge of many encounters (the default challenge's runs, a design study's run
population, or the runs of a challenge fitted with ``--like``); its runs' population scores, rankings and
expected L1 at every test-set size are known (the expected L1 by resampling the population itself). Test sets of
``N`` encounters are drawn from it without replacement, and on each the main job's estimators are run exactly as
the main job runs them. Every claim is then held against the population's truth:

=================================  ====================================================================
estimator                          checked
=================================  ====================================================================
``expected_l1``                    the distance to unlimited data at N and 8N: relative bias, coverage
``expected_l1_interval90``         the same estimate's 90% interval (+- 1.645 SE): coverage
``expected_l1_plugin``             the plug-in bootstrap's (for comparison): relative bias
``expected_l1_known_prior``        the same estimate with the prior's variances taken from the
                                   population (each team its own): what the prior's normal form costs
                                   when nothing has to be estimated (a diagnostic): relative bias
``units_needed``                   the conservative size claim: share of test sets whose claim reaches the
                                   target in truth (a claim "more than the largest size tried" always does,
                                   :func:`size_claim_holds`); the median claim over the true need; every claim
                                   in calibration_claims.csv
``score_interval_<method>``        every run's score interval (percentile, BCa, studentized): coverage
``pairs_differ_<test>_<family>``   "these two runs differ" claims (Holm over all pairs, or over the
                                   leaderboard's neighbours): the share of claims whose direction is wrong
``p_best`` / ``best_stays_first``  the posterior probability that the observed best is the population's
                                   best, and the plug-in stability index: mean claimed against the share
                                   of test sets whose observed best is the population's best
``resolution``                     the resolution at N (the smallest true difference declared with 80% power,
                                   :mod:`robustness.statistics.resolution`): among pairs of runs whose
                                   true difference is at least the claimed resolution, the share the paired
                                   t-test declares at 5% in the right direction (``power``); the claim
                                   beside the population's true resolution
``resolution_at``                  the same among pairs whose true difference lies within 25% above the
                                   claimed resolution: the power at the claim itself (80% if exact)
``resolution_interval``            the resolution's 95% interval: coverage of the population's resolution
``resolve_units``                  the units claimed for a true difference D (the population's true
                                   resolution at N), at the upper end of the SD's interval: share of test
                                   sets whose claim gives the paired test 80% power in truth
=================================  ====================================================================

Monte Carlo standard errors are over test sets (a test set's claims are not independent of each other, so
shares over claims are ratio estimates with test sets as clusters). With two or more of the design study's run
populations, rows named ``design (P populations)`` average every check over them, with standard errors over the
populations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robustness.parallel import run_batches
from robustness.seeds import stream
from robustness.simulation.calibration_summary import (
    CALIBRATION_COLUMNS,
    CLAIM_RULES,
    averaged,
    pooled_reliability,
    size_claim_holds,
    summarise_population,
)
from robustness.simulation.populations import (
    PopulationSpec,
    PopulationTruth,
    encounter_schemes,
    gold_schemes,
    gold_truth,
    population_counts,
    population_truth,
)
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.comparisons import pairwise_comparisons
from robustness.statistics.convergence import GOLD_ORDERS, auc_over_test_sets
from robustness.statistics.inference import members
from robustness.statistics.population import run_groups, spread_test
from robustness.statistics.ranks import size_target
from robustness.statistics.resolution import detectable_difference, resolution_table, units_for_difference
from robustness.statistics.uncertainty import (
    FLAG_ALPHA,
    crossing,
    default_sizes,
    expected_l1,
    ranking_uncertainty,
    units_needed,
)
from robustness.statistics.uncertainty_options import UncertaintyOptions
from robustness.statistics.verdicts import best_with_ties

if TYPE_CHECKING:

    from robustness.overlap.counts import OverlapCounts
    from robustness.statistics.schemes import Schemes

__all__ = ["CalibrationOptions", "calibrate", "size_claim_holds", "CALIBRATION_COLUMNS"]




@dataclass(frozen=True)
class CalibrationOptions:
    """How many test sets, of what size, from how large a population.

    Attributes
    ----------
    population : int
        Encounters in each population (the truth is the population's).
    test_sets : int
        Test sets drawn from each population.
    test_size : int
        Encounters per test set (without replacement).
    truth_draws : int
        Samples of the population per size for the true expected L1.
    outer : int
        Outer resamples behind each interval of the distance to unlimited data.
    bootstrap : int
        Bootstrap resamples behind the score intervals and the pairwise tests.
    confidence : float
        Of every interval.
    seed : int
    """

    population: int = 10_000
    test_sets: int = 100
    test_size: int = 100
    truth_draws: int = 1000
    outer: int = 200
    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 0

    def __post_init__(self) -> None:
        """Check the sizes."""
        if not 2 <= self.test_size < self.population:
            raise ValueError(f"test_size must be in 2..population-1, got {self.test_size}")
        for name in ("test_sets", "truth_draws", "outer", "bootstrap"):
            if int(getattr(self, name)) < 2:
                raise ValueError(f"{name} must be >= 2, got {getattr(self, name)!r}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence!r}")


#: What calibration_distances.csv keeps of every test set's distance estimate (after its population, test set,
#: scheme and size).
DISTANCE_COLUMNS = ("estimate", "plugin", "known_prior", "low", "high", "se", "posterior_se", "sampling_se", "truth",
                    "per_team", "per_team_low", "band_low", "band_high", "prior_gap", "spread_p")


#: What calibration_claims.csv keeps of every size claim (after its population, test set, scheme and rule).
CLAIM_COLUMNS = ("claim", "beyond", "truth_at_claim", "true_need")


def _gold_statements(golds: Schemes, encounters: np.ndarray, truth: tuple, options: CalibrationOptions,
                     rng: np.random.Generator) -> list[dict]:
    """The main job's gold statement (the fastest gold, or the tied ones) on one test set, beside the truth."""
    names, mean, _ = truth
    outer = auc_over_test_sets(golds, clusters=encounters, n_resamples=options.outer, n_orders=GOLD_ORDERS, rng=rng)
    out = []
    for average in ("micro", "macro"):
        idx = [k for k, n in enumerate(golds.names) if n[2] == average]
        labels = [golds.names[k][0] for k in idx]
        v = best_with_ties(outer[idx], labels, higher_is_better=False, interval="percentile")
        true_idx = [names.index(golds.names[k]) for k in idx]
        best = labels[int(np.argmin(mean[true_idx]))]
        out.append({"average": average, "claims_best": v.best is not None, "holds": best in v.tied,
                    "tied": len(v.tied)})
    return out


def _test_set_batch(tests: list, truth: PopulationTruth, golds: tuple, options: CalibrationOptions,
                    margin: float) -> list[dict]:
    """Every claim of a few test sets (``tests``: each one's counts and its two generators)."""
    out = []
    for sub, g_test, g_gold in tests:
        result = _one_test_set(encounter_schemes(sub), truth, options, g_test, margin)
        result["golds"] = _gold_statements(gold_schemes(sub), np.asarray(sub.encounters), golds, options, g_gold)
        out.append(result)
    return out


def _distance_row(s: int, factor: int, row: pd.Series, known: float, true: float) -> dict:
    """One test set's distance estimate at ``factor`` times its size, beside the truth and the known-prior one."""
    return {"scheme": s, "factor": factor, "estimate": row.expected_l1, "plugin": row.plugin_l1,
            "known_prior": known, "low": row.low, "high": row.high, "se": row.expected_l1_se,
            "posterior_se": row.posterior_se, "sampling_se": row.sampling_se, "truth": true,
            "per_team": row.expected_l1_per_team, "band_low": row.band_low, "band_high": row.band_high,
            "prior_gap": row.prior_gap, "spread_p": row.spread_p, "per_team_low": row.expected_l1_per_team_low}


def _rule_claims(s: int, ps: pd.DataFrame, nd: pd.Series, truth: PopulationTruth, target: float,
                 need: float) -> list[dict]:
    """The size each rule of :data:`CLAIM_RULES` would claim from one test set's band (``ps``, by size).

    ``nd``: the test set's :func:`units_needed` row (the reported claim and the shared prior's).
    """
    grid = ps.index.to_numpy(dtype=np.float64)
    band = {"band_mid": (ps.band_low + ps.band_high) / 2, "band_high": ps.band_high}
    flagged = bool(ps.spread_p.iloc[0] < FLAG_ALPHA)
    band["flagged"] = band["band_high"] if flagged else None
    band["adaptive"] = band["flagged"] if ps.band_other.iloc[0] == "per_team" else band["band_mid"]
    out = []
    for rule in CLAIM_RULES:
        curve = band.get(rule)
        if curve is not None:
            size, over, _ = crossing(grid, curve.to_numpy(dtype=np.float64), target)
        elif rule == "shared":  # the shared prior's claim, which units_needed states beside the reported one
            size, over = nd.units_needed_shared, nd.beyond_shared
        else:  # the reported claim (the flagged rules where the flag is silent)
            size, over = nd.units_needed, nd.beyond
        at = float(grid[-1]) if over else float(size)
        out.append({"scheme": s, "rule": rule, "claim": at, "beyond": bool(over), "truth_at_claim": truth.at(s, at),
                    "true_need": need, "largest": float(grid[-1])})
    return out


def _one_test_set(test: Schemes, truth: PopulationTruth, options: CalibrationOptions, rng: np.random.Generator,
                  margin: float) -> dict:
    """Every claim of one test set beside its truth."""
    n = test.n_units
    n_runs = len(test.runs)
    g_unc, g_boot, g_known = rng.spawn(3)
    known = expected_l1(test, np.array([n, 8 * n]), margin=margin, known=truth.scores, rng=g_known)  # (S, 2)
    per_size, per_run = ranking_uncertainty(test, sizes=np.unique(np.r_[default_sizes(n), 8 * n]),
                                            n_resamples=options.outer,
                                            options=UncertaintyOptions(margin=margin, confidence=options.confidence),
                                            rng=g_unc)
    target = size_target(n_runs)
    needed = units_needed(per_size, tolerance=target)
    boot = bootstrap(test, n_resamples=options.bootstrap, rng=g_boot)
    pairs = pairwise_comparisons(boot)
    intervals = {m: boot.intervals(method=m, confidence=options.confidence)
                 for m in ("percentile", "bca", "studentized")}
    out: dict[str, list] = {"distance": [], "needed": [], "needed_rules": [], "scores": [], "pairs": [], "best": [],
                            "resolution": []}
    resolution = resolution_table(test, sizes=[n], confidence=options.confidence)
    for s, name in enumerate(truth.schemes):
        key = dict(zip(("strategy", "metric", "average"), name))
        sel = (per_size.strategy == key["strategy"]) & (per_size.average == key["average"])
        ps = per_size[sel].set_index("m")
        out["distance"] += [_distance_row(s, factor, ps.loc[factor * n], known[s, factor // 8],
                                          truth.at(s, factor * n)) for factor in (1, 8)]
        nd = needed[(needed.strategy == key["strategy"]) & (needed.average == key["average"])].iloc[0]
        claim = float(nd.largest_size) if nd.beyond else float(nd.units_needed)
        need = truth.needed(s, target)
        out["needed"].append({"scheme": s, "claim": claim, "beyond": bool(nd.beyond),
                              "truth_at_claim": truth.at(s, claim), "true_need": need,
                              "point": float(nd.units_needed_point), "largest": float(nd.largest_size)})
        out["needed_rules"] += _rule_claims(s, ps, nd, truth, target, need)
        theta = truth.scores[s]
        for method, ci in intervals.items():
            c = ci[(ci.strategy == key["strategy"]) & (ci.average == key["average"])]
            true = theta[[test.runs.index(r) for r in c.run]]
            out["scores"].append({"scheme": s, "method": method,
                                  "covered": int(((c.low <= true) & (true <= c.high)).sum()), "n": len(c)})
        p = pairs[(pairs.strategy == key["strategy"]) & (pairs.average == key["average"])]
        index = {r: k for k, r in enumerate(test.runs)}
        i = p.run.map(index).to_numpy()
        j = p.other.map(index).to_numpy()
        wrong = theta[i] <= theta[j]  # "run scores higher than other" is wrong in the population
        for test_name, column, family in (("bootstrap", "significant_bootstrap", "all pairs"),
                                          ("delta", "significant_delta", "all pairs"),
                                          ("delta", "significant_delta_neighbours", "neighbours"),
                                          ("wilcoxon", "significant_wilcoxon", "all pairs")):
            if column not in p:
                continue
            sig = p[column].to_numpy(bool)
            out["pairs"].append({"scheme": s, "test": test_name, "family": family,
                                 "claims": int(sig.sum()), "wrong": int((sig & wrong).sum())})
        out["resolution"].append(_resolution_claims(resolution, p, key, theta, test, truth, s))
        r = per_run[(per_run.strategy == key["strategy"]) & (per_run.average == key["average"])]
        top = r.sort_values("rank").iloc[0]
        observed_best = test.runs.index(top.run)
        row = ps.loc[n]
        out["best"].append({"scheme": s, "p_best": float(top.p_best), "stays": float(row.p_best_stays),
                            "p_best_shared": float(top.p_best_shared), "p_best_per_team": float(top.p_best_per_team),
                            "is_best": float(observed_best == int(np.argmax(theta)))})
    return out


def _resolution_claims(resolution, pairs, key: dict, theta: np.ndarray, test: Schemes, truth: PopulationTruth,
                       s: int) -> dict:
    """One test set's resolution claims of one scheme beside the population's truth.

    ``declared`` and ``eligible`` among all pairs whose true difference is at least the claimed resolution, and
    ``declared_at`` and ``eligible_at`` among those within 25% above it (declared: the paired t-test's unadjusted
    p below 5%, the right way round); the claim's interval against the true resolution; the units claimed for the
    true resolution's difference against the true need.
    """
    row = resolution[(resolution.strategy == key["strategy"]) & (resolution.average == key["average"])].iloc[0]
    claimed = float(row.resolution)
    index = {r: k for k, r in enumerate(test.runs)}
    i = pairs.run.map(index).to_numpy()
    j = pairs.other.map(index).to_numpy()
    true_diff = theta[i] - theta[j]  # stored higher-is-better: positive where "run" is better in truth
    declared = (pairs.p_delta.to_numpy(float) < 0.05) & (np.sign(pairs["diff"].to_numpy(float)) * truth.signs[s]
                                                        == np.sign(true_diff))
    big = np.abs(true_diff) >= claimed
    near = big & (np.abs(true_diff) <= 1.25 * claimed)
    d = truth.resolution[s]
    need = units_for_difference(d, truth.pair_sd[s]) if np.isfinite(d) and d > 0 else np.nan
    claim = units_for_difference(d, float(row.pair_sd_high)) if np.isfinite(d) and d > 0 else np.nan
    return {"scheme": s, "claimed": claimed, "low": float(row.resolution_low), "high": float(row.resolution_high),
            "truth": d, "declared": int((declared & big).sum()), "eligible": int(big.sum()),
            "declared_at": int((declared & near).sum()), "eligible_at": int(near.sum()),
            "claim_units": claim, "need_units": need}


def _truth_of(spec: PopulationSpec, counts: OverlapCounts, grid: np.ndarray, options: CalibrationOptions,
              margin: float, n_jobs: int = 1) -> tuple[PopulationTruth, list[pd.DataFrame]]:
    """A population's truth (expected L1 by size, its teams' spread test, its resolution) and its truth rows."""
    truth = population_truth(counts, sizes=grid, draws=options.truth_draws, margin=margin,
                             rng=stream(options.seed, "truth", spec.index, calibration=True), n_jobs=n_jobs)
    labels = run_groups(list(counts.runs))[0]
    spread_p = np.array([spread_test(scores, np.zeros((scores.size, scores.size)), labels,
                                     rng=stream(options.seed, "truth", spec.index, 2, calibration=True))[1]
                         for scores in truth.scores])
    truth = replace(truth, resolution=detectable_difference(truth.pair_sd, options.test_size), spread_p=spread_p)
    frames = [pd.DataFrame({"population": spec.name, "strategy": name[0], "metric": name[1], "average": name[2],
                            "m": truth.sizes, "expected_l1": truth.expected_l1[s],
                            "expected_l1_se": truth.expected_l1_se[s]})
              for s, name in enumerate(truth.schemes)]
    return truth, frames


def _golds_and_draws(spec: PopulationSpec, counts: OverlapCounts, options: CalibrationOptions) -> tuple:
    """The golds' truth, and the test sets (each one's images and its two generators).

    The test sets are drawn in order before any work: the same test sets and streams for any ``n_jobs``.
    """
    n = options.test_size
    ids, images_of = members(np.asarray(counts.encounters))
    golds = gold_truth(counts, images_of, n, draws=max(20, options.truth_draws // 10), n_orders=GOLD_ORDERS,
                       rng=stream(options.seed, "truth", spec.index, 1, calibration=True))
    rng = stream(options.seed, "test_sets", spec.index, calibration=True)
    draws = []
    for _ in range(options.test_sets):
        chosen = np.sort(rng.choice(ids.size, n, replace=False))
        draws.append((np.concatenate([images_of[k] for k in chosen]), *rng.spawn(2)))
    return golds, draws


def _test_set_rows(spec: PopulationSpec, results: list[dict], truth: PopulationTruth, n: int,
                   target: float) -> tuple[list[dict], list[dict]]:
    """Every test set's distance estimates and size claims, as rows of the distances and claims tables."""
    raw, claims = [], []
    for t, r in enumerate(results):
        raw += [{"population": spec.name, "test_set": t, "scheme": " ".join(truth.schemes[x["scheme"]]),
                 "m": x["factor"] * n, **{k: x[k] for k in DISTANCE_COLUMNS}} for x in r["distance"]]
        claims += [{"population": spec.name, "test_set": t, "scheme": " ".join(truth.schemes[x["scheme"]]),
                    "rule": x.get("rule", "reported"), **{k: x[k] for k in CLAIM_COLUMNS}, "target": target,
                    "holds": size_claim_holds(x["beyond"], x["truth_at_claim"], target)}
                   for x in r["needed"] + r["needed_rules"]]
    return raw, claims


def calibrate(populations: list[PopulationSpec], options: CalibrationOptions = CalibrationOptions(), *,
              margin: float = 0.0, cache_dir: Path | str | None = None, n_jobs: int = 1, progress: bool = False,
              say: Callable[..., None] | None = None
              ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Draw test sets from each population, run the estimators on each, and score them against the truth.

    Parameters
    ----------
    populations : list of PopulationSpec
    options : CalibrationOptions
    margin : float
        The distance to unlimited data's equivalence margin (estimate and truth alike).
    cache_dir : path, optional
        Where the populations' counts are kept between runs.
    n_jobs : int
        Processes for the populations' pixel passes and for the test sets, threads for their truth (the same
        numbers for any ``n_jobs``).
    progress : bool
    say : callable, optional
        Prints a line of progress.

    Returns
    -------
    (calibration, truth, distances, claims) : DataFrames
        ``calibration``: :data:`CALIBRATION_COLUMNS`, one row per estimator, population and scheme. ``truth``:
        every population's true expected L1 by size (``population, strategy, metric, average, m,
        expected_l1, expected_l1_se``). ``distances``: every test set's distance estimate beside its truth
        (``population, test_set, scheme, m, estimate, plugin, known_prior, low, high, se, posterior_se, sampling_se,
        truth, per_team, band_low, band_high, prior_gap, spread_p``; ``se`` is the two parts added in quadrature),
        from which other summaries can be drawn. ``claims``: every test set's size claim under the reported rule
        and each of :data:`CLAIM_RULES` (``population, test_set, scheme, rule, claim, beyond, truth_at_claim,
        true_need, target, holds``), from which the size rows can be scored again.
    """
    say = say or (lambda *a: None)
    rows, truth_rows, raw, claims, best = [], [], [], [], []
    n = options.test_size
    grid = np.unique(np.round(n * 2.0 ** (np.arange(-12, 25) / 4)).astype(np.int64))  # N/8 .. 64N
    grid = grid[grid >= 2]
    for spec in populations:
        say(f"population {spec.name}: {options.population} encounters")
        counts = population_counts(spec, options.population, seed=options.seed, cache_dir=cache_dir, n_jobs=n_jobs,
                                   progress=progress)
        truth, truth_frames = _truth_of(spec, counts, grid, options, margin, n_jobs)
        truth_rows += truth_frames
        golds, draws = _golds_and_draws(spec, counts, options)
        # a batch carries its test sets' own counts, not the population's: worker processes receive a few hundred
        # images each, not thousands (processes, not threads: the estimators' pandas glue holds the GIL)
        batches = (([(counts.select(images), *g) for images, *g in draws[i:i + 2]], truth, golds, options, margin)
                   for i in range(0, len(draws), 2))
        results = []
        for done in run_batches(_test_set_batch, batches, n_jobs=n_jobs):
            results += done
            if len(results) % 10 == 0 or len(results) == options.test_sets:
                say(f"  {len(results)} of {options.test_sets} test sets")
        rows += summarise_population(results, truth, spec.name, confidence=options.confidence,
                                     test_size=options.test_size, n_runs=len(counts.runs))
        best += [dict(x, scheme=" ".join(truth.schemes[x["scheme"]]), population=spec.name)
                 for r in results for x in r["best"]]
        more_raw, more_claims = _test_set_rows(spec, results, truth, n, size_target(len(counts.runs)))
        raw += more_raw
        claims += more_claims
    rows += averaged(rows, [spec.name for spec in populations if spec.name.startswith("design-")])
    rows += pooled_reliability(best, len(populations), test_sets=options.test_sets)
    return (pd.DataFrame(rows, columns=list(CALIBRATION_COLUMNS)), pd.concat(truth_rows, ignore_index=True),
            pd.DataFrame(raw), pd.DataFrame(claims))
