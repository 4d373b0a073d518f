"""What every resampling study shares: its options, the resampling step, the tables it writes, the finish."""

from __future__ import annotations

import contextlib
import sys
import time


def add_study_options(p, *, out: str, unit: str = "units") -> None:
    """The resampling and execution options every study shares."""
    g = p.add_argument_group("study")
    g.add_argument("--orders", type=int, default=200, help=f"random orders of {unit} (default 200)")
    g.add_argument("--step", type=int, default=1, help="record every step-th prefix (default 1: all)")
    g.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    g.add_argument("--tolerance", type=float, default=0.0, help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--seed", type=int, default=0, help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", default=out, metavar="DIR", help=f"output folder (default {out})")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=int, default=1, help="parallel workers (default 1)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
    g.add_argument("--all-curves", action="store_true",
                   help="write every order's curve to curves.parquet (default: all up to 5 million rows)")
    g.add_argument("--quiet", action="store_true", help="no progress bars, no report on the terminal")


def progress(args) -> bool:
    """Progress bars only on a terminal and without --quiet."""
    return not args.quiet and sys.stderr.isatty()


@contextlib.contextmanager
def execution(args):
    """The parallel backend the options ask for (local joblib or Dask); yields the ``n_jobs`` to use."""
    from robustness.parallel import parallel_backend

    with parallel_backend(args.scheduler, n_workers=max(args.n_jobs, 1)):
        yield max(args.n_jobs, 2) if args.scheduler else args.n_jobs


def resample(schemes, args, *, n_jobs: int, boot_schemes=None):
    """Rank convergence of ``schemes`` and bootstrap of ``boot_schemes`` (default the same) as the options say."""
    import numpy as np

    from robustness.bootstrap import bootstrap
    from robustness.convergence import rank_convergence

    conv = rank_convergence(schemes, n_orders=args.orders, step=args.step, n_jobs=n_jobs, progress=progress(args),
                            rng=np.random.default_rng([args.seed, 1]))
    boot = bootstrap(schemes if boot_schemes is None else boot_schemes, n_resamples=args.bootstrap, n_jobs=n_jobs,
                     progress=progress(args), rng=np.random.default_rng([args.seed, 2]))
    return conv, boot


#: curves.parquet holds every order's curve up to this many rows (more: the first orders that fit, or --all-curves).
CURVE_ROWS = 5_000_000


