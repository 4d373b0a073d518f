"""The Bayesian signed-rank test with a region of practical equivalence (Benavoli et al.).

Benavoli, Corani, Mangili, Zaffalon and Ruggeri, "A Bayesian Wilcoxon signed-rank test based on the Dirichlet
process", ICML 2014; Benavoli, Corani, Demšar and Zaffalon, "Time for a change", JMLR 18 (2017). The paired
differences ``d_1..d_n`` (positive: the first run better) get a Dirichlet-process prior of strength ``prior``
centred on a pseudo-observation ``d_0 = 0``; the posterior's weights are ``w ~ Dirichlet(prior, 1, ..., 1)`` over
``(d_0, .., d_n)``. Over all pairs ``(i, j)`` (both in ``0..n``, ``i = j`` included) the Walsh averages
``(d_i + d_j) / 2`` are compared with the region of practical equivalence ``[-rope, rope]``:

- ``theta_better = sum_ij w_i w_j H(d_i + d_j - 2 rope)``,
- ``theta_worse = sum_ij w_i w_j H(-(d_i + d_j) - 2 rope)``,
- ``theta_rope = 1 - theta_better - theta_worse``,

with ``H(a) = 1`` for ``a > 0``, ``1/2`` at ``a = 0`` and ``0`` below (the conventions baycomp's ``SignedRankTest``
follows). The three probabilities reported are the shares of posterior samples in which each ``theta`` is the
largest (of equal ones, the first of worse, rope, better, as baycomp's order): ``p_better`` (the first run better
by more than the rope), ``p_rope`` (practically equivalent) and ``p_worse``. Conventionally a probability of at
least 0.95 is a decision; below, the comparison is undecided on these cases.

:func:`signed_rank_thetas` computes every sample's three thetas in ``O(n)`` per sample: the differences are sorted
once, and for each ``i`` the ``j`` with ``d_i + d_j`` above (or equal to) ``2 rope`` form a suffix of the sorted
differences (floating-point addition is monotone), found once from the sums themselves; a sample's theta is then
a weighted sum of suffix sums of its weights. The tests check it against the definition's ``O(n^2)`` double sum
on the same weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BayesSignedRank", "bayes_signed_rank", "signed_rank_thetas", "DECISION"]

#: The posterior probability at or above which a comparison is decided.
DECISION = 0.95

#: Posterior samples drawn at a time (memory: this many times n + 1 weights).
_CHUNK = 2000


@dataclass(frozen=True)
class BayesSignedRank:
    """The posterior probabilities of one comparison.

    Attributes
    ----------
    p_better, p_rope, p_worse : float
        Shares of posterior samples in which the first run is better by more than the rope, the two are within
        it, or the first is worse by more than it.
    cases : int
        Paired differences used.
    samples : int
        Posterior samples drawn.
    """

    p_better: float
    p_rope: float
    p_worse: float
    cases: int
    samples: int

    @property
    def decision(self) -> str:
        """The decision: ``better``, ``equivalent`` or ``worse`` at a probability of at least :data:`DECISION`.

        ``undecided`` where none reaches it.
        """
        for name, p in (("better", self.p_better), ("equivalent", self.p_rope), ("worse", self.p_worse)):
            if p >= DECISION:
                return name
        return "undecided"


def signed_rank_thetas(d: np.ndarray, rope: float, weights: np.ndarray) -> np.ndarray:
    """Every posterior sample's ``(theta_better, theta_rope, theta_worse)`` (module notes).

    Parameters
    ----------
    d : ndarray (n + 1,)
        The differences with the pseudo-observation first (``d[0] = 0``).
    rope : float
        Half-width of the region of practical equivalence (>= 0).
    weights : ndarray (S, n + 1)
        Dirichlet weights of ``d``'s entries, one sample per row.

    Returns
    -------
    ndarray (S, 3)
    """
    d = np.asarray(d, dtype=np.float64)
    order = np.argsort(d, kind="stable")
    z = d[order]
    w = np.asarray(weights, dtype=np.float64)[:, order]
    m = z.size
    sums = z[:, None] + z[None, :]  # row i increasing along j: the j above a threshold form a suffix
    t = 2.0 * rope
    above, at_top = m - (sums > t).sum(axis=1), m - (sums >= t).sum(axis=1)  # suffix starts
    below, at_bottom = (sums < -t).sum(axis=1), (sums <= -t).sum(axis=1)  # prefix ends
    suffix = np.zeros((w.shape[0], m + 1))
    suffix[:, :m] = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]  # suffix[:, k] = sum of w[:, k:]
    prefix = np.zeros((w.shape[0], m + 1))
    prefix[:, 1:] = np.cumsum(w, axis=1)  # prefix[:, k] = sum of w[:, :k]
    better = (w * (suffix[:, above] + 0.5 * (suffix[:, at_top] - suffix[:, above]))).sum(axis=1)
    worse = (w * (prefix[:, below] + 0.5 * (prefix[:, at_bottom] - prefix[:, below]))).sum(axis=1)
    return np.column_stack([better, 1.0 - better - worse, worse])


def bayes_signed_rank(x: np.ndarray, y: np.ndarray, rope: float, *, prior: float = 0.5, n_samples: int = 50_000,
                      rng: np.random.Generator | int | None = None) -> BayesSignedRank:
    """The Bayesian signed-rank test of "x is better than y" on paired scores, with a rope (module notes).

    Parameters
    ----------
    x, y : ndarray (n,)
        Paired scores, higher better (negate both where lower is better); pairs with a nan are left out.
    rope : float
        Half-width of the region of practical equivalence, in the scores' units (> 0).
    prior : float
        Strength of the prior's pseudo-observation at 0 (Benavoli et al.'s and baycomp's 0.5).
    n_samples : int
        Posterior samples (baycomp's 50,000; the Monte Carlo standard error of a probability p is
        ``sqrt(p (1 - p) / n_samples)``, at most 0.0023).
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    BayesSignedRank

    Examples
    --------
    >>> r = bayes_signed_rank(np.linspace(0.5, 0.9, 20), np.linspace(0.1, 0.5, 20), rope=0.05, rng=0)
    >>> r.p_better, r.decision
    (1.0, 'better')
    """
    if not (np.isfinite(rope) and rope > 0):
        raise ValueError(f"rope must be a positive number, got {rope!r}")
    if not prior > 0:
        raise ValueError(f"prior must be > 0, got {prior!r}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples!r}")
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    both = ~np.isnan(x) & ~np.isnan(y)
    if not both.any():
        raise ValueError("no case has a score of both runs")
    d = np.r_[0.0, x[both] - y[both]]
    alpha = np.r_[prior, np.ones(d.size - 1)]
    gen = np.random.default_rng(rng)
    wins = np.zeros(3, dtype=np.int64)
    for start in range(0, n_samples, _CHUNK):
        w = gen.dirichlet(alpha, size=min(_CHUNK, n_samples - start))
        theta = signed_rank_thetas(d, rope, w)[:, ::-1]  # worse, rope, better: equal thetas go to the first, as
        wins += np.bincount(np.argmax(theta, axis=1), minlength=3)  # baycomp's (left, rope, right) order does
    worse, equivalent, better = wins / n_samples
    return BayesSignedRank(float(better), float(equivalent), float(worse), cases=int(d.size - 1), samples=n_samples)
