"""The design study: which gold strategy and averaging, and how many test encounters, from simulations with a truth.

Real data has no ground truth, so a real challenge can only compare gold
strategies with each other. The synthetic challenge knows the latent true
lesion of every image. For a grid of settings (annotators per image, their
agreement, the spread of the runs' quality, the number of runs, the
within-encounter correlation) and ``R`` seeded replicates, this module
generates a test set (the largest size of the grid; smaller sizes are its
first encounters, nested) and, once per run population, an independent pool
of images with the same runs (sharp: independent images, the runs drawn with
common random numbers, doubled until its own L1 to unlimited data is at most
2; :func:`population_scores`), and measures for every scheme (gold strategy x
averaging, Jaccard):

- ``tau_same_images``, ``l1_same_images``: Kendall's tau and L1 between the
  scheme's ranking and the runs' ranking against the true masks on the same
  test images (the gold strategy's bias alone);
- ``tau_population``, ``l1_population``: the same against the runs' ranking
  on the pool (their population ranking: bias plus test-set sampling);
- ``top1_correct`` (the population's best run is ranked first; a tie for
  first counts its share) and ``top3_agreement``;
- ``pair_sd``, ``pair_sd_q75``: the median and upper quartile of the per-unit SDs of the paired differences
  between the scheme's leaderboard neighbours on this test set (:mod:`robustness.statistics.resolution`):
  the twin's resolution at every size follows from them;
- ``convergence_point``: the paper's curve on this test set (images after which
  L1 to the test set's own ranking stays within the number of runs in 95% of
  orders) and ``expected_l1_estimate``: the package's own estimate of the
  distance to unlimited data (:mod:`robustness.statistics.uncertainty`), to be held against
  ``l1_population``; ``pool_l1``: the pool's own distance to unlimited data
  (L1 between the rankings on its two halves, halved; at most 2 unless the
  pool's cap stopped it, which the design study warns about) and
  ``pool_images``;
- ``stage``: ``grid`` for :func:`simulate`'s rows, ``size search`` for :func:`simulate_size`'s (larger test
  sets at the challenge's own setting, distances only);
- with boundary metrics (``DesignOptions.boundary``), ``tau_jaccard_<metric>`` for every macro scheme of a
  pixel-level gold: Kendall's tau between the runs' ranking by macro Jaccard and by that boundary metric (each
  in its direction) against the same gold on the same test set: how much the metric moves the ranking at this
  size (nan for micro schemes and the means over annotators);
- in a second table, the coverage of 95% bootstrap intervals (percentile and
  BCa; encounter and image units) of the runs' scores against the truth,
  judged against their population scores from the pool.

Randomness (SPEC 7): replicate ``r`` draws everything from its named streams
(:data:`robustness.seeds.DESIGN_STREAMS`); settings that differ only in the annotators'
agreement share their images and runs (common random numbers), so their
comparison is paired. Results are identical for any number of jobs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from robustness._kernels import kendall_tau_b
from robustness.overlap.metrics import macro, micro
from robustness.overlap.pixel_pass import OverlapOptions, compute_overlap
from robustness.scheme import DEFAULT
from robustness.seeds import stream
from robustness.simulation import worlds
from robustness.simulation.worlds import RunPopulation
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.metric_agreement import metric_values
from robustness.statistics.ranks import rank
from robustness.statistics.resolution import pair_sd_summary
from robustness.statistics.truth import truth_schemes
from robustness.statistics.uncertainty import ranking_uncertainty
from robustness.synthetic.image_twin import ImageTwinConfig

if TYPE_CHECKING:

    from robustness.synthetic.challenge import SyntheticConfig

__all__ = ["Setting", "DesignOptions", "NewPopulations", "simulate_new_population", "setting_config",
           "population_scores", "simulate", "SETTING_COLUMNS",
           "simulate_size", "METRIC"]

#: The metric every scheme of the design study ranks by. A scheme means one thing in the package, a gold, a metric
#: and an averaging (:class:`~robustness.scheme.Scheme`): the design study's schemes are those with this metric,
#: the default scheme's, so its tables name the gold and the averaging (``strategy``, ``average``) and its verdicts
#: all three.
METRIC = DEFAULT.metric
#: Every pass's options: a design study scores its test sets and never reads the leave-one-out golds.
_COUNTS_ONLY = OverlapOptions(leave_one_out=False)

SETTING_COLUMNS = ("encounters", "annotators", "agreement", "spread", "runs", "correlation")


@dataclass(frozen=True)
class Setting:
    """One point of the grid except the test-set size (sizes are nested within a replicate)."""

    annotators: int
    agreement: float
    spread: float
    runs: int
    correlation: float

    @property
    def key(self) -> str:
        """The setting's name in the cache of replicates."""
        return (f"k{self.annotators}-a{self.agreement:g}-s{self.spread:g}-r{self.runs}-c{self.correlation:g}")


