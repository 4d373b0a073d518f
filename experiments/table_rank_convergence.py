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

from experiments import _cli, _report, _study


def parser() -> argparse.ArgumentParser:
    p = _cli.Parser(prog="python -m experiments.table_rank_convergence",
                    description=__doc__.split("\n\n")[0])
    p.add_argument("--table", required=True, metavar="PATH", help="per-case scores (.csv or .parquet)")
    p.add_argument("--case", default="case", help="case column (default case)")
    p.add_argument("--algorithm", default="algorithm", help="algorithm column (default algorithm)")
    p.add_argument("--value", default="value", help="score column (default value)")
    p.add_argument("--unit", metavar="COLUMN", help="column grouping cases into resampling units (default: cases)")
    _study.add_study_options(p, out="results/table_rank_convergence")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import hashlib

    from robustness.case_table import read_case_table
    from robustness.comparisons import pairwise_tests, strategy_agreement
    from robustness.results import ResultsDir, versions
    from robustness.schemes import schemes_from_table

    table, notes = read_case_table(args.table, case=args.case, algorithm=args.algorithm, value=args.value,
                                   unit=args.unit)
    _cli.say(notes)
    schemes = schemes_from_table(table, case=args.case, algorithm=args.algorithm, value=args.value, unit=args.unit)
    _cli.check_study(args, n_units=schemes.n_units, unit="units", n_runs=len(schemes.systems))
    fingerprint = hashlib.sha256(schemes.x.tobytes() + repr(schemes.names).encode()
                                 + "|".join(schemes.systems).encode()).hexdigest()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    with _study.execution(args) as n_jobs:
        conv, boot = _study.resample(schemes, args, n_jobs=n_jobs)
    tests = pairwise_tests(schemes)
    points = _study.write_convergence(out, conv, tolerance=args.tolerance, lenient=float(len(schemes.systems)))
    ci = _study.write_bootstrap(out, boot, tests)
    out.write_csv("agreement.csv", strategy_agreement(schemes), index=False)
    report = _report.table_rank_convergence(schemes, ci, points, args)
    out.write_text("summary.md", report + _report.warnings_section(notes))
    _study.finish(out, args, study="table_rank_convergence", argv=argv, started=started, meta={
        "input": {"table": args.table, "fingerprint": fingerprint}, "versions": versions(), "warnings": notes})
    if not args.quiet:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
