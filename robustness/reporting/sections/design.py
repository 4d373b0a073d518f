"""The design study's report: the recommendation in plain words, the fit, the table at the challenge's size.

Each number of the recommendation is a verdict with its uncertainty; ``recommendation.md`` is the Recommendation
section alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from robustness.errors import parameter
from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.plotting import strategy_style
from robustness.reporting.sections.common import random_baseline, target_note
from robustness.reporting.sections.design_twin import failed_fit_bullets, fit_section, resolution_bullet
from robustness.reporting.sections.registry import ci, register_section, register_study, strategy_label
from robustness.results.meta import DesignMeta
from robustness.results.study_result import StudyResult
from robustness.scheme import DEFAULT, metric_label
from robustness.simulation.recommendation import one_random
from robustness.statistics.ranks import format_target, target_rule, target_text
from robustness.statistics.size_answers import MIN_COVERAGE, short_coverage, unit_name

STUDY = "design_study"


def recommendation_markdown(report: Report) -> str:
    """The Recommendation section of the report, and its warnings, as Markdown (``recommendation.md``).

    Parameters
    ----------
    report : Report
        The design study's report.

    Returns
    -------
    str
    """
    def section(title):
        start = next((i for i, b in enumerate(report.blocks) if b[0] == "heading" and b[2] == title), None)
        if start is None:
            return []
        end = next((i for i, b in enumerate(report.blocks) if i > start and b[0] in ("heading", "table", "figure")),
                   len(report.blocks))
        return report.blocks[start:end]

    return Report(report.title, section("Recommendation") + section("Warnings")).to_markdown()


register_study(STUDY, "Design study: which gold, and how large a test set?",
               extra_outputs=lambda report: {"recommendation.md": recommendation_markdown(report)})


def size_words(value: float | None, largest: int | str) -> str:
    """A size of :func:`robustness.simulation.recommendation.recommend` in words.

    Parameters
    ----------
    value : float or None
        The size: nan (or None) beyond the search, negative where the grid's first size already reaches the target.
    largest : int or str
        The largest size searched.

    Returns
    -------
    str
        ``"more than 400"``, ``"at most 25"`` or ``"321"``.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"more than {largest}"
    if value < 0:
        return f"at most {-value:.0f}"
    return f"{value:.0f}"


def _about(size: str) -> str:
    """'about 270', but 'more than 400' and 'at most 25' as they are."""
    return size if not size[0].isdigit() else f"about {size}"


def _sizes(row: dict, largest: int | str) -> dict:
    """A size row's estimate and interval in words: ``about``, ``lowest``, ``highest``."""
    return dict(about=_about(size_words(row["value"], largest)), lowest=size_words(row["low"], largest),
                highest=size_words(row["high"], largest))


def _scheme(name: str) -> str:
    strategy, average = name.split(" (")
    return f"{strategy_label(strategy)} ({average}"


def unit_word(res: StudyResult) -> str:
    """The test-set unit's name, as the main job's: encounters when they hold several images, else images.

    Parameters
    ----------
    res : StudyResult
        A design study's results.

    Returns
    -------
    str
    """
    return unit_of(DesignMeta.of(res).base)


def unit_of(base: Mapping[str, Any]) -> str:
    """The test-set unit's name from a design study's base generator parameters (``meta.json``'s input base).

    Parameters
    ----------
    base : mapping

    Returns
    -------
    str
        ``encounter`` when encounters hold several images, else ``volume`` (3D) or ``image``
        (:func:`robustness.statistics.size_answers.unit_name`).
    """
    return unit_name(base)


def _base(res: StudyResult) -> dict:
    return res.meta["base_setting"]


