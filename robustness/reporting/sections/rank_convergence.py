"""The main job's report: every section reads the results folder (tables, and the verdicts for its findings)."""

from __future__ import annotations

import pandas as pd

from robustness.overlap.gold import STRATEGIES
from robustness.overlap.metrics import METRICS
from robustness.reporting.document import Report
from robustness.reporting.sections.common import (
    at_tolerance,
    convergence_cell,
    default_rows,
    needed_text,
    random_baseline,
    size_target_of,
    target_note,
    target_words,
    unlimited_sentence,
)
from robustness.reporting.sections.design import size_comparison
from robustness.reporting.sections.rank_convergence_agreement import (
    bootstrap_units,
    fits_section,
    gold_agreement_section,
    headline,
    labels_section,
    metrics_section,
    paper_data,
    size_target_caption,
    table4_section,
    truth_section,
)
from robustness.reporting.sections.rankings import case_leaderboards_section, ranking_methods_section
from robustness.reporting.sections.registry import (
    ci,
    interval_name,
    names,
    register_section,
    register_study,
    strategy_label,
)
from robustness.results.study_result import StudyResult
from robustness.scheme import DEFAULT, Scheme, metric_label
from robustness.statistics.ranks import format_target, same_target, target_rule
from robustness.statistics.size_answers import compare_answers, comparison_fields

STUDY = "rank_convergence"
register_study(STUDY, "Leaderboard robustness report")


def _resampled(res: StudyResult) -> str:
    """How a resampled test set is drawn, in the data's words.

    "encounters drawn with replacement, each with all its images"; "images drawn with replacement" where each
    encounter holds one image or the bootstrap resamples images.
    """
    boot = bootstrap_units(res)[0]
    inp = res.meta["input"]
    item = "volume" if inp.get("volumes") else "image"
    if boot != "encounter" or inp.get("encounters") == inp.get("images"):
        return f"{item}s drawn with replacement"
    return f"{boot}s drawn with replacement, each with all its {item}s"


def design_command(res: StudyResult) -> str:
    """The design-study command that plans for this challenge (``--like`` with the main job's data options).

    Parameters
    ----------
    res : StudyResult
        The main job's results.

    Returns
    -------
    str
    """
    reading = res.meta["input"].get("reading") or {}  # how the job read its input (meta.json, named fields)
    t = res.meta.get("target") or {}
    target = f" --target {t['l1']:g}" if t.get("set_by") == "--target" else ""
    if not reading.get("folder"):  # the embedded synthetic challenge: the design study's default is its generator
        return "python -m experiments.design_study --quick" + target
    parts = ["python -m experiments.design_study --quick --like", str(reading["folder"]), "--layout",
             str(reading["layout"])]
    for name, value in (reading.get("options") or {}).items():
        name = RENAMED_OPTIONS.get(name, name)  # a folder of an earlier version records the option's old name
        parts.append(f"--{name}" if value is True else f"--{name} {value}")
    return " ".join(parts) + target


#: Data options renamed since earlier versions recorded them in meta.json (their old names still work, with a warning).
RENAMED_OPTIONS = {"systems": "runs"}


