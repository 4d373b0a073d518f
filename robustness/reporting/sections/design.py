"""The design study's report: the recommendation in plain words, the fit, the table at the challenge's size.

Each number of the recommendation is a verdict with its uncertainty; ``recommendation.md`` is the Recommendation
section alone.
"""

from __future__ import annotations

import math

import pandas as pd

from robustness.reporting.document import Report
from robustness.reporting.sections.registry import ci, register_section, register_study, strategy_label
from robustness.reporting.study_result import StudyResult

STUDY = "design_study"


def recommendation_markdown(report: Report) -> str:
    """The Recommendation section of the report as Markdown (``recommendation.md``).

    Parameters
    ----------
    report : Report
        The design study's report.

    Returns
    -------
    str
    """
    start = next(i for i, b in enumerate(report.blocks) if b[0] == "heading" and b[2] == "Recommendation")
    end = next((i for i, b in enumerate(report.blocks) if i > start and b[0] in ("heading", "table", "figure")),
               len(report.blocks))
    return Report(report.title, report.blocks[:1] + report.blocks[start:end]).to_markdown()


register_study(STUDY, "Design study: which gold strategy, and how many test encounters?",
               extra_outputs=lambda report: {"recommendation.md": recommendation_markdown(report)})


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


def _base(res: StudyResult) -> dict:
    return res.meta["base_setting"]


def _grid(r: Report, res: StudyResult) -> None:
    """What was simulated."""
    g, sim = res.meta["grid"], res.meta["simulation"]
    r.paragraph(
        f"Grid: test-set sizes {', '.join(map(str, g['sizes']))} encounters (nested within each replicate); "
        f"annotators per image {', '.join(map(str, g['annotators']))}; agreement "
        f"{', '.join(f'{a:g}' for a in g['agreement'])}; run-quality spread "
        f"{', '.join(f'{s:g}' for s in g['spread'])}; "
        f"runs {', '.join(map(str, g['runs']))}; within-encounter correlation "
        f"{', '.join(f'{c:g}' for c in g['correlation'])}. {g['replicates']} replicates per setting over "
        f"{g['populations']} run populations, each scored on a pool of {sim['pool_encounters']} encounters; "
        f"{sim['n_orders']} orders and {sim['n_resamples']} bootstrap resamples per test set; {_simulated(res)}; "
        f"seed {res.options['seed']}. Intervals are 95% t intervals over replicates.")


def _simulated(res: StudyResult) -> str:
    """What one simulated image is: a 2D image of some pixels, or a volume of some slices (3D twins)."""
    pixels = f"{res.meta['simulation']['megapixels'] * 1e6:.0f} pixels"
    base = res.meta.get("input", {}).get("base", {})
    if base.get("depth"):  # the in-plane voxels of the simulation (robustness.simulation.design.setting_config)
        grow = math.sqrt(base["megapixels"] / res.meta["simulation"]["megapixels"]) if base.get("megapixels") else 1
        z, y, x = base["spacing"]
        spacing = f"{x * grow:.3g} x {y * grow:.3g} x {z:.3g}"
        return f"simulated volumes of {base['depth']} slices of about {pixels} each (voxels {spacing} mm, x y z)"
    return f"simulated images of about {pixels}"


def _fit(r: Report, res: StudyResult) -> None:
    """The real challenge beside its fitted synthetic twin (with ``--like``)."""
    if not res.has("fit.csv"):
        return
    r.heading("The challenge and its synthetic twin")
    r.paragraph("The generator was fitted to the challenge given with --like (agreement, run skill range and bias, "
                "within-encounter correlation, lesion sizes; see robustness.simulation.calibrate); its statistics "
                "beside the challenge's:")
    r.table(res.table("fit.csv"), floatfmt="{:.3f}")


