"""The main job's report, its agreement sections: golds, Table 4, STAPLE fits, the truth, metrics and labels.

Each section reads the results folder (tables, and the verdicts for its findings); the main job's report module
(:mod:`robustness.reporting.sections.rank_convergence`) registers them in the report's order, with the helpers
both modules share (the headline scheme, the bootstrap's unit, the default method's rows).
"""


from __future__ import annotations

import pandas as pd

from robustness.errors import parameter
from robustness.overlap.lesions import is_lesion_metric
from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import (
    at_tolerance,
    convergence_cell,
    default_rows,
    size_target_of,
)
from robustness.reporting.sections.registry import (
    ci,
    names,
    strategy_label,
)
from robustness.results.meta import MainJobMeta
from robustness.results.study_result import StudyResult
from robustness.scheme import Scheme, from_meta, lower_is_better
from robustness.statistics.ranks import format_target, target_text

__all__ = ["headline", "size_target_caption", "bootstrap_units", "paper_data",
           "gold_agreement_section", "table4_section", "fits_section", "truth_section", "metrics_section",
           "labels_section"]



def _empty_distance_text(value) -> str:
    """The distance an empty mask scores against a non-empty one, in words."""
    if value == "diagonal":
        return "the image's diagonal"
    return f"{value:g} ({parameter('RankConvergenceOptions', 'empty_distance')})"


def _conventions_text(options: dict) -> str:
    """The surface conventions in effect, where they differ from the defaults (face borders, one slice as 2D)."""
    parts = []
    if options.get("border", "face") == "full":
        parts.append("a border voxel has a background neighbour across a face, an edge or a corner ("
                     f"{parameter('RankConvergenceOptions', 'border')} full, "
                     "seg-metrics' borders; the default counts faces only, MetricsReloaded's)")
    if options.get("one_slice", "2d") == "3d":
        parts.append("a volume of one slice is a slab whose every voxel is border ("
                     f"{parameter('RankConvergenceOptions', 'one_slice')} 3d)")
    if not str(options.get("min_lesion_size", "0 voxels")).startswith("0 "):
        parts.append(f"connected components smaller than {options['min_lesion_size']} are not lesions "
                     f"({parameter('RankConvergenceOptions', 'min_lesion_size')})")
    if any("_surfel" in str(m) for m in options.get("boundary", ())):
        parts.append("metrics named *_surfel weight surface elements by their area (DeepMind's surface-distance) "
                     "where the others count border voxels")
    return "".join(p[:1].upper() + p[1:] + ". " for p in parts)

def bootstrap_units(res: StudyResult) -> tuple[str, int]:
    """The bootstrap's unit and how many the test set holds (meta.json).

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    (str, int)
    """
    m = MainJobMeta.of(res)
    return m.bootstrap_unit, m.bootstrap_units


def headline(res: StudyResult) -> Scheme:
    """The headline scheme the results were ranked by (meta.json).

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    Scheme
    """
    return from_meta(res.meta)


