"""How robust is a closed-QA leaderboard to the test-set size? Rank convergence, bootstrap, Table 5.

    python -m experiments.qa_rank_convergence [--gold GOLD.json --submissions DIR | --baselines TRAIN.json]

Per-encounter partial-credit scores feed the same ranking, rank-convergence
and bootstrap engine as segmentation (unit: encounter), under one or more
ranking methods (``--ranking``). Without ``--gold`` it studies a synthetic QA
challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _qa, _study


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
    p = _cli.Parser(prog="python -m experiments.qa_rank_convergence",
                    description=__doc__.split("\n\n")[0])
    _qa.add_qa_options(p, required=False)
    _study.add_study_options(p, out="results/qa_rank_convergence", unit="encounters")
    return p


def main(argv=None) -> int:
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        from robustness.results.folder import ResultsDir
        from robustness.statistics.ranks import check_target
        from robustness.studies.qa import QAOptions, fingerprint, run

        options = _study.resampling_options(args, QAOptions)
        gold, runs, source = _qa.load(args, rng=args.seed)
        check_target(options.target, len(runs))
        out = ResultsDir(args.out, fingerprint=fingerprint(gold, runs), force=args.force)
        with _study.execution(args) as n_jobs:
            result = run(gold, runs, options, source=source, n_jobs=n_jobs, progress=_study.progress(args))
        text = _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(_study.conclusions(text, out.path))
            print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
