"""The main job on a 3D multi-rater, multi-label NIfTI challenge: its pixel pass against decompression, and its memory.

    python -m benchmarks.bench_volumes [--volumes 200] [--n-jobs 2]

Writes a challenge of ``--volumes`` volumes of 256 x 256 x 128 voxels (spacing 0.8 x 0.8 x 2.5 mm; 3 annotators,
5 runs, 2 labels; :mod:`robustness.synthetic.volumes`) as ``.nii.gz`` files, then prints side by side:

- the floor: reading (gzip-decompressing) every file once with SimpleITK, which any method must do;
- the main job's pixel pass (``meta.json``'s ``pixel_pass_s``), twice: overlap counts only, and with the boundary
  metrics NSD@2, HD95 and ASSD of every run against every gold and annotator, per volume and label; its ratio to
  the floor, and the whole job's wall time;
- each job's peak resident memory (a fresh process) against the 2 GB target and the machine's memory.

With ``--labels`` every file is read once per label, so the pass decompresses each file twice here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_GB = 2.0

#: Runs the main job in a child process and prints the largest process's peak RSS (KiB) and the wall time.
MEASURE = """
import resource, subprocess, sys, time
data, gold, jobs, out, *extra = sys.argv[1:]
t = time.time()
subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--data", data, "--layout", "raters", "--gold",
                gold, "--labels", "1,2", "--n-jobs", jobs, "--out", out, "--quiet", *extra], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.time() - t)
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_volumes", description=__doc__.split("\n\n")[0])
    p.add_argument("--volumes", type=int, default=200)
    p.add_argument("--n-jobs", type=int, default=2)
    args = p.parse_args(argv)

    import SimpleITK as sitk

    from robustness.synthetic.volumes import VolumeConfig, write_volume_challenge

    root = Path(tempfile.mkdtemp(prefix="bench_volumes_"))
    try:
        config = VolumeConfig(n_volumes=args.volumes, shape=(128, 256, 256), spacing=(2.5, 0.8, 0.8))
        t = time.perf_counter()
        info = write_volume_challenge(root / "challenge", config, rng=0)
        t_write = time.perf_counter() - t
        files = sorted((root / "challenge").rglob("*.nii.gz"))
        size_mb = sum(f.stat().st_size for f in files) / 1e6
        t = time.perf_counter()
        for f in files:
            sitk.GetArrayViewFromImage(sitk.ReadImage(str(f)))
        t_read = time.perf_counter() - t
        machine_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        print(f"== {args.volumes} volumes of 256 x 256 x 128 voxels, 3 annotators + 5 runs, 2 labels: {len(files)} "
              f".nii.gz files, {size_mb:.0f} MB (written in {t_write:.0f} s)")
        print(f"{'':34s} {'pass s':>8s} {'x floor':>8s} {'job s':>7s} {'peak GB':>8s} {'/ 2 GB':>7s}")
        print(f"{'floor: read every file once':34s} {t_read:8.1f} {1:8.2f}")
        for label, extra in (("pixel pass, overlap only", []),
                             ("pixel pass + NSD@2, HD95, ASSD", ["--boundary", "nsd@2,hd95,assd"])):
            out = root / f"out{len(extra)}"
            cmd = [sys.executable, "-c", MEASURE, str(root / "challenge"), ",".join(info["annotators"]),
                   str(args.n_jobs), str(out), *extra]
            res = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONPATH=str(REPO)))
            kib, t_job = res.stdout.split()
            peak_gb = int(kib) / 2**20
            t_pass = float(json.loads((out / "meta.json").read_text())["pixel_pass_s"])
            print(f"{label:34s} {t_pass:8.1f} {t_pass / t_read:8.2f} {float(t_job):7.1f} {peak_gb:8.2f} "
                  f"{peak_gb / TARGET_GB:7.2f}")
        print(f"{args.n_jobs} workers; each file is read once per label; peak: the largest process (job or worker); "
              f"machine {machine_gb:.0f} GB")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
