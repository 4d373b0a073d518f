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
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from robustness.seeds import stream
from robustness.statistics.inference import t_interval
from robustness.statistics.ranks import size_target

if TYPE_CHECKING:
    import pandas as pd

    from robustness.synthetic.challenge import SyntheticConfig

__all__ = ["Setting", "DesignOptions", "setting_config", "population_scores", "simulate", "summarise",
           "recommend", "needed_by_agreement", "SETTING_COLUMNS",
           "simulate_size", "choose_scheme", "simplicity", "SIMPLICITY", "at_setting"]

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


def setting_config(base: SyntheticConfig, setting: Setting, n_encounters: int, *,
                   megapixels: float) -> SyntheticConfig:
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
    """
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
    from robustness.overlap.metrics import macro, micro

    return micro(counts, metric) if average == "micro" else macro(counts, metric)


def _rank_measures(ranks, truth_ranks, scores, population):
    """tau, L1, top-1 and top-3 agreement of one scheme with a truth ranking."""
    from robustness._kernels import kendall_tau_b

    best = int(np.argmax(population))
    first = np.flatnonzero(ranks == ranks.min())
    top = np.argsort(-scores, kind="stable")[:3]
    true_top = np.argsort(-population, kind="stable")[:3]
    return (float(kendall_tau_b(ranks, truth_ranks)), float(np.abs(ranks - truth_ranks).sum()),
            float(best in first) / len(first), len(set(top) & set(true_top)) / min(3, ranks.size))


def population_config(base: SyntheticConfig, setting: Setting, sizes: Iterable[int],
                      options: DesignOptions) -> SyntheticConfig:
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
    ones) whose runs draw with common random numbers (:func:`robustness.synthetic.challenge.pool_counts`).
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
    from robustness.statistics.ranks import rank
    from robustness.synthetic.challenge import draw_population, pool_counts

    config = population_config(base, setting, sizes, options)
    population = draw_population(config, stream(seed, "population", population_index, design=True))
    batches: list[np.ndarray] = []
    batch, total = 0, 0
    limit = options.pool_images * options.pool_growth
    while True:
        n = options.pool_images if not batches else total  # doubling
        n = min(n, limit - total)
        single = replace(config, n_encounters=n, n_images=n, max_images_per_encounter=1)
        batches.append(pool_counts(single, population, n_encounters=n,
                                   rng=stream(seed, "pool", population_index, batch, design=True))[0])
        batch, total = batch + 1, total + n
        pool = np.concatenate(batches, axis=1)
        first = np.arange(pool.shape[1]) < pool.shape[1] // 2
        out: dict[tuple, np.ndarray] = {}
        for m in ("jaccard",):
            for a in ("micro", "macro"):
                out[(m, a)] = _scores_of(pool, m, a)
                halves = rank(_scores_of(pool[:, first], m, a)), rank(_scores_of(pool[:, ~first], m, a))
                out[(m, a, "pool_l1")] = np.array([np.abs(halves[0] - halves[1]).sum() / 2])
        sharp = all(v[0] <= options.pool_l1_target for k, v in out.items() if len(k) == 3)
        if sharp or total >= limit:
            out[("pool_images",)] = np.array([float(total)])
            return out


def simulate(base: SyntheticConfig, setting: Setting, agreements: Iterable[float], sizes: Iterable[int],
             replicate: int, *, population_index: int, population: dict, seed: int,
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
    population_index : int
    population : dict
        The population scores of population ``population_index`` (:func:`population_scores`).
    seed : int
    options : DesignOptions

    Returns
    -------
    (design_rows, coverage_rows) : pandas.DataFrame
        See the module notes.
    """
    import pandas as pd

    from robustness.overlap.pixel_pass import compute_overlap
    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.convergence import rank_convergence
    from robustness.statistics.schemes import schemes_from_counts
    from robustness.statistics.truth import truth_schemes
    from robustness.statistics.uncertainty import ranking_uncertainty
    from robustness.synthetic.challenge import draw_population, make_challenge

    sizes = sorted(int(n) for n in sizes)
    config = population_config(base, setting, sizes, options)
    runs = draw_population(config, stream(seed, "population", population_index, design=True))
    population_scores_ = {k: v for k, v in population.items() if len(k) == 2}
    rows, coverage = [], []
    for agreement in agreements:
        cfg = replace(config, agreement=float(agreement))
        challenge = make_challenge(cfg, rng=stream(seed, "test_set", replicate, design=True), population=runs)
        counts = compute_overlap(challenge, leave_one_out=False, boundary=tuple(options.boundary),
                                 rng=stream(seed, "random_golds", replicate, design=True))
        order = {e: n for n, e in enumerate(dict.fromkeys(counts.encounters))}
        enc_index = np.array([order[e] for e in counts.encounters])
        for n_enc in sizes:
            sub = counts.select(np.flatnonzero(enc_index < n_enc))
            label = dict(encounters=n_enc, annotators=setting.annotators, agreement=float(agreement),
                         spread=setting.spread, runs=setting.runs, correlation=setting.correlation,
                         replicate=replicate, population=population_index, images=sub.n_images)
            by_enc, truth_enc, measured = _scheme_rows(sub, population)
            by_img = schemes_from_counts(sub, unit="image", metrics=["jaccard"])
            n_runs = len(sub.runs)
            conv = rank_convergence(by_img, n_orders=options.n_orders,
                                    rng=stream(seed, "orders", replicate, design=True))
            points = conv.convergence_points(tolerance=float(n_runs))
            per_size, _ = ranking_uncertainty(by_enc, sizes=[by_enc.n_units], n_resamples=0,
                                              rng=stream(seed, "uncertainty", replicate, design=True))
            tau_columns, metric_taus = _metric_taus(sub, options.boundary)
            for s, row in enumerate(measured):
                rows.append(label | row | {
                    "convergence_point": int(points.convergence_n.iloc[s]),
                    "convergence_reached": bool(points.reached.iloc[s]),
                    "expected_l1_estimate": float(per_size.expected_l1.iloc[s]),
                } | metric_taus.get((row["strategy"], row["average"]), dict.fromkeys(tau_columns, np.nan)))
            # coverage of the runs' scores against the truth, by interval method and resampling unit
            for unit in ("encounter", "image"):
                ts = truth_enc if unit == "encounter" else truth_schemes(sub, unit="image", metrics=["jaccard"])
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