def gold_agreement_section(r: Report, res: StudyResult) -> None:
    """How much the rankings under different golds disagree (verdict ``least_gold_agreement``).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    boot_unit, _ = bootstrap_units(res)
    p = headline(res)
    agreement = default_rows(res.table("kendall_tau.csv"))
    r.heading("How much do the rankings under different golds disagree?")
    m = agreement[(agreement.metric == p.metric) & (agreement.average == p.average)]
    order = list(dict.fromkeys(m.strategy))
    mat = m.pivot(index="strategy", columns="other", values="tau").loc[order, order]
    for v in res.verdict("least_gold_agreement", metric=p.metric, average=p.average):
        a, b = v["subject"]
        tied = phrase("least_gold_agreement", "overlapping" if v["count"] else "apart", v)
        r.paragraph(phrase("least_gold_agreement", "paragraph", v, metric_label=p.metric_label, gold=strategy_label(a),
                           other=strategy_label(b), interval=ci(v["value"], v["low"], v["high"], "{:.2f}"),
                           unit=boot_unit, tied=tied))
    r.table(mat.reset_index().rename(columns={"strategy": ""}), floatfmt="{:.2f}")
    r.figure("figures/fig_06_kendall_tau.png", "Kendall's tau between the rankings under different golds; "
             "above the diagonal tau, below it its 95% bootstrap interval.")


def paper_words(res: StudyResult) -> tuple[str, str]:
    """How a section names the MEDIQA-MAGIC 2025 overview: "the paper" on its data, its name with a reference else.

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    (str, str)
        The name, and its possessive for a heading's aside ("" on other data: headings name no paper there).
    """
    if paper_data(res):
        return "the paper", "the paper's"
    return "the MEDIQA-MAGIC 2025 overview (ImageCLEF 2025, CEUR-WS)", ""


def paper_data(res: StudyResult) -> bool:
    """Whether the input is the MEDIQA-MAGIC data (its layout) or the synthetic challenge that stands in for it.

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    bool
    """
    reading = MainJobMeta.of(res).reading
    if not reading:  # a folder written before meta.json recorded how its input was read
        return headline(res).official
    return reading.get("layout") == "dermavqa" or not reading.get("folder")


def table4_section(r: Report, res: StudyResult) -> None:
    """Distance from the annotators' spread (the paper's Table 4, and the variants that do not mislead).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    boot_unit, _ = bootstrap_units(res)
    spread = res.table("gold_spread.csv")
    p = headline(res)
    s = spread[spread.metric == p.metric]
    if s.empty:
        return
    k = res.table("images.csv").annotators
    k_lo, k_hi = int(k.min()), int(k.max())
    panel = f"{k_lo}" if k_lo == k_hi else f"{k_lo} to {k_hi}"
    dof = f"{k_lo - 1}" if k_lo == k_hi else f"{k_lo - 1} to {k_hi - 1}"
    name, aside = paper_words(res)
    short = "paper" if aside else "MEDIQA-MAGIC 2025"
    r.heading("Distance from the annotators' spread" + (f" ({aside} Table 4)" if aside else ""))
    two = k_lo < 3
    rows = []
    for variant, label in (("staple", f"vs STAPLE of all ({short})"), ("leave_one_out", "leave one annotator out")):
        v = s[s.variant == variant].sort_values("z_mean")
        if v.empty or (two and variant == "leave_one_out"):
            continue
        picked = [(f"{which}: ", row) for which, row in (("best", v.iloc[0]), ("worst", v.iloc[-1]))] if not two \
            else [("", row) for _, row in v.iterrows()]
        for which, row in picked:
            rows.append({"consensus": label, "run": f"{which}{row.run}",
                         f"mean z ({short})": ci(row.z_mean, row.z_mean_low, row.z_mean_high, "{:.2f}"),
                         "median z": f"{row.z_median:.2f}",
                         "pooled-SD z": ci(row.z_pooled, row.z_pooled_low, row.z_pooled_high, "{:.2f}"),
                         "share from 10% smallest SD": f"{row.small_sd_share:.0%}"})
    paper = (" The paper reports 3.6 (best) and 9 to 19 (worst) on the MEDIQA-MAGIC data."
             if paper_data(res) else "")
    r.table(pd.DataFrame(rows), caption=(
        "Standard deviations between a run's agreement with the consensus and the annotators' own agreement with it "
        f"({p.metric_label}), 95% intervals over {boot_unit}s. The intervals treat the annotators as fixed: they "
        "hold for new "
        f"{boot_unit}s drawn by the same annotators, not for another panel (with {panel} annotators per image, a "
        f"different panel would move the SD by more than these intervals show).{paper}"))
    share = res.verdict("small_sd_share", metric=p.metric)[0]
    if two:
        r.paragraph(
            f"With {panel} annotators per image, leaving one out leaves a single annotator, whose spread is undefined: "
            "the leave-one-annotator-out variant is not computed, and no run is labelled best or worst (with two "
            "annotators the spread is one difference, with one degree of freedom). All variants: gold_spread.csv.")
        return
    r.paragraph(phrase("small_sd_share", "paragraph", share, name=name, panel=panel, dof=dof))