@dataclass(frozen=True)
class DesignOptions:
    """How hard each replicate works: pool size, orders, resamples, image size; the boundary metrics to rank by.

    ``pool_images`` independent images score each run population first; the pool doubles while its own L1 to
    unlimited data exceeds ``pool_l1_target``, up to ``pool_growth`` times the first batch
    (:func:`population_scores`).
    """

    pool_images: int = 25_000
    pool_growth: int = 8
    pool_l1_target: float = 2.0
    n_orders: int = 100
    n_resamples: int = 300
    megapixels: float = 0.0006
    boundary: tuple = ()

    def fingerprint(self) -> str:
        """The options as canonical JSON (part of a design study's identity).

        Returns
        -------
        str
        """
        return json.dumps(asdict(self), sort_keys=True)


def setting_config(base: SyntheticConfig | ImageTwinConfig, setting: Setting, n_encounters: int, *,
                   megapixels: float) -> SyntheticConfig | ImageTwinConfig:
    """The generator's parameters for ``setting`` with ``n_encounters`` encounters.

    Parameters
    ----------
    base : SyntheticConfig
        Everything the setting does not set (images per encounter, lesion sizes...).
    setting : Setting
    n_encounters : int
    megapixels : float
        Size of the simulated images. Volumes (``base.depth``) keep the base's physical size: their in-plane
        voxels grow as their number shrinks (``spacing * sqrt(base.megapixels / megapixels)``), so that distances
        in mm mean what they mean for the base.

    Returns
    -------
    SyntheticConfig
        (or, for the twin made of the challenge's images, :meth:`~robustness.synthetic.image_twin.ImageTwinConfig.at`
        the setting).
    """
    if isinstance(base, ImageTwinConfig):
        return base.at(n_encounters=n_encounters, annotators=setting.annotators, agreement=setting.agreement,
                       run_scale=setting.spread, n_runs=setting.runs)
    spacing = base.spacing
    if base.depth is not None and base.megapixels:
        grow = float(np.sqrt(base.megapixels / megapixels))
        spacing = (spacing[0], spacing[1] * grow, spacing[2] * grow)
    per_encounter = base.n_images / base.n_encounters
    n_images = int(np.clip(round(n_encounters * per_encounter), n_encounters,
                           n_encounters * base.max_images_per_encounter))
    centre = float(np.mean(base.skill_range))
    half = setting.spread / 2
    skill = (float(np.clip(centre - half, 0.02, 0.98)), float(np.clip(centre + half, 0.02, 0.98)))
    return replace(base, n_encounters=n_encounters, n_images=n_images, n_annotators=setting.annotators,
                   min_annotators=setting.annotators, p_all_annotators=1.0, agreement=setting.agreement,
                   skill_range=skill, n_runs=setting.runs, n_teams=min(base.n_teams, setting.runs),
                   encounter_correlation=setting.correlation, size="small", megapixels=megapixels, spacing=spacing)