def _conclusions(r: Report, res: StudyResult) -> None:
    """What to conclude: at most six bullets, each read from a verdicts row (the sections below hold the rest)."""
    p = headline(res)
    unit, _ = bootstrap_units(res)
    n_runs = res.meta["input"]["runs"]
    target = size_target_of(res)
    key = dict(strategy=p.gold, metric=p.metric, average=p.average)
    scheme = p.label
    items = []
    if res.warnings:
        items.append(f"**Read the warnings first** (next section): {len(res.warnings)} thing(s) the loader or the "
                     "checks found in the input may change what the numbers mean.")
    pairs, nb = res.verdict("pairs_differ", **key), res.verdict("neighbours_differ", **key)
    if pairs and nb:
        pr, n = pairs[0], nb[0]
        items.append(f"**Which runs are separable** ({scheme}): {pr['count']} of {pr['total']} pairs of runs differ "
                     f"(paired t-test, Holm, 5%), {n['count']} of the {n['total']} pairs of leaderboard neighbours: "
                     + ("neighbouring places are not established." if n["count"] == 0 else
                        "the other neighbouring places are not established."))
    best = res.verdict("best_is_best", **key)
    if best:
        b = best[0]
        items.append(f"**First place**: the observed best, {b['subject'][0]}, is the runs' best on unlimited data "
                     f"with posterior probability {b['value']:.2f} (rank_keep.csv).")
    moved, order = _winner_bullet(res, p), _order_sentence(res, p)
    if moved or order:
        items.append(" ".join(x for x in (moved, order) if x))
    distances, nd = res.verdict("unlimited_distance", **key), res.verdict("units_needed", **key)
    if distances and nd:
        d = distances[0]
        items.append(f"**Distance to unlimited data**: this test set's ranking lies an expected L1 of {d['value']:.1f} "
                     f"({d['level']:.0%} interval {d['low']:.1f} to {d['high']:.1f}, over the posterior and "
                     f"resampled test sets) from the ranking on unlimited data, {d['value'] / n_runs:.2f} places per "
                     f"run ({random_baseline(n_runs, d['value'])}); {target_words(target, n_runs)} needs "
                     f"{needed_text(nd[0], unit)}.{target_note(target, n_runs)} The interval's calibration on "
                     "simulated populations: docs/calibration.md." + _design_sentence(res))
    truth = res.verdict("truth_best", metric=p.metric, average=p.average)
    if truth:
        t = truth[0]
        said = (f"{strategy_label(t['subject'][0])} agrees best" if t["statement"] == "best" else
                f"{names(t['subject'])} are tied")
        items.append(f"**Which gold**: against the latent truth on this test set ({p.average} {p.metric_label}) "
                     f"{said}; one random "
                     f"annotator is a draw, not a choice. Which gold and how many {unit}s a new challenge needs: "
                     f"`{design_command(res)}` (recommendation.md).")
    else:
        why = (f"{p.metric_label} is not computed against the true masks: truth.csv compares the golds under the "
               "overlap metrics" if res.has("truth.csv") else "there is no truth")
        items.append(f"**Which gold**: this test set cannot say which gold ranks closer to the truth ({why}, and the "
                     "convergence curves measure how soon a subset agrees with this test set's own ranking, "
                     "not accuracy). The design study answers it by simulating challenges like this one: "
                     + (f"its recommendation.md in {res.meta['design_answer']['folder']} (--design)."
                        if res.meta.get("design_answer") else f"`{design_command(res)}` (recommendation.md)."))
    r.heading("What to conclude")
    r.bullets(items[:6])


def _scheme_text(v: dict) -> str:
    return f"{strategy_label(v['strategy'])}, {v['average']} {metric_label(v['metric'])}"


def _design_sentence(res: StudyResult) -> str:
    """The design study's twin beside this job's size answer (``--design DIR``; empty without it)."""
    d = res.meta.get("design_answer")
    if not d:
        return ""

    own = res.table("test_set_size.csv")
    own = own[(own.strategy == DEFAULT.gold) & (own.metric == DEFAULT.metric) & (own.average == DEFAULT.average)]
    target = size_target_of(res)
    if own.empty or not same_target(d["target"], target):
        return (f" The design study in {d['folder']} answers for L1 <= {format_target(d['target'])}, this job for "
                f"{format_target(target)}: their sizes are not compared.")
    compared = compare_answers({"main_answer": own, "sizes": pd.DataFrame([d["twin"]])})
    if compared is None:  # own is not empty: the design study's folder holds no majority answer
        return f" The design study in {d['folder']} holds no size for majority vote: their sizes are not compared."
    v = comparison_fields(compared)
    rule = target_rule(target, res.meta["input"]["runs"])
    return f" The design study in {d['folder']}, for " + size_comparison(v, d["unit"], d["target"], d["differs"],
                                                                         rule=rule)