def _scheme_rows(sub, population: dict) -> tuple:
    """Every scheme's ranking on the test set ``sub`` against the truth's, on the same images and the population's.

    Returns the schemes (encounter unit), the truth's schemes, and one row of measures per scheme.
    """
    from robustness.statistics.ranks import rank
    from robustness.statistics.schemes import schemes_from_counts
    from robustness.statistics.truth import truth_schemes

    by_enc = schemes_from_counts(sub, unit="encounter", metrics=["jaccard"])
    truth_enc = truth_schemes(sub, unit="encounter", metrics=["jaccard"])
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


def simulate_size(base: SyntheticConfig, setting: Setting, size: int, replicate: int, *, population_index: int,
                  population: dict, seed: int, options: DesignOptions,
                  strategies: Iterable[str] | None = None) -> pd.DataFrame:
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
    population_index : int
    population : dict
        :func:`population_scores` of population ``population_index``.
    seed : int
    options : DesignOptions
    strategies : iterable of str, optional
        The golds to score (default: every default gold).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    from robustness.overlap.pixel_pass import compute_overlap
    from robustness.synthetic.challenge import draw_population, make_challenge

    config = setting_config(base, setting, int(size), megapixels=options.megapixels)
    runs = draw_population(config, stream(seed, "population", population_index, design=True))
    challenge = make_challenge(config, rng=stream(seed, "size_test_set", replicate, size, design=True),
                               population=runs)
    counts = compute_overlap(challenge, strategies=None if strategies is None else list(strategies),
                             leave_one_out=False, rng=stream(seed, "size_random_golds", replicate, size, design=True))
    label = dict(encounters=int(size), annotators=setting.annotators, agreement=float(setting.agreement),
                 spread=setting.spread, runs=setting.runs, correlation=setting.correlation, replicate=replicate,
                 population=population_index, images=counts.n_images)
    rows = [label | row for row in _scheme_rows(counts, population)[2]]
    return pd.DataFrame(rows).assign(convergence_point=np.nan, convergence_reached=False, expected_l1_estimate=np.nan,
                                     stage="size search")


