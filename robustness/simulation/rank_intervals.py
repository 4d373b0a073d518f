"""How often a per-case table's bootstrap rank intervals cover the runs' true ranks, by simulation.

The populations follow the example table's model (:mod:`robustness.synthetic.case_tables`); the intervals are
the table command's (:func:`robustness.statistics.case_rankings.bootstrap_task_ranks`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.seeds import SeedLike
from robustness.statistics.case_rankings import TaskScores, bootstrap_task_ranks
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.ranks import rank
from robustness.synthetic.case_tables import latent_scores

__all__ = ["rank_interval_coverage"]


def rank_interval_coverage(*, spreads: tuple = (0.3, 0.1), sizes: tuple = (30, 100), n_populations: int = 20,
                           n_test_sets: int = 10, n_resamples: int = 400, truth_cases: int = 200_000,
                           rng: SeedLike = 0) -> pd.DataFrame:
    """How often the bootstrap rank intervals of a per-case table cover the runs' true ranks, by simulation.

    Populations of six runs (three teams of two, as the example table,
    :func:`robustness.synthetic.case_tables.example_table`) with team effects of standard deviation ``spread``
    (and runs within a team a quarter of it); each population's true ranking is the ranking of its runs' mean
    scores over ``truth_cases`` cases. Test sets of ``n`` cases are drawn from it, ranked by mean score (ties:
    min) and bootstrapped as the table command does
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
        One row per spread and size (``spread``, ``cases``): ``coverage`` (share of (run, test set) pairs
        covered), ``coverage_se`` (its Monte Carlo SE over test sets), ``all_runs`` (share of test sets where
        every run's interval covers), ``width`` (mean interval width in places), ``test_sets``.
    """
    gen = np.random.default_rng(rng)
    options = RankingOptions(ties="min")
    rows = []
    for spread in spreads:
        populations = []
        for _ in range(n_populations):
            quality = np.repeat(gen.normal(0.0, spread, 3), 2) + gen.normal(0.0, spread / 4, 6)
            true = rank(latent_scores(quality, truth_cases, gen).mean(axis=1), ties="min")
            populations.append((quality, true))
        for n in sizes:
            covered, widths = [], []
            for quality, true in populations:
                for _ in range(n_test_sets):
                    values = latent_scores(quality, n, gen)
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
