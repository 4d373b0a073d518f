"""What every resampling study shares: its options, the resampling step, the tables it writes, the finish."""

from __future__ import annotations

import contextlib
import sys
import time


def add_study_options(p, *, out: str, unit: str = "units") -> None:
    """The resampling and execution options every study shares (checked when parsed: see ``_cli.Parser``)."""
    from experiments._cli import integer, number, output_folder, scheduler_address

    g = p.add_argument_group("study")
    g.add_argument("--orders", type=integer(1), default=200, metavar="N", help=f"random orders of {unit} (default 200)")
    g.add_argument("--step", type=integer(1), default=1, metavar="N",
                   help="record every step-th prefix (default 1: all)")
    g.add_argument("--bootstrap", type=integer(1), default=1000, metavar="B", help="bootstrap resamples (default 1000)")
    g.add_argument("--tolerance", type=number(0), default=0.0, metavar="L1",
                   help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--seed", type=integer(0), default=0, metavar="N", help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=output_folder, default=out, metavar="DIR", help=f"output folder (default {out})")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=integer(1), default=1, metavar="N", help="parallel workers (default 1)")
    g.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                   help="run on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
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
    import pandas as pd

    ci = boot.intervals(method="percentile")
    out.write_csv("bootstrap_ci.csv", pd.concat([ci, boot.intervals(method="bca")], ignore_index=True), index=False)
    out.write_csv("rank_distribution.csv", boot.rank_distribution(), index=False)
    out.write_csv("stability.csv", boot.stability(), index=False)
    pairwise = boot.wins_frame()
    if len(tests):
        pairwise = pairwise.merge(tests, on=["strategy", "metric", "average", "system", "other"], how="left")
    out.write_parquet("pairwise.parquet", pairwise)
    return ci


def finish(out, args, *, study: str, argv, started: float, meta: dict) -> None:
    """Draw the study's figures from the results folder (one call), then write ``meta.json``: the folder is complete."""
    if not getattr(args, "no_figures", True):  # the scoring commands draw none
        import matplotlib

        matplotlib.use("Agg")
        from figures import make_all

        out.written.extend(str(p.relative_to(out.staging)) for p in make_all(out.staging, study=study))
    command = f"python -m experiments.{study} " + " ".join(argv if argv is not None else sys.argv[1:])
    out.finish({"study": study, "command": command, "parameters": vars(args), "seed": getattr(args, "seed", None),
                **meta, "wall_time_s": round(time.time() - started, 2)})
