"""p_best under each prior against the truth of the calibration's populations (not part of the suite: an exploration).

    .venv/bin/python tests/outside/p_best_priors.py SEED CACHE [TEST_SETS [DESIGN]]

The calibration study's quick populations (default, tight, few, mixed; 2,000 encounters; ``SEED`` as
``experiments.calibration --seed``, their counts read from or written to ``CACHE``, e.g. a calibration's
``OUT/cache``), with ``DESIGN`` of the design study's run populations beside them (default 0; 8 gives the full
study's twelve populations, as ``--design-populations 8``), ``TEST_SETS`` test sets of 100 encounters drawn from
each (default 500; other test sets than the study's, from their own generator). For every test set and scheme
(majority, micro and macro Jaccard) it computes the observed best's probability of being the population's best
under the shared prior, the per-team prior, the per-team prior at its lower limit, no prior at all (``flat``: the
likelihood alone, no shrinkage; reported since 2026-12-08) and the average of the first two (``both``, reported before),
and prints the reliability per bin of the claim (claim less the actual share, with the share's SE and the number
of test sets) pooled over the populations, and each population's mean claim less its actual share.
docs/calibration.md quotes what it printed.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from robustness.simulation.populations import (
    default_populations,
    encounter_schemes,
    held_out_populations,
    population_counts,
)
from robustness.statistics.population import ScorePosterior, delta_covariance, run_groups, score_posterior

PRIORS = ("shared", "per_team", "per_team_low")
BINS = ((0.0, 0.5), (0.5, 0.8), (0.8, 1.01))


def claims(seed: int, cache: str, n_tests: int, n_design: int = 0) -> pd.DataFrame:
    """One row per population, test set and scheme: the observed best's p_best under every prior, and the truth."""
    rng = np.random.default_rng([seed, 51])
    rows = []
    for spec in default_populations(n_design, seed=seed) + held_out_populations(seed=seed):
        schemes = encounter_schemes(population_counts(spec, 2000, seed=seed, cache_dir=cache))
        num, den = schemes.ratio_parts()
        truth = delta_covariance(num, den, None)[0]
        labels = run_groups(list(schemes.runs))[0]
        for t in range(n_tests):
            keep = np.sort(rng.choice(num.shape[0], 100, replace=False))
            theta, cov = delta_covariance(num[keep], den[keep], None)
            for s, name in enumerate(schemes.names):
                best = int(np.argmax(theta[s]))
                g = np.random.default_rng([seed, t, s])
                p = {prior: score_posterior(theta[s], cov[s], labels, prior=prior).p_best(4000, g)[best]
                     for prior in PRIORS}
                # no prior: the population's scores drawn from the likelihood alone
                p["flat"] = ScorePosterior(theta[s], cov[s], 0.0, 0.0).p_best(4000, g)[best]
                p["both"] = (p["shared"] + p["per_team"]) / 2
                rows.append({"population": spec.name, "average": name[2], "test_set": t,
                             "is_best": float(best == int(np.argmax(truth[s]))), **p})
    return pd.DataFrame(rows)


def report(df: pd.DataFrame) -> str:
    """Per averaging and prior: claim less actual share per bin (SE, test sets), then per population."""
    lines = []
    for average, d in df.groupby("average"):
        for prior in (*PRIORS, "flat", "both"):
            cells = []
            for lo, hi in BINS:
                b = d[(d[prior] >= lo) & (d[prior] < hi)]
                se = b.is_best.std() / np.sqrt(len(b)) if len(b) > 1 else np.nan
                cells.append(f"{b[prior].mean() - b.is_best.mean():+.3f} ± {se:.3f} ({len(b)})")
            per_population = " ".join(f"{p} {g[prior].mean() - g.is_best.mean():+.2f}"
                                      for p, g in d.groupby("population"))
            lines.append(f"{average} {prior:12s} " + " | ".join(cells) + f"   [{per_population}]")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(claims(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 500,
                        int(sys.argv[4]) if len(sys.argv) > 4 else 0)))
