"""Comparisons between runs and between gold strategies: paired tests, neighbours on a leaderboard, agreement.

- :func:`pairwise_tests`: one-sided paired Wilcoxon signed-rank tests between
  all runs on per-case scores, Holm-adjusted per scheme;
- :func:`adjacent_pairs`: whether the bootstrap tells neighbours on a
  leaderboard apart;
- :func:`strategy_agreement`: Kendall's tau between the rankings under
  different gold strategies.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _kernels
from .bootstrap import BootstrapResult
from .ranking import TIE_TOL, rank
from .schemes import Schemes

__all__ = ["pairwise_tests", "adjacent_pairs", "strategy_agreement"]


def pairwise_tests(schemes: Schemes, *, alpha: float = 0.05, correction: str = "holm"):
    """One-sided paired Wilcoxon signed-rank tests between all runs, per macro scheme.

    For every ordered pair (i, j) of runs, H1: run i's per-image scores are
    higher than run j's. p-values are adjusted over all ordered pairs of a
    scheme with Holm's method (statsmodels), as challengeR's significance
    maps do. Micro schemes have no per-image scores and are skipped (use the
    bootstrap's pairwise win shares for them). p-values use the normal
    approximation with tie correction (scipy's ``method="asymptotic"``):
    accurate for the hundreds of cases of a challenge, approximate below
    about 20 cases; zero differences are dropped ("wilcox").

    Returns a tidy table ``strategy, metric, average, system, other, p, p_adjusted, better``.
    """
    import pandas as pd
    from scipy.stats import wilcoxon
    from statsmodels.stats.multitest import multipletests

    if schemes.per_case is None:
        raise ValueError("these schemes carry no per-case scores")
    frames = []
    n_r = len(schemes.systems)
    ii, jj = np.where(~np.eye(n_r, dtype=bool))
    for s, (strat, metric, average) in enumerate(schemes.names):
        if not schemes.is_macro(s):
            continue
        v = schemes.per_case[s]
        keep = ~np.isnan(v).any(axis=0)
        d = v[ii][:, keep] - v[jj][:, keep]  # (pairs, cases)
        p = np.ones(ii.size)
        nonzero = (d != 0).any(axis=1)
        if nonzero.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                p[nonzero] = wilcoxon(d[nonzero], axis=1, alternative="greater", method="asymptotic").pvalue
        p = np.nan_to_num(p, nan=1.0)
        reject, p_adj, _, _ = multipletests(p, alpha=alpha, method=correction)
        frames.append(pd.DataFrame({
            "strategy": strat, "metric": metric, "average": average,
            "system": np.asarray(schemes.systems, dtype=object)[ii],
            "other": np.asarray(schemes.systems, dtype=object)[jj],
            "p": p, "p_adjusted": p_adj, "better": reject,
        }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def strategy_agreement(schemes: Schemes, *, method: str = "average", tol: float = TIE_TOL):
    """Kendall's tau-b between the full-set rankings of every pair of strategies.

    Returns a tidy table ``metric, average, strategy, other, tau`` (within each
    metric and averaging; the diagonal is 1).
    """
    import pandas as pd

    ranks = rank(schemes.scores(), method=method, tol=tol)
    rows = []
    for s, (strat, metric, average) in enumerate(schemes.names):
        for t, (other, metric2, average2) in enumerate(schemes.names):
            if (metric2, average2) == (metric, average):
                rows.append({"metric": metric, "average": average, "strategy": strat, "other": other,
                             "tau": float(_kernels.kendall_tau_b(ranks[s], ranks[t]))})
    return pd.DataFrame(rows)


def adjacent_pairs(result: BootstrapResult, *, strategy: str, metric: str = "jaccard", average: str = "micro",
                   level: float = 0.95):
    """Neighbours on a leaderboard and whether the bootstrap tells them apart.

    For runs at consecutive positions of the full-set ranking under one scheme,
    ``win_share`` is the share of resamples in which the higher-ranked run
    scores strictly higher; the pair is ``distinguishable`` when it reaches
    ``level`` (a one-sided paired bootstrap comparison at 1 - level).
    """
    import pandas as pd

    s = result.schemes.index(strategy, metric, average)
    order = np.argsort(-np.nan_to_num(result.estimate[s], nan=-np.inf), kind="stable")
    systems = result.schemes.systems
    rows = []
    for a, b in zip(order[:-1], order[1:]):
        share = float(result.wins[s, a, b])
        rows.append({"system": systems[a], "next": systems[b], "score": result.estimate[s, a],
                     "next_score": result.estimate[s, b], "win_share": share, "distinguishable": share >= level})
    return pd.DataFrame(rows)
