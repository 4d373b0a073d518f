"""The studies' reports (summary.md and report.html): sentences and tables built from the result tables.

No numerics here: every number comes from a table the library computed. Every
sentence that compares strategies or runs carries its interval or says
"tied" / "no evidence of a difference", and names the unit it resampled.
"""

from __future__ import annotations

from robustness.reporting.report import Report


def strategy_label(name: str) -> str:
    """A gold strategy's name in prose, from the registry."""
    from robustness.overlap.gold import get_strategy

    try:
        return get_strategy(name).label
    except ValueError:
        return name


def ci(value, low, high, fmt="{:.3f}") -> str:
    """``0.620 (95% CI 0.601 to 0.640)``."""
    return f"{fmt.format(value)} (95% CI {fmt.format(low)} to {fmt.format(high)})"


def names(items) -> str:
    items = [strategy_label(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# -- the main job -------------------------------------------------------------------------------

def _significance(r: Report, pairwise, official, boot_unit, n_boot):
    r.heading("Which runs differ? (one significance analysis)")
    for average in ("micro", "macro"):
        d = pairwise[(pairwise.strategy == official) & (pairwise.metric == "jaccard") & (pairwise.average == average)]
        if d.empty:
            continue
        n = d[d.neighbours]
        n_sig, n_not = int(n.significant.sum()), int((~n.significant).sum())
        neighbours = (f"none of the {len(n)} pairs that are neighbours on the leaderboard differ: for all of them"
                      if n_sig == 0 else
                      f"{n_sig} of the {len(n)} pairs that are neighbours on the leaderboard differ, and for the "
                      f"remaining {n_not}")
        r.paragraph(
            f"**{strategy_label(official)}, {average} Jaccard**: {int(d.significant.sum())} of {len(d)} pairs of runs "
            f"differ; {neighbours} there is no evidence of a difference (which is not "
            "evidence that they are equal). The rank-based check (Wilcoxon signed-rank test on per-"
            f"{boot_unit} scores, Holm) finds {int(d.significant_wilcoxon.sum())} of {len(d)} pairs and "
            f"{int(n.significant_wilcoxon.sum())} neighbouring pairs.")
    r.paragraph(f"Method: for every pair of runs, the paired bootstrap of the score difference over {boot_unit}s "
                f"({n_boot} resamples; micro scores re-sum TP/FP/FN, macro scores re-average per-image scores); "
                "two-sided test from the bootstrap standard error; Holm's correction over all pairs of the scheme, "
                "at 5%. Unit: the "
                f"{boot_unit}, because images of one encounter are photos of the same lesion. Every scheme and pair, "
                "with the difference's 95% interval, is in pairwise.parquet.")
    r.figure("figures/fig_09_significance_map.png",
             f"Significance map ({strategy_label(official)}, micro and macro Jaccard): a dark cell means the run of "
             "the row scores significantly higher than the run of the column (paired bootstrap, Holm, 5%).")


def _unlimited(r: Report, per_size, needed, n_runs, boot_unit, n_units, n_resamples):
    r.heading("How far is this test set's ranking from the ranking on unlimited data?")
    r.paragraph(
        "The paper's convergence curve (next section) compares a random subset with this test set's own ranking, "
        "so it reaches L1 = 0 at the full test set by construction: it describes the test set, not how far its "
        "ranking is from the ranking the runs would get on unlimited data. The bootstrap estimates that "
        f"distance: {n_resamples} resamples of {boot_unit}s drawn with replacement, with the observed ranking in "
        f"the role of the truth; drawing fewer or more {boot_unit}s than the {n_units} of the test set shows how "
        "the distance falls with the test-set size (an estimate, to be checked by simulation: "
        "experiments.design_study).")
    at_n = per_size[per_size.observed_size & (per_size.metric == "jaccard")].copy()
    need = needed[needed.metric == "jaccard"].set_index(["strategy", "average"])
    rows = []
    for row in at_n.itertuples():
        nd = need.loc[(row.strategy, row.average)]
        needed_text = (f"> {nd.largest_size}" if nd.beyond else
                       (f"<= {nd.units_needed:.0f}" if nd.already else f"{nd.units_needed:.0f}"))
        rows.append({"strategy": strategy_label(row.strategy), "average": row.average,
                     "expected L1 at N": f"{row.expected_l1:.1f} ± {1.96 * row.expected_l1_se:.1f}",
                     "per run": f"{row.expected_l1 / n_runs:.2f}",
                     "P(best stays first)": f"{row.p_top_stays:.2f}",
                     f"{boot_unit}s for L1 <= {n_runs:g}": needed_text})
    import pandas as pd

    r.table(pd.DataFrame(rows), caption=(
        f"Jaccard, at the test set's size N = {n_units} {boot_unit}s: expected L1 (± 1.96 Monte Carlo SE over "
        f"resamples), the same per run (places), the share of resamples in which the observed best run stays first, "
        f"and the number of {boot_unit}s at which the expected L1 falls to the number of runs (one place per run; "
        "log-linear interpolation between the sizes tried). All sizes: ranking_uncertainty.csv, test_set_size.csv."))
    r.figure("figures/fig_10_test_set_size.png",
             f"Expected L1 between the ranking on m {boot_unit}s and the ranking on unlimited data (bootstrap "
             "estimate), against m; the band holds 95% of resamples for the official scheme; the dotted line is "
             "one place per run; the vertical line is this test set's size.")


def _convergence(r: Report, points, comparison, args, n_runs):
    from robustness.statistics.convergence import fastest

    r.heading("How fast does the ranking settle on this test set's ranking? (the paper's Figures 2 and 3)")
    lenient = float(n_runs)
    k = int(points.n_orders.iloc[0])
    r.paragraph(
        f"For {k} random orders of the {args.unit}s, the runs are ranked on the first n {args.unit}s and compared "
        "with their ranking on the whole test set (L1, the sum over runs of the places each is off). The area under "
        "the curve (AUC: the mean L1 over all prefix lengths) summarises a curve; its 95% interval is the Monte "
        f"Carlo error over the {k} orders, and strategies are compared by paired differences on the same orders "
        "(strategy_comparison.csv).")
    for average in ("micro", "macro"):
        verdict = fastest(comparison, metric="jaccard", average=average)
        if not verdict["tied"]:
            continue
        p = points[(points.metric == "jaccard") & (points.average == average) & (points.tolerance == lenient)]
        best = p.set_index("strategy").loc[verdict["tied"][0]]
        adj = f"Bonferroni-adjusted {verdict['level']:.1%} intervals"
        if verdict["fastest"]:
            r.paragraph(f"**{average}**: **{strategy_label(verdict['fastest'])}** converges fastest, AUC "
                        f"{ci(best.auc, best.auc_low, best.auc_high, '{:.1f}')}: its paired differences with every "
                        f"other strategy are below zero ({adj}).")
        else:
            r.paragraph(f"**{average}**: no strategy is fastest: {names(verdict['tied'])} are tied (the paired AUC "
                        f"differences with {strategy_label(verdict['tied'][0])}, AUC "
                        f"{ci(best.auc, best.auc_low, best.auc_high, '{:.1f}')}, have {adj} that include zero).")
    rows = []
    for key, g in points[points.metric == "jaccard"].groupby(["strategy", "average"], sort=False):
        lp = g[g.tolerance == lenient].iloc[0]
        sp = g[g.tolerance == args.tolerance].iloc[0]
        rows.append({"strategy": strategy_label(key[0]), "average": key[1],
                     "AUC": ci(lp.auc, lp.auc_low, lp.auc_high, "{:.1f}"),
                     f"n for L1 <= {lenient:g}": f"{lp.convergence_n} ({lp.convergence_n_low}-{lp.convergence_n_high})",
                     f"n for L1 <= {args.tolerance:g}": (f"{sp.convergence_n} ({sp.convergence_n_low}-"
                                                         f"{sp.convergence_n_high})" if sp.reached else
                                                         "only at N")})
    import pandas as pd

    r.table(pd.DataFrame(rows), caption=(
        f"Jaccard. n: the number of {args.unit}s after which L1 stays within the tolerance in 95% of orders, with "
        "its distribution-free 95% interval over orders; 'only at N': the tolerance is reached only by the whole "
        "test set, where L1 = 0 by construction. Micro Jaccard and Dice curves are identical (Dice = 2J/(1+J))."))
    r.figure("figures/fig_02_micro_convergence.png",
             "Micro Jaccard and Dice: mean L1 over orders per gold strategy (thick), one single order as the paper "
             "showed (thin), the band of 90% of orders for the official scheme only.")
    r.figure("figures/fig_03_macro_convergence.png",
             "Macro Jaccard and Dice, including mean and max over annotators; as Figure 2.")
    r.figure("figures/fig_11_convergence_auc.png",
             "Area under the mean L1 curve per gold strategy (Jaccard) with its 95% Monte Carlo interval over orders.")


def _agreement(r: Report, agreement, boot_unit):
    r.heading("How much do the rankings under different golds disagree?")
    m = agreement[(agreement.metric == "jaccard") & (agreement.average == "micro")]
    order = list(dict.fromkeys(m.strategy))
    mat = m.pivot(index="strategy", columns="other", values="tau").loc[order, order]
    off = m[m.strategy < m.other]
    if len(off):
        lo = off.sort_values("tau").iloc[0]
        overlapping = int((off.tau_low <= lo.tau_high).sum()) - 1  # other pairs whose interval reaches this one's
        tied = (f"; its interval overlaps those of {overlapping} of the other {len(off) - 1} pairs, so these are not "
                "told apart from it" if overlapping else "; its interval lies below those of every other pair")
        r.paragraph(f"Kendall's tau between the rankings under two golds (micro Jaccard); the lowest is between "
                    f"{strategy_label(lo.strategy)} and {strategy_label(lo.other)}, tau "
                    f"{ci(lo.tau, lo.tau_low, lo.tau_high, '{:.2f}')} (both rankings recomputed on {boot_unit} "
                    f"resamples, percentile intervals){tied}. Every pair with its interval: kendall_tau.csv.")
    r.table(mat.reset_index().rename(columns={"strategy": ""}), floatfmt="{:.2f}")
    r.figure("figures/fig_06_kendall_tau.png", "Kendall's tau between the rankings under different golds; "
             "above the diagonal tau, below it its 95% bootstrap interval.")


def _table4(r: Report, spread, n_boot_units, boot_unit):
    s = spread[spread.metric == "jaccard"]
    if s.empty:
        return
    r.heading("Distance from the annotators' spread (the paper's Table 4)")
    rows = []
    for variant, label in (("staple", "vs STAPLE of all (paper)"), ("leave_one_out", "leave one annotator out")):
        v = s[s.variant == variant].sort_values("z_mean")
        if v.empty:
            continue
        for which, row in (("best", v.iloc[0]), ("worst", v.iloc[-1])):
            rows.append({"consensus": label, "run": f"{which}: {row.system}",
                         "mean z (paper)": ci(row.z_mean, row.z_mean_low, row.z_mean_high, "{:.2f}"),
                         "median z": f"{row.z_median:.2f}",
                         "pooled-SD z": ci(row.z_pooled, row.z_pooled_low, row.z_pooled_high, "{:.2f}"),
                         "share from 10% smallest SD": f"{row.small_sd_share:.0%}"})
    import pandas as pd

    r.table(pd.DataFrame(rows), caption=(
        "Standard deviations between a run's agreement with the consensus and the annotators' own agreement with it "
        f"(Jaccard), 95% intervals over {boot_unit}s. The paper reports 3.6 (best) and 9 to 19 (worst)."))
    staple = s[s.variant == "staple"].sort_values("z_mean")
    share = staple.small_sd_share.median() if len(staple) else float("nan")
    r.paragraph(
        "Trust the pooled-SD z of the leave-one-annotator-out rows. The paper's mean of per-image z is dominated by images where "
        f"the annotators happen to agree almost exactly: the 10% of images with the smallest SD supply {share:.0%} "
        "of the sum (median over runs), and an SD over 3 annotators has 2 degrees of freedom. Scoring annotators "
        "against a STAPLE consensus that contains them shrinks their own spread, so the paper's variant "
        "overstates how far runs are from human agreement. All variants: gold_spread.csv.")


def _truth(r: Report, truth, taus):
    from robustness.statistics.truth import best_with_ties

    r.heading("Which gold recovers the true ranking? (synthetic data only)")
    r.paragraph("Kendall's tau between each scheme's ranking and the runs' ranking against the latent true masks by "
                "the same metric and averaging on the same images, with its 95% bootstrap interval (both rankings "
                "recomputed on every resample); p_best: the share of resamples in which the scheme agrees best. The "
                "resampled taus run lower than the observed one (a resample holds about 63% distinct "
                "encounters, so it is a noisier test set), which can put the observed tau near or above the "
                "interval's upper end; schemes are compared by paired differences on the same resamples.")
    for average in ("micro", "macro"):
        idx = truth.index[(truth.metric == "jaccard") & (truth.average == average)]
        if len(idx) < 2:
            continue
        verdict = best_with_ties(taus[idx], list(truth.strategy[idx]))
        lead = truth.loc[idx].set_index("strategy").loc[verdict["tied"][0]]
        text = ci(lead.tau_to_truth, lead.tau_low, lead.tau_high)
        if verdict["best"]:
            r.paragraph(f"**{average}**: **{strategy_label(verdict['best'])}** agrees best with the truth, tau {text}; "
                        "its paired differences with every other strategy exclude zero.")
        else:
            r.paragraph(f"**{average}**: no single best: {names(verdict['tied'])} are tied (paired bootstrap "
                        f"differences in tau with {strategy_label(verdict['tied'][0])}, tau {text}, include zero).")
    t = truth[truth.metric == "jaccard"].copy()
    t["strategy"] = t.strategy.map(strategy_label)
    r.table(t[["strategy", "average", "tau_to_truth", "tau_low", "tau_high", "p_best"]], floatfmt="{:.3f}")


def rank_convergence(challenge, counts, board, ci_table, points, comparison, agreement, pairwise, per_size, needed,
                     spread, truth, official, args, empty, boot_unit, n_boot_units) -> Report:
    """The main job's report."""
    r = Report("Leaderboard robustness report")
    src = args.data or "the embedded synthetic challenge"
    n_runs = challenge.n_runs
    r.paragraph(f"Input: {src} — {challenge.n_images} images in {len(set(challenge.encounters))} encounters, "
                f"{n_runs} runs, annotators per image: "
                + ", ".join(f"{k} on {v}" for k, v in challenge.describe()["annotators_per_image"].items()) + ".")
    r.paragraph(f"Settings: {args.orders} random orders (unit: {args.unit}), {args.bootstrap} bootstrap resamples "
                f"(unit: {boot_unit}), seed {args.seed}, both-empty pairs score: {empty.name}.")

    key = f"{official}_jaccard_micro"
    r.heading(f"Leaderboard under the official scheme ({strategy_label(official)}, micro Jaccard)")
    sel = ci_table[(ci_table.strategy == official) & (ci_table.metric == "jaccard")
                   & (ci_table.average == "micro")].set_index("system")
    top = board[[c for c in (key, f"{official}_dice_micro", "max_jaccard_macro", "mean_jaccard_macro") if c in board]]
    tab = top.copy()
    tab.insert(0, "rank", [f"{x:g}" for x in sel.loc[tab.index, "rank"]])
    tab["95% CI"] = [f"[{sel.loc[s, 'low']:.4f}, {sel.loc[s, 'high']:.4f}]" for s in tab.index]
    tab = tab.reset_index().rename(columns={"index": "run", "system": "run"})
    r.table(tab, max_rows=15, caption=(
        f"95% CI: percentile bootstrap over {n_boot_units} {boot_unit}s ({args.bootstrap} resamples, paired across "
        "runs); ranks tie within 1e-12 (average ranks). Neighbouring runs whose intervals overlap may still "
        "differ; the next section tests every pair."))
    r.figure("figures/fig_04_forest.png", f"Every run's score with its 95% percentile bootstrap interval over "
             f"{boot_unit}s, under the official gold, micro and macro Jaccard.")
    r.figure("figures/fig_05_rank_blobs.png", f"How often each run takes each rank over {args.bootstrap} bootstrap "
             "resamples (dot area: share of resamples); x marks the rank on the full test set.")
    _significance(r, pairwise, official, boot_unit, args.bootstrap)
    _unlimited(r, per_size, needed, n_runs, boot_unit, n_boot_units, args.bootstrap)
    _convergence(r, points, comparison, args, n_runs)
    _agreement(r, agreement, boot_unit)
    _table4(r, spread, n_boot_units, boot_unit)
    for f, name in enumerate(counts.fits):
        n_nc = int((~counts.fit_converged[f]).sum())
        if n_nc:
            r.paragraph(f"{strategy_label(name)} did not converge within its iteration cap on {n_nc} image(s): "
                        "see images.csv.")
    if truth is not None:
        _truth(r, *truth)
    return r


# -- the other studies --------------------------------------------------------------------------

def _unlimited_sentence(per_size, needed, scheme, n_runs, unit) -> str:
    """One sentence: the bootstrap's expected distance to unlimited data at N, and the size for L1 <= runs."""
    strat, metric, average = scheme
    at = per_size[(per_size.strategy == strat) & (per_size.metric == metric) & (per_size.average == average)]
    row = at[at.observed_size].iloc[0]
    nd = needed[(needed.strategy == strat) & (needed.metric == metric) & (needed.average == average)].iloc[0]
    size = (f"more than {nd.largest_size}" if nd.beyond else
            f"at most {nd.units_needed:.0f}" if nd.already else f"about {nd.units_needed:.0f}")
    return (f"Against unlimited data (bootstrap estimate, the observed ranking in the role of the truth): expected "
            f"L1 {row.expected_l1:.1f} ± {1.96 * row.expected_l1_se:.1f} ({row.expected_l1 / n_runs:.2f} places per "
            f"run) at the test set's {int(row.m)} {unit}s; the best run stays first in {row.p_top_stays:.0%} of "
            f"resamples; an expected L1 of at most {n_runs} (one place per run) needs {size} {unit}s "
            "(ranking_uncertainty.csv).")


def qa_rank_convergence(source, gold, runs, board, ci_table, points, pairwise, counts, per_size, needed,
                        args) -> Report:
    """The closed-QA study's report."""
    import pandas as pd

    n_runs = len(runs)
    r = Report("Closed-QA leaderboard robustness report")
    r.paragraph(f"Input: {source} — {len(gold.encounters)} encounters, {n_runs} runs; {args.orders} random orders "
                f"and {args.bootstrap} bootstrap resamples of encounters, seed {args.seed}.")
    r.heading("Leaderboard (official partial-credit accuracy)")
    sel = ci_table[ci_table.metric == "all"].set_index("system")
    tab = board[["accuracy_all"]].copy()
    tab["95% CI"] = [f"[{sel.loc[x, 'low']:.4f}, {sel.loc[x, 'high']:.4f}]" for x in tab.index]
    r.table(tab.reset_index(), caption=f"95% CI: percentile bootstrap over the {len(gold.encounters)} encounters.")
    p = points[points.metric == "all"]
    lenient = p[p.tolerance == float(n_runs)].iloc[0]
    strict = p[p.tolerance == args.tolerance].iloc[0]
    r.heading("Rank convergence (accuracy_all)")
    r.paragraph(
        f"The ranking on the first n encounters is within L1 <= {n_runs} of the ranking on all {lenient.n_units} "
        f"(one place per run) from n = {lenient.convergence_n} in 95% of orders (95% CI over orders "
        f"{lenient.convergence_n_low}-{lenient.convergence_n_high}); "
        + (f"exactly equal from n = {strict.convergence_n}" if strict.reached else
           "exactly equal only at the whole test set, where L1 = 0 by construction")
        + f"; area under the mean L1 curve {ci(strict.auc, strict.auc_low, strict.auc_high, '{:.1f}')} (Monte Carlo "
        "over orders). This compares subsets with this test set, not with unlimited data.")
    r.paragraph(_unlimited_sentence(per_size, needed, ("gold", "all", "macro"), n_runs, "encounter"))
    d = pairwise[pairwise.metric == "all"]
    n = d[d.neighbours]
    r.heading("Which runs differ?")
    r.paragraph(f"Paired bootstrap of accuracy differences over encounters, two-sided, Holm over all {len(d)} pairs: "
                f"{int(d.significant.sum())} pairs differ; of the {len(n)} neighbouring pairs {int(n.significant.sum())} "
                f"differ and for {int((~n.significant).sum())} there is no evidence of a difference"
                + (": " + ", ".join(f"{x.system} ~ {x.other}" for x in n[~n.significant].itertuples())
                   if (~n.significant).any() else "") + ".")
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
    return r


def table_rank_convergence(schemes, ci_table, points, pairwise, per_size, needed, args) -> Report:
    """The per-case table study's report."""
    r = Report("Per-case table: leaderboard robustness")
    r.paragraph(f"Input: {args.table} — {len(schemes.runs)} algorithms, {schemes.n_units} units "
                f"({schemes.unit}), {len(schemes.names)} scheme(s); {args.orders} orders, {args.bootstrap} resamples, "
                f"seed {args.seed}.")
    for strat, metric, average in schemes.names:
        c = ci_table[(ci_table.strategy == strat) & (ci_table.metric == metric)].sort_values("score", ascending=False)
        p = points[(points.strategy == strat) & (points.metric == metric)]
        d = pairwise[(pairwise.strategy == strat) & (pairwise.metric == metric)]
        n = d[d.neighbours]
        r.heading(f"{strat} / {metric}")
        r.table(c[["system", "score", "low", "high", "rank"]],
                caption=f"95% percentile bootstrap intervals over {schemes.unit}s.")
        r.paragraph("Convergence points (95% of orders, with their 95% intervals over orders): "
                    + ", ".join(f"L1 <= {x.tolerance:g} at n = {x.convergence_n} ({x.convergence_n_low}-"
                                f"{x.convergence_n_high})" if x.reached else f"L1 <= {x.tolerance:g} only at n = N"
                                for x in p.itertuples())
                    + f"; area under the mean L1 curve {ci(p.auc.iloc[0], p.auc_low.iloc[0], p.auc_high.iloc[0], '{:.2f}')}."
                    + f" Paired bootstrap, Holm: {int(d.significant.sum())} of {len(d)} pairs differ; of {len(n)} "
                    f"neighbouring pairs {int(n.significant.sum())} differ, the rest: no evidence of a difference.")
        r.paragraph(_unlimited_sentence(per_size, needed, (strat, metric, average), len(schemes.runs),
                                        schemes.unit))
    r.figure("figures/fig_08_table_convergence.png", "L1 rank change vs number of units, one line per scheme.")
    return r
