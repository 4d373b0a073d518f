"""The report section that compares ranking methods (``--ranking``), shared by the three studies.

No numerics here: every number comes from a table the study wrote (bootstrap_ci.csv, kendall_tau.csv,
stability.csv, convergence.csv). Every comparison carries its interval, and the unit of the tests is named.
"""

from __future__ import annotations

from experiments._report import ci, strategy_label


def _describe(r, methods, *, case: str, test_unit: str, n_runs: int, test_step: int):
    from robustness.statistics.ranking_methods import get_ranking

    parts = [f"**{get_ranking('aggregate').label}** orders the runs by their mean score"]
    if "rank-then-aggregate" in methods:
        parts.append(f"**rank-then-aggregate** ranks the runs on every {case} (ties: average rank; a run without a "
                     f"score there is left out of that {case}'s ranking) and orders them by their mean rank, lower "
                     "first")
    if "test-based" in methods:
        m = n_runs * (n_runs - 1)
        parts.append(f"**test-based** runs a one-sided paired Wilcoxon signed-rank test for every ordered pair of "
                     f"runs on per-{test_unit} scores (normal approximation with tie correction; zero differences "
                     f"dropped), adjusts the {m} p-values of a scheme together with Holm's step-down method "
                     "(family-wise error 5%), and ranks the runs by the number of runs they beat significantly "
                     "(ties: average rank)")
    r.paragraph("The same per-case scores, three ways to a leaderboard (challengeR's families): " + "; ".join(parts)
                + ". Rank-then-aggregate and test-based need per-case scores: they exist for macro schemes only, "
                "and micro leaderboards are aggregate-then-rank; the significance analysis and the distance to "
                "unlimited data in the other sections are of the aggregate scores. Bootstrap intervals and stability use the same "
                f"resamples of {test_unit}s for every method (paired), and the tests use the {test_unit} as their "
                f"unit because that is what the study resamples. Test-based curves add {test_unit}s one at a time and "
                f"record the prefixes in steps of {test_step} {test_unit}s (each recorded prefix reruns every test). "
                "On a bootstrap resample the tests count a repeated unit as independent evidence, so runs beaten "
                "tend to be higher there than on the test set: its intervals, and taus involving the test-based "
                "ranking, describe the spread over resamples and can sit off-centre from the full-set value.")


