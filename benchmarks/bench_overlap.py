"""Benchmark of the pixel pass: where the time goes, and how far from the machine's limit.

    python -m benchmarks.bench_overlap [--images 314] [--runs 40] [--mp 2.0] [--subset 8]

Prints, side by side in one run:

1. counting one run against 3 annotators + 3 aggregates on one ~2 MP image:
   (a) the official scorer's method re-implemented (flatten, astype(int),
   three boolean sums per gold), (b) well-written numpy, (c) this package's
   kernel; pixels/s, GB/s, ratio to (a), fraction of the streaming bandwidth;
2. the streaming bandwidth (np.count_nonzero over 1 GiB), the physical limit;
3. per-image costs: TIFF (deflate) decoding, packing the annotators and
   counting their patterns, building the golds, STAPLE (ours on pattern counts vs SimpleITK, with mask identity);
4. end to end on a paper-size challenge written to disk (``--images`` images
   of about ``--mp`` MP, ``--runs`` runs, deflate TIFFs; generated once under
   benchmarks/_data): files to cached counts with n_jobs=2, the rerun on
   cached counts, and the official scorer's method run once per run on the
   first ``--subset`` images vs the package on the same subset.

Timings are the best of a few repeats (min), since the machine is shared.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def best(f, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def as_real_challenge(folder):
    """Drop the latent truth a synthetic challenge writes (``truth/``): a real challenge has none, and the
    package would count every run against it too, work the official scorer never does."""
    shutil.rmtree(Path(folder) / "truth", ignore_errors=True)
    return folder


# -- (a) the official scorer's method, re-implemented as the baseline -----------------------

def official_overlap(sys_mask, gold_mask):
    s = sys_mask.astype(int).flatten()
    g = gold_mask.astype(int).flatten()
    tp = np.sum(((s == g) & (s == 1)).astype(int))
    fp = np.sum(((s != g) & (s == 1)).astype(int))
    fn = np.sum(((s != g) & (g == 1)).astype(int))
    return tp, fp, fn


def official_majority(golds):
    total = golds[0]
    for g in golds[1:]:
        total = np.add(total, g)
    return np.where(total >= np.ceil(len(golds) / 2), 1, 0)


def official_run(ref_dir, run_dir, suffix, images):
    """The official scorer's work for one run: every image, macro over annotators + micro vs majority."""
    import tifffile

    for im in images:
        golds = [tifffile.imread(p).astype(np.uint8) for p in sorted(ref_dir.glob(f"{im}_mask_*.tiff"))]
        sys_mask = tifffile.imread(run_dir / f"{im}_mask_{suffix}.tiff").astype(np.uint8)
        for g in golds:
            official_overlap(sys_mask, g)
        official_overlap(sys_mask, official_majority(golds))


# -- (b) well-written numpy ---------------------------------------------------------------

def numpy_counts(run, golds):
    size = np.count_nonzero(run)
    out = []
    for g in golds:
        tp = np.count_nonzero(run & g)
        out.append((tp, size - tp, np.count_nonzero(g) - tp))
    return out


