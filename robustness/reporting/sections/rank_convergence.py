"""The main job's report: every section reads the results folder (tables, and the verdicts for its findings)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

import numpy as np
import pandas as pd

from robustness.errors import parameter
from robustness.overlap.gold import STRATEGIES
from robustness.overlap.metrics import METRICS
from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import (
    default_rows,
    size_target_of,
)
from robustness.reporting.sections.rank_convergence_agreement import (
    bootstrap_units,
    fits_section,
    gold_agreement_section,
    headline,
    labels_section,
    metrics_section,
    paper_data,
    table4_section,
    truth_section,
)
from robustness.reporting.sections.rank_convergence_resolution import resolution_section, size_bullet
from robustness.reporting.sections.rank_convergence_uncertainty import (
    convergence_section,
    significance_section,
    unlimited_section,
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
from robustness.results.meta import MainJobMeta
from robustness.results.study_result import StudyResult
from robustness.scheme import DEFAULT, Scheme, metric_label, set_by_organiser
from robustness.statistics.ranks import format_target, same_target
from robustness.statistics.size_answers import compare_answers, comparison_fields

STUDY = "rank_convergence"
register_study(STUDY, "Leaderboard robustness report")


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
    m = MainJobMeta.of(res)
    reading = m.reading or {}  # how the job read its input (meta.json, named fields)
    t = m.target or {}
    target = f" --target {t['l1']:g}" if set_by_organiser(t) else ""
    parts, like = ["python -m experiments.design_study --quick"], "--like"
    if _synthetic(m.reading):  # the embedded synthetic challenge: the design study's generator, of its shape
        return " ".join(parts + [shlex.quote(str(token)) for token in reading.get("synthetic") or []]) + target
    if _folder_unknown(m.reading):  # the folder is the reader's to name (_design_pointer says so)
        return " ".join([*parts, like, "FOLDER"]) + target
    folder = str(reading["folder"])
    parts += [shlex.quote(f"{like}={folder}") if folder.startswith("-") else f"{like} {shlex.quote(folder)}",
              "--layout", shlex.quote(str(reading["layout"]))]
    if "data_options" in reading:  # the command's own tokens for the options it read the challenge with
        parts += [shlex.quote(str(token)) for token in reading["data_options"]]
    for name, value in (reading.get("options") or {}).items():  # a folder written before 2026-12-06
        name = RENAMED_OPTIONS.get(name, name)  # a folder of an earlier version records the option's old name
        text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        parts.append(f"--{name}" if value is True else f"--{name} {shlex.quote(text)}")
    return " ".join(parts) + target


def _synthetic(reading: Mapping | None) -> bool:
    """Whether the main job read the embedded synthetic challenge (a folder before 2026-12-06: no folder named)."""
    if reading is None:
        return False
    return reading.get("synthetic") is not None if "synthetic" in reading else not reading.get("folder")


def _folder_unknown(reading: Mapping | None) -> bool:
    """Whether the results name no folder for the design study: a Python caller's, or masks given apart."""
    return not _synthetic(reading) and not (reading or {}).get("folder")


_PRIMARY = parameter("RankConvergenceOptions", "primary")


def _design_pointer(res: StudyResult) -> str:
    """The design-study command in a sentence, saying what FOLDER is where a Python caller ran the study."""
    said = f"`{design_command(res)}` (recommendation.md)"
    if _folder_unknown(MainJobMeta.of(res).reading):
        said += ", FOLDER being this challenge's folder, with the options that read it"
    return said


#: Data options renamed since earlier versions recorded them in meta.json (their old names still work, with a warning).
RENAMED_OPTIONS = {"systems": "runs"}