def _order_sentence(res: StudyResult, p: Scheme) -> str | None:
    """What the boundary metrics (``--boundary``) and the labels do to the order and to the first place.

    From the ``metric_tau`` and ``label_tau`` verdicts (Kendall's tau with its bootstrap interval, runs that take
    another place) and the per-metric and per-label leaderboards' rank intervals: the first place moves with
    confidence where the headline's winner's 95% rank interval under the other metric (label) excludes 1.
    """
    parts = []

    def first_place(boards: pd.DataFrame, column: str, value, lead: str) -> str:
        b = boards[boards[column] == value].set_index("run")
        if lead not in b.index:
            return ""
        top = b["rank"].idxmin()
        if top == lead:
            return f"{lead} stays first"
        sure = float(b.loc[lead, "rank_low"]) > 1
        return (f"{top} is first and {lead}'s 95% rank interval excludes first place" if sure else
                f"{top} is first, {lead} not excluded (tied)")

    board = res.table("leaderboard.csv")  # sorted by the headline: its first row is the headline's winner
    runs = board["run"] if "run" in board.columns else board.index.to_series()  # a column once read back
    lead = str(runs.iloc[0]) if len(runs) else None
    metrics = [v for v in res.verdict("metric_tau") if v["metric"] != p.metric]
    if metrics:
        boards = res.table("metric_leaderboard.csv")
        said = []
        for v in metrics:
            how = {"agree": "the same order on every resample", "differ": "the orders differ with confidence"}.get(
                v["statement"], "tied with the headline's order")
            tail = first_place(boards, "metric", v["metric"], lead) if lead else ""
            said.append(f"under {metric_label(v['metric'])} {v['count']} of {v['total']} runs take another place "
                        f"(Kendall's tau "
                        f"{ci(v['value'], v['low'], v['high'], '{:.2f}')}: {how}){', and ' + tail if tail else ''}")
        parts.append(f"Against macro {p.metric_label} ({p.gold_label}): " + "; ".join(said) + ".")
    labels = res.verdict("label_tau")
    if labels:
        differ = [v for v in labels if v["statement"] == "differ"]
        pairs = (", ".join(f"{v['subject'][0]} vs {v['subject'][1]} ({v['count']} of {v['total']} runs move)"
                           for v in differ) if differ else "")
        parts.append(f"Between labels: {len(differ)} of {len(labels)} pairs of labels order the runs differently "
                     "with confidence" + (f" ({pairs})" if pairs else " (the others are tied)") + " (label_tau).")
    return " ".join(parts) or None


def _schemes_text(rows: list[dict]) -> str:
    """Schemes in prose: ``intersection, micro Jaccard``, ``... and union, micro Jaccard`` (each in one breath)."""
    said = [_scheme_text(v) for v in rows]
    return said[0] if len(said) == 1 else "; ".join(said[:-1]) + "; and " + said[-1]


def _winner_bullet(res: StudyResult, p: Scheme) -> str | None:
    """Whether another gold, averaging or metric moves the first place (verdicts ``winner_by_scheme``)."""
    rows = res.verdict("winner_by_scheme")
    if not rows:
        return None
    lead = rows[0]["subject"][1]
    moves = [v for v in rows if v["statement"] == "moves"]
    maybe = [v for v in rows if v["statement"] == "may move"]
    tail = (" The headline is the organiser's decision; this is how much it decides (rank_distribution.csv, "
            "bootstrap over the same resampled test sets for every scheme).")
    if moves:
        said = "; ".join(f"under {_scheme_text(v)} {v['subject'][0]} is first in {v['value']:.0%} of resamples and "
                         f"{lead} in {v['low']:.1%} (rank {v['count']} of {v['total']} on this test set)"
                         for v in moves[:4])
        more = f" (and {len(moves) - 4} more schemes)" if len(moves) > 4 else ""
        return (f"**What moves the first place**: {lead} is first under {p.label}, but {said}{more}."
                + (f" Under {_schemes_text(maybe)}, another run is first on this test set, without confidence "
                   "(tied)." if maybe else "") + tail)
    if maybe:
        return (f"**What moves the first place**: nothing with confidence. Under {_schemes_text(maybe)}, another "
                f"run than {lead} is first on this test set, but {lead} is also first in at least 2.5% of "
                "resamples there (tied)." + tail)
    return (f"**What moves the first place**: none of the {len(rows)} other schemes tried (another fixed gold, the "
            f"other averaging, another overlap metric): {lead} is first under each of them on this test set.")


