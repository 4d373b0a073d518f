"""The design study: which gold strategy and averaging, and how many test encounters, for a challenge like mine.

Simulates challenges whose truth is known (the synthetic generator, fitted to a
real challenge by :func:`robustness.studies.design_base.prepare`) over a grid of settings
(:class:`~robustness.simulation.grid.Grid`) in seeded replicates, measures how
far every scheme's ranking is from the truth (on the same images and against the
runs' population ranking), and states what follows (:func:`run`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from robustness.errors import deprecated_keywords, parameter
from robustness.overlap.gold import is_random, resolve
from robustness.results.claims import ClaimName
from robustness.results.study_result import StudyResult, Verdicts
from robustness.scheme import DEFAULT
from robustness.simulation import worlds
from robustness.simulation.design import METRIC, DesignOptions, Setting
from robustness.simulation.grid import Grid, GridRun, run_grid, run_size
from robustness.simulation.recommendation import at_setting, choose_scheme, recommend, sizes_by_agreement, summarise
from robustness.simulation.twin import STAT_LABELS, fit_failures
from robustness.simulation.twin_resolution import compare_resolutions, resolution_from_replicates
from robustness.simulation.worlds import World
from robustness.statistics.population import ESTIMATOR
from robustness.statistics.ranks import size_target, target_record, target_text
from robustness.statistics.size_answers import (  # noqa: F401 (the design study's names too)
    MIN_COVERAGE,
    answers_overlap,
    compare_answers,
    comparison_fields,
    short_coverage,
    size_range,
    unit_name,
)
from robustness.studies.design_base import DesignBase, DesignStudyOptions, max_encounters
from robustness.synthetic.image_twin import ImageTwinConfig

__all__ = ["DesignStudyOptions", "make_grid", "run", "counted_golds"]

STUDY = "design_study"
_BASE_FIELDS = ("fit_table", "warnings", "main_answer", "main_resolution")  # run's keywords before DesignBase


def make_grid(base: World, options: DesignStudyOptions) -> Grid:
    """The grid's lists, from the options or around ``base``.

    Around ``base``: sizes N/4 .. 2N, annotators k and k+1, agreement a - 0.2 (not with ``quick``), a and 1, the
    base's spread, runs and correlation.

    Parameters
    ----------
    base : SyntheticConfig
    options : DesignStudyOptions

    Returns
    -------
    Grid
    """
    n, k, a = base.n_encounters, base.min_annotators, base.agreement
    replicates = options.replicates or (4 if options.quick else 20)
    return Grid(
        sizes=list(options.encounters or sorted({max(5, int(round(n * f))) for f in (0.25, 0.5, 1, 2)})),
        annotators=list(options.annotators or [k, min(k + 1, 16)]),
        agreement=list(options.agreement or sorted({round(a, 3), 1.0} | (set() if options.quick else
                                                                          {float(np.clip(round(a - 0.2, 3), 0, 1))}))),
        spread=list(options.spread or [round(base.skill_range[1] - base.skill_range[0], 4)]),
        runs=list(options.runs or [base.n_runs]),
        correlation=list(options.correlation or [round(base.encounter_correlation, 4)]),
        replicates=replicates, populations=min(replicates, options.populations or 100))


def fingerprint(base: World, grid: Grid, simulation: DesignOptions, seed: int) -> str:
    """The identity of a design study (its results folder and its cache of replicates).

    Parameters
    ----------
    base : SyntheticConfig
    grid : Grid
    simulation : DesignOptions
    seed : int

    Returns
    -------
    str
        A SHA-256 hex digest.
    """
    payload = json.dumps({"base": worlds.record(base), "grid": grid.as_dict(), "options": simulation.fingerprint(),
                          "seed": seed, "estimator": ESTIMATOR}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def run(base: World | DesignBase, options: DesignStudyOptions = DesignStudyOptions(), *, cache_dir: Path | str,
        n_jobs: int = 1, progress: bool = False, say: Callable | None = None, **deprecated: Any) -> StudyResult:
    """The design study around the generator parameters ``base``.

    The grid is simulated first (:func:`robustness.simulation.grid.run_grid`); the scheme is chosen at the
    challenge's own setting and size (:func:`robustness.simulation.recommendation.choose_scheme`); then the size search
    simulates test sets twice as large, at that setting, until the chosen scheme's expected L1 to the population
    ranking meets the target at 95% confidence (the upper end of its interval over replicates), its own distance
    to the truth alone exceeds the target (no size can reach it), or ``options.max_encounters`` is reached.

    Parameters
    ----------
    base : SyntheticConfig, ImageTwinConfig or DesignBase
        The challenge to plan for: the generator's defaults, or what
        :func:`~robustness.studies.design_base.prepare` makes of a challenge: its twin, the fit (``fit.csv``) and
        its warnings (kept with the study's own), and the main job's own size answer and resolution on it, stated
        beside the design study's (``main_job_answer.csv``, verdict ``main_job_size``; ``main_job_resolution.csv``,
        verdict ``twin_resolution``).
    options : DesignStudyOptions
    cache_dir : path
        Where the replicates are kept as they finish (the study resumes from them).
    n_jobs : int
    progress : bool
    say : callable, optional
        Prints progress lines.
    **deprecated
        ``fit_table``, ``warnings``, ``main_answer``, ``main_resolution``: a DesignBase's fields one by one
        (deprecated: pass the DesignBase).

    Returns
    -------
    StudyResult
    """
    say = say or (lambda *a: None)
    legacy = deprecated_keywords("run", deprecated, _BASE_FIELDS, "a DesignBase as base (design_base.prepare)")
    given = replace(base, **legacy) if isinstance(base, DesignBase) else DesignBase(base, **legacy)
    world, fit_table, main_answer, main_resolution = (given.config, given.fit_table, given.main_answer,
                                                     given.main_resolution)
    grid = make_grid(world, options)
    simulation = options.simulation(world)
    key = fingerprint(world, grid, simulation, options.seed)
    cache = Path(cache_dir) / key[:16]
    if isinstance(world, ImageTwinConfig) and world.library.path is None:  # workers load the real bands once
        cache.mkdir(parents=True, exist_ok=True)
        world = world.with_library(world.library.save(cache / f"library-{world.library.digest}.npz"))
    design, coverage, notes, pools = run_grid(world, grid, simulation, seed=options.seed, cache_dir=cache,
                                              n_jobs=n_jobs, progress=progress, say=say)
    notes = list(given.warnings) + notes
    plan = _plan(world, grid, simulation, options, cache)
    base_setting, size, target_l1 = plan.setting, plan.size, plan.target_l1
    design, more, search, cap = _size_search(plan, design, pools, n_jobs=n_jobs, progress=progress, say=say)
    notes += more
    summary, coverage_summary = summarise(design, coverage)
    tables = {"design.csv": design, "coverage.csv": coverage, "design_summary.csv": summary,
              "coverage_summary.csv": coverage_summary}
    if fit_table is not None:
        tables["fit.csv"] = fit_table
    rec = recommend(design, summary, coverage_summary, base=base_setting, size=size, target_top1=options.target_top1,
                    target_l1=target_l1)
    rec["search"] = search
    unit = unit_name(world)
    notes += _study_warnings(rec, design, search, cap, target_l1, simulation, unit)
    failed = fit_failures(fit_table) if fit_table is not None else []
    rec["fit_failed"] = failed
    if main_answer is not None:
        tables["main_job_answer.csv"] = main_answer
        rec["main_answer"] = main_answer
        notes += _answer_warnings(rec, fit_table, unit) if not failed else []
    notes += _coverage_warnings(rec, unit)
    tables["resolution.csv"] = resolution_from_replicates(design, at=at_setting(design, base_setting),
                                                          test_units=world.n_encounters, unit=unit)
    if main_resolution is not None:
        tables["main_job_resolution.csv"] = main_resolution
    rec["resolution"] = compare_resolutions(tables["resolution.csv"], main_resolution, strategy=DEFAULT.strategy,
                                            metric=DEFAULT.metric, average=DEFAULT.average)
    tables["recommendation_sizes.csv"] = rec["sizes"]
    tables["recommendation_populations.csv"] = rec["per_population"]
    if len(rec["random"]):
        tables["recommendation_random.csv"] = rec["random"]
    base_record = asdict(base_setting) | {"size": size, "target_l1": target_l1, "search": search, "cap": cap,
                                          "test_unit": unit}
    tables["sizes_by_agreement.csv"] = sizes_by_agreement(summary, base_record, target=target_l1)
    files = {"design_base.json": json.dumps(base_record, indent=2, default=str) + "\n"}
    return StudyResult(STUDY, tables=tables, verdicts=_verdicts(rec, base_setting, options).frame(), files=files,
                       meta={"options": asdict(options), "simulation": asdict(simulation), "grid": grid.as_dict(),
                             "base_setting": asdict(base_setting), "size": size, "search": search, "cap": cap,
                             "target": target_record(base_setting.runs, options.target_l1),
                             "input": {"base": worlds.record(world), "fingerprint": key}, "warnings": notes,
                             "fit": {"world": worlds.world_name(world), "failed": failed,
                                     "checked": fit_table is not None}})


@dataclass(frozen=True)
class _Plan:
    """What the grid leaves fixed for the size search: the challenge's setting and size, the target, the cache."""

    base: World
    grid: Grid
    simulation: DesignOptions
    options: DesignStudyOptions
    setting: Setting
    size: int
    target_l1: float
    cache: Path


