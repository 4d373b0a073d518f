"""The report section that compares ranking methods, shared by the three resampling studies.

Every number comes from a table of the results folder (bootstrap_ci.csv, the
agreement table, stability.csv, convergence.csv) and every finding from a
verdict (``first_place``, ``method_agreement``, ``method_agreement_range``);
each method describes itself and formats its own statistic (the registry,
:mod:`robustness.statistics.ranking_methods`).
"""

from __future__ import annotations

import pandas as pd

from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import at_tolerance, convergence_cell, size_target_of
from robustness.reporting.sections.registry import ci, interval_name, strategy_label
from robustness.results.study_result import StudyResult
from robustness.statistics.ranking_methods import RANKING_METHODS, get_ranking
from robustness.statistics.ranks import format_target, target_text

__all__ = ["ranking_methods_section", "case_leaderboards_section"]


def _describe(r: Report, methods, *, case: str, test_unit: str, n_runs: int, test_step: int,
              options: dict | None = None) -> None:
    order = list(RANKING_METHODS)  # the registry's order, whatever the order of --ranking
    methods = sorted(methods, key=lambda m: order.index(m) if m in order else len(order))
    o = options or {}
    chosen = {k: o[k] for k in ("ties", "adjustment", "alpha", "aggregate", "test", "continuity") if k in o}
    parts = [get_ranking(m).describe(case=case, test_unit=test_unit, n_runs=n_runs, options=chosen) for m in methods]
    r.paragraph("The same per-case scores, three ways to a leaderboard (challengeR's families): " + "; ".join(parts)
                + ". Rank-then-aggregate and test-based need per-case scores: they exist for macro schemes only, "
                "and micro leaderboards are aggregate-then-rank; the significance analysis and the distance to "
                "unlimited data in the other sections are of the aggregate scores. Bootstrap intervals and stability "
                f"use the same resamples of {test_unit}s for every method (paired), and the tests use the {test_unit} "
                "as their unit because that is what the study resamples. Test-based curves add "
                f"{test_unit}s one at a time and record the prefixes in steps of {test_step} {test_unit}s (each "
                "recorded prefix reruns every test). On a bootstrap resample the tests count a repeated unit as "
                "independent evidence, so runs beaten tend to be higher there than on the test set: its intervals, "
                "and taus involving the test-based ranking, describe the spread over resamples and can sit "
                "off-centre from the full-set value.")


def _tau_text(tau: float, low: float, high: float) -> str:
    return ci(tau, low, high, "{:.2f}") if tau == tau else "undefined (a ranking ties every run)"