def _metric_taus(counts, boundary) -> tuple[list, dict]:
    """Kendall's tau between macro Jaccard's ranking and each boundary metric's (in its direction), per gold.

    Returns the columns ``tau_jaccard_<metric>`` and ``{(strategy, "macro"): {column: tau}}`` for the pixel-level
    golds (nothing without boundary metrics).
    """
    if not boundary:
        return [], {}
    from robustness._kernels import kendall_tau_b
    from robustness.statistics.metric_agreement import metric_values
    from robustness.statistics.ranks import rank

    columns = [f"tau_jaccard_{m}" for m in boundary]
    out = {}
    for strat in counts.strategies:
        values, lower = metric_values(counts, strat, ["jaccard", *boundary])  # both-empty 'one': no nan
        ranks = rank(np.where(lower, -1.0, 1.0)[:, None] * values.mean(axis=-1))
        out[(strat, "macro")] = {c: float(kendall_tau_b(ranks[0], ranks[k + 1])) for k, c in enumerate(columns)}
    return columns, out


MEASURES = ("tau_same_images", "l1_same_images", "tau_population", "l1_population", "top1_correct",
            "top3_agreement", "convergence_point", "expected_l1_estimate")


@overload
def summarise(design: pd.DataFrame, coverage: None = None) -> pd.DataFrame: ...


@overload
def summarise(design: pd.DataFrame, coverage: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]: ...


