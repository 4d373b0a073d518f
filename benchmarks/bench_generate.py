"""Benchmark of the synthetic generator's masks: every rater's mask of an image in one kernel call or one by one.

    python -m benchmarks.bench_generate [--images 400] [--repeats 5]

The default challenge's images (40 runs, four annotators; the masks the main job, the design study's test sets and
the calibration's pixel pass draw), every mask of each image made, in one run:

(a) the previous way: each rater's coarse field formed with numpy (the max over its kept blobs, plus its level and
    noise) and upsampled by ``upsample_positive``, one call per rater;
(b) now: ``rater_masks`` forms and upsamples every rater's mask of the image in one call.

Both draw the same masks (checked here, bit for bit). The floor is what no mask-making can remove: the lesion and its
truth mask, every rater's draws and smoothed noise (``generate_image`` with the masks' kernel replaced by one that
makes none). CPU milliseconds per image, best of ``--repeats``, the three
run in turn (a shared machine's load then falls on all three alike), one process.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np


def _one_by_one(fields, keep, false_blobs, level, amp, noise, empty, shape):
    """``rater_masks`` as the generator computed it before: numpy per rater, one upsampling call each."""
    from robustness._kernels import upsample_positive

    (start, n_extra), (rows, noise_of) = false_blobs, noise
    n_b = keep.shape[1]
    out = []
    for r in range(keep.shape[0]):
        chosen = fields[:n_b][keep[r]]
        if n_extra[r]:
            chosen = np.concatenate([chosen, fields[n_b + start[r]:n_b + start[r] + n_extra[r]]])
        if empty[r] or not len(chosen):
            out.append(np.zeros(shape, dtype=bool))
            continue
        f = chosen.max(axis=0) + level[r] + amp[r] * rows[noise_of[r]]
        out.append(upsample_positive(np.ascontiguousarray(f, dtype=np.float64), *shape))
    return out


def _draw_all(src, n):
    return [src.generate(i) for i in range(n)]


def _interleaved(ways, repeats):
    """The best CPU time of each way, the ways run in turn ``repeats`` times (a shared machine's load hits all)."""
    best = [np.inf] * len(ways)
    for _ in range(repeats):
        for k, fn in enumerate(ways):
            t0 = time.process_time()
            fn()
            best[k] = min(best[k], time.process_time() - t0)
    return best


def _patched(value, fn):
    """``fn`` run with the generator's masks kernel replaced by ``value``."""
    from robustness.synthetic import lesions

    def run():
        with mock.patch.object(lesions, "rater_masks", value):
            return fn()
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--images", type=int, default=400)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)

    from robustness.synthetic.challenge import SyntheticConfig, make_challenge

    src = make_challenge(SyntheticConfig(), rng=1).source
    n = min(args.images, len(src.shapes))
    _draw_all(src, 3)  # compile / load the kernels
    before = _patched(_one_by_one, lambda: _draw_all(src, n))()
    now = _draw_all(src, n)
    same = all(a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a) for a, b in zip(before, now))
    t_before, t_now, t_floor = _interleaved((_patched(_one_by_one, lambda: _draw_all(src, n)),
                                             lambda: _draw_all(src, n),
                                             _patched(lambda *args: [], lambda: _draw_all(src, n))), args.repeats)
    pixels = int(np.mean([np.prod(s) for s in src.shapes[:n]]))
    print(f"{n} images of the default challenge ({len(src.population.runs)} runs, "
          f"{len(src.population.annotators)} annotators, about {pixels} pixels each; one process, CPU time)")
    print(f"{'':44s} {'ms/image':>9s} {'x (a)':>7s} {'x floor':>8s}")
    for name, t in (("(a) previous: one upsampling call per rater", t_before),
                    ("(b) now: rater_masks, one call per image", t_now),
                    ("floor: lesion and draws, no rater's mask", t_floor)):
        print(f"{name:44s} {t / n * 1e3:9.3f} {t_before / t:7.2f} {t / t_floor:8.2f}")
    print(f"the same masks, bit for bit: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
