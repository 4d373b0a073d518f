"""How robust is a closed-QA leaderboard to the test-set size? Rank convergence, bootstrap, Table 5.

    python -m experiments.qa_rank_convergence [--gold GOLD.json --runs DIR | --baselines TRAIN.json]

Per-encounter partial-credit scores feed the same ranking, rank-convergence
and bootstrap engine as segmentation (unit: encounter), under one or more
ranking methods (``--ranking``). Without ``--gold`` it studies a synthetic QA
challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _qa, _report, _report_rankings, _study


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

    from robustness.qa import qa_table
    from robustness.reporting.results import ResultsDir, versions
    from robustness.statistics.schemes import schemes_from_table

    gold, runs, source = _qa.load(args, rng=args.seed)
    out = ResultsDir(args.out, fingerprint=_qa.fingerprint(gold, runs), force=args.force)
    board, res = _qa.leaderboard(gold, runs)
    for name, r in res.items():
        out.write_text(f"official/{name}.json", json.dumps(r, indent=4))
    counts = _qa.answer_counts(gold, runs, n_resamples=args.bootstrap, rng=args.seed)
    out.write_csv("answer_counts.csv", counts, index=False)
    table = qa_table(gold, runs)
    out.write_parquet("per_case.parquet", table)
    schemes = schemes_from_table(table, unit_name="encounter")
    with _study.execution(args) as n_jobs:
        convs, boots = _study.resample(schemes, args, n_jobs=n_jobs)
        per_size, _, needed = _study.write_uncertainty(out, schemes, args, n_jobs=n_jobs, tolerance=float(len(runs)))
    out.write_csv("leaderboard.csv", board.join(_study.method_columns(boots, name="accuracy_{metric}_{ranking}")))
    points, _, notes = _study.write_convergence(out, convs, tolerance=args.tolerance, lenient=float(len(runs)),
                                                all_curves=args.all_curves)
    ci, stability, pairwise, agreement = _study.write_bootstrap(out, boots)
    only = _study.only
    report = _report.qa_rank_convergence(source, gold, runs, board, only(ci), only(points), pairwise, counts,
                                         per_size, needed, args)
    _report_rankings.section(report, ci, points, stability, agreement, args, schemes=[("gold", "all", "macro")],
                             case="encounter", unit="encounter", test_unit="encounter",
                             convergence_figure="figures/fig_07_qa_convergence")
    _study.finish(out, args, study="qa_rank_convergence", argv=argv, started=started, report=report,
                  warnings=_qa.notes(gold, runs) + notes, meta={
        "input": {"source": source, "fingerprint": _qa.fingerprint(gold, runs), "encounters": len(gold.encounters),
                  "runs": [r.name for r in runs], "notes": _qa.notes(gold, runs)},
        "ranking": list(args.ranking), "versions": versions(),
    })
    if not args.quiet:
        print(report.to_markdown())
        print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