def ranking_methods_section(r: Report, res: StudyResult, *, schemes: list[tuple[str, str, str]], case: str,
                            unit: str, test_unit: str,
                            convergence_figure: str, agreement_file: str = "kendall_tau.csv") -> None:
    """Append the comparison of ranking methods under each scheme of ``schemes`` (strategy, metric, average).

    Nothing is added when the study ran one method only (the default report is unchanged).

    Parameters
    ----------
    r : Report
    res : StudyResult
    schemes : list of (strategy, metric, average)
    case, unit, test_unit : str
        What a case is, the unit of the curves of additive methods, and the unit of the tests.
    convergence_figure : str
        The per-method convergence figures' path without the ``_<method>.png`` suffix.
    agreement_file : str
        The table of Kendall's tau between rankings.
    """
    ci_table = res.table("bootstrap_ci.csv")
    ci_table = ci_table[ci_table.reported]
    methods = list(dict.fromkeys(ci_table.ranking))
    if len(methods) < 2:
        return
    points, stability = res.table("convergence.csv"), res.table("stability.csv")

    def sel(table, method, scheme):
        strat, metric, average = scheme
        return table[(table.ranking == method) & (table.strategy == strat) & (table.metric == metric)
                     & (table.average == average)]

    first = sel(ci_table, methods[0], schemes[0])
    n_runs, n_resamples = len(first), int(first.n_resamples.iloc[0])
    r.heading("How much does the ranking method change the leaderboard?")
    _describe(r, methods, case=case, test_unit=test_unit, n_runs=n_runs, test_step=res.options["test_step"],
              options=res.options)
    rows = []
    for scheme in schemes:
        strat, metric, average = scheme
        key = dict(strategy=strat, metric=metric, average=average)
        label = f"{strategy_label(strat)}, {average} {metric}"
        board = sel(ci_table, methods[0], scheme).set_index("run")
        table = pd.DataFrame(index=board.sort_values(["rank", "score"], ascending=[True, False]).index)
        for method in methods:
            kind = get_ranking(method)
            c = sel(ci_table, method, scheme).set_index("run").loc[table.index]
            table[f"{kind.statistic} ({kind.label})"] = [ci(v, lo, hi, kind.number_format)
                                                         for v, lo, hi in zip(c.score, c.low, c.high)]
            table[f"rank ({kind.name})"] = [f"{x:g}" for x in c["rank"]]
        r.table(table.reset_index(), max_rows=15, caption=(
            f"{label}: each run's statistic under each method with its 95% {interval_name(ci_table)} interval "
            f"({n_resamples} resamples of {test_unit}s, the same for every method), and its rank on the whole test "
            f"set (ties: {res.options.get('ties', 'average')} rank)."))
        items = [phrase("method_agreement", "bullet", v, method=get_ranking(a).label, other=get_ranking(b).label,
                        tau=_tau_text(v["value"], v["low"], v["high"]))
                 for v in res.verdict("method_agreement", **key) for a, b in [v["subject"]]]
        for v in res.verdict("first_place", **key):
            top, method = v["subject"], get_ranking(v["ranking"]).label
            items.append(phrase("first_place", "one", v, method=method) if len(top) == 1 else
                         phrase("first_place", "tied", v, method=method, tied=len(top), runs=", ".join(top[:5]),
                                more=", ..." if len(top) > 5 else ""))
        r.bullets(items)
        lenient = size_target_of(res)
        for method in methods:
            st = sel(stability, method, scheme).iloc[0]
            p = at_tolerance(sel(points, method, scheme), lenient).iloc[0]
            rows.append({"scheme": label, "method": get_ranking(method).label,
                         "stability: tau to the full-set ranking": _tau_text(st.tau_median, st.tau_low, st.tau_high),
                         "curves: unit": unit if get_ranking(method).additive else test_unit,
                         "AUC": ci(p.auc, p.auc_low, p.auc_high, "{:.1f}"),
                         f"n for L1 <= {format_target(lenient)}": convergence_cell(p)})
    strat, metric, average = schemes[0]
    for v in res.verdict("method_agreement_range", metric=metric, average=average):
        r.paragraph(phrase("method_agreement_range", "paragraph", v))
    r.figure("figures/fig_12_ranking_agreement.png",
             "Kendall's tau between the leaderboards of two ranking methods (macro), on the whole test set, with its "
             "95% bootstrap interval (both rankings recomputed on every resample).")
    r.table(pd.DataFrame(rows), caption=(
        "Stability: median Kendall's tau between the full-set ranking and the resamples' rankings, with the central "
        "95% of resamples. Curves: area under the mean L1 curve (95% Monte Carlo interval over orders) and the number "
        f"of units after which L1 stays within {target_text(size_target_of(res), n_runs)} in 95% of orders (95% "
        "interval over orders; 'only at N': only the whole test set reaches it). AUCs on "
        "different units or prefix steps are not comparable with each other."))
    for method in methods[1:]:
        r.figure(f"{convergence_figure}_{method}.png",
                 f"Rank convergence under {get_ranking(method).label}: L1 between the ranking on the first n units and "
                 "on all, under the same method.")


def _lead(g: pd.DataFrame, top: pd.DataFrame, share: dict) -> str:
    """Who leads one leaderboard: the runs whose rank interval includes first place, and how often each is first."""
    if g.low.isna().all():
        return "no rank intervals: one case, left out of the bootstrap"
    if len(top) == 1 and top.high.iloc[0] <= 1:
        return f"{top.run.iloc[0]} is first in at least 97.5% of resamples"
    if len(top) == 1:
        return (f"{top.run.iloc[0]} is the only run whose 95% rank interval includes first place (ranked 1 "
                f"alone in {share[top.run.iloc[0]]:.0%} of resamples)")
    return (f"tied at the top: {', '.join(top.run)} (their 95% rank intervals include first place; ranked "
            "1 alone in " + ", ".join(f"{v:.0%}" for v in share.values()) + " of resamples)")


