"""A synthetic multi-task per-case table (challengeR's long format), for examples, documents and tests.

The check of its rank intervals against a known truth: :mod:`robustness.simulation.rank_intervals`.

Three tasks with their own case sets, like a challenge with three sub-tasks: ``segmentation`` scored by Dice
(higher is better) and by HD95 in mm (lower is better: two leaderboards), ``detection`` and ``grading`` scored
by a [0, 1] score. Six runs from three teams; each run has a true quality per task, the runs of a team lie close
together, and cases differ in difficulty (shared by all runs, as real cases are). A few scores are missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.seeds import SeedLike

__all__ = ["example_table", "latent_scores"]


def example_table(*, n_cases: tuple = (40, 30, 25), missing: float = 0.02, rng: SeedLike = 0) -> pd.DataFrame:
    """The example table: columns ``task, metric, case, algorithm, value``.

    Parameters
    ----------
    n_cases : tuple of 3 int
        Cases of the three tasks.
    missing : float
        Share of scores left empty (a run that failed on a case).
    rng : seed or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> t = example_table()
    >>> sorted(t.task.unique()), sorted(t.metric.unique())
    (['detection', 'grading', 'segmentation'], ['dice', 'hd95', 'score'])
    """
    gen = np.random.default_rng(rng)
    runs = [f"team{t}-run{r}" for t in range(1, 4) for r in (1, 2)]
    rows = []
    for task, n in zip(("segmentation", "detection", "grading"), n_cases):
        team = gen.normal(0.0, 0.6, 3)
        quality = np.repeat(team, 2) + gen.normal(0.0, 0.15, 6)  # the runs of a team lie close together
        difficulty = gen.normal(0.0, 0.8, n)
        latent = 1.0 + quality[:, None] - difficulty[None, :] + gen.normal(0.0, 0.5, (6, n))
        cases = [f"{task[:3]}-{k + 1:03d}" for k in range(n)]
        if task == "segmentation":
            dice = 1.0 / (1.0 + np.exp(-latent))
            hd95 = np.exp(2.5 - 0.9 * latent + gen.normal(0.0, 0.3, latent.shape))
            metrics = {"dice": dice, "hd95": hd95}
        else:
            metrics = {"score": 1.0 / (1.0 + np.exp(-latent))}
        for metric, values in metrics.items():
            values = np.round(values, 4)
            values[gen.random(values.shape) < missing] = np.nan
            rows += [(task, metric, cases[c], runs[r], values[r, c]) for r in range(6) for c in range(n)]
    return pd.DataFrame(rows, columns=["task", "metric", "case", "algorithm", "value"])


def latent_scores(quality: np.ndarray, n_cases: int, gen: np.random.Generator) -> np.ndarray:
    """Per-case scores in [0, 1] of runs of true ``quality`` on ``n_cases`` new cases (the example's model).

    Parameters
    ----------
    quality : ndarray (R,)
        The runs' true qualities.
    n_cases : int
    gen : numpy.random.Generator

    Returns
    -------
    ndarray (R, n_cases)
    """
    difficulty = gen.normal(0.0, 0.8, n_cases)
    latent = 1.0 + quality[:, None] - difficulty[None, :] + gen.normal(0.0, 0.5, (quality.size, n_cases))
    return 1.0 / (1.0 + np.exp(-latent))
