"""Benchmark of the parallel pixel pass: n_jobs=2 against n_jobs=1, and against the old way of sending batches.

    python -m benchmarks.bench_parallel [--small 10000] [--large 100] [--old-subsets 1000,4000]

Prints, side by side in one run, for two challenges written to disk once under
benchmarks/_data (deflate TIFFs):

1. ``--small`` small images (the synthetic default sizes, 0.01-0.06 MP), 4 runs;
2. ``--large`` images of about 2 MP, 20 runs (the set of benchmarks.bench_score);

the pixel pass (files to counts, no cache) with n_jobs=1 and n_jobs=2 and the
speed-up (target >= 1.6x), cold (a fresh process's first pass, which also
loads numba and the compiled kernels once, serially, about 0.3 s) and warm (a
second pass); worker start-up is included. Then the old scheme (joblib,
batches of 4 images, each carrying the whole challenge: its pickle grows with
the number of images, so the old cost per image grows with the challenge) on
subsets of the small set, to show why it took 18 minutes on 9,420 images.
Timings are the best of ``--repeat`` runs (the machine is shared).
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path

from benchmarks.bench_overlap import as_real_challenge, best

HERE = Path(__file__).resolve().parent



def dataset(n_images, megapixels, name):
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    folder = HERE / "_data" / name
    if not folder.exists():
        t0 = time.perf_counter()
        kw = {"megapixels": megapixels} if megapixels else {}
        ch = make_challenge(n_images=n_images, n_encounters=max(1, n_images // 3), n_runs=4, n_teams=2, rng=0, **kw)
        write_dermavqa(ch, folder, progress=True)
        print(f"(generated and written once in {time.perf_counter() - t0:.0f} s: {folder})")
    return as_real_challenge(folder)


def _old_batch(challenge, images, golds, staple_max_iter):
    from robustness.overlap import count_image

    return [count_image(challenge, i, strategies=golds, staple_max_iter=staple_max_iter) for i in images]


def old_pass(challenge, n_jobs):
    """The scheme before issue 10: joblib over batches of 4 images, every batch pickling the whole challenge."""
    from joblib import Parallel, delayed

    from robustness.overlap.gold import resolve

    golds = [s for s in resolve(None, macro_only="drop") if s.in_pixel_pass]
    batches = [list(range(s, min(s + 4, challenge.n_images))) for s in range(0, challenge.n_images, 4)]
    return Parallel(n_jobs=n_jobs)(delayed(_old_batch)(challenge, b, golds, 1000) for b in batches)


def timed_pass(folder, n_jobs, *, warm=False):
    """Seconds of one pixel pass in a fresh process: cold (the process's first pass, which also loads the
    compiled kernels, as a command's does) or warm (after a pass over two images with the same n_jobs)."""
    import subprocess
    import sys

    code = (f"import time; from robustness.io import load_dermavqa; from robustness.overlap import compute_overlap\n"
            f"ch = load_dermavqa({str(folder)!r})\n"
            + (f"compute_overlap(ch.subset(range(2)), n_jobs={n_jobs}, rng=0)\n" if warm else "")
            + f"t0 = time.perf_counter(); compute_overlap(ch, n_jobs={n_jobs}, rng=0); print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], cwd=HERE.parent, check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", type=int, default=10_000)
    p.add_argument("--large", type=int, default=100, help="images of ~2 MP (20 runs: the score benchmark's set)")
    p.add_argument("--old-subsets", default="1000,4000", help="image counts of the old scheme's runs (small set)")
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)

    import os

    from benchmarks.bench_score import dataset as score_dataset
    from robustness.io import load_dermavqa
    from robustness.overlap import compute_overlap

    print(f"pixel pass, files -> counts, no cache; {os.cpu_count()} cores; best of {args.repeat}; cold: the "
          "process's first pass (it also loads the compiled kernels), warm: a second pass")
    print(f"{'challenge':36s} {'':5s} {'n_jobs=1':>9s} {'n_jobs=2':>9s} {'speed-up':>9s}   batch pickle (new vs old)")
    for n, mp in ((args.small, None), (args.large, 2.0)):
        folder = dataset(n, mp, f"small-{n}") if mp is None else score_dataset(n, 20, mp)
        ch = load_dermavqa(folder)
        new_pickle = len(pickle.dumps(ch.subset(range(min(4, n)))))
        old_pickle = len(pickle.dumps(ch))
        label = f"{n} images, {'~2 MP' if mp else 'small'}, {ch.n_runs} runs"
        for warm in (False, True):
            times = {j: min(timed_pass(folder, j, warm=warm) for _ in range(args.repeat)) for j in (1, 2)}
            print(f"{label:36s} {'warm' if warm else 'cold':5s} {times[1]:8.2f}s {times[2]:8.2f}s "
                  f"{times[1] / times[2]:8.2f}x   {new_pickle / 1e3:.1f} kB per batch vs {old_pickle / 1e6:.1f} MB "
                  "per batch of 4")
        if mp is None:
            for m in (int(x) for x in args.old_subsets.split(",") if x):
                sub = ch.subset(range(min(m, n)))
                t_new = best(lambda: compute_overlap(sub, n_jobs=2, rng=0), 1)
                t_old = best(lambda: old_pass(sub, 2), 1)
                print(f"  {m:6d} images, n_jobs=2: old scheme {t_old:7.1f}s ({t_old / m * 1e3:5.1f} ms/image), "
                      f"new {t_new:6.1f}s ({t_new / m * 1e3:5.1f} ms/image) -> {t_old / t_new:.1f}x")


if __name__ == "__main__":
    main()
