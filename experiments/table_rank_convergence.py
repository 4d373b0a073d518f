"""Rankings, rank convergence and bootstrap for per-case scores from any pipeline (a challengeR-style table).

    python -m experiments.table_rank_convergence --table SCORES.csv [--task task] [--unit encounter] --out OUT
    python -m experiments.table_rank_convergence --table SCORES.csv --preset challenger --lower-better

The table has one row per case and algorithm with a score in long format:
columns ``case, algorithm, value`` (names can be changed), optionally a task
column (each task is its own leaderboard, with its own cases), ``strategy`` and
``metric`` columns holding several schemes, and a column grouping cases into
resampling units. CSV or Parquet. Higher scores are better unless
``--lower-better``. Every task is ranked under every ``--ranking`` method with
the ranking options (``ranking.csv``), the tasks are combined into a consensus
(``consensus.csv``), and bootstrap rank distributions use the same options.
One-task tables also get the main job's curves, intervals and significance.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study

#: The largest task weight: weights are relative (``T1=2,T2=1``); 1e308 made the weighted sums overflow and every
#: run tie in the consensus.
MAX_TASK_WEIGHT = 1e6


def _weights(text: str) -> tuple:
    """``--task-weights T1=2,T2=1``."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, eq, value = part.rpartition("=")
        try:
            w = float(value)
        except ValueError:
            w = -1.0
        if not eq or not name or not 0 <= w <= MAX_TASK_WEIGHT:
            raise argparse.ArgumentTypeError(f"expected TASK=WEIGHT pairs with weights from 0 to at most "
                                             f"{MAX_TASK_WEIGHT:g} (they are relative: T1=2,T2=1), got "
                                             f"{part[:60]!r}")
        out.append((name, w))
    if not out or sum(w for _, w in out) <= 0:
        raise argparse.ArgumentTypeError(f"the weights must have a positive sum, got {text!r}")
    return tuple(out)


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
    from experiments._types import integer
    from robustness.statistics.ranking_options import CONSENSUS

    p = _cli.Parser(prog="python -m experiments.table_rank_convergence",
                    description=__doc__.split("\n\n")[0])
    p.add_argument("--table", required=True, metavar="PATH", help="per-case scores (.csv or .parquet)")
    p.add_argument("--case", default="case", help="case column (default case)")
    p.add_argument("--algorithm", default="algorithm", help="algorithm column (default algorithm)")
    p.add_argument("--value", default="value", help="score column (default value)")
    p.add_argument("--unit", metavar="COLUMN", help="column grouping cases into resampling units (default: cases)")
    p.add_argument("--task", metavar="COLUMN",
                   help="task column: each task is its own leaderboard (default: task, when the table has it)")
    p.add_argument("--only-task", metavar="NAME", help="rank this task only")
    p.add_argument("--consensus", choices=CONSENSUS, default=None,
                   help="consensus across tasks: mean rank (BraTS; the default), median rank, challengeR's "
                        "euclidean (each task's ranks re-ranked with average ties, then averaged; the default "
                        "under --preset challenger), borda or copeland (as R's relations defines them: per task "
                        "the runs at or above the run; the runs above minus those below; summed) or "
                        "pairwise-majority (pairs of runs compared by majority over the tasks: wins minus losses)")
    p.add_argument("--task-weights", type=_weights, default=(), metavar="T1=W1,..",
                   help="weights of the tasks (or task / metric) in the consensus, relative, each at most 1e6 "
                        "(default 1 each)")
    p.add_argument("--top", type=integer(1), metavar="K",
                   help="also list the runs ranked K or better per leaderboard (more where runs tie at the cut; "
                        "challengeR's subset(top = K)): top.csv and a report section")
    _study.add_rope_option(p)
    p.add_argument("--rankings-only", action="store_true",
                   help="only the leaderboards, consensus and bootstrap rank distributions (seconds); no curves")
    _study.add_ranking_options(p)
    _study.add_study_options(p, out="results/table_rank_convergence", engine_ranking=False)
    p.checks.append(_distinct_columns)
    p.checks.append(_study.fixed_ties)
    return p


def _distinct_columns(args: argparse.Namespace) -> None:
    """Each column option names its own column (``--unit case`` would group the cases by themselves)."""
    roles = {"--case": args.case, "--algorithm": args.algorithm, "--value": args.value, "--unit": args.unit,
             "--task": args.task}
    seen: dict[str, str] = {}
    for option, column in roles.items():
        if column is None:
            continue
        if column in seen:
            hint = " (the cases are the resampling units by default: leave --unit out)" \
                if option == "--unit" and seen[column] == "--case" else ""
            raise ValueError(f"{option} {column!r} is also {seen[column]}: each option names its own column{hint}")
        seen[column] = option


def main(argv=None) -> int:
    """Run the command on ``argv`` (default: the command line); returns the exit status.

    A bad option exits as argparse does (``SystemExit(2)``, every command alike); bad input found after the options
    are parsed (a refusal of the table or of what the options ask of it) prints one line ``error: ...`` and returns
    2, as the shell command exits.
    """
    args = parser().parse_args(argv)
    return _cli.run(lambda _: _main(args, argv), argv)


def _main(args: argparse.Namespace, argv) -> int:
    with _study.feedback(args):
        started = time.time()
        from dataclasses import replace

        from robustness.io.case_table import CaseColumns, read_case_table
        from robustness.results.folder import ResultsDir
        from robustness.studies.table import TableOptions, engine_ranking, fingerprint, prepare, run

        ranking = _study.ranking_options(args)
        consensus = args.consensus or ("euclidean" if ranking.semantics == "challenger" else "mean-rank")
        options = _study.resampling_options(args, TableOptions, consensus=consensus,
                                            task_weights=args.task_weights, top=args.top, rope=args.rope,
                                            **engine_ranking(ranking, rankings_only=args.rankings_only))
        columns = CaseColumns(case=args.case, run=args.algorithm, value=args.value, unit=args.unit, task=args.task)
        table, notes = read_case_table(args.table, case_column=columns.case, run_column=columns.run,
                                       value_column=columns.value, unit_column=columns.unit, task_column=columns.task,
                                       allow_missing=ranking.missing != "refuse")
        methods = tuple(args.ranking)  # the leaderboards asked for (the engines add the aggregate)
        prepared = prepare(table, options, ranking, source=args.table, columns=columns, only_task=args.only_task,
                           methods=methods, rankings_only=args.rankings_only)
        prepared = replace(prepared, notes=notes + prepared.notes)  # reading's notes first
        notes = prepared.notes
        _cli.say(notes)
        out = ResultsDir(args.out, fingerprint=fingerprint(prepared.tasks), force=args.force)
        with _study.execution(args) as n_jobs:
            result = run(prepared, options, ranking_options=ranking, methods=methods, n_jobs=n_jobs,
                         progress=_study.progress(args))
        _cli.say([w for w in result.warnings if w not in notes])  # what the rankings and curves noted
        text = _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(_study.conclusions(text, out.path))
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