def _overview(r: Report, res: StudyResult) -> None:
    """What was studied and how."""
    o, inp = res.options, res.meta["input"]
    images = res.table("images.csv")
    per_image = images.annotators.value_counts().sort_index()
    boot_unit, _ = bootstrap_units(res)
    grouped = f" in {inp['encounters']} encounters" if inp["encounters"] != inp["images"] else ""
    if inp.get("labels"):  # multi-label volumes: an image is one label of one file, its encounter the file
        kind = "volumes" if inp.get("volumes") else "images"
        how = (f"the bootstrap resamples {kind} with all their labels" if boot_unit == "encounter" else
               "the bootstrap resamples label masks one by one")
        grouped = (f" ({inp['encounters']} {kind} x {len(inp['labels'])} labels "
                   f"{', '.join(map(str, inp['labels']))}; {how})")
        r.paragraph(f"Input: {inp['source']} — {inp['images']} label masks per run{grouped}, "
                    f"{inp['runs']} runs, annotators per label mask: "
                    + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    elif inp.get("volumes"):
        r.paragraph(f"Input: {inp['source']} — {inp['images']} volumes{grouped}, {inp['runs']} runs, annotators "
                    "per volume: " + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    else:
        r.paragraph(f"Input: {inp['source']} — {inp['images']} images{grouped}, "
                    f"{inp['runs']} runs, annotators per image: "
                    + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    r.paragraph(f"Settings: {o['orders']} random orders (unit: {o['unit']}), {o['bootstrap']} bootstrap resamples "
                f"(unit: {boot_unit}), seed {o['seed']}, both-empty pairs score: {res.meta['empty_policy']}.")
    r.paragraph(_headline_sentence(res))
    r.paragraph("\"The paper\" below is the MEDIQA-MAGIC 2025 task overview (ImageCLEF 2025, CLEF 2025 Working "
                "Notes, CEUR-WS): its Figures 2 and 3 (the convergence curves) and Table 4 (the distance from the "
                "annotators' spread) are the analyses some sections repeat on this data"
                + (", its data." if paper_data(res) else ", not on its data: its numbers are not quoted here."))
    same = _coinciding(res)
    if same:
        r.paragraph(f"Golds that coincide on this input (identical micro {headline(res).metric_label} for every "
                    "run, as with two "
                    "annotators, where majority equals union or intersection and STAPLE follows one of them): "
                    + "; ".join(" = ".join(strategy_label(g) for g in group) for group in same)
                    + ". Their rows below are one gold, not agreeing evidence.")


def _headline_sentence(res: StudyResult) -> str:
    """Which scheme the leaderboard and the conclusions are about, and who chose it."""
    p = headline(res)
    set_by = (res.meta.get("primary") or {}).get("set_by")
    if set_by == "--primary":
        why = "the organiser's choice (--primary)"
    elif p.official:
        why = "the official scorer's leaderboard on this layout; another with --primary GOLD:METRIC:AVERAGING"
    else:
        why = ("the package's default, not this challenge's decision: name the challenge's own with --primary "
               "GOLD:METRIC:AVERAGING")
    direction = "lower is better" if p.lower_better else "higher is better"
    return (f"Headline scheme: {p.label} ({p.text}; {direction}), {why}. The leaderboard, the significance "
            "analysis, the distance to unlimited data and the conclusions are about it; every other gold, metric "
            "and averaging is in the tables.")


def _unit_reason(res: StudyResult) -> str:
    """Why the unit is the encounter, in the data's words."""
    if paper_data(res):
        return "an encounter's photos show one lesion"
    return "images of one encounter show the same case"


def _coinciding(res: StudyResult) -> list[list[str]]:
    """Groups of golds whose micro score is identical for every run (e.g. majority and union with 2 annotators)."""
    board = res.table("leaderboard.csv")
    suffix = f"_{headline(res).metric}_micro"
    columns = {c.removesuffix(suffix): board[c].to_numpy() for c in board.columns if c.endswith(suffix)}
    groups, seen = [], set()
    for a, va in columns.items():
        if a in seen:
            continue
        group = [b for b, vb in columns.items() if b not in seen and (vb == va).all()]
        seen.update(group)
        if len(group) > 1:
            groups.append(group)
    return groups


def _leaderboard(r: Report, res: StudyResult) -> None:
    """The headline scheme's leaderboard with bootstrap intervals."""
    p, o = headline(res), res.options
    boot_unit, n_units = bootstrap_units(res)
    ci_table = default_rows(res.table("bootstrap_ci.csv"))
    ci_table = ci_table[ci_table.reported]
    board = res.table("leaderboard.csv")
    r.heading(f"Leaderboard under {p.title} ({p.label})")
    sel = ci_table[(ci_table.strategy == p.gold) & (ci_table.metric == p.metric)
                   & (ci_table.average == p.average)].set_index("run")
    tab = board[[c for c in dict.fromkeys(_leaderboard_columns(p, board.columns)) if c in board]].copy()
    tab.insert(0, "rank", [f"{x:g}" for x in sel.loc[tab.index, "rank"]])
    tab["95% CI"] = [f"[{sel.loc[s, 'low']:.4f}, {sel.loc[s, 'high']:.4f}]" for s in tab.index]
    tab = tab.reset_index().rename(columns={"index": "run"})
    tab.columns = [str(c).replace("_", " ") for c in tab.columns]  # readable headers that can wrap
    r.table(tab, max_rows=15, caption=(
        f"95% CI: {interval_name(sel)} over {n_units} {boot_unit}s ({o['bootstrap']} resamples, paired across "
        f"runs); ranks tie within 1e-12 ({o.get('ties', 'average')} ranks). "
        "Neighbouring runs whose intervals overlap may still "
        "differ; the next section tests every pair."))
    r.figure("figures/fig_04_forest.png", f"Every run's score with its 95% {interval_name(sel)} interval over "
             f"{boot_unit}s, under {p.gold_title} ({p.gold_label}), "
             f"{' and '.join(p.averages)} {p.metric_label}.")
    r.figure("figures/fig_05_rank_blobs.png", f"How often each run takes each rank over {o['bootstrap']} bootstrap "
             "resamples (dot area: share of resamples); x marks the rank on the full test set.")


def _leaderboard_columns(p: Scheme, columns) -> list[str]:
    """The leaderboard's columns: the headline scheme's, its gold under the other metrics, then over annotators.

    The other metrics under the same averaging, then the headline metric's macro scores over annotators (the golds
    that score a run against each annotator).
    """
    out = ["_".join(p.key)] + [f"{p.gold}_{m}_{p.average}" for m in METRICS]
    for c in columns:
        gold, _, rest = str(c).partition("_")
        if rest == f"{p.metric}_macro" and gold in _annotator_golds():
            out.append(c)
    return [c for c in dict.fromkeys(out) if c in columns]


def _annotator_golds() -> set:
    return {name for name, g in STRATEGIES.items() if g.macro_only}


def _significance(r: Report, res: StudyResult) -> None:
    """Which runs differ (verdicts ``pairs_differ``, ``neighbours_differ`` and their Wilcoxon checks)."""
    p = headline(res)
    boot_unit, _ = bootstrap_units(res)
    r.heading("Which runs differ? (one significance analysis)")
    for average in p.averages:
        key = dict(strategy=p.gold, metric=p.metric, average=average)
        found = res.verdict("pairs_differ", **key)
        if not found:
            continue
        pairs = found[0]
        n = res.verdict("neighbours_differ", **key)[0]
        pw = res.verdict("pairs_differ_wilcoxon", **key)[0]
        nw = res.verdict("neighbours_differ_wilcoxon", **key)[0]
        alone = res.verdict("neighbours_only_differ", **key)
        n_sig, n_all = n["count"], n["total"]
        neighbours = (f"none of the {n_all} pairs that are neighbours on the leaderboard differ: for all of them"
                      if n_sig == 0 else
                      f"{n_sig} of the {n_all} pairs that are neighbours on the leaderboard differ, and for the "
                      f"remaining {n_all - n_sig}")
        r.paragraph(
            f"**{p.gold_label}, {average} {p.metric_label}**: {pairs['count']} of {pairs['total']} pairs of runs "
            f"differ (Holm over all {pairs['total']} pairs); {neighbours} there is no evidence of a difference "
            "(which is not evidence that they are equal)."
            + (f" Holm over the {alone[0]['total']} neighbouring pairs alone (a smaller family) finds "
               f"{alone[0]['count']} of them." if alone else "")
            + f" The rank-based check (Wilcoxon signed-rank test on per-{boot_unit} scores, Holm over all pairs) finds "
            f"{pw['count']} of {pw['total']} pairs and {nw['count']} neighbouring pairs.")
    r.paragraph(f"Method: for every pair of runs, a paired two-sided t-test of the score difference with its "
                f"delta-method standard error over {boot_unit}s (each {boot_unit}'s influence on both runs' ratios "
                "of sums: micro scores pool TP/FP/FN, macro scores average per-image scores); analytic, so the count "
                "has no Monte Carlo error and Holm's smallest thresholds are not read off the tails of a finite set "
                "of resamples (the bootstrap-SE test is kept in pairwise.parquet, p_bootstrap); Holm's correction "
                "over all pairs of the scheme, at 5%; across simulated test sets, the share of its claims whose "
                "direction is wrong is in experiments.calibration's table. Unit: the "
                + (f"{boot_unit}, because {_unit_reason(res)} and are not independent. "
                   if boot_unit == "encounter" else f"{boot_unit}. ")
                + "Every scheme and pair, with the difference's 95% interval, is in pairwise.parquet.")
    r.figure("figures/fig_09_significance_map.png",
             f"Significance map ({p.gold_label}, {' and '.join(p.averages)} {p.metric_label}): a dark cell means the "
             "run of "
             f"the row scores significantly {'lower (better)' if p.lower_better else 'higher'} than the run of the "
             "column (paired t-test with delta-method "
             "standard errors, Holm over all pairs, 5%).")


def _unlimited(r: Report, res: StudyResult) -> None:
    """How far this test set's ranking is from the ranking on unlimited data.

    The verdicts ``unlimited_distance``, ``best_is_best`` and ``units_needed`` of the headline gold and metric; the
    table of every gold.
    """
    boot_unit, n_units = bootstrap_units(res)
    n_runs = res.meta["input"]["runs"]
    per_size, needed = res.table("ranking_uncertainty.csv"), res.table("test_set_size.csv")
    p = headline(res)
    first = per_size.iloc[0]
    r.heading("How far is this test set's ranking from the ranking on unlimited data?")
    r.paragraph(
        "The paper's convergence curve (next section) compares a random subset with this test set's own ranking, "
        "so it reaches L1 = 0 at the full test set by construction: it describes the test set, not how far its "
        "ranking is from the ranking the runs would get on unlimited data. That distance is estimated here from a "
        "posterior of the runs' population scores (empirical Bayes: the test set's scores and their delta-method "
        f"covariance over {boot_unit}s, a normal prior with {first.groups}); test sets of m {boot_unit}s are "
        "simulated around each population drawn. Taking the test set's own ranking for the truth (the plug-in "
        "bootstrap, column plugin_l1) underestimates the distance, because near-ties look wider than they are. "
        f"The {first.confidence:.0%} interval adds the posterior's spread and the spread of the whole estimate "
        f"over {first.n_resamples} resampled test sets; its bias and coverage are measured by simulation "
        "(python -m experiments.calibration; docs/statistics.md)."
        + (f" Runs within {first.margin:g} of each other in the population count as tied (either order is right); "
           f"under {p.title} ({p.label}) the posterior expects {_within(per_size, p):.1f} pairs of runs "
           "within that margin (pairs_within_margin)." if first.margin > 0 else
           " No equivalence margin (--margin 0): runs count as tied only where their population scores are equal."))
    for average in p.averages:
        if res.verdict("unlimited_distance", strategy=p.gold, metric=p.metric, average=average):
            r.paragraph(f"**{p.gold_label}, {average} {p.metric_label}**: "
                        + unlimited_sentence(res, p.with_average(average), n_runs, boot_unit))
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
        "tried). All sizes, the posterior probability that each run is the population's best and the plug-in "
        "stability indices: ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv."))
    r.figure("figures/fig_10_test_set_size.png",
             f"Expected L1 between the ranking on m {boot_unit}s and the ranking on unlimited data (empirical-Bayes "
             f"estimate), against m; the band is {p.gold_title}'s {first.confidence:.0%} interval; the dotted "
             f"line is the size target, L1 = {size_target_caption(res)}; the vertical line is this test "
             "set's size.")


def _within(per_size: pd.DataFrame, p: Scheme) -> float:
    """The posterior's expected number of pairs within the margin under the headline scheme."""
    row = per_size[(per_size.strategy == p.gold) & (per_size.metric == p.metric) & (per_size.average == p.average)]
    return float(row.pairs_within_margin.iloc[0]) if len(row) else float("nan")


def _convergence(r: Report, res: StudyResult) -> None:
    """The paper's curves (verdicts ``fastest_convergence``) and the convergence points."""
    o, p = res.options, headline(res)
    unit, tolerance = o["unit"], o["tolerance"]
    points = default_rows(res.table("convergence.csv"))
    r.heading("How fast does the ranking settle on this test set's ranking? (the paper's Figures 2 and 3)")
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
        adj = f"Bonferroni-adjusted {v['level']:.1%} intervals"
        over = "over resampled test sets" if v["count"] else "over this test set's orders"
        auc = ci(v["value"], v["low"], v["high"], "{:.1f}")
        drawn = res.verdict("random_gold_spread", ranking="aggregate", metric=p.metric, average=average,
                            statement="auc")
        spread = (f" One random annotator (a draw, not a candidate): AUC {drawn[0]['low']:.1f} to "
                  f"{drawn[0]['high']:.1f} over its {drawn[0]['count']} draws." if drawn else "")
        if v["statement"] == "fastest":
            r.paragraph(f"**{average}**: {strategy_label(v['subject'][0])} settles fastest on this test set's own "
                        f"ranking (self-consistency, not closeness to the truth), AUC {auc}: its paired differences "
                        f"in AUC with every other strategy are below zero {over} ({adj}).{spread}")
        else:
            lowest = "mean AUC over resampled test sets" if v["count"] else "AUC"
            r.paragraph(f"**{average}**: no strategy settles fastest: {names(v['subject'])} are tied: their paired "
                        f"AUC differences with {strategy_label(v['subject'][0])} (the lowest {lowest}; AUC on this "
                        f"test set's orders {auc}) have {adj} {over} that include zero.{spread}")
        if v["count"] and average == "macro":
            r.paragraph(f"The golds are compared over {v['count']} test sets resampled from this one ("
                        f"{_resampled(res)}, "
                        f"{res.meta.get('gold_orders', 10)} orders each; strategy_comparison.csv, columns "
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


def _ranking_methods(r: Report, res: StudyResult) -> None:
    """The comparison of ranking methods (only when the study ran several)."""
    boot_unit, _ = bootstrap_units(res)
    ranking_methods_section(r, res, schemes=[headline(res).with_average("macro")], case="image",
                            unit=res.options["unit"], test_unit=boot_unit,
                            convergence_figure="figures/fig_03_macro_convergence")


def _per_case(r: Report, res: StudyResult) -> None:
    """The headline gold and metric's macro leaderboard seen case by case: rank intervals and the per-case figures."""
    p = headline(res)
    head = "The official" if p.official else "The headline"
    case_leaderboards_section(
        r, res, heading=f"{head} leaderboard case by case", max_rows=15, unit=bootstrap_units(res)[0],
        intro=f"{p.gold_title[:1].upper() + p.gold_title[1:]}'s macro {p.metric_label} leaderboard ({p.gold}; one "
              "score per image), ranked "
              "as a per-case table would be (challengeR's views; aggregate-then-rank and rank-then-aggregate where "
              "chosen: the test-based ranking's bootstrap ranks are in rank_distribution.csv). ")


_SECTIONS = {"conclusions": _conclusions, "overview": _overview, "leaderboard": _leaderboard,
             "significance": _significance, "unlimited": _unlimited, "convergence": _convergence,
             "gold_agreement": gold_agreement_section, "table4": table4_section, "fits": fits_section,
             "truth": truth_section, "ranking_methods": _ranking_methods, "per_case": _per_case,
             "metrics": metrics_section, "labels": labels_section}
for _name, _section in _SECTIONS.items():  # the report's order
    register_section(STUDY, _section, name=_name)