def _grid(r: Report, res: StudyResult) -> None:
    """What was simulated."""
    g, sim = res.meta["grid"], res.meta["simulation"]
    r.heading("What was simulated")
    r.paragraph(
        f"Grid: test-set sizes {', '.join(map(str, g['sizes']))} {unit_word(res)}s (nested within each replicate); "
        f"annotators per image {', '.join(map(str, g['annotators']))}; agreement "
        f"{', '.join(f'{a:g}' for a in g['agreement'])}; run-quality spread "
        f"{', '.join(f'{s:g}' for s in g['spread'])}; "
        f"runs {', '.join(map(str, g['runs']))}"
        + (f"; within-encounter correlation {', '.join(f'{c:g}' for c in g['correlation'])}"
           if unit_word(res) == "encounter" else "")
        + f". {g['replicates']} replicates per setting over "
        f"{g['populations']} run populations, each ranked on a pool of at least {sim['pool_images']} independent "
        "images whose runs draw with common random numbers (sharp: its own L1 to unlimited data is in design.csv, "
        "pool_l1); larger test sets at the challenge's own setting until the recommended scheme meets the target "
        f"(cap {res.meta.get('cap', '?')}); "
        f"{sim['n_orders']} orders and {sim['n_resamples']} bootstrap resamples per test set; {_simulated(res)}; "
        f"seed {res.options['seed']}. Intervals are 95% t intervals over replicates, or over the run populations' "
        "means where populations hold several replicates (robustness.simulation.recommendation.summarise).")


def _simulated(res: StudyResult) -> str:
    """What one simulated image is: a 2D image of some pixels, or a volume of some slices (3D twins)."""
    base = res.meta.get("input", {}).get("base", {})
    if base.get("world") == "image twin":
        kind = "volumes" if base.get("depth") else "images"
        return (f"the challenge's own {kind} (resampled with replacement beyond its size) with simulated annotators "
                "and runs")
    pixels = f"{res.meta['simulation']['megapixels'] * 1e6:.0f} pixels"
    if base.get("depth"):  # the in-plane voxels of the simulation (robustness.simulation.design.setting_config)
        grow = math.sqrt(base["megapixels"] / res.meta["simulation"]["megapixels"]) if base.get("megapixels") else 1
        z, y, x = base["spacing"]
        spacing = f"{x * grow:.3g} x {y * grow:.3g} x {z:.3g}"
        return f"simulated volumes of {base['depth']} slices of about {pixels} each (voxels {spacing} mm, x y z)"
    return f"simulated images of about {pixels}"


def _recommendation(r: Report, res: StudyResult) -> None:
    """The decision: one scheme, a size with its interval, the random golds as one, annotators or images."""
    base, size = _base(res), res.meta["size"]
    g = res.meta["grid"]
    unit = unit_word(res)
    n_runs = base["runs"]
    r.heading("Recommendation")
    rec = res.verdict("recommended_scheme")[0]
    strat, average = rec["strategy"], rec["average"]
    target = float(res.verdict("encounters_needed", strategy=strat, average=average)[0]["subject"][0])
    r.paragraph(
        f"For a challenge like this one ({base['annotators']} annotators per image, agreement {base['agreement']:g}, "
        f"{n_runs} runs, {size} test {unit}s), simulated {g['replicates']} times over {g['populations']} run "
        "populations with a known truth (Jaccard; each population's ranking on unlimited data comes from a pool of "
        "independent images, see below). Intervals are 95% over replicates"
        + (", t over the run populations' means (runs drawn like this challenge's are the unit)."
           if g["populations"] < g["replicates"] else ", each its own run population."))
    items = failed_fit_bullets(res) + _coverage_bullets(res, unit) + [_use_bullet(res, rec)]
    largest = rec["count"]
    random = res.verdict("one_random_annotator")
    if random:
        parts = [phrase("one_random_annotator", "average", x, interval=ci(x["value"], x["low"], x["high"], "{:.1f}"),
                        first=float(x["subject"][0]), last=float(x["subject"][1])) for x in random]
        items.append(phrase("one_random_annotator", "bullet", averages="; ".join(parts)))
    items += [b for b in (_size_bullet(res, rec, unit, target, n_runs), resolution_bullet(res, unit),
                          _main_job_bullet(res, unit, target), _spread_bullet(res, unit, target, largest)) if b]
    top1 = res.verdict("encounters_needed_top1", strategy=strat, average=average)
    if top1:
        t = top1[0]
        items.append(phrase("encounters_needed_top1", "bullet", share=float(t["subject"][0]), unit=unit,
                            **_sizes(t, largest)))
    official = res.verdict("encounters_needed", strategy=DEFAULT.strategy, average=DEFAULT.average)
    if official and (strat, average) != (DEFAULT.strategy, DEFAULT.average):
        o = official[0]
        items.append(phrase("encounters_needed", "official", o, gold=strategy_label(DEFAULT.strategy), unit=unit,
                            **_sizes(o, o["count"])))
    effort = res.verdict("annotation_effort", strategy=strat, average=average)
    if len({e["count"] for e in effort}) > 1:
        e = sorted(effort, key=lambda x: x["count"])
        settings = "; ".join(phrase("annotation_effort", "setting", x, units=float(x["subject"][0]), unit=unit,
                                    interval=ci(x["value"], x["low"], x["high"], "{:.1f}")) for x in e)
        tied = e[0]["statement"] == "tied"
        items.append(phrase("annotation_effort", "tied", unit=unit, settings=settings) if tied else
                     phrase("annotation_effort", "bullet", unit=unit, settings=settings))
    r.bullets(items)
    _how_far(r, res, size, unit, n_runs)


