"""Rank convergence and bootstrap for per-case scores from any pipeline (a challengeR-style table).

    python -m experiments.table_rank_convergence --table SCORES.csv [--unit encounter] --out OUT

The table has one row per case and algorithm with a score (higher is
better) in long format: columns ``case, algorithm, value`` (names can be
changed), optionally ``strategy`` and ``metric`` to hold several schemes, and
a column grouping cases into resampling units. CSV or Parquet. Scores are
averaged over cases (macro), as challengeR does.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.table_rank_convergence",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--table", required=True, metavar="PATH", help="per-case scores (.csv or .parquet)")
    p.add_argument("--case", default="case", help="case column (default case)")
    p.add_argument("--algorithm", default="algorithm", help="algorithm column (default algorithm)")
    p.add_argument("--value", default="value", help="score column (default value)")
    p.add_argument("--unit", metavar="COLUMN", help="column grouping cases into resampling units (default: cases)")
    _study.add_study_options(p, out="results/table_rank_convergence")
    return p


def read_table(path):
    from pathlib import Path

    import pandas as pd

    from robustness.errors import InputError

    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    try:
        return pd.read_parquet(path) if path.suffix.lower() in (".parquet", ".pq") else pd.read_csv(path)
    except Exception as exc:
        raise InputError(f"{path}: cannot read the table ({type(exc).__name__}: {exc})") from None


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    t_start = time.time()
    import hashlib

    from robustness import resampling
    from robustness.results import ResultsDir, versions

    table = read_table(args.table)
    schemes = resampling.schemes_from_table(table, case=args.case, algorithm=args.algorithm, value=args.value,
                                            unit=args.unit)
    fingerprint = hashlib.sha256(schemes.x.tobytes() + repr(schemes.names).encode()
                                 + "|".join(schemes.systems).encode()).hexdigest()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    progress = not args.quiet and sys.stderr.isatty()
    conv, boot = _study.resample(schemes, args, progress=progress)
    tests = resampling.pairwise_tests(schemes)
    points = _study.write_convergence(out, conv, tolerance=args.tolerance, lenient=float(len(schemes.systems)))
    ci = _study.write_bootstrap(out, boot, tests)
    out.write_csv("agreement.csv", resampling.strategy_agreement(schemes), index=False)
    lines = ["# Per-case table: leaderboard robustness", "",
             f"Input: {args.table} — {len(schemes.systems)} algorithms, {schemes.n_units} units, "
             f"{len(schemes.names)} scheme(s); {args.orders} orders, {args.bootstrap} resamples, seed {args.seed}.", ""]
    for strat, metric, average in schemes.names:
        c = ci[(ci.strategy == strat) & (ci.metric == metric)].sort_values("score", ascending=False)
        p = points[(points.strategy == strat) & (points.metric == metric)]
        lines += [f"## {strat} / {metric}", "", _study.md_table(c[["system", "score", "low", "high", "rank"]]), "",
                  "Convergence points (95% of orders): "
                  + ", ".join(f"L1 <= {r.tolerance:g} at n = {r.convergence_n}" for r in p.itertuples())
                  + f"; area under the mean L1 curve {p.auc.iloc[0]:.2f}.", ""]
    report = "\n".join(lines)
    out.write_text("summary.md", report)
    if not args.no_figures:
        _study.write_figure(out, "fig_08_table_convergence")
    out.finish({"command": "python -m experiments.table_rank_convergence "
                + " ".join(argv if argv is not None else sys.argv[1:]),
                "parameters": vars(args), "seed": args.seed, "input": {"table": args.table, "fingerprint": fingerprint},
                "versions": versions(), "wall_time_s": round(time.time() - t_start, 2)})
    if not args.quiet:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
