"""Benchmark of the distance-to-unlimited-data kernel (``margin_l1``) beside a numpy reference and a floor.

    python -m benchmarks.bench_population [--draws 200] [--noise 50] [--runs 40]

The main job's shape: 200 posterior draws x 50 noise vectors x 40 runs per size and scheme. Prints, per call,
(a) a numpy reference that ranks all noise vectors of a draw at once (``scipy.stats.rankdata`` along an axis;
vectorised, so a fair baseline rather than a Python loop), (b) the kernel with ``margin = 0`` and with a margin,
and (c) a floor: a numba loop that only forms the noisy scores and sums them (reading the inputs, no ranking),
which no ranking kernel can beat. Then ``ranking_uncertainty`` on the default synthetic challenge (16 schemes,
200 outer resamples) with ``n_jobs`` 1 and 2, in fresh processes with OpenBLAS's own threads and with one
(``experiments`` sets one: its small matrices gain nothing from BLAS threads, which compete with the batches).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import njit

from benchmarks.bench_overlap import best


@njit(cache=True)
def _floor(draws, noise, scale):
    out = np.empty((draws.shape[0], noise.shape[0]))
    for d in range(draws.shape[0]):
        for f in range(noise.shape[0]):
            total = 0.0
            for r in range(draws.shape[1]):
                total += draws[d, r] + scale * noise[f, r]
            out[d, f] = total
    return out


def _reference(draws, noise, scale, margin):
    from scipy.stats import rankdata

    out = np.empty((draws.shape[0], noise.shape[0]))
    for d, theta in enumerate(draws):
        gap = theta[None, :] - theta[:, None]
        lo = 1.0 + (gap > margin).sum(axis=1)
        hi = lo + (np.abs(gap) <= margin).sum(axis=1) - 1
        r = rankdata(-(theta[None, :] + scale * noise), method="average", axis=1)
        out[d] = (np.maximum(lo - r, 0) + np.maximum(r - hi, 0)).sum(axis=1)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--noise", type=int, default=50)
    p.add_argument("--runs", type=int, default=40)
    args = p.parse_args(argv)

    from robustness._kernels import margin_l1

    rng = np.random.default_rng(0)
    draws = rng.normal(0.5, 0.1, (args.draws, args.runs))
    noise = rng.standard_normal((args.noise, args.runs)) * 0.3
    scale = 0.1
    assert np.array_equal(margin_l1(draws, noise, scale, 0.0), _reference(draws, noise, scale, 0.0))
    _floor(draws, noise, scale)
    rankings = args.draws * args.noise
    ref = best(lambda: _reference(draws, noise, scale, 0.0), 3)
    rows = [("numpy reference (rankdata along an axis), margin 0", ref),
            ("margin_l1 kernel, margin 0", best(lambda: margin_l1(draws, noise, scale, 0.0))),
            ("margin_l1 kernel, margin 0.01", best(lambda: margin_l1(draws, noise, scale, 0.01))),
            ("floor: form the noisy scores and sum them", best(lambda: _floor(draws, noise, scale)))]
    floor = rows[-1][1]
    print(f"{args.draws} draws x {args.noise} noise vectors x {args.runs} runs = {rankings:,} rankings per call")
    print(f"{'':52s} {'per call':>10s} {'per ranking':>12s} {'x reference':>12s} {'x floor':>9s}")
    for label, t in rows:
        print(f"{label:52s} {t * 1e3:8.2f} ms {t / rankings * 1e9:9.0f} ns {ref / t:11.1f}x {t / floor:8.1f}x")

    print("ranking_uncertainty on the default challenge (16 schemes, 200 outer resamples), each in a fresh process:")
    for blas in ("OpenBLAS's own threads", "BLAS one thread (what the commands set)"):
        env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        if blas.startswith("BLAS one"):
            env["OPENBLAS_NUM_THREADS"] = "1"
        times = [_uncertainty_seconds(n_jobs, env) for n_jobs in (1, 2)]
        print(f"  {blas:42s} n_jobs=1 {times[0]:5.1f} s   n_jobs=2 {times[1]:5.1f} s   speed-up "
              f"{times[0] / times[1]:4.2f}x")


_TIMED = """
import time
from robustness.overlap import compute_overlap
from robustness.synthetic.challenge import make_challenge
from robustness.statistics import schemes_from_counts
from robustness.statistics.uncertainty import ranking_uncertainty
sc = schemes_from_counts(compute_overlap(make_challenge(rng=0), rng=0), unit="encounter", metrics=["jaccard"])
ranking_uncertainty(sc, n_resamples=2, n_jobs={n_jobs}, rng=0)  # compiled kernels loaded, workers' code warm
t = []
for _ in range(2):
    t0 = time.perf_counter()
    ranking_uncertainty(sc, n_resamples=200, n_jobs={n_jobs}, rng=0)
    t.append(time.perf_counter() - t0)
print(min(t))
"""


def _uncertainty_seconds(n_jobs, env):
    out = subprocess.run([sys.executable, "-c", _TIMED.format(n_jobs=n_jobs)], env=env, check=True,
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    return float(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
