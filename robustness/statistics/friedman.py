"""Several runs over many cases as machine-learning benchmarks compare them: Friedman, Nemenyi, critical difference.

Demšar (2006, JMLR 7:1-30). On the N cases where every one of the k runs has a score, the runs are ranked per
case (1 = best, average ranks for ties), and ``R_j`` is run j's mean rank.

- **Friedman's test** that the runs are exchangeable: ``chi2 = 12 N / (k (k + 1)) (sum_j R_j^2 - k (k + 1)^2 / 4)``,
  divided by the tie correction ``1 - sum (t^3 - t) / (N k (k^2 - 1))`` over the ties of every case, against the
  chi-square with ``k - 1`` degrees of freedom (scipy's ``friedmanchisquare`` computes the same).
- **Nemenyi's post-hoc test**: runs i and j differ at level ``alpha`` when ``|R_i - R_j|`` reaches the **critical
  difference** ``CD = q_alpha sqrt(k (k + 1) / (6 N))``, ``q_alpha`` the upper ``alpha`` quantile of the
  studentized range of k means with infinite degrees of freedom divided by ``sqrt 2`` (Demšar's Table 5a:
  2.343 for three runs at 5%). Its p-value is ``P(Q >= sqrt 2 |R_i - R_j| / sqrt(k (k + 1) / (6 N)))``, Q the
  studentized range (scikit-posthocs' ``posthoc_nemenyi_friedman`` up to its approximation of Q).

The tests compare all pairs together (family-wise), and the critical-difference diagram joins the runs whose
mean ranks lie within CD of each other: those it cannot tell apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2, studentized_range

from robustness.statistics.ranks import rank

__all__ = ["Friedman", "friedman", "critical_difference", "tied_groups"]


@dataclass(frozen=True)
class Friedman:
    """Friedman's test and Nemenyi's post-hoc test on one leaderboard (module notes).

    Attributes
    ----------
    runs : tuple of str
    mean_ranks : ndarray (k,)
    n_cases : int
        The cases where every run has a score.
    statistic, p : float
        Friedman's chi-square (tie-corrected) and its p-value (nan with fewer than 2 runs or cases).
    alpha, cd : float
        The level and Nemenyi's critical difference.
    pairs : pandas.DataFrame
        ``run, other, mean_rank, other_mean_rank, difference, p, differ`` for every pair (``differ``: the
        difference reaches CD).
    """

    runs: tuple
    mean_ranks: np.ndarray
    n_cases: int
    statistic: float
    p: float
    alpha: float
    cd: float
    pairs: pd.DataFrame


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks for ``k`` runs over ``n`` cases at level ``alpha``.

    Parameters
    ----------
    k, n : int
    alpha : float

    Returns
    -------
    float

    Examples
    --------
    >>> round(float(critical_difference(3, 10) / np.sqrt(3 * 4 / 60)), 2)  # Demšar's q for three runs at 5%: 2.343
    2.34
    """
    q = float(studentized_range.isf(alpha, k, np.inf)) / np.sqrt(2.0)
    return q * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def friedman(values: np.ndarray, runs: tuple | list, *, lower_better: bool = False, alpha: float = 0.05) -> Friedman:
    """Friedman's and Nemenyi's tests of the runs' scores (module notes).

    Parameters
    ----------
    values : ndarray (k, N)
        Scores per run and case; cases with a missing score (nan) are left out.
    runs : sequence of str
    lower_better : bool
    alpha : float

    Returns
    -------
    Friedman
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[:, ~np.isnan(v).any(axis=0)]
    k, n = v.shape
    ranks = rank(v.T, ties="average", tol=0.0, lower_better=lower_better)  # (N, k)
    mean = ranks.mean(axis=0) if n else np.full(k, np.nan)
    statistic = p = cd = np.nan
    if k >= 2 and n >= 1:
        ties = 0.0
        for row in v.T:
            _, counts = np.unique(row, return_counts=True)
            ties += float(np.sum(counts ** 3 - counts))
        correction = 1.0 - ties / (n * k * (k * k - 1.0))
        raw = 12.0 * n / (k * (k + 1.0)) * (np.sum(mean ** 2) - k * (k + 1.0) ** 2 / 4.0)
        statistic = raw / correction if correction > 0 else np.nan
        p = float(chi2.sf(statistic, k - 1)) if np.isfinite(statistic) else np.nan
        cd = critical_difference(k, n, alpha)
    scale = np.sqrt(k * (k + 1) / (6.0 * n)) if n else np.nan
    rows = []
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(mean[i] - mean[j])
            q = float(np.sqrt(2.0) * diff / scale) if n and k >= 2 else np.nan
            rows.append({"run": runs[i], "other": runs[j], "mean_rank": mean[i], "other_mean_rank": mean[j],
                         "difference": diff, "p": float(studentized_range.sf(q, k, np.inf)) if np.isfinite(q)
                         else np.nan, "differ": bool(np.isfinite(cd) and diff >= cd)})
    pairs = pd.DataFrame(rows, columns=["run", "other", "mean_rank", "other_mean_rank", "difference", "p", "differ"])
    return Friedman(tuple(runs), mean, n, float(statistic), float(p), alpha, float(cd), pairs)


def tied_groups(mean_ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """The maximal runs of consecutive places whose mean ranks lie within ``cd``: the diagram's bars.

    Parameters
    ----------
    mean_ranks : ndarray (k,)
    cd : float

    Returns
    -------
    list of (first, last)
        Positions in the order of the sorted mean ranks, ``first < last``; a run alone is no bar.

    Examples
    --------
    >>> tied_groups(np.array([1.0, 1.5, 2.9, 3.0]), 1.0)
    [(0, 1), (2, 3)]
    """
    m = np.sort(np.asarray(mean_ranks, dtype=np.float64))
    groups: list[tuple[int, int]] = []
    for i in range(m.size):
        j = int(np.searchsorted(m, m[i] + cd, side="right")) - 1
        if j > i and not any(a <= i and j <= b for a, b in groups):
            groups.append((i, j))
    return groups
