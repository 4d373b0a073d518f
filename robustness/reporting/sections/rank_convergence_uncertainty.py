"""The main job's report, its uncertainty sections: which runs differ, the distance to unlimited data, convergence.

Each section reads the results folder (tables, and the verdicts for its findings); the main job's report module
(:mod:`robustness.reporting.sections.rank_convergence`) registers them in the report's order.
"""

from __future__ import annotations

import pandas as pd

from robustness.errors import parameter
from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import (
    CALIBRATION_SENTENCE,
    at_tolerance,
    convergence_cell,
    default_rows,
    size_target_of,
    unlimited_sentence,
)
from robustness.reporting.sections.rank_convergence_agreement import (
    bootstrap_units,
    headline,
    paper_data,
    paper_words,
    size_target_caption,
)
from robustness.reporting.sections.registry import (
    ci,
    names,
    strategy_label,
)
from robustness.results.meta import MainJobMeta
from robustness.results.study_result import StudyResult
from robustness.scheme import Scheme
from robustness.statistics.ranks import format_target

__all__ = ["significance_section", "unlimited_section", "convergence_section"]

#: How the distance's interval held on simulated populations of known truth (docs/calibration.md, "The distance's
#: interval on the quick study's populations": ``python -m experiments.calibration --quick`` at seeds 0 and 7).
INTERVAL_CALIBRATION = ("On simulated populations of known truth (python -m experiments.calibration; "
                        "docs/calibration.md) it covered the truth in 96% to 97% of test sets at the test set's size "
                        "and 92% to 100% at eight times it where the teams share one spread (65% to 100% at that "
                        "size over nine populations drawn like the design study's), but in as few as 30% "
                        "and 0% where one team's runs lie closer together than the test set resolves (the estimate "
                        "then runs low): there the range allowing for the prior (below) is the statement to read.")


def _resampled(res: StudyResult) -> str:
    """How a resampled test set is drawn, in the data's words.

    "encounters drawn with replacement, each with all its images"; "images drawn with replacement" where each
    encounter holds one image or the bootstrap resamples images.
    """
    boot = bootstrap_units(res)[0]
    m = MainJobMeta.of(res)
    item = "volume" if m.volumes else "image"
    if boot != "encounter" or m.encounters == m.images:
        return f"{item}s drawn with replacement"
    return f"{boot}s drawn with replacement, each with all its {item}s"


def _unit_reason(res: StudyResult) -> str:
    """Why the unit is the encounter, in the data's words."""
    if paper_data(res):
        return "an encounter's photos show one lesion"
    return "images of one encounter show the same case"