def section(title):
    print(f"\n== {title}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--images", type=int, default=314)
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--mp", type=float, default=2.0)
    p.add_argument("--subset", type=int, default=8, help="images for the official-scorer comparison")
    p.add_argument("--n-jobs", type=int, default=2)
    args = p.parse_args(argv)

    import SimpleITK as sitk
    import tifffile

    from robustness import _kernels
    from robustness.io import load_dermavqa, write_dermavqa
    from robustness.overlap import compute_overlap
    from robustness.overlap.gold import STRATEGIES, annotator_luts
    from robustness.overlap.staple import staple
    from robustness.synthetic.challenge import make_challenge

    # ---------------------------------------------------------------- bandwidth
    section("machine limit")
    big = np.ones(2**30, dtype=bool)
    t_bw = best(lambda b=big: np.count_nonzero(b), 3)
    bandwidth = big.nbytes / t_bw
    t_sum = best(lambda b=big: b.view(np.uint8).sum(), 2)
    del big
    print(f"streaming read bandwidth (np.count_nonzero, 1 GiB): {bandwidth / 1e9:6.1f} GB/s  "
          f"(np.sum over uint8: {2**30 / t_sum / 1e9:.1f} GB/s)")

    # ---------------------------------------------------------------- one image, one run
    ch = make_challenge(n_encounters=20, n_images=20, n_runs=4, n_teams=1, megapixels=args.mp, rng=1)
    i = int(np.argmax([3 == len(ch.annotators_of(k)) for k in range(ch.n_images)]))
    ann = list(ch.annotator_masks(i).values())
    run = ch.run_mask(i, ch.runs[0])
    n = run.size
    k = len(ann)
    stack = np.stack([a.reshape(-1).view(np.uint8) for a in ann])
    ann_words = _kernels.pack_rows(stack)
    hist = _kernels.pattern_hist(ann_words, n)
    codes = sum(stack[j].astype(np.intp) << j for j in range(k))  # every pixel's pattern, for the plain methods
    lut = np.concatenate([annotator_luts(k)] + [STRATEGIES[a].build(k)[None] for a in ("majority", "intersection", "union")])
    lut = lut.astype(np.uint8)
    words = _kernels.golds_from_words(ann_words, lut, n)
    golds_bool = [lut[r][codes].astype(bool).reshape(run.shape) for r in range(lut.shape[0])]
    golds_u8 = [g.astype(np.uint8) for g in golds_bool]
    run_u8 = run.view(np.uint8)
    r8 = run_u8.reshape(-1)
    _kernels.count_run(r8, words)
    # the three methods must agree
    size, tp = _kernels.count_run(r8, words)
    ref = numpy_counts(run, golds_bool)
    assert [int(t) for t in tp] == [c[0] for c in ref]
    assert [official_overlap(run_u8, g)[0] for g in golds_u8] == [c[0] for c in ref]

    t_off = best(lambda: [official_overlap(run_u8, g) for g in golds_u8], 3)
    t_np = best(lambda: numpy_counts(run, golds_bool), 5)
    t_k = best(lambda: _kernels.count_run(r8, words), 20)
    nbytes = n + words.nbytes  # the run's bytes + the packed golds
    section(f"counting one run vs {k} annotators + 3 aggregates, {n / 1e6:.2f} MP image")
    print(f"{'method':28s} {'ms':>9s} {'Mpx/s':>9s} {'GB/s':>7s} {'x official':>11s} {'of bandwidth':>13s}")
    for name, t in (("(a) official method", t_off), ("(b) numpy count_nonzero", t_np), ("(c) package kernel", t_k)):
        print(f"{name:28s} {t * 1e3:9.3f} {n / t / 1e6:9.0f} {nbytes / t / 1e9:7.2f} {t_off / t:11.0f} "
              f"{nbytes / t / bandwidth:12.0%}")

    # ---------------------------------------------------------------- per image costs
    section("per image")
    tmp = HERE / "_data" / "one"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    tifffile.imwrite(tmp / "m.tiff", run_u8, compression="zlib")
    t_dec = best(lambda: tifffile.imread(tmp / "m.tiff"), 5)
    print(f"TIFF decode (deflate), one mask      {t_dec * 1e3:8.2f} ms  "
          f"({(tmp / 'm.tiff').stat().st_size / 1e3:.0f} kB on disk)")
    t_rows = best(lambda: _kernels.pack_rows(stack), 5)
    t_hist = best(lambda: _kernels.pattern_hist(ann_words, n), 5)
    t_pack = best(lambda: _kernels.golds_from_words(ann_words, lut, n), 5)
    t_codes = t_rows + t_hist
    print(f"packing {k} annotators, pattern counts  {t_rows * 1e3:8.2f} + {t_hist * 1e3:.2f} ms")
    print(f"building {lut.shape[0]} golds from the packed masks {t_pack * 1e3:8.2f} ms")
    t_st = best(lambda: staple(hist), 5)
    imgs = [sitk.GetImageFromArray(a.astype(np.uint8)) for a in ann]
    f = sitk.STAPLEImageFilter()
    f.SetForegroundValue(1.0)
    t_sitk = best(lambda: f.Execute(imgs), 2)
    sitk_mask = sitk.GetArrayFromImage(f.Execute(imgs)) > 0.5
    ours = staple(hist).lut[codes].reshape(run.shape)
    t_st_full = t_st + t_codes + best(lambda: staple(hist).lut[codes], 3)
    print(f"STAPLE: ours on {2**k} pattern counts    {t_st * 1e3:8.2f} ms (+ packing, counts and mask: {t_st_full * 1e3:.2f} ms)")
    print(f"STAPLE: SimpleITK on the pixels      {t_sitk * 1e3:8.2f} ms  -> {t_sitk / t_st_full:.0f}x, "
          f"masks identical: {np.array_equal(ours, sitk_mask)}")

    # ---------------------------------------------------------------- end to end
    section(f"end to end: {args.images} images of ~{args.mp} MP, {args.runs} runs, deflate TIFFs")
    folder = HERE / "_data" / f"paper-{args.images}x{args.runs}-{args.mp}mp"
    if not folder.exists():
        t0 = time.perf_counter()
        big_ch = make_challenge(n_images=args.images, n_encounters=min(100, args.images), n_runs=args.runs,
                                megapixels=args.mp, rng=0)
        write_dermavqa(big_ch, folder, progress=True)
        print(f"(generated and written once in {time.perf_counter() - t0:.0f} s: {folder})")
    disk = load_dermavqa(as_real_challenge(folder))
    n_masks = int(disk.annotated.sum()) + disk.n_images * disk.n_runs
    cache = HERE / "_data" / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    t0 = time.perf_counter()
    compute_overlap(disk, n_jobs=args.n_jobs, cache_dir=cache, rng=0)
    t_cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    compute_overlap(load_dermavqa(folder), n_jobs=args.n_jobs, cache_dir=cache, rng=0)
    t_warm = time.perf_counter() - t0
    print(f"files -> cached counts, n_jobs={args.n_jobs}: {t_cold:7.1f} s  ({n_masks} masks, "
          f"{disk.n_pixels.sum() * (disk.n_runs + 3.3) / t_cold / 1e9:.2f} Gpx/s)")
    print(f"rerun on cached counts (load + fingerprint): {t_warm:7.2f} s")

    sub = list(disk.images[: args.subset])
    runs = disk.runs
    # the subset as its own challenge folder (symlinks), read the way a user's folder would be
    sub_dir = HERE / "_data" / f"subset-{args.subset}"
    shutil.rmtree(sub_dir, ignore_errors=True)
    for p in folder.rglob("*.tiff"):
        if any(p.name.startswith(im + "_mask_") for im in sub):
            target = sub_dir / p.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(p)
    t0 = time.perf_counter()
    for r in runs:
        official_run(folder / "reference", folder / "submissions" / r, r, sub)
    t_official = time.perf_counter() - t0
    print(f"official method once per run, {len(sub)} images x {len(runs)} runs: {t_official:7.1f} s")
    for n_jobs in (1, 2):
        t_pkg = best(lambda: compute_overlap(load_dermavqa(sub_dir), n_jobs=n_jobs, rng=0), 3)
        print(f"package (load + pixel pass), same subset, n_jobs={n_jobs}: {t_pkg:7.2f} s  -> {t_official / t_pkg:.0f}x")
    print(f"(the official method on the full set would take about {t_official * disk.n_images / len(sub) / 60:.0f} min)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