def _plan(base: World, grid: Grid, simulation: DesignOptions, options: DesignStudyOptions, cache: Path) -> _Plan:
    """The challenge's own setting and size, and the size target for its runs.

    The setting: its annotators, the nearest agreement, the grid's first run population; the size: the grid's
    nearest to its own.
    """
    annotators = base.min_annotators if base.min_annotators in grid.annotators else grid.annotators[0]
    setting = Setting(annotators=annotators,
                      agreement=min(grid.agreement, key=lambda a: abs(a - base.agreement)),
                      spread=grid.spread[0], runs=grid.runs[0], correlation=grid.correlation[0])
    size = min(grid.sizes, key=lambda n: abs(n - base.n_encounters))
    return _Plan(base, grid, simulation, options, setting, size, size_target(setting.runs, options.target_l1), cache)


def _size_search(plan: _Plan, design: pd.DataFrame, pools: dict, *, n_jobs: int, progress: bool,
                 say: Callable) -> tuple[pd.DataFrame, list[str], str, int]:
    """The size search: test sets twice as large at the challenge's setting until the target is met.

    Under the scheme chosen at the challenge's size, sizes double (or halve, where the grid's smallest already
    meets the target) until the target is met at 95% confidence, cannot be met (the gold's own distance to the
    truth exceeds it) or the cap is reached.

    Returns the design with the search's rows, the search's notes, how it ended (``met``, ``unreachable``,
    ``capped``) and the cap.
    """
    base, grid, options, setting, target_l1 = plan.base, plan.grid, plan.options, plan.setting, plan.target_l1
    strat, average = choose_scheme(design, base=setting, size=plan.size)["chosen"]
    # the size search scores the chosen gold and the official one (majority): the statements it backs
    golds = counted_golds(strat, DEFAULT.strategy)
    largest, cap, search = max(grid.sizes), options.max_encounters or max_encounters(base, options.quick), "met"
    notes: list[str] = []
    while True:
        summary = summarise(design)
        mine = summary[(summary.strategy == strat) & (summary.average == average)
                       & at_setting(summary, setting)].sort_values("encounters")
        first, last = mine.iloc[0], mine.iloc[-1]
        if first.l1_population <= target_l1 and first.encounters >= 4:  # met below the grid: halve
            n = int(first.encounters) // 2
        elif last.l1_population_high <= target_l1:
            break
        elif last.l1_same_images_low > target_l1:
            search = "unreachable"
            break
        elif 2 * largest > cap:
            search = "capped"
            break
        else:
            largest *= 2
            n = largest
        say(f"size search: {grid.replicates} test sets of {n} {unit_name(base)}s ({strat}, {average})")
        rows, more = run_size(GridRun(base, grid, plan.simulation, options.seed, plan.cache), setting, n, pools=pools,
                              strategies=golds, n_jobs=n_jobs, progress=progress)
        design = pd.concat([design, rows], ignore_index=True)
        notes += more
    return design, notes, search, cap