def significance_section(r: Report, res: StudyResult) -> None:
    """Which runs differ (verdicts ``pairs_differ``, ``neighbours_differ`` and their Wilcoxon checks).

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    p = headline(res)
    boot_unit, _ = bootstrap_units(res)
    r.heading("Which runs differ? (one significance analysis)")
    for average in p.averages:
        key = dict(strategy=p.strategy, metric=p.metric, average=average)
        found = res.verdict("pairs_differ", **key)
        if not found:
            continue
        pairs = found[0]
        n = res.verdict("neighbours_differ", **key)[0]
        pw = res.verdict("pairs_differ_wilcoxon", **key)[0]
        nw = res.verdict("neighbours_differ_wilcoxon", **key)[0]
        alone = res.verdict("neighbours_only_differ", **key)
        neighbours = phrase("neighbours_differ", "none", n) if n["count"] == 0 else \
            phrase("neighbours_differ", "some", n, rest=n["total"] - n["count"])
        r.paragraph(phrase("pairs_differ", "paragraph", pairs, gold=p.strategy_label, metric_label=p.metric_label,
                           neighbours=neighbours)
                    + (phrase("neighbours_only_differ", "alone", alone[0]) if alone else "")
                    + phrase("pairs_differ_wilcoxon", "check", pw, unit=boot_unit, neighbours=nw["count"]))
    r.paragraph(f"Method: for every pair of runs, a paired two-sided t-test of the score difference with its "
                f"delta-method standard error over {boot_unit}s (each {boot_unit}'s influence on both runs' ratios "
                "of sums: micro scores pool TP/FP/FN, macro scores average per-image scores); analytic, so the count "
                "has no Monte Carlo error and Holm's smallest thresholds are not read off the tails of a finite set "
                "of resamples (the bootstrap-SE test is kept in pairwise.parquet, p_bootstrap); Holm's correction "
                "over all pairs of the scheme, at 5%; on simulated populations of known truth, 6 of 357,978 "
                "such claims had the wrong direction (python -m experiments.calibration, its quick form, seeds 0 "
                "and 7; 8 of 692,793 on the full study's eight design populations; docs/calibration.md). Unit: the "
                + (f"{boot_unit}, because {_unit_reason(res)} and are not independent. "
                   if boot_unit == "encounter" else f"{boot_unit}. ")
                + "Every scheme and pair, with the difference's 95% interval, is in pairwise.parquet.")
    r.figure("figures/fig_09_significance_map.png",
             f"Significance map ({p.strategy_label}, {' and '.join(p.averages)} {p.metric_label}): a dark cell means "
             "the run of "
             f"the row scores significantly {'lower (better)' if p.lower_better else 'higher'} than the run of the "
             "column (paired t-test with delta-method "
             "standard errors, Holm over all pairs, 5%).")


def unlimited_section(r: Report, res: StudyResult) -> None:
    """How far this test set's ranking is from the ranking on unlimited data.

    The verdicts ``unlimited_distance``, ``best_is_best`` and ``units_needed`` of the headline gold and metric; the
    table of every gold.

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    boot_unit, n_units = bootstrap_units(res)
    n_runs = MainJobMeta.of(res).runs
    per_size, needed = res.table("ranking_uncertainty.csv"), res.table("test_set_size.csv")
    p = headline(res)
    first = per_size.iloc[0]
    r.heading("How far is this test set's ranking from the ranking on unlimited data?")
    r.paragraph(
        f"The convergence curve (next section; {paper_words(res)[0]}'s Figures 2 and 3) compares a random subset "
        "with this test set's own ranking, "
        "so it reaches L1 = 0 at the full test set by construction: it describes the test set, not how far its "
        "ranking is from the ranking the runs would get on unlimited data. That distance is estimated here from a "
        "posterior of the runs' population scores (empirical Bayes: the test set's scores and their delta-method "
        f"covariance over {boot_unit}s, a normal prior with {first.groups}); test sets of m {boot_unit}s are "
        "simulated around each population drawn. Taking the test set's own ranking for the truth (the plug-in "
        "bootstrap, column plugin_l1) underestimates the distance, because near-ties look wider than they are. "
        f"The {first.confidence:.0%} interval adds the posterior's spread and the spread of the whole estimate "
        f"over {first.n_resamples} resampled test sets. " + INTERVAL_CALIBRATION
        + (f" Runs within {first.margin:g} of each other in the population count as tied (either order is right); "
           f"under {p.title} ({p.label}) the posterior expects {_within(per_size, p):.1f} pairs of runs "
           "within that margin (pairs_within_margin)." if first.margin > 0 else
           f" No equivalence margin ({parameter('ResamplingOptions', 'margin')} 0): runs count as tied only where "
           "their population scores are equal."))
    for average in p.averages:
        if res.verdict("unlimited_distance", strategy=p.strategy, metric=p.metric, average=average):
            r.paragraph(f"**{p.strategy_label}, {average} {p.metric_label}**: "
                        + unlimited_sentence(res, p.with_average(average), n_runs, boot_unit))
    r.paragraph("How far to trust these claims." + CALIBRATION_SENTENCE)
    at_n = per_size[per_size.observed_size & (per_size.metric == p.metric)].copy()
    need = needed[needed.metric == p.metric].set_index(["strategy", "average"])
    rows = []
    for row in at_n.itertuples():
        nd = need.loc[(row.strategy, row.average)]
        needed_text = (f"> {nd.largest_size}" if nd.beyond else
                       (f"<= {nd.units_needed:.0f}" if nd.already else f">= {nd.units_needed:.0f}"))
        rows.append({"strategy": strategy_label(row.strategy), "average": row.average,
                     "expected L1 at N": f"{row.expected_l1:.1f} ({row.low:.1f} to {row.high:.1f})",
                     "per run": f"{row.expected_l1 / n_runs:.2f}",
                     "plug-in": f"{row.plugin_l1:.1f}",
                     f"{boot_unit}s for L1 <= {format_target(size_target_of(res))}": needed_text})
    r.table(pd.DataFrame(rows), caption=(
        f"{p.metric_label}, at the test set's size N = {n_units} {boot_unit}s: expected L1 to the ranking on "
        "unlimited data "
        f"with its {first.confidence:.0%} interval, the same per run (places), the plug-in bootstrap's estimate "
        f"(biased low, for comparison), and the number of {boot_unit}s at which the interval's upper end falls "
        f"to {size_target_caption(res)} (a conservative claim; log-linear interpolation between the sizes "
        "tried). All sizes, the probability that each run is the population's best (the likelihood's) and the plug-in "
        "stability indices: ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv."))
    r.figure("figures/fig_10_test_set_size.png",
             f"Expected L1 between the ranking on m {boot_unit}s and the ranking on unlimited data (empirical-Bayes "
             f"estimate), against m; the band is {p.gold_title}'s {first.confidence:.0%} interval; the dotted "
             f"line is the size target, L1 = {size_target_caption(res)}; the vertical line is this test "
             "set's size.")


