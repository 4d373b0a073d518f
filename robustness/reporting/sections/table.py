"""The per-case table study's report (``table_rank_convergence``)."""

from __future__ import annotations

from robustness.reporting.document import Report
from robustness.reporting.sections.common import default_rows, unlimited_sentence
from robustness.reporting.sections.rankings import ranking_methods_section
from robustness.reporting.sections.registry import ci, interval_name, register_section, register_study
from robustness.reporting.study_result import StudyResult

STUDY = "table_rank_convergence"
SHOWN_SCHEMES = 4
register_study(STUDY, "Per-case table: leaderboard robustness")


def _leaderboards(r: Report, res: StudyResult) -> None:
    """Every task's leaderboard under every ranking method, with bootstrap rank intervals, and the consensus."""
    if not res.has("ranking.csv"):
        return
    ranking, boot, freq = (res.table(n) for n in ("ranking.csv", "rank_bootstrap.csv", "rank_frequency.csv"))
    o = res.options
    r.heading("Leaderboards")
    r.paragraph(f"Ranking options: {res.meta.get('ranking_options_text', '')}. Rank intervals: 2.5% and 97.5% "
                f"quantiles of the rank over {o['bootstrap']} bootstrap resamples of the units (cases, or the "
                "unit column), each ranked with the same options; they are about a new test set drawn like this "
                "one. Runs whose rank intervals overlap are not distinguished by this test set.")
    merged = ranking.merge(boot[["task", "ranking", "run", "median_rank", "low", "high"]],
                           on=["task", "ranking", "run"], how="left")
    for (task, method), g in merged.groupby(["task", "ranking"], sort=False):
        g = g.sort_values(["rank", "run"], kind="stable")
        shown = g[["run", "value", "rank", "median_rank", "low", "high"]].rename(
            columns={"median_rank": "median rank", "low": "rank 2.5%", "high": "rank 97.5%"})
        top = g[g.low <= 1]
        firsts = freq[(freq.task == task) & (freq.ranking == method) & (freq["rank"] == 1)].set_index("run").share
        share = {run: float(firsts.get(run, 0.0)) for run in top.run}
        if len(top) == 1 and top.high.iloc[0] <= 1:
            lead = f"{top.run.iloc[0]} is first in at least 97.5% of resamples"
        elif len(top) == 1:
            lead = (f"{top.run.iloc[0]} is the only run whose 95% rank interval includes first place (ranked 1 "
                    f"alone in {share[top.run.iloc[0]]:.0%} of resamples)")
        else:
            lead = (f"tied at the top: {', '.join(top.run)} (their 95% rank intervals include first place; ranked "
                    "1 alone in " + ", ".join(f"{v:.0%}" for v in share.values()) + " of resamples)")
        r.heading(f"{task}: {method}", level=3)
        r.table(shown, floatfmt="{:.4g}", caption=f"{len(g)} runs; {lead}.")
    if res.has("consensus.csv"):
        c = res.table("consensus.csv")
        r.heading("Consensus across tasks", level=3)
        r.paragraph(f"{c.consensus.iloc[0]}: runs ordered by their mean (or median) rank over the "
                    f"{ranking.task.nunique()} tasks (challengeR's euclidean consensus; the BraTS ranking). A run "
                    "absent from a task counts there as one place below that task's last.")
        for method, g in c.groupby("ranking", sort=False):
            top = g[g.low <= 1]
            if len(top) == 1:
                lead = (f"{top.run.iloc[0]} is first in at least 97.5% of resamples" if top.high.iloc[0] <= 1 else
                        f"{top.run.iloc[0]} is the only run whose 95% interval of the consensus rank includes first "
                        "place")
            else:
                lead = (f"tied at the top: {', '.join(top.run)} (their 95% intervals of the consensus rank include "
                        "first place)")
            shown = g[["run", "value", "rank", "median_rank", "low", "high", "absent"]].rename(
                columns={"value": "mean rank" if c.consensus.iloc[0] == "mean-rank" else "median rank over tasks",
                         "median_rank": "median rank", "low": "rank 2.5%", "high": "rank 97.5%"})
            r.table(shown, floatfmt="{:.3g}", caption=f"{method}: {lead}. Intervals: every task's cases resampled "
                    f"independently, {int(g.resamples.iloc[0])} times.")
    for name, caption in (("fig_22_rank_blobs_tasks", "Bootstrap rank distributions per task and method (blob "
                           "area: share of resamples; black: median and 95% interval; red x: the full set's rank)."),
                          ("fig_16_podium", "Podium: per-case scores by place, and per-case rank counts."),
                          ("fig_17_ranking_heatmap", "Ranking heatmap: runs against their rank on each case."),
                          ("fig_18_bootstrap_tau", "Kendall's tau between each ranking and its resamples'."),
                          ("fig_19_ranking_methods", "Each run's rank under every ranking method."),
                          ("fig_20_dot_box", "Per-case scores by run (dots and box plots)."),
                          ("fig_21_rank_frequency", "Shares of resamples at each rank (stacked).")):
        r.figure(f"figures/{name}.png", caption)


def _schemes(r: Report, res: StudyResult) -> None:
    """Every scheme of the table: intervals, convergence points, significance, distance to unlimited data."""
    if not res.has("bootstrap_ci.csv"):
        return
    o, inp = res.options, res.meta["input"]
    names = [tuple(n) for n in inp["schemes"]]
    n_runs, unit = inp["runs"], inp["unit"]
    r.paragraph(f"Input: {inp['table']} — {n_runs} algorithms, {inp['units']} units ({unit}), {len(names)} "
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
        r.table(c[["system", "score", "low", "high", "rank"]],
                caption=f"95% {interval_name(c)} intervals over {unit}s.")
        r.paragraph("Convergence points (95% of orders, with their 95% intervals over orders): "
                    + ", ".join(f"L1 <= {x['subject'][0]} at n = {x['value']:.0f} ({x['low']:.0f}-{x['high']:.0f})"
                                if x["statement"] == "reached" else f"L1 <= {x['subject'][0]} only at n = N"
                                for x in points)
                    + f"; area under the mean L1 curve {ci(auc['value'], auc['low'], auc['high'], '{:.2f}')}."
                    + f" Paired t-test (delta-method SE), Holm: {pairs['count']} of {pairs['total']} pairs differ; "
                    f"of {n['total']} neighbouring pairs {n['count']} differ, the rest: no evidence of a difference.")
        r.paragraph(unlimited_sentence(res, (strat, metric, average), n_runs, unit))
    r.figure("figures/fig_08_table_convergence.png", "L1 rank change vs number of units, one line per scheme.")


def _ranking_methods(r: Report, res: StudyResult) -> None:
    """The comparison of ranking methods (only when the study ran several)."""
    if not res.has("bootstrap_ci.csv"):
        return
    inp = res.meta["input"]
    ranking_methods_section(r, res, schemes=[tuple(n) for n in inp["schemes"]][:SHOWN_SCHEMES], case="case",
                            unit=inp["unit"], test_unit=inp["unit"],
                            convergence_figure="figures/fig_08_table_convergence",
                            agreement_file="agreement.csv")


for _name in ("leaderboards", "schemes", "ranking_methods"):
    register_section(STUDY, globals()[f"_{_name}"], name=_name)
