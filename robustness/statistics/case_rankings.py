"""Leaderboards from per-case scores under every ranking option, per task, with consensus and bootstrap ranks.

This is the exact, option-complete ranking of a per-case table (challengeR's input): the ranks a report prints,
``ranking.csv``, the bootstrap rank distributions and the figures read it. The options are one
:class:`~robustness.statistics.ranking_options.RankingOptions` (tie rule, direction, missing scores,
aggregation, test, adjustment); ``--preset challenger`` gives challengeR's defaults.

A *task* is one leaderboard: one task of the challenge, and one metric of it when the table has several. Each
task is ranked on its own runs and cases (tasks may have different case sets). Three methods, as challengeR's:

``aggregate`` (``aggregateThenRank``)
    Every run's scores over the cases are aggregated (mean, median or a quantile, R's type-7 quantile, over the
    cases it has after the missing-score treatment), then ranked.
``rank-then-aggregate`` (``rankThenAggregate``)
    Per case, the runs are ranked by their score; each run's ranks are aggregated; runs are ranked by that,
    lower first.
``test-based`` (``testThenRank``)
    For every ordered pair of runs ``(i, j)``, a one-sided paired test that ``i`` is better than ``j`` on the
    cases both have (Wilcoxon signed-rank, normal approximation with tie correction and optionally R's
    continuity correction, zero differences dropped; or the paired t-test); the ``R (R - 1)`` p-values
    adjusted together; a run's statistic is the number of runs it beats at ``p <= alpha``; runs are ranked by
    it. (challengeR prints that number divided by ``R - 1``; the ranks are the same.)

Scores within 1e-12 of each other tie (:data:`~robustness.statistics.ranks.TIE_TOL`; challengeR compares
exactly, so the two differ only where means tie within floating-point error). Missing scores in per-case ranks:
``missing="rank-last"`` is challengeR's ``rankNA2`` exactly (:mod:`~robustness.statistics.ranking_options`);
``missing="worst"`` ranks them in the places after the scored runs under every tie rule (``average``: the mean
of those places; ``max``: the last place; ``first``: the runs' order), which differs from ``rankNA2`` where the
last scored runs tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from robustness.errors import InputError
from robustness.statistics.ranking_options import CONSENSUS, RankingOptions, lower_is_better
from robustness.statistics.ranks import TIE_TOL, rank

__all__ = ["TaskScores", "task_scores", "direction", "check_missing", "rank_task", "rank_tasks", "consensus", "top",
           "bootstrap_task_ranks", "CONSENSUS_WEIGHTED", "consensus_values", "paired_p_values", "weighted_p_values",
           "adjust", "signed_rank_p", "METHODS", "CONSENSUS"]

METHODS = ("aggregate", "rank-then-aggregate", "test-based")


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
    """

    task: str
    runs: tuple
    cases: tuple
    values: np.ndarray
    units: np.ndarray
    notes: list = field(default_factory=list)
    metric: str | None = None


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


def task_scores(table: pd.DataFrame, *, case_column: str = "case", run_column: str = "algorithm",
                value_column: str = "value", by: Sequence[str] = (), unit_column: str | None = None
                ) -> list[TaskScores]:
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
        if metric is not None:
            lower, known = lower_is_better(metric)
            notes.append(f"task {name}: metric {metric} ranked {'lower' if lower else 'higher'} first ("
                         + ("its default; --higher-better or --lower-better overrides)" if known else
                            "not a metric this package knows: higher is better unless --lower-better)"))
        out.append(TaskScores(name, runs, cases, values, units, notes, metric))
    return out


# -- missing scores ----------------------------------------------------------------------------------------------