def fits_section(r: Report, res: StudyResult) -> None:
    """Golds whose fit (STAPLE's EM) stopped at its iteration cap (verdict ``fit_not_converged``).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    for v in res.verdict("fit_not_converged"):
        if v["count"]:
            r.paragraph(phrase("fit_not_converged", "paragraph", v, gold=strategy_label(v["strategy"])))


def truth_section(r: Report, res: StudyResult) -> None:
    """Which gold recovers the true ranking (synthetic data only; verdicts ``truth_best``).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    if not res.has("truth.csv"):
        return
    table = res.table("truth.csv")
    p = headline(res)
    r.heading("Which gold recovers the true ranking? (synthetic data only)")
    r.paragraph("Kendall's tau between each scheme's ranking and the runs' ranking against the latent true masks by "
                "the same metric and averaging on the same images, with its 95% bootstrap interval (both rankings "
                "recomputed on every resample); p_best: the share of resamples in which the scheme agrees best. The "
                "resampled taus run lower than the observed one (a resample holds about 63% distinct "
                "encounters, so it is a noisier test set), which can put the observed tau near or above the "
                "interval's upper end; schemes are compared by paired differences on the same resamples.")
    for average in p.averages:
        for v in res.verdict("truth_best", metric=p.metric, average=average):
            drawn = res.verdict("random_gold_spread", metric=p.metric, average=average, statement="tau_to_truth")
            words = dict(interval=ci(v["value"], v["low"], v["high"]), gold=strategy_label(v["subject"][0]),
                         spread=phrase("random_gold_spread", "tau_to_truth", drawn[0]) if drawn else "")
            r.paragraph(phrase("truth_best", "section_best", v, **words) if v["statement"] == "best" else
                        phrase("truth_best", "section_tied", v, golds=names(v["subject"]), **words))
    t = table[table.metric == p.metric].copy()
    t["strategy"] = t.strategy.map(strategy_label)
    r.table(t[["strategy", "average", "tau_to_truth", "tau_low", "tau_high", "p_best"]], floatfmt="{:.3f}")