def section(r, ci_table, points, stability, agreement, args, *, schemes, case: str, unit: str, test_unit: str,
            convergence_figure: str):
    """Append the comparison of ranking methods under each scheme of ``schemes`` (strategy, metric, average) to
    report ``r``.

    Nothing is added when the study ran one method only (the default report is unchanged).
    """
    import pandas as pd

    from robustness.statistics.ranking_methods import get_ranking

    methods = list(dict.fromkeys(ci_table.ranking))
    if len(methods) < 2:
        return

    def sel(table, method, scheme):
        strat, metric, average = scheme
        return table[(table.ranking == method) & (table.strategy == strat) & (table.metric == metric)
                     & (table.average == average)]

    first = sel(ci_table, "aggregate", schemes[0])
    n_runs, n_resamples = len(first), int(first.n_resamples.iloc[0])
    r.heading("How much does the ranking method change the leaderboard?")
    _describe(r, methods, case=case, test_unit=test_unit, n_runs=n_runs, test_step=args.test_step)
    rows = []
    for scheme in schemes:
        strat, metric, average = scheme
        label = f"{strategy_label(strat)}, {average} {metric}"
        board = sel(ci_table, "aggregate", scheme).set_index("system")
        table = pd.DataFrame(index=board.sort_values(["rank", "score"], ascending=[True, False]).index)
        for method in methods:
            kind = get_ranking(method)
            c = sel(ci_table, method, scheme).set_index("system").loc[table.index]
            fmt = {"aggregate": "{:.4f}", "rank-then-aggregate": "{:.2f}"}.get(method, "{:.1f}")
            table[f"{kind.statistic} ({kind.label})"] = [ci(v, lo, hi, fmt) for v, lo, hi in zip(c.score, c.low, c.high)]
            table[f"rank ({kind.name})"] = [f"{x:g}" for x in c["rank"]]
        r.table(table.reset_index().rename(columns={"system": "run"}), max_rows=15, caption=(
            f"{label}: each run's statistic under each method with its 95% percentile bootstrap interval "
            f"({n_resamples} resamples of {test_unit}s, the same for every method), and its rank on the whole test "
            "set (ties: average rank)."))
        r.bullets(_agreement_items(agreement, methods, scheme) + [_first(sel(ci_table, m, scheme), m) for m in methods])
        lenient = float(n_runs)
        for method in methods:
            st = sel(stability, method, scheme).iloc[0]
            p = sel(points, method, scheme)
            p = p[p.tolerance == lenient].iloc[0]
            rows.append({"scheme": label, "method": get_ranking(method).label,
                         "stability: tau to the full-set ranking": _tau_text(st.tau_median, st.tau_low, st.tau_high),
                         "curves: unit": test_unit if method == "test-based" else unit,
                         "AUC": ci(p.auc, p.auc_low, p.auc_high, "{:.1f}"),
                         f"n for L1 <= {lenient:g}": f"{p.convergence_n} ({p.convergence_n_low}-"
                                                     f"{p.convergence_n_high})"})
    strat, metric, average = schemes[0]
    span = agreement[(agreement.strategy == agreement.other) & (agreement.metric == metric)
                     & (agreement.average == average) & (agreement.ranking != agreement.other_ranking)]
    if span.strategy.nunique() > 1:
        r.paragraph(f"Across the {span.strategy.nunique()} golds ({average} {metric}), tau between two methods "
                    f"ranges from {span.tau.min():.2f} to {span.tau.max():.2f} (every pair with its interval: the "
                    "figure below and the agreement table).")
    r.figure("figures/fig_12_ranking_agreement.png",
             "Kendall's tau between the leaderboards of two ranking methods (macro), on the whole test set, with its "
             "95% bootstrap interval (both rankings recomputed on every resample).")
    r.table(pd.DataFrame(rows), caption=(
        "Stability: median Kendall's tau between the full-set ranking and the resamples' rankings, with the central "
        "95% of resamples. Curves: area under the mean L1 curve (95% Monte Carlo interval over orders) and the number "
        "of units after which L1 stays within one place per run in 95% of orders (95% interval over orders). AUCs on "
        "different units or prefix steps are not comparable with each other."))
    for method in methods[1:]:
        r.figure(f"{convergence_figure}_{method}.png",
                 f"Rank convergence under {get_ranking(method).label}: L1 between the ranking on the first n units and "
                 "on all, under the same method.")


def _tau_text(tau, low, high) -> str:
    return ci(tau, low, high, "{:.2f}") if tau == tau else "undefined (a ranking ties every run)"


def _agreement_items(agreement, methods, scheme) -> list:
    """One line per pair of methods: Kendall's tau between their leaderboards under ``scheme``, with its interval."""
    from robustness.statistics.ranking_methods import get_ranking

    strat, metric, average = scheme
    tau = agreement[(agreement.strategy == strat) & (agreement.other == strat) & (agreement.metric == metric)
                    & (agreement.average == average)]
    items = []
    for i, a in enumerate(methods):
        for b in methods[i + 1:]:
            row = tau[(tau.ranking == a) & (tau.other_ranking == b)]
            if len(row):
                row = row.iloc[0]
                items.append(f"{get_ranking(a).label} vs {get_ranking(b).label}: Kendall's tau "
                             f"{_tau_text(row.tau, row.tau_low, row.tau_high)}")
    return items


def _first(board, method) -> str:
    """Who is first under a method, saying so when several runs tie."""
    from robustness.statistics.ranking_methods import get_ranking

    top = board[board["rank"] == board["rank"].min()].system.tolist()
    more = ", ..." if len(top) > 5 else ""
    return f"first under {get_ranking(method).label}: " + (
        top[0] if len(top) == 1 else f"{len(top)} runs tied ({', '.join(top[:5])}{more})")
