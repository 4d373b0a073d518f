"""Leaderboards from per-case scores under every ranking option, per task, with consensus and bootstrap ranks.

This is the exact, option-complete ranking of a per-case table (challengeR's input): the ranks a report prints,
``ranking.csv``, the bootstrap rank distributions and the figures read it. The options are one
:class:`~robustness.statistics.ranking_options.RankingOptions` (tie rule, direction, missing scores,
aggregation, test, adjustment); ``--preset challenger`` gives challengeR's defaults.

A *task* is one leaderboard: one task of the challenge, and one metric of it when the table has several. Each
task is ranked on its own runs and cases (tasks may have different case sets), by any method of the registry
(:mod:`robustness.statistics.ranking_methods`: each carries its exact statistic,
:mod:`robustness.statistics.task_statistics`), the three built-in ones as challengeR's:

``aggregate`` (``aggregateThenRank``)
    Every run's scores over the cases are aggregated (mean, median or a quantile, R's type-7 quantile, over the
    cases it has after the missing-score treatment), then ranked.
``rank-then-aggregate`` (``rankThenAggregate``)
    Per case, the runs are ranked by their score; each run's ranks are aggregated; runs are ranked by that, lower first.
``test-based`` (``testThenRank``)
    For every ordered pair of runs ``(i, j)``, a one-sided paired test that ``i`` is better than ``j`` on the
    cases both have (Wilcoxon signed-rank, normal approximation with tie correction and optionally R's
    continuity correction, zero differences dropped; or the paired t-test); the ``R (R - 1)`` p-values
    adjusted together (:func:`robustness.statistics.multiplicity.adjust`: every method of statsmodels); a run's
    statistic is the number of runs it beats at ``p <= alpha``; runs are ranked by it. (challengeR prints that
    number divided by ``R - 1``; the ranks are the same.) The tests: :mod:`robustness.statistics.paired`.

Scores within 1e-12 of each other tie (:data:`~robustness.statistics.ranks.TIE_TOL`; each such merge of two
different values is a note). challengeR compares exactly, in R's arithmetic (a mean accumulated in long double
in the table's row order, with a second pass), which numpy's summation does not reproduce to the last bit; so
``semantics="challenger"`` (``--preset challenger``) computes the aggregate and rank-then-aggregate values as R
does (:func:`~robustness.statistics.task_statistics.in_r`) and compares them exactly, breaks per-case ties
``first`` and ``last`` in the case's row order and the final ones in the runs' alphabetical order as challengeR's
aggregated table does, gives a one-run test-based task value nan, and refuses a test-based pair that shares no
case (:mod:`~robustness.statistics.ranking_options`). Bootstrap resamples are weighted cases and keep the
tolerance.
Missing scores in per-case ranks:
``missing="rank-last"`` is challengeR's ``rankNA2`` exactly (:mod:`~robustness.statistics.ranking_options`);
``missing="worst"`` ranks them in the places after the scored runs under every tie rule (``average``: the mean
of those places; ``max``: the last place; ``first``: the runs' order), which differs from ``rankNA2`` where the
last scored runs tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from robustness.errors import InputError, parameter
from robustness.statistics.challenger_order import r_rows
from robustness.statistics.collation import case_order, collated_order
from robustness.statistics.ranking_methods import RANKING_METHODS, RankingMethod, get_ranking
from robustness.statistics.ranking_options import RankingOptions, lower_is_better
from robustness.statistics.ranks import TIE_TOL, rank

__all__ = ["TaskScores", "task_scores", "direction", "check_missing", "treated_scores", "rank_task", "rank_tasks",
           "top", "bootstrap_task_ranks", "RankedTask"]


@dataclass(frozen=True)
class TaskScores:
    """One leaderboard's per-case scores.

    Attributes
    ----------
    task : str
        The task (and metric, ``task / metric``, when the table has several metrics).
    runs, cases : tuple of str
    values : ndarray (R, N)
        nan where a run has no score on a case.
    units : ndarray of int (N,)
        The resampling unit of every case (0, 1, ...; every case its own unless a unit column is given).
    notes : list of str
    metric : str or None
        The metric's name when the table has a metric column (its default direction:
        :func:`~robustness.statistics.ranking_options.lower_is_better`).
    rows : ndarray of int (R, N), optional
        Each score's row in the table (-1 where it has none): the order challengeR aggregates and ranks in.
    scheme : str
        The leaderboard's strategy and metric, joined by ``/`` (empty without those columns): a consensus combines
        the tasks of one scheme, never metrics or strategies as if they were tasks.
    """

    task: str
    runs: tuple
    cases: tuple
    values: np.ndarray
    units: np.ndarray
    notes: list = field(default_factory=list)
    metric: str | None = None
    rows: np.ndarray | None = None
    scheme: str = ""


def direction(ts: TaskScores, options: RankingOptions) -> bool:
    """Whether smaller is better on this leaderboard: the option when given, else the metric's default.

    Parameters
    ----------
    ts : TaskScores
    options : RankingOptions

    Returns
    -------
    bool
    """
    if options.lower_better is not None:
        return bool(options.lower_better)
    return lower_is_better(ts.metric)[0]


_ROW = "\x00row"  # the table's row of each score (a column name no table has)


def task_scores(table: pd.DataFrame, *, case_column: str = "case", run_column: str = "algorithm",
                value_column: str = "value", by: Sequence[str] = (), unit_column: str | None = None,
                task_column: str | None = None) -> list[TaskScores]:
    """The leaderboards of a long per-case table: one per value of the ``by`` columns (task, strategy, metric).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per (task, metric,) case and run; a missing score is nan or an absent row (both listed in the
        task's notes).
    case_column, run_column, value_column : str
    by : sequence of str
        The columns that name a leaderboard (e.g. ``("task", "metric")``); its name joins their values with
        `` / ``. None: one leaderboard named ``all``.
    unit_column : str, optional
    task_column : str, optional
        Which of ``by`` names the challenge's task; the others (strategy, metric) make each leaderboard's
        ``scheme``. None: every ``by`` column is part of the scheme (no task column).

    Returns
    -------
    list of TaskScores
        In the order the tasks first appear.

    Raises
    ------
    InputError
        A (task, metric, case, run) with two different scores.
    """
    keys = list(by)
    out = []
    table = table.assign(**{_ROW: np.arange(len(table))})
    groups = table.groupby(keys, sort=False) if keys else [((), table)]
    for key, df in groups:
        key = key if isinstance(key, tuple) else (key,)
        name = " / ".join(map(str, key)) if keys else "all"
        clash = df.duplicated([case_column, run_column], keep=False)
        if clash.any():
            r = df[clash].iloc[0]
            raise InputError(f"per-case table: run {r[run_column]}, case {r[case_column]} (task {name}) has two "
                             "scores")
        runs = tuple(dict.fromkeys(df[run_column].astype(str)))
        cases = tuple(dict.fromkeys(df[case_column].astype(str)))
        wide = df.assign(**{run_column: df[run_column].astype(str), case_column: df[case_column].astype(str)}) \
            .pivot(index=run_column, columns=case_column, values=value_column).reindex(index=runs, columns=cases)
        values = wide.to_numpy(dtype=np.float64)
        rows = df.assign(**{run_column: df[run_column].astype(str), case_column: df[case_column].astype(str)}) \
            .pivot(index=run_column, columns=case_column, values=_ROW).reindex(index=runs, columns=cases) \
            .fillna(-1).to_numpy(dtype=np.int64)
        notes = []
        absent = len(runs) * len(cases) - len(df)
        if absent:
            notes.append(f"task {name}: {absent} (run, case) pair(s) have no row; they count as missing scores")
        if unit_column is not None:
            unit_of = df.drop_duplicates(case_column).set_index(df.drop_duplicates(case_column)[case_column]
                                                                .astype(str))[unit_column].reindex(cases)
            units = pd.factorize(unit_of.astype(str))[0].astype(np.int64)
        else:
            units = np.arange(len(cases), dtype=np.int64)
        metric = str(dict(zip(keys, key))["metric"]) if "metric" in keys else None
        if metric is not None and not lower_is_better(metric)[1]:  # a known metric's direction is no news
            notes.append(f"metric {metric} is not one this package knows: ranked higher first unless "
                         f"{parameter('RankingOptions', 'lower_better')}=True")
        parts = dict(zip(keys, key))
        scheme = " / ".join(str(v) for k, v in parts.items() if k != task_column)
        out.append(TaskScores(name, runs, cases, values, units, notes, metric, rows, scheme))
    return out


# -- missing scores ----------------------------------------------------------------------------------------------

def treated_scores(ts: TaskScores, values: np.ndarray, method: RankingMethod, options: RankingOptions,
                   lower_better: bool) -> tuple[np.ndarray, list[str]]:
    """The scores after the missing-score treatment (nan: left out or ranked by the method), and the notes.

    Parameters
    ----------
    ts : TaskScores
        The leaderboard (for the messages).
    values : ndarray (R, N)
    method : RankingMethod
    options : RankingOptions
        ``missing``: the treatment.
    lower_better : bool

    Returns
    -------
    (ndarray (R, N), list of str)

    Raises
    ------
    InputError
        A missing score under ``refuse``, or under ``rank-last`` for a method without per-case ranks.
    """
    gaps = np.isnan(values)
    if not gaps.any():
        return values, []
    r, c = np.argwhere(gaps)[0]
    how = options.missing
    count = f"{int(gaps.sum())} missing score(s) in task {ts.task} (e.g. run {ts.runs[r]}, case {ts.cases[c]})"
    where = f"per-case table: no score for run {ts.runs[r]}, case {ts.cases[c]} (task {ts.task})"
    if how == "refuse":
        raise InputError(f"{where}: choose a treatment with {parameter('RankingOptions', 'missing')} "
                         "worst|drop|rank-last|<value>")
    if how == "rank-last" and not method.ranks_missing:
        last = [m.name for m in RANKING_METHODS.values() if m.ranks_missing]
        raise InputError(f"{where}: rank-last ranks missing scores in {', '.join(last)} only, and {method.name} "
                         f"has no per-case ranks; choose its treatment with {parameter('RankingOptions', 'missing')} "
                         "worst|drop|<value> (challengeR's na.treat)")
    if how in ("worst", "rank-last"):
        if method.ranks_missing:
            return values, [f"{count}: ranked last on their case"]
        scored = ~gaps.all(axis=0)
        worst = np.full(values.shape[1], np.nan)
        worst[scored] = (np.nanmax if lower_better else np.nanmin)(values[:, scored], axis=0)
        return np.where(gaps, worst[None, :], values), [f"{count}: given the worst score of their case"]
    if how == "drop":
        return values, [f"{count}: left out"]
    return np.where(gaps, float(how), values), [f"{count}: replaced by {float(how):g}"]


def check_missing(tasks: Sequence[TaskScores], methods: Sequence[str], options: RankingOptions) -> None:
    """Refuse, before any work, a table whose missing scores ``options.missing`` does not treat under ``methods``.

    Parameters
    ----------
    tasks : sequence of TaskScores
    methods : sequence of str
    options : RankingOptions

    Raises
    ------
    InputError
        One line naming the run, case and task; under challengeR's semantics, also a test-based pair of runs that
        shares no scored case (R's ``wilcox.test`` stops there) and a rank-then-aggregate task left without any
        per-case rank (every score missing, under ties max, first or last: R's ``aggregate`` stops there).
    """
    for ts in tasks:
        for method in methods:
            kind = get_ranking(method)
            values, _ = treated_scores(ts, ts.values, kind, options, direction(ts, options))
            if options.semantics == "challenger" and kind.challenger and kind.challenger.refuse:
                kind.challenger.refuse(ts, values, options)


# -- one task ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RankedTask:
    """One task's leaderboard under one method.

    Attributes
    ----------
    task, ranking : str
    runs : tuple of str
    statistic : ndarray (R,)
        The aggregate score, the aggregated rank or the number of runs beaten (nan: the run has no score left).
    ranks : ndarray (R,)
        nan for a run without any score (it is not ranked).
    notes : list of str
    """

    task: str
    ranking: str
    runs: tuple
    statistic: np.ndarray
    ranks: np.ndarray
    notes: list

    def frame(self) -> pd.DataFrame:
        """The leaderboard as a table.

        Returns
        -------
        pandas.DataFrame
            Columns ``task, ranking, run, value, rank`` (``value``: the statistic), ranked runs only, best first.
        """
        keep = ~np.isnan(self.ranks)
        df = pd.DataFrame({"task": self.task, "ranking": self.ranking, "run": np.array(self.runs)[keep],
                           "value": self.statistic[keep], "rank": self.ranks[keep]})
        return df.sort_values(["rank", "run"], kind="stable").reset_index(drop=True)


def _final_ranks(statistic: np.ndarray, options: RankingOptions, rng: np.random.Generator,
                 runs: Sequence[str], *, exact: bool = False) -> np.ndarray:
    """Ranks of a higher-is-better statistic under the tie rule; nan for a run without one.

    Under challengeR's semantics ties ``first`` and ``last`` follow the runs' order as R sorts them (challengeR
    ranks its aggregated table, whose rows are the algorithm factor's levels: ``options.collation``). ``exact``:
    values computed as R computes them (:func:`~robustness.statistics.task_statistics.in_r`) are compared exactly, as
    challengeR does; others tie within :data:`~robustness.statistics.ranks.TIE_TOL`.
    """
    tol = 0.0 if exact else TIE_TOL
    if options.semantics != "challenger" or options.ties not in ("first", "last"):
        return np.where(np.isnan(statistic), np.nan, rank(statistic, ties=options.ties, tol=tol, rng=rng))
    order = collated_order([str(r) for r in runs], options.collation)
    ranked = np.empty_like(statistic)
    ranked[order] = rank(statistic[order], ties=options.ties, tol=tol)
    return np.where(np.isnan(statistic), np.nan, ranked)


def _near_ties(ts: TaskScores, statistic: np.ndarray, label: str) -> list[str]:
    """Notes on different values the default tolerance ties (:data:`~robustness.statistics.ranks.TIE_TOL`)."""
    finite = np.flatnonzero(np.isfinite(statistic))
    order = finite[np.argsort(statistic[finite], kind="stable")]
    notes = []
    for a, b in zip(order[:-1], order[1:]):
        gap = statistic[b] - statistic[a]
        if 0 < gap <= TIE_TOL:
            notes.append(f"task {ts.task}: runs {ts.runs[a]} and {ts.runs[b]} differ by {gap:.3g} in their {label}, "
                         f"within {TIE_TOL:g} (summation-order noise), and are tied; challengeR compares exactly, "
                         "in R's arithmetic, and may order them")
    return notes


def rank_task(ts: TaskScores, method: str = "aggregate", options: RankingOptions = RankingOptions(), *,
              rng: np.random.Generator | int | None = None) -> RankedTask:
    """One task's leaderboard under ``method`` and ``options`` (module notes).

    Parameters
    ----------
    ts : TaskScores
    method : str
        A registered ranking method (``aggregate``, ``rank-then-aggregate``, ``test-based`` or any other:
        :func:`~robustness.statistics.ranking_methods.register_ranking`); its ``case_statistic`` is ranked.
    options : RankingOptions
    rng : numpy.random.Generator or int, optional
        For ``ties="random"``.

    Returns
    -------
    RankedTask

    Raises
    ------
    InputError
        A missing score under ``missing="refuse"`` (or ``rank-last`` for a method that does not rank missing
        scores itself).

    Examples
    --------
    >>> ts = task_scores(pd.DataFrame({"case": ["C1", "C1"], "algorithm": ["A1", "A2"], "value": [0.6, 0.6]}))[0]
    >>> rank_task(ts, "aggregate", RankingOptions(ties="max")).ranks.tolist()
    [2.0, 2.0]
    """
    kind = get_ranking(method)
    gen = np.random.default_rng(rng)
    lower = direction(ts, options)
    values, notes = treated_scores(ts, ts.values, kind, options, lower)
    notes = list(ts.notes) + notes
    if len(ts.runs) == 1:
        notes.append(f"task {ts.task}: only one run, ranked first")
    if len(ts.cases) == 1 and kind.summarises_cases:
        notes.append(f"task {ts.task}: only one case; {method} rests on it alone")
    if kind.task_notes is not None:
        notes += kind.task_notes(ts, values, options)
    form = kind.challenger if options.semantics == "challenger" else None  # the method's own special cases
    in_r = form.statistic if form is not None else None  # R's arithmetic on the table's rows, compared exactly
    rows = r_rows(ts, options.collation) if in_r is not None else None  # (None: a task without table rows)
    if in_r is not None and rows is not None:
        statistic = in_r(values, rows, options=options, lower_better=lower, rng=gen)
    else:
        statistic = kind.case_statistic(values, None, options=options, lower_better=lower, rng=gen)
    scored = (~np.isnan(values)).any(axis=1)
    if form is not None and form.single_run_na and scored.sum() == 1:
        # challengeR: no pair to test, value NA; rankNA2 ranks it 1 under min, average and random ties
        notes.append(f"task {ts.task}: only one run with scores, no test: value nan (challengeR's NA)")
        lone = 1.0 if options.ties in ("min", "average", "random") else np.nan
        return RankedTask(ts.task, method, ts.runs, np.full(len(ts.runs), np.nan), np.where(scored, lone, np.nan),
                          notes)
    unscored = np.isnan(statistic)
    if unscored.any():
        notes.append(f"task {ts.task}: run(s) {', '.join(np.array(ts.runs)[unscored])} have no score left and "
                     "are not ranked")
    if rows is None:  # compared within the tie tolerance, not exactly as R compares
        notes += _near_ties(ts, statistic, kind.statistic)
    return RankedTask(ts.task, method, ts.runs, kind.value(statistic, lower),
                      _final_ranks(statistic, options, gen, ts.runs, exact=rows is not None), notes)


def rank_tasks(tasks: Sequence[TaskScores], methods: Sequence[str] = ("aggregate",),
               options: RankingOptions = RankingOptions(), *, rng: np.random.Generator | int | None = None
               ) -> tuple[pd.DataFrame, list[str]]:
    """Every task's leaderboard under every method: ``ranking.csv``'s rows, and the notes.

    Parameters
    ----------
    tasks : sequence of TaskScores
    methods : sequence of str
    options : RankingOptions
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    (frame, notes)
        Columns ``task, ranking, run, value, rank``.
    """
    gen = np.random.default_rng(rng)
    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    for ts in tasks:
        for method in methods:
            r = rank_task(ts, method, options, rng=gen)
            frames.append(r.frame())
            notes.extend(n for n in r.notes if n not in notes)
    return pd.concat(frames, ignore_index=True), notes


def top(ranking: pd.DataFrame, k: int) -> pd.DataFrame:
    """The runs with fewer than ``k`` runs ahead (more than ``k`` if tied at the cut, any tie rule), as ``subset``.

    Parameters
    ----------
    ranking : pandas.DataFrame
        One task's ranking under one method (:meth:`RankedTask.frame`).
    k : int

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        Several tasks or methods in ``ranking`` (a top ``k`` is about one leaderboard), or ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"top needs k >= 1, got {k}")
    if ranking["task"].nunique() > 1 or ranking["ranking"].nunique() > 1:
        raise ValueError("a top-k subset is about one leaderboard: select one task and one ranking method first")
    r = ranking["rank"].to_numpy(dtype=np.float64)  # runs strictly ahead: two tied first at 1.5 are both top 1
    return ranking[((r[None, :] < r[:, None]).sum(axis=1) < k) & ~np.isnan(r)].reset_index(drop=True)


def bootstrap_task_ranks(ts: TaskScores, method: str = "aggregate", options: RankingOptions = RankingOptions(), *,
                         n_resamples: int = 1000, draws: np.ndarray | None = None,
                         rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Ranks of every run on ``n_resamples`` resamples of the task's units drawn with replacement.

    Each resample is ranked exactly as the task itself (:func:`rank_task`: same options, same tie rule; a fresh
    random order per resample under ``ties="random"``). ``options.resampling``: ``weighted`` (the package's) counts
    a unit drawn k times k times in every method; ``challenger`` reproduces challengeR's bootstrap, where a case
    drawn k times is k copies of its rows under one case: rank-then-aggregate ranks the copies together
    (:func:`~robustness.statistics.task_statistics.rank_then_aggregate_grouped`), the tests pair the distinct
    drawn cases only, and the aggregate is the weighted one (the same). Under challengeR's semantics the aggregate of
    every resample is computed as R computes it, on the resample's rows in ``merge``'s order (the cases sorted,
    each repeated as often as it was drawn), and compared exactly, as challengeR's bootstrap does
    (:func:`~robustness.statistics.task_statistics.in_r_resampled`).

    Parameters
    ----------
    ts : TaskScores
    method : str
    options : RankingOptions
    n_resamples : int
    draws : ndarray of int (B, U), optional
        How many times each resampling unit is drawn in each resample (default: drawn from ``rng``).
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    ndarray (B, R)
        nan where a run has no score left in a resample.
    """
    kind = get_ranking(method)
    gen = np.random.default_rng(rng)
    lower = direction(ts, options)
    values, _ = treated_scores(ts, ts.values, kind, options, lower)
    n_units = int(ts.units.max()) + 1 if ts.units.size else 0
    if draws is None:
        drawn = gen.integers(0, n_units, size=(n_resamples, n_units))
        unit_counts = np.stack([np.bincount(d, minlength=n_units) for d in drawn])
    else:
        unit_counts = np.asarray(draws, dtype=np.int64).reshape(-1, n_units)
    case_weights = unit_counts[:, ts.units]  # (B, N)
    form = kind.challenger
    if options.semantics == "challenger" and form is not None and form.resampled is not None:  # R's arithmetic,
        stat = form.resampled(values, case_weights, case_order([str(c) for c in ts.cases], options.collation),
                              options=options, lower_better=lower)  # compared exactly
        return np.stack([_final_ranks(s, options, gen, ts.runs, exact=True) for s in stat])
    if options.resampling == "challenger" and form is not None and form.resampling is not None:
        stat = form.resampling(values, case_weights, options=options, lower_better=lower, rng=gen)
    else:
        stat = kind.case_statistic(values, case_weights, options=options, lower_better=lower, rng=gen)
    return np.stack([_final_ranks(s, options, gen, ts.runs) for s in stat])
