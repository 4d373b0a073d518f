"""The per-case table study's report (``table_rank_convergence``)."""

from __future__ import annotations

from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import default_rows, size_target_of, unlimited_sentence
from robustness.reporting.sections.rankings import case_leaderboards_section, ranking_methods_section
from robustness.reporting.sections.registry import ci, interval_name, register_section, register_study
from robustness.results.meta import TableMeta
from robustness.results.study_result import StudyResult
from robustness.statistics.ranks import format_target, same_target, target_text

STUDY = "table_rank_convergence"
SHOWN_SCHEMES = 4
register_study(STUDY, "Per-case table: leaderboard robustness")


def _leaderboards(r: Report, res: StudyResult) -> None:
    """Every task's leaderboard under every ranking method, with bootstrap rank intervals, and the consensus."""
    case_leaderboards_section(r, res)


def _tolerance(res: StudyResult, point: dict, n_runs: int) -> str:
    """A convergence point's tolerance in prose, with the size target's rule where it is the target."""
    t = float(point["subject"][0])
    target = size_target_of(res)
    return target_text(t, n_runs) if same_target(t, target) else format_target(t)


def _schemes(r: Report, res: StudyResult) -> None:
    """Every scheme of the table: intervals, convergence points, significance, distance to unlimited data."""
    if not res.has("bootstrap_ci.csv"):
        return
    o, m = res.options, TableMeta.of(res)
    names = list(m.schemes)
    n_runs, unit = m.runs, m.unit
    r.paragraph(f"Input: {m.table} — {n_runs} algorithms, {m.units} units ({unit}), {len(names)} "
                f"scheme(s); {o['orders']} orders, {o['bootstrap']} resamples, seed {o['seed']}.")
    ci_table = default_rows(res.table("bootstrap_ci.csv"))
    ci_table = ci_table[ci_table.reported]
    for strat, metric, average in names:
        key = dict(strategy=strat, metric=metric, average=average)
        c = ci_table[(ci_table.strategy == strat) & (ci_table.metric == metric)].sort_values("score", ascending=False)
        points = res.verdict("convergence_point", **key)
        auc = res.verdict("curve_auc", **key)[0]
        pairs, n = res.verdict("pairs_differ", **key)[0], res.verdict("neighbours_differ", **key)[0]
        r.heading(f"{strat} / {metric}")
        r.table(c[["run", "score", "low", "high", "rank"]],
                caption=f"95% {interval_name(c)} intervals over {unit}s.")
        said = ", ".join(phrase("convergence_point", "reached" if x["statement"] == "reached" else "only_at_n", x,
                                tolerance=_tolerance(res, x, n_runs)) for x in points)
        r.paragraph(phrase("convergence_point", "points", points=said, auc=ci(auc["value"], auc["low"], auc["high"],
                                                                               "{:.2f}"),
                           pairs=pairs["count"], total=pairs["total"], neighbours=n["total"],
                           neighbours_differ=n["count"]))
        r.paragraph(unlimited_sentence(res, (strat, metric, average), n_runs, unit))
    r.figure("figures/fig_08_table_convergence.png", "L1 rank change vs number of units, one line per scheme.")


def _ranking_methods(r: Report, res: StudyResult) -> None:
    """The comparison of ranking methods (only when the study ran several)."""
    if not res.has("bootstrap_ci.csv"):
        return
    m = TableMeta.of(res)
    ranking_methods_section(r, res, schemes=list(m.schemes)[:SHOWN_SCHEMES], case="case", unit=m.unit,
                            test_unit=m.unit,
                            convergence_figure="figures/fig_08_table_convergence",
                            agreement_file="agreement.csv")


for _name in ("leaderboards", "schemes", "ranking_methods"):
    register_section(STUDY, globals()[f"_{_name}"], name=_name)