def counted_golds(*names: str) -> list[str]:
    """Of ``names``, the golds the pixel pass counts (not the random single-annotator ones), in order, once each.

    A scheme such as the mean over annotators is scored from any pass; where no name is a counted gold, the
    default gold (:data:`robustness.scheme.DEFAULT`) is counted.

    Parameters
    ----------
    *names : str
        Gold strategies.

    Returns
    -------
    list of str
    """
    counted = {g.name for g in resolve(None, macro_only="drop")}
    return [g for g in dict.fromkeys(names) if g in counted and not is_random(g)] or [DEFAULT.strategy]


def _study_warnings(rec: dict, design: pd.DataFrame, search: str, cap: int, target: float,
                    simulation: DesignOptions, unit: str = "encounter") -> list[str]:
    """What the reader must know before trusting the recommendation: a blunt pool, an unreachable target."""
    out = []
    worst = design.groupby("population").pool_l1.max()
    blunt = worst[worst > simulation.pool_l1_target]
    if len(blunt):
        out.append(f"the population ranking of run population(s) {', '.join(map(str, blunt.index))} is not sharp: "
                   f"its pool's own L1 is {blunt.max():g} (target {simulation.pool_l1_target:g}) after "
                   f"{int(design.pool_images.max())} images; the distances to it are inflated by up to that much "
                   f"(a larger {parameter('DesignStudyOptions', 'pool')} sharpens it)")
    largest = design[design.stage == "grid"].groupby("encounters").images.mean().max() if "stage" in design else 0
    pool = float(design.pool_images.min())
    if largest > pool:
        out.append(f"the largest test sets simulated ({largest:.0f} images) are larger than a run population's pool "
                   f"({pool:.0f} images): the population ranking is then hardly sharper than theirs (a larger "
                   f"{parameter('DesignStudyOptions', 'pool')})")
    strat, average = rec["chosen"]
    reach = rec["reach"]
    said = f"L1 <= {target_text(target, int(rec['n_runs']))}"
    if search == "unreachable":
        out.append(f"no test-set size reaches {said} with {strat} ({average}): its own "
                   f"distance to the truth is {reach['own_distance']:.1f} (95% CI {reach['own_distance_low']:.1f} to "
                   f"{reach['own_distance_high']:.1f}) at {reach['encounters']} {unit}s")
    elif search == "capped":
        out.append(f"the size search stopped at {int(design.encounters.max())} {unit}s (twice that exceeds "
                   f"{parameter('DesignStudyOptions', 'max_encounters')} {cap}) before {strat} ({average}) met "
                   f"{said} at 95% confidence; the sizes needed are larger than the search could show")
    return out


