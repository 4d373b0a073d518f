"""Score every run of a challenge: the leaderboard and the official scorer's JSON per run.

    python -m experiments.score --data CHALLENGE --out OUT [--compat official]

Writes ``OUT/leaderboard.csv`` (one row per run, a column per
strategy x metric x averaging) and ``OUT/official/<run>.json`` with the
official MEDIQA-MAGIC 2025 keys. Counts are cached in ``OUT/cache/``.
"""

from __future__ import annotations

import argparse
import sys

from experiments import _cli


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.score", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    _cli.add_scoring_options(p)
    p.add_argument("--seed", type=int, default=0, help="seed for the randN strategies (default 0)")
    p.add_argument("--n-jobs", type=int, default=1, help="worker processes for the pixel pass")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    import json
    from pathlib import Path

    from robustness import scores
    from robustness.overlap import compute_overlap
    from robustness.results import atomic_write

    empty = args.empty
    chosen = _cli.strategies(args)
    over = [s.name for s in chosen if s.macro_only]
    challenge = _cli.load(args)
    out = Path(args.out)
    counts = compute_overlap(
        challenge, strategies=[s.name for s in chosen if not s.macro_only],
        n_jobs=args.n_jobs, cache_dir=out / "cache", progress=not args.quiet and sys.stderr.isatty(),
        rng=args.seed,
    )
    board = scores.leaderboard(counts, empty=empty, annotators=over)
    atomic_write(out / "leaderboard.csv", lambda f: f.write(board.to_csv(float_format="%.17g").encode()))
    if "majority" in counts.strategies:
        for run in counts.systems:
            res = scores.official_results(counts, run, empty=empty)
            name = run.replace("/", "__")
            atomic_write(out / "official" / f"{name}.json", lambda f: f.write(json.dumps(res, indent=4).encode()))
    if not args.quiet:
        cols = [c for c in ("majority_jaccard_micro", "majority_dice_micro", "max_jaccard_macro",
                            "mean_jaccard_macro") if c in board]
        print(board[cols].to_string(float_format=lambda v: f"{v:.4f}"))
        print(f"\nwrote {out / 'leaderboard.csv'} and {out / 'official'}/<run>.json")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
