"""The closed-QA study's report (``qa_rank_convergence``)."""

from __future__ import annotations

import pandas as pd

from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import default_rows, size_target_of, unlimited_sentence
from robustness.reporting.sections.rankings import ranking_methods_section
from robustness.reporting.sections.registry import ci, interval_name, register_section, register_study
from robustness.results.meta import QAMeta
from robustness.results.study_result import StudyResult
from robustness.statistics.ranks import format_target, target_rule

STUDY = "qa_rank_convergence"
SCHEME = ("gold", "all", "macro")
register_study(STUDY, "Closed-QA leaderboard robustness report")


def _n_runs(res: StudyResult) -> int:
    return len(QAMeta.of(res).runs)


def _leaderboard(r: Report, res: StudyResult) -> None:
    """What was studied, and the official leaderboard with bootstrap intervals."""
    o, m = res.options, QAMeta.of(res)
    r.paragraph(f"Input: {m.source} — {m.encounters} encounters, {len(m.runs)} runs; {o['orders']} random "
                f"orders and {o['bootstrap']} bootstrap resamples of encounters, seed {o['seed']}.")
    r.heading("Leaderboard (official partial-credit accuracy)")
    ci_table = default_rows(res.table("bootstrap_ci.csv"))
    ci_table = ci_table[ci_table.reported]
    sel = ci_table[ci_table.metric == "all"].set_index("run")
    tab = res.table("leaderboard.csv")[["accuracy_all"]].copy()
    tab["95% CI"] = [f"[{sel.loc[x, 'low']:.4f}, {sel.loc[x, 'high']:.4f}]" for x in tab.index]
    r.table(tab.reset_index(), caption=f"95% CI: {interval_name(sel)} over the {m.encounters} encounters.")


def _convergence(r: Report, res: StudyResult) -> None:
    """Rank convergence of accuracy_all and the distance to unlimited data (verdicts)."""
    n_runs = _n_runs(res)
    key = dict(zip(("strategy", "metric", "average"), SCHEME))
    points = {v["subject"][0]: v for v in res.verdict("convergence_point", **key)}
    target = size_target_of(res)
    lenient, strict = points[f"{target:g}"], points[f"{float(res.options['tolerance']):g}"]
    auc = res.verdict("curve_auc", **key)[0]
    r.heading("Rank convergence (accuracy_all)")
    exact = phrase("convergence_point", "exact", strict) if strict["statement"] == "reached" else \
        phrase("convergence_point", "exact_only_at_n")
    r.paragraph(phrase("convergence_point", "qa", lenient, target=format_target(target),
                       rule=target_rule(target, n_runs), exact=exact,
                       auc=ci(auc["value"], auc["low"], auc["high"], "{:.1f}")))
    r.paragraph(unlimited_sentence(res, SCHEME, n_runs, "encounter"))


def _significance(r: Report, res: StudyResult) -> None:
    """Which runs differ (verdicts ``pairs_differ``, ``neighbours_differ``)."""
    key = dict(zip(("strategy", "metric", "average"), SCHEME))
    pairs = res.verdict("pairs_differ", **key)[0]
    n = res.verdict("neighbours_differ", **key)[0]
    same = n["subject"]
    r.heading("Which runs differ?")
    r.paragraph(phrase("pairs_differ", "qa", pairs, neighbours=n["total"], neighbours_differ=n["count"],
                       rest=n["total"] - n["count"], same=": " + ", ".join(same) if same else ""))


def _table5(r: Report, res: StudyResult) -> None:
    """Table 5: how runs over- or under-answer, with intervals."""
    counts = res.table("answer_counts.csv")
    t5 = counts[~counts.include_not_mentioned].drop(columns="include_not_mentioned")
    r.heading("Table 5: mean difference in the number of distinct answers (run - gold, without 'Not mentioned')")
    parents = [c for c in t5.columns if c.startswith("CQID") and not c.endswith(("_low", "_high"))]
    shown = pd.DataFrame({"run": t5.run} | {
        p: [ci(v, lo, hi, "{:+.2f}") for v, lo, hi in zip(t5[p], t5[f"{p}_low"], t5[f"{p}_high"])] for p in parents})
    r.table(shown, caption="Per encounter, distinct answers of the run minus the gold's, averaged over encounters; "
                           "95% percentile bootstrap intervals over encounters. Negative: the run answers less.")
    r.figure("figures/fig_07_qa_convergence.png",
             "L1 rank change vs number of test encounters: accuracy over all questions (black, band: 90% of orders) "
             "and each parent question (thin).")


def _ranking_methods(r: Report, res: StudyResult) -> None:
    """The comparison of ranking methods (only when the study ran several)."""
    ranking_methods_section(r, res, schemes=[SCHEME], case="encounter", unit="encounter", test_unit="encounter",
                            convergence_figure="figures/fig_07_qa_convergence")


for _name in ("leaderboard", "convergence", "significance", "table5", "ranking_methods"):
    register_section(STUDY, globals()[f"_{_name}"], name=_name)