def _conclusions(r: Report, res: StudyResult) -> None:
    """What to conclude: at most six bullets, each read from a verdicts row (the sections below hold the rest)."""
    p = headline(res)
    unit, _ = bootstrap_units(res)
    key = dict(strategy=p.strategy, metric=p.metric, average=p.average)
    scheme = p.label
    items = []
    if res.warnings:
        items.append(f"**Read the warnings first** (next section): {len(res.warnings)} thing(s) the loader or the "
                     "checks found in the input may change what the numbers mean.")
    pairs, nb = res.verdict("pairs_differ", **key), res.verdict("neighbours_differ", **key)
    if pairs and nb:
        n = nb[0]
        items.append(phrase("pairs_differ", "headline", pairs[0], scheme=scheme,
                         neighbours=separable_text(int(n["count"]), int(n["total"]))))
    best = res.verdict("best_is_best", **key)
    if best:
        b = best[0]
        tied = b["statement"] == "tied"
        items.append(phrase("best_is_best", "tied", b, leaders=names(b["subject"])) if tied else
                     phrase("best_is_best", "best", b))
    moved, order = _winner_bullet(res, p), _order_sentence(res, p)
    if moved or order:
        items.append(" ".join(x for x in (moved, order) if x))
    size = size_bullet(res, design=_design_sentence(res))
    if size:
        items.append(size)
    truth = res.verdict("truth_best", metric=p.metric, average=p.average)
    if truth:
        t = truth[0]
        words = dict(metric_label=p.metric_label, unit=unit, design=_design_pointer(res))
        best_gold = t["statement"] == "best"
        items.append(phrase("truth_best", "best", t, gold=strategy_label(t["subject"][0]), **words) if best_gold
                     else phrase("truth_best", "tied", t, golds=names(t["subject"]), **words))
    else:
        why = (f"{p.metric_label} is not computed against the true masks: truth.csv compares the golds under the "
               "overlap metrics" if res.has("truth.csv") else "there is no truth")
        design = (f"its recommendation.md in {given['folder']} (the design study this job was given)."
                  if (given := MainJobMeta.of(res).design_answer) else f"{_design_pointer(res)}.")
        items.append(phrase("truth_best", "unknown", why=why, design=design))
    r.heading("What to conclude")
    r.bullets(items[:6])


def separable_text(count: int, total: int) -> str:
    """How many neighbouring places the significance analysis establishes, in words that fit every count.

    Parameters
    ----------
    count : int
        Neighbouring pairs that differ.
    total : int
        Neighbouring pairs.

    Returns
    -------
    str

    Examples
    --------
    >>> separable_text(1, 1)
    '1 of the 1 pair of leaderboard neighbours: the one neighbouring place is established.'
    """
    pairs = "pair" if total == 1 else "pairs"
    head = f"{count} of the {total} {pairs} of leaderboard neighbours: "
    if total == 1:
        return head + ("the one neighbouring place is established." if count else
                       "the one neighbouring place is not established.")
    if count == total:
        return head + "every neighbouring place is established."
    return head + ("neighbouring places are not established." if count == 0 else
                   "the other neighbouring places are not established.")


def _scheme_text(v: dict) -> str:
    return f"{strategy_label(v['strategy'])}, {v['average']} {metric_label(v['metric'])}"


def _design_sentence(res: StudyResult) -> str:
    """The design study's twin beside this job's answers (``--design DIR``; empty without it): one sentence.

    Its resolution at the challenge's size against this job's, and its size for the rank target against this
    job's, for majority, micro Jaccard (the scheme the twin is fitted to); nothing is compared where the twin
    failed its fit.
    """
    d = MainJobMeta.of(res).design_answer
    if not d:
        return ""
    if d.get("fit_failed"):  # two answers agree only when both rest on fits that passed
        return (f"The design study in {d['folder']} planned with a twin that failed its fit ("
                f"{parameter('prepare', 'force')}=True: "
                f"{'; '.join(d['fit_failed'])}): its answers are not compared with this job's.")
    parts = []
    twin = d.get("resolution")
    own = res.table("resolution.csv") if res.has("resolution.csv") else None
    if twin is not None and own is not None:
        o = own[(own.strategy == DEFAULT.strategy) & (own.metric == DEFAULT.metric) & (own.average == DEFAULT.average)
                & (own.units == own.test_units)]
        if len(o):
            o = o.iloc[0]
            agree = (twin["resolution_low"] <= o.resolution_high and o.resolution_low <= twin["resolution_high"])
            parts.append(f"resolution {twin['resolution']:.3g} ({twin['resolution_low']:.3g} to "
                         f"{twin['resolution_high']:.3g}) against this job's {o.resolution:.3g}: "
                         + ("they agree" if agree else "they differ"))
    own_size = res.table("test_set_size.csv")
    own_size = own_size[(own_size.strategy == DEFAULT.strategy) & (own_size.metric == DEFAULT.metric)
                        & (own_size.average == DEFAULT.average)]
    target = size_target_of(res)
    if own_size.empty or not same_target(d["target"], target):
        parts.append(f"its size answers a target of L1 <= {format_target(d['target'])}, not compared")
    else:
        compared = compare_answers({"main_answer": own_size, "sizes": pd.DataFrame([d["twin"]])})
        if compared is not None:
            v = comparison_fields(compared)
            low, high, largest = (float(x) for x in v["subject"])
            def size(x: float) -> str:  # nan: beyond the search; negative: at most (recommendation's sizes)
                return f"more than {largest:.0f}" if not np.isfinite(x) else f"at most {-x:.0f}" if x < 0 else \
                    f"{x:.0f}"

            twin_size = f"{size(low)} to {size(high)}"
            parts.append(f"L1 <= {format_target(target)} needs {twin_size} {d['unit']}s there: "
                         + ("it agrees" if v["statement"] == "overlap" else "it differs"))
    if not parts:
        return ""
    return (f"The design study's twin ({d['folder']}; {DEFAULT.strategy}, {DEFAULT.average} "
            f"{metric_label(DEFAULT.metric)}): " + "; ".join(parts) + ".")


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
            how = (phrase("metric_tau", "same_order") if v["statement"] == "agree" else
                   phrase("metric_tau", "orders_differ") if v["statement"] == "differ" else
                   phrase("metric_tau", "tied_order"))
            tail = first_place(boards, "metric", v["metric"], lead) if lead else ""
            said.append(phrase("metric_tau", "conclusion", v, metric=metric_label(v["metric"]), how=how,
                               interval=ci(v["value"], v["low"], v["high"], "{:.2f}"),
                               first=", and " + tail if tail else ""))
        parts.append(phrase("metric_tau", "conclusions", metric_label=p.metric_label, gold=p.strategy_label,
                            said="; ".join(said)))
    labels = res.verdict("label_tau")
    if labels:
        differ = [v for v in labels if v["statement"] == "differ"]
        pairs = ", ".join(phrase("label_tau", "moved", v) for v in differ)
        parts.append(phrase("label_tau", "conclusion", differ=len(differ), pairs=len(labels),
                            which=_moved_labels(pairs, len(labels) - len(differ))))
    return " ".join(parts) or None