def curve_orders(conv, *, all_curves: bool = False):
    """The orders whose full curves curves.parquet holds, and a note when that is not all of them."""
    per_order = len(conv.schemes.names) * conv.positions.size
    k = conv.n_orders if all_curves else min(conv.n_orders, max(1, CURVE_ROWS // per_order))
    note = None if k == conv.n_orders else (
        f"curves.parquet holds the curves of the first {k} of {conv.n_orders} orders ({k * per_order} rows; "
        "every order would take more than 5 million rows): curves_summary.csv and convergence.csv use all "
        "orders; --all-curves writes every order")
    return range(k), note


def write_convergence(out, conv, *, tolerance: float, lenient: float, all_curves: bool = False):
    """orders.csv, curves.parquet (streamed), curves_summary.csv, convergence.csv, strategy_comparison.csv.

    Returns ``(points, comparison, notes)``.
    """
    import pandas as pd

    out.write_csv("orders.csv", conv.orders_frame(), index=False)
    orders, note = curve_orders(conv, all_curves=all_curves)
    out.write_parquet_frames("curves.parquet", conv.iter_frames(orders=orders))
    out.write_csv("curves_summary.csv", conv.summary(level=0.9), index=False)
    points = pd.concat([conv.convergence_points(tolerance=t).assign(tolerance=t)
                        for t in dict.fromkeys((tolerance, lenient))], ignore_index=True)
    out.write_csv("convergence.csv", points, index=False)
    comparison = conv.compare_strategies()
    out.write_csv("strategy_comparison.csv", comparison, index=False)
    return points, comparison, [note] if note else []


def write_bootstrap(out, boot):
    """bootstrap_ci.csv, rank_distribution.csv, stability.csv, pairwise.parquet (the significance analysis).

    Returns ``(percentile CIs, pairwise comparisons)``.
    """
    import pandas as pd

    from robustness.comparisons import pairwise_comparisons

    ci = boot.intervals(method="percentile")
    out.write_csv("bootstrap_ci.csv", pd.concat([ci, boot.intervals(method="bca")], ignore_index=True), index=False)
    out.write_csv("rank_distribution.csv", boot.rank_distribution(), index=False)
    out.write_csv("stability.csv", boot.stability(), index=False)
    pairwise = pairwise_comparisons(boot)
    out.write_parquet("pairwise.parquet", pairwise)
    return ci, pairwise


def write_uncertainty(out, schemes, args, *, n_jobs: int, tolerance: float):
    """ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv: the distance to unlimited data (bootstrap).

    Returns ``(per_size, per_run, needed)``.
    """
    import numpy as np

    from robustness.uncertainty import ranking_uncertainty, units_needed

    per_size, per_run = ranking_uncertainty(schemes, n_resamples=args.bootstrap, n_jobs=n_jobs,
                                            rng=np.random.default_rng([args.seed, 3]))
    needed = units_needed(per_size, tolerance=tolerance)
    out.write_csv("ranking_uncertainty.csv", per_size, index=False)
    out.write_csv("rank_keep.csv", per_run, index=False)
    out.write_csv("test_set_size.csv", needed, index=False)
    return per_size, per_run, needed


#: What each table holds, for the report's list of files.
TABLES = {
    "leaderboard.csv": "one row per run, a column per strategy_metric_average",
    "scores.csv": "every score and rank, tidy",
    "orders.csv": "the random orders of units",
    "curves.parquet": "L1 of every order at every prefix",
    "curves_summary.csv": "mean L1 and the 90% band of orders per prefix",
    "convergence.csv": "convergence points with intervals over orders; AUC with its Monte Carlo interval",
    "strategy_comparison.csv": "paired AUC differences between strategies (intervals over orders)",
    "bootstrap_ci.csv": "every score with percentile and BCa 95% intervals",
    "rank_distribution.csv": "share of resamples in which each run takes each rank",
    "stability.csv": "Kendall's tau between the full-set ranking and the resamples'",
    "pairwise.parquet": "the significance analysis: every pair of runs, paired bootstrap and Wilcoxon, Holm",
    "ranking_uncertainty.csv": "expected L1 to the ranking on unlimited data, by test-set size (bootstrap)",
    "rank_keep.csv": "probability that each run keeps its rank (bootstrap at the test set's size)",
    "test_set_size.csv": "units needed for an expected L1 within the number of runs",
    "kendall_tau.csv": "agreement between the rankings under different golds, with bootstrap intervals",
    "gold_spread.csv": "Table 4: standard deviations from the annotators' spread, all variants",
    "images.csv": "per image: annotators, pixels, STAPLE diagnostics",
    "per_case.parquet": "per-case scores (challengeR long format)",
    "truth.csv": "synthetic data: agreement of each scheme with the ranking against the latent truth",
    "answer_counts.csv": "Table 5 with bootstrap intervals",
    "agreement.csv": "Kendall's tau between the schemes' rankings",
    "design.csv": "the design study: one row per setting, replicate and scheme",
    "design_summary.csv": "the design study: means over replicates with 95% intervals",
    "coverage.csv": "bootstrap interval coverage per setting, replicate, unit and method",
    "coverage_summary.csv": "bootstrap interval coverage: means over replicates with 95% intervals",
    "fit.csv": "the real challenge's statistics beside its fitted synthetic twin's",
    "recommendation_sizes.csv": "test-set sizes needed per scheme for the targets",
}


def _files_section(report, out):
    """The report's list of every table the run wrote: what it holds, rows and columns, a preview."""
    import pandas as pd
    import pyarrow.parquet as pq

    report.heading("Files")
    report.paragraph("Every table of this results folder (meta.json lists every file; figures are above).")
    rows = []
    for name in sorted(n for n in dict.fromkeys(out.written) if n.endswith((".csv", ".parquet"))):
        path = out.path / name
        if name.endswith(".parquet"):
            meta = pq.ParquetFile(path).metadata
            shape = (meta.num_rows, meta.num_columns)
        else:
            head = pd.read_csv(path, nrows=0)
            shape = (sum(1 for _ in open(path, "rb")) - 1, len(head.columns))
        rows.append({"file": name, "rows": shape[0], "columns": shape[1],
                     "holds": TABLES.get(name.split("/")[-1], "")})
    report.table(pd.DataFrame(rows))


def finish(out, args, *, study: str, argv, started: float, meta: dict, report) -> None:
    """Draw the figures (one call), write summary.md and report.html from ``report``, then meta.json (last)."""
    if not args.no_figures:
        import matplotlib

        matplotlib.use("Agg")
        from figures import make_all

        out.written.extend(str(p.relative_to(out.path)) for p in make_all(out.path, study=study))
    else:
        report.blocks = [b for b in report.blocks if b[0] != "figure"]
    _files_section(report, out)
    out.write_text("summary.md", report.to_markdown())
    out.write_text("report.html", report.to_html(out.path))
    command = f"python -m experiments.{study} " + " ".join(argv if argv is not None else sys.argv[1:])
    out.finish({"study": study, "command": command, "parameters": vars(args), "seed": args.seed, **meta,
                "wall_time_s": round(time.time() - started, 2)})
