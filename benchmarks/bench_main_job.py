"""The main job's wall and CPU time by stage (issue 53: at most 30 s wall on 2 cores at the default ``--n-jobs``).

    python -m benchmarks.bench_main_job [--repeat 2] [--compare-with REV] [--startup] [--score] [--more]

Runs ``python -m experiments.rank_convergence`` as a user would (a fresh process, a fresh output folder, the
default options: every core this process may use) and prints its wall and CPU time (this process, its threads and
its worker processes) stage by stage, as its status lines name the stages; ``--repeat`` runs, the one with the
least wall time shown. With ``--compare-with REV`` the same command at revision ``REV`` (``git archive`` into a
temporary folder; its numba cache is filled by a first, untimed run) runs in turn with this checkout's, so that
both meet the same load, and the two are printed side by side. ``--startup`` first prints every command's import
and ``--help`` times (:mod:`benchmarks.bench_startup`), ``--score`` the score command's ratio to the official
scorer; ``--more`` adds the older rows (cached counts, all three ranking methods). The machine's load average is
printed before and after: the machine is shared, and a busy core shows in the wall time, not in the CPU time.
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
TARGET_S = 30.0

#: Run in the job's process: samples the status line's stage every 20 ms and records, at each change, the wall
#: time since the process started and the CPU time of the process tree (threads and live or finished workers).
DRIVER = r"""
import json, sys, threading, time
import psutil
from robustness import progress
from experiments import _cli, rank_convergence

me = psutil.Process()
born = me.create_time()

def cpu():
    t = me.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in me.children(recursive=True):
        try:
            c = child.cpu_times()
            total += c.user + c.system
        except psutil.Error:
            pass
    return total

marks = [("start-up, imports, reading the input", 0.0, 0.0)]
stop = threading.Event()

def sample():
    while not stop.is_set():
        label = (progress._STATE.stage or marks[0][0]).split(":")[0]
        if label != marks[-1][0]:
            marks.append((label, time.time() - born, cpu()))
        time.sleep(0.02)

threading.Thread(target=sample, daemon=True).start()
status = _cli.run(rank_convergence.main, sys.argv[2:])
stop.set()
marks.append(("end", time.time() - born, cpu()))
open(sys.argv[1], "w").write(json.dumps({"status": status, "marks": marks}))
"""


def load() -> str:
    """The load averages (1, 5, 15 minutes) and the number of cores."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def stages(source: Path, out: Path, *extra: str) -> tuple[float, list[tuple[str, float, float]]]:
    """Run the main job from ``source`` into ``out``: its wall time and (stage, wall, CPU) in order of first start."""
    shutil.rmtree(out, ignore_errors=True)
    record = out.with_suffix(".json")
    env = dict(os.environ, PYTHONPATH=str(source))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", DRIVER, str(record), "--out", str(out), *extra], cwd=source, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = time.perf_counter() - t0
    marks = json.loads(record.read_text())["marks"]
    per: dict[str, list[float]] = {}
    for (label, t, c), (_, t_next, c_next) in zip(marks[:-1], marks[1:]):
        w, u = per.setdefault(label, [0.0, 0.0])
        per[label] = [w + t_next - t, u + c_next - c]
    rows = [(label, w, u) for label, (w, u) in per.items()]
    rows.append(("exit (after the last stage)", max(total - marks[-1][1], 0.0), 0.0))
    return total, rows


def table(results: dict[str, tuple[float, list]]) -> None:
    """Print the stages of each revision side by side: wall, CPU and CPU / wall (cores kept busy)."""
    names = list(results)
    labels = list(dict.fromkeys(label for _, rows in results.values() for label, _, _ in rows))
    head = "".join(f" | {n[:30]:^30s}" for n in names)
    print(f"\n{'stage (as the status lines name it)':44s}{head}")
    print(f"{'':44s}" + " | {:>8s} {:>8s} {:>11s}".format("wall", "CPU", "CPU/wall") * len(names))
    for label in labels:
        cells = ""
        for n in names:
            found = {lab: (w, u) for lab, w, u in results[n][1]}.get(label)
            cells += (f" | {found[0]:7.1f}s {found[1]:7.1f}s {found[1] / found[0] if found[0] else 0:10.2f}x"
                      if found else " | " + " " * 30)
        print(f"{label[:44]:44s}{cells}")
    cells = ""
    for n in names:
        wall, rows = results[n]
        cpu = sum(u for _, _, u in rows)
        cells += f" | {wall:7.1f}s {cpu:7.1f}s {cpu / wall:10.2f}x"
    print(f"{'whole command (wall from outside)':44s}{cells}")
    for n in names:
        wall = results[n][0]
        print(f"{n}: {wall:.1f} s wall, target <= {TARGET_S:.0f} s: {'met' if wall <= TARGET_S else 'MISSED'} "
              f"({wall / TARGET_S:.2f}x of it)")


def checkout(rev: str, into: Path) -> Path:
    """The tree of revision ``rev`` of this repository, extracted into ``into`` (no .git)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def older_rows(tmp: Path) -> None:
    """The rows this benchmark printed before issue 53: cached counts, all three ranking methods (wall only)."""
    out = tmp / "more"
    every = ("--ranking", "aggregate,rank-then-aggregate,test-based")
    for label, extra in (("cold (pixel pass + everything)", ()), ("rerun (cached counts)", ()),
                         ("rerun, n_jobs=1", ("--n-jobs", "1")), ("rerun, all three ranking methods", every)):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "experiments.rank_convergence", "--out", str(out), "--quiet", *extra],
                       cwd=REPO, check=True, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        pixel = json.loads((out / "meta.json").read_text())["pixel_pass_s"]
        print(f"{label:38s} {wall:6.1f} s   (pixel pass {pixel:5.1f} s)")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=2, help="runs of each revision; the fastest is shown (default 2)")
    p.add_argument("--compare-with", metavar="REV", help="also the main job at this git revision, in turn")
    p.add_argument("--startup", action="store_true", help="first every command's import and --help times")
    p.add_argument("--score", action="store_true", help="the score command's ratio to the official scorer")
    p.add_argument("--more", action="store_true", help="also cached counts and all three ranking methods")
    args = p.parse_args(argv)
    print(f"before: {load()}")
    if args.startup or args.score:
        from benchmarks import bench_startup

        if args.startup:
            bench_startup.startup(5)
        if args.score:
            bench_startup.score_ratio(3, 4)
    tmp = Path(tempfile.mkdtemp(prefix="bench_main_job_"))
    try:
        sources = {"this checkout": REPO}
        if args.compare_with:
            sources[f"revision {args.compare_with}"] = checkout(args.compare_with, tmp / "rev")
            stages(sources[f"revision {args.compare_with}"], tmp / "warm")  # compiles its numba cache: untimed
        print("\nmain job on the default synthetic challenge (314 images, 40 runs, K=200 orders, B=1000 resamples), "
              f"default --n-jobs, fresh folder; best of {args.repeat}")
        runs: dict[str, list] = {name: [] for name in sources}
        for k in range(args.repeat):
            for name, source in sources.items():  # in turn: both meet the same load
                runs[name].append(stages(source, tmp / f"out-{len(runs[name])}-{k}"))
                print(f"  {name}, run {k + 1}: {runs[name][-1][0]:.1f} s ({load()})")
        table({name: min(found, key=lambda r: r[0]) for name, found in runs.items()})
        if args.more:
            older_rows(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
