"""The calibration study: the package's claims held against populations of known truth.

The estimators and the checks are :mod:`robustness.simulation.calibration`'s; this module runs them on the
populations asked for, states which targets are met (a verdict per check) and returns the study's result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from robustness.io.challenge import Challenge
from robustness.overlap.checks import input_warnings
from robustness.results.meta import DesignMeta
from robustness.results.study_result import StudyResult, Verdicts
from robustness.simulation import worlds
from robustness.simulation.calibration import CalibrationOptions, calibrate
from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS, FLAG_FIRES, FLAG_SILENT, MIN_RELATIVE_TRUTH
from robustness.simulation.populations import PopulationSpec
from robustness.simulation.twin import fit_counts
from robustness.statistics.size_answers import unit_name
from robustness.studies.design_base import DesignStudyOptions, base_from_challenge
from robustness.studies.design_check import DesignCheck, calibration_rows

__all__ = ["STUDY", "TARGETS", "Target", "like_population", "run", "with_design_check"]

STUDY = "calibration"


def _quiet(*_) -> None:
    return None


def like_population(challenge: Challenge, *, seed: int = 0, quick: bool = False, name: str = "the challenge",
                    say: Callable[..., None] = _quiet,
                    warn: Callable[[list[str]], None] = _quiet) -> tuple[PopulationSpec, list[str]]:
    """A population like a real challenge: its twin made of its own images, with its own runs.

    (:func:`robustness.studies.design_base.base_from_challenge`.)

    Parameters
    ----------
    challenge : Challenge
    seed : int
        The study's seed (the population's runs are drawn from its ``population`` stream).
    quick : bool
        The twin's quick image size.
    name : str
        The challenge as the user named it (in messages).
    say, warn : callable
        Progress lines; warning lines as they are found (the main job's checks on the input).

    Returns
    -------
    (PopulationSpec, list of str)
        The population (``like``) and the input's warnings.
    """
    counts = fit_counts(challenge)
    notes = input_warnings(challenge, counts, warn=warn)  # the main job's checks: a covering foreground is refused
    say(f"fitting a twin made of its own images to {name} ({challenge.n_images} images, {challenge.n_runs} runs)")
    config, _ = base_from_challenge(challenge, DesignStudyOptions(quick=quick), counts=counts)
    runs = worlds.population(config, 0, seed=seed)  # the challenge's own runs (their effects as fitted)
    return PopulationSpec("like", config, runs, index=100), notes


@dataclass(frozen=True)
class Target:
    """What a check must reach (issue "Calibrated answers", its "Done means").

    Attributes
    ----------
    estimator : str
        A row of calibration.csv.
    setting : str
        Its setting's start (``m = 1 N``...), or '' for every setting.
    column : str
        The column judged.
    low, high : float
        The range the value must lie in.
    says : str
        The target in words.
    """

    estimator: str
    setting: str
    column: str
    low: float
    high: float
    says: str



#: The targets every population and official scheme is judged against.
TARGETS = (
    Target("expected_l1", "m = 1 N", "relative_bias", -0.10, 0.10, "expected L1 at N within 10% of the truth"),
    Target("expected_l1", "m = 8 N", "relative_bias", -0.10, 0.10, "expected L1 at 8N within 10% of the truth"),
    Target("expected_l1", "m = 1 N", "coverage", 0.90, 0.99, "its 95% interval covers the truth at N (90-99%)"),
    Target("expected_l1_interval90", "m = 1 N", "coverage", 0.85, 0.95, "its 90% interval covers the truth at N "
           "(85-95%)"),
    Target("units_needed", "", "share_reaching_target", 0.80, np.inf,
           "size claims reach the target in at least 80% of test sets"),
    Target("units_needed", "", "claim_to_need", -np.inf, 2.5, "median size claim at most 2.5 times the true need"),
    Target("expected_l1_upper", "m = 1 N", "share_wrong", -np.inf, 0.10, "the truth above the reported upper bound "
           "(the prior-sensitivity band's) in at most 10% of test sets at N"),
    Target("expected_l1_upper", "m = 8 N", "share_wrong", -np.inf, 0.10, "the same at 8N"),
    Target("units_needed", "", "share_beyond", -np.inf, 0.10, "at most 10% of size claims 'beyond the largest size "
           "searched' where the true need is within it"),
    Target("prior_flag_differ", "", "share_holding", FLAG_FIRES, np.inf, "the prior flag fires on at least half "
           "the test sets of a population whose teams differ in spread"),
    Target("prior_flag_silent", "", "share_holding", -np.inf, FLAG_SILENT, "and on at most 10% of those of a "
           "population whose teams share one spread"),
    Target("p_best_pooled", "", "relative_bias", -0.08, 0.08, "p_best within 0.08 of the actual share in each "
           "bin, pooled over the populations"),
    Target("score_interval_studentized", "", "coverage", 0.94, 0.96, "score intervals cover 94-96%"),
    Target("pairs_differ_delta", "", "share_wrong", -np.inf, 0.05, "at most 5% of 'these two runs differ' claims "
           "are wrong"),
    Target("design_size_new_population", "", "share_reaching_target", 0.80, np.inf, "the design study's size for "
           "a new run population reaches the target on at least 80% of run populations it never drew"),
    Target("gold_statement", "", "share_holding", 0.90, np.inf, "gold statements hold on at least 90% of new test "
           "sets"),
    Target("resolution", "", "power", 0.75, np.inf, "pairs at least the claimed resolution apart are declared in at "
           "least 75% of cases"),
    Target("resolution_at", "", "power", 0.75, 0.85, "pairs at the claimed resolution (within 25% above it) are "
           "declared in 75-85% of cases"),
    Target("resolve_units", "", "share_reaching_target", 0.75, np.inf, "the units claimed for a difference give "
           "80% power in at least 75% of test sets"),
)


def run(populations: list[PopulationSpec], options: CalibrationOptions = CalibrationOptions(), *,
        margin: float = 0.0, cache_dir: Path | str | None = None, n_jobs: int = 1, progress: bool = False,
        say: Callable | None = None, notes: list[str] | None = None) -> StudyResult:
    """Run the calibration study.

    Parameters
    ----------
    populations : list of PopulationSpec
    options : CalibrationOptions
    margin : float
        The equivalence margin of the distance to unlimited data.
    cache_dir : path, optional
        Where the populations' counts are kept between runs.
    n_jobs : int
    progress : bool
    say : callable, optional
    notes : list of str, optional
        Warnings of the input (a challenge fitted with ``--like``).

    Returns
    -------
    StudyResult
        calibration.csv, calibration_truth.csv, calibration_distances.csv, calibration_claims.csv and a ``target``
        verdict per check, population and scheme (statement ``met``, ``not_met`` or ``undecided`` where the target
        lies within two Monte Carlo standard errors of the value; ``not_applicable`` for a relative error of a true
        distance below :data:`MIN_RELATIVE_TRUTH` places).
    """
    table, truth, distances, claims = calibrate(populations, options, margin=margin, cache_dir=cache_dir, n_jobs=n_jobs,
                             progress=progress, say=say)
    tables = {"calibration.csv": table, "calibration_truth.csv": truth, "calibration_distances.csv": distances,
              "calibration_claims.csv": claims}
    verdicts = _judged(table)
    meta = {"options": asdict(options) | {"margin": margin},
            "input": {"populations": [{"name": p.name, "runs": len(p.runs.runs), "index": p.index}
                                      for p in populations]},
            "warnings": list(notes or [])}
    return StudyResult(STUDY, tables=tables, verdicts=verdicts.frame(), meta=meta)


def with_design_check(result: StudyResult, check: DesignCheck) -> StudyResult:
    """The calibration study's result with the design study's check added (:mod:`robustness.studies.design_check`).

    calibration.csv gains the rows ``design_size`` and ``design_size_new_population``
    (:func:`~robustness.studies.design_check.calibration_rows`), judged like the others; calibration_design.csv
    holds the new run populations' curves; meta.json's ``design_check`` the study's claims and settings; the checked
    design study's warnings join the calibration's.

    Parameters
    ----------
    result : StudyResult
        :func:`run`'s.
    check : DesignCheck
        :func:`~robustness.studies.design_check.check_design`'s.

    Returns
    -------
    StudyResult
    """
    rows = pd.DataFrame(calibration_rows(check), columns=list(CALIBRATION_COLUMNS))
    table = pd.concat([result.table("calibration.csv"), rows], ignore_index=True)
    verdicts = pd.concat([result.verdicts, _judged(rows).frame()], ignore_index=True)
    (chosen,) = check.study.verdict("recommended_scheme")
    meta = dict(result.meta) | {"design_check": {
        "populations": int(check.measured.population.nunique()), "test_sets": int(check.measured.test_sets.max()),
        "study_populations": int(check.study.meta["grid"]["populations"]), "strategy": check.strategy,
        "average": check.average, "target": check.target, "largest_size": check.largest,
        "search": check.study.meta["search"], "unit": unit_name(DesignMeta.of(check.study).base),
        "claims": {k: _finite(v) for k, v in check.claims.items()},
        "recommended_interval": [_finite(chosen["low"]), _finite(chosen["high"])],
        "design": check.study.meta["options"]}}
    meta["warnings"] = result.warnings + check.notes + [f"the design study checked: {w}" for w in check.study.warnings]
    tables = dict(result.tables) | {"calibration.csv": table, "calibration_design.csv": check.measured}
    return StudyResult(STUDY, tables=tables, verdicts=verdicts, meta=meta)


def _finite(value: float) -> float | None:
    """A number for meta.json: None for nan (a size beyond the search), which JSON cannot hold."""
    return float(value) if value is not None and np.isfinite(value) else None


def _judged(table: pd.DataFrame) -> Verdicts:
    """Every row of calibration.csv a target applies to, judged.

    ``met``, ``not_met``, ``undecided`` (the target within two Monte Carlo standard errors) or ``not_applicable``.
    """
    verdicts = Verdicts()
    for target in TARGETS:
        rows = table[(table.estimator == target.estimator) & table.setting.str.startswith(target.setting)]
        several = len(rows) and rows.groupby(["population", "scheme"]).setting.nunique().max() > 1
        for row in rows.itertuples():
            where = f"{row.population}, {row.setting}" if several else row.population  # e.g. p_best's bins
            value = getattr(row, target.column)
            *golds, metric, average = row.scheme.split()
            key = dict(strategy=" ".join(golds), metric=metric, average=average, value=value, low=target.low,
                       high=target.high, subject=[target.estimator, target.column, where, target.says],
                       table="calibration.csv")
            near_zero = target.estimator == "expected_l1" and row.truth < MIN_RELATIVE_TRUTH
            beyond_need = target.column == "share_beyond" and not np.isfinite(row.true_need)
            # nothing to judge: a relative error of a true distance near 0, no value, or a need beyond the search
            if (target.column == "relative_bias" and near_zero) or not np.isfinite(value) or beyond_need:
                verdicts.add("target", statement="not_applicable", **key)
                continue
            se = getattr(row, f"{target.column}_se", np.nan)
            se = float(se) if se is not None and np.isfinite(se) else 0.0
            inside = target.low <= value <= target.high
            near = min(abs(value - target.low), abs(value - target.high)) <= 2 * se  # (an infinite end is never near)
            statement = "undecided" if near and se > 0 else "met" if inside else "not_met"
            verdicts.add("target", statement=statement, se=se if se else np.nan, **key)
    return verdicts
