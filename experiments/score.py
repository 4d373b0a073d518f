"""Score every run of a challenge: the leaderboard and the official scorer's JSON per run.

    python -m experiments.score --data CHALLENGE --out OUT [--compat official]

Writes ``OUT/leaderboard.csv`` (one row per run, a column per
strategy x metric x averaging), ``OUT/official/<run>.json`` with the
official MEDIQA-MAGIC 2025 keys, ``summary.md`` (with any warnings about the
input) and ``meta.json``. Counts are cached in ``OUT/cache/``.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study


def parser() -> argparse.ArgumentParser:
    p = _cli.Parser(prog="python -m experiments.score", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    p.add_argument("--out", required=True, type=_cli.output_folder, metavar="DIR", help="output folder (required)")
    _cli.add_scoring_options(p)
    p.add_argument("--seed", type=_cli.integer(0), default=0, metavar="N", help="seed for the randN strategies")
    p.add_argument("--n-jobs", type=_cli.jobs, default=1, metavar="N",
                   help="worker processes for the pixel pass")
    p.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no table on the terminal")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import json

    from robustness.overlap import compute_overlap
    from robustness.reporting.report import Report
    from robustness.reporting.results import ResultsDir, versions
    from robustness.statistics import leaderboard as scores

    chosen = _cli.strategies(args)
    over = [s.name for s in chosen if s.macro_only]
    challenge = _cli.load(args)
    out = ResultsDir(args.out, fingerprint=challenge.fingerprint(), force=args.force)
    counts = compute_overlap(
        challenge, strategies=[s.name for s in chosen if not s.macro_only],
        leave_one_out=False, n_jobs=args.n_jobs, cache_dir=out.path / "cache",
        progress=not args.quiet and sys.stderr.isatty(), rng=args.seed,
    )
    notes = _cli.input_warnings(args, challenge, counts)
    board = scores.leaderboard(counts, empty=args.empty, annotators=over)
    out.write_csv("leaderboard.csv", board)
    if "majority" in counts.strategies:
        for run in counts.runs:
            res = scores.official_results(counts, run, empty=args.empty)
            out.write_text(f"official/{run.replace('/', '__')}.json", json.dumps(res, indent=4))
    report = Report("Scores").paragraph(
        f"Input: {args.data or args.reference or 'the synthetic challenge'} — {challenge.n_images} images, "
        f"{challenge.n_runs} runs; both-empty pairs score: {args.empty}. Tables: leaderboard.csv, "
        "official/<run>.json.")
    _study.finish(out, args, study="score", argv=argv, started=started, report=report, warnings=notes, meta={
        "input": {"fingerprint": counts.fingerprint, "images": challenge.n_images, "runs": challenge.n_runs},
        "versions": versions()})
    if not args.quiet:
        cols = [c for c in ("majority_jaccard_micro", "majority_dice_micro", "max_jaccard_macro",
                            "mean_jaccard_macro") if c in board]
        print(board[cols].to_string(float_format=lambda v: f"{v:.4f}"))
        print(f"\nwrote {out.path / 'leaderboard.csv'} and {out.path / 'official'}/<run>.json")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
