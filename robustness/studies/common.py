"""What the resampling studies share: their options, the resampling step per ranking method, and their tables.

The main job, the per-case table study and the QA study rank the same kind of
:class:`~robustness.statistics.schemes.Schemes` under every ranking method of
:attr:`ResamplingOptions.ranking`: convergence curves over random orders, a
bootstrap of the units (the same resamples for every method: paired), the
distance to unlimited data, the significance analysis and the agreement between
rankings, each written as a registered table (:mod:`robustness.results.study_result`);
the verdicts the reports state on them are :mod:`robustness.studies.resampling_verdicts`'.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robustness import seeds
from robustness.errors import parameter
from robustness.kernel_threads import threads_for_kernels
from robustness.statistics.bootstrap import SCORE_INTERVAL
from robustness.statistics.bootstrap import bootstrap as run_bootstrap
from robustness.statistics.comparisons import pairwise_comparisons, ranking_agreement
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.convergence_options import ConvergenceOptions
from robustness.statistics.population import ESTIMATOR, GROUP_RULES
from robustness.statistics.ranking_methods import DEFAULT_RANKING, TEST_STEP, get_ranking, prepare, recomputed
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import size_target, target_record
from robustness.statistics.uncertainty import CLAIM_CONFIDENCE, ranking_uncertainty, units_needed
from robustness.statistics.uncertainty_options import UncertaintyOptions

if TYPE_CHECKING:

    from robustness.statistics.schemes import Schemes

__all__ = ["methods_meta", "ResamplingOptions", "Resampled", "resample", "convergence_tables", "bootstrap_tables",
           "uncertainty_tables", "method_columns", "only", "CURVE_ROWS", "TEST_STEP"]

#: curves.parquet holds every order's curve up to this many rows (more: the first orders that fit, or all_curves).
CURVE_ROWS = 5_000_000


@dataclass(frozen=True)
class ResamplingOptions:
    """The options every resampling study shares (the command line's ``--orders`` ... ``--seed``).

    Attributes
    ----------
    orders : int
        Random orders of units for the convergence curves.
    step : int
        Record every ``step``-th prefix (additive ranking methods).
    bootstrap : int
        Bootstrap resamples of units.
    ranking : tuple of str
        Ranking methods (the default one first: the significance analysis and the distance to unlimited data use
        it).
    test_step : int
        Non-additive methods (test-based) record every ``test_step``-th prefix of the resampling unit.
    tolerance : float
        L1 at or below this counts as converged (besides the size target).
    target : float or None
        The target expected L1 of the size answers (None: :func:`robustness.statistics.ranks.size_target`, one
        place per run or a tenth of a random order's distance, whichever is smaller).
    seed : int
        Seed of every random stream (:mod:`robustness.seeds`).
    all_curves : bool
        Write every order's curve to curves.parquet (default: up to :data:`CURVE_ROWS` rows).
    outer : int
        Outer resamples of units behind the interval of the distance to unlimited data
        (:func:`robustness.statistics.uncertainty.ranking_uncertainty`).
    margin : float
        Runs whose population scores differ by at most this count as tied in the distance to unlimited data.
    run_groups : str
        How the runs' groups (teams) of that estimate's prior are found: 'auto' (from the run names) or 'none'.
    ties : str
        The tie rule of every ranking the engines form (average, min, max, first:
        :func:`robustness.statistics.ranks.rank`; not random: the curves need one final ranking).
    alpha, adjustment : float, str
        The test-based ranking's level and adjustment over the pairs (any of
        :data:`robustness.statistics.ranking_options.ADJUSTMENTS`).
    aggregate, test, continuity : str or float, str, bool
        The other ranking options the engines honour (:class:`robustness.statistics.ranking_options.RankingOptions`).
    """

    orders: int = 200
    step: int = 1
    bootstrap: int = 1000
    ranking: tuple = DEFAULT_RANKING
    test_step: int = TEST_STEP
    tolerance: float = 0.0
    seed: int = 0
    all_curves: bool = False
    outer: int = 200
    margin: float = 0.0
    run_groups: str = "auto"
    ties: str = "average"
    alpha: float = 0.05
    adjustment: str = "holm"
    target: float | None = None
    aggregate: str | float = "mean"
    test: str = "wilcoxon"
    continuity: bool = False

    def __post_init__(self) -> None:
        """Check the values; put the default ranking method first."""
        for name in ("orders", "step", "bootstrap", "test_step"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if int(self.outer) < 2:
            raise ValueError(f"outer must be >= 2, got {self.outer!r}")
        for name in ("tolerance", "margin") + (("target",) if self.target is not None else ()):
            if not (getattr(self, name) >= 0 and np.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be a finite number >= 0, got {getattr(self, name)!r}")
        rope = getattr(self, "rope", None)  # the per-case studies' Bayesian signed-rank test
        if rope is not None and not (np.isfinite(rope) and rope > 0):
            raise ValueError(f"rope must be a finite number > 0, got {rope!r}")
        if self.ties == "random":
            raise ValueError("ties random: the curves and intervals compare thousands of prefixes and resamples "
                             "with one final ranking and need a fixed tie rule (average, min, max or first)")
        object.__setattr__(self, "aggregate", self.ranking_options().aggregate)  # checks every ranking option
        if self.run_groups not in GROUP_RULES:
            raise ValueError(f"run_groups must be one of {GROUP_RULES}, got {self.run_groups!r}")
        ranking = tuple(dict.fromkeys(DEFAULT_RANKING + tuple(self.ranking)))
        for name in ranking:
            get_ranking(name)
        object.__setattr__(self, "ranking", ranking)

    def ranking_options(self) -> RankingOptions:
        """The ranking options of the engines' rankings.

        Returns
        -------
        RankingOptions
        """
        return RankingOptions(ties=self.ties, aggregate=self.aggregate, test=self.test, continuity=self.continuity,
                              adjustment=self.adjustment, alpha=self.alpha)

    def size_target(self, n_runs: int) -> float:
        """The target expected L1 of the size answers for ``n_runs`` runs (:attr:`target` or the default).

        Parameters
        ----------
        n_runs : int

        Returns
        -------
        float
        """
        return size_target(n_runs, self.target)

    def target_meta(self, n_runs: int) -> dict:
        """The size target as meta.json records it: ``l1``, ``rule`` (in prose) and ``set_by``.

        Parameters
        ----------
        n_runs : int

        Returns
        -------
        dict
        """
        return target_record(n_runs, self.target)

    def rng(self, stream: str, *index: int) -> np.random.Generator:
        """The generator of a named stream under this seed.

        Parameters
        ----------
        stream : str
            A name of :data:`robustness.seeds.STUDY_STREAMS`.
        *index : int
            One of the stream's own streams (:func:`robustness.seeds.stream`).

        Returns
        -------
        numpy.random.Generator
        """
        return seeds.stream(self.seed, stream, *index)


@dataclass(frozen=True)
class Resampled:
    """Every ranking method's convergence and bootstrap, in the order of the options' ``ranking``."""

    convergence: dict
    bootstrap: dict


def resample(schemes: Schemes, options: ResamplingOptions, *, n_jobs: int = 1, boot_schemes: Schemes | None = None,
             progress: bool = False, bootstrap: bool = True) -> Resampled:
    """Rank convergence of ``schemes`` and bootstrap of ``boot_schemes`` (default the same), per ranking method.

    Every method's bootstrap draws the same resamples (same stream, same units: paired). Additive methods' curves
    follow ``schemes`` (the study's order unit) and ``options.step``; a non-additive method's curves add the
    bootstrap's units (its tests' unit) one at a time and record every ``options.test_step``-th prefix.

    Parameters
    ----------
    schemes, boot_schemes : Schemes
        The statistics per order unit and per bootstrap unit.
    options : ResamplingOptions
    n_jobs : int
    progress : bool
    bootstrap : bool
        Also the bootstrap (False: the convergence curves only; ``Resampled.bootstrap`` is then empty).

    Returns
    -------
    Resampled
    """
    boot_schemes = schemes if boot_schemes is None else boot_schemes
    convs, boots = {}, {}
    chosen = options.ranking_options()
    orders, resamples = options.rng("orders"), options.rng("bootstrap")  # each method draws from a copy: paired
    for name in options.ranking:
        boot_stats = prepare(boot_schemes, name, chosen)
        if not recomputed(boot_stats):
            conv_stats = boot_stats if boot_schemes is schemes else prepare(schemes, name, chosen)
            step = options.step
        else:
            conv_stats, step = boot_stats, options.test_step
        convs[name] = rank_convergence(conv_stats, n_orders=options.orders,
                                       options=ConvergenceOptions(step=step, ties=options.ties), n_jobs=n_jobs,
                                       progress=progress, rng=copy.deepcopy(orders))
        if bootstrap:
            boots[name] = run_bootstrap(boot_stats, n_resamples=options.bootstrap, ties=options.ties, n_jobs=n_jobs,
                                        progress=progress, rng=copy.deepcopy(resamples))
    return Resampled(convs, boots)


def _curve_orders(conv, *, all_curves: bool = False):
    """The orders whose full curves curves.parquet holds, and a note when that is not all of them."""
    per_order = len(conv.schemes.names) * conv.positions.size
    k = conv.n_orders if all_curves else min(conv.n_orders, max(1, CURVE_ROWS // per_order))
    note = None if k == conv.n_orders else (
        f"curves.parquet holds the curves of the first {k} of {conv.n_orders} orders ({k * per_order} rows; "
        "every order would take more than 5 million rows): curves_summary.csv and convergence.csv use all "
        f"orders; {parameter('ResamplingOptions', 'all_curves')}=True writes every order")
    return range(k), note


def convergence_tables(convs: dict, *, tolerance: float, lenient: float,
                       all_curves: bool = False) -> tuple[dict, list[str]]:
    """The convergence tables, every ranking method's rows one after the other (column ``ranking``).

    Parameters
    ----------
    convs : dict
        Ranking method -> Convergence.
    tolerance, lenient : float
        The two tolerances of the convergence points (the option's, the size target).
    all_curves : bool
        Write every order's curve (default: up to :data:`CURVE_ROWS` rows).

    Returns
    -------
    (tables, notes) : dict, list of str
        orders.csv, curves.parquet (written as it comes), curves_summary.csv, convergence.csv,
        strategy_comparison.csv; a note when curves.parquet holds only the first orders.
    """
    found = list(convs.values())
    notes: list[str] = []
    chosen: list = []
    for c in found:
        orders, note = _curve_orders(c, all_curves=all_curves)
        chosen.append((c, orders))
        notes += [f"{c.ranking}: {note}"] if note else []
    points = convergence_points(found, tolerance=tolerance, lenient=lenient)
    tables = {
        "orders.csv": pd.concat([c.orders_frame().assign(ranking=c.ranking) for c in found], ignore_index=True),
        "curves.parquet": lambda: (f for c, orders in chosen for f in c.iter_frames(orders=orders)),
        "curves_summary.csv": pd.concat([c.summary(confidence=0.9) for c in found], ignore_index=True),
        "convergence.csv": points,
        "strategy_comparison.csv": pd.concat([c.compare_strategies() for c in found], ignore_index=True),
    }
    return tables, notes


def convergence_points(convs: Iterable, *, tolerance: float, lenient: float) -> pd.DataFrame:
    """Every curve's convergence points at the option's tolerance and at the size target (column ``tolerance``).

    Parameters
    ----------
    convs : iterable of Convergence
        One per ranking method.
    tolerance, lenient : float

    Returns
    -------
    pandas.DataFrame
    """
    return pd.concat([c.convergence_points(tolerance=t).assign(tolerance=t)
                      for c in convs for t in dict.fromkeys((tolerance, lenient))], ignore_index=True)


def bootstrap_tables(boots: dict, *, agreement_file: str = "kendall_tau.csv") -> dict:
    """The bootstrap tables of every ranking method (column ``ranking``).

    Parameters
    ----------
    boots : dict
        Ranking method -> BootstrapResult, on the same resamples.
    agreement_file : str
        The name of the agreement table.

    Returns
    -------
    dict
        bootstrap_ci.csv (``reported``: the interval the reports show, :data:`SCORE_INTERVAL`),
        rank_distribution.csv, stability.csv, pairwise.parquet (the significance analysis, of
        the default method's scores) and the agreement between methods and golds.
    """
    frames = []
    for b in boots.values():
        shown = b.intervals(method=SCORE_INTERVAL)  # the reports' interval (percentile where it falls back)
        frames.append(shown.assign(reported=True))
        frames += [b.intervals(method=m).assign(reported=False) for m in ("percentile", "bca")
                   if m != shown.method.iloc[0]]
    order = {m: k for k, m in enumerate((SCORE_INTERVAL, "percentile", "bca"))}
    ci = pd.concat(sorted(frames, key=lambda f: order[f.method.iloc[0]]), ignore_index=True)
    return {
        "bootstrap_ci.csv": ci,
        "rank_distribution.csv": pd.concat([b.rank_distribution() for b in boots.values()], ignore_index=True),
        "stability.csv": pd.concat([b.stability() for b in boots.values()], ignore_index=True),
        "pairwise.parquet": pairwise_comparisons(boots[DEFAULT_RANKING[0]]),
        agreement_file: ranking_agreement(boots.values()),
    }


def uncertainty_tables(schemes: Schemes, options: ResamplingOptions, *, n_jobs: int = 1, tolerance: float,
                       stream: tuple[int, ...] = (), progress: bool = False) -> dict:
    """The distance to unlimited data (empirical-Bayes estimate with its interval) and the test-set size needed.

    Parameters
    ----------
    schemes : Schemes
        On the bootstrap unit.
    options : ResamplingOptions
    n_jobs : int
        Parallel batches of outer resamples, and threads for the estimate's large kernel calls between them (the
        numbers do not depend on it).
    tolerance : float
        The expected L1 whose test-set size is wanted.
    stream : tuple of int
        Which of the options' ``uncertainty`` streams (default: the stream itself; ``(1,)``: its first own stream).
    progress : bool
        Count the resamples.

    Returns
    -------
    dict
        ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv.
    """
    gen = options.rng("uncertainty", *stream)
    with threads_for_kernels(n_jobs):  # the estimate's and the band's large kernel calls, between the batches
        chosen = UncertaintyOptions(margin=options.margin, groups=options.run_groups)
        per_size, per_run = ranking_uncertainty(schemes, n_resamples=options.outer, options=chosen, n_jobs=n_jobs,
                                                progress=progress, rng=gen)
    return {"ranking_uncertainty.csv": per_size, "rank_keep.csv": per_run,
            "test_set_size.csv": units_needed(per_size, tolerance=tolerance)}


def methods_meta() -> dict:
    """The statistical methods a resampling study's report rests on, for meta.json.

    Returns
    -------
    dict
        ``score_interval`` (the reported interval), ``pairwise_test``, ``distance_to_unlimited_data`` (the
        estimator and its version) and ``size_claim_confidence``.
    """
    return {"score_interval": SCORE_INTERVAL,
            "pairwise_test": "paired t-test with delta-method standard errors, Holm over all pairs",
            "distance_to_unlimited_data": ESTIMATOR, "size_claim_confidence": CLAIM_CONFIDENCE}


def only(frame: pd.DataFrame, ranking: str = DEFAULT_RANKING[0]) -> pd.DataFrame:
    """The rows of one ranking method (in agreement tables: compared with the same method).

    Parameters
    ----------
    frame : pandas.DataFrame
    ranking : str

    Returns
    -------
    pandas.DataFrame
    """
    if "other_ranking" in frame:
        frame = frame[frame.other_ranking == ranking]
    return frame[frame.ranking == ranking].reset_index(drop=True)


def method_columns(boots: dict, *, name: str = "{strategy}_{metric}_{average}_{ranking}") -> pd.DataFrame:
    """Every other method's statistic per run and scheme, as leaderboard columns.

    Parameters
    ----------
    boots : dict
        Ranking method -> BootstrapResult.
    name : str
        The columns' names.

    Returns
    -------
    pandas.DataFrame
        Indexed by run.
    """
    columns = {}
    for method, b in boots.items():
        if method == DEFAULT_RANKING[0]:
            continue
        ci = b.intervals()
        for (strat, metric, average), d in ci.groupby(["strategy", "metric", "average"], sort=False):
            columns[name.format(strategy=strat, metric=metric, average=average, ranking=method)] = \
                d.set_index("run").score
    return pd.DataFrame(columns)
