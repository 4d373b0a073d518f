"""The main job: how robust is the leaderboard to the gold standard and to the test-set size?

    python -m experiments.rank_convergence [--data CHALLENGE] [--out results/rank_convergence]

Reproduces the MEDIQA-MAGIC 2025 overview's robustness analysis (Figures 2
and 3: L1 rank change as test images are added in random order; Table 4:
standard deviations from the annotators' spread) with many orders and bands,
bootstrap confidence intervals, rank stability and pairwise comparisons, under
one or more ranking methods (``--ranking``), and writes tidy tables, figures
(PNG and PDF), ``summary.md`` and ``meta.json``. Without ``--data`` it studies
the embedded synthetic challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _report, _report_rankings, _study


def parser() -> argparse.ArgumentParser:
    p = _cli.Parser(prog="python -m experiments.rank_convergence",
                    description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("scoring")
    _cli.add_scoring_options(g)
    g.add_argument("--unit", choices=("image", "encounter"), default="image",
                   help="unit added one by one in the random orders (default image, as in the paper)")
    g.add_argument("--bootstrap-unit", choices=("image", "encounter"), default="encounter",
                   help="unit resampled by the bootstrap (default encounter: its images are not independent)")
    _study.add_study_options(p, out="results/rank_convergence", unit="images",
                             test_unit="the bootstrap unit (the tests' unit; default encounters)")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import numpy as np
    import pandas as pd

    from robustness.overlap import compute_overlap
    from robustness.overlap.empty import empty_policy
    from robustness.overlap.gold import official_strategy
    from robustness.reporting.results import ResultsDir, versions
    from robustness.statistics import leaderboard as scores
    from robustness.statistics import spread
    from robustness.statistics.schemes import per_case_frames, schemes_from_counts
    from robustness.statistics.truth import truth_agreement

    empty = empty_policy(args.empty)
    chosen = _cli.strategies(args)
    counted = [s.name for s in chosen if not s.macro_only]
    over = [s.name for s in chosen if s.macro_only]
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))

    challenge = _cli.load(args)
    fingerprint = challenge.fingerprint()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    say(f"{challenge.n_images} images, {challenge.n_runs} runs, {challenge.n_annotators} annotators -> {out.path}")

    def schemes(unit):
        return schemes_from_counts(counts, unit=unit, empty=empty, annotators=over)

    lenient = float(challenge.n_runs)  # L1 <= number of runs: runs move one place on average
    with _study.execution(args) as n_jobs:
        t0 = time.time()
        counts = compute_overlap(challenge, strategies=counted, n_jobs=n_jobs, cache_dir=out.path / "cache",
                                 progress=_study.progress(args), rng=args.seed)
        t_pass = time.time() - t0
        conv_schemes = schemes(args.unit)
        boot_schemes = conv_schemes if args.bootstrap_unit == args.unit else schemes(args.bootstrap_unit)
        convs, boots = _study.resample(conv_schemes, args, n_jobs=n_jobs, boot_schemes=boot_schemes)
        per_size, _, needed = _study.write_uncertainty(out, boot_schemes, args, n_jobs=n_jobs, tolerance=lenient)
        truth = None
        if counts.has_truth:
            truth = truth_agreement(boot_schemes, counts, n_resamples=args.bootstrap, n_jobs=n_jobs,
                                    rng=np.random.default_rng([args.seed, 4]))
            out.write_csv("truth.csv", truth[0], index=False)

    # -- tables: one source for every score table, robustness.statistics.leaderboard (the official-equal reductions)
    # (other ranking methods: their statistic and rank from the bootstrap's full-set estimate)
    scores_df = scores.scores_frame(counts, empty=empty, annotators=over, ranks=True)
    scores_df.insert(3, "ranking", "aggregate")
    ci_all = [b.intervals() for name, b in boots.items() if name != "aggregate"]
    scores_df = pd.concat([scores_df] + [c[list(scores_df.columns)] for c in ci_all], ignore_index=True)
    board = scores.leaderboard(counts, empty=empty, annotators=over)
    out.write_csv("leaderboard.csv", board.join(_study.method_columns(boots)))
    out.write_csv("scores.csv", scores_df, index=False)
    points, comparison, curve_notes = _study.write_convergence(out, convs, tolerance=args.tolerance,
                                                               lenient=lenient, all_curves=args.all_curves)
    ci, stability, pairwise, agreement = _study.write_bootstrap(out, boots)
    spread_empty = empty_policy("one") if empty.propagates else empty  # z-scores need numbers, not 0/0
    spread_df = pd.concat([
        spread.gold_spread(counts, metric=metric, variant=variant, empty=spread_empty, n_resamples=args.bootstrap,
                           rng=np.random.default_rng([args.seed, 5])).assign(metric=metric, variant=variant)
        for metric in ("jaccard", "dice") for variant in ("staple", "leave_one_out")
        if "staple" in counts.strategies or variant == "leave_one_out"], ignore_index=True)
    out.write_csv("gold_spread.csv", spread_df, index=False)
    out.write_csv("images.csv", pd.concat([pd.DataFrame({
        "image": counts.images, "encounter": counts.encounters, "annotators": counts.annotator_valid.sum(axis=0),
        "pixels": counts.n_pixels}), counts.fit_frame()], axis=1), index=False)
    out.write_parquet_frames("per_case.parquet", per_case_frames(conv_schemes, counts))

    official = official_strategy(counted)
    notes = _cli.input_warnings(args, challenge, counts) + curve_notes
    only = _study.only
    report = _report.rank_convergence(challenge, counts, board, only(ci), only(points), only(comparison),
                                      only(agreement), pairwise, per_size, needed, spread_df, truth, official, args,
                                      empty, boot_schemes.unit, boot_schemes.n_units)
    _report_rankings.section(report, ci, points, stability, agreement, args, schemes=[(official, "jaccard", "macro")],
                             case="image", unit=args.unit, test_unit=boot_schemes.unit,
                             convergence_figure="figures/fig_03_macro_convergence")
    _study.finish(out, args, study="rank_convergence", argv=argv, started=started, report=report, warnings=notes,
                  meta={
        "empty_policy": empty.name,
        "strategies": [s.name for s in chosen],
        "ranking": list(args.ranking),
        "input": {"fingerprint": fingerprint, "overlap_fingerprint": counts.fingerprint,
                  "images": challenge.n_images, "runs": challenge.n_runs, "annotators": list(challenge.annotators),
                  "data": args.data or f"synthetic (seed {args.synthetic_seed}, size {args.synthetic_size})",
                  "notes": list(challenge.notes)},
        "versions": versions(),
        "pixel_pass_s": round(t_pass, 2),
    })
    if not args.quiet:
        print(report.to_markdown())
        print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
