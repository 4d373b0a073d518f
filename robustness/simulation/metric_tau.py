"""How well the interval of Kendall's tau between two metrics' rankings covers the population's tau (simulation).

    python -m robustness.simulation.metric_tau

:func:`robustness.statistics.metric_agreement.metric_agreement` gives the tau between two metrics' rankings with
a percentile interval over resampled units. Here the truth is known: every unit (encounter) scores every run under
two metrics as the run's population mean plus a difficulty shared by the runs (higher for one metric, lower for the
other, as overlap and distance metrics move together) and noise; the population tau is the tau between the two
metrics' population rankings. Test sets of ``n`` units are drawn, and the share of intervals that cover the
population tau is counted.

``labels=True`` simulates the tau between two labels' rankings (:func:`metric_agreement` with ``masks``, as the
main job's label_agreement.csv): the two rankings come from different masks of the same units, so each has its own
difficulty and noise, and every resample draws both labels of a unit together.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np

from robustness import _kernels
from robustness.seeds import SeedLike
from robustness.statistics.metric_agreement import PerImageValues, metric_agreement

__all__ = ["TauSetting", "SETTINGS", "tau_interval_coverage"]


@dataclass(frozen=True)
class TauSetting:
    """A population: every run's mean under an overlap-like metric (higher is better) and a distance (lower)."""

    name: str
    overlap: tuple
    distance: tuple


#: The settings of docs/volumes.md: rankings that agree, one swap, one swap of a near-tie, and ten runs with two
#: swaps and a near-tie.
SETTINGS = (
    TauSetting("5 runs, rankings agree", (0.80, 0.70, 0.60, 0.50, 0.40), (1.0, 2.0, 3.0, 4.0, 5.0)),
    TauSetting("5 runs, one swap", (0.80, 0.70, 0.60, 0.50, 0.40), (1.0, 2.0, 3.0, 5.0, 4.0)),
    TauSetting("5 runs, one swap of a near-tie", (0.80, 0.70, 0.60, 0.52, 0.50), (1.0, 2.0, 3.0, 4.6, 4.4)),
    TauSetting("10 runs, two swaps and a near-tie", tuple(np.linspace(0.85, 0.40, 10).round(4)),
               (1.0, 1.5556, 2.1111, 3.2222, 2.6667, 3.7778, 3.8278, 5.4444, 4.8889, 6.0)),
)


def tau_interval_coverage(setting: TauSetting, n_units: int, *, n_test_sets: int = 200, n_resamples: int = 400,
                          labels: bool = False, rng: SeedLike = None) -> dict:
    """Coverage of the population tau by the 95% interval, and the observed tau's bias, over simulated test sets.

    Parameters
    ----------
    setting : TauSetting
    n_units : int
        Units per test set.
    n_test_sets, n_resamples : int
    labels : bool
        Two labels' rankings (each label its own images of every unit) instead of two metrics on the same images.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``population_tau``, ``coverage`` and its Monte Carlo ``coverage_se``, ``mean_tau``, ``mean_width``.
    """
    rng = np.random.default_rng(rng)
    mu_a, mu_b = np.asarray(setting.overlap, float), np.asarray(setting.distance, float)
    n_runs = mu_a.size
    population = _kernels.kendall_tau_b(np.argsort(np.argsort(-mu_a)) + 1.0, np.argsort(np.argsort(mu_b)) + 1.0)
    covered, taus, widths = [], [], []
    for t in range(n_test_sets):
        difficulty = rng.normal(0, 0.1, (n_units, 1))
        a = mu_a[None, :] + difficulty + rng.normal(0, 0.15, (n_units, n_runs))
        if labels:  # the second label's masks: their own difficulty and noise
            b = mu_b[None, :] - 10 * rng.normal(0, 0.1, (n_units, 1)) + rng.normal(0, 1.5, (n_units, n_runs))
            zeros = np.zeros((n_runs, n_units))
            values = np.stack([np.hstack([a.T, zeros]), np.hstack([zeros, b.T])])
            first = np.arange(2 * n_units) < n_units
            extra: dict[str, Any] = {"masks": np.stack([first, ~first])}
            clusters = np.tile(np.arange(n_units), 2)
        else:
            b = mu_b[None, :] - 10 * difficulty + rng.normal(0, 1.5, (n_units, n_runs))
            values, extra, clusters = np.stack([a.T, b.T]), {}, np.arange(n_units)
        table = PerImageValues(values, np.array([False, True]), ["overlap", "distance"],
                               [str(r) for r in range(n_runs)], clusters)
        _, agree = metric_agreement(table, n_resamples=n_resamples, rng=rng, **extra)
        row = agree.iloc[0]
        covered.append(row.tau_low <= population <= row.tau_high)
        taus.append(row.tau)
        widths.append(row.tau_high - row.tau_low)
    c = float(np.mean(covered))
    return {"population_tau": population, "coverage": c, "coverage_se": float(np.sqrt(c * (1 - c) / n_test_sets)),
            "mean_tau": float(np.mean(taus)), "mean_width": float(np.mean(widths))}


def main(argv: list[str] | None = None) -> None:
    """Print the coverage tables of docs/volumes.md (``--labels``: between two labels' rankings).

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (None: ``sys.argv[1:]``).
    """
    p = argparse.ArgumentParser(prog="python -m robustness.simulation.metric_tau", description=__doc__.split("\n")[0])
    p.add_argument("--labels", action="store_true", help="two labels' rankings instead of two metrics'")
    args = p.parse_args(argv)
    print(f"{'setting':36s} {'units':>5s} {'pop tau':>8s} {'coverage':>14s} {'mean tau':>9s} {'width':>6s}")
    for k, setting in enumerate(SETTINGS):
        for n in (10, 30, 100):
            r = tau_interval_coverage(setting, n, labels=args.labels, rng=[k, n])
            print(f"{setting.name:36s} {n:5d} {r['population_tau']:8.3f} {r['coverage']:7.3f} +- "
                  f"{2 * r['coverage_se']:.3f} {r['mean_tau']:9.3f} {r['mean_width']:6.2f}", flush=True)


if __name__ == "__main__":
    main()