def metrics_section(r: Report, res: StudyResult) -> None:
    """Does the metric change the ranking? (only with --boundary; verdicts ``metric_tau``).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    if not res.has("metric_agreement.csv"):
        return
    boards, agree = res.table("metric_leaderboard.csv"), res.table("metric_agreement.csv")
    unit, n_units = str(agree.unit.iloc[0]), int(agree.units.iloc[0])
    n_boot = int(agree.n_resamples.iloc[0])
    p = headline(res)
    r.heading("Does the metric change the ranking?")
    r.paragraph(
        f"{p.gold_title[:1].upper() + p.gold_title[1:]} ({p.strategy_label}) ranks the runs by the mean over images of "
        "each per-image "
        "metric, each in its own direction: the overlap metrics per image (their macro averages) and the boundary "
        "metrics, computed with the images' voxel spacing (NSD at a tolerance in the images' physical units, "
        "higher is better; HD95 and ASSD, lower is better). Boundary metrics are not ratios of overlap counts, so "
        "they exist only per image (macro). A pair where run and gold are both empty follows the both-empty policy "
        f"({MainJobMeta.of(res).empty_policy}); a pair where one of them is empty scores the worst value (NSD 0, "
        "distances "
        f"{_empty_distance_text(res.options.get('empty_distance', 'diagonal'))}). "
        + _conventions_text(res.options)
        + "Kendall's tau-b compares two metrics' rankings; its 95% interval is the percentile "
        f"interval over {n_boot} bootstrap test sets ({n_units} {unit}s resampled with all their images), so it "
        "says how the agreement would vary on a new test set like this one; with few units it is wide and "
        "coarse."
        + _few_units(n_units, unit, boards.run.nunique())
        + (" Lesion-wise metrics (lesion_*, pq, sq, fp_/fn_lesions and their volumes) score each mask's connected "
           "components (full connectivity), matched one to one where their intersection over union is above 0.5; "
           "lesion_dice, lesion_jaccard, lesion_hd95 and lesion_nsd average the matched lesions' scores with each "
           "unmatched lesion counting 0 (HD95: the image's diagonal), as BraTS does; lesion_f1 is the detection F1 "
           "and pq the panoptic quality." if any(is_lesion_metric(str(m)) for m in boards.metric.unique()) else "")
        + (" brats_dice and brats_hd95 score as the BraTS 2023 evaluation does: reference lesions merged where "
           "their dilations touch, each scored against every run lesion that meets its dilation, a missed or false "
           "lesion scoring Dice 0 and HD95 374, lesions below the challenge's volume threshold left out."
           if any(str(m).startswith("brats_") for m in boards.metric.unique()) else ""))
    for v in res.verdict("metric_tau"):
        direction = "lower is better" if lower_is_better(v["metric"]) else "higher is better"
        r.paragraph(phrase("metric_tau", "paragraph", v, direction=direction, metric_label=p.metric_label,
                           tau=_tau_text(v, f"under {p.metric_label}")))
    ranks = _rank_cells(boards, "metric")
    order = boards[boards.metric == p.metric].sort_values("rank").run
    r.paragraph(f"Each run's rank under each metric, with its 95% bootstrap rank interval ({unit}s resampled); "
                "values and their intervals: metric_leaderboard.csv; every pair of metrics: metric_agreement.csv.")
    r.table(ranks.loc[list(order)].reset_index(), floatfmt="{}")
    pairs = agree[["metric_a", "metric_b", "tau", "tau_low", "tau_high"]]
    r.table(pairs, floatfmt="{:.2f}")
    if res.has("metric_convergence.csv"):
        unit = res.options["unit"]
        _settling(r, res.table("metric_convergence.csv"), "metric", size_target_of(res),
                  f"How fast each metric's ranking settles on its own full-set ranking ({p.gold_title}; random orders "
                  f"of the {unit}s, as in the convergence section): n is the number of {unit}s after which L1 stays "
                  f"{_within_target(res)} in 95% of orders, with its interval over orders (self-consistency on "
                  "this test set, not a claim about a new one).")


def size_target_caption(res: StudyResult) -> str:
    """``40 (one place per run)``: the size target in a caption.

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    str
    """
    return target_text(size_target_of(res), MainJobMeta.of(res).runs)


def _within_target(res: StudyResult) -> str:
    """``within 40 (one place per run)``."""
    return f"within {size_target_caption(res)}"


def _settling(r: Report, points: pd.DataFrame, column: str, lenient: float, caption: str) -> None:
    """The convergence points of the default ranking method at the lenient tolerance, one row per ``column``."""
    points = at_tolerance(points[points.ranking == "aggregate"], lenient)
    rows = [{column: str(getattr(p, column)), "average": p.average, "AUC": ci(p.auc, p.auc_low, p.auc_high, "{:.1f}"),
             f"n for L1 <= {format_target(lenient)}": convergence_cell(p)}
            for p in points.itertuples()]
    if rows:
        r.table(pd.DataFrame(rows), caption=caption + " 'only at N': only the whole test set reaches it.")


#: The simulated coverage of the tau interval with 10 runs on 10, 30 and 100 units (docs/volumes.md), between two
#: metrics' rankings and between two labels'.
_TAU_COVERAGE = {False: ("36%", "91%", "99%"), True: ("36%", "89%", "100%")}


def _few_units(n_units: int, unit: str, n_runs: int, labels: bool = False) -> str:
    """The warning of a tau interval with fewer than three units per run (its simulated coverage), or nothing."""
    if n_units >= 3 * n_runs:
        return ""
    c10, c30, c100 = _TAU_COVERAGE[labels]
    return (f" With {n_units} {unit}s for {n_runs} runs it can also miss: noise scrambles both rankings, so the "
            "observed tau and its resamples run below the population's (simulated with 10 runs on 10 units: the "
            f"interval covered the population tau in {c10} of test sets, against {c30} on 30 units and {c100} on "
            f"100; python -m robustness.simulation.metric_tau{' --labels' if labels else ''}).")


def _tau_text(v: dict, what: str = "under Jaccard") -> str:
    """A ``metric_tau``/``label_tau`` verdict in words: tau with its interval, runs that move, and what it means."""
    meaning = (phrase("metric_tau", "agree") if v["statement"] == "agree" else
               phrase("metric_tau", "differ") if v["statement"] == "differ" else phrase("metric_tau", "tied"))
    return phrase("metric_tau", "tau", v, interval=ci(v["value"], v["low"], v["high"]), what=what, meaning=meaning)


def _rank_cells(boards: pd.DataFrame, column: str) -> pd.DataFrame:
    """Each run's rank with its bootstrap interval, one column per value of ``column`` (metric or label)."""
    t = boards.copy()
    t["cell"] = [f"{int(k) if float(k).is_integer() else k:g} ({lo:g}-{hi:g})"
                 for k, lo, hi in zip(t["rank"], t.rank_low, t.rank_high)]
    return t.pivot(index="run", columns=column, values="cell")[list(dict.fromkeys(t[column]))]


