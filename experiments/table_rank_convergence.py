"""Rank convergence and bootstrap for per-case scores from any pipeline (a challengeR-style table).

    python -m experiments.table_rank_convergence --table SCORES.csv [--unit encounter] --out OUT

The table has one row per case and algorithm with a score (higher is
better) in long format: columns ``case, algorithm, value`` (names can be
changed), optionally ``strategy`` and ``metric`` to hold several schemes, and
a column grouping cases into resampling units. CSV or Parquet. Scores are
averaged over cases (macro), as challengeR does; ``--ranking`` adds
rank-then-aggregate and test-based leaderboards.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _report, _report_rankings, _study


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

    from robustness.io.case_table import read_case_table
    from robustness.reporting.results import ResultsDir, versions
    from robustness.statistics.schemes import schemes_from_table

    table, table_notes = read_case_table(args.table, case_column=args.case, run_column=args.algorithm,
                                         value_column=args.value,
                                         unit_column=args.unit)
    _cli.say(table_notes)
    schemes = schemes_from_table(table, case_column=args.case, run_column=args.algorithm, value_column=args.value,
                                 unit_column=args.unit)
    _cli.check_study(args, n_units=schemes.n_units, unit="units", n_runs=len(schemes.runs))
    fingerprint = hashlib.sha256(schemes.x.tobytes() + repr(schemes.names).encode()
                                 + "|".join(schemes.runs).encode()).hexdigest()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    with _study.execution(args) as n_jobs:
        convs, boots = _study.resample(schemes, args, n_jobs=n_jobs)
        per_size, _, needed = _study.write_uncertainty(out, schemes, args, n_jobs=n_jobs,
                                                       tolerance=float(len(schemes.runs)))
    points, _, notes = _study.write_convergence(out, convs, tolerance=args.tolerance,
                                                lenient=float(len(schemes.runs)), all_curves=args.all_curves)
    ci, stability, pairwise, agreement = _study.write_bootstrap(out, boots, agreement_file="agreement.csv")
    report = _report.table_rank_convergence(schemes, _study.only(ci), _study.only(points), pairwise, per_size, needed,
                                            args)
    _report_rankings.section(report, ci, points, stability, agreement, args, schemes=schemes.names[:4], case="case",
                             unit=schemes.unit, test_unit=schemes.unit,
                             convergence_figure="figures/fig_08_table_convergence")
    _study.finish(out, args, study="table_rank_convergence", argv=argv, started=started, report=report,
                  warnings=table_notes + notes, meta={
                      "input": {"table": args.table, "fingerprint": fingerprint}, "ranking": list(args.ranking),
                      "versions": versions()})
    if not args.quiet:
        print(report.to_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