def _use_bullet(res: StudyResult, rec: dict) -> str:
    """"Use" the recommended scheme, and why: best in paired comparisons, or the simplest of those tied."""
    closest = res.verdict("closest_scheme")[0]
    strat, average = rec["strategy"], rec["average"]
    others = [t for t in closest["subject"] if t != f"{strat} ({average})"]
    scheme = f"{strategy_label(strat)} ({average})"
    if closest["statement"] == "best":
        return phrase("closest_scheme", "best", closest, scheme=scheme)
    return phrase("closest_scheme", "tied", closest, scheme=scheme, others=", ".join(_scheme(t) for t in others))


def _size_bullet(res: StudyResult, rec: dict, unit: str, target: float, n_runs: int) -> str:
    """The test-set size for the target with the recommended scheme, or why no size reaches it."""
    strat, average, largest = rec["strategy"], rec["average"], rec["count"]
    name = f"{strategy_label(strat)} ({average})"
    per_run = f"{target_rule(target, n_runs)}; {random_baseline(n_runs, target)}"
    reach = res.verdict("own_distance_to_truth")[0]
    words = dict(target=format_target(target), per_run=per_run, unit=unit)
    if reach["statement"] == "unreachable":
        return (phrase("own_distance_to_truth", "unreachable", reach, scheme=name, **words,
                       interval=ci(reach["value"], reach["low"], reach["high"], "{:.1f}"))
                + _alternatives(res, strat, average, unit))
    sizes = _sizes(rec, largest)
    conservative = sizes["highest"]
    return (phrase("recommended_scheme", "size", **words, **sizes, conservative=conservative)
            + (phrase("recommended_scheme", "at_least", conservative=conservative, unit=unit)
               if conservative[0].isdigit() else
               phrase("recommended_scheme", "needed", conservative=conservative, unit=unit))
            + target_note(target, n_runs) + _new_population(res, unit, largest) + _indicative(res))


def _spread_bullet(res: StudyResult, unit: str, target: float, largest: int) -> str:
    """How the size varies between run populations (empty where the study did not measure it)."""
    spread = res.verdict("encounters_needed_by_population")
    if not spread:
        return ""
    x = spread[0]
    beyond = "" if x["statement"] == "all_found" else \
        phrase("encounters_needed_by_population", "beyond", rest=x["total"] - x["count"])
    reps = x["subject"][0] if x["subject"][0] == x["subject"][1] else "-".join(x["subject"])
    low, high = size_words(x["low"], largest), size_words(x["high"], largest)
    sizes = phrase("encounters_needed_by_population", "same" if low == high else "range", low_size=low,
                   high_size=high, unit=unit)
    return phrase("encounters_needed_by_population", "bullet", x, reps=reps, plural="s" if reps != "1" else "",
                  target=format_target(target),
                  sizes=sizes, median=size_words(x["value"], largest), beyond=beyond)


def _new_population(res: StudyResult, unit: str, largest: int) -> str:
    """The size for a new run population drawn with the settings (the prediction bound), where there is one."""
    found = res.verdict("encounters_needed_new_population")
    if not found or found[0]["statement"] == "undefined":
        return ""
    text = phrase("encounters_needed_new_population", "size", found[0], size=size_words(found[0]["value"], largest),
                  unit=unit)
    held = res.verdict("new_population_bound_left_out")
    if held:
        h = held[0]
        text += phrase("new_population_bound_left_out", "short" if h["count"] < 0.8 * h["total"] else "held", h)
    return text