def _scores_of(counts, metric, average):
    """Scores of every run from per-image counts (R, N, 3) by one metric and averaging."""
    return micro(counts, metric) if average == "micro" else macro(counts, metric)


def _rank_measures(ranks, truth_ranks, scores, population):
    """tau, L1, top-1 and top-3 agreement of one scheme with a truth ranking."""
    best = int(np.argmax(population))
    first = np.flatnonzero(ranks == ranks.min())
    top = np.argsort(-scores, kind="stable")[:3]
    true_top = np.argsort(-population, kind="stable")[:3]
    return (float(kendall_tau_b(ranks, truth_ranks)), float(np.abs(ranks - truth_ranks).sum()),
            float(best in first) / len(first), len(set(top) & set(true_top)) / min(3, ranks.size))


def population_config(base: SyntheticConfig | ImageTwinConfig, setting: Setting, sizes: Iterable[int],
                      options: DesignOptions) -> SyntheticConfig | ImageTwinConfig:
    """The generator's parameters of a replicate's test set (its largest size).

    Parameters
    ----------
    base : SyntheticConfig
    setting : Setting
    sizes : iterable of int
        The grid's test-set sizes.
    options : DesignOptions

    Returns
    -------
    SyntheticConfig
    """
    return setting_config(base, setting, max(int(n) for n in sizes), megapixels=options.megapixels)


def population_scores(base: SyntheticConfig, setting: Setting, sizes: Iterable[int], population_index: int, *,
                      seed: int, options: DesignOptions) -> dict:
    """The runs' population scores against the truth (Jaccard, micro and macro), from a pool of fresh images.

    The pool is sharp by construction: independent images (one per encounter: an image's distribution does not
    depend on its encounter's other images, and independent images carry more information than correlated
    ones) whose runs draw with common random numbers (:func:`robustness.synthetic.pools.pool_counts`).
    Its own distance to unlimited data, ``pool_l1``, is the L1 between the rankings on its two halves, halved
    (each half has twice the whole pool's variance, and the two differ by both). The pool starts at
    ``options.pool_images`` and doubles (each new batch from its own stream) while ``pool_l1`` exceeds
    ``options.pool_l1_target`` under either averaging, up to ``options.pool_growth`` times the first batch.

    Population ``p`` (its runs) is drawn from stream ``population`` and its pool's batch ``b`` from stream
    ``pool`` ``(p, b)`` of :data:`robustness.seeds.DESIGN_STREAMS`; the number of annotators does not enter.

    Parameters
    ----------
    base : SyntheticConfig
    setting : Setting
    sizes : iterable of int
    population_index : int
    seed : int
    options : DesignOptions

    Returns
    -------
    dict
        ``(metric, average)`` -> every run's score on the pool; ``(metric, average, "pool_l1")`` -> the pool's
        own distance to unlimited data; ``("pool_images",)`` -> the pool's images.
    """
    config = population_config(base, setting, sizes, options)
    population = worlds.population(config, population_index, seed=seed)
    batches: list[np.ndarray] = []
    batch, total = 0, 0
    first = worlds.pool_start(config, options.pool_images)
    limit = first * options.pool_growth
    while True:
        n = first if not batches else total  # doubling
        n = min(n, limit - total)
        batches.append(worlds.pool(config, population, n_images=n,
                                   rng=stream(seed, "pool", population_index, batch, design=True)))
        batch, total = batch + 1, total + n
        pool = np.concatenate(batches, axis=1)
        first = np.arange(pool.shape[1]) < pool.shape[1] // 2
        out: dict[tuple, np.ndarray] = {}
        for m in (METRIC,):
            for a in ("micro", "macro"):
                out[(m, a)] = _scores_of(pool, m, a)
                halves = rank(_scores_of(pool[:, first], m, a)), rank(_scores_of(pool[:, ~first], m, a))
                out[(m, a, "pool_l1")] = np.array([np.abs(halves[0] - halves[1]).sum() / 2])
        sharp = all(v[0] <= options.pool_l1_target for k, v in out.items() if len(k) == 3)
        if sharp or total >= limit:
            out[("pool_images",)] = np.array([float(total)])
            return out


