"""What every resampling study shares: its options, the resampling step, the tables it writes, the finish."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

#: Test-based curves record every TEST_STEP-th prefix: each recorded prefix reruns every paired test (measured in
#: the README and benchmarks/bench_ranking_methods.py: about 5 ms per recorded prefix and order on the default
#: challenge; with step 5 the main job with all three ranking methods takes about a minute of CPU).
TEST_STEP = 5


def _rankings(text: str) -> tuple:
    """``--ranking``: the registry's methods, validated before any work; aggregate is always computed."""
    from robustness.statistics.ranking_methods import DEFAULT_RANKING, parse_rankings

    try:
        names = parse_rankings(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return tuple(dict.fromkeys(DEFAULT_RANKING + names))


def add_study_options(p, *, out: str, unit: str = "units", test_unit: str | None = None) -> None:
    """The resampling and execution options every study shares (checked when parsed: see ``_cli.Parser``)."""
    from experiments._cli import integer, jobs, number, orders, output_folder, resamples, scheduler_address, step
    from robustness.statistics.ranking_methods import RANKING_METHODS

    g = p.add_argument_group("study")
    g.add_argument("--orders", type=orders, default=200, metavar="N", help=f"random orders of {unit} (default 200)")
    g.add_argument("--step", type=step, default=1, metavar="N",
                   help="record every step-th prefix (default 1: all)")
    g.add_argument("--bootstrap", type=resamples, default=1000, metavar="B", help="bootstrap resamples (default 1000)")
    g.add_argument("--ranking", type=_rankings, default="aggregate", metavar="M1,M2,..",
                   help="ranking methods, several at once: " + "; ".join(
                       f"{m.name}: {m.description}".replace("%", "%%") for m in RANKING_METHODS.values())
                   + " (default aggregate; aggregate is always computed: the significance analysis and the "
                   "distance to unlimited data use it)")
    g.add_argument("--test-step", type=step, default=TEST_STEP, metavar="N",
                   help=f"test-based curves record every N-th prefix of {test_unit or unit} (default {TEST_STEP}): "
                        "every recorded prefix reruns all paired tests (measured on the default synthetic "
                        "challenge: 4 to 5 ms per recorded prefix and order, about 15 s of CPU at 200 orders and step 5; "
                        "the main job with all three methods stays under 2 minutes)")
    g.add_argument("--tolerance", type=number(0), default=0.0, metavar="L1",
                   help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--seed", type=integer(0), default=0, metavar="N", help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=output_folder, default=out, metavar="DIR", help=f"output folder (default {out})")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=jobs, default=1, metavar="N", help="parallel workers (default 1)")
    g.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                   help="run on a Dask cluster ('local' starts one)")
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
    """Rank convergence of ``schemes`` and bootstrap of ``boot_schemes`` (default the same), per ranking method.

    Returns ``({method: Convergence}, {method: BootstrapResult})`` in the order
    of ``--ranking`` (aggregate first). Every method's bootstrap draws the same
    resamples (same seed, same units: paired). Test-based curves add the
    bootstrap's units (the tests' unit) one at a time and record every
    ``--test-step``-th prefix; the other methods follow ``--unit`` and ``--step``.
    """
    import numpy as np

    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.convergence import rank_convergence
    from robustness.statistics.ranking_methods import prepare

    boot_schemes = schemes if boot_schemes is None else boot_schemes
    convs, boots = {}, {}
    for name in args.ranking:
        boot_stats = prepare(boot_schemes, name)
        if name == "test-based":
            conv_stats, step = boot_stats, args.test_step
        else:
            conv_stats, step = (boot_stats if boot_schemes is schemes else prepare(schemes, name)), args.step
        convs[name] = rank_convergence(conv_stats, n_orders=args.orders, step=step, n_jobs=n_jobs,
                                       progress=progress(args), rng=np.random.default_rng([args.seed, 1]))
        boots[name] = bootstrap(boot_stats, n_resamples=args.bootstrap, n_jobs=n_jobs, progress=progress(args),
                                rng=np.random.default_rng([args.seed, 2]))
    return convs, boots


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


def write_convergence(out, convs: dict, *, tolerance: float, lenient: float, all_curves: bool = False):
    """orders.csv, curves.parquet (streamed), curves_summary.csv, convergence.csv, strategy_comparison.csv,
    every ranking method's rows one after the other (column ``ranking``).

    Returns ``(points, comparison, notes)``.
    """
    import pandas as pd

    convs = list(convs.values())
    out.write_csv("orders.csv", pd.concat([c.orders_frame().assign(ranking=c.ranking) for c in convs],
                                          ignore_index=True), index=False)
    notes, frames = [], []
    for c in convs:
        orders, note = curve_orders(c, all_curves=all_curves)
        frames.append((c, orders))
        notes += [f"{c.ranking}: {note}"] if note else []
    out.write_parquet_frames("curves.parquet", (f for c, orders in frames for f in c.iter_frames(orders=orders)))
    out.write_csv("curves_summary.csv", pd.concat([c.summary(confidence=0.9) for c in convs], ignore_index=True),
                  index=False)
    points = pd.concat([c.convergence_points(tolerance=t).assign(tolerance=t)
                        for c in convs for t in dict.fromkeys((tolerance, lenient))], ignore_index=True)
    out.write_csv("convergence.csv", points, index=False)
    comparison = pd.concat([c.compare_strategies() for c in convs], ignore_index=True)
    out.write_csv("strategy_comparison.csv", comparison, index=False)
    return points, comparison, notes


def write_bootstrap(out, boots: dict, *, agreement_file: str = "kendall_tau.csv"):
    """bootstrap_ci.csv, rank_distribution.csv, stability.csv (every ranking method, column ``ranking``),
    pairwise.parquet (the significance analysis, of the aggregate scores) and the agreement between methods and
    golds (``agreement_file``).

    Returns ``(percentile CIs, stability, pairwise comparisons, agreement)``.
    """
    import pandas as pd

    from robustness.statistics.comparisons import pairwise_comparisons, ranking_agreement

    ci = pd.concat([b.intervals(method="percentile") for b in boots.values()], ignore_index=True)
    out.write_csv("bootstrap_ci.csv", pd.concat([ci] + [b.intervals(method="bca") for b in boots.values()],
                                                ignore_index=True), index=False)
    out.write_csv("rank_distribution.csv", pd.concat([b.rank_distribution() for b in boots.values()],
                                                     ignore_index=True), index=False)
    stability = pd.concat([b.stability() for b in boots.values()], ignore_index=True)
    out.write_csv("stability.csv", stability, index=False)
    pairwise = pairwise_comparisons(boots["aggregate"])
    out.write_parquet("pairwise.parquet", pairwise)
    agreement = ranking_agreement(boots.values())
    out.write_csv(agreement_file, agreement, index=False)
    return ci, stability, pairwise, agreement


def only(frame, ranking: str = "aggregate"):
    """The rows of one ranking method (tables of one method keep today's reports and figures)."""
    if "other_ranking" in frame:
        frame = frame[frame.other_ranking == ranking]
    return frame[frame.ranking == ranking].reset_index(drop=True)


def method_columns(boots: dict, *, name: str = "{strategy}_{metric}_{average}_{ranking}"):
    """Every non-aggregate method's statistic per run and scheme as leaderboard columns named by ``name``."""
    import pandas as pd

    columns = {}
    for method, b in boots.items():
        if method == "aggregate":
            continue
        ci = b.intervals()
        for (strat, metric, average), d in ci.groupby(["strategy", "metric", "average"], sort=False):
            columns[name.format(strategy=strat, metric=metric, average=average, ranking=method)] = \
                d.set_index("system").score
    return pd.DataFrame(columns)


def write_uncertainty(out, schemes, args, *, n_jobs: int, tolerance: float):
    """ranking_uncertainty.csv, rank_keep.csv, test_set_size.csv: the distance to unlimited data (bootstrap).

    Returns ``(per_size, per_run, needed)``.
    """
    import numpy as np

    from robustness.statistics.uncertainty import ranking_uncertainty, units_needed

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
    "kendall_tau.csv": "agreement between the rankings under different golds and ranking methods, with bootstrap "
                       "intervals",
    "gold_spread.csv": "Table 4: standard deviations from the annotators' spread, all variants",
    "images.csv": "per image: annotators, pixels, STAPLE diagnostics",
    "per_case.parquet": "per-case scores (challengeR long format)",
    "truth.csv": "synthetic data: agreement of each scheme with the ranking against the latent truth",
    "answer_counts.csv": "Table 5 with bootstrap intervals",
    "agreement.csv": "Kendall's tau between the schemes' and ranking methods' rankings, with bootstrap intervals",
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
    report.paragraph("Every table of this results folder (meta.json lists every file, figures included).")
    rows = []
    for name in sorted(n for n in dict.fromkeys(out.written) if n.endswith((".csv", ".parquet"))):
        path = out.staging / name
        if name.endswith(".parquet"):
            meta = pq.ParquetFile(path).metadata
            shape = (meta.num_rows, meta.num_columns)
        else:
            head = pd.read_csv(path, nrows=0)
            shape = (sum(1 for _ in open(path, "rb")) - 1, len(head.columns))
        rows.append({"file": name, "rows": shape[0], "columns": shape[1],
                     "holds": TABLES.get(name.split("/")[-1], "")})
    report.table(pd.DataFrame(rows))


def finish(out, args, *, study: str, argv, started: float, meta: dict, report=None, warnings=()) -> None:
    """Draw the figures (one call), write summary.md and report.html from ``report`` with its Warnings section,
    then meta.json (last; ``warnings`` kept there as a list of strings)."""
    if not getattr(args, "no_figures", True):  # the scoring commands draw none
        import matplotlib

        matplotlib.use("Agg")
        from figures import make_all

        out.written.extend(str(p.relative_to(out.staging)) for p in make_all(out.staging, study=study))
    elif report is not None:
        report.blocks = [b for b in report.blocks if b[0] != "figure"]
    if report is not None:
        report.warnings(warnings)
        _files_section(report, out)
        out.write_text("summary.md", report.to_markdown())
        out.write_text("report.html", report.to_html(out.staging))
    meta = dict(meta, warnings=list(warnings))
    command = f"python -m experiments.{study} " + " ".join(argv if argv is not None else sys.argv[1:])
    out.finish({"study": study, "command": command, "parameters": vars(args), "seed": getattr(args, "seed", None),
                **meta, "wall_time_s": round(time.time() - started, 2)})