def _missing(ts: TaskScores, values: np.ndarray, method: str, options: RankingOptions, lower_better: bool):
    """The scores after the missing-score treatment (nan: left out), and what was done (notes)."""
    gaps = np.isnan(values)
    if not gaps.any():
        return values, []
    r, c = np.argwhere(gaps)[0]
    how = options.missing
    count = f"{int(gaps.sum())} missing score(s) in task {ts.task} (e.g. run {ts.runs[r]}, case {ts.cases[c]})"
    if how == "refuse" or (how == "rank-last" and method != "rank-then-aggregate"):
        raise InputError(f"per-case table: no score for run {ts.runs[r]}, case {ts.cases[c]} (task {ts.task}): "
                         "choose a treatment with --missing worst|drop|rank-last|<value>"
                         + (" (rank-last applies to rank-then-aggregate only)" if how == "rank-last" else ""))
    if how in ("worst", "rank-last"):
        if method == "rank-then-aggregate":
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
        One line naming the run, case and task.
    """
    for ts in tasks:
        for method in methods:
            _missing(ts, ts.values, method, options, direction(ts, options))


# -- aggregation -------------------------------------------------------------------------------------------------

def _aggregate(values: np.ndarray, how: str | float, weights: np.ndarray | None = None) -> np.ndarray:
    """Aggregate along the last axis over the non-missing values (``weights``: whole-number repeats per case)."""
    if weights is not None:
        values = np.repeat(values, np.asarray(weights, dtype=np.int64), axis=-1)
    with np.errstate(invalid="ignore"), _quiet():
        if how == "mean":
            return np.nanmean(values, axis=-1)
        if how == "median":
            return np.nanmedian(values, axis=-1)
        return np.nanquantile(values, float(how), axis=-1)  # numpy's default 'linear' is R's type 7


def _quiet():
    """Silence numpy's 'mean of empty slice' warnings: an all-missing run is reported by the caller."""
    import warnings

    return warnings.catch_warnings(action="ignore", category=RuntimeWarning)


# -- paired tests ------------------------------------------------------------------------------------------------

def signed_rank_p(d: np.ndarray, *, continuity: bool = False, tol: float = TIE_TOL) -> float:
    """One-sided p-value of the Wilcoxon signed-rank test that the differences ``d`` are positive.

    Normal approximation with R's tie correction; differences within ``tol`` of 0 are dropped; with
    ``continuity``, R's ``wilcox.test(correct=TRUE)`` correction (0.5 subtracted from the statistic). No
    difference left: p = 1.

    Parameters
    ----------
    d : ndarray (n,)
    continuity : bool
    tol : float

    Returns
    -------
    float

    Examples
    --------
    >>> round(signed_rank_p(np.full(4, 0.8), continuity=True), 4)  # challengeR's test TtR-03
    0.0359
    >>> round(signed_rank_p(np.full(4, 0.8)), 4)
    0.0228
    """
    from scipy.special import ndtr
    from scipy.stats import rankdata

    d = np.asarray(d, dtype=np.float64)
    d = d[np.abs(d) > tol]
    n = d.size
    if n == 0:
        return 1.0
    r = rankdata(np.abs(d))
    w = float(r[d > 0].sum())
    _, t = np.unique(r, return_counts=True)
    sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - float((t ** 3 - t).sum()) / 48.0)
    z = (w - n * (n + 1) / 4.0 - (0.5 if continuity else 0.0)) / sigma
    return float(ndtr(-z))


def _t_p(d: np.ndarray) -> float:
    """One-sided paired t-test p-value that the mean of ``d`` is positive (1 where it is undefined)."""
    from scipy.stats import t as student

    n = d.size
    if n < 2:
        return 1.0
    sd = float(np.std(d, ddof=1))
    mean = float(np.mean(d))
    if not sd > TIE_TOL:  # constant differences (up to rounding): certain in their direction
        return 1.0 if mean <= 0 else 0.0
    return float(student.sf(mean / (sd / np.sqrt(n)), n - 1))


def paired_p_values(values: np.ndarray, *, test: str = "wilcoxon", continuity: bool = False,
                    lower_better: bool = False) -> np.ndarray:
    """p-values of the one-sided tests "run i is better than run j" for every ordered pair.

    Parameters
    ----------
    values : ndarray (R, N)
        Per-case scores (nan: no score; a pair is tested on the cases both runs have).
    test : {'wilcoxon', 't'}
    continuity : bool
        R's continuity correction of the Wilcoxon test.
    lower_better : bool

    Returns
    -------
    ndarray (R, R)
        ``p[i, j]``; nan on the diagonal.
    """
    n_r = values.shape[0]
    p = np.full((n_r, n_r), np.nan)
    sign = -1.0 if lower_better else 1.0
    for i in range(n_r):
        for j in range(n_r):
            if i == j:
                continue
            both = ~np.isnan(values[i]) & ~np.isnan(values[j])
            d = sign * (values[i, both] - values[j, both])
            p[i, j] = signed_rank_p(d, continuity=continuity) if test == "wilcoxon" else _t_p(d)
    return p


