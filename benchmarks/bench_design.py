"""Wall time of ``design_study --quick`` (issue 49: at most 90 s on a shared BU-BIL dataset, 3 min on the default).

    python -m benchmarks.bench_design

Runs the command as a user would (a fresh process, a fresh output folder, every core the machine has), on BU-BIL
dataset 1 with the organiser walkthrough's gold and runs (the twin made of its images; skipped with a reason where
the shared data is absent) and on the embedded default challenge (the generator), and prints each wall time with
its stages (the status lines' times) beside the target: one run of each, side by side.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLD = "Person1_Amira,Person2_Amira,Person3_Amira"
RUNS = "Person1_ImageJ,Person3_ImageJ,Person4_Amira,Person4_ImageJ,Person5_Amira,Person5_ImageJ"


def _shared() -> Path:
    return Path(os.environ.get("ROBUSTNESS_SHARED_DATA", REPO.parent / "shared" / "data"))


def run(out: Path, *extra: str) -> tuple[float, list[str]]:
    """Wall time and the stage lines ('[12 s] ...') of one design study."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "experiments.design_study", "--quick", "--out", str(out),
                           "--no-figures", *extra], cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.strip().splitlines()[-1])
    stages = [line for line in proc.stderr.splitlines() + proc.stdout.splitlines() if re.match(r"\[\d+ s\]", line)]
    return wall, stages


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench_design_"))
    try:
        cases = []
        data = _shared() / "bu-bil" / "dataset1" / "ExpertsAnnotations"
        if data.is_dir():
            cases.append(("BU-BIL dataset 1 (twin of its 35 images, 6 runs)", 90.0,
                          ("--like", str(data), "--layout", "raters", "--gold", GOLD, "--runs", RUNS,
                           "--foreground", "0", "--background", "255")))
        else:
            print(f"BU-BIL dataset 1 skipped: not found at {data} (set ROBUSTNESS_SHARED_DATA)")
        cases.append(("embedded default (the generator, 100 encounters, 40 runs)", 180.0, ()))
        print(f"design_study --quick, {os.cpu_count()} core(s), figures left out (their time is the main job's "
              "benchmark's)")
        for label, target, extra in cases:
            wall, stages = run(tmp / "out", *extra)
            shutil.rmtree(tmp / "out", ignore_errors=True)
            print(f"{label:58s} {wall:6.1f} s   target {target:.0f} s: {target / wall:4.2f}x of it")
            for line in stages:
                print(f"    {line}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
