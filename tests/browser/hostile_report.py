"""Write reports whose names attack Markdown, HTML, CSV and mathtext, for the headless-browser check.

    python -m tests.browser.hostile_report OUT

Writes ``OUT/table`` (a per-case table whose runs and tasks are named ``<script>...``, ``<iframe
src=javascript:...>``, ``=cmd|...``, ``$\\foo{$``, a bare link before a tag) and ``OUT/raters`` (a 3D multi-rater
challenge whose run folders and data path carry the same kind of names) with their results folders
``OUT/table/results`` and ``OUT/raters/results``. ``make browser-check`` then opens every summary.md (rendered by
two Markdown renderers that do not sanitise) and report.html in headless Chromium: a script that runs is a failure.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import rank_convergence, table_rank_convergence
from experiments._cli import run
from robustness.synthetic.volumes import VolumeConfig, write_volume_challenge
from tests.test_hostile_round2 import ALGORITHMS, TASKS

RUNS = ["<img src=x onerror=alert(1)>", "$x^{$", "=cmd|calc!A0",  # a folder name holds no /
        "www.x.com<img src=x onerror=alert(7)>"]  # a bare link took the next escape's backslash (marked, GFM)
#: Beside round 2's names, bare links right before a tag (marked's GFM links took the escape's backslash into the URL).
LINKED = ["http://x.y<img src=x onerror=alert(8)>", "www.x.com<script>alert(9)</script>",
          "run1https://a.b<img src=x onerror=alert(10)>"]  # marked links a URL glued to a word too
FAST = ["--orders", "3", "--bootstrap", "10", "--outer", "4", "--quiet"]


def main(out: str) -> int:
    root = Path(out)
    shutil.rmtree(root, ignore_errors=True)
    table = root / "table"
    table.mkdir(parents=True)
    rng = np.random.default_rng(0)
    rows = [{"task": t, "case": f"c{c:02d}", "algorithm": a, "value": float(rng.random() + 0.1 * k)}
            for t in TASKS for c in range(8) for k, a in enumerate(ALGORITHMS + LINKED)]
    pd.DataFrame(rows).to_csv(table / "scores.csv", index=False)
    code = run(table_rank_convergence.main, ["--table", str(table / "scores.csv"), "--out", str(table / "results"),
                                             *FAST])
    data = root / "raters" / "data <svg onload=alert(3)>"
    config = VolumeConfig(n_volumes=4, shape=(8, 24, 28), spacing=(3.0, 0.8, 0.7), labels=2, n_annotators=3,
                          n_runs=len(RUNS))
    write_volume_challenge(data, config, rng=4)
    for k, name in enumerate(RUNS, start=1):
        (data / f"run{k}").rename(data / name)
    return code or run(rank_convergence.main, ["--layout", "raters", "--data", str(data), "--gold",
                                               "ann1,ann2,ann3", "--labels", "1,7", "--out",
                                               str(root / "raters" / "results"), *FAST])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
