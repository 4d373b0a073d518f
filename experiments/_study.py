"""Tables every resampling study writes (segmentation and QA alike)."""

from __future__ import annotations


def write_convergence(out, conv, *, tolerance: float, lenient: float):
    """orders.csv, curves.parquet, curves_summary.csv, convergence.csv; returns the convergence points."""
    import pandas as pd

    out.write_csv("orders.csv", conv.orders_frame(), index=False)
    out.write_parquet("curves.parquet", conv.to_frame())
    out.write_csv("curves_summary.csv", conv.summary(level=0.9), index=False)
    points = pd.concat([conv.convergence_points(tolerance=tolerance).assign(tolerance=tolerance),
                        conv.convergence_points(tolerance=lenient).assign(tolerance=lenient)], ignore_index=True)
    out.write_csv("convergence.csv", points, index=False)
    return points


def write_bootstrap(out, boot, tests):
    """bootstrap_ci.csv, rank_distribution.csv, stability.csv, pairwise.parquet; returns the percentile CIs."""
    import numpy as np
    import pandas as pd

    ci = boot.intervals(method="percentile")
    out.write_csv("bootstrap_ci.csv", pd.concat([ci, boot.intervals(method="bca")], ignore_index=True), index=False)
    out.write_csv("rank_distribution.csv", boot.rank_distribution(), index=False)
    out.write_csv("stability.csv", boot.stability(), index=False)
    systems = np.asarray(boot.schemes.systems, dtype=object)
    wins = []
    for s, (strat, metric, average) in enumerate(boot.schemes.names):
        w = boot.wins[s]
        ii, jj = np.where(~np.eye(w.shape[0], dtype=bool))
        wins.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average, "system": systems[ii],
                                  "other": systems[jj], "win_share": w[ii, jj]}))
    pairwise = pd.concat(wins, ignore_index=True)
    if len(tests):
        pairwise = pairwise.merge(tests, on=["strategy", "metric", "average", "system", "other"], how="left")
    out.write_parquet("pairwise.parquet", pairwise)
    return ci


def md_table(df, floatfmt="{:.4f}"):
    """A pandas frame as a Markdown table."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_figure(out, name: str):
    """Draw ``figures.<name>`` from the results in ``out`` into ``out/figures`` (PNG + PDF) and record the files."""
    import importlib

    import matplotlib

    matplotlib.use("Agg")
    module = importlib.import_module(f"figures.{name}")
    for path in module.make(out.path, out.path / "figures" / name):
        out.written.append(str(path.relative_to(out.path)))


def add_study_options(p, *, out: str, unit: str = "units") -> None:
    """The resampling and execution options every study shares."""
    g = p.add_argument_group("study")
    g.add_argument("--orders", type=int, default=200, help=f"random orders of {unit} (default 200)")
    g.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    g.add_argument("--tolerance", type=float, default=0.0, help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--seed", type=int, default=0, help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", default=out, metavar="DIR", help=f"output folder (default {out})")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=int, default=1, help="parallel workers (default 1)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run the resampling on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
    g.add_argument("--quiet", action="store_true", help="no progress bars, no report on the terminal")


def resample(schemes, args, *, progress: bool):
    """Rank convergence and bootstrap of ``schemes`` as the study options say (local or on Dask)."""
    import numpy as np

    from robustness import resampling

    with resampling.parallel_backend(args.scheduler, n_workers=max(args.n_jobs, 1)):
        n_jobs = max(args.n_jobs, 2) if args.scheduler else args.n_jobs
        conv = resampling.rank_convergence(schemes, n_orders=args.orders, n_jobs=n_jobs, progress=progress,
                                           rng=np.random.default_rng([args.seed, 1]))
        boot = resampling.bootstrap(schemes, n_resamples=args.bootstrap, n_jobs=n_jobs, progress=progress,
                                    rng=np.random.default_rng([args.seed, 2]))
    return conv, boot