def case_leaderboards_section(r: Report, res: StudyResult, *, heading: str = "Leaderboards", intro: str = "",
                              max_rows: int | None = None, unit: str | None = None) -> None:
    """Every leaderboard of ``ranking.csv`` under every ranking method, with bootstrap rank intervals.

    Also the consensus across tasks where there is one, and the per-case figures (podium, heatmap, blobs...).

    Parameters
    ----------
    r : Report
    res : StudyResult
    heading : str
    intro : str
        A sentence before the options (what the leaderboards are).
    max_rows : int, optional
        Rows shown per table (all in the CSV).
    unit : str, optional
        What the bootstrap resamples (default: the study's unit, or ``case``).
    """
    if not res.has("ranking.csv"):
        return
    ranking, boot, freq = (res.table(n) for n in ("ranking.csv", "rank_bootstrap.csv", "rank_frequency.csv"))
    o = res.options
    unit = unit or res.meta.get("input", {}).get("unit") or "case"
    r.heading(heading)
    r.paragraph(f"{intro}Ranking options: {res.meta.get('ranking_options_text', 'the study options')}. Rank "
                f"intervals: 2.5% and 97.5% quantiles of the rank over {o['bootstrap']} bootstrap resamples of the "
                f"{unit}s, each ranked with the same options; they are about a new test set drawn like this one. "
                "Runs whose rank intervals overlap are not distinguished by this test set.")
    merged = ranking.merge(boot[["task", "ranking", "run", "median_rank", "low", "high"]],
                           on=["task", "ranking", "run"], how="left")
    for (task, method), g in merged.groupby(["task", "ranking"], sort=False):
        g = g.sort_values(["rank", "run"], kind="stable")
        shown = g[["run", "value", "rank", "median_rank", "low", "high"]].rename(
            columns={"median_rank": "median rank", "low": "rank 2.5%", "high": "rank 97.5%"})
        top = g[g.low <= 1]
        firsts = freq[(freq.task == task) & (freq.ranking == method) & (freq["rank"] == 1)].set_index("run").share
        lead = _lead(g, top, {run: float(firsts.get(run, 0.0)) for run in top.run})
        r.heading(f"{task}: {method}", level=3)
        r.table(shown, floatfmt="{:.4g}", caption=f"{len(g)} runs; {lead}.", **({"max_rows": max_rows} if max_rows
                                                                                 else {}))
    if res.has("consensus.csv"):
        c = res.table("consensus.csv")
        r.heading("Consensus across tasks", level=3)
        how = {"mean-rank": "their mean rank over the tasks (the BraTS ranking)",
               "median-rank": "their median rank over the tasks",
               "borda": "their Borda score as R's relations package defines it (the sum over the tasks of the runs "
                        "ranked at or above the run, itself and those tied with it included; lower is better)",
               "copeland": "their Copeland score as R's relations package defines it (the sum over the tasks of the "
                           "runs ranked above the run minus those ranked below; lower is better)",
               "pairwise-majority": "their pairwise-majority score: every pair of runs compared by majority over "
                                    "the tasks, +1 for each run beaten, -1 for each run lost to (higher is better)",
               "euclidean": "their mean over the tasks of each task's ranks re-ranked with average ties (challengeR's "
                            "euclidean consensus)"}.get(c.consensus.iloc[0], "their consensus statistic")
        schemes = c["scheme"].fillna("").astype(str) if "scheme" in c else pd.Series("", index=c.index)
        r.paragraph(f"{c.consensus.iloc[0]}: runs ordered by {how}"
                    + (", each strategy and metric on its own (a consensus combines tasks, never metrics)"
                       if schemes.nunique() > 1 or (schemes != "").any() else "")
                    + ". A run absent from a task counts there as one place below that task's last.")
        for (scheme, method), g in c.assign(scheme=schemes).groupby(["scheme", "ranking"], sort=False):
            top = g[g.low <= 1]
            if len(top) == 1:
                lead = (f"{top.run.iloc[0]} is first in at least 97.5% of resamples" if top.high.iloc[0] <= 1 else
                        f"{top.run.iloc[0]} is the only run whose 95% interval of the consensus rank includes first "
                        "place")
            else:
                lead = (f"tied at the top: {', '.join(top.run)} (their 95% intervals of the consensus rank include "
                        "first place)")
            shown = g[["run", "value", "rank", "median_rank", "low", "high", "absent"]].rename(
                columns={"value": {"mean-rank": "mean rank", "euclidean": "mean rank (average ties)",
                                   "borda": "Borda score", "copeland": "Copeland score",
                                   "pairwise-majority": "pairwise-majority score"}.get(
                    c.consensus.iloc[0], "median rank over tasks"),
                         "median_rank": "median rank", "low": "rank 2.5%", "high": "rank 97.5%"})
            r.table(shown, floatfmt="{:.3g}", caption=f"{scheme + ', ' if scheme else ''}{method}: {lead}. Intervals: "
                    f"every task's cases resampled independently, {int(g.resamples.iloc[0])} times.")
    _top(r, res)
    _critical_difference(r, res)
    _significance(r, res)
    _bayes(r, res)
    _rliable(r, res)
    per = "per ranking method" if ranking.task.nunique() == 1 else "per leaderboard and ranking method"
    for name, caption in (("fig_22_rank_blobs_tasks", f"Bootstrap rank distributions {per} (blob "
                           "area: share of resamples; black: median and 95% interval; red x: the full set's rank)."),
                          ("fig_16_podium", "Podium: per-case scores by place, and per-case rank counts."),
                          ("fig_17_ranking_heatmap", "Ranking heatmap: runs against their rank on each case."),
                          ("fig_18_bootstrap_tau", "Kendall's tau between each ranking and its resamples'."),
                          ("fig_29_bootstrap_tau_density", "The same taus as densities, one curve per task "
                           "(challengeR's density plot): a curve near 1 is a ranking resampling hardly moves."),
                          ("fig_19_ranking_methods", "Each run's rank under every ranking method."),
                          ("fig_20_dot_box", "Per-case scores by run (dots and box plots)."),
                          ("fig_21_rank_frequency", "Shares of resamples at each rank (stacked)."),
                          ("fig_23_rank_blobs_across_tasks", "Each run's rank distribution in every leaderboard, "
                           "runs by consensus rank."),
                          ("fig_27_rank_stability_tasks", "Each run's rank in every task as ranked (challengeR's "
                           "stability()): blob area is the share of tasks at that rank, black the median and middle "
                           "half of the ranks, red x the consensus rank. Spread blobs: the tasks disagree."),
                          ("fig_28_task_clusters", "Tasks clustered by how alike they rank the runs (challengeR's "
                           "dendrogram and network; task_distances.csv): the distance is the number of ordered "
                           "pairs of runs two tasks order differently. Descriptive: no resampling."),
                          ("fig_24_critical_difference", "Critical-difference diagram: each run at its mean rank over "
                           "the cases (1 = best); runs joined by a bar lie within Nemenyi's critical difference of "
                           "each other and are tied."),
                          ("fig_25_performance_profile", "Performance profiles: each run's share of cases better than "
                           "each threshold (a curve above another is better); the runs with the best "
                           "interquartile means."),
                          ("fig_31_iqm_improvement", "rliable's interval estimates: each run's interquartile mean "
                           "and the probability of improvement down the leaderboard, with 95% bootstrap intervals "
                           "(an interval of the probability that holds 0.5: tied)."),
                          ("fig_30_bayes_signed_rank", "Bayesian signed-rank test down each leaderboard: the "
                           "posterior probabilities that a run is better than the next one by more than the region "
                           "of practical equivalence (ROPE), within it, or worse; 0.95 decides."),
                          ("fig_26_significance_map_tasks", "Significance map per leaderboard (challengeR's): a cell "
                           "is coloured where the row's run is significantly better than the column's; grey: no "
                           "evidence of a difference.")):
        r.figure(f"figures/{name}.png", caption)


