"""The design study's report: the recommendation in plain words, each number with its uncertainty."""

from __future__ import annotations

import math

from experiments._report import strategy_label
from robustness.reporting.report import Report


def _size(value, largest) -> str:
    """A size from :func:`robustness.simulation.design.recommend`: nan beyond the grid, negative at its first size."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"more than {largest}"
    if value < 0:
        return f"at most {-value:.0f}"
    return f"about {value:.0f}"


def _scheme(name: str) -> str:
    strategy, average = name.split(" (")
    return f"{strategy_label(strategy)} ({average}"


def recommendation(rec, g, base_setting, args) -> Report:
    """The Recommendation section alone (recommendation.md)."""
    r = Report("Design study: recommendation")
    n_runs, size = rec["n_runs"], rec["size"]
    largest = max(g["sizes"])
    verdict = rec["scheme"]
    r.paragraph(
        f"For a challenge like this one ({base_setting.annotators} annotators per image, agreement "
        f"{base_setting.agreement:g}, {n_runs} runs, {size} test encounters), simulated {g['replicates']} times "
        "with a known truth (Jaccard; the runs' population ranking comes from a large independent pool of images):")
    if verdict["best"]:
        r.bullets([f"**Gold strategy and averaging**: {_scheme(verdict['best'])} gives the ranking closest to the "
                   "runs' population ranking; its L1 to it is smaller than every other scheme's in paired "
                   f"comparisons over replicates (Bonferroni-adjusted {verdict['level']:.1%} intervals)."])
    else:
        r.bullets([f"**Gold strategy and averaging**: no single best; tied for the ranking closest to the runs' "
                   f"population ranking: {', '.join(_scheme(t) for t in verdict['tied'])} (paired differences over "
                   "replicates include zero); the other schemes are farther."])
    sizes = rec["sizes"].copy()
    lead = verdict["tied"][0]
    strat, average = lead.split(" (")
    average = average.rstrip(")")
    row = sizes[(sizes.strategy == strat) & (sizes.average == average)].iloc[0]
    official = sizes[(sizes.strategy == "majority") & (sizes.average == "micro")]
    target = rec["target_l1"]
    per_run = f" ({target / n_runs:g} place{'s' if target != n_runs else ''} per run)"
    items = [f"**Test-set size** ({_scheme(lead)}): the expected L1 to the population ranking falls to {target:g}{per_run}"
             f" with {_size(row.encounters_for_l1, largest)} encounters (95% interval over replicates: "
             f"{_size(row.encounters_for_l1_optimistic, largest)} to {_size(row.encounters_for_l1_conservative, largest)}"
             f"); the true best run is ranked first in {args.target_top1:.0%} of replicates with "
             f"{_size(row.encounters_for_top1, largest)} encounters."]
    if len(official) and (strat, average) != ("majority", "micro"):
        o = official.iloc[0]
        items.append(f"Under the official scheme (majority, micro) the same targets need "
                     f"{_size(o.encounters_for_l1, largest)} and {_size(o.encounters_for_top1, largest)} encounters.")
    effort = rec["annotators"]
    if len(effort) and effort.annotators.nunique() > 1:
        e = effort[(effort.strategy == strat) & (effort.average == average)].sort_values("annotators")
        parts = [f"{int(x.annotators)} annotators on {x.encounters:.0f} encounters: L1 {x.l1_population:.1f} (95% CI "
                 f"{x.l1_population_low:.1f} to {x.l1_population_high:.1f})" for x in e.itertuples()]
        overlap = len(e) > 1 and not (e.l1_population_high.min() < e.l1_population_low.max())
        items.append("**More annotators or more images**, at the same annotation effort (encounters x annotators): "
                     + "; ".join(parts) + (": tied (the intervals overlap)." if overlap else "."))
    cal = rec["calibration"]
    perfect = cal[(cal.agreement == 1.0) & (cal.encounters == size)]
    here = cal[(abs(cal.agreement - base_setting.agreement) < 1e-9) & (cal.encounters == size)]
    if len(perfect):
        c = perfect.iloc[0]
        items.append(f"**Is the package's estimate calibrated?** The bootstrap estimates how far the test set's "
                     "ranking is from the ranking the same gold would give on unlimited data. Where that is the "
                     f"truth (annotators equal to the truth), at {size} encounters under majority micro Jaccard it "
                     f"estimates {c.expected_l1_bootstrap:.1f} against an actual {c.l1_population:.1f} (median "
                     f"ratio per replicate {c.ratio_median:.2f}); part of the actual is the pool's own distance to "
                     f"unlimited data, about {c.pool_l1:.1f} (L1 between its two halves, halved; a larger --pool "
                     "shrinks it).")
    if len(here) and base_setting.agreement != 1.0:
        c = here.iloc[0]
        items.append(f"With annotators of agreement {base_setting.agreement:g} the actual distance to the runs' "
                     f"true population ranking is {c.l1_population:.1f} against the bootstrap's "
                     f"{c.expected_l1_bootstrap:.1f}: the bootstrap sees the test-set sampling, not the gold's own "
                     "bias (the L1 to the truth on the same images, design_summary.csv, measures that bias).")
    if len(here):
        c = here.iloc[0]
        items.append(f"**How optimistic is the paper's curve?** It 'converged' (L1 to the test set's own ranking within "
                     f"{n_runs} in 95% of orders) before the whole test set in {c.paper_converged_share:.0%} of "
                     f"replicates, at {c.paper_point_fraction:.0%} of the images on average, while the test set's "
                     f"ranking was farther than {n_runs} from the population's in "
                     f"{c.paper_converged_but_far_share:.0%} of replicates.")
    cov = rec["coverage"]
    if len(cov):
        shown = cov[cov.average == "micro"] if (cov.average == "micro").any() else cov
        r_items = ", ".join(f"{x.unit} unit, {x.method}: {x.coverage:.1%} (95% CI {x.coverage_low:.1%} to "
                            f"{x.coverage_high:.1%})" for x in shown.itertuples())
        items.append(f"**Bootstrap interval coverage** of the runs' population scores (nominal 95%, micro Jaccard "
                     f"against the truth, {int(shown.encounters.iloc[0])} encounters, within-encounter correlation "
                     f"{base_setting.correlation:g}): {r_items}.")
    r.bullets(items)
    return r


def report(rec, summary, g, base, base_setting, fit_table, options, args) -> Report:
    """The whole report: what was simulated, the fit, the recommendation, the tables, the figures."""
    r = Report("Design study: which gold strategy, and how many test encounters?")
    r.paragraph(
        f"Grid: test-set sizes {', '.join(map(str, g['sizes']))} encounters (nested within each replicate); "
        f"annotators per image {', '.join(map(str, g['annotators']))}; agreement "
        f"{', '.join(f'{a:g}' for a in g['agreement'])}; run-quality spread {', '.join(f'{s:g}' for s in g['spread'])}; "
        f"runs {', '.join(map(str, g['runs']))}; within-encounter correlation "
        f"{', '.join(f'{c:g}' for c in g['correlation'])}. {g['replicates']} replicates per setting over "
        f"{g['populations']} run populations, each scored on a pool of {options.pool_encounters} encounters; "
        f"{options.n_orders} orders and {options.n_resamples} bootstrap resamples per test set; simulated images of "
        f"about {options.megapixels * 1e6:.0f} pixels; seed {args.seed}. Intervals are 95% t intervals over "
        "replicates.")
    if fit_table is not None:
        r.heading("The challenge and its synthetic twin")
        r.paragraph("The generator was fitted to the challenge given with --like (agreement, run skill range and bias, "
                    "within-encounter correlation, lesion sizes; see robustness.simulation.calibrate); its statistics beside "
                    "the challenge's:")
        r.table(fit_table, floatfmt="{:.3f}")
    rec_report = recommendation(rec, g, base_setting, args)
    r.heading("Recommendation")
    r.blocks += rec_report.blocks
    top = summary[(summary.annotators == base_setting.annotators)
                  & (abs(summary.agreement - base_setting.agreement) < 1e-9)
                  & (summary.encounters == rec["size"])].sort_values("l1_population")
    cols = ["strategy", "average", "tau_same_images", "tau_population", "l1_population", "l1_population_low",
            "l1_population_high", "top1_correct", "expected_l1_bootstrap"]
    r.table(top[cols].assign(strategy=top.strategy.map(strategy_label)), floatfmt="{:.3f}", caption=(
        f"At {rec['size']} encounters: Kendall's tau to the truth on the same images and to the population "
        "ranking, L1 to the population ranking (95% interval over replicates), share of replicates with the "
        "true best run first, and the bootstrap's estimate of the L1. design_summary.csv has every setting."))
    r.figure("figures/fig_13_design_tau.png", "Agreement of each scheme's ranking with the runs' population ranking "
             "against the test-set size (means over replicates; band: 95% interval for majority).")
    r.figure("figures/fig_14_design_size.png", "Test encounters needed for an expected L1 to the population "
             "ranking of one place per run, against the annotators' agreement.")
    r.figure("figures/fig_15_design_calibration.png", "The package's bootstrap estimate of the distance to unlimited "
             "data against the actual distance (majority, micro Jaccard).")
    return r


def recommendation_markdown(report: Report) -> str:
    """The Recommendation section of the report as Markdown."""
    start = next(i for i, b in enumerate(report.blocks) if b[0] == "heading" and b[2] == "Recommendation")
    end = next((i for i, b in enumerate(report.blocks) if i > start and b[0] in ("heading", "table", "figure")),
               len(report.blocks))
    return Report(report.title, report.blocks[:1] + report.blocks[start:end]).to_markdown()