def _coverage_warnings(rec: dict, unit: str = "encounter") -> list[str]:
    """One warning naming the twin's bootstrap intervals that cover in fewer than 90% of test sets (nominal 95%).

    Each is named with its own 95% CI; "may be too narrow" where every such CI reaches 95%.
    """
    low, said, unsure = short_coverage([
        {"method": x.method, "unit": x.unit, "average": x.average, "coverage": x.coverage, "low": x.coverage_low,
         "high": x.coverage_high, "n": x.encounters} for x in rec["coverage"].itertuples()], unit)
    if not low:
        return []
    return [f"the twin's bootstrap intervals {'may be' if unsure else 'are'} too narrow: they cover the runs' "
            f"population scores in fewer than {MIN_COVERAGE:.0%} of simulated test sets of "
            f"{low[0]['n']:.0f} {unit}s (nominal 95%): {said}"
            + (f"; each CI includes the nominal 95% (more {parameter('DesignStudyOptions', 'replicates')} tell)"
               if unsure else
               "; claims resting on such intervals overstate their confidence")]


def differing_assumptions(fit_table: pd.DataFrame | None) -> str:
    """What the twin assumes that the challenge does not show, from the fit table, in prose ('' if nothing).

    Parameters
    ----------
    fit_table : pandas.DataFrame or None
        The fit's table (statistic, target, fitted, ...).

    Returns
    -------
    str
        The statistics more than 20% apart, each with both values.
    """
    if fit_table is None:
        return ""
    rows = fit_table.set_index("statistic")
    parts = []

    for key in ("run_separability", "distance_at_n", "object_pixels_median", "annotator_pairwise_jaccard_median"):
        label = STAT_LABELS[key]
        if label in rows.index:
            r = rows.loc[label]
            if np.isfinite(r.target) and np.isfinite(r.fitted) and r.target > 0 and r.fitted > 0 \
                    and abs(np.log(r.fitted / r.target)) > np.log(1.2):
                parts.append(f"{label}: {r.target:.3g} in the challenge, {r.fitted:.3g} in the twin")
    return "; ".join(parts)


