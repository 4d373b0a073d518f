"""Wall time of the main job on the embedded default (target: under 60 s on 2 cores, issue 18; it was 2 minutes before).

    python -m benchmarks.bench_main_job

Runs ``python -m experiments.rank_convergence`` as a user would (a fresh
process, a fresh output folder), then once more on the same folder (cached
counts), and prints both wall times and the share spent in the pixel pass; then with
``--ranking aggregate,rank-then-aggregate,test-based`` (test-based curves at the
default ``--test-step``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(out, *extra):
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--out", str(out), "--quiet", *extra],
                   cwd=REPO, check=True, stderr=subprocess.DEVNULL)  # the input's warnings, printed once below
    wall = time.perf_counter() - t0
    meta = json.loads((out / "meta.json").read_text())
    return wall, meta["pixel_pass_s"], len(meta.get("warnings", []))


def main():
    tmp = Path(tempfile.mkdtemp(prefix="bench_main_job_"))
    try:
        out = tmp / "out"
        print("main job on the default synthetic challenge (314 images, 40 runs, K=200 orders, B=1000 resamples)")
        every = ("--ranking", "aggregate,rank-then-aggregate,test-based")
        for label, extra in (("cold (pixel pass + everything)", ()), ("rerun (cached counts)", ()),
                             ("rerun, n_jobs=2", ("--n-jobs", "2")), ("rerun, all three ranking methods", every),
                             ("rerun, all three methods, n_jobs=2", every + ("--n-jobs", "2"))):
            wall, pixel, warned = run(out, *extra)
            print(f"{label:38s} {wall:6.1f} s   (pixel pass {pixel:5.1f} s; target < 60 s: {60 / wall:4.2f}x of it; "
                  f"{warned} input warning(s), kept in meta.json)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