def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of one family (nan entries are left out and stay nan).

    Parameters
    ----------
    p : ndarray
    method : {'none', 'holm', 'bonferroni', 'fdr_bh'}
        Benjamini-Hochberg for ``fdr_bh`` (R's ``p.adjust(method="BH")``).

    Returns
    -------
    ndarray
        Shaped like ``p``.

    Examples
    --------
    >>> adjust(np.array([0.01, 0.04, 0.03]), "fdr_bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    from robustness.statistics.inference import holm

    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if method == "none" or m == 0:
        adj = q
    elif method == "holm":
        adj = holm(q)
    elif method == "bonferroni":
        adj = np.minimum(1.0, q * m)
    elif method == "fdr_bh":
        order = np.argsort(q, kind="stable")[::-1]
        ranks = np.arange(m, 0, -1)
        steps = np.minimum.accumulate(q[order] * m / ranks)
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, steps)
    else:
        raise ValueError(f"unknown adjustment {method!r}")
    out[ok] = adj
    return out


def weighted_p_values(values: np.ndarray, weights: np.ndarray, *, test: str = "wilcoxon", continuity: bool = False,
                      lower_better: bool = False, tol: float = TIE_TOL) -> np.ndarray:
    """:func:`paired_p_values` on many weightings of the cases at once (bootstrap resamples).

    A weight is how many times a case is drawn: the tests are those of the table with every case repeated that
    often. Each pair's differences are sorted by size once; a weighting's signed-rank statistic is then sums over
    the groups of equal ``|d|`` (tie-averaged ranks from the groups' cumulative counts).

    Parameters
    ----------
    values : ndarray (R, N)
    weights : ndarray (B, N)
        Whole-number repeats of each case.
    test, continuity, lower_better, tol
        As :func:`paired_p_values` and :func:`signed_rank_p`.

    Returns
    -------
    ndarray (B, R, R)
        ``p[b, i, j]``: run ``i`` better than run ``j`` under weighting ``b``; nan on the diagonal.
    """
    from scipy.special import ndtr
    from scipy.stats import t as student

    w_all = np.asarray(weights, dtype=np.float64)
    n_b, n_r = w_all.shape[0], values.shape[0]
    p = np.full((n_b, n_r, n_r), np.nan)
    sign = -1.0 if lower_better else 1.0
    cc = 0.5 if continuity else 0.0
    for i in range(n_r):
        for j in range(i + 1, n_r):
            both = ~np.isnan(values[i]) & ~np.isnan(values[j])
            d = sign * (values[i, both] - values[j, both])
            w = w_all[:, both]
            if test == "t":
                n = w.sum(axis=1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = (w * d).sum(axis=1) / n
                    var = ((w * d * d).sum(axis=1) - n * mean ** 2) / (n - 1)
                    var = np.where(var > TIE_TOL ** 2, var, 0.0)  # constant differences, up to rounding
                    z = mean / np.sqrt(var / n)
                    p_ij = np.where(n < 2, 1.0, np.where(var > 0, student.sf(z, np.maximum(n - 1, 1)),
                                                         np.where(mean > 0, 0.0, 1.0)))
                    p_ji = np.where(n < 2, 1.0, np.where(var > 0, student.sf(-z, np.maximum(n - 1, 1)),
                                                         np.where(mean < 0, 0.0, 1.0)))
            else:
                keep = np.abs(d) > tol
                d, w = d[keep], w[:, keep]
                order = np.argsort(np.abs(d), kind="stable")
                d, w = d[order], w[:, order]
                a = np.abs(d)
                starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]]) if d.size else np.zeros(0, dtype=np.int64)
                if d.size:
                    counts = np.add.reduceat(w, starts, axis=1)  # (B, G)
                    positive = np.add.reduceat(w * (d > 0), starts, axis=1)
                else:
                    counts = positive = np.zeros((n_b, 0))
                before = np.cumsum(counts, axis=1) - counts
                ranks = before + (counts + 1) / 2.0
                w_plus = (ranks * positive).sum(axis=1)
                n = counts.sum(axis=1)
                total = n * (n + 1) / 2.0
                sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - (counts ** 3 - counts).sum(axis=1) / 48.0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    z_ij = (w_plus - n * (n + 1) / 4.0 - cc) / sigma
                    z_ji = (total - w_plus - n * (n + 1) / 4.0 - cc) / sigma
                p_ij = np.where(n > 0, ndtr(-z_ij), 1.0)
                p_ji = np.where(n > 0, ndtr(-z_ji), 1.0)
            p[:, i, j], p[:, j, i] = p_ij, p_ji
    return p


