"""The populations of the calibration and their truth.

A population is a generator config with its runs; its counts are one large synthetic challenge (cached); its
truth is what every claim is checked against (the expected L1 of test sets of each size, from many test sets
drawn from the population; each gold's own convergence).

:mod:`robustness.simulation.calibration` draws test sets from these populations and scores the package's claims.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robustness import _kernels
from robustness.overlap import OverlapOptions, compute_overlap
from robustness.overlap.counts import load_counts, save_counts
from robustness.parallel import run_batches
from robustness.seeds import stream
from robustness.simulation import worlds
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.resolution import pair_sd_summary
from robustness.statistics.uncertainty import crossing
from robustness.synthetic.challenge import SyntheticConfig, draw_population
from robustness.synthetic.image_twin import ImageTwinConfig, TwinPopulation

if TYPE_CHECKING:
    from robustness.overlap.counts import OverlapCounts
    from robustness.statistics.schemes import Schemes
    from robustness.synthetic.challenge import Population, SyntheticConfig

__all__ = ["PopulationSpec", "PopulationTruth", "default_populations", "population_counts", "population_truth",
           "gold_truth", "gold_schemes", "encounter_schemes", "GOLDS", "held_out_populations", "mixed_population"]

#: The golds whose curves the calibration compares (the gold statements of the main job's report).
GOLDS = ("majority", "intersection", "union", "staple")


@dataclass(frozen=True)
class PopulationSpec:
    """One population: a generator config and its runs.

    Attributes
    ----------
    name : str
        How calibration.csv names it (``default``, ``design-0``, ``like``...).
    config : SyntheticConfig or ImageTwinConfig
    runs : Population or TwinPopulation
    index : int
        Its random streams' index (distinct populations get distinct images and test sets).
    """

    name: str
    config: SyntheticConfig | ImageTwinConfig
    runs: Population | TwinPopulation
    index: int = 0


def default_populations(n_design: int = 1, *, seed: int = 0) -> list[PopulationSpec]:
    """The default challenge's runs and the first ``n_design`` run populations of the default design study.

    Parameters
    ----------
    n_design : int
        How many of the design study's run populations (its streams ``population`` 0, 1, ...).
    seed : int
        The design study's seed.

    Returns
    -------
    list of PopulationSpec
    """
    config = SyntheticConfig()
    out = [PopulationSpec("default", config, draw_population(config, np.random.default_rng(0).spawn(2)[0]), 0)]
    for p in range(n_design):
        out.append(PopulationSpec(f"design-{p}", config,
                                  draw_population(config, stream(seed, "population", p, design=True)), 1 + p))
    return out




def held_out_populations(*, seed: int = 0) -> list[PopulationSpec]:
    """Populations unlike those the estimator was tuned on: a tight team beside loose ones, few runs alone, two teams.

    ``tight``: a draw of the default design study's generator (its own stream) whose largest team keeps a tenth of
    its runs' spread in skill and bias around the team's mean while the other teams' spread is doubled: near-ties
    inside one team that no test set of 100 encounters resolves. ``few``: six runs, each its own team (no team of
    two or more runs: the one-level prior, where the prior-sensitivity band's other end is the plug-in). ``mixed``:
    16 runs in two teams whose spreads lie ten times apart (:func:`mixed_population`). All from streams the tuning
    never used (issues "Honest where one test set cannot tell" and "Where one team is tighter than the noise").

    Parameters
    ----------
    seed : int

    Returns
    -------
    list of PopulationSpec
    """
    config = SyntheticConfig()
    runs = draw_population(config, stream(seed, "population", 1000, design=True))
    teams = np.asarray(runs.team_of)
    names, sizes = np.unique(teams, return_counts=True)
    largest = names[np.argmax(sizes)]
    skill, bias = runs.run_skill.copy(), runs.run_bias.copy()
    for team in names:
        at = teams == team
        keep = 0.1 if team == largest else 2.0
        skill[at] = np.clip(skill[at].mean() + keep * (skill[at] - skill[at].mean()), 0.02, 0.98)
        bias[at] = bias[at].mean() + keep * (bias[at] - bias[at].mean())
    tight = PopulationSpec("tight", config, replace(runs, run_skill=skill, run_bias=bias), index=200)
    few_config = replace(config, n_runs=6, n_teams=6)
    few = PopulationSpec("few", few_config, draw_population(few_config, stream(seed, "population", 1001, design=True)),
                         index=201)
    return [tight, few, mixed_population(seed=seed)]


def mixed_population(*, seed: int = 0) -> PopulationSpec:
    """Sixteen runs in two teams whose within-team spreads lie ten times apart (issue "Where one team is tighter").

    A draw of the default generator with 16 runs in 2 teams of skills near 0.5 and 0.6 (its own stream), each
    team's runs then spread about the team's mean skill and bias with SDs of 0.1 in skill and the generator's run
    bias SD (the second team) or a tenth of both (the first): one team's runs lie closer together than a test
    set's noise resolves, the other's do not.

    Parameters
    ----------
    seed : int

    Returns
    -------
    PopulationSpec
        Named ``mixed``.
    """
    config = replace(SyntheticConfig(), n_runs=16, n_teams=2, skill_range=(0.5, 0.6))  # teams a few places apart
    runs = draw_population(config, stream(seed, "population", 1002, design=True))
    teams = np.asarray(runs.team_of)
    names = np.unique(teams)
    skill, bias = runs.run_skill.copy(), runs.run_bias.copy()
    # each team's deviations rescaled to SDs of 0.1 in skill and the generator's run bias SD (the loose team) or a
    # tenth of both (the tight team): score SDs near 0.05 and 0.005, ten times apart
    for team, keep in zip(names, (0.1, 1.0)):
        at = teams == team
        for v, sd in ((skill, 0.1), (bias, config.run_bias_sd)):
            dev = v[at] - v[at].mean()
            v[at] = v[at].mean() + keep * sd * dev / np.std(dev)
    return PopulationSpec("mixed", config, replace(runs, run_skill=skill, run_bias=bias), index=202)


def _key(spec: PopulationSpec, n_encounters: int, seed: int) -> str:
    r = spec.runs
    runs = ({"offset": np.asarray(r.offset).round(12).tolist(),
             "log_wobble": np.asarray(r.log_wobble).round(12).tolist()} if isinstance(r, TwinPopulation) else
            {"skill": np.asarray(r.run_skill).round(12).tolist(), "bias": np.asarray(r.run_bias).round(12).tolist()})
    payload = json.dumps({"config": worlds.record(spec.config), "runs": spec.runs.runs, **runs,
                          "encounters": n_encounters, "seed": seed, "index": spec.index, "golds": GOLDS},
                         sort_keys=True,
                         default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def population_counts(spec: PopulationSpec, n_encounters: int, *, seed: int = 0, cache_dir: Path | str | None = None,
                      n_jobs: int = 1, progress: bool = False) -> OverlapCounts:
    """The overlap counts of a population of ``n_encounters`` encounters (majority gold), cached by content.

    Parameters
    ----------
    spec : PopulationSpec
    n_encounters : int
    seed : int
        Seed of the population's images.
    cache_dir : path, optional
        Where ``population-<key>.npz`` is kept between runs.
    n_jobs : int
    progress : bool

    Returns
    -------
    OverlapCounts
    """
    path = None
    if cache_dir is not None:
        path = Path(cache_dir) / f"population-{_key(spec, n_encounters, seed)}.npz"
        if path.is_file():
            try:
                return load_counts(path)
            except (OSError, ValueError, KeyError):
                pass  # damaged: counted again below and replaced
    per_image = spec.config.n_images / spec.config.n_encounters
    config = (spec.config.at(n_encounters=n_encounters) if isinstance(spec.config, ImageTwinConfig) else
              replace(spec.config, n_encounters=n_encounters, n_images=int(round(n_encounters * per_image))))
    challenge = worlds.challenge(config, rng=stream(seed, "images", spec.index, calibration=True),
                                 population=spec.runs)
    counts = compute_overlap(challenge, strategies=list(GOLDS), n_jobs=n_jobs, progress=progress, rng=0,
                             options=OverlapOptions(leave_one_out=False))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_counts(counts, path)
    return counts


def gold_schemes(counts: OverlapCounts) -> Schemes:
    """The golds' Jaccard schemes on the image unit (the main job's curves).

    Parameters
    ----------
    counts : OverlapCounts

    Returns
    -------
    Schemes
    """
    return schemes_from_counts(counts, unit="image", strategies=list(GOLDS), metrics=["jaccard"], annotators=[])


def gold_truth(counts: OverlapCounts, images_of: list[np.ndarray], n: int, *, draws: int, n_orders: int,
               rng: np.random.Generator) -> tuple[list, np.ndarray, np.ndarray]:
    """Each gold's expected area under its convergence curve on a new test set of ``n`` encounters.

    Parameters
    ----------
    counts : OverlapCounts
        The population.
    images_of : list of ndarray
        The images of every encounter.
    n : int
        Encounters per test set.
    draws : int
        Test sets drawn (without replacement) from the population.
    n_orders : int
        Orders per test set.
    rng : numpy.random.Generator

    Returns
    -------
    (names, mean, se) : list of (strategy, metric, average), ndarray (S,), ndarray (S,)
    """
    found = []
    for _ in range(draws):
        chosen = rng.choice(len(images_of), n, replace=False)
        test = gold_schemes(counts.select(np.concatenate([images_of[k] for k in np.sort(chosen)])))
        found.append(rank_convergence(test, n_orders=n_orders, rng=rng.spawn(1)[0]).order_auc().mean(axis=1))
    aucs = np.array(found)
    return list(test.names), aucs.mean(axis=0), aucs.std(axis=0, ddof=1) / np.sqrt(draws)


def encounter_schemes(counts: OverlapCounts) -> Schemes:
    """The official schemes (majority, micro and macro Jaccard) on the encounter unit.

    Parameters
    ----------
    counts : OverlapCounts

    Returns
    -------
    Schemes
    """
    return schemes_from_counts(counts, unit="encounter", strategies=["majority"], metrics=["jaccard"],
                               annotators=[])


@dataclass(frozen=True)
class PopulationTruth:
    """What the population knows: its scores, and the expected L1 at each size.

    Attributes
    ----------
    schemes : list of (strategy, metric, average)
    scores : ndarray (S, R)
    sizes : ndarray of int (M,)
    expected_l1 : ndarray (S, M)
        Over ``truth_draws`` samples of each size drawn with replacement from the population's encounters.
    expected_l1_se : ndarray (S, M)
    signs : ndarray (S,)
        +1, or -1 where the scores are a smaller-is-better metric's negative.
    pair_sd : ndarray (S,)
        The median per-unit SD of the paired differences between neighbours in the population's ranking
        (:func:`robustness.statistics.resolution.pair_sd_summary`).
    resolution : ndarray (S,)
        The population's resolution at the test sets' size (:func:`robustness.statistics.resolution.
        detectable_difference` at ``pair_sd``; nan until the size is known).
    spread_p : ndarray (S,)
        Whether the population's teams differ in spread: the p-value of
        :func:`~robustness.statistics.population.spread_test` on the population's own scores without noise (nan
        with fewer than two teams of two or more runs, or until computed).
    """

    schemes: list
    scores: np.ndarray
    sizes: np.ndarray
    expected_l1: np.ndarray
    expected_l1_se: np.ndarray
    signs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    pair_sd: np.ndarray = field(default_factory=lambda: np.zeros(0))
    resolution: np.ndarray = field(default_factory=lambda: np.zeros(0))
    spread_p: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def at(self, s: int, m: float) -> float:
        """The true expected L1 of scheme ``s`` at size ``m`` (log-linear interpolation on the grid).

        Parameters
        ----------
        s : int
        m : float

        Returns
        -------
        float
        """
        return float(np.interp(np.log(m), np.log(self.sizes), self.expected_l1[s]))

    def needed(self, s: int, target: float) -> float:
        """The size at which the true expected L1 of scheme ``s`` falls to ``target`` (nan beyond the grid).

        Parameters
        ----------
        s : int
        target : float

        Returns
        -------
        float
        """
        return crossing(self.sizes, self.expected_l1[s], target)[0]


def _truth_batch(sch: Schemes, theta: np.ndarray, idx: np.ndarray, margin: float) -> np.ndarray:
    """The L1 of each scheme on the resamples ``idx`` (B, m) of the population's units: (S, B)."""
    scores = sch.resample_scores(idx)  # (S, B, R)
    return np.stack([_kernels.margin_l1(theta[s][None], scores[s] - theta[s][None], 1.0, margin)[0]
                     for s in range(len(sch.names))])


