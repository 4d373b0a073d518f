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

from robustness import background, seeds
from robustness.errors import summarise_notes
from robustness.overlap.boundary import is_boundary_metric
from robustness.overlap.checks import input_checks
from robustness.overlap.empty import empty_policy
from robustness.overlap.gold import get_strategy, is_random, resolve
from robustness.overlap.metrics import AVERAGES
from robustness.overlap.pixel_pass import compute_overlap
from robustness.progress import stage
from robustness.results.study_result import StudyResult, Verdicts
from robustness.scheme import Scheme, default_scheme
from robustness.statistics import leaderboard as score_tables
from robustness.statistics import spread
from robustness.statistics.case_rankings import task_scores
from robustness.statistics.convergence import GOLD_ORDERS, auc_over_test_sets, compare_over_test_sets
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.metric_agreement import boundary_values
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.resolution import resolution_table, resolve_table
from robustness.statistics.table_schemes import per_case_frames
from robustness.statistics.truth import truth_agreement
from robustness.statistics.verdicts import best_with_ties
from robustness.studies.common import (
    bootstrap_tables,
    convergence_tables,
    method_columns,
    methods_meta,
    only,
    resample,
    uncertainty_tables,
)
from robustness.studies.rank_convergence_metrics import (
    PerImage,
    label_tables,
    label_verdicts,
    metric_tables,
    metric_verdicts,
    overlap_metrics,
)
from robustness.studies.rank_convergence_options import RankConvergenceOptions
from robustness.studies.resampling_verdicts import (
    fastest_verdicts,
    ranking_verdicts,
    resolution_verdicts,
    significance_verdicts,
    unlimited_verdicts,
)
from robustness.studies.table import rank_tables

if TYPE_CHECKING:

    from robustness.io.challenge import Challenge

__all__ = ["RankConvergenceOptions", "run"]

STUDY = "rank_convergence"


def _uncertainty(schemes, n_extra: int, options, *, n_jobs: int, tolerance: float, progress: bool = False) -> dict:
    """The distance to unlimited data, every scheme of the counts on the study's stream.

    A boundary headline's schemes (the last ``n_extra``) draw from a stream of their own (``uncertainty``, index
    1), so that choosing the headline changes no other scheme's numbers.
    """
    if not n_extra:
        return uncertainty_tables(schemes, options, n_jobs=n_jobs, tolerance=tolerance, progress=progress)
    k = len(schemes.names) - n_extra
    base = uncertainty_tables(schemes.select(range(k)), options, n_jobs=n_jobs, tolerance=tolerance,
                              progress=progress)
    more = uncertainty_tables(schemes.select(range(k, len(schemes.names))), options, n_jobs=n_jobs,
                              tolerance=tolerance, rng=seeds.stream(options.seed, "uncertainty", 1), progress=progress)
    return {name: pd.concat([base[name], more[name]], ignore_index=True) for name in base}


