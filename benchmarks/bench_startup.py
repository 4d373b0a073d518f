"""Start-up of every command: import time and ``--help`` wall time (issue 53: ``--help`` < 0.3 s, scoring < 0.2 s).

    python -m benchmarks.bench_startup [--repeat 5] [--score] [--official-runs 4]

Prints side by side in one run, each the best of ``--repeat`` fresh processes (the machine is shared):

1. for every command of ``experiments/``: the wall time of ``python -c "import experiments.X"``, the time
   ``python -X importtime`` gives the import itself (interpreter start-up left out), and the wall time of
   ``python -m experiments.X --help`` (target < 0.3 s);
2. ``python -c "import robustness.studies.scoring"`` (the score command's path; target < 0.2 s) and a bare
   ``python -c pass`` (the interpreter's own start-up, which every number above includes);
3. with ``--score``: the score command's end-to-end ratio against the official scorer
   (:mod:`benchmarks.bench_score`'s comparison on its challenge: the official method once per run in its own
   process, ``--official-runs`` of them timed and scaled to all runs, against ``python -m experiments.score
   --n-jobs 2`` end to end; target >= 100x).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The commands: every module of experiments/ that has a ``main`` (the private helpers start with ``_``).
COMMANDS = sorted(p.stem for p in (REPO / "experiments").glob("*.py") if not p.stem.startswith("_"))

HELP_TARGET_S = 0.3
SCORING_TARGET_S = 0.2
RATIO_TARGET = 100.0


def wall(argv: list[str], repeat: int) -> float:
    """Best wall time of ``argv`` run ``repeat`` times in a fresh process from the repository (output discarded)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def import_time(module: str, repeat: int) -> float:
    """Best cumulative time ``python -X importtime`` reports for importing ``module`` (seconds; start-up excluded)."""
    best = float("inf")
    for _ in range(repeat):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], cwd=REPO, check=True,
                             capture_output=True, text=True).stderr
        # the line of the module itself: "import time: self | cumulative | <module>" (microseconds)
        found = [int(m.group(1)) for m in re.finditer(rf"\|\s*(\d+) \|\s*{re.escape(module)}$", err, re.M)]
        best = min(best, found[-1] / 1e6 if found else float("nan"))
    return best


def startup(repeat: int) -> list[tuple[str, float, float, float]]:
    """Per command: (name, import wall, import time, --help wall), printed as a table."""
    py = sys.executable
    bare = wall([py, "-c", "pass"], repeat)
    rows = []
    print(f"start-up, best of {repeat} fresh processes (python -c pass: {bare:.3f} s, included in every wall time)")
    print(f"{'command':26s} {'import (wall)':>14s} {'import (-X importtime)':>23s} {'--help (wall)':>14s}  "
          f"target --help < {HELP_TARGET_S} s")
    for name in COMMANDS:
        imp = wall([py, "-c", f"import experiments.{name}"], repeat)
        itime = import_time(f"experiments.{name}", repeat)
        helped = wall([py, "-m", f"experiments.{name}", "--help"], repeat)
        rows.append((name, imp, itime, helped))
        print(f"{name:26s} {imp:13.3f}s {itime:22.3f}s {helped:13.3f}s  "
              f"{'met' if helped < HELP_TARGET_S else 'MISSED'} ({helped / HELP_TARGET_S:.2f}x of it)")
    scoring = wall([py, "-c", "import robustness.studies.scoring"], repeat)
    itime = import_time("robustness.studies.scoring", repeat)
    print(f"{'robustness.studies.scoring':26s} {scoring:13.3f}s {itime:22.3f}s {'':>14s}  target import < "
          f"{SCORING_TARGET_S} s: {'met' if scoring < SCORING_TARGET_S else 'MISSED'} "
          f"({scoring / SCORING_TARGET_S:.2f}x of it)")
    return rows


def score_ratio(repeat: int, official_runs: int) -> float:
    """The score command's end-to-end ratio against the official scorer (:mod:`benchmarks.bench_score`'s parts)."""
    import shutil
    import tempfile

    from benchmarks.bench_score import command, dataset, official_once

    folder = dataset(100, 20, 2.0)
    from robustness.io import load_dermavqa

    ch = load_dermavqa(folder)
    runs, images = list(ch.runs), list(ch.images)
    n_off = min(official_runs, len(runs))
    t_official = sum(official_once(folder, r, images) for r in runs[:n_off]) * len(runs) / n_off
    tmp = Path(tempfile.mkdtemp(prefix="bench_startup_"))
    try:
        t_cmd = min(command(folder, 2, tmp) for _ in range(repeat))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratio = t_official / t_cmd
    print(f"\nscore command against the official scorer ({ch.n_images} images of ~2 MP, {len(runs)} runs): official "
          f"method once per run {t_official:.1f} s ({n_off} runs timed, scaled to {len(runs)}), "
          f"python -m experiments.score --n-jobs 2 {t_cmd:.2f} s (best of {repeat}): {ratio:.0f}x "
          f"(target >= {RATIO_TARGET:.0f}x: {'met' if ratio >= RATIO_TARGET else 'MISSED'})")
    return ratio


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--score", action="store_true", help="also the score command's ratio to the official scorer")
    p.add_argument("--official-runs", type=int, default=4, help="official runs timed (scaled to all 20)")
    args = p.parse_args(argv)
    startup(args.repeat)
    if args.score:
        score_ratio(min(args.repeat, 3), args.official_runs)


if __name__ == "__main__":
    main()
