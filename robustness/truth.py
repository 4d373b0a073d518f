"""Truth on synthetic data: how well each scheme's ranking recovers the runs' true ranking.

Real data has no ground truth; the synthetic challenge (:mod:`robustness.synthetic`)
knows each run's true skill, so a study can ask which scoring scheme ranks the
runs as their skill does.
"""

from __future__ import annotations

import numpy as np

from .ranking import kendall_tau, rank

__all__ = ["skill_agreement"]


def skill_agreement(scores, skill: dict):
    """Kendall's tau-b between every scheme's ranking and the ranking by true skill.

    Parameters
    ----------
    scores : DataFrame
        :func:`robustness.scores.scores_frame` with ``ranks=True``.
    skill : dict
        Each run's true skill (higher is better).

    Returns
    -------
    DataFrame ``strategy, metric, average, tau_to_truth``.
    """
    import pandas as pd

    keys = ["strategy", "metric", "average"]
    systems = list(dict.fromkeys(scores["system"]))
    true_rank = rank(np.array([skill[s] for s in systems]))
    rows = []
    for key, g in scores.groupby(keys, sort=False):
        r = g.set_index("system").loc[systems, "rank"].to_numpy()
        rows.append(dict(zip(keys, key), tau_to_truth=float(kendall_tau(true_rank, r))))
    return pd.DataFrame(rows)