def _headline_rank_tables(schemes, counts, primary: Scheme, options):
    """The headline gold and metric's per-case (macro) leaderboard under the ranking options, with rank intervals.

    The tables of the per-case figures (podium, heatmap, rank frequencies...;
    :func:`robustness.studies.table.rank_tables`), resampling the bootstrap's units. Per-case scores left empty by
    the both-empty policy are left out of a run's mean, as in the leaderboard.
    """
    frames = [f for f in per_case_frames(schemes, counts) if f.strategy.iloc[0] == primary.gold and
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
    return out, [n for n in notes if stated not in n], chosen.describe()


def run(challenge: Challenge, options: RankConvergenceOptions = RankConvergenceOptions(), *, n_jobs: int = 1,
        cache_dir: Path | None = None, progress: bool = False, notes: Iterable[str] = (),
        source: str = "the challenge") -> StudyResult:
    """The main job on ``challenge``.

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
    >>> res = run(ch, RankConvergenceOptions(orders=5, bootstrap=20))
    >>> res.verdict("pairs_differ", average="micro")[0]["total"]  # pairs of 3 runs
    3
    """
    empty = empty_policy(options.empty)
    chosen = resolve(None if options.strategies is None else list(options.strategies))
    counted = [s.name for s in chosen if not s.macro_only]
    over = [s.name for s in chosen if s.macro_only]
    lenient = options.size_target(challenge.n_runs)  # one place per run, at most a tenth of a random order's L1
    primary = options.primary or default_scheme(counted + over)

    # a boundary headline is computed per image under every counted gold, and ranked as one more macro scheme
    headline_boundary = (primary.metric,) if primary.boundary else ()
    t0 = time.time()
    counts = compute_overlap(challenge, strategies=counted, n_jobs=n_jobs, cache_dir=cache_dir, progress=progress,
                             rng=options.rng("random_golds"), boundary=tuple(options.boundary) + headline_boundary,
                             boundary_conventions=options.boundary_conventions)
    t_pass = time.time() - t0
    found = input_checks(challenge, counts)  # a misread input is refused here, before the resampling
    extra = [((g, m, "macro"), boundary_values(counts, g, m, empty=empty), primary.lower_better)
             for m in headline_boundary for g in counts.strategies]

    def schemes(unit):
        return schemes_from_counts(counts, unit=unit, empty=empty, annotators=over, extra=extra)

    conv_schemes = schemes(options.unit)
    boot_schemes = conv_schemes if options.bootstrap_unit == options.unit else schemes(options.bootstrap_unit)
    # the per-case tables run on one core: beside the stages below, on a core of its own when there are two
    per_case = background.start(_headline_rank_tables, conv_schemes, counts, primary, options, n_jobs=n_jobs)
    res = resample(conv_schemes, options, n_jobs=n_jobs, boot_schemes=boot_schemes, progress=progress)
    boot_tables = background.start(bootstrap_tables, res.bootstrap, n_jobs=n_jobs)  # one core, as the above
    stage("distance to unlimited data (empirical Bayes)", printed=False)
    uncertainty = _uncertainty(boot_schemes, len(extra), options, n_jobs=n_jobs, tolerance=lenient,
                               progress=progress)
    stage("resolution", printed=False)
    uncertainty.update(_resolution(boot_schemes, options, primary))
    truth = _truth(counts, boot_schemes, options, n_jobs=n_jobs) if counts.has_truth else None
    # the golds' curves compared over resampled test sets (encounters with all their images), not only orders
    gold_schemes = conv_schemes.select([k for k, n in enumerate(conv_schemes.names) if n[1] == primary.metric])
    clusters = (np.asarray(counts.encounters) if conv_schemes.unit == "image" and boot_schemes.unit == "encounter"
                else None)
    stage("curves over new test sets", printed=False)
    outer_auc = auc_over_test_sets(gold_schemes, clusters=clusters, n_resamples=options.outer,
                                   n_orders=GOLD_ORDERS, step=options.step, n_jobs=n_jobs, progress=progress,
                                   rng=options.rng("gold_comparison"))

    stage("tables and verdicts", printed=False)
    tables = _score_tables(counts, res, empty=empty, annotators=over, primary=primary, boundary=headline_boundary)
    curves, curve_notes = convergence_tables(res.convergence, tolerance=options.tolerance, lenient=lenient,
                                             all_curves=options.all_curves)
    over_sets = compare_over_test_sets(outer_auc, gold_schemes.names).assign(ranking="aggregate")
    tables.update(curves)
    tables["strategy_comparison.csv"] = tables["strategy_comparison.csv"].merge(
        over_sets, how="left", on=["metric", "average", "ranking", "strategy_a", "strategy_b"])
    tables.update(boot_tables.result())
    tables.update(uncertainty)
    if truth is not None:
        tables["truth.csv"] = truth[0]
    tables["gold_spread.csv"] = _gold_spread(counts, options, empty, primary)
    tables["images.csv"] = pd.concat([pd.DataFrame({
        "image": counts.images, "encounter": counts.encounters, "annotators": counts.annotator_valid.sum(axis=0),
        "pixels": counts.n_pixels}), counts.fit_frame()], axis=1)
    tables["per_case.parquet"] = lambda: per_case_frames(conv_schemes, counts)
    stage("per-case tables", printed=False)
    rank_out, rank_notes, rank_text = per_case.result()
    tables.update(rank_out)
    tables.update(_metric_and_label_tables(challenge, counts, primary, empty, boot_schemes.unit, over, options,
                                           n_jobs=n_jobs, lenient=lenient))
    tables = _ordered(tables)

    verdicts = _verdicts(counts, tables, res, truth, primary=primary, lenient=lenient,
                         test_sets=(outer_auc, list(gold_schemes.names)))
    rank_notes = rank_notes + _one_slice_note(challenge, options, bool(options.boundary or headline_boundary))
    warnings = list(notes) + list(challenge.notes) + _summarised(counts.notes) + found + curve_notes + rank_notes
    meta = _meta(challenge, counts, options, chosen=chosen, empty=empty, primary=primary, rank_text=rank_text,
                 source=source, boot_schemes=boot_schemes, t_pass=t_pass) | {
        "warnings": warnings, "checks": found, "study_notes": curve_notes + rank_notes}
    return StudyResult(STUDY, tables=tables, verdicts=verdicts.frame(), meta=meta)


def _truth(counts, boot_schemes, options: RankConvergenceOptions, *, n_jobs: int):
    """Each gold's agreement with the latent truth, on the overlap metrics' schemes.

    A boundary metric is not computed against the true masks.
    """
    keep = [k for k, n in enumerate(boot_schemes.names) if not is_boundary_metric(n[1])]
    scored = boot_schemes if len(keep) == len(boot_schemes.names) else boot_schemes.select(keep)
    return truth_agreement(scored, counts, n_resamples=options.bootstrap, n_jobs=n_jobs, rng=options.rng("truth"))


def _resolution(boot_schemes, options: RankConvergenceOptions, primary: Scheme) -> dict:
    """resolution.csv (every scheme, every size) and, with the organiser's difference, resolve.csv."""
    out = {"resolution.csv": resolution_table(boot_schemes)}
    if options.resolve is not None:  # the organiser's difference, in the headline metric's units
        same_metric = out["resolution.csv"][out["resolution.csv"].metric == primary.metric]
        out["resolve.csv"] = resolve_table(same_metric, options.resolve)
    return out


def _score_tables(counts, res, *, empty, annotators, primary: Scheme, boundary) -> dict:
    """leaderboard.csv and scores.csv: the official-equal reductions.

    Other ranking methods: their statistic and rank from the bootstrap's full-set estimate.
    """
    scores_df = score_tables.scores_frame(counts, empty=empty, annotators=annotators, ranks=True, boundary=boundary)
    scores_df.insert(3, "ranking", "aggregate")
    ci_all = [b.intervals() for name, b in res.bootstrap.items() if name != "aggregate"]
    scores_df = pd.concat([scores_df] + [c[list(scores_df.columns)] for c in ci_all], ignore_index=True)
    board = score_tables.leaderboard(counts, empty=empty, annotators=annotators, primary=primary, boundary=boundary)
    return {"leaderboard.csv": board.join(method_columns(res.bootstrap)), "scores.csv": scores_df}


def _gold_spread(counts, options: RankConvergenceOptions, empty, primary: Scheme) -> pd.DataFrame:
    """gold_spread.csv: each overlap metric's spread between golds, against STAPLE and leaving one annotator out."""
    spread_empty = empty_policy("one") if empty.propagates else empty  # z-scores need numbers, not 0/0
    metrics = dict.fromkeys(overlap_metrics() + ((primary.metric,) if not primary.boundary else ()))
    variants = [v for v in ("staple", "leave_one_out") if "staple" in counts.strategies or v == "leave_one_out"]
    return pd.concat([
        spread.gold_spread(counts, metric=metric, variant=variant, empty=spread_empty,
                           n_resamples=options.bootstrap, rng=options.rng("spread")).assign(metric=metric,
                                                                                           variant=variant)
        for metric in metrics for variant in variants], ignore_index=True)


def _metric_and_label_tables(challenge, counts, primary: Scheme, empty, unit: str, over, options, *, n_jobs: int,
                             lenient: float) -> dict:
    """The boundary metrics' tables and, on a challenge of several labels, the per-label ones."""
    labels = getattr(challenge.source, "labels", None)
    several_labels = labels is not None and len(set(labels)) > 1
    if counts.boundary is None and not several_labels:
        return {}
    out = {}
    per_image = PerImage.of(counts, primary, empty, unit)
    if counts.boundary is not None:
        out.update(metric_tables(counts, per_image, options, n_jobs=n_jobs, lenient=lenient))
    if several_labels:
        out.update(label_tables(counts, np.asarray(labels), per_image, over, options, n_jobs=n_jobs, lenient=lenient))
    return out


def _ordered(tables: dict) -> dict:
    """The tables in the order they were written in before the hand-off (meta.json lists them sorted either way)."""
    order = ["ranking_uncertainty.csv", "rank_keep.csv", "test_set_size.csv", "truth.csv", "leaderboard.csv",
             "scores.csv"]
    return {name: tables[name] for name in order + [n for n in tables if n not in order] if name in tables}


def _meta(challenge, counts, options: RankConvergenceOptions, *, chosen, empty, primary: Scheme, rank_text,
          source: str, boot_schemes, t_pass: float) -> dict:
    """The study's metadata (meta.json's study fields), but for its warnings and notes."""
    return {
        "options": asdict(options), "methods": methods_meta(), "gold_orders": GOLD_ORDERS,
        "empty_policy": empty.name,
        "strategies": [s.name for s in chosen],
        "ranking": list(options.ranking),
        "ranking_options_text": rank_text,
        "primary": primary.to_meta(),
        "target": options.target_meta(challenge.n_runs),
        "input": {"source": source, "fingerprint": challenge.fingerprint(), "overlap_fingerprint": counts.fingerprint,
                  "images": challenge.n_images, "encounters": len(set(challenge.encounters)),
                  "runs": challenge.n_runs, "annotators": list(challenge.annotators),
                  "notes": list(challenge.notes)} | _layout(challenge),
        "bootstrap_unit": boot_schemes.unit, "bootstrap_units": boot_schemes.n_units,
        "pixel_pass_s": round(t_pass, 2),
    }


def _one_slice_note(challenge, options, boundary: bool) -> list[str]:
    """Say how volumes of one slice (1 x H x W) were scored, where boundary metrics are computed on any."""
    n = sum(len(shape) == 3 and shape[0] == 1 for shape in challenge.shapes)
    if not boundary or not n:
        return []
    how = ("as the 2D images they are (their border in the plane; --one-slice 3d scores them as slabs whose every "
           "voxel is border, MetricsReloaded's and MONAI's numbers)" if options.one_slice == "2d" else
           "as 3D slabs whose every voxel is border (--one-slice 3d; --one-slice 2d scores them as the 2D images "
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


#: The share of resamples below which a run is "not first" with confidence (two-sided 95%: 2.5% per side).
FIRST_PLACE_TAIL = 0.025


def _winner_verdicts(v: Verdicts, dist: pd.DataFrame, primary: Scheme) -> None:
    """Which other gold, averaging or metric moves the first place away from the headline's winner.

    For every scheme that differs from the headline in one respect (another fixed gold, the other averaging,
    another overlap metric), from the bootstrap rank distributions (the same resampled test sets for every
    scheme): its observed winner, the share of resamples in which that run is first under it, and where the
    headline's winner stands under it. Statement ``moves`` when the headline's winner is first under the other
    scheme in fewer than :data:`FIRST_PLACE_TAIL` of resamples (its 95% rank interval there excludes first place),
    ``may move`` when the observed winners differ but that is not established (tied), ``same`` otherwise.
    """
    dist = dist[dist.ranking == "aggregate"]
    first = dist[dist["rank"] == 1]

    def winner(key):
        rows = dist[(dist.strategy == key[0]) & (dist.metric == key[1]) & (dist.average == key[2])]
        return None if rows.empty else rows.sort_values("full_rank", kind="stable").run.iloc[0]

    def share_first(key, run):
        rows = first[(first.strategy == key[0]) & (first.metric == key[1]) & (first.average == key[2])
                     & (first.run == run)]
        return float(rows.share.sum())

    lead = winner(primary.key)
    if lead is None:
        return
    head = dist[(dist.strategy == primary.key[0]) & (dist.metric == primary.key[1]) & (dist.average == primary.key[2])]
    if (head.drop_duplicates("run").full_rank == head.full_rank.min()).sum() > 1:  # tied for first: no one to move
        return
    keys = list(dict.fromkeys(zip(dist.strategy, dist.metric, dist.average)))
    others = [k for k in keys if k != primary.key and not is_random(k[0])
              and sum(a != b for a, b in zip(k, primary.key)) == 1
              and (k[2] == primary.average or not get_strategy(k[0]).macro_only)]
    for key in others:
        other = winner(key)
        mine = dist[(dist.strategy == key[0]) & (dist.metric == key[1]) & (dist.average == key[2])
                    & (dist.run == lead)]
        p_lead = share_first(key, lead)
        statement = "same" if other == lead else ("moves" if p_lead < FIRST_PLACE_TAIL else "may move")
        v.add("winner_by_scheme", strategy=key[0], metric=key[1], average=key[2], statement=statement,
              subject=[other, lead], value=share_first(key, other), low=p_lead,
              count=int(mine.full_rank.iloc[0]) if len(mine) else -1, total=int(dist.run.nunique()),
              table="rank_distribution.csv")


def _summarised(notes) -> list:
    return summarise_notes(notes)


def _verdicts(counts, tables, res, truth, *, primary: Scheme, lenient: float, test_sets=None) -> Verdicts:
    """Every finding the main job's report states (see :data:`robustness.results.study_result.VERDICT_COLUMNS`)."""
    v = Verdicts()
    headline = [primary.with_average(a) for a in primary.averages]
    significance_verdicts(v, tables["pairwise.parquet"], headline)
    if "metric_agreement.csv" in tables:
        metric_verdicts(v, tables, primary)
    if "label_agreement.csv" in tables:
        label_verdicts(v, tables, primary)
    unlimited_verdicts(v, tables, headline, lenient=lenient)
    resolution_verdicts(v, tables, headline)
    fastest_verdicts(v, res.convergence["aggregate"], tables["convergence.csv"], lenient=lenient,
                     test_sets=test_sets, metric=primary.metric)
    # the two golds whose rankings agree least (headline metric and averaging), and how many other pairs'
    # intervals reach it
    agreement = only(tables["kendall_tau.csv"])
    m = agreement[(agreement.metric == primary.metric) & (agreement.average == primary.average)]
    off = m[m.strategy < m.other]
    if len(off):
        lo = off.sort_values("tau").iloc[0]
        v.add("least_gold_agreement", metric=primary.metric, average=primary.average, subject=[lo.strategy, lo.other],
              value=lo.tau, low=lo.tau_low, high=lo.tau_high, level=0.95,
              count=int((off.tau_low <= lo.tau_high).sum()) - 1, total=len(off) - 1, table="kendall_tau.csv")
    # Table 4: how much of the paper's mean z comes from the images where the annotators agree most
    s = tables["gold_spread.csv"]
    staple = s[(s.metric == primary.metric) & (s.variant == "staple")]
    v.add("small_sd_share", metric=primary.metric, value=staple.small_sd_share.median() if len(staple) else np.nan,
          table="gold_spread.csv")
    for f, name in enumerate(counts.fits):
        v.add("fit_not_converged", strategy=name, count=int((~counts.fit_converged[f]).sum()),
              total=counts.n_images, table="images.csv")
    if truth is not None:
        table, taus = truth
        for average in AVERAGES:
            scheme = table.index[(table.metric == primary.metric) & (table.average == average)]
            random = table.strategy[scheme].map(is_random).to_numpy(bool)
            drawn, idx = scheme[random], scheme[~random]  # a draw is not a candidate
            if len(drawn) > 1:
                t = table.tau_to_truth[drawn]
                v.add("random_gold_spread", metric=primary.metric, average=average, statement="tau_to_truth",
                      value=float(t.mean()), low=float(t.min()), high=float(t.max()), count=len(drawn),
                      table="truth.csv")
            if len(idx) < 2:
                continue
            verdict = best_with_ties(taus[idx], list(table.strategy[idx]))
            lead = table.loc[idx].set_index("strategy").loc[verdict.tied[0]]
            v.add("truth_best", metric=primary.metric, average=average,
                  statement="best" if verdict.best else "tied",
                  subject=verdict.tied, value=lead.tau_to_truth, low=lead.tau_low, high=lead.tau_high,
                  level=verdict.level, table="truth.csv")
    ranking_verdicts(v, tables, [primary.with_average("macro")])
    _winner_verdicts(v, tables["rank_distribution.csv"], primary)
    return v
