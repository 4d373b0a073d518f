"""Per-case table rankings: the tie-rule kernel and the bootstrap's paired tests, against their references.

    python -m benchmarks.bench_case_rankings

Prints, side by side in one run:

- ``rank_rows`` (numba) for each tie rule, in ns per ranking of 40 runs, against scipy's ``rankdata`` row by row
  (the reference: the same rule, one call per ranking) and ``np.argsort`` of every row at once (the floor: a sort
  without ties or ranks);
- the bootstrap's paired tests (:func:`robustness.statistics.paired.paired_p_values`: every pair's
  differences sorted once, each resample a pass over the groups) against the plain way (repeat the drawn cases,
  then one Wilcoxon test per pair and resample, :func:`~robustness.statistics.paired.paired_p_values` on repeated cases);
- the table command's bootstrap rank distributions per method on the three-task example (1,000 resamples).

Timings are the best of a few runs on this machine; the ratios are what to read.
"""

from __future__ import annotations

import numpy as np

from benchmarks.bench_overlap import best


def main(argv=None):
    from scipy.stats import rankdata

    from robustness import _kernels
    from robustness.statistics.case_rankings import bootstrap_task_ranks, task_scores
    from robustness.statistics.paired import paired_p_values
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.synthetic.case_tables import example_table

    rng = np.random.default_rng(0)
    scores = np.round(rng.random((20_000, 40)), 2)  # two decimals: many ties
    _kernels.rank_rows(scores[:2], 1e-12, 0)  # compile
    floor = best(lambda: np.argsort(-scores, axis=1), 3)
    print(f"== ranks of {scores.shape[0]} rankings of {scores.shape[1]} runs (scores with 2 decimals: ties)")
    print(f"{'tie rule':10s} {'kernel ns':>10s} {'rankdata ns':>12s} {'x rankdata':>11s} {'argsort floor ns':>17s} "
          f"{'/ floor':>8s}")
    for code, (ours, theirs) in enumerate((("average", "average"), ("min", "min"), ("max", "max"),
                                           ("first", "ordinal"))):
        t = best(lambda: _kernels.rank_rows(scores, 1e-12, code), 3)
        sub = scores[:2000]
        r = best(lambda: [rankdata(-row, method=theirs) for row in sub], repeat=1) * scores.shape[0] / sub.shape[0]
        n = scores.shape[0]
        print(f"{ours:10s} {t / n * 1e9:10.0f} {r / n * 1e9:12.0f} {r / t:11.1f} {floor / n * 1e9:17.0f} "
              f"{t / floor:8.1f}")

    values = np.round(rng.random((6, 40)), 2)
    weights = np.stack([np.bincount(rng.integers(0, 40, 40), minlength=40) for _ in range(300)])
    t_vec = best(lambda: paired_p_values(values, weights, continuity=True), 3)
    t_ref = best(lambda: [paired_p_values(np.repeat(values, w, axis=1), continuity=True) for w in weights],
                 repeat=1)
    print("\n== bootstrap paired Wilcoxon tests: 6 runs (30 ordered pairs), 40 cases, 300 resamples")
    print(f"{'vectorised (sorted once)':28s} {t_vec:8.3f}s")
    print(f"{'reference (repeat + test)':28s} {t_ref:8.3f}s   {t_ref / t_vec:.1f}x slower")

    tasks = task_scores(example_table(), by=["task", "metric"])
    options = RankingOptions(missing="worst")
    print("\n== bootstrap rank distributions, 1,000 resamples per leaderboard (the three-task example: 4 "
          "leaderboards of 6 runs)")
    for method in ("aggregate", "rank-then-aggregate", "test-based"):
        t = best(lambda: [bootstrap_task_ranks(ts, method, options, n_resamples=1000, rng=0) for ts in tasks],
                 repeat=2)
        print(f"{method:22s} {t:7.2f}s for all 4")


if __name__ == "__main__":
    main()
