"""Score closed-QA runs exactly as the official MEDIQA-MAGIC 2025 scorer, plus Table 5.

    python -m experiments.qa_score --gold GOLD.json --submissions RUNS_DIR --out OUT

Writes ``OUT/leaderboard.csv``, ``OUT/official/<run>.json`` (``accuracy_CQID010`` ...
``accuracy_all``, ``number_cvqa_instances``), ``OUT/answer_counts.csv`` (Table 5),
``summary.md`` (with any warnings about the input) and ``meta.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _qa, _study, _types


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
    p = _cli.Parser(prog="python -m experiments.qa_score", description=__doc__.split("\n\n")[0])
    _qa.add_qa_options(p, required=True)
    p.add_argument("--out", required=True, type=_types.output_folder, metavar="DIR", help="output folder (required)")
    p.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    p.add_argument("--quiet", action="store_true", help="no table on the terminal")
    return p


def main(argv=None) -> int:
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        from robustness.results.folder import ResultsDir
        from robustness.studies.qa import fingerprint, score

        gold, runs, source = _qa.load(args)
        out = ResultsDir(args.out, fingerprint=fingerprint(gold, runs), force=args.force)
        result = score(gold, runs, source=source)
        _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(result.tables["leaderboard.csv"].to_string(float_format=lambda v: f"{v:.4f}"))
            print(f"\nwrote {out.path / 'leaderboard.csv'}, {out.path / 'official'}/<run>.json and "
                  f"{out.path / 'answer_counts.csv'}")
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
