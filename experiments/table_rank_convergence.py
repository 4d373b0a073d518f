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
import dataclasses
import sys
import time

from experiments import _cli, _study


def _weights(text: str) -> tuple:
    """``--task-weights T1=2,T2=1``."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, eq, value = part.rpartition("=")
        try:
            w = float(value)
        except ValueError:
            w = -1.0
        if not eq or not name or not w >= 0 or w == float("inf"):
            raise argparse.ArgumentTypeError(f"expected TASK=WEIGHT pairs with weights >= 0, got {part!r}")
        out.append((name, w))
    if not out or sum(w for _, w in out) <= 0:
        raise argparse.ArgumentTypeError(f"the weights must have a positive sum, got {text!r}")
    return tuple(out)


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
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
    p.add_argument("--consensus", choices=CONSENSUS, default="mean-rank",
                   help="consensus across tasks: mean rank (challengeR's euclidean; BraTS) or median rank")
    p.add_argument("--task-weights", type=_weights, default=(), metavar="T1=W1,..",
                   help="weights of the tasks (or task / metric) in the consensus (default 1 each)")
    p.add_argument("--rankings-only", action="store_true",
                   help="only the leaderboards, consensus and bootstrap rank distributions (seconds); no curves")
    _study.add_ranking_options(p)
    _study.add_study_options(p, out="results/table_rank_convergence", engine_ranking=False)
    p.checks.append(_distinct_columns)
    p.checks.append(_fixed_ties)
    return p


def _fixed_ties(args: argparse.Namespace) -> None:
    """Random ties hold for the leaderboards alone: the curves and intervals need one final ranking."""
    if args.ties == "random" and not args.rankings_only:
        raise ValueError("--ties random: the curves and intervals compare thousands of prefixes and resamples with "
                         "one final ranking and need a fixed tie rule (average, min, max or first); add "
                         "--rankings-only for the leaderboards, consensus and bootstrap rank distributions alone")


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
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        import numpy as np

        from robustness.errors import InputError
        from robustness.io.case_table import SCHEME_COLUMNS, read_case_table
        from robustness.results.folder import ResultsDir
        from robustness.statistics.case_rankings import check_missing, direction, task_scores
        from robustness.statistics.ranks import check_target
        from robustness.statistics.schemes import schemes_from_table
        from robustness.studies.table import TableOptions, engine_limits, fingerprint, run

        ranking = _study.ranking_options(args)
        engine = {"ties": ranking.ties if not args.rankings_only else "average", "alpha": ranking.alpha,
                  "adjustment": ranking.adjustment, "aggregate": ranking.aggregate, "test": ranking.test,
                  "continuity": ranking.continuity}  # the engines rank under the same options (--rankings-only: none)
        options = _study.resampling_options(args, TableOptions, consensus=args.consensus,
                                            task_weights=args.task_weights, **engine)
        table, notes = read_case_table(args.table, case_column=args.case, run_column=args.algorithm,
                                       value_column=args.value, unit_column=args.unit, task_column=args.task,
                                       allow_missing=ranking.missing != "refuse")
        task = args.task or ("task" if "task" in table.columns else None)
        if args.only_task is not None:
            if task is None:
                raise InputError(f"{args.table}: --only-task {args.only_task}: the table has no task column")
            known = list(dict.fromkeys(table[task]))
            if args.only_task not in known:
                raise InputError(f"{args.table}: no task {args.only_task!r} (tasks: {', '.join(known)})")
            table = table[table[task] == args.only_task]
        by = [c for c in ((task,) if task else ()) + SCHEME_COLUMNS if c in table.columns]
        tasks = task_scores(table, case_column=args.case, run_column=args.algorithm, value_column=args.value,
                            by=by, unit_column=args.unit)
        check_target(options.target, len({r for t in tasks for r in t.runs}))
        methods = tuple(args.ranking)  # the leaderboards asked for (the engines add the aggregate)
        check_missing(tasks, methods, ranking)
        known = {t.task for t in tasks}
        unknown = [name for name, _ in args.task_weights if name not in known]
        if unknown:
            raise InputError(f"--task-weights names unknown task(s) {', '.join(unknown)} (tasks: {', '.join(known)})")
        obstacles = ["--rankings-only"] if args.rankings_only else engine_limits(
            tasks, n_tasks=table[task].nunique() if task else 1)
        if not obstacles and args.step >= max(int(t.units.max()) + 1 for t in tasks):
            obstacles.append(f"--step {args.step} leaves fewer than 2 recorded prefixes of the "
                             f"{int(tasks[0].units.max()) + 1} units (use a step below that)")
        schemes = None
        if obstacles and not args.rankings_only:
            notes.append("curves, score intervals and significance not computed: " + "; ".join(obstacles)
                         + " (the rankings, consensus and bootstrap rank distributions are)")
        if not obstacles:
            lower = {t.metric: direction(t, ranking) for t in tasks}
            flip = table["metric"].astype(str).map(lower).to_numpy(dtype=bool) if "metric" in table.columns else \
                np.full(len(table), lower[None])
            engine_table = table.assign(**{args.value: np.where(flip, -table[args.value], table[args.value])})
            schemes = schemes_from_table(engine_table, case_column=args.case, run_column=args.algorithm,
                                         value_column=args.value, unit_column=args.unit)
            if flip.any():  # stored negated, with sign -1: intervals and differences are shown in the metric's sign
                signs = [-1.0 if lower[metric if "metric" in table.columns else None] else 1.0
                         for _, metric, _ in schemes.names]
                schemes = dataclasses.replace(schemes, signs=np.array(signs))
                notes.append("lower is better for " + (", ".join(sorted(str(m) for m, v in lower.items() if v))
                                                       if "metric" in table.columns else "these scores")
                             + ": the engines rank the negated scores (higher is better there); every table shows "
                             "the scores as given")
        _cli.say(notes)
        out = ResultsDir(args.out, fingerprint=fingerprint(tasks), force=args.force)
        with _study.execution(args) as n_jobs:
            result = run(tasks, schemes, options, ranking_options=ranking, methods=methods, source=args.table,
                         unit=args.unit or "case", n_jobs=n_jobs, progress=_study.progress(args), notes=notes)
        text = _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(_study.conclusions(text, out.path))
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
