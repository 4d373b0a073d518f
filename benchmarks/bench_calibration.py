"""The calibration study's ``--quick`` wall and CPU time (issue 51: at most 4 min on 2 cores).

    python -m benchmarks.bench_calibration [--compare-with REV] [--repeat 1]

Runs ``python -m experiments.calibration --quick --quiet`` as a user would (a fresh process, a fresh output folder,
every count computed, the default ``--n-jobs``: every core this process may use) and prints its wall time, its CPU
time (the process and the workers it waited for) and the ratio of the wall time to the 4-minute target. With
``--compare-with REV`` the same command at revision ``REV`` (``git archive`` into a temporary folder) runs in turn
with this checkout's, so that both meet the same load; each checkout's numba cache is filled first by a tiny,
untimed calibration. The five tables of the two are compared byte for byte. The machine's load average is printed
before and after: the machine is shared, and a busy core shows in the wall time, not in the CPU time.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_main_job import REPO, checkout, load

TARGET_S = 240.0
TABLES = ("calibration.csv", "calibration_distances.csv", "calibration_claims.csv", "calibration_truth.csv",
          "verdicts.csv")
TINY = ("--quick", "--population", "240", "--test-sets", "3", "--test-size", "20", "--outer", "4", "--bootstrap",
        "20", "--truth-draws", "20", "--quiet")


def calibration(source: Path, out: Path, *options: str) -> tuple[float, float]:
    """Run the calibration from ``source`` into ``out``: its wall and CPU seconds."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "experiments.calibration", *options, "--out", str(out)], cwd=source,
                   env=dict(os.environ, PYTHONPATH=str(source)), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare-with", metavar="REV", help="also the calibration at this git revision, in turn")
    p.add_argument("--repeat", type=int, default=1, help="runs of each checkout; the fastest is shown (default 1)")
    args = p.parse_args(argv)
    print(f"before: {load()}")
    tmp = Path(tempfile.mkdtemp(prefix="bench_calibration_"))
    try:
        sources = {"this checkout": REPO}
        if args.compare_with:
            sources[f"revision {args.compare_with}"] = checkout(args.compare_with, tmp / "rev")
        for name, source in sources.items():  # compiles each checkout's numba cache: untimed
            calibration(source, tmp / f"warm-{len(name)}", *TINY)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sources}
        for k in range(args.repeat):
            for n, (name, source) in enumerate(sources.items()):  # in turn: both meet the same load
                runs[name].append(calibration(source, tmp / f"out-{n}-{k}", "--quick", "--quiet"))
                print(f"  {name}, run {k + 1}: {runs[name][-1][0]:.1f} s wall ({load()})")
        print(f"\npython -m experiments.calibration --quick (default --n-jobs, every count computed); best of "
              f"{args.repeat}")
        print(f"{'checkout':32s} {'wall':>9s} {'CPU':>9s} {'CPU/wall':>9s} {'wall/target':>12s}")
        for name, found in runs.items():
            wall, cpu = min(found)
            print(f"{name:32s} {wall:8.1f}s {cpu:8.1f}s {cpu / wall:8.2f}x {wall / TARGET_S:11.2f}x")
        if args.compare_with:
            a, b = (tmp / f"out-{n}-0" for n in range(2))
            same = [t for t in TABLES if filecmp.cmp(a / t, b / t, shallow=False)]
            print(f"tables byte-identical between the two: {len(same)} of {len(TABLES)}"
                  + ("" if len(same) == len(TABLES) else f" (differ: {sorted(set(TABLES) - set(same))})"))
        print(f"target: at most {TARGET_S:.0f} s wall on 2 cores")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
