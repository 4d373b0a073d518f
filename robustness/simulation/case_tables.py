"""A synthetic multi-task per-case table (challengeR's long format), for examples, documents and tests.

Three tasks with their own case sets, like a challenge with three sub-tasks: ``segmentation`` scored by Dice
(higher is better) and by HD95 in mm (lower is better: two leaderboards), ``detection`` and ``grading`` scored
by a [0, 1] score. Six runs from three teams; each run has a true quality per task, the runs of a team lie close
together, and cases differ in difficulty (shared by all runs, as real cases are). A few scores are missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.seeds import SeedLike

__all__ = ["example_table", "rank_interval_coverage"]


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


def _latent_scores(quality: np.ndarray, n_cases: int, gen: np.random.Generator) -> np.ndarray:
    """Per-case scores in [0, 1] of runs of true ``quality`` on ``n_cases`` new cases (the example's model)."""
    difficulty = gen.normal(0.0, 0.8, n_cases)
    latent = 1.0 + quality[:, None] - difficulty[None, :] + gen.normal(0.0, 0.5, (quality.size, n_cases))
    return 1.0 / (1.0 + np.exp(-latent))


def rank_interval_coverage(*, spreads: tuple = (0.3, 0.1), sizes: tuple = (30, 100), n_populations: int = 20,
                           n_test_sets: int = 10, n_resamples: int = 400, truth_cases: int = 200_000,
                           rng: SeedLike = 0) -> pd.DataFrame:
    """How often the bootstrap rank intervals of a per-case table cover the runs' true ranks, by simulation.

    Populations of six runs (three teams of two, as :func:`example_table`) with team effects of standard
    deviation ``spread`` (and runs within a team a quarter of it); each population's true ranking is the ranking
    of its runs' mean scores over ``truth_cases`` cases. Test sets of ``n`` cases are drawn from it, ranked by
    mean score (ties: min) and bootstrapped as the table command does
    (:func:`robustness.statistics.case_rankings.bootstrap_task_ranks`); a run's 95% rank interval covers when
    it holds the run's true rank.

    Parameters
    ----------
    spreads : tuple of float
    sizes : tuple of int
        Test-set sizes (cases).
    n_populations, n_test_sets, n_resamples, truth_cases : int
    rng : seed or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One row per spread and size: ``coverage`` (share of (run, test set) pairs covered), ``coverage_se``
        (its Monte Carlo SE over test sets), ``all_runs`` (share of test sets where every run's interval
        covers), ``width`` (mean interval width in places), ``test_sets``.
    """
    from robustness.statistics.case_rankings import TaskScores, bootstrap_task_ranks
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.statistics.ranks import rank

    gen = np.random.default_rng(rng)
    options = RankingOptions(ties="min")
    rows = []
    for spread in spreads:
        populations = []
        for _ in range(n_populations):
            quality = np.repeat(gen.normal(0.0, spread, 3), 2) + gen.normal(0.0, spread / 4, 6)
            true = rank(_latent_scores(quality, truth_cases, gen).mean(axis=1), ties="min")
            populations.append((quality, true))
        for n in sizes:
            covered, widths = [], []
            for quality, true in populations:
                for _ in range(n_test_sets):
                    values = _latent_scores(quality, n, gen)
                    ts = TaskScores("t", tuple(map(str, range(6))), tuple(map(str, range(n))), values, np.arange(n))
                    boot = bootstrap_task_ranks(ts, "aggregate", options, n_resamples=n_resamples, rng=gen)
                    low, high = np.quantile(boot, [0.025, 0.975], axis=0)
                    covered.append((true >= low) & (true <= high))
                    widths.append(high - low)
            c = np.array(covered)
            per_set = c.mean(axis=1)
            rows.append({"spread": spread, "cases": n, "coverage": float(c.mean()),
                         "coverage_se": float(per_set.std(ddof=1) / np.sqrt(per_set.size)),
                         "all_runs": float(c.all(axis=1).mean()), "width": float(np.mean(widths)),
                         "test_sets": int(c.shape[0])})
    return pd.DataFrame(rows)