def _within(per_size: pd.DataFrame, p: Scheme) -> float:
    """The posterior's expected number of pairs within the margin under the headline scheme."""
    row = per_size[(per_size.strategy == p.strategy) & (per_size.metric == p.metric) & (per_size.average == p.average)]
    return float(row.pairs_within_margin.iloc[0]) if len(row) else float("nan")


def convergence_section(r: Report, res: StudyResult) -> None:
    """The paper's curves (verdicts ``fastest_convergence``) and the convergence points.

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The main job's results folder.
    """
    o, p = res.options, headline(res)
    unit, tolerance = o["unit"], o["tolerance"]
    points = default_rows(res.table("convergence.csv"))
    _, aside = paper_words(res)
    r.heading("How fast does the ranking settle on this test set's ranking?"
              + (f" ({aside} Figures 2 and 3)" if aside else ""))
    lenient = size_target_of(res)
    k = int(points.n_orders.iloc[0])
    r.paragraph(
        f"For {k} random orders of the {unit}s, the runs are ranked on the first n {unit}s and compared "
        "with their ranking on the whole test set (L1, the sum over runs of the places each is off). The curve "
        "measures self-consistency: how soon a subset agrees with this test set's own ranking, not how close either "
        "is to the ranking on unlimited data (the previous section) or to the truth. The area under the curve (AUC: "
        "the mean L1 over all prefix lengths) summarises a curve; its 95% interval is the Monte Carlo error over "
        f"the {k} orders.")
    for average in ("micro", "macro"):
        found = res.verdict("fastest_convergence", ranking="aggregate", metric=p.metric, average=average)
        if not found:
            continue
        v = found[0]
        drawn = res.verdict("random_gold_spread", ranking="aggregate", metric=p.metric, average=average,
                            statement="auc")
        words = dict(auc=ci(v["value"], v["low"], v["high"], "{:.1f}"), gold=strategy_label(v["subject"][0]),
                     over="over resampled test sets" if v["count"] else "over this test set's orders",
                     spread=phrase("random_gold_spread", "auc", drawn[0]) if drawn else "")
        if v["statement"] == "fastest":
            r.paragraph(phrase("fastest_convergence", "fastest", v, **words))
        else:
            r.paragraph(phrase("fastest_convergence", "tied", v, golds=names(v["subject"]), **words,
                               lowest="mean AUC over resampled test sets" if v["count"] else "AUC"))
        if v["count"] and average == "macro":
            r.paragraph(f"The golds are compared over {v['count']} test sets resampled from this one ("
                        f"{_resampled(res)}, "
                        f"{MainJobMeta.of(res).gold_orders} orders each; strategy_comparison.csv, columns "
                        "auc_diff_test_sets): a claim "
                        "about the golds that should hold on a new test set, not only on this one's orders "
                        "(auc_diff, the paired difference over this test set's orders, is kept beside it).")
    rows = []
    for key, g in points[points.metric == p.metric].groupby(["strategy", "average"], sort=False):
        lp = at_tolerance(g, lenient).iloc[0]
        sp = at_tolerance(g, tolerance).iloc[0]
        rows.append({"strategy": strategy_label(key[0]), "average": key[1],
                     "AUC": ci(lp.auc, lp.auc_low, lp.auc_high, "{:.1f}"),
                     f"n for L1 <= {format_target(lenient)}": convergence_cell(lp),
                     f"n for L1 <= {tolerance:g}": convergence_cell(sp)})
    r.table(pd.DataFrame(rows), caption=(
        f"{p.metric_label}. n: the number of {unit}s after which L1 stays within the tolerance in 95% of orders, with "
        "its distribution-free 95% interval over orders; 'only at N': the tolerance is reached only by the whole "
        f"test set, where L1 = 0 by construction. L1 <= {size_target_caption(res)} is the size target."
        + ("" if p.boundary else " Micro Jaccard and Dice curves are identical (Dice = 2J/(1+J)).")))
    r.figure("figures/fig_02_micro_convergence.png",
             "Micro Jaccard (micro Dice ranks the runs identically, so one panel): mean L1 over orders per gold "
             "strategy (thick), one single order as the paper showed (thin), the band of 90% of orders for "
             f"{p.gold_title} only.")
    r.figure("figures/fig_03_macro_convergence.png",
             "Macro Jaccard and Dice, including mean and max over annotators; as Figure 2.")
    r.figure("figures/fig_11_convergence_auc.png",
             f"Area under the mean L1 curve per gold strategy ({p.metric_label}) with its 95% Monte Carlo interval "
             "over orders.")