def _indicative(res: StudyResult) -> str:
    """With few replicates the interval is indicative: say so.

    An independent audit found a --quick interval of 62 to 128 encounters where a new run population with the same
    settings needed 152 to 197 (issue "Honest where one test set cannot tell").
    """
    g = res.meta.get("grid") or {}
    replicates = int(g.get("replicates", 0) or 0)
    quick = DesignMeta.of(res).quick
    if not quick and replicates >= 20:
        return ""
    more = (f"without {parameter('DesignStudyOptions', 'quick')}=True the study runs 20" if quick else
            f"20 or more {parameter('DesignStudyOptions', 'replicates')} (the default) sample them")
    return (f" With {replicates} replicates (each one test set of one run population) this interval is indicative: "
            f"it samples neither the test sets nor the run populations enough to hold on a new run population; {more}.")


def _coverage_bullets(res: StudyResult, unit: str) -> list[str]:
    """A warning that opens the recommendation where the twin's intervals cover less than 90% (nominal 95%)."""
    low, said, unsure = short_coverage([
        {"method": x["subject"][1], "unit": x["subject"][0], "coverage": x["value"], "low": x["low"],
         "high": x["high"], "n": x["count"]} for x in res.verdict("interval_coverage")], unit)
    if not low:
        return []
    warning = phrase("interval_coverage", "warning", may="may be " if unsure else "are ", threshold=MIN_COVERAGE,
                     n=low[0]["n"], unit=unit, said=said)
    return [warning + (phrase("interval_coverage", "unsure", replicates=parameter("DesignStudyOptions", "replicates"))
                       if unsure else phrase("interval_coverage", "overstate"))]


def _main_job_bullet(res: StudyResult, unit: str, target: float) -> str | None:
    """The main job's own size answer on the real challenge beside the twin's (verdict ``main_job_size``)."""
    found = res.verdict("main_job_size")
    if not found:
        return None
    return (f"**The main job on the real challenge** (main_job_answer.csv), for "
            f"{size_comparison(found[0], unit, target, rule=target_rule(target, _base(res)['runs']))}"
            + ("" if found[0]["statement"] in ("overlap", "not_compared") else " The warnings name what the twin "
               "assumes differently; the main job sees only this test set, the twin only what the fit reproduces."))


def size_comparison(v: dict, unit: str, target: float, differs: str = "", *, rule: str = "") -> str:
    """Two size answers for one challenge in prose: the main job's estimate on its images and the design study's twin.

    Parameters
    ----------
    v : dict
        The design study's ``main_job_size`` verdict (the main job's estimate with its 90% interval; the twin's
        95% interval over replicates in ``subject``: low, high, largest size simulated).
    unit : str
        The test-set unit.
    target : float
        The expected L1 both answers reach.
    differs : str
        Where the twin and the challenge differ (:func:`robustness.studies.design.differing_assumptions`).
    rule : str
        The target's rule in prose (:func:`robustness.statistics.ranks.target_rule`), said beside it.

    Returns
    -------
    str
    """
    def finite(x) -> bool:
        return x is not None and math.isfinite(float(x))

    low, high, largest = (float(x) for x in v["subject"])
    design = f"{size_words(low, f'{largest:.0f}')} to {size_words(high, f'{largest:.0f}')}"
    high_text = f"{v['high']:.0f}" if finite(v["high"]) else f"more than {v['count']}"
    real = f"{v['low']:.0f} to {high_text}" if finite(v["low"]) and v["low"] > 0 else f"at most {high_text}"
    est = (f"about {v['value']:.0f}" if finite(v["value"]) else
           f"more than {v['count']}" if not finite(v["high"]) else f"at most {high_text}")
    said = phrase("main_job_size", "compared", scheme=f"{strategy_label(DEFAULT.strategy)}, {DEFAULT.average} "
                  f"{metric_label(DEFAULT.metric)}", target=format_target(target), rule=f" ({rule})" if rule else "",
                  estimate=est, unit=unit, real=real, design=design)
    if v["statement"] == "not_compared":
        return said + phrase("main_job_size", "not_compared")
    if v["statement"] == "overlap":
        return said + phrase("main_job_size", "overlap")
    return (said + phrase("main_job_size", "disagree")
            + (phrase("main_job_size", "differs", differs=differs) if differs else
               phrase("main_job_size", "unmodelled")))


