"""Peak memory of the main job at scale: 10,000 small images, default options (200 orders, 1000 resamples).

    python -m benchmarks.bench_memory [--images 10000] [--compare-with REV]

Runs ``python -m experiments.rank_convergence`` on a synthetic challenge of
``--images`` images of 16 x 16 pixels (the generator's smallest) in a fresh
process and prints its peak resident memory (RSS) and wall time, against the
target (2 GB) and the machine's memory. ``--compare-with REV`` runs the same
job on another git revision of this repository (a temporary worktree) side by
side, e.g. the revision before the curves were streamed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_GB = 2.0

JOB = """
import sys
import experiments._cli as cli
from robustness.synthetic.challenge import make_challenge
cli.load = lambda args: make_challenge(rng=0, n_images={n}, n_encounters={n} // 3, megapixels=0.0002)
from experiments.rank_convergence import main
sys.exit(main(["--out", {out!r}, "--quiet"]))
"""

MEASURE = """
import resource, subprocess, sys, time
t = time.time()
code = subprocess.run([sys.executable, "-c", sys.argv[1]], cwd=sys.argv[2]).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.time() - t)
"""


def measure(repo: Path, n: int) -> tuple[float, float]:
    """(peak RSS in GB, wall seconds) of the main job in ``repo`` on ``n`` images."""
    out = tempfile.mkdtemp(prefix="bench_memory_")
    try:
        res = subprocess.run([sys.executable, "-c", MEASURE, JOB.format(n=n, out=out), str(repo)],
                             capture_output=True, text=True, check=True)
        code, kib, wall = res.stdout.split()
        if code != "0":
            raise SystemExit(f"the main job failed in {repo} (exit {code})")
        return int(kib) / 2**20, float(wall)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_memory", description=__doc__.split("\n\n")[0])
    p.add_argument("--images", type=int, default=10_000)
    p.add_argument("--compare-with", metavar="REV", help="also run the job at this git revision (side by side)")
    args = p.parse_args(argv)
    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    rows = [("this checkout", *measure(REPO, args.images))]
    if args.compare_with:
        wt = Path(tempfile.mkdtemp(prefix="bench_rev_")) / "repo"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(wt), args.compare_with],
                       check=True)
        try:
            rows.append((f"revision {args.compare_with}", *measure(wt, args.images)))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(wt)], check=False)
    print(f"main job, {args.images} images of 16x16, 40 runs, default options (200 orders, 1000 resamples)")
    print(f"{'':28s} {'peak RSS':>9s} {'x target':>9s} {'of machine':>11s} {'wall':>8s}")
    for name, gb, wall in rows:
        print(f"{name:28s} {gb:7.2f} GB {gb / TARGET_GB:8.2f}x {gb / machine:10.1%} {wall:7.0f}s")
    print(f"(target {TARGET_GB:g} GB; machine {machine:.1f} GiB; measured {time.strftime('%Y-%m-%d')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
