"""``--preset challenger`` against challengeR itself, run in R (not part of the suite: it needs R with challengeR).

    .venv/bin/python tests/outside/compare_challenger.py [N] [WORKDIR]

Needs ``Rscript`` with challengeR 1.0.5 installed (``R CMD INSTALL`` from its repository, github.com/wiesenfa/
challengeR; its dependencies from the distribution's r-cran-* packages and relations from CRAN's mirror) and the
en_US.UTF-8 locale. Draws N random tables (default 1,000) with the random comparison's generator
(:func:`tests.statistics.test_challenger_port.random_case`: rows in random order, ties, missing scores, absent rows, run and
case names in both cases, every method, tie rule except random, aggregation and adjustment, both directions and
both collations), writes each as a CSV, ranks them all in R with challengeR (``as.challenge``,
``aggregateThenRank``, ``rankThenAggregate``, ``testThenRank``; under ``LC_ALL=en_US.UTF-8`` for the ``locale``
collation and ``LC_ALL=C`` for ``C``), and compares every rank and value with the package's, exactly. Prints how
many tables were compared, equal, refused by both, and refused or crashed on one side only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from robustness.errors import InputError  # noqa: E402
from tests.statistics.test_challenger_port import (  # noqa: E402
    ADJUST,
    agrees,
    collation_matters,
    completed_order_matters,
    ours,
    random_case,
    rows_of,
)

R_RUN = r"""
suppressMessages(library(challengeR))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; ids <- strsplit(args[2], ",")[[1]]
for (id in ids) {
  spec <- read.csv(file.path(dir, paste0(id, ".spec.csv")), stringsAsFactors = FALSE, colClasses = "character")
  d <- read.csv(file.path(dir, paste0(id, ".csv")), stringsAsFactors = FALSE, na.strings = "NA",
                colClasses = c("character", "character", "numeric"))
  fun <- switch(spec$fun, mean = mean, median = median, min = min, max = max,
                function(x) quantile(x, as.numeric(spec$fun), names = FALSE))
  small <- spec$small == "TRUE"
  treat <- if (spec$missing == "drop") "na.rm" else as.numeric(spec$fill)
  out <- file.path(dir, paste0(id, ".R.csv"))
  res <- tryCatch({
    if (spec$method == "rank-then-aggregate") {
      ch <- as.challenge(d, algorithm = "algorithm", case = "case", value = "value", smallBetter = small)
      r <- rankThenAggregate(ch, FUN = fun, ties.method = spec$ties)
    } else {
      ch <- suppressMessages(as.challenge(d, algorithm = "algorithm", case = "case", value = "value",
                                          smallBetter = small, na.treat = treat))
      r <- if (spec$method == "aggregate") aggregateThenRank(ch, FUN = fun, ties.method = spec$ties) else
        testThenRank(ch, alpha = as.numeric(spec$alpha), p.adjust.method = spec$adjust, ties.method = spec$ties)
    }
    m <- r$matlist[[1]]
    data.frame(run = rownames(m), value = sprintf("%.17g", m[, 1]), rank = m[, "rank"])
  }, error = function(e) data.frame(run = "<refused>", value = gsub("[\r\n]", " ", conditionMessage(e)), rank = NA))
  write.csv(res, out, row.names = FALSE)
}
"""


def r_side(work: Path, cases: list[dict]) -> None:
    script = work / "rank.R"
    script.write_text(R_RUN)
    for collation, locale in (("locale", "en_US.UTF-8"), ("C", "C")):
        ids = [str(k) for k, c in enumerate(cases) if c["collation"] == collation]
        for start in range(0, len(ids), 200):
            env = dict(os.environ, LC_ALL=locale)
            subprocess.run(["Rscript", str(script), str(work), ",".join(ids[start:start + 200])], check=True,
                           env=env, capture_output=True)


def main(n: int = 1000, work: str | None = None) -> None:
    folder = Path(work or tempfile.mkdtemp(prefix="challenger_"))
    folder.mkdir(parents=True, exist_ok=True)
    rng, names_rng = np.random.default_rng(20261207), np.random.default_rng(20261208)
    cases = [random_case(rng, names_rng) for _ in range(n)]
    for k, c in enumerate(cases):
        lines = ["algorithm,case,value"] + [f"{a},{cs},{'NA' if v is None else repr(v)}" for a, cs, v in rows_of(c)]
        (folder / f"{k}.csv").write_text("\n".join(lines) + "\n")
        spec = {"method": c["method"], "ties": c["ties"], "fun": str(c["fun"]), "small": str(c["small"]).upper(),
                "missing": c["missing"], "fill": c["fill"], "alpha": c["alpha"], "adjust": ADJUST[c["adjust"]]}
        (folder / f"{k}.spec.csv").write_text(",".join(spec) + "\n" + ",".join(map(str, spec.values())) + "\n")
    r_side(folder, cases)
    counts = {"compared": 0, "equal": 0, "refused by both": 0, "refused by R only": 0, "refused here only": 0,
              "absent rows": 0, "per-case first/last ties in a completed task": 0,
              "first/last ties between names the collations order differently": 0}
    differ = []
    for k, c in enumerate(cases):
        lines = (folder / f"{k}.R.csv").read_text().splitlines()[1:]
        rows = [line.split(",") for line in lines]
        r_refused = rows and rows[0][0].strip('"') == "<refused>"
        try:
            got = ours(c)
        except InputError:
            got = None
        if r_refused or got is None:
            key = "refused by both" if r_refused and got is None else \
                "refused by R only" if r_refused else "refused here only"
            counts[key] += 1
            if key != "refused by both":
                differ.append((k, key, lines[:1]))
            continue
        want = {}
        for run, value, rank in rows:
            run, value = run.strip('"'), value.strip('"')
            want[run] = (None if value == "NA" else float(value), None if rank == "NA" else float(rank))
        counts["compared"] += 1
        counts["absent rows"] += bool(c["absent"].any())
        counts["per-case first/last ties in a completed task"] += int(completed_order_matters(c))
        counts["first/last ties between names the collations order differently"] += int(collation_matters(c))
        if agrees(c, got, want):
            counts["equal"] += 1
        else:
            differ.append((k, {r: v for r, v in got.items()}, want))
    print(json.dumps(counts))
    for d in differ[:10]:
        print("differs:", d, {key: cases[d[0]][key] for key in ("method", "ties", "fun", "collation", "names")})
    print("folder:", folder)


if __name__ == "__main__":
    main(*(int(a) if a.isdigit() else a for a in sys.argv[1:]))