def simulate(base: SyntheticConfig, setting: Setting, agreements: Iterable[float], sizes: Iterable[int],
             replicate: int, *, population: RunPopulation, seed: int,
             options: DesignOptions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One replicate of one setting, for every agreement level and every nested test-set size.

    Parameters
    ----------
    base : SyntheticConfig
    setting : Setting
    agreements : iterable of float
        The agreement levels (common random numbers: the same images and runs).
    sizes : iterable of int
        Nested test-set sizes (the first encounters of the largest).
    replicate : int
        Its test set draws from stream ``test_set`` (:data:`robustness.seeds.DESIGN_STREAMS`).
    population : RunPopulation
        Its run population and that population's scores (:func:`population_scores`).
    seed : int
    options : DesignOptions

    Returns
    -------
    (design_rows, coverage_rows) : pandas.DataFrame
        See the module notes.
    """
    sizes = sorted(int(n) for n in sizes)
    config = population_config(base, setting, sizes, options)
    population_index, scores = population
    runs = worlds.population(config, population_index, seed=seed)
    population_scores_ = {k: v for k, v in scores.items() if len(k) == 2}
    rows, coverage = [], []
    for agreement in agreements:
        cfg = worlds.with_agreement(config, agreement)
        challenge = worlds.challenge(cfg, rng=stream(seed, "test_set", replicate, design=True), population=runs)
        counts = compute_overlap(challenge, boundary=tuple(options.boundary), options=_COUNTS_ONLY,
                                 rng=stream(seed, "random_golds", replicate, design=True))
        for n_enc, sub in _prefixes(counts, sizes):
            label = dict(encounters=n_enc, annotators=setting.annotators, agreement=float(agreement),
                         spread=setting.spread, runs=setting.runs, correlation=setting.correlation,
                         replicate=replicate, population=population_index, images=sub.n_images)
            by_enc, truth_enc, measured = _scheme_rows(sub, scores)
            by_img = schemes_from_counts(sub, unit="image", metrics=[METRIC])
            n_runs = len(sub.runs)
            conv = rank_convergence(by_img, n_orders=options.n_orders,
                                    rng=stream(seed, "orders", replicate, design=True))
            points = conv.convergence_points(tolerance=float(n_runs))
            per_size, _ = ranking_uncertainty(by_enc, sizes=[by_enc.n_units], n_resamples=0,
                                              rng=stream(seed, "uncertainty", replicate, design=True))
            sd_median, sd_q75 = pair_sd_summary(by_enc)
            tau_columns, metric_taus = _metric_taus(sub, options.boundary)
            for s, row in enumerate(measured):
                rows.append(label | row | {
                    "convergence_point": int(points.convergence_n.iloc[s]),
                    "convergence_reached": bool(points.reached.iloc[s]),
                    "expected_l1_estimate": float(per_size.expected_l1.iloc[s]),
                    "pair_sd": float(sd_median[s]), "pair_sd_q75": float(sd_q75[s]),
                } | metric_taus.get((row["strategy"], row["average"]), dict.fromkeys(tau_columns, np.nan)))
            # coverage of the runs' scores against the truth, by interval method and resampling unit
            for unit in ("encounter", "image"):
                ts = truth_enc if unit == "encounter" else truth_schemes(sub, unit="image", metrics=[METRIC])
                boot = bootstrap(ts, n_resamples=options.n_resamples,
                                 rng=stream(seed, "coverage", replicate, design=True))
                for method in ("percentile", "bca"):
                    ci = boot.intervals(method=method)
                    for (metric, average), d in ci.groupby(["metric", "average"], sort=False):
                        true = population_scores_[(metric, average)]
                        inside = (d.low.to_numpy() <= true) & (true <= d.high.to_numpy())
                        coverage.append(label | {"metric": metric, "average": average, "unit": unit,
                                                 "method": method, "coverage": float(inside.mean()),
                                                 "width": float((d.high - d.low).mean())})
    return pd.DataFrame(rows).assign(stage="grid"), pd.DataFrame(coverage)


def _prefixes(counts, sizes: list[int]) -> Iterator[tuple[int, Any]]:
    """Each nested test set: the first ``n`` encounters of ``counts`` (in their order) for every ``n`` of ``sizes``."""
    order = {e: n for n, e in enumerate(dict.fromkeys(counts.encounters))}
    enc_index = np.array([order[e] for e in counts.encounters])
    for n_enc in sizes:
        yield n_enc, counts.select(np.flatnonzero(enc_index < n_enc))


def _scheme_rows(sub, population: dict) -> tuple:
    """Every scheme's ranking on the test set ``sub`` against the truth's, on the same images and the population's.

    Returns the schemes (encounter unit), the truth's schemes, and one row of measures per scheme.
    """
    by_enc = schemes_from_counts(sub, unit="encounter", metrics=[METRIC])
    truth_enc = truth_schemes(sub, unit="encounter", metrics=[METRIC])
    scores = by_enc.scores()
    ranks = rank(scores)
    truth_scores = truth_enc.scores()
    rows = []
    for s, (strat, metric, average) in enumerate(by_enc.names):
        t = truth_enc.index("truth", metric, average)
        same = _rank_measures(ranks[s], rank(truth_scores[t]), scores[s], truth_scores[t])
        pop = _rank_measures(ranks[s], rank(population[(metric, average)]), scores[s], population[(metric, average)])
        rows.append({"strategy": strat, "metric": metric, "average": average,
                     "tau_same_images": same[0], "l1_same_images": same[1],
                     "tau_population": pop[0], "l1_population": pop[1], "top1_correct": pop[2],
                     "top3_agreement": pop[3], "pool_l1": float(population[(metric, average, "pool_l1")][0]),
                     "pool_images": int(population[("pool_images",)][0])})
    return by_enc, truth_enc, rows


def simulate_size(base: SyntheticConfig, setting: Setting, size: int, replicate: int, *, population: RunPopulation,
                  seed: int, options: DesignOptions, strategies: Iterable[str] | None = None) -> pd.DataFrame:
    """One replicate of a larger test set at one setting: only the rankings' distances (the size search).

    The test set of ``size`` encounters draws from stream ``size_test_set`` ``(replicate, size)`` and its random
    golds from ``size_random_golds`` (:data:`robustness.seeds.DESIGN_STREAMS`); the rows are :func:`simulate`'s
    without the paper's curve, the package's estimate and the coverage (nan).

    Parameters
    ----------
    base : SyntheticConfig
    setting : Setting
        Its agreement is the one simulated.
    size : int
    replicate : int
    population : RunPopulation
    seed : int
    options : DesignOptions
    strategies : iterable of str, optional
        The golds to score (default: every default gold).

    Returns
    -------
    pandas.DataFrame
    """
    config = setting_config(base, setting, int(size), megapixels=options.megapixels)
    runs = worlds.population(config, population.number, seed=seed)
    challenge = worlds.challenge(config, rng=stream(seed, "size_test_set", replicate, size, design=True),
                                 population=runs)
    counts = compute_overlap(challenge, strategies=None if strategies is None else list(strategies),
                             options=_COUNTS_ONLY, rng=stream(seed, "size_random_golds", replicate, size, design=True))
    return _distance_rows([(int(size), counts)], setting, replicate=replicate, population=population,
                          stage="size search")


def _distance_rows(test_sets: Iterable[tuple[int, Any]], setting: Setting, *, replicate: int,
                   population: RunPopulation, stage: str) -> pd.DataFrame:
    """Every scheme's distances on each ``(size, counts)`` test set, labelled; no curve, estimate or coverage (nan)."""
    rows = []
    for n_enc, sub in test_sets:
        label = dict(encounters=n_enc, annotators=setting.annotators, agreement=float(setting.agreement),
                     spread=setting.spread, runs=setting.runs, correlation=setting.correlation, replicate=replicate,
                     population=population.number, images=sub.n_images)
        rows += [label | row for row in _scheme_rows(sub, population.scores)[2]]
    return pd.DataFrame(rows).assign(convergence_point=np.nan, convergence_reached=False, expected_l1_estimate=np.nan,
                                     stage=stage)


@dataclass(frozen=True)
class NewPopulations:
    """Run populations a design study never drew, and what to measure on each.

    Attributes
    ----------
    setting : Setting
        The setting simulated (the study's own).
    sizes : tuple of int
        Test-set sizes.
    populations : tuple of int
        The run populations' indices (beyond the study's own: its ``population`` stream, so drawn like them).
    test_sets : int
        Per population and size.
    strategies : tuple of str or None
        The golds scored (None: every default gold).
    """

    setting: Setting
    sizes: tuple
    populations: tuple
    test_sets: int
    strategies: tuple | None = None


def simulate_new_population(base: SyntheticConfig, plan: NewPopulations, test_set: int, *,
                            population: RunPopulation, seed: int, options: DesignOptions) -> pd.DataFrame:
    """One test set of a run population a study never drew, at every nested size: the rankings' distances.

    The test set of the largest size draws from stream ``new_population_test_set`` ``(population.number,
    test_set)`` and its random golds from ``new_population_random_golds`` (:data:`robustness.seeds.DESIGN_STREAMS`:
    never a study's own); every smaller size is its first encounters, as in :func:`simulate`. The rows are
    :func:`simulate_size`'s (``replicate`` is ``test_set``; ``stage`` is ``new population``).

    Parameters
    ----------
    base : SyntheticConfig
    plan : NewPopulations
        The setting, the sizes and the golds scored.
    test_set : int
    population : RunPopulation
    seed : int
    options : DesignOptions

    Returns
    -------
    pandas.DataFrame
    """
    population_index = population.number
    setting, strategies = plan.setting, plan.strategies
    sizes = sorted(int(n) for n in plan.sizes)
    config = setting_config(base, setting, sizes[-1], megapixels=options.megapixels)
    runs = worlds.population(config, population_index, seed=seed)
    challenge = worlds.challenge(config, rng=stream(seed, "new_population_test_set", population_index, test_set,
                                                    design=True), population=runs)
    counts = compute_overlap(challenge, strategies=None if strategies is None else list(strategies),
                             options=_COUNTS_ONLY, rng=stream(seed, "new_population_random_golds", population_index,
                                                             test_set, design=True))
    return _distance_rows(_prefixes(counts, sizes), setting, replicate=test_set, population=population,
                          stage="new population")



def _metric_taus(counts, boundary) -> tuple[list, dict]:
    """Kendall's tau between macro Jaccard's ranking and each boundary metric's (in its direction), per gold.

    Returns the columns ``tau_jaccard_<metric>`` and ``{(strategy, "macro"): {column: tau}}`` for the pixel-level
    golds (nothing without boundary metrics).
    """
    if not boundary:
        return [], {}

    columns = [f"tau_jaccard_{m}" for m in boundary]
    out = {}
    for strat in counts.strategies:
        values, lower = metric_values(counts, strat, [METRIC, *boundary])  # both-empty 'one': no nan
        ranks = rank(np.where(lower, -1.0, 1.0)[:, None] * values.mean(axis=-1))
        out[(strat, "macro")] = {c: float(kendall_tau_b(ranks[0], ranks[k + 1])) for k, c in enumerate(columns)}
    return columns, out
