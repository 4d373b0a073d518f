"""How robust is a closed-QA leaderboard to the test-set size? Rank convergence, bootstrap, Table 5.

    python -m experiments.qa_rank_convergence [--gold GOLD.json --runs DIR | --baselines TRAIN.json]

Per-encounter partial-credit scores feed the same ranking, rank-convergence
and bootstrap engine as segmentation (unit: encounter). Without ``--gold`` it
studies a synthetic QA challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _qa, _report, _study


def parser() -> argparse.ArgumentParser:
    p = _cli.Parser(prog="python -m experiments.qa_rank_convergence",
                    description=__doc__.split("\n\n")[0])
    _qa.add_qa_options(p, required=False)
    _study.add_study_options(p, out="results/qa_rank_convergence", unit="encounters")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import json

    from robustness.comparisons import pairwise_tests
    from robustness.qa import qa_table
    from robustness.results import ResultsDir, versions
    from robustness.schemes import schemes_from_table

    gold, runs, source = _qa.load(args, rng=args.seed)
    out = ResultsDir(args.out, fingerprint=_qa.fingerprint(gold, runs), force=args.force)
    board, res = _qa.leaderboard(gold, runs)
    out.write_csv("leaderboard.csv", board)
    for name, r in res.items():
        out.write_text(f"official/{name}.json", json.dumps(r, indent=4))
    counts = _qa.answer_counts(gold, runs)
    out.write_csv("answer_counts.csv", counts, index=False)
    table = qa_table(gold, runs)
    out.write_parquet("per_case.parquet", table)
    schemes = schemes_from_table(table)
    with _study.execution(args) as n_jobs:
        conv, boot = _study.resample(schemes, args, n_jobs=n_jobs)
    tests = pairwise_tests(schemes)
    points = _study.write_convergence(out, conv, tolerance=args.tolerance, lenient=float(len(runs)))
    ci = _study.write_bootstrap(out, boot, tests)
    report = _report.qa_rank_convergence(source, gold, runs, board, ci, points, boot, counts, args)
    notes = _qa.notes(gold, runs)
    out.write_text("summary.md", report + _report.warnings_section(notes))
    _study.finish(out, args, study="qa_rank_convergence", argv=argv, started=started, meta={
        "input": {"source": source, "fingerprint": _qa.fingerprint(gold, runs), "encounters": len(gold.encounters),
                  "runs": [r.name for r in runs], "notes": notes},
        "versions": versions(), "warnings": notes,
    })
    if not args.quiet:
        print(report)
        print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
