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

from experiments import _cli, _study


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
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
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    started = time.time()
    from robustness.io.case_table import read_case_table
    from robustness.reporting.results import ResultsDir
    from robustness.statistics.schemes import schemes_from_table
    from robustness.studies.table import TableOptions, fingerprint, run

    options = _study.resampling_options(args, TableOptions)
    table, table_notes = read_case_table(args.table, case_column=args.case, run_column=args.algorithm,
                                         value_column=args.value, unit_column=args.unit)
    _cli.say(table_notes)
    schemes = schemes_from_table(table, case_column=args.case, run_column=args.algorithm, value_column=args.value,
                                 unit_column=args.unit)
    _cli.check_study(args, n_units=schemes.n_units, unit="units", n_runs=len(schemes.runs))
    out = ResultsDir(args.out, fingerprint=fingerprint(schemes), force=args.force)
    with _study.execution(args) as n_jobs:
        result = run(schemes, options, source=args.table, n_jobs=n_jobs, progress=_study.progress(args),
                     notes=table_notes)
    text = _study.finish(out, result, args, argv=argv, started=started)
    if not args.quiet:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
