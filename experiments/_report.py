"""The studies' human-readable reports (summary.md): sentences and tables built from the result tables.

No numerics here: every number comes from a table the library computed.
"""

from __future__ import annotations


def md_table(df, floatfmt="{:.4f}"):
    """A pandas frame as a Markdown table."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def strategy_label(name: str) -> str:
    """A gold strategy's name in prose, from the registry."""
    from robustness.gold import get_strategy

    try:
        return get_strategy(name).label
    except ValueError:
        return name


def rank_convergence(challenge, counts, board, points, agreement, boot, tests, spread, truth, official, args, empty):
    """summary.md of the main job."""
    import numpy as np

    from robustness.comparisons import adjacent_pairs

    lines = ["# Leaderboard robustness report", ""]
    src = args.data or "the embedded synthetic challenge"
    lines += [f"Input: {src} — {challenge.n_images} images in {len(set(challenge.encounters))} encounters, "
              f"{challenge.n_systems} runs, annotators per image: "
              + ", ".join(f"{k} on {v}" for k, v in challenge.describe()["annotators_per_image"].items()) + ".",
              f"Settings: {args.orders} random orders (unit: {args.unit}), {args.bootstrap} bootstrap resamples "
              f"(unit: {args.bootstrap_unit}), seed {args.seed}, both-empty pairs score: {empty.name}.", ""]

    # leaderboard
    ci = boot.intervals(method="percentile")
    key = f"{official}_jaccard_micro"
    lines += [f"## Leaderboard under the official scheme ({official} vote, micro Jaccard)", ""]
    sel = ci[(ci.strategy == official) & (ci.metric == "jaccard") & (ci.average == "micro")].set_index("system")
    top = board[[c for c in (key, f"{official}_dice_micro", "max_jaccard_macro", "mean_jaccard_macro") if c in board]]
    tab = top.copy()
    tab.insert(0, "rank", np.arange(1, len(tab) + 1))
    tab["95% CI"] = [f"[{sel.loc[s, 'low']:.4f}, {sel.loc[s, 'high']:.4f}]" for s in tab.index]
    tab = tab.reset_index().rename(columns={"index": "run", "system": "run"})
    lines += [md_table(tab.head(15)), ""]
    if len(tab) > 15:
        lines += [f"({len(tab) - 15} more runs in leaderboard.csv)", ""]

    # convergence
    lines += ["## Which gold strategy converges fastest?", ""]
    lenient = points.tolerance.max()
    for average in ("micro", "macro"):
        p = points[(points.metric == "jaccard") & (points.average == average)]
        strict = p[p.tolerance == args.tolerance].sort_values(["convergence_n", "auc"]).iloc[0]
        easy = p[p.tolerance == lenient].sort_values(["convergence_n", "auc"]).iloc[0]
        by_auc = p.sort_values("auc").iloc[0]
        lines.append(
            f"- **{average}**: by the area under the mean L1 curve (the mean rank change over all prefix "
            f"lengths) **{by_auc.strategy}** ({by_auc.auc:.1f}); to within L1 <= {lenient:g} (runs off by one "
            f"rank on average) in 95% of orders **{easy.strategy}** at n = {easy.convergence_n} "
            f"(5%-95% of orders: {easy.p05_n:.0f}-{easy.p95_n:.0f}); to exactly the final ranking "
            f"(L1 <= {args.tolerance:g}) **{strict.strategy}** at n = {strict.convergence_n}.")
    table = points[points.metric == "jaccard"].pivot_table(
        index=["strategy", "average"], columns="tolerance", values="convergence_n", sort=False)
    table.columns = [f"n (L1 <= {c:g})" for c in table.columns]
    auc = points[(points.metric == "jaccard") & (points.tolerance == lenient)].set_index(["strategy", "average"]).auc
    table["AUC"] = auc
    lines += ["", "Convergence points (95% of orders) and area under the mean L1 curve, Jaccard:", "",
              md_table(table.reset_index(), "{:.1f}"), ""]

    # disagreement
    lines += ["## How much do the rankings under different golds disagree? (Kendall's tau, micro Jaccard)", ""]
    m = agreement[(agreement.metric == "jaccard") & (agreement.average == "micro")]
    mat = m.pivot(index="strategy", columns="other", values="tau")
    order = list(dict.fromkeys(m.strategy))
    mat = mat.loc[order, order]
    lines += [md_table(mat.reset_index().rename(columns={"strategy": ""}), "{:.2f}"), ""]

    # indistinguishable
    adj = adjacent_pairs(boot, strategy=official, metric="jaccard", average="micro")
    nd = adj[~adj.distinguishable]
    lines += [f"## Runs whose ranks are not statistically distinguishable ({official}, micro Jaccard)", "",
              f"{len(nd)} of {len(adj)} neighbouring pairs on the leaderboard are not told apart by the bootstrap "
              "(the higher-ranked run scores higher in fewer than 95% of resamples):", ""]
    if len(nd):
        lines += [", ".join(f"{r.system} ~ {r.next} ({r.win_share:.0%})" for r in nd.itertuples()), ""]
    if len(tests):
        t = tests[(tests.strategy == official) & (tests.metric == "jaccard") & (tests.average == "macro")]
        if len(t):
            n_sig = int(t.better.sum())
            lines += [f"Per-image paired Wilcoxon tests (macro Jaccard, Holm-corrected over {len(t)} ordered pairs): "
                      f"{n_sig} pairs significantly ordered, {len(t) // 2 - n_sig} of {len(t) // 2} pairs not.", ""]

    # table 4
    if len(spread):
        s = spread[(spread.metric == "jaccard") & (spread.variant == "staple")].sort_values("z_mean")
        if len(s):
            r = s.iloc[0]
            lines += ["## Distance from the annotators' spread (Table 4, Jaccard vs STAPLE)", "",
                      f"Best run {s.iloc[0].system}: {s.iloc[0].z_mean:.2f} SD; worst {s.iloc[-1].system}: "
                      f"{s.iloc[-1].z_mean:.2f} SD (mean over {r.images_used} images; {r.skipped_zero_sd} skipped "
                      f"with zero annotator spread, {r.skipped_few_annotators} with fewer than 2 annotators). "
                      "Full table: gold_spread.csv.", ""]
    for f, name in enumerate(counts.fits):
        n_nc = int((~counts.fit_converged[f]).sum())
        if n_nc:
            label = strategy_label(name)
            lines += [f"{label} did not converge within its iteration cap on {n_nc} image(s): see images.csv.", ""]
    if truth is not None:
        t = truth[truth.metric == "jaccard"].sort_values("tau_to_truth", ascending=False)
        b = t.iloc[0]
        lines += ["## Which gold recovers the true ranking? (synthetic data only)", "",
                  f"Kendall's tau between each scheme's ranking and the runs' true skill: best **{b.strategy}** "
                  f"({b.average}, tau = {b.tau_to_truth:.3f}); full table: truth.csv.", ""]
    lines += ["Figures: figures/fig_02_micro_convergence.png, fig_03_macro_convergence.png, fig_04_forest.png, "
              "fig_05_rank_blobs.png, fig_06_kendall_tau.png.", ""]
    return "\n".join(lines)