def _wins(values: np.ndarray, options: RankingOptions, lower_better: bool,
          weights: np.ndarray | None = None) -> np.ndarray:
    """Runs beaten by each run (R,), or per weighting (B, R).

    nan for a run without any score there (left out of the tests and of the family of p-values adjusted together).
    """
    w = np.ones((1, values.shape[1])) if weights is None else np.asarray(weights, dtype=np.float64)
    p = weighted_p_values(values, w, test=options.test, continuity=options.continuity, lower_better=lower_better)
    has = (~np.isnan(values)).astype(np.float64)
    scored = (w @ has.T) > 0  # (B, R)
    out = np.full(scored.shape, np.nan)
    for b in range(w.shape[0]):
        s = np.flatnonzero(scored[b])
        beats = adjust(p[b][np.ix_(s, s)], options.adjustment) <= options.alpha  # nan diagonal: never a win
        out[b, s] = beats.sum(axis=1)
    return out[0] if weights is None else out


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


def _registered(values, method, lower_better, weights=None):
    """A ranking method of the registry beyond the three, through its own ``prepare``.

    (:func:`robustness.statistics.ranking_methods.register_ranking`.) The cases are its units; every run needs a
    score on every case.
    """
    from robustness.statistics.ranking_methods import get_ranking, prepare
    from robustness.statistics.schemes import schemes_from_table

    if np.isnan(values).any():
        raise InputError(f"the ranking method {method!r} needs a score for every run on every case: choose "
                         "--missing worst or a number")
    n_r, n_c = values.shape
    long = pd.DataFrame({"case": np.tile(np.arange(n_c), n_r).astype(str),
                         "algorithm": np.repeat(np.arange(n_r), n_c).astype(str),
                         "value": (-values if lower_better else values).ravel()})
    rankable = prepare(schemes_from_table(long), method)
    sign = get_ranking(method).sign
    if weights is None:
        return sign * rankable.scores()[0]
    draws = [np.repeat(np.arange(n_c), np.asarray(w, dtype=np.int64))[None] for w in weights]  # lengths differ
    return sign * np.stack([rankable.resample_scores(d)[0, 0] for d in draws])


