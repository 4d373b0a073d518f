"""What the resampling studies share: their options, the resampling step per ranking method, and their tables.

The main job, the per-case table study and the QA study rank the same kind of
:class:`~robustness.statistics.schemes.Schemes` under every ranking method of
:attr:`ResamplingOptions.ranking`: convergence curves over random orders, a
bootstrap of the units (the same resamples for every method: paired), the
distance to unlimited data, the significance analysis and the agreement between
rankings, each written as a registered table (:mod:`robustness.results.study_result`)
with the verdicts the reports state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from robustness import seeds
from robustness.results.study_result import Verdicts
from robustness.statistics.bootstrap import SCORE_INTERVAL
from robustness.statistics.ranking_methods import DEFAULT_RANKING, TEST_STEP, get_ranking, prepare, recomputed
from robustness.statistics.ranking_options import RankingOptions

if TYPE_CHECKING:
    import pandas as pd

    from robustness.statistics.convergence import Convergence
    from robustness.statistics.schemes import Schemes

__all__ = ["methods_meta", "ResamplingOptions", "Resampled", "resample", "convergence_tables", "bootstrap_tables",
           "uncertainty_tables", "method_columns", "only", "CURVE_ROWS", "TEST_STEP", "significance_verdicts",
           "resampling_verdicts", "unlimited_verdicts", "fastest_verdicts", "ranking_verdicts"]

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
        from robustness.statistics.population import GROUP_RULES

        for name in ("orders", "step", "bootstrap", "test_step"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if int(self.outer) < 2:
            raise ValueError(f"outer must be >= 2, got {self.outer!r}")
        for name in ("tolerance", "margin") + (("target",) if self.target is not None else ()):
            if not (getattr(self, name) >= 0 and np.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be a finite number >= 0, got {getattr(self, name)!r}")
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
        from robustness.statistics.ranks import size_target

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
        from robustness.statistics.ranks import target_record

        return target_record(n_runs, self.target)

    def rng(self, stream: str) -> np.random.Generator:
        """The generator of a named stream under this seed.

        Parameters
        ----------
        stream : str
            A name of :data:`robustness.seeds.STUDY_STREAMS`.

        Returns
        -------
        numpy.random.Generator
        """
        return seeds.stream(self.seed, stream)


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
    from robustness.statistics.bootstrap import bootstrap as run_bootstrap
    from robustness.statistics.convergence import rank_convergence

    boot_schemes = schemes if boot_schemes is None else boot_schemes
    convs, boots = {}, {}
    chosen = options.ranking_options()
    for name in options.ranking:
        boot_stats = prepare(boot_schemes, name, chosen)
        if not recomputed(boot_stats):
            conv_stats = boot_stats if boot_schemes is schemes else prepare(schemes, name, chosen)
            step = options.step
        else:
            conv_stats, step = boot_stats, options.test_step
        convs[name] = rank_convergence(conv_stats, n_orders=options.orders, step=step, ties=options.ties,
                                       n_jobs=n_jobs, progress=progress, rng=options.rng("orders"))
        if bootstrap:
            boots[name] = run_bootstrap(boot_stats, n_resamples=options.bootstrap, ties=options.ties, n_jobs=n_jobs,
                                        progress=progress, rng=options.rng("bootstrap"))
    return Resampled(convs, boots)


def _curve_orders(conv, *, all_curves: bool = False):
    """The orders whose full curves curves.parquet holds, and a note when that is not all of them."""
    per_order = len(conv.schemes.names) * conv.positions.size
    k = conv.n_orders if all_curves else min(conv.n_orders, max(1, CURVE_ROWS // per_order))
    note = None if k == conv.n_orders else (
        f"curves.parquet holds the curves of the first {k} of {conv.n_orders} orders ({k * per_order} rows; "
        "every order would take more than 5 million rows): curves_summary.csv and convergence.csv use all "
        "orders; --all-curves writes every order")
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
    import pandas as pd

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
    import pandas as pd

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
    import pandas as pd

    from robustness.statistics.comparisons import pairwise_comparisons, ranking_agreement

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
                       rng: np.random.Generator | None = None) -> dict:
    """The distance to unlimited data (empirical-Bayes estimate with its interval) and the test-set size needed.

    Parameters
    ----------
    schemes : Schemes
        On the bootstrap unit.
    options : ResamplingOptions
    n_jobs : int
    tolerance : float
        The expected L1 whose test-set size is wanted.
    rng : numpy.random.Generator, optional
        Default: the options' ``uncertainty`` stream.

    Returns
    -------
    dict
        ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv.
    """
    from robustness.statistics.uncertainty import ranking_uncertainty, units_needed

    per_size, per_run = ranking_uncertainty(schemes, n_resamples=options.outer, margin=options.margin,
                                            groups=options.run_groups, n_jobs=n_jobs,
                                            rng=options.rng("uncertainty") if rng is None else rng)
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
    from robustness.statistics.population import ESTIMATOR
    from robustness.statistics.uncertainty import CLAIM_CONFIDENCE

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
    import pandas as pd

    columns = {}
    for method, b in boots.items():
        if method == DEFAULT_RANKING[0]:
            continue
        ci = b.intervals()
        for (strat, metric, average), d in ci.groupby(["strategy", "metric", "average"], sort=False):
            columns[name.format(strategy=strat, metric=metric, average=average, ranking=method)] = \
                d.set_index("system").score
    return pd.DataFrame(columns)


# -- verdicts ---------------------------------------------------------------------------------------------------

def significance_verdicts(verdicts: Verdicts, pairwise: pd.DataFrame, schemes: Iterable[tuple]) -> None:
    """How many pairs (and neighbouring pairs) of runs differ: the analytic paired test, and the Wilcoxon check.

    Claims ``pairs_differ``, ``neighbours_differ`` (Holm over all pairs), ``neighbours_only_differ`` (Holm over the
    neighbouring pairs alone, the other family), ``pairs_differ_wilcoxon``, ``neighbours_differ_wilcoxon``; the
    neighbouring pairs without evidence of a difference are the subject of ``neighbours_differ``.

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    pairwise : pandas.DataFrame
        ``pairwise.parquet``.
    schemes : iterable of (strategy, metric, average)
    """
    for strat, metric, average in schemes:
        d = pairwise[(pairwise.strategy == strat) & (pairwise.metric == metric) & (pairwise.average == average)]
        if d.empty:
            continue
        n = d[d.neighbours]
        key = dict(strategy=strat, metric=metric, average=average, table="pairwise.parquet")
        for suffix, column in (("", "significant"), ("_wilcoxon", "significant_wilcoxon")):
            k = int(d[column].sum())
            verdicts.add(f"pairs_differ{suffix}", statement="none" if k == 0 else "some", count=k, total=len(d),
                         **key)
            k = int(n[column].sum())
            same = [f"{x.system} ~ {x.other}" for x in n[~n[column]].itertuples()]
            verdicts.add(f"neighbours_differ{suffix}", statement="none" if k == 0 else "some", count=k,
                         total=len(n), subject=same, **key)
        if "significant_delta_neighbours" in n:
            k = int(n.significant_delta_neighbours.sum())
            verdicts.add("neighbours_only_differ", statement="none" if k == 0 else "some", count=k, total=len(n),
                         **key)


def fastest_verdicts(verdicts: Verdicts, conv: Convergence, points: pd.DataFrame, *, lenient: float,
                     test_sets: tuple[np.ndarray, list] | None = None, metric: str = "jaccard") -> None:
    """Which strategy's curve is lowest (smallest area under the mean L1 curve), per averaging.

    With ``test_sets`` (:func:`robustness.statistics.convergence.auc_over_test_sets` and its schemes' names), a
    strategy is named only if its paired differences with every other strategy over resampled test sets lie below
    zero (Bonferroni-adjusted percentile intervals): a claim about the gold, which holds for a new test set. Without,
    the differences over this test set's orders (Monte Carlo intervals: a claim about this test set only). Otherwise
    the tied ones (claim ``fastest_convergence``; ``statement`` ``fastest`` or ``tied``; ``count``: the number of
    resampled test sets, 0 when the orders were used).

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    conv : Convergence
    points : pandas.DataFrame
        ``convergence.csv``.
    lenient : float
        The tolerance whose AUC row is quoted (the AUC is the same for every tolerance).
    test_sets : (ndarray (S', B), list of (strategy, metric, average)), optional
    metric : str
    """
    from robustness.overlap.gold import is_random
    from robustness.statistics.verdicts import best_with_ties

    auc = conv.order_auc()  # (S, K)
    for average in dict.fromkeys(n[2] for n in conv.schemes.names):
        scheme = [s for s, n in enumerate(conv.schemes.names) if n[1] == metric and n[2] == average]
        drawn = [s for s in scheme if is_random(conv.schemes.names[s][0])]
        idx = [s for s in scheme if s not in drawn]  # a random annotator is a draw, not a candidate
        here = points[(points.metric == metric) & (points.average == average) & (points.tolerance == lenient)
                      & (points.ranking == conv.ranking)].set_index("strategy")
        if len(drawn) > 1:
            a = here.loc[[conv.schemes.names[s][0] for s in drawn], "auc"]
            verdicts.add("random_gold_spread", ranking=conv.ranking, metric=metric, average=average,
                         statement="auc", value=float(a.mean()), low=float(a.min()), high=float(a.max()),
                         count=len(drawn), table="convergence.csv")
        if len(idx) < 2:
            continue
        names = [conv.schemes.names[s][0] for s in idx]
        count = 0
        if test_sets is not None:
            outer, outer_names = test_sets
            rows = [outer_names.index(conv.schemes.names[s]) for s in idx]
            v = best_with_ties(outer[rows], names, higher_is_better=False, interval="percentile")
            count = outer.shape[1]
        else:
            v = best_with_ties(auc[idx], names, higher_is_better=False, interval="normal")
        p = here.loc[v.tied[0]]
        verdicts.add("fastest_convergence", ranking=conv.ranking, metric=metric, average=average,
                     statement="fastest" if v.best else "tied", subject=v.tied, value=p.auc, se=p.auc_se,
                     low=p.auc_low, high=p.auc_high, level=v.level, count=count, table="strategy_comparison.csv")


def resampling_verdicts(verdicts: Verdicts, tables: dict, schemes: Iterable[tuple], *, lenient: float,
                        tolerance: float) -> None:
    """What the QA and per-case table reports state per scheme (of the default ranking method).

    The convergence points (``convergence_point``, one per tolerance; ``statement`` reached or only_at_n), the
    area under the curve (``curve_auc``), the distance to unlimited data at the test set's size
    (``unlimited_distance``, with its interval; ``best_stays_first``, the plug-in stability of the observed best;
    ``best_is_best``, the posterior probability that it is the population's best), the size needed for one place
    per run (``units_needed``: the estimate, and where the interval's ends reach the target; statement
    ``at_least`` with the upper end as the conservative claim) and the significance analysis
    (:func:`significance_verdicts`).

    Parameters
    ----------
    verdicts : Verdicts
        Where the claims are added.
    tables : dict
        The study's tables.
    schemes : iterable of (strategy, metric, average)
    lenient, tolerance : float
    """
    points = only(tables["convergence.csv"])
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        p = points[(points.strategy == strat) & (points.metric == metric) & (points.average == average)]
        for x in p.itertuples():
            verdicts.add("convergence_point", statement="reached" if x.reached else "only_at_n",
                         value=x.convergence_n, low=x.convergence_n_low, high=x.convergence_n_high, level=0.95,
                         count=int(x.n_units), total=None, subject=[f"{x.tolerance:g}"], table="convergence.csv",
                         **key)
        if len(p):
            verdicts.add("curve_auc", value=p.auc.iloc[0], se=p.auc_se.iloc[0], low=p.auc_low.iloc[0],
                         high=p.auc_high.iloc[0], level=0.95, table="convergence.csv", **key)
    unlimited_verdicts(verdicts, tables, schemes, lenient=lenient)
    significance_verdicts(verdicts, tables["pairwise.parquet"], schemes)


def unlimited_verdicts(verdicts: Verdicts, tables: dict, schemes: Iterable[tuple], *, lenient: float) -> None:
    """What a report states about the distance to unlimited data, per scheme.

    ``unlimited_distance`` (the estimate at the test set's size with its interval), ``best_stays_first`` (the
    plug-in stability of the observed best), ``best_is_best`` (the posterior probability that it is the
    population's best) and ``units_needed`` (the estimate, and where the interval's ends reach ``lenient``;
    statement ``at_least`` with the upper end as the conservative claim, ``beyond`` or ``already``).

    Parameters
    ----------
    verdicts : Verdicts
    tables : dict
        With ranking_uncertainty.csv, rank_keep.csv and test_set_size.csv.
    schemes : iterable of (strategy, metric, average)
    lenient : float
        The target expected L1 (:func:`robustness.statistics.ranks.size_target`).
    """
    per_size, needed, runs = tables["ranking_uncertainty.csv"], tables["test_set_size.csv"], tables["rank_keep.csv"]
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        at = per_size[(per_size.strategy == strat) & (per_size.metric == metric) & (per_size.average == average)]
        row = at[at.observed_size].iloc[0]
        verdicts.add("unlimited_distance", value=row.expected_l1, se=row.expected_l1_se, low=row.low, high=row.high,
                     level=row.confidence, count=int(row.m), table="ranking_uncertainty.csv", **key)
        verdicts.add("best_stays_first", value=row.p_best_stays, count=int(row.m), table="ranking_uncertainty.csv",
                     **key)
        best = runs[(runs.strategy == strat) & (runs.metric == metric) & (runs.average == average)]
        if len(best):
            top = best.sort_values("rank").iloc[0]
            verdicts.add("best_is_best", value=top.p_best, subject=[top.system], table="rank_keep.csv", **key)
        nd = needed[(needed.strategy == strat) & (needed.metric == metric) & (needed.average == average)].iloc[0]
        verdicts.add("units_needed", statement="beyond" if nd.beyond else "already" if nd.already else "at_least",
                     value=nd.units_needed_point, low=nd.units_needed_low, high=nd.units_needed,
                     level=nd.confidence, count=int(nd.largest_size), subject=[f"{lenient:g}"],
                     table="test_set_size.csv", **key)


def ranking_verdicts(v: Verdicts, tables: dict, schemes: list[tuple], *,
                     agreement_file: str = "kendall_tau.csv") -> None:
    """What the comparison of ranking methods states, per scheme.

    Who is first under each method (``first_place``), Kendall's tau between every two methods' leaderboards
    (``method_agreement``) and, over the golds, the range of tau between two methods
    (``method_agreement_range``). Nothing with one method only.

    Parameters
    ----------
    v : Verdicts
    tables : dict
    schemes : list of (strategy, metric, average)
    agreement_file : str
    """
    ci = tables["bootstrap_ci.csv"]
    ci = ci[ci.reported]
    methods = list(dict.fromkeys(ci.ranking))
    if len(methods) < 2:
        return
    agreement = tables[agreement_file]
    for strat, metric, average in schemes:
        key = dict(strategy=strat, metric=metric, average=average)
        for method in methods:
            board = ci[(ci.ranking == method) & (ci.strategy == strat) & (ci.metric == metric)
                       & (ci.average == average)]
            top = board[board["rank"] == board["rank"].min()].system.tolist()
            v.add("first_place", ranking=method, statement="alone" if len(top) == 1 else "tied", subject=top,
                  count=len(top), table="bootstrap_ci.csv", **key)
        tau = agreement[(agreement.strategy == strat) & (agreement.other == strat) & (agreement.metric == metric)
                        & (agreement.average == average)]
        for i, a in enumerate(methods):
            for b in methods[i + 1:]:
                row = tau[(tau.ranking == a) & (tau.other_ranking == b)]
                if len(row):
                    row = row.iloc[0]
                    v.add("method_agreement", ranking=a, subject=[a, b], value=row.tau, low=row.tau_low,
                          high=row.tau_high, level=0.95, table=agreement_file, **key)
    strat, metric, average = schemes[0]
    span = agreement[(agreement.strategy == agreement.other) & (agreement.metric == metric)
                     & (agreement.average == average) & (agreement.ranking != agreement.other_ranking)]
    if span.strategy.nunique() > 1:
        v.add("method_agreement_range", metric=metric, average=average, count=int(span.strategy.nunique()),
              low=span.tau.min(), high=span.tau.max(), table=agreement_file)
