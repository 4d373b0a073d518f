"""Rankings, rank convergence, bootstrap and significance for per-case scores from any pipeline (challengeR's table).

The table has one row per case and run with a score in long format, optionally a task column (each task its own
leaderboard), ``strategy`` and ``metric`` columns holding several schemes, and a column grouping cases into
resampling units (:func:`robustness.io.read_case_table`).

Two parts:

- every task's leaderboard under every ranking method and the ranking options
  (:mod:`robustness.statistics.case_rankings`: ``ranking.csv``), the consensus across tasks (``consensus.csv``), and
  bootstrap rank distributions under the same options and tie rule (``rank_bootstrap.csv``, ``rank_frequency.csv``,
  ``rank_bootstrap_tau.csv``);
- for a one-task table with a score for every run on every case, the convergence curves, score intervals,
  significance and distance to unlimited data of the main job, under the same ranking options (the engines
  recompute a method's statistic where no kernel implements the options:
  :func:`robustness.statistics.ranking_methods.prepare`). Where the data do not allow them, the results' warnings
  say why (:func:`engine_limits`).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from robustness.errors import InputError, deprecated_keywords, parameter
from robustness.io.case_table import SCHEME_COLUMNS, CaseColumns
from robustness.results.study_result import StudyResult, Verdicts
from robustness.statistics.case_rankings import (
    TaskScores,
    check_missing,
    direction,
    task_scores,
)
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import check_target
from robustness.statistics.schemes import Schemes
from robustness.statistics.table_schemes import schemes_from_table
from robustness.studies.common import (
    ResamplingOptions,
    bootstrap_tables,
    convergence_tables,
    methods_meta,
    resample,
    uncertainty_tables,
)
from robustness.studies.resampling_verdicts import ranking_verdicts, resampling_verdicts
from robustness.studies.steps import Step, run_steps
from robustness.studies.table_ranks import rank_tables

__all__ = ["TableOptions", "PreparedTable", "prepare", "engine_ranking", "run", "fingerprint", "engine_limits",
           "rank_tables"]

STUDY = "table_rank_convergence"
#: The report and its figure show at most this many schemes of a table.
SHOWN_SCHEMES = 4


@dataclass(frozen=True)
class TableOptions(ResamplingOptions):
    """The per-case table study's options: those of every resampling study, and the consensus across tasks.

    Attributes
    ----------
    consensus : str
        ``mean-rank``, ``median-rank`` or ``euclidean`` (challengeR's;
        :func:`robustness.statistics.consensus.consensus`).
    task_weights : tuple of (str, float)
        Weights of the tasks in the consensus (default 1 each).
    top : int, optional
        Also the runs ranked ``top`` or better per leaderboard (challengeR's ``subset(top = k)``; more where runs
        tie at the cut): ``top.csv`` and a report section.
    rope : float, optional
        Also the Bayesian signed-rank test with this region of practical equivalence between neighbours down each
        leaderboard: ``bayes_signed_rank.csv`` and a report section.
    """

    consensus: str = "mean-rank"
    task_weights: tuple = ()
    top: int | None = None
    rope: float | None = None


def engine_limits(tasks: Sequence[TaskScores], *, n_tasks: int = 1) -> list:
    """Why the resampling engines (curves, intervals, significance) cannot run on this table's data: one line each.

    Every ranking option holds in the engines (or is refused when the options are parsed); what remains is what
    the data allow.

    Parameters
    ----------
    tasks : sequence of TaskScores
        The leaderboards (a task's strategies and metrics are several; the engines hold them together).
    n_tasks : int
        The tasks of the table's task column (1 without one).

    Returns
    -------
    list of str
        Empty when they can run.
    """
    why = []
    if max(len(t.runs) for t in tasks) < 2:
        why.append("one run only (nothing to compare)")
    if max(int(t.units.max()) + 1 for t in tasks) < 2:
        why.append("one unit only (curves and resamples need at least 2)")
    if n_tasks > 1:
        why.append("the table has several tasks (the curves are per leaderboard: select one task with "
                   f"{parameter('prepare', 'only_task')})")
    if any(np.isnan(t.values).any() for t in tasks) and len(_complete_cases(tasks)) < 2:
        why.append("fewer than 2 cases have a score for every run (the curves and resamples compare every run on "
                   "the same cases)")
    return why


def _complete_cases(tasks: Sequence[TaskScores]) -> list[str]:
    """The cases every run of every leaderboard has a score on (what the engines can compare the runs on)."""
    incomplete = {c for t in tasks for c, gap in zip(t.cases, np.isnan(t.values).any(axis=0)) if gap}
    return [c for c in dict.fromkeys(c for t in tasks for c in t.cases) if c not in incomplete]


def _engine_cases(table: pd.DataFrame, tasks: Sequence[TaskScores], case_column: str, notes: list) -> pd.DataFrame:
    """The rows the engines use: every case where a score is missing is left out of them (and said so)."""
    every = list(dict.fromkeys(c for t in tasks for c in t.cases))
    complete = _complete_cases(tasks)
    if len(complete) == len(every):
        return table
    left = [c for c in every if c not in set(complete)]
    shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
    notes.append(f"curves, score intervals and significance use the {len(complete)} of {len(every)} cases where "
                 f"every run has a score; {len(left)} case(s) with a missing score are left out of them ({shown}); "
                 "the leaderboards and their bootstrap use every case, under the missing-score treatment")
    return table[table[case_column].astype(str).isin(set(complete))]


def engine_ranking(ranking: RankingOptions, *, rankings_only: bool = False) -> dict:
    """The ranking options the resampling engines take from the leaderboards' (as :class:`TableOptions` fields).

    The engines rank under the same options; with ``rankings_only`` they do not run, and their tie rule stays the
    fixed default (random ties hold for the leaderboards alone).

    Parameters
    ----------
    ranking : RankingOptions
    rankings_only : bool

    Returns
    -------
    dict
    """
    return {"ties": "average" if rankings_only else ranking.ties, "alpha": ranking.alpha,
            "adjustment": ranking.adjustment, "aggregate": ranking.aggregate, "test": ranking.test,
            "continuity": ranking.continuity}


@dataclass
class PreparedTable:
    """A per-case table made ready for :func:`run`.

    Attributes
    ----------
    tasks : list of TaskScores
        The leaderboards.
    schemes : Schemes or None
        The engines' form (None: they do not run, and ``notes`` says why).
    notes : list of str
        What reading and preparing the table noted (the results' warnings).
    source : str
        The table's path, for the report.
    unit : str
        What a resampling unit is (the unit column's name, or ``case``).
    """

    tasks: list
    schemes: Schemes | None
    notes: list = field(default_factory=list)
    source: str = "the table"
    unit: str = "case"


def _only_task(table: pd.DataFrame, task: str | None, only: str | None, source: str) -> pd.DataFrame:
    if only is None:
        return table
    if task is None:
        raise InputError(f"{source}: {parameter('prepare', 'only_task')} {only}: the table has no task column")
    known = list(dict.fromkeys(table[task]))
    if only not in known:
        raise InputError(f"{source}: no task {only!r} (tasks: {', '.join(known)})")
    return table[table[task] == only]


def _engine_schemes(table: pd.DataFrame, tasks: Sequence[TaskScores], ranking: RankingOptions, notes: list, *,
                    case_column: str, run_column: str, value_column: str, unit_column: str | None) -> Schemes:
    """The engines' schemes: a lower-better metric's scores negated (the engines rank higher first), sign -1."""
    lower = {t.metric: direction(t, ranking) for t in tasks}
    by_metric = "metric" in table.columns
    flip = table["metric"].astype(str).map(lower).to_numpy(dtype=bool) if by_metric else \
        np.full(len(table), lower[None])
    engine_table = table.assign(**{value_column: np.where(flip, -table[value_column], table[value_column])})
    schemes = schemes_from_table(engine_table, case_column=case_column, run_column=run_column,
                                 value_column=value_column, unit_column=unit_column)
    if flip.any():  # stored negated, with sign -1: intervals and differences are shown in the metric's sign
        signs = [-1.0 if lower[metric if by_metric else None] else 1.0 for _, metric, _ in schemes.names]
        schemes = replace(schemes, signs=np.array(signs))
        notes.append("lower is better for " + (", ".join(sorted(str(m) for m, v in lower.items() if v))
                                               if by_metric else "these scores")
                     + ": the engines rank the negated scores (higher is better there); every table shows "
                     "the scores as given")
    return schemes


def prepare(table: pd.DataFrame, options: TableOptions, ranking: RankingOptions, *, source: str,
            columns: CaseColumns = CaseColumns(), only_task: str | None = None, methods: Sequence[str] = (),
            rankings_only: bool = False, **deprecated: Any) -> PreparedTable:
    """The table's leaderboards and, where the data allow, the engines' schemes; every check before any work.

    Parameters
    ----------
    table : DataFrame
        As read by :func:`robustness.io.case_table.read_case_table`.
    options : TableOptions
    ranking : RankingOptions
        The leaderboards' ranking options.
    source : str
        The table's path (named in every error).
    columns : CaseColumns
        Its case, run, score, unit and task columns (as read).
    only_task : str, optional
        Rank this task only.
    methods : sequence of str
        The leaderboards' ranking methods.
    rankings_only : bool
        No curves, intervals or significance.
    **deprecated
        ``case_column``, ``run_column``, ``value_column``, ``unit_column``, ``task_column`` (deprecated: pass
        ``columns``) and ``notes`` (what reading the table noted, kept first in the prepared table's notes;
        deprecated: add them to its ``notes``).

    Returns
    -------
    PreparedTable

    Raises
    ------
    InputError
        An unknown task, a missing score a method cannot rank, weights of unknown tasks, a size target the runs
        cannot meet.
    """
    legacy = deprecated_keywords("prepare", deprecated, (*_COLUMN_KEYWORDS, "notes"), "columns=CaseColumns(...)")
    notes = list(legacy.pop("notes", ()))
    columns = replace(columns, **{_COLUMN_KEYWORDS[k]: v for k, v in legacy.items()})
    case_column, run_column, value_column, unit_column = columns.case, columns.run, columns.value, columns.unit
    task = columns.task or ("task" if "task" in table.columns else None)
    table = _only_task(table, task, only_task, source)
    by = [c for c in ((task,) if task else ()) + SCHEME_COLUMNS if c in table.columns]
    tasks = task_scores(table, case_column=case_column, run_column=run_column, value_column=value_column,
                        by=by, unit_column=unit_column, task_column=task)
    check_target(options.target, len({r for t in tasks for r in t.runs}))
    check_missing(tasks, methods, ranking)
    if task is None and len({t.scheme for t in tasks}) > 1:
        notes.append(f"no task column: each of the {len(tasks)} strategy and metric leaderboards is ranked on its "
                     "own, and none is combined with another into a consensus (a consensus combines tasks)")
    _check_task_weights(options, list(dict.fromkeys(str(v) for v in table[task].unique())) if task else [])
    obstacles = [] if rankings_only else _obstacles(tasks, table[task].nunique() if task else 1, options.step)
    if obstacles:  # asked for rankings only: nothing to say
        notes.append("convergence curves, score intervals and pairwise differences over resampled units not "
                     "computed: " + "; ".join(obstacles) + " (the rankings, consensus, bootstrap rank distributions, "
                     "significance maps and the per-leaderboard comparisons are)")
    schemes = None if rankings_only or obstacles else _engine_schemes(
        _engine_cases(table, tasks, case_column, notes), tasks, ranking, notes, case_column=case_column,
        run_column=run_column, value_column=value_column, unit_column=unit_column)
    return PreparedTable(tasks, schemes, notes, source=source, unit=unit_column or "case")


#: prepare's keywords of before :class:`CaseColumns`, and the field each became.
_COLUMN_KEYWORDS = {"case_column": "case", "run_column": "run", "value_column": "value", "unit_column": "unit",
                    "task_column": "task"}


def _check_task_weights(options: TableOptions, known: list[str]) -> None:
    """The tasks weighted are the table's (``known``)."""
    unknown = [name for name, _ in options.task_weights if name not in known]
    if unknown:
        raise InputError(f"{parameter('TableOptions', 'task_weights')} names unknown task(s) {', '.join(unknown)} "
                         "(tasks: "
                         f"{', '.join(known) or 'none: the table has no task column'})")


def _obstacles(tasks: Sequence[TaskScores], n_tasks: int, step: int) -> list[str]:
    """Why the resampling engines cannot run on ``tasks`` (:func:`engine_limits`, or a step past the units)."""
    found = engine_limits(tasks, n_tasks=n_tasks)
    n_units = max(int(t.units.max()) + 1 for t in tasks)
    if not found and step >= n_units:
        found.append(f"{parameter('TableOptions', 'step')} {step} leaves fewer than 2 recorded prefixes of the "
                     f"{n_units} units (use a step below that)")
    return found


def fingerprint(tasks: Sequence[TaskScores]) -> str:
    """The identity of a table's scores (decides whether a results folder holds this input's results).

    Parameters
    ----------
    tasks : sequence of TaskScores

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    for t in tasks:
        h.update(repr((t.task, t.runs, t.cases, t.units.tolist())).encode() + t.values.tobytes())
    return h.hexdigest()


def run(prepared: PreparedTable, options: TableOptions = TableOptions(), *legacy: Any,
        ranking_options: RankingOptions | None = None, methods: Sequence[str] | None = None, n_jobs: int = 1,
        progress: bool = False, **deprecated: Any) -> StudyResult:
    """The study on a per-case table: its rankings, and the resampling engines' study where they can run.

    Parameters
    ----------
    prepared : PreparedTable
        The table's leaderboards (:func:`robustness.statistics.case_rankings.task_scores`), its macro schemes on
        its resampling unit for the engines (None: they do not run; :func:`engine_limits` says why, and the notes
        should hold it), what reading and preparing it noted, its path and its unit (:func:`prepare`).
    options : TableOptions
    ranking_options : RankingOptions, optional
        Default: the package's.
    methods : sequence of str, optional
        The ranking methods of the leaderboards (default ``options.ranking``).
    n_jobs : int
    progress : bool
    *legacy, **deprecated
        The form before PreparedTable, ``run(tasks, schemes, options, source=..., unit=..., notes=...)``: still
        accepted, with a DeprecationWarning.

    Returns
    -------
    StudyResult
    """
    if not isinstance(prepared, PreparedTable):  # the form of before: (tasks, schemes, options)
        words = deprecated_keywords("run", deprecated, ("source", "unit", "notes"), "run(PreparedTable, options)")
        if not words:
            warnings.warn("run(tasks, schemes, options) is deprecated; pass run(PreparedTable, options)",
                          DeprecationWarning, stacklevel=2)
        prepared = PreparedTable(list(prepared), options, list(words.pop("notes", [])), **words)  # type: ignore[arg-type]
        options = legacy[0] if legacy else TableOptions()
    elif legacy or deprecated:
        raise TypeError("run() takes a PreparedTable and TableOptions, and no source, unit or notes")
    given = {"tasks": prepared.tasks, "schemes": prepared.schemes, "options": options,
             "ranking_options": ranking_options or RankingOptions(), "methods": methods or options.ranking,
             "source": prepared.source, "unit": prepared.unit, "n_jobs": n_jobs, "progress": progress,
             "notes": list(prepared.notes)}
    values, tables = run_steps(STEPS, given, n_jobs=n_jobs)
    verdicts = values["verdicts"] if values["verdicts"] is not None else Verdicts()
    return StudyResult(STUDY, tables=tables, verdicts=verdicts.frame(), meta=values["meta"])


def _rankings(tasks, methods, ranking_options: RankingOptions, options: TableOptions, n_jobs: int) -> dict:
    """Every task's ranking under every method, the consensus, the comparisons and the rank distributions."""
    tables, rank_notes = rank_tables(tasks, methods, ranking_options, options, n_jobs=n_jobs)
    return tables | {"rank_notes": rank_notes}


def _input_meta(tasks, schemes: Schemes | None, source: str, unit: str) -> dict:
    """What the report says of the input (meta.json's ``input``)."""
    inputs = {"table": source, "fingerprint": fingerprint(tasks), "tasks": [t.task for t in tasks],
              "runs": len({r for t in tasks for r in t.runs}),
              "units": schemes.n_units if schemes is not None else int(max(t.units.max() + 1 for t in tasks)),
              "unit": schemes.unit if schemes is not None else unit,
              "schemes": [list(n) for n in schemes.names] if schemes is not None else []}
    return {"input_meta": inputs}


def _meta(options: TableOptions, ranking_options: RankingOptions, input_meta: dict, notes, rank_notes, target,
          curve_notes) -> dict:
    """meta.json's study fields: the options, the input, the warnings and (where the engines ran) the target."""
    warnings = notes + [n for n in rank_notes if n not in notes] + (curve_notes or [])
    return {"meta": {"options": asdict(options), "ranking_options": asdict(ranking_options),
                     "ranking_options_text": ranking_options.describe(), "methods": methods_meta(),
                     "ranking": list(options.ranking), "input": input_meta, "warnings": warnings}
            | ({"target": target} if target is not None else {})}


def _target(schemes: Schemes, options: TableOptions) -> dict:
    """The size target of the engines' answers, and its record for the metadata."""
    return {"lenient": options.size_target(len(schemes.runs)), "target": options.target_meta(len(schemes.runs))}


def _resample(schemes: Schemes, options: TableOptions, n_jobs: int, progress: bool) -> dict:
    """Convergence curves over random orders and the bootstrap of units, every ranking method."""
    return {"resampled": resample(schemes, options, n_jobs=n_jobs, progress=progress)}


def _uncertainty(schemes: Schemes, options: TableOptions, lenient: float, n_jobs: int, progress: bool) -> dict:
    """The distance to unlimited data and the test-set size needed."""
    return uncertainty_tables(schemes, options, n_jobs=n_jobs, tolerance=lenient, progress=progress)


def _curves(resampled, options: TableOptions, lenient: float) -> dict:
    """The convergence tables (and their notes) and the bootstrap's tables."""
    curves, curve_notes = convergence_tables(resampled.convergence, tolerance=options.tolerance, lenient=lenient,
                                             all_curves=options.all_curves)
    return curves | bootstrap_tables(resampled.bootstrap, agreement_file="agreement.csv") | {
        "curve_notes": curve_notes}


def _verdicts(tables, schemes: Schemes, options: TableOptions, lenient: float) -> dict:
    """The engines' verdicts (the rankings alone state none)."""
    v = Verdicts()
    resampling_verdicts(v, tables, schemes.names, lenient=lenient, tolerance=options.tolerance)
    ranking_verdicts(v, tables, schemes.names[:SHOWN_SCHEMES], agreement_file="agreement.csv")
    return {"verdicts": v}


#: The table study, step by step (:mod:`robustness.studies.steps`); the resampling engines' steps run where the
#: table allows them (``schemes`` not None; :func:`engine_limits` says why not).
STEPS = (
    Step(_rankings, makes=("rank_notes",), status="rankings of every task",
         writes=("ranking.csv", "consensus.csv", "task_distances.csv", "friedman.csv", "nemenyi.csv",
                 "cd_groups.csv", "significance.csv", "iqm.csv", "improvement.csv", "performance_profile.csv",
                 "bayes_signed_rank.csv", "top.csv", "per_case.parquet", "case_ranks.csv", "podium.parquet",
                 "rank_bootstrap.csv", "rank_frequency.csv", "rank_bootstrap_tau.csv")),
    Step(_input_meta, makes=("input_meta",)),
    Step(_target, makes=("lenient", "target"), when="schemes"),
    Step(_resample, makes=("resampled",), when="schemes"),
    Step(_uncertainty, writes=("ranking_uncertainty.csv", "rank_keep.csv", "test_set_size.csv"), when="schemes"),
    Step(_curves, makes=("curve_notes",), when="schemes",
         writes=("orders.csv", "curves.parquet", "curves_summary.csv", "convergence.csv", "strategy_comparison.csv",
                 "bootstrap_ci.csv", "rank_distribution.csv", "stability.csv", "pairwise.parquet", "agreement.csv")),
    Step(_verdicts, makes=("verdicts",), when="schemes"),
    Step(_meta, makes=("meta",)),
)