def _alternatives(res: StudyResult, strat: str, average: str, unit: str) -> str:
    """What more or better annotators would give: the scheme's own distance to the truth at other settings."""
    alt = res.verdict("own_distance_alternative", strategy=strat, average=average)
    if not alt:
        return ""
    parts = [phrase("own_distance_alternative", "setting", x, agreement=float(x["subject"][0])) for x in alt]
    return phrase("own_distance_alternative", "sentence", alt[0], unit=unit, settings="; ".join(parts))


def _how_far(r: Report, res: StudyResult, size: int, unit: str, n_runs: int) -> None:
    """How far to trust the package's other answers on test sets like this one (majority, micro)."""
    base = _base(res)

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
    items = []
    if perfect:
        c = perfect
        pool = phrase("estimate", "pool_far", pool=c["pool_distance"]) if c["pool_distance"] > 0 else \
            phrase("estimate", "pool_sharp")
        items.append(phrase("estimate", "calibrated", size=size, unit=unit, estimate=c["estimate"],
                            actual=c["actual_distance"], ratio=c["estimate_ratio"], pool=pool))
    if here and base["agreement"] != 1.0:
        items.append(phrase("estimate", "gold_bias", agreement=base["agreement"], actual=here["actual_distance"],
                            estimate=here["estimate"]))
    if here:
        items.append(phrase("paper_converged_share", "optimistic", runs=n_runs, converged=here["paper_converged_share"],
                            point=here["paper_point_fraction"], far=here["paper_converged_but_far_share"]))
    cov = res.verdict("interval_coverage")
    if cov:
        one = unit != "encounter"  # one image per encounter: the two units are the same, said once
        shown = [x for x in cov if not one or x["subject"][0] != "encounter"] or cov
        methods = ", ".join(phrase("interval_coverage", "method", x, method=x["subject"][1] if one else
                                   f"{x['subject'][0]} unit, {x['subject'][1]}") for x in shown)
        items.append(phrase("interval_coverage", "bullet", cov[0], unit=unit, methods=methods,
                            correlation=f", within-encounter correlation {base['correlation']:g}" if not one else ""))
    if items:
        r.heading("How far to trust the other answers (simulated)")
        r.bullets(items)


def _at_size(r: Report, res: StudyResult) -> None:
    """Every scheme at the challenge's size, and the figures."""
    base, size = _base(res), res.meta["size"]

    summary = one_random(res.table("design_summary.csv"))  # the random golds as one scheme, as everywhere
    top = summary[(summary.annotators == base["annotators"]) & (abs(summary.agreement - base["agreement"]) < 1e-9)
                  & (summary.encounters == size)].sort_values("l1_population")
    table = pd.DataFrame({
        "gold": top.strategy.map(lambda g: strategy_style(g)["label"]), "average": top.average,
        "tau to truth (same images)": top.tau_same_images.map("{:.3f}".format),
        "tau to population": top.tau_population.map("{:.3f}".format),
        "L1 to population (95% CI)": [ci(m, lo, hi, "{:.1f}") for m, lo, hi in
                                      zip(top.l1_population, top.l1_population_low, top.l1_population_high)],
        "true best first": top.top1_correct.map("{:.0%}".format),
        "package's estimate of L1": top.expected_l1_estimate.map("{:.1f}".format)})
    r.heading(f"Every scheme at {size} {unit_word(res)}s")
    r.table(table, floatfmt="{}", caption=(
        f"At {size} {unit_word(res)}s: Kendall's tau to the truth on the same images and to the population "
        "ranking, L1 to the population ranking (95% interval over replicates), share of replicates with the "
        "true best run first, and the package's estimate of that L1. design_summary.csv has every setting."))
    r.figure("figures/fig_13_design_tau.png", "Agreement of each scheme's ranking with the runs' population ranking "
             "against the test-set size (means over replicates; band: 95% interval for majority).")
    target = float(res.verdict("encounters_needed")[0]["subject"][0])
    r.figure("figures/fig_14_design_size.png", f"Test {unit_word(res)}s needed for an expected L1 to the population "
             f"ranking of at most {target_text(target, base['runs'])}, against the "
             "annotators' agreement.")
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
            if DesignMeta.of(res).base.get("depth") else
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


_fit = fit_section
for _name in ("recommendation", "grid", "fit", "at_size", "metrics"):
    register_section(STUDY, globals()[f"_{_name}"], name=_name)