def _answer_warnings(rec: dict, fit_table: pd.DataFrame | None, unit: str = "encounter") -> list[str]:
    """The two size answers (main job on the real data, design study on its twin) when their intervals are apart."""
    c = compare_answers(rec)
    if c is None or c["overlap"]:
        return []
    why = differing_assumptions(fit_table)
    return [f"the design study and the main job answer the size question differently for majority, micro Jaccard: "
            f"the twin needs {_range_text(c['design'])} {unit}s, the main job's estimate on the real challenge "
            f"{_range_text(c['real'])} (their intervals do not overlap); "
            + (f"the twin differs from the challenge in {why}" if why else
               "the fit table shows no statistic that differs by more than 20%: the difference lies in what the "
               "generator does not model (compare fit.csv and main_job_answer.csv)")]


def _range_text(r: tuple[float, float, float]) -> str:
    value, lo, hi = r

    def count(x: float) -> str:  # a negative size is "at most" its first size; no 309-digit integers
        return f"{abs(x):,.0f}" if abs(x) < 1e9 else f"{abs(x):.3g}"

    est = ("more than the sizes tried" if not np.isfinite(value) else
           f"at most {count(value)}" if value < 0 else f"about {count(value)}")
    top = "more than the sizes tried" if not np.isfinite(hi) else count(hi)
    return f"{est} (interval {count(lo)} to {top})"


def _number(value) -> float:
    return math.nan if value is None else float(value)


def _verdicts(rec: dict, base_setting: Setting, options: DesignStudyOptions) -> Verdicts:
    """What the recommendation states (:func:`robustness.simulation.recommendation.recommend`), one row per number."""
    v = Verdicts()
    verdict, size = rec["scheme"], rec["size"]
    v.add("closest_scheme", statement="best" if verdict.best else "tied", subject=verdict.tied,
          level=verdict.level, count=size, table="design.csv")
    strat, average = rec["chosen"]
    sizes = rec["sizes"].set_index(["strategy", "average"])
    chosen = sizes.loc[(strat, average)]
    v.add("recommended_scheme", strategy=strat, average=average, metric=METRIC,
          statement="best" if verdict.best else "simplest_of_tied", subject=[f"{strat} ({average})"],
          value=_number(chosen.encounters_for_l1), low=_number(chosen.encounters_for_l1_optimistic),
          high=_number(chosen.encounters_for_l1_conservative), level=0.95, count=int(chosen.largest_size),
          table="recommendation_sizes.csv")
    if "encounters_for_l1_new_population" in chosen.index:
        new = _number(chosen.encounters_for_l1_new_population)
        populations = int(rec["per_population"].population.nunique()) if len(rec["per_population"]) else 0
        v.add("encounters_needed_new_population", strategy=strat, average=average, metric=METRIC,
              statement="undefined" if populations < 2 else "beyond" if np.isnan(new) else "found", value=new,
              level=0.95, count=int(chosen.largest_size), total=populations, table="recommendation_sizes.csv")
    for row in rec["random"].itertuples():
        v.add("one_random_annotator", strategy="random", average=row.average, metric=METRIC,
              value=row.l1_population, low=row.l1_population_low, high=row.l1_population_high, level=0.95,
              subject=[f"{row.spread_low:.6g}", f"{row.spread_high:.6g}"], count=int(row.draws), total=size,
              table="recommendation_random.csv")
    per = rec["per_population"]
    if len(per):
        found = per.encounters_for_l1.abs()
        v.add("encounters_needed_by_population", strategy=strat, average=average, metric=METRIC,
              value=_number(found.median()), low=_number(found.min()), high=_number(found.max()),
              count=int(found.notna().sum()), total=len(per), table="recommendation_populations.csv",
              statement="all_found" if found.notna().all() else "some_beyond_search",
              subject=[str(int(per.replicates.min())), str(int(per.replicates.max()))])
        if len(per) >= 3:  # each population against the bound from the others
            need = per.encounters_for_l1.abs().fillna(np.inf)  # nan: beyond the sizes simulated
            held = need <= per.encounters_for_l1_others_bound.abs().fillna(np.inf)
            v.add("new_population_bound_left_out", strategy=strat, average=average, metric=METRIC,
                  statement="held_everywhere" if held.all() else "missed_some", count=int(held.sum()),
                  total=len(per), table="recommendation_populations.csv")
    reach = rec["reach"]
    v.add("own_distance_to_truth", strategy=strat, average=average, metric=METRIC,
          statement="unreachable" if reach["unreachable"] else "reachable", value=reach["own_distance"],
          low=reach["own_distance_low"], high=reach["own_distance_high"], level=0.95, count=reach["encounters"],
          subject=[f"{rec['target_l1']:g}"], table="design_summary.csv")
    for alt in reach["alternatives"]:
        v.add("own_distance_alternative", strategy=strat, average=average, metric=METRIC,
              value=alt["own_distance"], count=alt["annotators"], total=alt["encounters"],
              subject=[f"{alt['agreement']:g}"], table="design_summary.csv")
    for row in rec["sizes"].itertuples():
        key = dict(strategy=row.strategy, average=row.average, metric=METRIC, table="recommendation_sizes.csv")
        v.add("encounters_needed", value=_number(row.encounters_for_l1),
              low=_number(row.encounters_for_l1_optimistic), high=_number(row.encounters_for_l1_conservative),
              level=0.95, count=int(row.largest_size), subject=[f"{rec['target_l1']:g}"], **key)
        v.add("encounters_needed_top1", value=_number(row.encounters_for_top1),
              low=_number(row.encounters_for_top1_optimistic), high=_number(row.encounters_for_top1_conservative),
              level=0.95, count=int(row.largest_size), subject=[f"{options.target_top1:g}"], **key)
    _effort_verdicts(v, rec["annotators"])
    for c in rec["calibration"].itertuples():
        key = dict(strategy=DEFAULT.strategy, average=DEFAULT.average, metric=DEFAULT.metric,
                   subject=[f"{c.agreement:g}"], count=int(c.encounters), table="design.csv")
        claims: tuple[tuple[ClaimName, float], ...] = (
            ("estimate", c.expected_l1_estimate), ("actual_distance", c.l1_population),
            ("estimate_ratio", c.ratio_median), ("pool_distance", c.pool_l1),
            ("paper_converged_share", c.paper_converged_share), ("paper_point_fraction", c.paper_point_fraction),
            ("paper_converged_but_far_share", c.paper_converged_but_far_share))
        for claim, value in claims:
            v.add(claim, value=value, **key)
    _comparison_verdicts(v, rec)
    return v