def labels_section(r: Report, res: StudyResult) -> None:
    """Does the label change the ranking? (only with several labels; verdicts ``label_tau``).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    if not res.has("label_agreement.csv"):
        return
    boards, agree = res.table("label_leaderboard.csv"), res.table("label_agreement.csv")
    p, lenient = headline(res), size_target_of(res)
    boards = boards[boards.metric == p.metric]
    unit, n_units, n_boot = str(agree.unit.iloc[0]), int(agree.units.iloc[0]), int(agree.n_resamples.iloc[0])
    labels = [str(x) for x in dict.fromkeys(boards.label)]
    r.heading("Does the label change the ranking?")
    r.paragraph(
        f"Each of the labels {', '.join(labels)} is scored as its own mask, so every label has its own leaderboard: "
        f"{p.gold_title} ({p.strategy_label}) ranks the runs by their mean {p.metric_label} over that label's "
        "masks alone (macro; micro and the other golds are in label_scores.csv). Kendall's tau-b compares two "
        f"labels' rankings; its 95% interval is the percentile interval over {n_boot} bootstrap test sets "
        f"({n_units} {unit}s resampled with all their labels), so it says how the agreement would vary on a new "
        "test set like this one." + _few_units(n_units, unit, boards.run.nunique(), labels=True))
    for v in res.verdict("label_tau"):
        a, b = v["subject"]
        r.paragraph(phrase("label_tau", "paragraph", v, label=a, other=b, metric_label=p.metric_label,
                           tau=_tau_text(v, f"on label {a}")))
    order = boards[boards.label.astype(str) == labels[0]].sort_values("rank").run
    ranks = _rank_cells(boards.assign(label=[f"label {x}" for x in boards.label]), "label")
    r.paragraph(f"Each run's rank on each label ({p.gold_title}, macro {p.metric_label}), with its 95% bootstrap "
                "rank interval "
                f"({unit}s resampled); other per-image metrics: label_leaderboard.csv and label_agreement.csv.")
    r.table(ranks.loc[list(order)].reset_index(), floatfmt="{}")
    points = res.table("label_convergence.csv")
    points = points[points.strategy == p.strategy]
    _settling(r, points, "label", lenient, (
        f"How fast each label's ranking settles on its own full-set ranking ({p.gold_title}, {p.metric_label}; "
        "random orders "
        f"of its {int(points.n_units.iloc[0])} masks): as in the convergence section, n is the number of masks after "
        f"which L1 stays {_within_target(res)} in 95% of orders, with its interval over orders (self-consistency "
        "on this test set, not a claim about a new one)."))
