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

from experiments import _cli, _study, _types


def parser() -> argparse.ArgumentParser:
    """The command's argument parser.

    Returns
    -------
    argparse.ArgumentParser
        The parser of ``python -m experiments.score`` (an :class:`experiments._cli.Parser`): the data, scoring
        and output options.
    """
    p = _cli.Parser(prog="python -m experiments.score", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    p.add_argument("--out", required=True, type=_types.output_folder, metavar="DIR", help="output folder (required)")
    _cli.add_scoring_options(p)
    p.add_argument("--seed", type=_types.integer(0), default=0, metavar="N", help="seed for the randN strategies")
    _cli.add_primary_option(p)
    p.add_argument("--n-jobs", type=_types.jobs, default=1, metavar="N",
                   help="worker processes for the pixel pass")
    p.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no table on the terminal")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 once the leaderboard and the official JSON files are written; a bad option or input ends in
        ``error: ...`` and status 2 (through :func:`experiments._cli.run`).
    """
    p = parser()
    args = p.parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        from robustness.results.folder import ResultsDir
        from robustness.studies.scoring import ScoringOptions, score

        strategies = [s.name for s in _cli.strategies(args)]
        primary = _cli.primary_scheme(args, strategies)
        if primary.strategy not in strategies:  # refused before any work
            p.error(f"--primary {primary.text}: its gold strategy {primary.strategy!r} is not among --strategies "
                    f"({','.join(strategies)})")
        challenge = _cli.load(args)
        out = ResultsDir(args.out, fingerprint=challenge.fingerprint(), force=args.force)
        options = ScoringOptions(strategies=tuple(strategies), empty=args.empty, seed=args.seed, primary=primary)
        result = score(challenge, options, n_jobs=args.n_jobs, cache_dir=out.path / "cache",
                       progress=_study.progress(args), source=args.data or args.reference or "the synthetic challenge")
        _cli.say(result.meta["checks"])
        result.meta["primary"]["set_by"] = "organiser" if args.primary else "default"  # the command resolves it
        _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            board = result.tables["leaderboard.csv"]
            head = "_".join(primary.key)  # the headline first, then the MEDIQA-MAGIC scorer's columns
            cols = list(dict.fromkeys(c for c in (head, "majority_jaccard_micro", "majority_dice_micro",
                                                  "max_jaccard_macro", "mean_jaccard_macro") if c in board))
            print(board[cols].to_string(float_format=lambda v: f"{v:.4f}"))
            print(f"\nwrote {out.path / 'leaderboard.csv'} and {out.path / 'official'}/<run>.json")
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
