"""Score closed-QA runs exactly as the official MEDIQA-MAGIC 2025 scorer, plus Table 5.

    python -m experiments.qa_score --gold GOLD.json --runs RUNS_DIR --out OUT

Writes ``OUT/leaderboard.csv``, ``OUT/official/<run>.json`` (``accuracy_CQID010`` ...
``accuracy_all``, ``number_cvqa_instances``), ``OUT/answer_counts.csv`` (Table 5),
``summary.md`` (with any warnings about the input) and ``meta.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _qa, _study


def parser() -> argparse.ArgumentParser:
    p = _cli.Parser(prog="python -m experiments.qa_score", description=__doc__.split("\n\n")[0])
    _qa.add_qa_options(p, required=True)
    p.add_argument("--out", required=True, type=_cli.output_folder, metavar="DIR", help="output folder (required)")
    p.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    p.add_argument("--quiet", action="store_true", help="no table on the terminal")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import json

    from robustness.reporting.report import Report
    from robustness.reporting.results import ResultsDir, versions

    gold, runs, source = _qa.load(args)
    out = ResultsDir(args.out, fingerprint=_qa.fingerprint(gold, runs), force=args.force)
    board, res = _qa.leaderboard(gold, runs)
    out.write_csv("leaderboard.csv", board)
    for name, r in res.items():
        out.write_text(f"official/{name}.json", json.dumps(r, indent=4))
    counts = _qa.answer_counts(gold, runs)
    out.write_csv("answer_counts.csv", counts, index=False)
    notes = _qa.notes(gold, runs)
    report = Report("Closed-QA scores").paragraph(
        f"Input: {source} — {len(gold.encounters)} encounters, {len(runs)} runs. Tables: leaderboard.csv, "
        "official/<run>.json, answer_counts.csv (Table 5, with 95% bootstrap intervals over encounters).")
    _study.finish(out, args, study="qa_score", argv=argv, started=started, report=report, warnings=notes, meta={
        "input": {"source": source, "fingerprint": _qa.fingerprint(gold, runs)}, "versions": versions()})
    if not args.quiet:
        print(board.to_string(float_format=lambda v: f"{v:.4f}"))
        print(f"\nwrote {out.path / 'leaderboard.csv'}, {out.path / 'official'}/<run>.json and "
              f"{out.path / 'answer_counts.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
