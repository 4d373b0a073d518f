"""Benchmark of the design study's population pool: how sharp per second, old way beside new, and a floor.

    python -m benchmarks.bench_pool [--images 3000] [--runs 40]

A run population of the default challenge (40 runs; the images ``--quick`` simulates, about 1,400 pixels)
scored on a pool of independent images, three ways, in one run:

(a) the previous pool: every run draws its own noise, each run's mask is made and counted with numpy;
(b) common random numbers: the runs share their draws (each through its own parameters), masks made and counted;
(c) the pool as the design study now draws it: common random numbers, and the kernel ``rater_counts`` forms
    each run's field, upsamples and counts it without making the mask.

For each: milliseconds per image, and the pool's own distance to unlimited data (L1 between the rankings on its
two halves, halved; micro and macro Jaccard), the number that must be small; (b) against (c) is the kernel
against making and counting the masks with numpy, on the same draws. The floor is the part of an image no
counting can remove: drawing the lesion and the runs' shared noise (``generate_image`` with no runs).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np


def _pool_l1(counts):
    from robustness.overlap.metrics import macro, micro
    from robustness.statistics.ranks import rank

    first = np.arange(counts.shape[1]) < counts.shape[1] // 2
    return [float(np.abs(rank(f(counts[:, first], "jaccard")) - rank(f(counts[:, ~first], "jaccard"))).sum() / 2)
            for f in (micro, macro)]


def _masks_counted(src, n, runs, common):
    from robustness.synthetic.lesions import generate_image

    out = np.empty((len(runs), n, 3), dtype=np.int64)
    for i in range(n):
        m = generate_image(src, i, annotators=False, common_runs=common)
        t = m[("truth", "truth")]
        for r, name in enumerate(runs):
            x = m[("run", name)]
            tp = int(np.count_nonzero(x & t))
            out[r, i] = (tp, int(x.sum()) - tp, int(t.sum()) - tp)
    return out


def _kernel_counted(src, n, runs):
    from robustness.synthetic.lesions import generate_image

    out = np.empty((len(runs), n, 3), dtype=np.int64)
    for i in range(n):
        out[:, i] = generate_image(src, i, annotators=False, common_runs=True, run_counts=True)[("run", "counts")]
    return out


def _floor(src, n):
    from robustness.synthetic.lesions import generate_image

    empty = replace(src.population, runs=(), run_skill=np.zeros(0), run_bias=np.zeros(0), team_of=())
    bare = replace(src, population=empty)
    for i in range(n):
        generate_image(bare, i, annotators=False, common_runs=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--images", type=int, default=3000)
    p.add_argument("--runs", type=int, default=40)
    args = p.parse_args(argv)

    from robustness.synthetic.challenge import SyntheticConfig, draw_population, make_challenge

    n = args.images
    config = SyntheticConfig(n_encounters=n, n_images=n, max_images_per_encounter=1, n_runs=args.runs,
                             size="small", megapixels=0.00137)
    pop = draw_population(config, 3)
    src = make_challenge(config, rng=1, population=pop).source
    _kernel_counted(src, 5, pop.runs)  # compile / load the kernels
    rows = []
    for name, fn in (("(a) own draws, masks counted", lambda: _masks_counted(src, n, pop.runs, False)),
                     ("(b) common draws, masks counted", lambda: _masks_counted(src, n, pop.runs, True)),
                     ("(c) common draws, kernel counts", lambda: _kernel_counted(src, n, pop.runs))):
        t0 = time.perf_counter()
        counts = fn()
        dt = time.perf_counter() - t0
        rows.append((name, dt / n * 1e3, *_pool_l1(counts)))
    t0 = time.perf_counter()
    _floor(src, n)
    floor = (time.perf_counter() - t0) / n * 1e3
    print(f"pool of {n} independent images, {args.runs} runs, about {src.shapes[0][0] * src.shapes[0][1]} pixels "
          "each (one process)")
    print(f"{'':34s} {'ms/image':>9s} {'x (a)':>7s} {'x floor':>8s} {'pool L1 micro':>14s} {'macro':>6s}")
    base = rows[0][1]
    for name, ms, l1_micro, l1_macro in rows:
        print(f"{name:34s} {ms:9.3f} {base / ms:7.2f} {ms / floor:8.2f} {l1_micro:14.1f} {l1_macro:6.1f}")
    print(f"{'floor: lesion and shared draws only':34s} {floor:9.3f} {base / floor:7.2f} {1:8.2f}")


if __name__ == "__main__":
    main()
