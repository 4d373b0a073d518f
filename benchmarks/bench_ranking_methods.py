"""What each ranking method costs in the rank-convergence and bootstrap engines, side by side (paper-size counts).

    python -m benchmarks.bench_ranking_methods [--orders 200] [--resamples 1000]

Counts: the default synthetic challenge (40 runs, 314 images in 100
encounters). Aggregate-then-rank ranks 32 schemes; rank-then-aggregate and
test-based rank the 18 macro schemes. Rank-then-aggregate and aggregate curves
add images one at a time (every prefix); test-based curves add encounters (the
tests' unit) and rerun all 780 paired tests of each scheme at every recorded
prefix, so they are timed at the prefix steps 1, 5 and 10. The reference for
test-based is scipy.stats.wilcoxon per pair plus Holm per recorded prefix.
Columns: wall time (one core), cost per recorded prefix and order, the ratio to
the aggregate's curves (the issue's baseline: "no more than today's"), and for
test-based the time per (pair x unit) visited.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--orders", type=int, default=200)
    p.add_argument("--resamples", type=int, default=1000)
    args = p.parse_args(argv)

    from scipy.stats import wilcoxon

    from robustness.overlap import compute_overlap
    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.convergence import rank_convergence
    from robustness.statistics.convergence_options import ConvergenceOptions
    from robustness.statistics.count_schemes import schemes_from_counts
    from robustness.statistics.multiplicity import adjust
    from robustness.statistics.ranking_methods import prepare
    from robustness.synthetic.challenge import make_challenge

    oc = compute_overlap(make_challenge(rng=0), rng=0)
    img, enc = schemes_from_counts(oc, unit="image"), schemes_from_counts(oc, unit="encounter")
    stats = {"aggregate": (img, enc), "rank-then-aggregate": (prepare(img, "rank-then-aggregate"),
                                                             prepare(enc, "rank-then-aggregate"))}
    tests = prepare(enc, "test-based")
    stats["test-based"] = (tests, tests)
    for conv_stats, boot_stats in stats.values():  # compile / load the numba cache outside the timings
        rank_convergence(conv_stats, n_orders=1, options=ConvergenceOptions(step=50), rng=0)
        bootstrap(boot_stats, n_resamples=2, rng=0)
    n_pairs = tests.order.shape[1]
    print(f"{len(img.runs)} runs, {img.n_units} images in {enc.n_units} encounters; K = {args.orders} orders, "
          f"B = {args.resamples} resamples, n_jobs = 1")
    print(f"\n{'method':52s} {'time':>8s} {'per prefix':>11s} {'x aggregate':>12s} {'ns per pair x unit':>19s}")

    def timed(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    base = None
    for name, (conv_stats, _) in stats.items():
        for step in ((1,) if name != "test-based" else (1, 5, 10)):
            k = args.orders if name != "test-based" or step > 1 else max(args.orders // 10, 2)
            t = timed(lambda: rank_convergence(conv_stats, n_orders=k, options=ConvergenceOptions(step=step), rng=1)) * args.orders / k
            prefixes = int(np.ceil(conv_stats.n_units / step))
            base = t if base is None else base
            visits = "" if name != "test-based" else (
                f"{t / (args.orders * prefixes * len(tests.names) * n_pairs * tests.n_units) * 1e9:19.2f}")
            label = f"curves, {name}, step {step}" + ("" if k == args.orders else f" (timed on {k} orders)")
            print(f"{label:52s} {t:7.1f}s {t / (args.orders * prefixes) * 1e3:9.3f}ms {t / base:12.1f} {visits}")
    for name, (_, boot_stats) in stats.items():
        t = timed(lambda: bootstrap(boot_stats, n_resamples=args.resamples, rng=2))
        print(f"{f'bootstrap, {name}':52s} {t:7.1f}s {t / args.resamples * 1e3:9.3f}ms")

    # reference for one recorded prefix of test-based: scipy's wilcoxon per ordered pair, Holm, runs beaten
    per_unit = tests.schemes.unit_scores()
    units = np.random.default_rng(0).permutation(enc.n_units)[:50]
    n_r = per_unit.shape[1]
    t0 = time.perf_counter()
    for s in range(2):
        d = per_unit[s][:, None, units] - per_unit[s][None, :, units]  # (R, R, n)
        i, j = np.nonzero(~np.eye(n_r, dtype=bool))
        p = np.ones(i.size)
        nonzero = (d[i, j] != 0).any(axis=1)
        p[nonzero] = wilcoxon(d[i, j][nonzero], axis=1, alternative="greater", method="asymptotic").pvalue
        np.bincount(i[adjust(p, "holm") < 0.05], minlength=n_r)
    t_ref = (time.perf_counter() - t0) / 2 * len(tests.names)
    w = np.zeros(enc.n_units)
    w[units] = 1
    t_eng = timed(lambda: [tests.scores(w) for _ in range(20)]) / 20
    print(f"\none recorded test-based prefix (50 encounters, {len(tests.names)} schemes x {2 * n_pairs} one-sided tests):"
          f" scipy wilcoxon + Holm {t_ref * 1e3:.1f} ms, engine {t_eng * 1e3:.2f} ms ({t_ref / t_eng:.0f}x)")


if __name__ == "__main__":
    main()