def _critical_difference(r: Report, res: StudyResult) -> None:
    """Friedman's test and Nemenyi's critical difference per leaderboard (``friedman.csv``, ``nemenyi.csv``)."""
    if not (res.has("friedman.csv") and res.has("nemenyi.csv")):
        return
    tests, pairs = res.table("friedman.csv"), res.table("nemenyi.csv")
    if not len(tests):
        return
    r.heading("Critical-difference diagram (Friedman, Nemenyi)", level=3)
    r.paragraph("Demšar's comparison of several runs over many cases: per case the runs are ranked (1 = best, "
                "average ties), Friedman's test asks whether their mean ranks differ more than chance would make "
                "them, and Nemenyi's post-hoc test calls two runs different when their mean ranks differ by at least "
                "the critical difference (CD), all pairs together at the level below. On the cases where every run "
                "has a score (nemenyi.csv has every pair's p-value).")
    rows = []
    for t in tests.itertuples():
        p = pairs[pairs.task == t.task]
        differ = p[p.differ]
        named = [f"{a} and {b}" for a, b in zip(differ.run, differ.other)]
        said = (f"{len(differ)} of {len(p)} pairs differ: " + "; ".join(named[:6])
                + (f"; and {len(named) - 6} more (nemenyi.csv)" if len(named) > 6 else "") if len(differ) else
                f"no pair differs: the {int(t.runs)} runs are tied")
        rows.append({"leaderboard": t.task, "Friedman chi2": f"{t.chi2:.3g}", "df": int(t.df),
                     "p": f"{t.p:.3g}" if t.p > 0 else "< 1e-300",
                     "cases": int(t.cases), "Nemenyi CD": f"{t.cd:.3g}", "level": f"{t.alpha:g}", "pairs": said})
    r.table(pd.DataFrame(rows), caption="Friedman's statistic and p per leaderboard, Nemenyi's critical difference "
            "of mean ranks, and the pairs of runs whose mean ranks differ by at least it (friedman.csv).")


