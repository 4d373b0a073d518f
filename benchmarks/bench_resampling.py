"""Benchmark of the resampling engine on counts of paper size, side by side with a straightforward reference.

    python -m benchmarks.bench_resampling [--orders 1000] [--resamples 1000]

Counts: the default synthetic challenge (40 runs x 314 images), 7 gold
strategies; schemes = 7 strategies x {Jaccard, Dice} x {micro, macro} + mean
and max over annotators x {Jaccard, Dice} = 32 rankings per prefix.

Prints, for rank convergence, orders x prefixes per second of
(a) a reference that loops over orders and prefixes, scores with
robustness.overlap.metrics and ranks with scipy.stats.rankdata (timed on a few
orders), (b) the engine with n_jobs=1 and n_jobs=2, at K = --orders; and for
the bootstrap, resamples per second of a per-resample numpy reference vs the
engine at B = --resamples and B = 10,000.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--orders", type=int, default=1000)
    p.add_argument("--resamples", type=int, default=1000)
    args = p.parse_args(argv)

    from scipy.stats import rankdata

    from robustness.overlap import compute_overlap, metrics
    from robustness.statistics import rank_convergence, schemes_from_counts
    from robustness.statistics.bootstrap import bootstrap
    from robustness.synthetic.challenge import make_challenge

    oc = compute_overlap(make_challenge(rng=0), rng=0)
    sc = schemes_from_counts(oc)
    se = schemes_from_counts(oc, unit="encounter")
    n_s, n_u, n_r = len(sc.names), sc.n_units, len(sc.runs)
    print(f"counts: {n_r} runs x {n_u} images x {len(oc.strategies)} strategies -> {n_s} schemes")

    # warm up (numba compile / cache load)
    rank_convergence(sc, n_orders=2, rng=0)
    bootstrap(se, n_resamples=2, rng=0)

    # ---------------------------------------------------------------- rank convergence
    def score_subset(name, images):
        strat, metric, average = name
        if strat in ("mean", "max"):
            return metrics.macro_over_annotators(oc.annotator_counts[:, :, images], oc.annotator_valid[:, images],
                                                 metric, how=strat)
        c = oc.strategy_counts(strat)[:, images]
        return metrics.micro(c, metric) if average == "micro" else metrics.macro(c, metric)

    ref_orders = 2
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(ref_orders):
        order = rng.permutation(n_u)
        for name in sc.names:
            final = rankdata(-score_subset(name, np.arange(n_u)))
            for n in range(1, n_u + 1):
                np.abs(rankdata(-score_subset(name, order[:n])) - final).sum()
    t_ref = (time.perf_counter() - t0) / ref_orders
    ref_rate = n_u / t_ref

    print(f"\n== rank convergence, every prefix (n = 1..{n_u}), {n_s} schemes")
    print(f"{'method':42s} {'time':>9s} {'orders x prefixes/s':>20s} {'x reference':>12s} {'ns/ranking':>11s}")
    print(f"{'(a) reference: loops + scipy rankdata':42s} {t_ref:8.2f}s {ref_rate:20.0f} {1:12.0f} "
          f"{t_ref / (n_u * n_s) * 1e9:11.0f}   (per order, {ref_orders} orders timed)")
    for n_jobs in (1, 2):
        t0 = time.perf_counter()
        rank_convergence(sc, n_orders=args.orders, n_jobs=n_jobs, rng=1)
        t = time.perf_counter() - t0
        rate = args.orders * n_u / t
        print(f"{f'(b) engine, K={args.orders}, n_jobs={n_jobs}':42s} {t:8.2f}s {rate:20.0f} {rate / ref_rate:12.0f} "
              f"{t / (args.orders * n_u * n_s) * 1e9 * n_jobs:11.0f}")

    # ---------------------------------------------------------------- bootstrap
    n_enc = se.n_units
    enc = np.asarray(oc.encounters)
    members = [np.flatnonzero(enc == u) for u in se.units]
    ref_b = 20
    t0 = time.perf_counter()
    for _ in range(ref_b):
        draw = rng.integers(0, n_enc, n_enc)
        images = np.concatenate([members[u] for u in draw])
        for name in se.names:
            rankdata(-score_subset(name, images))
    t_refb = (time.perf_counter() - t0) / ref_b
    print(f"\n== bootstrap over {n_enc} encounters, {n_s} schemes (scores, ranks, Kendall tau, pairwise wins)")
    print(f"{'method':42s} {'time':>9s} {'resamples/s':>20s} {'x reference':>12s}")
    print(f"{'(a) reference: numpy per resample':42s} {t_refb:8.4f}s {1 / t_refb:20.0f} {1:12.0f}   (per resample)")
    for b in (args.resamples, 10_000):
        for n_jobs in (1, 2):
            t0 = time.perf_counter()
            bootstrap(se, n_resamples=b, n_jobs=n_jobs, rng=1)
            t = time.perf_counter() - t0
            print(f"{f'(b) engine, B={b}, n_jobs={n_jobs}':42s} {t:8.2f}s {b / t:20.0f} {b / t * t_refb:12.0f}")


if __name__ == "__main__":
    main()