def _recommendation(r: Report, res: StudyResult) -> None:
    """The recommendation: which scheme, how many encounters, annotators or images, how far to trust the estimate."""
    base, size = _base(res), res.meta["size"]
    g = res.meta["grid"]
    n_runs, largest = base["runs"], max(g["sizes"])
    r.heading("Recommendation")
    verdict = res.verdict("closest_scheme")[0]
    r.paragraph(
        f"For a challenge like this one ({base['annotators']} annotators per image, agreement "
        f"{base['agreement']:g}, {n_runs} runs, {size} test encounters), simulated {g['replicates']} times "
        "with a known truth (Jaccard; the runs' population ranking comes from a large independent pool of images):")
    if verdict["statement"] == "best":
        r.bullets([f"**Gold strategy and averaging**: {_scheme(verdict['subject'][0])} gives the ranking closest to "
                   "the runs' population ranking; its L1 to it is smaller than every other scheme's in paired "
                   f"comparisons over replicates (Bonferroni-adjusted {verdict['level']:.1%} intervals)."])
    else:
        r.bullets([f"**Gold strategy and averaging**: no single best; tied for the ranking closest to the runs' "
                   f"population ranking: {', '.join(_scheme(t) for t in verdict['subject'])} (paired differences over "
                   "replicates include zero); the other schemes are farther."])
    lead = verdict["subject"][0]
    strat, average = lead.split(" (")
    average = average.rstrip(")")
    row = res.verdict("encounters_needed", strategy=strat, average=average)[0]
    top1 = res.verdict("encounters_needed_top1", strategy=strat, average=average)[0]
    target = float(row["subject"][0])
    target_top1 = float(top1["subject"][0])
    per_run = f" ({target / n_runs:g} place{'s' if target != n_runs else ''} per run)"
    items = [f"**Test-set size** ({_scheme(lead)}): the expected L1 to the population ranking falls to "
             f"{target:g}{per_run}"
             f" with {_size(row['value'], largest)} encounters (95% interval over replicates: "
             f"{_size(row['low'], largest)} to {_size(row['high'], largest)}"
             f"); the true best run is ranked first in {target_top1:.0%} of replicates with "
             f"{_size(top1['value'], largest)} encounters."]
    official = res.verdict("encounters_needed", strategy="majority", average="micro")
    if official and (strat, average) != ("majority", "micro"):
        o_top1 = res.verdict("encounters_needed_top1", strategy="majority", average="micro")[0]
        items.append(f"Under the official scheme (majority, micro) the same targets need "
                     f"{_size(official[0]['value'], largest)} and {_size(o_top1['value'], largest)} encounters.")
    effort = res.verdict("annotation_effort")
    if len({e["count"] for e in effort}) > 1:
        e = sorted(res.verdict("annotation_effort", strategy=strat, average=average), key=lambda x: x["count"])
        parts = [f"{x['count']} annotators on {x['subject'][0]} encounters: L1 {x['value']:.1f} (95% CI "
                 f"{x['low']:.1f} to {x['high']:.1f})" for x in e]
        overlap = bool(e) and e[0]["statement"] == "tied"
        items.append("**More annotators or more images**, at the same annotation effort (encounters x annotators): "
                     + "; ".join(parts) + (": tied (the intervals overlap)." if overlap else "."))

    def calibration(agreement):
        found = {}
        for claim in ("estimate", "actual_distance", "estimate_ratio", "pool_distance",
                      "paper_converged_share", "paper_point_fraction", "paper_converged_but_far_share"):
            rows = [x for x in res.verdict(claim, strategy="majority", average="micro") if x["count"] == size
                    and abs(float(x["subject"][0]) - agreement) < 1e-6]
            if rows:
                found[claim] = rows[0]["value"]
        return found

    perfect, here = calibration(1.0), calibration(base["agreement"])
    if perfect:
        c = perfect
        items.append(f"**Is the package's estimate calibrated?** The package estimates how far the test set's "
                     "ranking is from the ranking the same gold would give on unlimited data. Where that is the "
                     f"truth (annotators equal to the truth), at {size} encounters under majority micro Jaccard it "
                     f"estimates {c['estimate']:.1f} against an actual {c['actual_distance']:.1f} (median "
                     f"ratio per replicate {c['estimate_ratio']:.2f}); part of the actual is the pool's own distance "
                     f"to unlimited data, about {c['pool_distance']:.1f} (L1 between its two halves, halved; a larger "
                     "--pool shrinks it).")
    if here and base["agreement"] != 1.0:
        items.append(f"With annotators of agreement {base['agreement']:g} the actual distance to the runs' "
                     f"true population ranking is {here['actual_distance']:.1f} against the estimate's "
                     f"{here['estimate']:.1f}: the estimate sees the test-set sampling, not the gold's own "
                     "bias (the L1 to the truth on the same images, design_summary.csv, measures that bias).")
    if here:
        items.append(f"**How optimistic is the paper's curve?** It 'converged' (L1 to the test set's own ranking "
                     f"within {n_runs} in 95% of orders) before the whole test set in "
                     f"{here['paper_converged_share']:.0%} of replicates, at {here['paper_point_fraction']:.0%} of the "
                     f"images on average, while the test set's ranking was farther than {n_runs} from the population's "
                     f"in {here['paper_converged_but_far_share']:.0%} of replicates.")
    cov = res.verdict("interval_coverage")
    if cov:
        r_items = ", ".join(f"{x['subject'][0]} unit, {x['subject'][1]}: {x['value']:.1%} (95% CI {x['low']:.1%} to "
                            f"{x['high']:.1%})" for x in cov)
        items.append(f"**Bootstrap interval coverage** of the runs' population scores (nominal 95%, micro Jaccard "
                     f"against the truth, {cov[0]['count']} encounters, within-encounter correlation "
                     f"{base['correlation']:g}): {r_items}.")
    r.bullets(items)