def _significance(r: Report, res: StudyResult) -> None:
    """ChallengeR's significance map as sentences (``significance.csv``)."""
    if not res.has("significance.csv"):
        return
    t = res.table("significance.csv")
    if not len(t):
        return
    first = t.iloc[0]
    test = {"wilcoxon": "Wilcoxon signed-rank", "t": "paired t"}.get(str(first.test), str(first.test))
    how = "no adjustment" if first.adjustment == "none" else f"adjustment: {first.adjustment}"
    r.heading("Significance map (paired tests)", level=3)
    by_case = "tested_on" not in t or (t.tested_on == "cases").all()
    on = ("the cases both have" if by_case else "the resampling units both have (each run's mean over a unit's "
          "cases: cases of one unit are not independent)")
    counts = ("The test-based ranking counts these cells. " if by_case else "The leaderboards' test-based ranking "
              "tests the cases, as challengeR does; where the two disagree, these tests on the units are the ones "
              "about a new test set. ")
    r.paragraph(f"challengeR's significance map: for every ordered pair of runs, the one-sided {test} test that the "
                f"first is better than the second on {on}, the pairs of a leaderboard adjusted "
                f"together ({how}), significant at {first.alpha:g}. {counts}"
                "Runs that no test separates are tied on this test set (significance.csv has every pair).")
    rows = []
    for task, g in t.groupby("task", sort=False):
        runs = list(dict.fromkeys([*g.run, *g.other]))
        beats = g[g.significant.astype(bool)].groupby("run").size()
        everyone = [run for run in runs if beats.get(run, 0) == len(runs) - 1]
        beaten = set(g[g.significant.astype(bool)].other)
        unbeaten = [run for run in runs if run not in beaten]
        lead = (f"{everyone[0]} is significantly better than each of the {len(runs) - 1} others" if everyone else
                "no run is significantly better than every other; tied at the top (no run significantly better "
                f"than them): {', '.join(map(str, unbeaten))}")
        rows.append({"leaderboard": task, "runs": len(runs),
                     "significant pairs": f"{int(g.significant.astype(bool).sum())} of {len(g)}", "top": lead})
    r.table(pd.DataFrame(rows), caption="Per leaderboard: the ordered pairs where the first run is significantly "
            "better, and whether one run is better than all others.")