def qa_rank_convergence(source, gold, runs, board, ci, points, boot, counts, args):
    """summary.md of the closed-QA study."""
    from robustness.comparisons import adjacent_pairs

    lines = ["# Closed-QA leaderboard robustness report", "",
             f"Input: {source} — {len(gold.encounters)} encounters, {len(runs)} runs; {args.orders} random orders "
             f"and {args.bootstrap} bootstrap resamples of encounters, seed {args.seed}.", "",
             "## Leaderboard (official partial-credit accuracy)", ""]
    sel = ci[ci.metric == "all"].set_index("system")
    tab = board[["accuracy_all"]].copy()
    tab["95% CI"] = [f"[{sel.loc[r, 'low']:.4f}, {sel.loc[r, 'high']:.4f}]" for r in tab.index]
    lines += [md_table(tab.reset_index()), ""]
    p = points[points.metric == "all"]
    strict = p[p.tolerance == args.tolerance].iloc[0]
    easy = p[p.tolerance == float(len(runs))].iloc[0]
    lines += ["## Rank convergence (accuracy_all)", "",
              f"The ranking is within L1 <= {len(runs)} of the final one (runs off by one rank on average) after "
              f"{easy.convergence_n} of {easy.n_units} encounters in 95% of orders (5%-95% of orders: "
              f"{easy.p05_n:.0f}-{easy.p95_n:.0f}), and exactly final after {strict.convergence_n}; area under the "
              f"mean L1 curve {strict.auc:.1f}.", ""]
    adj = adjacent_pairs(boot, strategy="gold", metric="all", average="macro")
    nd = adj[~adj.distinguishable]
    lines += ["## Runs not statistically distinguishable", "",
              f"{len(nd)} of {len(adj)} neighbouring pairs are not told apart by the bootstrap"
              + (": " + ", ".join(f"{r.system} ~ {r.next} ({r.win_share:.0%})" for r in nd.itertuples()) if len(nd) else ".")
              , ""]
    t5 = counts[~counts.include_not_mentioned].drop(columns="include_not_mentioned")
    lines += ["## Table 5: mean difference in the number of distinct answers (run - gold, without 'Not mentioned')", "",
              md_table(t5, "{:+.3f}"), ""]
    return "\n".join(lines)


def table_rank_convergence(schemes, ci, points, args):
    """summary.md of the per-case table study."""
    lines = ["# Per-case table: leaderboard robustness", "",
             f"Input: {args.table} — {len(schemes.systems)} algorithms, {schemes.n_units} units, "
             f"{len(schemes.names)} scheme(s); {args.orders} orders, {args.bootstrap} resamples, seed {args.seed}.", ""]
    for strat, metric, average in schemes.names:
        c = ci[(ci.strategy == strat) & (ci.metric == metric)].sort_values("score", ascending=False)
        p = points[(points.strategy == strat) & (points.metric == metric)]
        lines += [f"## {strat} / {metric}", "", md_table(c[["system", "score", "low", "high", "rank"]]), "",
                  "Convergence points (95% of orders): "
                  + ", ".join(f"L1 <= {r.tolerance:g} at n = {r.convergence_n}" for r in p.itertuples())
                  + f"; area under the mean L1 curve {p.auc.iloc[0]:.2f}.", ""]
    return "\n".join(lines)


def warnings_section(warnings) -> str:
    """The "## Warnings" section of a summary.md: every note about the input (empty string when there is none)."""
    if not warnings:
        return ""
    return "\n".join(["", "## Warnings", "", *(f"- {w}" for w in warnings), ""])