def _moved_labels(pairs: str, tied: int) -> str:
    """The pairs of labels that order the runs differently, and how many are tied, in parentheses."""
    if not pairs:
        return " (every pair is tied)"
    return f" ({pairs}; {tied} tied)" if tied else f" ({pairs})"


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
    decides = phrase("winner_by_scheme", "decides")
    if moves:
        said = "; ".join(phrase("winner_by_scheme", "moves", v, scheme=_scheme_text(v), lead=lead) for v in moves[:4])
        more = f" (and {len(moves) - 4} more schemes)" if len(moves) > 4 else ""
        return (phrase("winner_by_scheme", "moves_bullet", lead=lead, headline=p.label, moves=said, more=more)
                + (phrase("winner_by_scheme", "may_move_too", schemes=_schemes_text(maybe)) if maybe else "") + decides)
    if maybe:
        return phrase("winner_by_scheme", "may_move_bullet", schemes=_schemes_text(maybe), lead=lead) + decides
    return phrase("winner_by_scheme", "stays_bullet", tried=len(rows), lead=lead)


def _overview(r: Report, res: StudyResult) -> None:
    """What was studied and how."""
    o, m = res.options, MainJobMeta.of(res)
    images = res.table("images.csv")
    per_image = images.annotators.value_counts().sort_index()
    boot_unit, _ = bootstrap_units(res)
    grouped = f" in {m.encounters} encounters" if m.encounters != m.images else ""
    if m.labels:  # multi-label volumes: an image is one label of one file, its encounter the file
        kind = "volumes" if m.volumes else "images"
        how = (f"the bootstrap resamples {kind} with all their labels" if boot_unit == "encounter" else
               "the bootstrap resamples label masks one by one")
        regions = m.regions
        named = (", ".join(f"{n} (labels {'+'.join(map(str, v))})" for n, v in regions.items()) if regions else
                 ", ".join(map(str, m.labels)))
        grouped = (f" ({m.encounters} {kind} x {len(m.labels)} {'regions' if regions else 'labels'} "
                   f"{named}; {how})")
        r.paragraph(f"Input: {m.source} — {m.images} label masks per run{grouped}, "
                    f"{m.runs} runs, annotators per label mask: "
                    + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    elif m.volumes:
        r.paragraph(f"Input: {m.source} — {m.images} volumes{grouped}, {m.runs} runs, annotators "
                    "per volume: " + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    else:
        r.paragraph(f"Input: {m.source} — {m.images} images{grouped}, "
                    f"{m.runs} runs, annotators per image: "
                    + ", ".join(f"{k} on {v}" for k, v in per_image.items()) + ".")
    r.paragraph(f"Settings: {o['orders']} random orders (unit: {o['unit']}), {o['bootstrap']} bootstrap resamples "
                f"(unit: {boot_unit}), seed {o['seed']}, both-empty pairs score: {m.empty_policy}.")
    r.paragraph(_headline_sentence(res))
    if paper_data(res):  # elsewhere each section names the overview with its reference where it applies
        r.paragraph("\"The paper\" below is the MEDIQA-MAGIC 2025 task overview (ImageCLEF 2025, CLEF 2025 Working "
                    "Notes, CEUR-WS): its Figures 2 and 3 (the convergence curves) and Table 4 (the distance from the "
                    "annotators' spread) are the analyses some sections repeat on its data.")
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
    if set_by_organiser(res.meta.get("primary")):
        why = f"the organiser's choice ({_PRIMARY})"
    elif p.official:
        why = f"the official scorer's leaderboard on this layout; another with {_PRIMARY} STRATEGY:METRIC:AVERAGING"
    else:
        why = ("the package's default, not this challenge's decision: name the challenge's own with "
               f"{_PRIMARY} STRATEGY:METRIC:AVERAGING")
    direction = "lower is better" if p.lower_better else "higher is better"
    return (f"Headline scheme: {p.label} ({p.text}; {direction}), {why}. The leaderboard, the significance "
            "analysis, the distance to unlimited data and the conclusions are about it; every other gold, metric "
            "and averaging is in the tables.")


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
    sel = ci_table[(ci_table.strategy == p.strategy) & (ci_table.metric == p.metric)
                   & (ci_table.average == p.average)].set_index("run")
    tab = board[[c for c in dict.fromkeys(_leaderboard_columns(p, board.columns)) if c in board]].copy()
    tab.insert(0, "rank", [f"{x:g}" for x in sel.loc[tab.index, "rank"]])
    tab[f"{'_'.join(p.key)} 95% CI"] = [f"[{sel.loc[s, 'low']:.4f}, {sel.loc[s, 'high']:.4f}]" for s in tab.index]
    tab = tab.reset_index().rename(columns={"index": "run"})
    tab.columns = [str(c).replace("_", " ") for c in tab.columns]  # readable headers that can wrap
    r.table(tab, max_rows=15, caption=(
        f"95% CI: {interval_name(sel)} over {n_units} {boot_unit}s ({o['bootstrap']} resamples, paired across "
        f"runs); ranks tie within 1e-12 ({o.get('ties', 'average')} ranks). "
        "Neighbouring runs whose intervals overlap may still "
        "differ; the next section tests every pair."))
    r.figure("figures/fig_04_forest.png", f"Every run's score with its 95% {interval_name(sel)} interval over "
             f"{boot_unit}s, under {p.gold_title} ({p.strategy_label}), "
             f"{' and '.join(p.averages)} {p.metric_label}.")
    r.figure("figures/fig_05_rank_blobs.png", f"How often each run takes each rank over {o['bootstrap']} bootstrap "
             "resamples (dot area: share of resamples); x marks the rank on the full test set.")


def _leaderboard_columns(p: Scheme, columns) -> list[str]:
    """The leaderboard's columns: the headline scheme's, its gold under the other metrics, then over annotators.

    The other metrics under the same averaging, then the headline metric's macro scores over annotators (the golds
    that score a run against each annotator).
    """
    out = ["_".join(p.key)] + [f"{p.strategy}_{m}_{p.average}" for m in METRICS]
    for c in columns:
        gold, _, rest = str(c).partition("_")
        if rest == f"{p.metric}_macro" and gold in _annotator_golds():
            out.append(c)
    return [c for c in dict.fromkeys(out) if c in columns]


def _annotator_golds() -> set:
    return {name for name, g in STRATEGIES.items() if g.macro_only}


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
        intro=f"{p.gold_title[:1].upper() + p.gold_title[1:]}'s macro {p.metric_label} leaderboard ({p.strategy}; one "
              "score per image), ranked "
              "as a per-case table would be (challengeR's views; aggregate-then-rank and rank-then-aggregate where "
              "chosen: the test-based ranking's bootstrap ranks are in rank_distribution.csv). ")


_SECTIONS = {"conclusions": _conclusions, "overview": _overview, "leaderboard": _leaderboard,
             "significance": significance_section, "resolution": resolution_section,
             "unlimited": unlimited_section, "convergence": convergence_section,
             "gold_agreement": gold_agreement_section, "table4": table4_section, "fits": fits_section,
             "truth": truth_section, "ranking_methods": _ranking_methods, "per_case": _per_case,
             "metrics": metrics_section, "labels": labels_section}
for _name, _section in _SECTIONS.items():  # the report's order
    register_section(STUDY, _section, name=_name)