def _effort_verdicts(v: Verdicts, effort: pd.DataFrame) -> None:
    """More annotators or more units at the same effort, per scheme: tied where the intervals overlap."""
    if len(effort):
        for (strat, average), e in effort.groupby(["strategy", "average"], sort=False):
            e = e.sort_values("annotators")
            tied = len(e) > 1 and not (e.l1_population_high.min() < e.l1_population_low.max())
            for x in e.itertuples():
                v.add("annotation_effort", strategy=strat, average=average, metric=METRIC,
                      statement="tied" if tied else "apart", value=x.l1_population, low=x.l1_population_low,
                      high=x.l1_population_high, level=0.95, count=int(x.annotators), subject=[f"{x.encounters:.0f}"],
                      table="design_summary.csv")


def _comparison_verdicts(v: Verdicts, rec: dict) -> None:
    """The twin against the main job on the real challenge (size, resolution), and the intervals' coverage."""
    c = compare_answers(rec)
    if c is not None:
        f = comparison_fields(c)
        if rec.get("fit_failed"):  # two answers agree only when both rest on fits that passed
            f = f | {"statement": "not_compared"}
        v.add("main_job_size", strategy=DEFAULT.strategy, average=DEFAULT.average, metric=DEFAULT.metric, level=0.90,
              table="main_job_answer.csv", **(f | {"subject": [f"{x:g}" for x in f["subject"]]}))
    r = rec.get("resolution")
    if r is not None:
        v.add("twin_resolution", strategy=DEFAULT.strategy, average=DEFAULT.average, metric=DEFAULT.metric, level=0.95,
              value=r["twin"], low=r["twin_low"], high=r["twin_high"], count=r["twin_units"],
              statement="not_compared" if rec.get("fit_failed") else r["statement"],
              subject=[f"{r['main']:.17g}", f"{r['main_low']:.17g}", f"{r['main_high']:.17g}", str(r["units"])],
              table="resolution.csv")
    cov = rec["coverage"]
    if len(cov):
        shown = cov[cov.average == "micro"] if (cov.average == "micro").any() else cov
        for x in shown.itertuples():
            v.add("interval_coverage", metric=x.metric, average=x.average, subject=[x.unit, x.method],
                  value=x.coverage, low=x.coverage_low, high=x.coverage_high, level=0.95, count=int(x.encounters),
                  table="coverage_summary.csv")