def _at_size(r: Report, res: StudyResult) -> None:
    """Every scheme at the challenge's size, and the figures."""
    base, size = _base(res), res.meta["size"]
    summary = res.table("design_summary.csv")
    top = summary[(summary.annotators == base["annotators"]) & (abs(summary.agreement - base["agreement"]) < 1e-9)
                  & (summary.encounters == size)].sort_values("l1_population")
    cols = ["strategy", "average", "tau_same_images", "tau_population", "l1_population", "l1_population_low",
            "l1_population_high", "top1_correct", "expected_l1_estimate"]
    r.table(top[cols].assign(strategy=top.strategy.map(strategy_label)), floatfmt="{:.3f}", caption=(
        f"At {size} encounters: Kendall's tau to the truth on the same images and to the population "
        "ranking, L1 to the population ranking (95% interval over replicates), share of replicates with the "
        "true best run first, and the package's estimate of that L1. design_summary.csv has every setting."))
    r.figure("figures/fig_13_design_tau.png", "Agreement of each scheme's ranking with the runs' population ranking "
             "against the test-set size (means over replicates; band: 95% interval for majority).")
    r.figure("figures/fig_14_design_size.png", "Test encounters needed for an expected L1 to the population "
             "ranking of one place per run, against the annotators' agreement.")
    r.figure("figures/fig_15_design_calibration.png", "The package's estimate of the distance to unlimited "
             "data against the actual distance (majority, micro Jaccard).")


def _metrics(r: Report, res: StudyResult) -> None:
    """Does the metric change the ranking? Simulated (with --boundary): tau between macro Jaccard and each metric."""
    summary = res.table("design_summary.csv")
    columns = [c for c in summary.columns if c.startswith("tau_jaccard_") and not c.endswith(("_low", "_high"))]
    if not columns:
        return
    base = _base(res)
    rows = summary[(summary.annotators == base["annotators"]) & (abs(summary.agreement - base["agreement"]) < 1e-9)
                   & (summary.strategy == "majority") & (summary.average == "macro")].sort_values("encounters")
    r.heading("Does the metric change the ranking? (simulated)")
    unit = ("mm (the twin keeps the input's physical size with fewer, larger voxels)"
            if res.meta.get("input", {}).get("base", {}).get("depth") else
            "simulated pixels (the simulated images are smaller than a real challenge's, so a tolerance in its "
            "pixels does not carry over)")
    r.paragraph(
        "On every simulated test set the runs are ranked by macro Jaccard and by each boundary metric (each in its "
        "direction) against the same gold, and Kendall's tau compares the two rankings: 1 where the metric does not "
        f"move any run. Means over {res.meta['grid']['replicates']} replicates with 95% t intervals, majority gold, "
        f"{base['annotators']} annotators of agreement {base['agreement']:g}; distances in {unit}; every gold and "
        "setting: design_summary.csv, columns "
        "tau_jaccard_<metric>. The population rankings under boundary metrics are not simulated: tau says how far "
        "the metrics disagree on test sets like this one, not which metric ranks closer to the truth.")
    table = {"encounters": rows.encounters.astype(int)}
    for c in columns:
        table[c.removeprefix("tau_jaccard_")] = [ci(m, lo, hi, "{:.2f}") for m, lo, hi in
                                                 zip(rows[c], rows[f"{c}_low"], rows[f"{c}_high"])]
    r.table(pd.DataFrame(table), floatfmt="{}", caption="Kendall's tau with macro Jaccard's ranking (majority).")


for _name in ("grid", "fit", "recommendation", "at_size", "metrics"):
    register_section(STUDY, globals()[f"_{_name}"], name=_name)
