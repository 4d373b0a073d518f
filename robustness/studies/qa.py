"""The closed-QA studies: the official scores with Table 5 (:func:`score`), and how robust the leaderboard is.

:func:`run`: rank convergence, bootstrap, significance and the distance to unlimited data, the encounter as the
unit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from robustness import seeds
from robustness.qa import answer_count_difference, official_results, qa_table
from robustness.results.study_result import StudyResult, Verdicts
from robustness.statistics.inference import mean_interval
from robustness.statistics.table_schemes import schemes_from_table
from robustness.studies.common import (
    ResamplingOptions,
    bootstrap_tables,
    convergence_tables,
    method_columns,
    methods_meta,
    resample,
    uncertainty_tables,
)
from robustness.studies.resampling_verdicts import ranking_verdicts, resampling_verdicts

if TYPE_CHECKING:

    from robustness.qa.answers import Answers

__all__ = ["QAOptions", "run", "score", "leaderboard", "answer_counts", "fingerprint", "notes"]

SCHEME = ("gold", "all", "macro")


@dataclass(frozen=True)
class QAOptions(ResamplingOptions):
    """The QA study's options: those of every resampling study (the unit is the encounter)."""


def fingerprint(gold: Answers, runs: list[Answers]) -> str:
    """The identity of the answers (decides whether a results folder holds this input's results).

    Parameters
    ----------
    gold : Answers
    runs : list of Answers

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    for a in [gold, *runs]:
        h.update(a.name.encode())
        h.update("|".join(a.encounters).encode())
        h.update(a.values.tobytes())
    return h.hexdigest()


def notes(gold: Answers, runs: list[Answers]) -> list[str]:
    """What reading the answer files noted (cut encounter ids, ignored encounters, filled slots).

    Parameters
    ----------
    gold : Answers
    runs : list of Answers

    Returns
    -------
    list of str
    """
    return [n for a in [gold, *runs] for n in a.notes]


def leaderboard(gold: Answers, runs: list[Answers]) -> tuple[pd.DataFrame, dict]:
    """Official results of every run.

    Parameters
    ----------
    gold : Answers
    runs : list of Answers

    Returns
    -------
    (board, results) : pandas.DataFrame, dict
        One row per run, best ``accuracy_all`` first; the official JSON of every run.
    """
    res = {r.name: official_results(gold, r) for r in runs}
    board = pd.DataFrame(res).T.drop(columns="number_cvqa_instances")
    board.index.name = "run"
    return board.sort_values("accuracy_all", ascending=False, kind="stable"), res


def answer_counts(gold: Answers, runs: list[Answers], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 5, with and without 'Not mentioned': each mean with its percentile bootstrap interval over encounters.

    Parameters
    ----------
    gold : Answers
    runs : list of Answers
    n_resamples : int
    seed : int
        The study's seed (stream ``answer_counts``).

    Returns
    -------
    pandas.DataFrame
        One row per run and ``include_not_mentioned``; per parent, the mean and its ``_low``/``_high``.
    """
    rows = []
    for r in runs:
        for include in (False, True):
            d = answer_count_difference(gold, r, include_not_mentioned=include, per_encounter=True)
            row: dict[str, Any] = {"run": r.name, "include_not_mentioned": include}
            for parent, values in d.items():
                low, high = mean_interval(values, n_resamples=n_resamples,
                                          rng=seeds.stream(seed, "answer_counts"))
                row |= {parent: float(values.mean()), f"{parent}_low": low, f"{parent}_high": high}
            rows.append(row)
    return pd.DataFrame(rows)


def _official_files(res: dict) -> dict:
    return {f"official/{name}.json": json.dumps(r, indent=4) for name, r in res.items()}


def score(gold: Answers, runs: list[Answers], *, source: str) -> StudyResult:
    """The official scores of every run and Table 5 (the ``qa_score`` command).

    Parameters
    ----------
    gold : Answers
    runs : list of Answers
    source : str
        Where the answers came from, for the report.

    Returns
    -------
    StudyResult
    """
    board, res = leaderboard(gold, runs)
    tables = {"leaderboard.csv": board, "answer_counts.csv": answer_counts(gold, runs)}
    return StudyResult("qa_score", tables=tables, verdicts=Verdicts().frame(), files=_official_files(res), meta={
        "input": {"source": source, "fingerprint": fingerprint(gold, runs), "encounters": len(gold.encounters),
                  "runs": len(runs)},
        "warnings": notes(gold, runs)})


def run(gold: Answers, runs: list[Answers], options: QAOptions = QAOptions(), *, source: str, n_jobs: int = 1,
        progress: bool = False) -> StudyResult:
    """How robust a closed-QA leaderboard is: per-encounter partial credit through the resampling engines.

    Parameters
    ----------
    gold : Answers
    runs : list of Answers
    options : QAOptions
    source : str
        Where the answers came from, for the report.
    n_jobs : int
    progress : bool

    Returns
    -------
    StudyResult
    """
    board, res = leaderboard(gold, runs)
    lenient = options.size_target(len(runs))
    tables = {"answer_counts.csv": answer_counts(gold, runs, n_resamples=options.bootstrap, seed=options.seed)}
    table = qa_table(gold, runs)
    tables["per_case.parquet"] = table
    schemes = schemes_from_table(table, unit_name="encounter")
    resampled = resample(schemes, options, n_jobs=n_jobs, progress=progress)
    tables.update(uncertainty_tables(schemes, options, n_jobs=n_jobs, tolerance=lenient))
    tables["leaderboard.csv"] = board.join(method_columns(resampled.bootstrap, name="accuracy_{metric}_{ranking}"))
    curves, curve_notes = convergence_tables(resampled.convergence, tolerance=options.tolerance, lenient=lenient,
                                             all_curves=options.all_curves)
    tables.update(curves)
    tables.update(bootstrap_tables(resampled.bootstrap))
    verdicts = Verdicts()
    resampling_verdicts(verdicts, tables, [SCHEME], lenient=lenient, tolerance=options.tolerance)
    ranking_verdicts(verdicts, tables, [SCHEME])
    return StudyResult("qa_rank_convergence", tables=tables, verdicts=verdicts.frame(), files=_official_files(res),
                       meta={"options": asdict(options), "methods": methods_meta(), "ranking": list(options.ranking),
                             "input": {"source": source, "fingerprint": fingerprint(gold, runs),
                                       "encounters": len(gold.encounters), "runs": [r.name for r in runs],
                                       "notes": notes(gold, runs)},
                             "warnings": notes(gold, runs) + curve_notes,
                             "target": options.target_meta(len(runs))})