def population_truth(counts: OverlapCounts, *, sizes: np.ndarray, draws: int = 1000, margin: float = 0.0,
                     rng: np.random.Generator | int | None = None, n_jobs: int = 1) -> PopulationTruth:
    """The population's scores and its true expected L1 at every size (sampling the population itself).

    Parameters
    ----------
    counts : OverlapCounts
        The population.
    sizes : array of int
        Test-set sizes in encounters.
    draws : int
        Samples per size (with replacement: the population is the distribution).
    margin : float
        Runs within it in the population count as tied.
    rng : None, int or numpy.random.Generator
    n_jobs : int
        Threads sharing the resamples (their kernels release the GIL); the same numbers for any ``n_jobs``: the
        resamples are drawn here, in order, as the threads ask for them.

    Returns
    -------
    PopulationTruth
    """
    rng = np.random.default_rng(rng)
    sch = encounter_schemes(counts)
    theta = sch.scores()
    sizes = np.asarray(sizes, dtype=np.int64)
    e = np.empty((len(sch.names), sizes.size))
    se = np.empty_like(e)
    batch = 100
    starts = range(0, draws, batch)
    resamples = ((sch, theta, rng.integers(0, sch.n_units, (min(batch, draws - start), int(m))), margin)
                 for m in sizes for start in starts)  # drawn lazily, in the order of a loop over sizes and batches
    done = run_batches(_truth_batch, resamples, n_jobs=n_jobs, prefer="threads")
    for k in range(sizes.size):
        l1 = np.concatenate([next(done) for _ in starts], axis=1)
        e[:, k], se[:, k] = l1.mean(axis=1), l1.std(axis=1, ddof=1) / np.sqrt(l1.shape[1])
    pair_sd, _ = pair_sd_summary(sch)
    return PopulationTruth(schemes=list(sch.names), scores=theta, sizes=sizes, expected_l1=e, expected_l1_se=se,
                           signs=sch.sign_of, pair_sd=pair_sd, resolution=np.full(len(sch.names), np.nan))
