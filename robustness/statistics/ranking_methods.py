"""Ranking methods: how per-case scores become a leaderboard. One registry, read by every study.

Beside the metric table (:data:`robustness.overlap.metrics.METRICS`) and the gold
registry (:data:`robustness.overlap.gold.STRATEGIES`), this is the third choice an
organiser makes. The three families of challengeR (Wiesenfarth et al., Sci.
Rep. 2021):

``aggregate`` (aggregate-then-rank, the MEDIQA-MAGIC leaderboard)
    One score per run (micro: pooled TP/FP/FN; macro: the mean of per-image
    scores), then the ranking of those scores.
``rank-then-aggregate`` (as BraTS)
    Per case (image; encounter for QA), the runs are ranked by their per-case
    score (ties: average rank; a run without a score on a case, nan, is left
    out of that case's ranking); runs are then ordered by their mean rank
    (lower is better). It needs per-case scores, so it exists for **macro**
    schemes only: a micro score pools counts over images and has no per-case
    value. Per-case ranks add up, so prefixes and resamples are running sums
    exactly as for the aggregate (:func:`robustness.statistics.table_schemes.rank_then_aggregate`).
``test-based`` (test-then-rank)
    For every ordered pair of runs, a one-sided paired Wilcoxon signed-rank
    test on per-unit scores (the resampling unit: encounters by default, so
    that photos of one lesion are not counted as independent evidence; images
    or cases where the study resamples those), the ``R (R - 1)`` p-values of a
    scheme adjusted together by **Holm's** step-down method (family-wise error
    5%); a run scores the number of runs it beats significantly and runs are
    ranked by that number (ties: average rank). challengeR's ``testThenRank``
    defaults to no adjustment (``p.adjust.method = "none"``), under which
    about ``0.05 R (R - 1)`` "wins" are expected among runs of equal quality;
    ``adjustment="none"`` reproduces that choice in the library. Macro schemes
    only, like rank-then-aggregate (:mod:`robustness.statistics.test_based`).

A method is one registered object that carries both of its forms:

- :attr:`RankingMethod.case_statistic`: its exact statistic on per-case scores under every ranking option
  (:mod:`robustness.statistics.task_statistics` holds the built-ins'), for no, one or many case weightings.
  A table's leaderboards and their bootstrap rank distributions rank it
  (:mod:`robustness.statistics.case_rankings`), and so do the resampling engines on every prefix and resample,
  through :class:`~robustness.statistics.case_statistic.CaseStatistic`, where no kernel honours the options;
- :attr:`RankingMethod.kernel` (optional): a fast form for the options a kernel implements (the running sums of
  the mean aggregate and of mean per-case ranks; the signed-rank kernel's Wilcoxon test without continuity
  correction, under any adjustment). It returns None for other options, and the engines then recompute the
  statistic.

:func:`prepare` picks the form; no list of options elsewhere says what the engines can do. Adding a method is
one :func:`register_ranking` call with its ``case_statistic`` (``tests/test_architecture.py`` registers a toy
median-then-rank method and runs it through the main job, a per-case table and the report).

Importing this module is cheap (no numpy), so command-line options can list
and validate the methods before any heavy import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from robustness.statistics.rankable import Rankable
from robustness.statistics.ranking_options import RankingOptions

__all__ = ["Rankable", "RankingMethod", "ChallengerForm", "RANKING_METHODS", "DEFAULT_RANKING", "register_ranking",
           "get_ranking", "parse_rankings", "prepare", "recomputed", "TEST_STEP"]


@dataclass(frozen=True)
class ChallengerForm:
    """A method's own special cases under challengeR's semantics or resampling (``--preset challenger``).

    Attributes
    ----------
    statistic : callable, optional
        ``statistic(values, rows, *, options, lower_better, rng)``: the statistic as R computes it from the rows of
        the per-case table (``semantics="challenger"``; values then compared exactly).
    resampled : callable, optional
        ``resampled(values, case_weights, case_order, *, options, lower_better)``: every bootstrap resample's
        statistic in R's arithmetic (``semantics="challenger"``; compared exactly).
    resampling : callable, optional
        ``resampling(values, case_weights, *, options, lower_better, rng)``: challengeR's bootstrap, where a case drawn
        k times is k copies of its rows (``resampling="challenger"``).
    refuse : callable, optional
        ``refuse(ts, values, options)``: raise where challengeR stops on a task (``semantics="challenger"``).
    single_run_na : bool
        A task with one scored run has no test: value NA, ranked as challengeR's ``rankNA2`` ranks it.
    """

    statistic: Callable[..., Any] | None = None
    resampled: Callable[..., Any] | None = None
    resampling: Callable[..., Any] | None = None
    refuse: Callable[..., None] | None = None
    single_run_na: bool = False


@dataclass(frozen=True)
class RankingMethod:
    """One ranking method: what it is, how the engines get its statistic, how reports show it.

    Attributes
    ----------
    name : str
        Command-line and table name.
    label : str
        Name in prose and on figures.
    statistic : str
        What a run's number is under this method (``score``, ``mean rank``, ``runs beaten``).
    sign : int
        +1 when the statistic is higher-is-better as stored; -1 when the
        engines store its negative (mean ranks are stored as minus the mean
        rank, so that every engine ranks "higher is better").
    per_case : bool
        Needs per-case scores: exists for macro schemes only.
    description : str
        One line for ``--help``.
    case_statistic : callable
        ``case_statistic(values, weights, *, options, lower_better, rng)``: the statistic, higher is better, of
        the runs' per-case scores ``values`` (R, N) under the ranking options for case weights ``weights``
        (None, (N,) or (B, N)); module notes of :mod:`robustness.statistics.task_statistics`.
    kernel : callable, optional
        ``kernel(schemes, options) -> Rankable or None``: a fast form of the statistic for the engines, or None
        where it does not implement ``options`` (the engines then recompute :attr:`case_statistic`).
    unit_level : bool
        The engines give :attr:`case_statistic` one score per resampling unit (the mean of its cases) instead of
        the cases (the paired tests: units, not images, are the independent evidence).
    metric_units : bool
        The statistic is a score in the metric's units (shown with the metric's own sign where smaller is
        better).
    ranks_missing : bool
        The statistic ranks missing scores itself (per-case ranks: ``--missing-scores worst`` and ``rank-last`` rank
        them last on their case); other methods get the worst score of the case or refuse ``rank-last``.
    additive : bool
        Its kernel's statistic adds up over units, so a prefix of a random order is a running sum and curves
        record every ``--step``-th prefix of the study's unit. A statistic recomputed on every recorded prefix
        (paired tests, and any method without a kernel for the options) adds the resampling unit one at a time
        and records every ``--test-step``-th prefix.
    number_format : str
        How reports print the statistic (``str.format``).
    prose : str
        How the report describes the method, with ``{label}``, ``{case}``, ``{test_unit}``, ``{n_pairs}``
        (ordered pairs of runs), ``{ties}``, ``{adjusted}``, ``{aggregate}`` (mean, median, a quantile) and
        ``{test}`` (the paired test) filled in.
    short_label : str
        A label that fits a figure's tick (may hold line breaks).
    summarises_cases : bool
        The statistic summarises the cases one by one (a task of one case gets a note that it rests on it alone).
    task_notes : callable, optional
        ``task_notes(ts, values, options) -> list of str``: what the method has to say about a task's scores (the
        test-based ranking: pairs of runs that share no scored case).
    challenger : ChallengerForm, optional
        Its special cases under challengeR's semantics and resampling.
    """

    name: str
    label: str
    statistic: str
    sign: int
    per_case: bool
    description: str
    case_statistic: Callable[..., Any]
    kernel: Callable[[Any, RankingOptions], Rankable | None] | None = None
    unit_level: bool = False
    metric_units: bool = False
    ranks_missing: bool = False
    additive: bool = True
    number_format: str = "{:.4f}"
    prose: str = "**{label}** ranks the runs by their {statistic}"
    short_label: str | None = None
    summarises_cases: bool = True
    task_notes: Callable[..., list[str]] | None = None
    challenger: ChallengerForm | None = None

    def describe(self, *, case: str, test_unit: str, n_runs: int, options: Mapping[str, Any] | None = None) -> str:
        """The method in one clause of prose, for the report.

        Parameters
        ----------
        case : str
            What a case is (image, encounter, case).
        test_unit : str
            The unit of the paired tests.
        n_runs : int
        options : mapping, optional
            The study's ranking options as it recorded them (``ties``, ``adjustment``, ``alpha``, ``aggregate``,
            ``test``, ``continuity``; as :class:`RankingOptions` names them), shown as recorded; a missing one is
            :class:`RankingOptions`' default.

        Returns
        -------
        str
        """
        o: dict[str, Any] = {f.name: f.default for f in fields(RankingOptions)} | dict(options or {})
        ties, adjustment, alpha, aggregate, test = (o[k] for k in ("ties", "adjustment", "alpha", "aggregate", "test"))
        adjusted = {"holm": f"together with Holm's step-down method (family-wise error {alpha:.0%})",
                    "none": f"not adjusted (each test at {alpha:.0%}, challengeR's default)"}.get(
            adjustment, f"together ({adjustment}, {alpha:.0%})")
        how = aggregate if isinstance(aggregate, str) else f"{aggregate:g}-quantile"
        paired = ("paired t-test" if test == "t" else "paired Wilcoxon signed-rank test (normal approximation with "
                  f"tie correction{', continuity correction' if o['continuity'] else ''}; zero differences dropped)")
        return self.prose.format(label=self.label, statistic=self.statistic, case=case, test_unit=test_unit,
                                 n_pairs=n_runs * (n_runs - 1), ties=ties, adjusted=adjusted, aggregate=how,
                                 test=paired)


    def value(self, statistic: Any, lower_better: bool) -> Any:
        """What reports print for a statistic of :attr:`case_statistic`: the score as given, the mean rank...

        Parameters
        ----------
        statistic : ndarray
            Higher is better.
        lower_better : bool
            Smaller scores are better on this leaderboard.

        Returns
        -------
        ndarray
        """
        flip = -1 if (self.metric_units and lower_better) else 1
        return (self.sign * flip) * statistic


def _aggregate(values, weights=None, **options):
    from robustness.statistics import task_statistics

    return task_statistics.aggregate(values, weights, **options)


def _rank_then_aggregate(values, weights=None, **options):
    from robustness.statistics import task_statistics

    return task_statistics.rank_then_aggregate(values, weights, **options)


def _test_based(values, weights=None, **options):
    from robustness.statistics import task_statistics

    return task_statistics.test_based(values, weights, **options)


def _in_r(method):
    def statistic(values, rows, **options):
        from robustness.statistics import task_statistics

        return task_statistics.in_r(values, rows, method, **options)

    return statistic


def _aggregate_in_r_resampled(values, weights, order, **options):
    from robustness.statistics import task_statistics

    return task_statistics.in_r_resampled(values, weights, order, **options)


def _rank_then_aggregate_grouped(values, weights, **options):
    from robustness.statistics import task_statistics

    return task_statistics.rank_then_aggregate_grouped(values, weights, **options)


def _test_based_distinct_cases(values, weights, **options):
    return _test_based(values, (weights > 0).astype(weights.dtype), **options)  # R pairs the distinct cases once


def _untestable_pairs(ts, values, options):
    from robustness.statistics.challenger_order import untestable_pairs

    return untestable_pairs(ts, values, options) if len(ts.runs) > 1 else []


def _no_rank_left(ts, values, options):
    from robustness.statistics.challenger_order import no_rank_left

    no_rank_left(ts, values, options)


def _aggregate_kernel(schemes, options):
    return schemes if options.aggregate == "mean" else None  # the running sums of every scheme's score


def _rank_then_aggregate_kernel(schemes, options):
    if options.aggregate != "mean" or options.ties == "random":
        return None
    from robustness.statistics.table_schemes import rank_then_aggregate

    return rank_then_aggregate(schemes, ties=options.ties)


def _test_based_kernel(schemes, options):
    if options.test != "wilcoxon" or options.continuity:
        return None
    from robustness.statistics.test_based import PairedTests

    return PairedTests.from_schemes(schemes, alpha=options.alpha, adjustment=options.adjustment)


#: The registry: every ranking method a study can use, in the order reports list them.
RANKING_METHODS: dict[str, RankingMethod] = {}


def register_ranking(method: RankingMethod) -> RankingMethod:
    """Add (or replace) a ranking method in :data:`RANKING_METHODS`; returns it.

    Parameters
    ----------
    method : RankingMethod

    Returns
    -------
    RankingMethod
        ``method``, registered: ``--ranking NAME`` and every study, table, figure and report section then know it.
    """
    if not isinstance(method, RankingMethod):
        raise TypeError(f"expected a RankingMethod, got {type(method).__name__}")
    RANKING_METHODS[method.name] = method
    return method


register_ranking(RankingMethod(
    "aggregate", "aggregate-then-rank", "score", 1, False,
    "one score per run (micro or macro mean), then rank", _aggregate, _aggregate_kernel, metric_units=True,
    prose="**{label}** orders the runs by their {aggregate} score", summarises_cases=False,
    challenger=ChallengerForm(statistic=_in_r("aggregate"), resampled=_aggregate_in_r_resampled)))
register_ranking(RankingMethod(
    "rank-then-aggregate", "rank-then-aggregate", "mean rank", -1, True,
    "rank the runs on every case (ties: average rank), then order by mean rank; macro only", _rank_then_aggregate,
    _rank_then_aggregate_kernel, ranks_missing=True, number_format="{:.2f}", short_label="rank-then-\naggregate",
    prose="**rank-then-aggregate** ranks the runs on every {case} (ties: {ties} rank; a run without a score "
          "there is left out of that {case}'s ranking) and orders them by their {aggregate} rank, lower first",
    challenger=ChallengerForm(statistic=_in_r("rank-then-aggregate"), resampling=_rank_then_aggregate_grouped,
                              refuse=_no_rank_left)))
register_ranking(RankingMethod(
    "test-based", "test-based", "runs beaten", 1, True,
    "one-sided paired Wilcoxon signed-rank test for every ordered pair on per-unit scores, Holm over the pairs, 5%; "
    "rank by the number of runs beaten significantly; macro only", _test_based, _test_based_kernel,
    unit_level=True, additive=False, number_format="{:.1f}",
    prose="**test-based** runs a one-sided {test} for every ordered pair of runs on "
          "per-{test_unit} scores, adjusts "
          "the {n_pairs} p-values of a scheme {adjusted}, and "
          "ranks the runs by the number of runs they beat significantly (ties: {ties} rank)",
    task_notes=_untestable_pairs,
    challenger=ChallengerForm(resampling=_test_based_distinct_cases, refuse=_untestable_pairs, single_run_na=True)))

#: Non-additive methods' curves record every TEST_STEP-th prefix by default: each recorded prefix reruns every
#: paired test (benchmarks/bench_ranking_methods.py: about 5 ms per recorded prefix and order on the default
#: challenge; with step 5 the main job with all three ranking methods takes about a minute of CPU).
TEST_STEP = 5

#: The default: today's leaderboard (always computed: the significance analysis and the distance to unlimited
#: data use it).
DEFAULT_RANKING = ("aggregate",)


def get_ranking(name: str) -> RankingMethod:
    """The registered ranking method ``name``.

    Parameters
    ----------
    name : str

    Returns
    -------
    RankingMethod
    """
    try:
        return RANKING_METHODS[name]
    except KeyError:
        raise ValueError(f"unknown ranking method {name!r} (choose from {', '.join(RANKING_METHODS)})") from None


def parse_rankings(text: str) -> tuple:
    """``"aggregate,test-based"`` -> ``("aggregate", "test-based")``, validated, duplicates dropped.

    Parameters
    ----------
    text : str
        Comma-separated method names.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> parse_rankings("test-based, aggregate,test-based")
    ('test-based', 'aggregate')
    """
    names = tuple(dict.fromkeys(n.strip() for n in str(text).split(",") if n.strip()))
    if not names:
        raise ValueError(f"no ranking method given in {text!r} (choose from {', '.join(RANKING_METHODS)})")
    for n in names:
        get_ranking(n)
    return names


def prepare(schemes: Any, name: str, options: RankingOptions | None = None, **given: Any) -> Rankable:
    """What the engines rank for ``schemes`` under the method ``name`` and the ranking options.

    The engines: :func:`~robustness.statistics.convergence.rank_convergence`,
    :func:`~robustness.statistics.bootstrap.bootstrap`.

    Parameters
    ----------
    schemes : Schemes
    name : str
        A registered method.
    options : RankingOptions, optional
        The ranking options (default: the package's).
    **given
        Options that replace those of ``options`` (``ties="min"``, ``adjustment="none"``...).

    Returns
    -------
    Rankable
        The method's kernel form where it implements the options (``aggregate``: ``schemes`` itself;
        ``rank-then-aggregate``: the macro schemes with per-case ranks as statistics; ``test-based``: a
        :class:`~robustness.statistics.test_based.PairedTests`); otherwise a
        :class:`~robustness.statistics.case_statistic.CaseStatistic` of the macro schemes that recomputes
        :attr:`RankingMethod.case_statistic`.
    """
    from dataclasses import replace

    method = get_ranking(name)
    options = replace(options or RankingOptions(), **given)
    if method.per_case and not any(schemes.is_macro(s) for s in range(len(schemes.names))):
        raise ValueError(f"{method.label} ranks per-case scores: it exists for macro schemes only, and these "
                         "schemes are all micro")
    fast = method.kernel(schemes, options) if method.kernel is not None else None
    if fast is not None:
        return fast
    from robustness.statistics.case_statistic import CaseStatistic

    return CaseStatistic.from_schemes(schemes, method.case_statistic, ranking=name, options=options,
                                      unit_level=method.unit_level)


def recomputed(rankable: Rankable) -> bool:
    """Whether the engines recompute ``rankable``'s statistic on every prefix (no running sums).

    Parameters
    ----------
    rankable : Rankable

    Returns
    -------
    bool
        True for the paired tests and for any statistic without a kernel: curves then record every
        ``--test-step``-th prefix.
    """
    from robustness.statistics.case_statistic import CaseStatistic

    return not get_ranking(rankable.ranking).additive or isinstance(rankable, CaseStatistic)
