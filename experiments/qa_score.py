"""Score closed-QA runs exactly as the official MEDIQA-MAGIC 2025 scorer, plus Table 5.

    python -m experiments.qa_score --gold GOLD.json --runs RUNS_DIR --out OUT

Writes ``OUT/leaderboard.csv``, ``OUT/official/<run>.json`` (``accuracy_CQID010`` ...
``accuracy_all``, ``number_cvqa_instances``) and ``OUT/answer_counts.csv`` (Table 5).
"""

from __future__ import annotations

import argparse
import sys

from experiments import _cli, _qa


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.qa_score", description=__doc__.split("\n\n")[0])
    _qa.add_qa_options(p, required=True)
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if not args.runs:
        raise SystemExit("error: --runs DIR is required")
    import json
    from pathlib import Path

    from robustness.results import atomic_write

    gold, runs, _ = _qa.load(args)
    out = Path(args.out)
    board, res = _qa.leaderboard(gold, runs)
    atomic_write(out / "leaderboard.csv", lambda f: f.write(board.to_csv(float_format="%.17g").encode()))
    for name, r in res.items():
        atomic_write(out / "official" / f"{name}.json", lambda f: f.write(json.dumps(r, indent=4).encode()))
    counts = _qa.answer_counts(gold, runs)
    atomic_write(out / "answer_counts.csv", lambda f: f.write(counts.to_csv(index=False).encode()))
    if not args.quiet:
        for a in [gold, *runs]:
            for note in a.notes:
                print(f"note: {note}", file=sys.stderr)
        print(board.to_string(float_format=lambda v: f"{v:.4f}"))
        print(f"\nwrote {out / 'leaderboard.csv'}, {out / 'official'}/<run>.json and {out / 'answer_counts.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
