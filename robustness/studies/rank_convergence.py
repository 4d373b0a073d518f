"""The main job: how robust a segmentation leaderboard is to the gold standard and to the test-set size.

Reproduces the MEDIQA-MAGIC 2025 overview's robustness analysis (Figures 2 and 3:
L1 rank change as test images are added in random order; Table 4: standard
deviations from the annotators' spread) with many orders and bands, bootstrap
intervals, rank stability, the significance analysis, the distance to unlimited
data and, on synthetic data, the agreement with the truth, under one or more
ranking methods. :func:`run` takes a :class:`~robustness.io.challenge.Challenge`
and returns a :class:`~robustness.results.study_result.StudyResult`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from robustness.errors import parameter, summarise_notes
from robustness.overlap.boundary import is_boundary_metric
from robustness.overlap.checks import input_checks
from robustness.overlap.empty import empty_policy
from robustness.overlap.gold import resolve
from robustness.overlap.pixel_pass import OverlapOptions, compute_overlap
from robustness.results.study_result import StudyResult
from robustness.scheme import Scheme, default_scheme
from robustness.statistics import leaderboard as score_tables
from robustness.statistics import spread
from robustness.statistics.case_rankings import task_scores
from robustness.statistics.convergence import GOLD_ORDERS, auc_over_test_sets, compare_over_test_sets
from robustness.statistics.convergence_options import ConvergenceOptions
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.metric_agreement import boundary_values
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.resolution import resolution_table, resolve_table
from robustness.statistics.table_schemes import per_case_frames
from robustness.statistics.truth import truth_agreement
from robustness.studies.common import (
    bootstrap_tables,
    convergence_tables,
    method_columns,
    methods_meta,
    resample,
    uncertainty_tables,
)
from robustness.studies.rank_convergence_metrics import PerImage, label_tables, metric_tables, overlap_metrics
from robustness.studies.rank_convergence_options import RankConvergenceOptions
from robustness.studies.rank_convergence_verdicts import verdicts
from robustness.studies.steps import Step, run_steps
from robustness.studies.table_ranks import rank_tables

if TYPE_CHECKING:

    from robustness.io.challenge import Challenge

__all__ = ["RankConvergenceOptions", "run", "STEPS"]

STUDY = "rank_convergence"


def run(challenge: Challenge, options: RankConvergenceOptions = RankConvergenceOptions(), *, n_jobs: int = 1,
        cache_dir: Path | None = None, progress: bool = False, notes: Iterable[str] = (),
        source: str = "the challenge") -> StudyResult:
    """The main job on ``challenge``: its :data:`STEPS` in order.

    Parameters
    ----------
    challenge : Challenge
    options : RankConvergenceOptions
    n_jobs : int
        Parallel workers (results do not depend on it).
    cache_dir : path, optional
        Where the pixel pass caches its counts.
    progress : bool
        Progress bars.
    notes : iterable of str
        Warnings of the layers above (e.g. the command line's checks), kept with the study's own.
    source : str
        The input in prose, for the report (e.g. its folder).

    Returns
    -------
    StudyResult
        Tables (leaderboard, scores, convergence, bootstrap, significance, distance to unlimited data, Table 4,
        truth...), verdicts and metadata.

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> ch = make_challenge(n_encounters=6, n_images=10, n_runs=3, n_teams=1, rng=0)
    >>> res = run(ch, RankConvergenceOptions(orders=5, bootstrap=20, outer=20))
    >>> res.verdict("pairs_differ", average="micro")[0]["total"]  # pairs of 3 runs
    3
    """
    given = {"challenge": challenge, "options": options, "n_jobs": n_jobs, "cache_dir": cache_dir,
             "progress": progress, "notes": list(notes), "source": source}
    values, tables = run_steps(STEPS, given, n_jobs=n_jobs)
    return StudyResult(STUDY, tables=_ordered(tables), verdicts=values["verdicts"].frame(), meta=values["meta"])


def _choices(challenge, options: RankConvergenceOptions) -> dict:
    """The golds, the both-empty policy, the headline scheme and the size target the options choose."""
    chosen = resolve(None if options.strategies is None else list(options.strategies))
    counted = [s.name for s in chosen if not s.macro_only]
    over = [s.name for s in chosen if s.macro_only]
    primary = options.primary or default_scheme(counted + over)
    return {"empty": empty_policy(options.empty), "chosen": chosen, "counted": counted, "over": over,
            "primary": primary,
            "lenient": options.size_target(challenge.n_runs),  # one place per run, at most a tenth of a random L1
            # a boundary headline is computed per image under every counted gold, and ranked as one more scheme
            "headline_boundary": (primary.metric,) if primary.boundary else ()}


def _pixel_pass(challenge, options: RankConvergenceOptions, counted, headline_boundary, n_jobs: int, cache_dir,
                progress: bool) -> dict:
    """The pixel pass: every image's overlap counts under every counted gold (and the boundary metrics)."""
    t0 = time.time()
    counts = compute_overlap(challenge, strategies=counted, n_jobs=n_jobs, cache_dir=cache_dir, progress=progress,
                             rng=options.rng("random_golds"), boundary=tuple(options.boundary) + headline_boundary,
                             options=OverlapOptions(boundary_conventions=options.boundary_conventions))
    return {"counts": counts, "t_pass": time.time() - t0}


def _checks(challenge, counts) -> dict:
    """A misread input is refused here, before the resampling; what the checks found."""
    return {"found": input_checks(challenge, counts)}


def _schemes(counts, options: RankConvergenceOptions, empty, over, primary: Scheme, headline_boundary) -> dict:
    """The schemes on the convergence unit and on the bootstrap unit (a boundary headline's as the last ones)."""
    extra = [((g, m, "macro"), boundary_values(counts, g, m, empty=empty), primary.lower_better)
             for m in headline_boundary for g in counts.strategies]

    def schemes(unit):
        return schemes_from_counts(counts, unit=unit, empty=empty, annotators=over, extra=extra)

    conv_schemes = schemes(options.unit)
    boot_schemes = conv_schemes if options.bootstrap_unit == options.unit else schemes(options.bootstrap_unit)
    return {"conv_schemes": conv_schemes, "boot_schemes": boot_schemes, "n_extra": len(extra)}


def _headline_rank_tables(conv_schemes, counts, primary: Scheme, options) -> dict:
    """The headline gold and metric's per-case (macro) leaderboard under the ranking options, with rank intervals.

    The tables of the per-case figures (podium, heatmap, rank frequencies...;
    :func:`robustness.studies.table_ranks.rank_tables`), resampling the bootstrap's units. Per-case scores left empty by
    the both-empty policy are left out of a run's mean, as in the leaderboard.
    """
    frames = [f for f in per_case_frames(conv_schemes, counts) if f.strategy.iloc[0] == primary.strategy and
              f.metric.iloc[0] == primary.metric]
    unit = "encounter" if options.bootstrap_unit == "encounter" else None
    tasks = task_scores(pd.concat(frames, ignore_index=True), by=["strategy", "metric"], unit_column=unit)
    chosen = RankingOptions(ties=options.ties, missing="drop", adjustment=options.adjustment, alpha=options.alpha)
    # the test-based ranking's paired tests on every resample cost ~10 s with 40 runs (1,560 ordered pairs); its
    # bootstrap rank distribution is the engine's (rank_distribution.csv), so the per-case views leave it out
    methods = [m for m in options.ranking if m != "test-based"]
    out, notes = rank_tables(tasks, methods, chosen, options, with_consensus=False, significance=False)
    out.pop("per_case.parquet")  # the job writes every scheme's per-case scores itself
    # the headline's direction is the metric's own, stated with the scheme (no option of this job changes it)
    stated = f"metric {primary.metric} ranked {'lower' if primary.lower_better else 'higher'} first"
    return out | {"rank_notes": [n for n in notes if stated not in n], "rank_text": chosen.describe()}


def _resample(conv_schemes, boot_schemes, options: RankConvergenceOptions, n_jobs: int, progress: bool) -> dict:
    """Convergence curves over random orders and the bootstrap of units, every ranking method."""
    return {"res": resample(conv_schemes, options, n_jobs=n_jobs, boot_schemes=boot_schemes, progress=progress)}


def _bootstrap_tables(res) -> dict:
    """The bootstrap's tables: intervals, rank distributions, stability, significance, agreement."""
    return bootstrap_tables(res.bootstrap)


def _uncertainty(boot_schemes, n_extra: int, options: RankConvergenceOptions, lenient: float, n_jobs: int,
                 progress: bool) -> dict:
    """The distance to unlimited data, every scheme of the counts on the study's stream.

    A boundary headline's schemes (the last ``n_extra``) draw from a stream of their own (``uncertainty``, index
    1), so that choosing the headline changes no other scheme's numbers.
    """
    n, k = len(boot_schemes.names), len(boot_schemes.names) - n_extra
    parts = [boot_schemes] if not n_extra else [boot_schemes.select(range(k)), boot_schemes.select(range(k, n))]
    found = [uncertainty_tables(part, options, n_jobs=n_jobs, tolerance=lenient, stream=stream, progress=progress)
             for part, stream in zip(parts, [(), (1,)])]
    return found[0] if len(found) == 1 else {name: pd.concat([f[name] for f in found], ignore_index=True)
                                             for name in found[0]}


def _resolution(boot_schemes, options: RankConvergenceOptions, primary: Scheme) -> dict:
    """resolution.csv (every scheme, every size) and, with the organiser's difference, resolve.csv."""
    out = {"resolution.csv": resolution_table(boot_schemes)}
    if options.resolve is not None:  # the organiser's difference, in the headline metric's units
        same_metric = out["resolution.csv"][out["resolution.csv"].metric == primary.metric]
        out["resolve.csv"] = resolve_table(same_metric, options.resolve)
    return out


def _truth(counts, boot_schemes, options: RankConvergenceOptions, n_jobs: int) -> dict:
    """Each gold's agreement with the latent truth (synthetic data only), on the overlap metrics' schemes.

    A boundary metric is not computed against the true masks.
    """
    if not counts.has_truth:
        return {"truth": None}
    keep = [k for k, n in enumerate(boot_schemes.names) if not is_boundary_metric(n[1])]
    scored = boot_schemes if len(keep) == len(boot_schemes.names) else boot_schemes.select(keep)
    truth = truth_agreement(scored, counts, n_resamples=options.bootstrap, n_jobs=n_jobs, rng=options.rng("truth"))
    return {"truth": truth, "truth.csv": truth[0]}


def _over_test_sets(counts, conv_schemes, boot_schemes, primary: Scheme, options: RankConvergenceOptions,
                    n_jobs: int, progress: bool) -> dict:
    """The golds' curves compared over resampled test sets (encounters with all their images), not only orders."""
    gold_schemes = conv_schemes.select([k for k, n in enumerate(conv_schemes.names) if n[1] == primary.metric])
    clusters = (np.asarray(counts.encounters) if conv_schemes.unit == "image" and boot_schemes.unit == "encounter"
                else None)
    outer_auc = auc_over_test_sets(gold_schemes, clusters=clusters, n_resamples=options.outer,
                                   n_orders=GOLD_ORDERS, options=ConvergenceOptions(step=options.step),
                                   n_jobs=n_jobs, progress=progress, rng=options.rng("gold_comparison"))
    return {"test_sets": (outer_auc, list(gold_schemes.names))}


def _score_tables(counts, res, empty, over, primary: Scheme, headline_boundary) -> dict:
    """leaderboard.csv and scores.csv: the official-equal reductions.

    Other ranking methods: their statistic and rank from the bootstrap's full-set estimate.
    """
    scores_df = score_tables.scores_frame(counts, empty=empty, annotators=over, ranks=True,
                                          boundary=headline_boundary)
    scores_df.insert(3, "ranking", "aggregate")
    ci_all = [b.intervals() for name, b in res.bootstrap.items() if name != "aggregate"]
    scores_df = pd.concat([scores_df] + [c[list(scores_df.columns)] for c in ci_all], ignore_index=True)
    board = score_tables.leaderboard(counts, empty=empty, annotators=over, primary=primary,
                                     boundary=headline_boundary)
    return {"leaderboard.csv": board.join(method_columns(res.bootstrap)), "scores.csv": scores_df}


def _curves(res, options: RankConvergenceOptions, lenient: float, test_sets) -> dict:
    """The convergence tables; the golds' comparison gains its columns over resampled test sets."""
    curves, curve_notes = convergence_tables(res.convergence, tolerance=options.tolerance, lenient=lenient,
                                             all_curves=options.all_curves)
    over_sets = compare_over_test_sets(*test_sets).assign(ranking="aggregate")
    curves["strategy_comparison.csv"] = curves["strategy_comparison.csv"].merge(
        over_sets, how="left", on=["metric", "average", "ranking", "strategy_a", "strategy_b"])
    return curves | {"curve_notes": curve_notes}


def _gold_spread(counts, options: RankConvergenceOptions, empty, primary: Scheme) -> dict:
    """gold_spread.csv: each overlap metric's spread between golds, against STAPLE and leaving one annotator out."""
    spread_empty = empty_policy("one") if empty.propagates else empty  # z-scores need numbers, not 0/0
    metrics = dict.fromkeys(overlap_metrics() + ((primary.metric,) if not primary.boundary else ()))
    variants = [v for v in ("staple", "leave_one_out") if "staple" in counts.strategies or v == "leave_one_out"]
    return {"gold_spread.csv": pd.concat([
        spread.gold_spread(counts, metric=metric, variant=variant, empty=spread_empty,
                           n_resamples=options.bootstrap, rng=options.rng("spread")).assign(metric=metric,
                                                                                           variant=variant)
        for metric in metrics for variant in variants], ignore_index=True)}


def _images(counts, conv_schemes) -> dict:
    """images.csv (each image's encounter, annotators, pixels and fits) and every scheme's per-case scores."""
    return {"images.csv": pd.concat([pd.DataFrame({
        "image": counts.images, "encounter": counts.encounters, "annotators": counts.annotator_valid.sum(axis=0),
        "pixels": counts.n_pixels}), counts.fit_frame()], axis=1),
        "per_case.parquet": lambda: per_case_frames(conv_schemes, counts)}


def _labels(challenge) -> dict:
    """The challenge's labels, where it has several (None otherwise)."""
    labels = getattr(challenge.source, "labels", None)
    return {"labels": np.asarray(labels) if labels is not None and len(set(labels)) > 1 else None}


def _per_image(counts, primary: Scheme, empty, boot_schemes, labels) -> dict:
    """The headline gold's per-image values of every metric, where the boundary or label tables need them."""
    needed = counts.boundary is not None or labels is not None
    return {"per_image": PerImage.of(counts, primary, empty, boot_schemes.unit) if needed else None}


def _metric_tables(counts, per_image, options: RankConvergenceOptions, n_jobs: int, lenient: float) -> dict:
    """The boundary metrics' tables (none without boundary metrics)."""
    if counts.boundary is None:
        return {}
    return metric_tables(counts, per_image, options, n_jobs=n_jobs, lenient=lenient)


def _label_tables(counts, labels, per_image, over, options: RankConvergenceOptions, n_jobs: int,
                  lenient: float) -> dict:
    """The per-label tables, on a challenge of several labels."""
    return label_tables(counts, labels, per_image, over, options, n_jobs=n_jobs, lenient=lenient)


def _verdicts(counts, tables, res, truth, primary: Scheme, lenient: float, test_sets) -> dict:
    """Every finding the report states (:func:`robustness.studies.rank_convergence_verdicts.verdicts`)."""
    return {"verdicts": verdicts(counts, tables, res, truth, primary=primary, lenient=lenient, test_sets=test_sets)}


def _warnings(challenge, counts, options: RankConvergenceOptions, notes, found, curve_notes, rank_notes,
              headline_boundary) -> dict:
    """Every warning of the run: the layers above's, the input's, the pixel pass's, the checks' and the study's."""
    rank_notes = rank_notes + _one_slice_note(challenge, options, bool(options.boundary or headline_boundary))
    study_notes = curve_notes + rank_notes
    return {"warnings": notes + list(challenge.notes) + summarise_notes(counts.notes) + found + study_notes,
            "study_notes": study_notes}


def _input_meta(challenge, counts, source: str) -> dict:
    """What the report says of the input (meta.json's ``input``)."""
    return {"input_meta": {
        "source": source, "fingerprint": challenge.fingerprint(), "overlap_fingerprint": counts.fingerprint,
        "images": challenge.n_images, "encounters": len(set(challenge.encounters)), "runs": challenge.n_runs,
        "annotators": list(challenge.annotators), "notes": list(challenge.notes)} | _layout(challenge)}


def _meta(challenge, options: RankConvergenceOptions, chosen, empty, primary: Scheme, rank_text, input_meta,
          boot_schemes) -> dict:
    """The study's metadata (meta.json's study fields), but for its timing, warnings and notes."""
    return {"study_meta": {
        "options": asdict(options), "methods": methods_meta(), "gold_orders": GOLD_ORDERS,
        "empty_policy": empty.name,
        "strategies": [s.name for s in chosen],
        "ranking": list(options.ranking),
        "ranking_options_text": rank_text,
        "primary": primary.to_meta() | {"set_by": "organiser" if options.primary is not None else "default"},
        "target": options.target_meta(challenge.n_runs),
        "input": input_meta,
        "bootstrap_unit": boot_schemes.unit, "bootstrap_units": boot_schemes.n_units}}


def _notes_meta(study_meta, t_pass: float, warnings, found, study_notes) -> dict:
    """meta.json's study fields, with the pixel pass's time, the warnings and the study's notes."""
    return {"meta": study_meta | {"pixel_pass_s": round(t_pass, 2), "warnings": warnings, "checks": found,
                                  "study_notes": study_notes}}


#: The main job, step by step: each step's parameters are what it needs (the inputs of :func:`run` or what an
#: earlier step made); ``makes`` names the values it hands on and ``writes`` the tables it may write.
STEPS = (
    Step(_choices, makes=("empty", "chosen", "counted", "over", "primary", "lenient", "headline_boundary")),
    Step(_pixel_pass, makes=("counts", "t_pass")),
    Step(_checks, makes=("found",)),
    Step(_schemes, makes=("conv_schemes", "boot_schemes", "n_extra")),
    # the per-case tables run on one core: beside the stages below, on a core of its own when there are two
    Step(_headline_rank_tables, makes=("rank_notes", "rank_text"), background=True, status="per-case tables",
         writes=("ranking.csv", "rank_bootstrap.csv", "rank_frequency.csv", "rank_bootstrap_tau.csv",
                 "case_ranks.csv", "friedman.csv", "nemenyi.csv", "cd_groups.csv", "iqm.csv", "improvement.csv",
                 "performance_profile.csv", "bayes_signed_rank.csv", "podium.parquet")),
    Step(_resample, makes=("res",)),
    Step(_bootstrap_tables, background=True,  # one core, as the above
         writes=("bootstrap_ci.csv", "rank_distribution.csv", "stability.csv", "pairwise.parquet",
                 "kendall_tau.csv")),
    Step(_uncertainty, writes=("ranking_uncertainty.csv", "rank_keep.csv", "test_set_size.csv"),
         status="distance to unlimited data (empirical Bayes)"),
    Step(_resolution, writes=("resolution.csv", "resolve.csv"), status="resolution"),
    Step(_truth, makes=("truth",), writes=("truth.csv",), status="agreement with the truth"),
    Step(_over_test_sets, makes=("test_sets",), status="curves over new test sets"),
    Step(_score_tables, writes=("leaderboard.csv", "scores.csv"), status="tables and verdicts"),
    Step(_curves, makes=("curve_notes",),
         writes=("orders.csv", "curves.parquet", "curves_summary.csv", "convergence.csv", "strategy_comparison.csv")),
    Step(_gold_spread, writes=("gold_spread.csv",)),
    Step(_images, writes=("images.csv", "per_case.parquet")),
    Step(_labels, makes=("labels",)),
    Step(_per_image, makes=("per_image",)),
    Step(_metric_tables, writes=("metric_leaderboard.csv", "metric_agreement.csv", "metric_convergence.csv")),
    Step(_label_tables, writes=("label_scores.csv", "label_convergence.csv", "label_leaderboard.csv",
                                "label_agreement.csv"), when="labels"),
    Step(_verdicts, makes=("verdicts",)),
    Step(_warnings, makes=("warnings", "study_notes")),
    Step(_input_meta, makes=("input_meta",)),
    Step(_meta, makes=("study_meta",)),
    Step(_notes_meta, makes=("meta",)),
)


def _ordered(tables: dict) -> dict:
    """The tables in the order they were written in before the hand-off (meta.json lists them sorted either way)."""
    order = ["ranking_uncertainty.csv", "rank_keep.csv", "test_set_size.csv", "truth.csv", "leaderboard.csv",
             "scores.csv"]
    return {name: tables[name] for name in order + [n for n in tables if n not in order] if name in tables}


def _one_slice_note(challenge, options, boundary: bool) -> list[str]:
    """Say how volumes of one slice (1 x H x W) were scored, where boundary metrics are computed on any."""
    n = sum(len(shape) == 3 and shape[0] == 1 for shape in challenge.shapes)
    if not boundary or not n:
        return []
    one = parameter("RankConvergenceOptions", "one_slice")
    how = (f"as the 2D images they are (their border in the plane; {one} 3d scores them as slabs whose every "
           "voxel is border, MetricsReloaded's and MONAI's numbers)" if options.one_slice == "2d" else
           f"as 3D slabs whose every voxel is border ({one} 3d; {one} 2d scores them as the 2D images "
           "they are, SimpleITK's and seg-metrics' numbers)")
    return [f"{n} of {challenge.n_images} images are volumes of one slice (1 x H x W): their boundary metrics are "
            f"computed {how}"]


def _layout(challenge) -> dict:
    """What the report says of 3D and multi-label input (nothing for 2D images, so their metadata is unchanged)."""
    out: dict[str, Any] = {}
    if any(len(shape) == 3 for shape in challenge.shapes):
        out["volumes"] = True
    if getattr(challenge, "spacings", None) is not None:  # medical images: the figures' distances are in mm
        out["distance_unit"] = "mm"
    labels = getattr(challenge.source, "labels", None)
    if labels is not None:
        out["labels"] = sorted(set(labels))
    regions = getattr(challenge.source, "regions", None)
    if regions is not None:
        out["regions"] = {name: list(values) for name, values in regions}
    return out