def _bayes(r: Report, res: StudyResult) -> None:
    """The Bayesian signed-rank test with a rope down each leaderboard (``bayes_signed_rank.csv``)."""
    if not res.has("bayes_signed_rank.csv"):
        return
    t = res.table("bayes_signed_rank.csv")
    if not len(t):
        return
    rope = float(t.rope.iloc[0])
    r.heading("Bayesian signed-rank test with a region of practical equivalence (ROPE)", level=3)
    r.paragraph(f"Benavoli et al.'s test (2017; baycomp's definition) between each run and the next one down the "
                f"leaderboard, on the cases both have: the posterior probabilities that the run is better by more "
                f"than {rope:g} (the region of practical equivalence, in the score's units, chosen by the user; "
                "the same for every leaderboard), "
                "that the two are within it, and that it is worse. A probability of at least 0.95 decides; "
                "otherwise these cases leave the comparison undecided. 50,000 posterior samples (Monte Carlo error "
                "at most 0.003).")
    words = {"better": "better", "equivalent": "practically equivalent", "worse": "worse",
             "undecided": "undecided"}
    shown = t.assign(decision=t.decision.map(words).fillna(t.decision))[
        ["task", "run", "other", "p_better", "p_rope", "p_worse", "decision", "cases"]].rename(
        columns={"task": "leaderboard", "other": "next run down", "p_better": "P(better)",
                 "p_rope": "P(equivalent)", "p_worse": "P(worse)"})
    r.table(shown, floatfmt="{:.3f}", caption="Each run against the next one down its leaderboard "
            "(bayes_signed_rank.csv).")


def _top(r: Report, res: StudyResult) -> None:
    """The runs ranked ``--top K`` or better per leaderboard and method (``top.csv``)."""
    if not res.has("top.csv"):
        return
    t = res.table("top.csv")
    k = res.options.get("top")
    r.heading(f"Top {k}" if k else "Top runs", level=3)
    rows = [{"leaderboard": task, "ranking": method, "runs": ", ".join(f"{run} ({rk:g})" for run, rk in
                                                                        zip(g.run, g["rank"])),
             "count": len(g)} for (task, method), g in t.groupby(["task", "ranking"], sort=False)]
    r.table(pd.DataFrame(rows), caption=f"The runs with fewer than {k} runs ranked ahead of them (their rank in "
            f"brackets; more than {k} where runs tie at the cut, whatever the tie rule), as challengeR's "
            "subset(top = k); whether they differ from the runs below is in the rank intervals above (top.csv).")


def _rliable(r: Report, res: StudyResult) -> None:
    """Interquartile means and the probability of improvement (``iqm.csv``, ``improvement.csv``)."""
    if not (res.has("iqm.csv") and res.has("improvement.csv")):
        return
    iqms, better = res.table("iqm.csv"), res.table("improvement.csv")
    r.heading("Interquartile mean and probability of improvement", level=3)
    r.paragraph("As reinforcement-learning and ML benchmarks report them (Agarwal et al. 2021, rliable): a run's "
                "interquartile mean (IQM) is its mean over the middle half of its cases, robust to a few failed "
                "cases; the probability of improvement is the chance that a run scores better than the next one "
                "down the leaderboard on a case drawn from each (ties count a half; 0.5: no better). 95% intervals: "
                "percentiles over bootstrap resamples of the cases (of whole resampling units where units group "
                "them), about a new test set. An interval of the "
                "probability that holds 0.5 means the two runs are tied on this test set.")
    rows = []
    for task, g in iqms.groupby("task", sort=False):
        g = g.sort_values("iqm", ascending=bool(g.lower_better.iloc[0]) if "lower_better" in g else False)
        pairs = better[better.task == task].iloc[:4]
        said = "; ".join(f"{a} over {b}: {p:.2f} [{lo:.2f}, {hi:.2f}]" + (" (tied)" if lo <= 0.5 <= hi else "")
                         for a, b, p, lo, hi in zip(pairs.run, pairs.other, pairs.p, pairs.low, pairs.high))
        rows.append({"leaderboard": task, "best IQM": f"{g.run.iloc[0]} {g.iqm.iloc[0]:.3g} "
                     f"[{g.low.iloc[0]:.3g}, {g.high.iloc[0]:.3g}]",
                     "probability of improvement (first places)": said or "one run"})
    r.table(pd.DataFrame(rows), caption="The run with the best interquartile mean per leaderboard (the highest, or "
            "the lowest where smaller is better; in the metric's units; every run's in iqm.csv), and the probability "
            "of improvement down the first places (every neighbouring pair in improvement.csv).")