def _statistic(values, method, options, lower_better, rng, weights=None):
    """The statistic of every run (R,) or (B, R) with ``weights`` (B, N) of whole-number case repeats."""
    if method not in METHODS:
        return _registered(values, method, lower_better, weights)
    if method == "aggregate":
        if weights is None:
            return _aggregate(values, options.aggregate)
        if options.aggregate == "mean":  # weighted means of the scored cases, all resamples at once
            have = ~np.isnan(values)
            w = np.asarray(weights, dtype=np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                return (w @ np.where(have, values, 0.0).T) / (w @ have.T.astype(np.float64))
        return np.stack([_aggregate(values, options.aggregate, w) for w in weights])
    if method == "rank-then-aggregate":
        per_case = rank(values.T, ties=options.ties, lower_better=lower_better, rng=rng).T
        if options.missing == "drop":
            per_case = np.where(np.isnan(values), np.nan, per_case)
        elif options.missing == "rank-last":
            per_case = _rank_na2(per_case, np.isnan(values), options.ties)
        if weights is None:
            return _aggregate(per_case, options.aggregate)
        return np.stack([_aggregate(per_case, options.aggregate, w) for w in weights])
    if weights is None:
        return _wins(values, options, lower_better)
    return _wins(values, options, lower_better, weights)


def _rank_na2(ranks: np.ndarray, missing: np.ndarray, ties: str) -> np.ndarray:
    """The missing scores of per-case ranks as challengeR's ``rankNA2`` ranks them of per-case ranks (R, N).

    After the largest rank of the scored runs of the case, plus 1 (min, random) or the mean of 1..k (average, k
    missing); left out (nan) under max and first, where R's ``rank(na.last="keep")`` leaves them.
    """
    out = np.where(missing, np.nan, ranks)
    k = missing.sum(axis=0)
    with _quiet():
        top = np.nan_to_num(np.nanmax(out, axis=0), nan=0.0)
    if ties in ("min", "random"):
        fill = top + 1.0
    elif ties == "average":
        fill = top + (k + 1) / 2.0
    else:
        return out
    return np.where(missing, fill[None, :], out)


def _final_ranks(statistic, method, options, lower_better, rng):
    if method not in METHODS:  # a registered method: its statistic is ``sign`` times what the engines rank higher
        from robustness.statistics.ranking_methods import get_ranking

        low = get_ranking(method).sign < 0
    else:
        low = (method == "rank-then-aggregate") or (method == "aggregate" and lower_better)
    ranks = rank(statistic, ties=options.ties, lower_better=low, rng=rng)
    return np.where(np.isnan(statistic), np.nan, ranks)


def rank_task(ts: TaskScores, method: str = "aggregate", options: RankingOptions = RankingOptions(), *,
              rng: np.random.Generator | int | None = None) -> RankedTask:
    """One task's leaderboard under ``method`` and ``options`` (module notes).

    Parameters
    ----------
    ts : TaskScores
    method : str
        ``aggregate``, ``rank-then-aggregate``, ``test-based`` (module notes), or any other method of the registry
        (:func:`~robustness.statistics.ranking_methods.register_ranking`), ranked through its own ``prepare`` on
        the cases.
    options : RankingOptions
    rng : numpy.random.Generator or int, optional
        For ``ties="random"``.

    Returns
    -------
    RankedTask

    Raises
    ------
    InputError
        A missing score under ``missing="refuse"`` (or ``rank-last`` outside rank-then-aggregate).

    Examples
    --------
    >>> ts = task_scores(pd.DataFrame({"case": ["C1", "C1"], "algorithm": ["A1", "A2"], "value": [0.6, 0.6]}))[0]
    >>> rank_task(ts, "aggregate", RankingOptions(ties="max")).ranks.tolist()
    [2.0, 2.0]
    """
    if method not in METHODS:
        from robustness.statistics.ranking_methods import get_ranking

        get_ranking(method)  # an unknown name is refused here; a registered one ranks through its own prepare
    gen = np.random.default_rng(rng)
    lower = direction(ts, options)
    values, notes = _missing(ts, ts.values, method, options, lower)
    notes = list(ts.notes) + notes
    if len(ts.runs) == 1:
        notes.append(f"task {ts.task}: only one run, ranked first")
    if len(ts.cases) == 1 and method != "aggregate":
        notes.append(f"task {ts.task}: only one case; {method} rests on it alone")
    statistic = _statistic(values, method, options, lower, gen)
    unscored = np.isnan(statistic)
    if unscored.any():
        notes.append(f"task {ts.task}: run(s) {', '.join(np.array(ts.runs)[unscored])} have no score left and "
                     "are not ranked")
    return RankedTask(ts.task, method, ts.runs, statistic, _final_ranks(statistic, method, options, lower, gen),
                      notes)


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
    frames, notes = [], []
    for ts in tasks:
        for method in methods:
            r = rank_task(ts, method, options, rng=gen)
            frames.append(r.frame())
            notes.extend(n for n in r.notes if n not in notes)
    return pd.concat(frames, ignore_index=True), notes


def consensus(ranking: pd.DataFrame, *, method: str = "mean-rank", weights: Mapping[str, float] | None = None,
              ties: str = "min") -> pd.DataFrame:
    """A consensus ranking across tasks: runs ordered by their (weighted) mean or median rank over the tasks.

    ``mean-rank`` is challengeR's ``consensus(method="euclidean")`` and the BraTS ranking across regions. A run
    absent from a task gets that task's number of ranked runs plus one there (listed in the ``absent`` column).

    Parameters
    ----------
    ranking : pandas.DataFrame
        :func:`rank_tasks`' frame for one ranking method.
    method : {'mean-rank', 'median-rank'}
    weights : mapping, optional
        Task -> weight (default 1 each; with ``median-rank``, a weighted median).
    ties : str
        The tie rule of the consensus ranks.

    Returns
    -------
    pandas.DataFrame
        Columns ``ranking, consensus, run, value, rank, absent`` (``value``: the mean or median rank), best first.
    """
    if method not in CONSENSUS:
        raise ValueError(f"consensus must be one of {', '.join(CONSENSUS)}, got {method!r}")
    wide = ranking.pivot(index="run", columns="task", values="rank")
    tasks = list(dict.fromkeys(ranking["task"]))
    wide = wide.reindex(columns=tasks)
    absent = wide.isna()
    w = np.array([float((weights or {}).get(t, 1.0)) for t in tasks])
    if weights:
        unknown = set(weights) - set(tasks)
        if unknown:
            raise ValueError(f"weights name unknown task(s): {', '.join(sorted(map(str, unknown)))}")
    if (w < 0).any() or w.sum() <= 0:
        raise ValueError("task weights must be >= 0 with a positive sum")
    stat = consensus_values(wide.to_numpy(dtype=np.float64), w, method)
    out = pd.DataFrame({"ranking": ranking["ranking"].iloc[0] if len(ranking) else "", "consensus": method,
                        "run": wide.index, "value": stat,
                        "rank": rank(stat, ties=ties, lower_better=True),
                        "absent": [", ".join(np.array(tasks)[a]) for a in absent.to_numpy()]})
    return out.sort_values(["rank", "run"], kind="stable").reset_index(drop=True)


def _mean_rank(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x @ w / w.sum()


def _median_rank(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1, x.shape[-1])
    return np.array([_weighted_median(row, w) for row in flat]).reshape(x.shape[:-1])


#: The consensus statistics: ranks (..., T) over the tasks and task weights (T,) -> (...).
CONSENSUS_WEIGHTED = {"mean-rank": _mean_rank, "median-rank": _median_rank}


def consensus_values(ranks: np.ndarray, weights: np.ndarray, method: str = "mean-rank") -> np.ndarray:
    """Every run's consensus statistic from its ranks in the tasks.

    A run absent from a task (nan) counts there as one place below that task's last.

    Parameters
    ----------
    ranks : ndarray (..., R, T)
        Ranks of R runs in T tasks (leading axes: resamples); nan where a run is not ranked.
    weights : ndarray (T,)
    method : {'mean-rank', 'median-rank'}

    Returns
    -------
    ndarray (..., R)
    """
    with _quiet():
        last = np.nanmax(ranks, axis=-2, keepdims=True)  # a task where no run is ranked: 0
    filled = np.where(np.isnan(ranks), np.nan_to_num(last, nan=0.0) + 1.0, ranks)
    return CONSENSUS_WEIGHTED[method](filled, weights)


def _weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The lower weighted median, averaged with the next value where the weight splits exactly in half."""
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    keep = w > 0
    x, w = x[keep], w[keep]
    cum = np.cumsum(w) / w.sum()
    k = int(np.searchsorted(cum, 0.5))
    if np.isclose(cum[k], 0.5) and k + 1 < x.size:
        return float((x[k] + x[k + 1]) / 2)
    return float(x[k])


def top(ranking: pd.DataFrame, k: int) -> pd.DataFrame:
    """The runs ranked ``k`` or better (more than ``k`` where runs tie at the cut), as challengeR's ``subset``.

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
    return ranking[ranking["rank"] <= k].reset_index(drop=True)


def bootstrap_task_ranks(ts: TaskScores, method: str = "aggregate", options: RankingOptions = RankingOptions(), *,
                         n_resamples: int = 1000, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Ranks of every run on ``n_resamples`` resamples of the task's units drawn with replacement.

    Each resample is ranked exactly as the task itself (:func:`rank_task`: same options, same tie rule; a fresh
    random order per resample under ``ties="random"``).

    Parameters
    ----------
    ts : TaskScores
    method : str
    options : RankingOptions
    n_resamples : int
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    ndarray (B, R)
        nan where a run has no score left in a resample.
    """
    gen = np.random.default_rng(rng)
    lower = direction(ts, options)
    values, _ = _missing(ts, ts.values, method, options, lower)
    n_units = int(ts.units.max()) + 1 if ts.units.size else 0
    draws = gen.integers(0, n_units, size=(n_resamples, n_units))
    unit_counts = np.stack([np.bincount(d, minlength=n_units) for d in draws])
    case_weights = unit_counts[:, ts.units]  # (B, N)
    stat = _statistic(values, method, options, lower, gen, weights=case_weights)
    return np.stack([_final_ranks(s, method, options, lower, gen) for s in stat])
