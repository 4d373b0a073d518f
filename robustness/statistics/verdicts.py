"""Which item is best, and which cannot be told apart from it: one rule for every "winner" a report names.

A report names a fastest strategy, a gold that agrees best with the truth, a
scheme closest to the population ranking; each time the rule is the same: the
leader is the item with the best mean over paired draws, and every other item
is tied with it unless the interval of its paired difference with the leader,
Bonferroni-adjusted over those comparisons, excludes zero. Only a leader with
nothing tied is named best. The draws decide the interval:

``percentile``
    draws are a sampling distribution (bootstrap resamples, simulation
    replicates): the percentile interval of the paired differences;
``normal``
    draws are Monte Carlo replicates whose *mean* is the statistic (random
    orders of one test set): the normal interval of the mean paired difference
    (its standard error over the draws);
``t``
    the same with Student's t quantile (n - 1 degrees of freedom), for a mean
    over few draws (the design study's replicates, whose expected value is the
    claim: the scheme closest to the population ranking on average).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri
from scipy.stats import t as student

from robustness.statistics.inference import tails

__all__ = ["Verdict", "best_with_ties"]


@dataclass(frozen=True)
class Verdict:
    """The leader and what is tied with it.

    Attributes
    ----------
    best : str or None
        The leader, when nothing is tied with it.
    tied : list of str
        The leader first, then every item not told apart from it (just the leader when it is best).
    level : float
        The Bonferroni-adjusted confidence of each comparison.
    """

    best: str | None
    tied: list
    level: float


def best_with_ties(draws: ArrayLike, names: list[str], *, higher_is_better: bool = True, confidence: float = 0.95,
                   interval: str = "percentile") -> Verdict:
    """The best item by its mean draw, and the items not distinguishable from it over paired draws.

    Parameters
    ----------
    draws : array_like (items, draws)
        Paired over the second axis (the same resample, replicate or order for every item).
    names : list of str
    higher_is_better : bool
    confidence : float
        Family-wise: each of the ``items - 1`` comparisons with the leader is made at
        ``1 - (1 - confidence) / (items - 1)``.
    interval : {'percentile', 'normal', 't'}
        See the module notes.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> draws = np.stack([rng.normal(1.0, 0.1, 500), rng.normal(0.0, 0.1, 500), rng.normal(0.98, 0.1, 500)])
    >>> best_with_ties(draws, ["a", "b", "c"])
    Verdict(best=None, tied=['a', 'c'], level=0.975)
    """
    if interval not in ("percentile", "normal", "t"):
        raise ValueError(f"interval must be 'percentile', 'normal' or 't', got {interval!r}")
    draws = np.asarray(draws, dtype=np.float64)
    sign = 1.0 if higher_is_better else -1.0
    lead = int(np.nanargmax(sign * np.nanmean(draws, axis=1)))
    level = 1 - (1 - confidence) / max(len(names) - 1, 1)
    low_tail, high_tail = tails(level)
    tied = [names[lead]]
    for i, name in enumerate(names):
        if i == lead:
            continue
        d = draws[lead] - draws[i]
        d = d[~np.isnan(d)]
        if interval == "percentile":
            apart = d.size and np.quantile(sign * d, low_tail) > 0
        else:
            se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
            q = float(ndtri(high_tail)) if interval == "normal" or d.size < 2 else float(student.ppf(high_tail,
                                                                                                   d.size - 1))
            bound = d.mean() + q * se if d.size else np.nan
            apart = bound < 0 if not higher_is_better else d.mean() - q * se > 0
        if not apart:
            tied.append(name)
    return Verdict(names[lead] if len(tied) == 1 else None, tied, level)