def summarise(design: pd.DataFrame,
              coverage: pd.DataFrame | None = None) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Means over replicates with 95% t intervals about runs like these: run populations are the unit.

    Replicates that share a run population are not independent evidence about runs drawn like them, so where
    a setting holds two or more populations the interval is Student's t over the populations' means (P - 1
    degrees of freedom), centred on the mean over replicates; with one population, over its replicates (a claim
    about that population). With one replicate per population (the default) the two coincide.

    Parameters
    ----------
    design : pandas.DataFrame
        :func:`simulate`'s first table, every replicate.
    coverage : pandas.DataFrame, optional
        Its second table.

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, pandas.DataFrame)
        ``design_summary`` (per setting and scheme) and, with ``coverage``, ``coverage_summary`` (per setting,
        metric, averaging, unit and interval method).
    """
    import pandas as pd

    keys = list(SETTING_COLUMNS) + ["strategy", "metric", "average"]
    rows = []
    bounded = {"top1_correct": (0, 1), "top3_agreement": (0, 1), "tau_same_images": (-1, 1), "tau_population": (-1, 1)}
    taus = [c for c in design.columns if c.startswith("tau_jaccard_")]
    measures = list(MEASURES) + taus
    bounded |= dict.fromkeys(taus, (-1, 1))
    for key, d in design.groupby(keys, sort=False):
        row = dict(zip(keys, key), replicates=d.replicate.nunique(), populations=d.population.nunique(),
                   images=float(d.images.mean()))
        for m in measures:
            mean, low, high = _clustered(d, m)
            lo, hi = bounded.get(m, (0, np.inf))  # an interval never leaves the measure's range
            row[m], row[f"{m}_low"], row[f"{m}_high"] = mean, max(low, lo), min(high, hi)
        rows.append(row)
    summary = pd.DataFrame(rows)
    if coverage is None:
        return summary
    ckeys = list(SETTING_COLUMNS) + ["metric", "average", "unit", "method"]
    crow = []
    for key, d in coverage.groupby(ckeys, sort=False):
        mean, low, high = _clustered(d, "coverage")
        crow.append(dict(zip(ckeys, key), coverage=mean, coverage_low=max(low, 0.0), coverage_high=min(high, 1.0),
                         width=float(d.width.mean()), replicates=d.replicate.nunique()))
    return summary, pd.DataFrame(crow)


def _clustered(rows: pd.DataFrame, column: str) -> tuple[float, float, float]:
    """The mean of ``column`` over replicates and its 95% t interval over run populations (see :func:`summarise`)."""
    values = rows[column].to_numpy(dtype=float)
    if rows.population.nunique() < 2 or rows.groupby("population").size().max() == 1:
        return t_interval(values)
    means = rows.assign(_v=values).groupby("population")._v.mean()
    _, low, high = t_interval(means)
    centre = float(np.nanmean(values)) if np.isfinite(values).any() else np.nan
    shift = centre - float(means.mean())  # unequal replicates per population: the interval moves with the mean
    return centre, low + shift, high + shift


def _interpolate_size(sizes, values, target):
    """The size at which ``values`` (decreasing with size, mostly) first falls to ``target``.

    Log-linear interpolation between grid points; nan when it never does; minus the first size when it
    already does there (the size needed is at most that).
    """
    sizes, values = np.asarray(sizes, dtype=float), np.asarray(values, dtype=float)
    below = np.flatnonzero(values <= target)
    if not below.size:
        return np.nan
    i = below[0]
    if i == 0:
        return -sizes[0]
    t = (values[i - 1] - target) / (values[i - 1] - values[i])
    return float(np.exp(np.log(sizes[i - 1]) + t * (np.log(sizes[i]) - np.log(sizes[i - 1]))))


#: The rule that picks one scheme among the tied ones: the simplest gold to state and to reproduce first
#: (majority before STAPLE before the others, in registry order); of its averagings, the one closer to the
#: population ranking on average (micro and macro are equally simple to state).
SIMPLICITY = ("majority", "staple")


def simplicity(strategy: str, average: str, mean_l1: float = 0.0) -> tuple:
    """The sort key of :data:`SIMPLICITY`'s rule (smaller: chosen first).

    Parameters
    ----------
    strategy, average : str
    mean_l1 : float
        The scheme's mean L1 to the population ranking (decides between the averagings of one gold).

    Returns
    -------
    tuple
    """
    from robustness.overlap.gold import STRATEGIES

    order = list(SIMPLICITY) + [n for n in STRATEGIES if n not in SIMPLICITY]
    return (order.index(strategy) if strategy in order else len(order), mean_l1, average != "micro")


def at_setting(frame: pd.DataFrame, base: Setting) -> pd.Series:
    """Rows of ``frame`` (design or summary rows) at the setting ``base``, any size.

    Parameters
    ----------
    frame : pandas.DataFrame
    base : Setting

    Returns
    -------
    pandas.Series of bool
    """
    return ((frame.annotators == base.annotators) & np.isclose(frame.agreement, base.agreement)
            & np.isclose(frame.spread, base.spread) & (frame.runs == base.runs)
            & np.isclose(frame.correlation, base.correlation))


def choose_scheme(design: pd.DataFrame, *, base: Setting, size: int) -> dict:
    """The scheme to recommend at ``base`` and ``size``: the closest to the population ranking, by the rule.

    The candidates are every scheme but the random single-annotator golds. The closest (mean L1 to the
    population ranking over replicates) and the candidates tied with it (Student's t interval of the mean paired
    difference over replicates, Bonferroni; :func:`robustness.statistics.verdicts.best_with_ties`) are found: the
    claim is about the expected distance, not about every single test set; the simplest of them by
    :func:`simplicity` is chosen. The random golds are one scheme, "one random annotator": per averaging the
    mean over the draws and replicates, with the spread of the draws' means.

    Parameters
    ----------
    design : pandas.DataFrame
    base : Setting
    size : int

    Returns
    -------
    dict
        ``verdict`` (Verdict over the candidates' names ``"strategy (average)"``), ``chosen`` (strategy,
        average), ``random`` (DataFrame: average, l1_population and its 95% t interval over replicates of the
        draws' mean, spread_low, spread_high, draws).
    """
    import pandas as pd

    from robustness.overlap.gold import is_random
    from robustness.statistics.verdicts import best_with_ties

    here = design[at_setting(design, base) & (design.encounters == size)]
    random = here.strategy.map(is_random)
    cand = here[~random]
    schemes = list(dict.fromkeys(zip(cand.strategy, cand.average)))
    wide = cand.pivot_table(index=["strategy", "average"], columns="replicate", values="l1_population").loc[schemes]
    verdict = best_with_ties(wide.to_numpy(), [f"{s} ({a})" for s, a in schemes], higher_is_better=False,
                             interval="t")
    tied = [(s, a) for s, a in (t.rstrip(")").split(" (", 1) for t in verdict.tied)]
    means = wide.mean(axis=1)
    chosen = min(tied, key=lambda sa: simplicity(sa[0], sa[1], float(means.loc[sa])))
    rows = []
    for average, d in here[random].groupby("average", sort=False):
        per_replicate = d.groupby(["replicate", "population"]).l1_population.mean().reset_index()
        mean, low, high = _clustered(per_replicate, "l1_population")  # about runs like these (summarise)
        low = max(low, 0.0)  # an L1 is never negative
        draws = d.groupby("strategy").l1_population.mean()
        rows.append({"average": average, "l1_population": mean, "l1_population_low": low,
                     "l1_population_high": high, "spread_low": float(draws.min()), "spread_high": float(draws.max()),
                     "draws": int(draws.size)})
    return {"verdict": verdict, "chosen": chosen, "random": pd.DataFrame(rows)}


def recommend(design: pd.DataFrame, summary: pd.DataFrame, coverage_summary: pd.DataFrame, *, base: Setting,
              size: int, target_top1: float = 0.9, target_l1: float | None = None) -> dict:
    """Plain answers for a challenge like ``base`` with ``size`` test encounters, each with its uncertainty.

    Parameters
    ----------
    design, summary, coverage_summary : pandas.DataFrame
        :func:`simulate`'s (and :func:`simulate_size`'s) rows and :func:`summarise`'s tables.
    base : Setting
        The challenge's own setting.
    size : int
        Its test-set size (a size of the grid).
    target_top1 : float
        The share of replicates with the true best run first to aim for.
    target_l1 : float, optional
        The L1 to the population ranking to aim for (default: :func:`robustness.statistics.ranks.size_target`).

    Returns
    -------
    dict
        The entries below.

    Notes
    -----
    - ``scheme``, ``chosen``, ``random``: :func:`choose_scheme`;
    - ``sizes``: per scheme (not the random golds), the test-set size at which the mean L1 to the population
      ranking falls to the target (and the sizes where the lower and upper ends of its 95% interval over
      replicates do: ``optimistic`` and ``conservative``), and the size at which the population's best run is
      ranked first in ``target_top1`` of replicates; ``largest_size``;
    - ``per_population``: the chosen scheme's size per run population (means over that population's
      replicates): how much the answer depends on which runs take part;
    - ``reach``: the chosen scheme's own distance to the truth (L1 to the truth's ranking on the same images, at
      the largest size) and whether it alone exceeds the target (no size reaches it);
    - ``annotators``: the L1 to the population at equal annotation effort with one annotator more
      (fewer encounters) or fewer;
    - ``calibration`` (majority, micro): the package's estimate of the distance to unlimited
      data against the actual distance to the population ranking, per agreement level (like for like
      at agreement 1, where every gold is the truth), and how often the paper's curve "converged"
      while the test set's ranking was still farther than the tolerance from the population's;
    - ``coverage``: bootstrap interval coverage by unit and method at ``size``.
    """
    import pandas as pd

    from robustness.overlap.gold import is_random

    choice = choose_scheme(design, base=base, size=size)
    n_runs = base.runs
    target = size_target(n_runs, target_l1)
    ss = summary[at_setting(summary, base)]
    sizes = []
    for (strat, average), d in ss.groupby(["strategy", "average"], sort=False):
        if is_random(strat):
            continue
        d = d.sort_values("encounters")
        sizes.append({"strategy": strat, "average": average,
                      "encounters_for_l1": _interpolate_size(d.encounters, d.l1_population, target),
                      "encounters_for_l1_optimistic": _interpolate_size(d.encounters, d.l1_population_low, target),
                      "encounters_for_l1_conservative": _interpolate_size(d.encounters, d.l1_population_high, target),
                      "encounters_for_top1": _interpolate_size(d.encounters, -d.top1_correct, -target_top1),
                      "encounters_for_top1_optimistic": _interpolate_size(d.encounters, -d.top1_correct_high,
                                                                          -target_top1),
                      "encounters_for_top1_conservative": _interpolate_size(d.encounters, -d.top1_correct_low,
                                                                            -target_top1),
                      "largest_size": int(d.encounters.max())})
    strat, average = choice["chosen"]
    mine = design[at_setting(design, base) & (design.strategy == strat) & (design.average == average)]
    per_population = []
    for p, d in mine.groupby("population"):
        means = d.groupby("encounters").l1_population.mean()
        per_population.append({"population": int(p), "replicates": int(d.replicate.nunique()),
                               "encounters_for_l1": _interpolate_size(means.index, means.to_numpy(), target)})
    last = ss[(ss.strategy == strat) & (ss.average == average)].sort_values("encounters").iloc[-1]
    reach: dict[str, Any] = {
        "own_distance": float(last.l1_same_images), "own_distance_low": float(last.l1_same_images_low),
        "own_distance_high": float(last.l1_same_images_high), "encounters": int(last.encounters),
        "unreachable": bool(last.l1_same_images_low > target)}
    # what more or better annotators would give: the same scheme's own distance at the grid's other settings
    other = summary[(summary.strategy == strat) & (summary.average == average) & np.isclose(summary.spread, base.spread)
                    & (summary.runs == base.runs) & np.isclose(summary.correlation, base.correlation)]
    top = other[other.encounters == other.encounters.max()]
    reach["alternatives"] = [{"annotators": int(x.annotators), "agreement": float(x.agreement),
                              "own_distance": float(x.l1_same_images), "encounters": int(x.encounters)}
                             for x in top.itertuples()
                             if not (x.annotators == base.annotators and np.isclose(x.agreement, base.agreement))]
    # more annotators or more images, at equal annotation effort (encounters x annotators)
    effort = []
    for k in sorted(summary.annotators.unique()):
        d = summary[at_setting(summary, Setting(int(k), base.agreement, base.spread, base.runs, base.correlation))]
        for (s_, a_), g in d.groupby(["strategy", "average"], sort=False):
            if is_random(s_):
                continue
            g = g.sort_values("encounters")
            n = size * base.annotators / k
            x, y = np.log(g.encounters.to_numpy(float)), g.l1_population.to_numpy()
            lo, hi = g.l1_population_low.to_numpy(), g.l1_population_high.to_numpy()
            if not x[0] <= np.log(n) <= x[-1]:
                continue
            effort.append({"strategy": s_, "average": a_, "annotators": int(k), "encounters": n,
                           "l1_population": float(np.interp(np.log(n), x, y)),
                           "l1_population_low": float(np.interp(np.log(n), x, lo)),
                           "l1_population_high": float(np.interp(np.log(n), x, hi))})
    # calibration of the package's estimate and optimism of the paper's curve, by agreement and size. The
    # estimate is of the distance to the scheme's *own* population ranking; with agreement 1 every gold
    # is the truth, so there (and only there) the population truth ranking is that ranking: like for like.
    cal = []
    same = (design.annotators == base.annotators) & np.isclose(design.spread, base.spread) & \
        (design.runs == base.runs) & np.isclose(design.correlation, base.correlation) & \
        (design.strategy == "majority") & (design.average == "micro") & design.expected_l1_estimate.notna()
    for (agreement, n_enc), d in design[same].groupby(["agreement", "encounters"]):
        ratio = d.expected_l1_estimate / d.l1_population.where(d.l1_population > 0)
        cal.append({"agreement": float(agreement), "encounters": int(n_enc), "pool_l1": float(d.pool_l1.max()),
                    "expected_l1_estimate": float(d.expected_l1_estimate.mean()),
                    "l1_population": float(d.l1_population.mean()), "ratio_median": float(ratio.median()),
                    "paper_converged_share": float(d.convergence_reached.mean()),
                    "paper_converged_but_far_share": float((d.convergence_reached
                                                           & (d.l1_population > n_runs)).mean()),
                    "paper_point_fraction": float((d.convergence_point / d.images).mean())})
    cov = coverage_summary[(coverage_summary.annotators == base.annotators)
                           & np.isclose(coverage_summary.agreement, base.agreement)
                           & np.isclose(coverage_summary.correlation, base.correlation)
                           & (coverage_summary.encounters == size)]
    return {"scheme": choice["verdict"], "chosen": choice["chosen"], "random": choice["random"],
            "sizes": pd.DataFrame(sizes), "per_population": pd.DataFrame(per_population), "reach": reach,
            "annotators": pd.DataFrame(effort), "calibration": pd.DataFrame(cal), "coverage": cov,
            "n_runs": n_runs, "target_l1": target, "size": size}


def needed_by_agreement(summary: pd.DataFrame, *, target: float) -> pd.DataFrame:
    """Per strategy, averaging and agreement level, the encounters at which the mean L1 falls to ``target``.

    The L1 is to the population ranking.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`summarise`'s table of one setting.
    target : float

    Returns
    -------
    pandas.DataFrame
        ``strategy, average, agreement, needed`` and where the lower and upper ends of its 95% interval over
        replicates do (``needed_low``, ``needed_high``); nan beyond the sizes simulated for it (``largest``: the
        grid's, or the size search's for the schemes it simulated).
    """
    import pandas as pd

    rows = []
    for (strat, average, agreement), d in summary.groupby(["strategy", "average", "agreement"], sort=False):
        d = d.sort_values("encounters")
        size = {c: abs(_interpolate_size(d.encounters, d[f"l1_population{c}"], target)) for c in ("", "_low", "_high")}
        rows.append({"strategy": strat, "average": average, "agreement": agreement, "needed": size[""],
                     "needed_low": size["_low"], "needed_high": size["_high"], "largest": int(d.encounters.max())})
    return pd.DataFrame(rows)
