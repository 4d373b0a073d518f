"""The main job: how robust is the leaderboard to the gold standard and to the test-set size?

    python -m experiments.rank_convergence [--data CHALLENGE] [--out results/rank_convergence]

Reproduces the MEDIQA-MAGIC 2025 overview's robustness analysis (Figures 2
and 3: L1 rank change as test images are added in random order; Table 4:
standard deviations from the annotators' spread) with many orders and bands,
bootstrap confidence intervals, rank stability and pairwise comparisons, and
writes tidy tables, figures (PNG and PDF), ``summary.md`` and ``meta.json``.
Without ``--data`` it studies the embedded synthetic challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study

STRATEGIES = "rand1,rand2,rand3,majority,intersection,union,staple"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.rank_convergence",
                                description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("study")
    g.add_argument("--strategies", default=STRATEGIES, metavar="S1,S2,..",
                   help=f"gold strategies (default {STRATEGIES}); macro adds mean and max over annotators")
    g.add_argument("--unit", choices=("image", "encounter"), default="image",
                   help="unit added one by one in the random orders (default image, as in the paper)")
    g.add_argument("--bootstrap-unit", choices=("image", "encounter"), default="encounter",
                   help="unit resampled by the bootstrap (default encounter: its images are not independent)")
    g.add_argument("--orders", type=int, default=200, help="random orders K (default 200)")
    g.add_argument("--step", type=int, default=1, help="record every step-th prefix (default 1: all)")
    g.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples B (default 1000)")
    g.add_argument("--tolerance", type=float, default=0.0,
                   help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--seed", type=int, default=0, help="seed of everything random (default 0)")
    g.add_argument("--compat", choices=("official",), help="score both-empty pairs as the official scorer (nan)")
    g.add_argument("--empty", choices=("one", "zero", "ignore", "official"), default="one",
                   help="score of a pair where run and reference are both empty (default one)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", default="results/rank_convergence", metavar="DIR", help="output folder")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=int, default=1, help="parallel workers (default 1)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the pixel pass and the resampling on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
    g.add_argument("--quiet", action="store_true", help="no progress bars, no report on the terminal")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    t_start = time.time()
    import numpy as np
    import pandas as pd

    from robustness import metrics, resampling
    from robustness.overlap import compute_overlap
    from robustness.ranking import rank
    from robustness.results import ResultsDir, versions
    from robustness.synthetic import SyntheticSource

    empty = "official" if args.compat == "official" else args.empty
    progress = not args.quiet and sys.stderr.isatty()
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))
    strategies = [s for s in args.strategies.split(",") if s]

    challenge = _cli.load(args)
    fingerprint = challenge.fingerprint()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    say(f"{challenge.n_images} images, {challenge.n_systems} runs, {challenge.n_annotators} annotators -> {out.path}")

    with resampling.parallel_backend(args.scheduler, n_workers=max(args.n_jobs, 1)):
        n_jobs = max(args.n_jobs, 2) if args.scheduler else args.n_jobs
        t0 = time.time()
        counts = compute_overlap(challenge, strategies=strategies, n_jobs=n_jobs, cache_dir=out.path / "cache",
                                 progress=progress, rng=args.seed)
        t_pass = time.time() - t0
        conv_schemes = resampling.schemes_from_counts(counts, unit=args.unit, empty=empty)
        conv = resampling.rank_convergence(conv_schemes, n_orders=args.orders, step=args.step, n_jobs=n_jobs,
                                           progress=progress, rng=np.random.default_rng([args.seed, 1]))
        boot_schemes = (conv_schemes if args.bootstrap_unit == args.unit
                        else resampling.schemes_from_counts(counts, unit=args.bootstrap_unit, empty=empty))
        boot = resampling.bootstrap(boot_schemes, n_resamples=args.bootstrap, n_jobs=n_jobs, progress=progress,
                                    rng=np.random.default_rng([args.seed, 2]))
    image_schemes = (conv_schemes if args.unit == "image"
                     else resampling.schemes_from_counts(counts, unit="image", empty=empty))
    tests = resampling.pairwise_tests(image_schemes)

    # -- tables --------------------------------------------------------------------------
    # one source for every score table: robustness.metrics (the official-equal reductions)
    scores_df = metrics.scores_frame(counts, empty=empty)
    keys = ["strategy", "metric", "average"]
    scores_df["rank"] = scores_df.groupby(keys, sort=False)["score"].transform(lambda v: rank(v.to_numpy()))
    board = metrics.leaderboard(counts, empty=empty)
    out.write_csv("leaderboard.csv", board)
    out.write_csv("scores.csv", scores_df, index=False)
    lenient = float(len(counts.systems))  # L1 <= number of runs: runs move one rank on average
    points = _study.write_convergence(out, conv, tolerance=args.tolerance, lenient=lenient)
    _study.write_bootstrap(out, boot, tests)
    agreement = resampling.strategy_agreement(conv_schemes)
    out.write_csv("kendall_tau.csv", agreement, index=False)
    spread = []
    for metric in ("jaccard", "dice"):
        for variant in ("staple", "leave_one_out"):
            if "staple" in counts.strategies or variant == "leave_one_out":
                t = metrics.gold_spread(counts, metric=metric, variant=variant, empty="one" if empty == "official" else empty)
                spread.append(t.assign(metric=metric, variant=variant))
    spread_df = pd.concat(spread, ignore_index=True) if spread else pd.DataFrame()
    out.write_csv("gold_spread.csv", spread_df, index=False)
    out.write_csv("images.csv", pd.DataFrame({
        "image": counts.images, "encounter": counts.encounters, "annotators": counts.annotator_valid.sum(axis=0),
        "pixels": counts.n_pixels, "staple_rule": counts.staple_rule, "staple_iterations": counts.staple_iterations,
        "staple_converged": counts.staple_converged}), index=False)
    out.write_parquet("per_case.parquet", resampling.per_case_table(counts, empty=empty))
    truth = None
    if isinstance(challenge.source, SyntheticSource):
        from robustness.ranking import kendall_tau

        true_rank = rank(np.array([challenge.source.skill[s] for s in counts.systems]))
        truth = pd.DataFrame([
            dict(zip(keys, key), tau_to_truth=float(kendall_tau(true_rank, g.set_index("system").loc[
                list(counts.systems), "rank"].to_numpy())))
            for key, g in scores_df.groupby(keys, sort=False)])
        out.write_csv("truth.csv", truth, index=False)

    official = "majority" if "majority" in strategies else strategies[0]
    report = _summary_md(challenge, counts, board, points, agreement, boot, tests, spread_df, truth, official,
                         args, empty)
    out.write_text("summary.md", report)

    # -- figures -------------------------------------------------------------------------
    if not args.no_figures:
        from figures import make_all

        out.written.extend(str(p.relative_to(out.path)) for p in make_all(out.path, official=official))

    meta = {
        "command": "python -m experiments.rank_convergence " + " ".join(argv if argv is not None else sys.argv[1:]),
        "parameters": {k: v for k, v in vars(args).items()},
        "empty_policy": empty,
        "seed": args.seed,
        "input": {"fingerprint": fingerprint, "overlap_fingerprint": counts.fingerprint,
                  "images": challenge.n_images, "runs": challenge.n_systems, "annotators": list(challenge.annotators),
                  "data": args.data or f"synthetic (seed {args.synthetic_seed}, size {args.synthetic_size})",
                  "notes": list(challenge.notes)},
        "versions": versions(),
        "wall_time_s": round(time.time() - t_start, 2),
        "pixel_pass_s": round(t_pass, 2),
    }
    out.finish(meta)
    if not args.quiet:
        print(report)
        print(f"wrote {out.path}/ in {time.time() - t_start:.1f} s")
    return 0


def _summary_md(challenge, counts, board, points, agreement, boot, tests, spread, truth, official, args, empty):
    import numpy as np
    import pandas as pd

    from robustness.resampling import adjacent_pairs

    lines = ["# Leaderboard robustness report", ""]
    src = args.data or "the embedded synthetic challenge"
    lines += [f"Input: {src} — {challenge.n_images} images in {len(set(challenge.encounters))} encounters, "
              f"{challenge.n_systems} runs, annotators per image: "
              + ", ".join(f"{k} on {v}" for k, v in challenge.describe()["annotators_per_image"].items()) + ".",
              f"Settings: {args.orders} random orders (unit: {args.unit}), {args.bootstrap} bootstrap resamples "
              f"(unit: {args.bootstrap_unit}), seed {args.seed}, both-empty pairs score: {empty}.", ""]

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
    lines += [_study.md_table(tab.head(15)), ""]
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
              _study.md_table(table.reset_index(), "{:.1f}"), ""]

    # disagreement
    lines += ["## How much do the rankings under different golds disagree? (Kendall's tau, micro Jaccard)", ""]
    m = agreement[(agreement.metric == "jaccard") & (agreement.average == "micro")]
    mat = m.pivot(index="strategy", columns="other", values="tau")
    order = list(dict.fromkeys(m.strategy))
    mat = mat.loc[order, order]
    lines += [_study.md_table(mat.reset_index().rename(columns={"strategy": ""}), "{:.2f}"), ""]

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
    n_nc = int((~counts.staple_converged).sum())
    if n_nc:
        lines += [f"STAPLE did not converge within its iteration cap on {n_nc} image(s): see images.csv.", ""]
    if truth is not None:
        t = truth[truth.metric == "jaccard"].sort_values("tau_to_truth", ascending=False)
        b = t.iloc[0]
        lines += ["## Which gold recovers the true ranking? (synthetic data only)", "",
                  f"Kendall's tau between each scheme's ranking and the runs' true skill: best **{b.strategy}** "
                  f"({b.average}, tau = {b.tau_to_truth:.3f}); full table: truth.csv.", ""]
    lines += ["Figures: figures/fig_02_micro_convergence.png, fig_03_macro_convergence.png, fig_04_forest.png, "
              "fig_05_rank_blobs.png, fig_06_kendall_tau.png.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(_cli.run(main))
