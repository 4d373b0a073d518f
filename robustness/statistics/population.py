"""What a test set says about the ranking on unlimited data: an empirical-Bayes posterior of the population scores.

The plug-in bootstrap takes the test set's ranking for the truth. Its runs' observed gaps are their population
gaps plus noise, so near-ties look wider than they are, and the distance to unlimited data is underestimated, the
more so the larger the test set considered (by 2% to 19% at the test set's size and up to 43% at eight times it,
over the nine populations of ``python -m experiments.calibration``; docs/calibration.md). This module estimates
that distance from a posterior of the runs' population scores instead (-9% to +2% and -29% to +8% there).

Model
-----
- Every score is a ratio of sums over units (:meth:`~robustness.statistics.schemes.Schemes.ratio_parts`), so on
  a test set of ``n`` units the scores are approximately ``N(theta, Sigma / n)``, with ``Sigma / n`` the
  delta-method covariance from the units' influence values (paired: the runs are scored on the same units).
- Prior: ``theta_r = mu + g_{group(r)} + w_r`` with group effects ``g ~ N(0, tau_g^2)`` and runs within their
  group ``w ~ N(0, tau_w^2)``. The groups are the runs' teams (:func:`run_groups`): the runs of one team tend
  to lie close together, and these near-ties are what the plug-in misses. Without groups the prior is one level
  (``tau_g = 0``), and the estimate is close to the plug-in's. ``tau_w^2`` is the within-group spread of the
  observed scores minus the noise's share of it, ``tau_g^2`` the rest of the total spread (moments, floored at a
  tiny positive value); ``mu`` the generalised least-squares mean.
- The posterior of ``theta`` is normal; each draw is a population, and a test set of ``m`` units scores it with
  noise ``N(0, Sigma / m)``. The expected L1 at ``m`` is the average over draws and noise vectors of the L1
  between the noisy ranking and the draw's own ranking (:func:`robustness._kernels.margin_l1`; runs within
  ``margin`` of each other in the population count as tied).

Uncertainty: the posterior spread of the expected L1 (what the test set leaves unknown about the population
scores, given the model) and the outer bootstrap's spread of the whole estimate over resampled test sets (what
the model's hyperparameters and covariance owe to this test set) are added in quadrature.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import gammaincinv

from robustness import _kernels
from robustness.kernel_threads import kernel_threads, thread_map

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["ScorePosterior", "delta_covariance", "run_groups", "score_posterior", "noisy_l1", "matrix_root",
           "GROUP_RULES", "ESTIMATOR", "PRIORS", "spread_test"]

#: The estimator's version: a design study's cached replicates made with another are not reused.
ESTIMATOR = "empirical-bayes-2026-12"

#: How :func:`run_groups` reads the runs' groups from their names.
GROUP_RULES = ("auto", "none")
_SUFFIX = re.compile(r"^(?P<group>.+?)[-_. ]+[^-_. ]+$")


def run_groups(runs: Sequence[str], rule: str | Mapping[str, str] = "auto") -> tuple[np.ndarray, str]:
    """The group (team) of every run, as integer labels, and a sentence that says how they were found.

    Parameters
    ----------
    runs : sequence of str
        The runs' names.
    rule : {'auto', 'none'} or mapping
        ``'auto'``: the name without its last part (``team3-run2`` is in ``team3``; the separators are ``-``,
        ``_``, ``.`` and space), used only when at least one group holds two runs and there are at least two
        groups; ``'none'``: every run its own group (a one-level prior); a mapping: run name to group name (runs
        it does not name are their own group).

    Returns
    -------
    (labels, description) : (ndarray of int, str)
        ``labels[r]`` the group of run ``r`` (0, 1, ... in order of first appearance).

    Examples
    --------
    >>> run_groups(["team1-run1", "team1-run2", "team2-run1"])[0].tolist()
    [0, 0, 1]
    >>> run_groups(["alpha", "beta"])[1]
    'no groups (every run its own): a one-level prior'
    """
    if isinstance(rule, Mapping):
        names = [str(rule.get(r, r)) for r in runs]
        how = "groups given"
    elif rule == "none":
        names = list(runs)
        how = "none"
    elif rule == "auto":
        names = [m.group("group") if (m := _SUFFIX.match(r)) else r for r in runs]
        sizes = np.unique(names, return_counts=True)[1]
        if sizes.size < 2 or sizes.max() < 2:
            names = list(runs)
        how = "from the run names"
    else:
        raise ValueError(f"rule must be one of {GROUP_RULES} or a mapping, got {rule!r}")
    labels = np.unique(names, return_inverse=True)[1]
    order = {v: k for k, v in enumerate(dict.fromkeys(labels.tolist()))}
    labels = np.array([order[v] for v in labels], dtype=np.int64)
    n_groups = int(labels.max()) + 1 if labels.size else 0
    if n_groups == len(runs):
        return labels, "no groups (every run its own): a one-level prior"
    return labels, f"{n_groups} groups of runs ({how})"


def delta_covariance(numerator: np.ndarray, denominator: np.ndarray,
                     weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Scores and their delta-method covariance, from the units' numerators and denominators.

    For a ratio of sums ``R = sum_u a_u / sum_u b_u`` over ``n`` units, the influence of unit ``u`` is
    ``(a_u - R b_u) / (sum b / n)`` and the covariance of two runs' scores ``sum_u l_u l'_u / (n (n - 1))``.

    Parameters
    ----------
    numerator, denominator : ndarray (U, ..., R)
        Every unit's numerator and denominator (:meth:`~robustness.statistics.schemes.Schemes.ratio_parts`).
    weights : ndarray (U,), optional
        How many times each unit counts (a bootstrap resample's draw counts); default once each.

    Returns
    -------
    (scores, covariance) : ndarray (..., R) and (..., R, R)
        nan scores, and zero rows, where a run's denominator sums to 0.
    """
    a = np.asarray(numerator, dtype=np.float64)
    b = np.asarray(denominator, dtype=np.float64)
    c = np.ones(a.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    n = c.sum()
    total_a = np.tensordot(c, a, axes=1)
    total_b = np.tensordot(c, b, axes=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = total_a / total_b
        influence = (a - scores[None] * b) / (total_b[None] / n)
    influence = np.where(np.isfinite(influence), influence, 0.0)
    weighted = influence * c.reshape((-1,) + (1,) * (a.ndim - 1))
    cov = np.einsum("u...r,u...q->...rq", weighted, influence) / (n * max(n - 1.0, 1.0))
    return scores, cov


@dataclass(frozen=True)
class ScorePosterior:
    """The normal posterior of the runs' population scores under the two-level prior (module notes).

    Attributes
    ----------
    mean : ndarray (R,)
    covariance : ndarray (R, R)
    tau_group, tau_within : float
        The prior's standard deviations between groups and within them.
    """

    mean: np.ndarray
    covariance: np.ndarray
    tau_group: float
    tau_within: float

    def draws(self, n_draws: int, rng: np.random.Generator) -> np.ndarray:
        """Populations drawn from the posterior.

        Parameters
        ----------
        n_draws : int
        rng : numpy.random.Generator

        Returns
        -------
        ndarray (n_draws, R)
        """
        return self.mean + rng.standard_normal((n_draws, self.mean.size)) @ matrix_root(self.covariance).T

    def p_best(self, n_draws: int, rng: np.random.Generator) -> np.ndarray:
        """The posterior probability that each run is the population's best.

        Parameters
        ----------
        n_draws : int
        rng : numpy.random.Generator

        Returns
        -------
        ndarray (R,)
        """
        d = self.draws(n_draws, rng)
        return np.bincount(np.argmax(d, axis=1), minlength=self.mean.size) / n_draws


def matrix_root(cov: np.ndarray) -> np.ndarray:
    """A square root ``L`` with ``L L^T = cov`` of a symmetric positive semi-definite matrix.

    Parameters
    ----------
    cov : ndarray (R, R)
        Symmetric up to rounding; negative eigenvalues of rounding are set to 0.

    Returns
    -------
    ndarray (R, R)
    """
    w, v = np.linalg.eigh((cov + cov.T) / 2)
    return v * np.sqrt(np.clip(w, 0.0, None))


_FLOOR = 1e-12  # variances are floored here: a prior or a covariance of exactly 0 is not invertible


#: The within-group variances a prior may take from the test set: one shared by every group (the estimate's), or
#: each group of two or more runs its own (the other end of the prior-sensitivity band, :mod:`.uncertainty`).
PRIORS = ("shared", "per_team", "per_team_low")

#: The one-sided level of the ``per_team_low`` prior's lower confidence limits of the teams' within-team variances.
LOW_LEVEL = 0.975


def score_posterior(scores: np.ndarray, covariance: np.ndarray, groups: np.ndarray, *,
                    known: np.ndarray | None = None, prior: str = "shared") -> ScorePosterior:
    """The posterior of the population scores given a test set's scores and their covariance (module notes).

    Parameters
    ----------
    scores : ndarray (R,)
        The test set's scores of one scheme (finite).
    covariance : ndarray (R, R)
        Their covariance (:func:`delta_covariance`).
    groups : ndarray of int (R,)
        The runs' groups (:func:`run_groups`).
    known : ndarray (R,), optional
        The runs' population scores, where they are known (a calibration's population). The prior's variances are
        then theirs instead of estimated: ``tau_g^2`` the variance of the groups' mean scores, and each group its
        own ``tau_w^2``, the variance of its runs' scores (what the prior's normal form costs when nothing about it
        has to be estimated). ``tau_within`` reports the runs' mean of ``tau_w^2``, as a standard deviation.
    prior : {'shared', 'per_team'}
        The within-group variance: ``'shared'`` (default) one ``tau_w^2`` pooled over the groups (moments);
        ``'per_team'`` each group of two or more runs its own, by the same moments on its runs alone (floored; a
        run alone in its group keeps the shared value); ``'per_team_low'`` each group's own at its one-sided
        :data:`LOW_LEVEL` lower confidence limit (``S_t / chi2_{LOW_LEVEL}(n_t - 1)`` less the noise's share,
        floored: a team as tight as its runs allow). They coincide without a group of two or more runs.
        A team whose runs are closer together than the others' is shrunk too little by the shared variance and
        too much by its own (estimated from a handful of runs); the distance to unlimited data errs low under the
        first and high under the second (docs/calibration.md).

    Returns
    -------
    ScorePosterior
    """
    theta = np.asarray(scores, dtype=np.float64)
    n_r = theta.size
    sigma = (covariance + covariance.T) / 2 + np.eye(n_r) * _FLOOR
    blocks, same, centre = _group_structure(np.asarray(groups).tobytes(), np.asarray(groups).dtype.str)
    if known is not None:
        tau_w2, tau_g2 = _known_prior(np.asarray(known, dtype=np.float64), groups)
        return _posterior(theta, sigma, tau_g2 * same + np.diag(tau_w2), float(np.sqrt(tau_g2)),
                          float(np.sqrt(tau_w2.mean())))
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {prior!r}")
    per_group, w2, g2 = _moments(theta, sigma, blocks, centre)
    if prior == "per_team_low":
        # chi2's LOW_LEVEL quantile with n_t - 1 degrees of freedom is 2 P^-1((n_t - 1) / 2, LOW_LEVEL)
        own = [(idx, max(ss / (2.0 * float(gammaincinv((idx.size - 1) / 2, LOW_LEVEL))) - noise / (idx.size - 1),
                         _FLOOR)) for idx, ss, noise in per_group]
    else:
        own = [(idx, max((ss - noise) / (idx.size - 1), _FLOOR)) for idx, ss, noise in per_group]
    if prior in ("per_team", "per_team_low") and own:
        tau_w2 = np.full(n_r, w2)
        for idx, value in own:
            tau_w2[idx] = value
        return _posterior(theta, sigma, g2 * same + np.diag(tau_w2), float(np.sqrt(g2)),
                          float(np.sqrt(tau_w2.mean())))
    return _posterior(theta, sigma, g2 * same + w2 * np.eye(n_r), float(np.sqrt(g2)), float(np.sqrt(w2)))


def _moments(theta: np.ndarray, sigma: np.ndarray, blocks: list, centre: np.ndarray) -> tuple[list, float, float]:
    """The prior's variances by moments: per group ``(indices, S_t, noise_t)``, ``tau_w^2``, ``tau_g^2``.

    Per group of two or more runs, ``S_t`` is its centred sum of squares of the scores, ``noise_t`` the noise's
    expected share of it (``tr(C Sigma C)``); ``tau_w^2`` pools ``S_t - noise_t`` over the groups, ``tau_g^2`` is
    the rest of the total spread (both floored). Without a group of two or more runs: ``tau_w^2`` the total
    spread, ``tau_g^2 = 0``.
    """
    within_ss, within_noise, within_df = 0.0, 0.0, 0
    per_group = []
    for idx, block, group_centre in blocks:
        dev = group_centre @ theta[idx]
        ss, noise = float(dev @ dev), float(np.trace(group_centre @ sigma[block]))
        within_ss += ss
        within_noise += noise
        within_df += idx.size - 1
        per_group.append((idx, ss, noise))
    total = (float(theta @ centre @ theta) - float(np.trace(centre @ sigma))) / max(theta.size - 1, 1)
    if within_df:
        w2 = max(float(within_ss - within_noise) / within_df, _FLOOR)
        return per_group, w2, max(total - w2, _FLOOR)
    return per_group, max(total, _FLOOR), 0.0


def spread_test(scores: np.ndarray, covariance: np.ndarray, groups: np.ndarray, *, n_sims: int = 400,
                rng: np.random.Generator | int | None = None) -> tuple[float, float]:
    """Whether the teams' within-team spreads differ more than the test set's noise explains.

    The estimate's prior gives every team of two or more runs one shared within-team variance ``tau_w^2``
    (:func:`score_posterior`). Under it, team ``t``'s centred sum of squares ``S_t`` (its ``n_t`` runs' scores
    about their mean) has expectation ``E_t = (n_t - 1) tau_w^2 + noise_t``, the noise's share included. The
    statistic is the gamma deviance ``D = sum_t (n_t - 1) (r_t - 1 - log r_t)`` with ``r_t = S_t / E_t``: 0 when
    every team spreads as the shared variance says, large when a team is tighter (or looser) than the others. A
    tight team beside loose ones is where the estimate errs low (docs/calibration.md). The p-value is a parametric
    bootstrap's: scores drawn from the fitted prior's marginal ``N(mu, Sigma + tau_g^2 [same team] + tau_w^2 I)``,
    the variances estimated again on each draw and ``D`` recomputed; ``(1 + #{D* >= D}) / (1 + n_sims)``.

    Parameters
    ----------
    scores : ndarray (R,)
        A test set's scores of one scheme (finite).
    covariance : ndarray (R, R)
        Their covariance (:func:`delta_covariance`).
    groups : ndarray of int (R,)
        The runs' groups (:func:`run_groups`).
    n_sims : int
        Parametric bootstrap draws.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    (statistic, p_value) : (float, float)
        Both nan with fewer than two groups of two or more runs (nothing to compare).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat([0, 1, 2], 4)
    >>> scores = np.r_[0.5 + 0.001 * rng.standard_normal(4), 0.6 + 0.05 * rng.standard_normal(8)]
    >>> statistic, p = spread_test(scores, np.eye(12) * 1e-5, groups, rng=1)
    >>> bool(p < 0.05)
    True
    """
    theta = np.asarray(scores, dtype=np.float64)
    sigma = (covariance + covariance.T) / 2 + np.eye(theta.size) * _FLOOR
    blocks, same, centre = _group_structure(np.asarray(groups).tobytes(), np.asarray(groups).dtype.str)
    if len(blocks) < 2:
        return np.nan, np.nan
    per_group, w2, g2 = _moments(theta, sigma, blocks, centre)
    df = np.array([idx.size - 1 for idx, _, _ in blocks], dtype=np.float64)
    noise = np.array([noise for _, _, noise in per_group])
    observed = _deviance(np.array([[ss for _, ss, _ in per_group]]), noise, df)[0]
    draws = np.random.default_rng(rng).standard_normal((n_sims, theta.size)) @ matrix_root(
        sigma + g2 * same + w2 * np.eye(theta.size)).T
    ss = np.stack([((draws[:, idx] - draws[:, idx].mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
                   for idx, _, _ in blocks], axis=1)  # (n_sims, T)
    simulated = _deviance(ss, noise, df)
    return float(observed), float((1 + np.count_nonzero(simulated >= observed)) / (1 + n_sims))


def _deviance(ss: np.ndarray, noise: np.ndarray, df: np.ndarray) -> np.ndarray:
    """:func:`spread_test`'s statistic for rows of groups' sums of squares (K, T), ``tau_w^2`` pooled per row."""
    w2 = np.maximum((ss.sum(axis=1) - noise.sum()) / df.sum(), _FLOOR)
    r = np.maximum(ss / (df * w2[:, None] + noise), _FLOOR)
    return (df * (r - 1 - np.log(r))).sum(axis=1)


@functools.lru_cache(maxsize=64)
def _group_structure(key: bytes, dtype: str) -> tuple[list, np.ndarray, np.ndarray]:
    """What :func:`score_posterior` needs of the runs' groups, built once per grouping.

    It is called per scheme and resample with the same groups. Returns, per group of two or more runs, its
    indices, its block's index and its centring matrix; the same-group indicator; the centring matrix of all runs.
    """
    groups = np.frombuffer(key, dtype=dtype)
    blocks = []
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        if idx.size >= 2:
            blocks.append((idx, np.ix_(idx, idx), np.eye(idx.size) - 1.0 / idx.size))
    same = (groups[:, None] == groups[None, :]).astype(np.float64)
    return blocks, same, np.eye(groups.size) - 1.0 / groups.size


def _known_prior(known: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, float]:
    """Every run's within-group prior variance and the between-group one, from population scores."""
    found = np.unique(groups)
    if found.size == known.size:  # no groups: a one-level prior of the scores' own spread
        return np.full(known.size, max(float(known.var(ddof=1)), _FLOOR) if known.size > 1 else _FLOOR), 0.0
    tau_w2 = np.full(known.size, _FLOOR)
    means = []
    for g in found:
        idx = groups == g
        means.append(known[idx].mean())
        if idx.sum() > 1:
            tau_w2[idx] = max(float(known[idx].var(ddof=1)), _FLOOR)
    return tau_w2, max(float(np.var(means, ddof=1)), _FLOOR) if len(means) > 1 else 0.0


def _posterior(theta: np.ndarray, sigma: np.ndarray, prior: np.ndarray, tau_group: float,
               tau_within: float) -> ScorePosterior:
    """The normal posterior under the prior covariance ``prior``, its mean the generalised least-squares one."""
    n_r = theta.size
    marginal = np.linalg.inv(sigma + prior)
    ones = np.ones(n_r)
    mu = float(ones @ marginal @ theta / (ones @ marginal @ ones))
    prior_inv = np.linalg.inv(prior)
    sigma_inv = np.linalg.inv(sigma)
    cov = np.linalg.inv(sigma_inv + prior_inv)
    mean = cov @ (sigma_inv @ theta + prior_inv @ (mu * ones))
    return ScorePosterior(mean=mean, covariance=(cov + cov.T) / 2, tau_group=tau_group, tau_within=tau_within)


def noisy_l1(draws: np.ndarray, noise: np.ndarray, scale: float | ArrayLike, margin: float = 0.0, *,
             n_threads: int | None = None) -> np.ndarray:
    """The L1 between a test set's ranking and its population's, for every population drawn and noise vector.

    Parameters
    ----------
    draws : ndarray (D, R)
        Populations (:meth:`ScorePosterior.draws`).
    noise : ndarray (F, R)
        Noise vectors with the covariance of the scores on one unit (``Sigma``: the test set's covariance times
        its size); a test set of ``m`` units scores each population with ``noise / sqrt(m)``.
    scale : float or array (M,)
        ``1 / sqrt(m)``; an array of them gives every size at once, in one kernel call (each number is that of
        the call with its scale alone).
    margin : float
        Runs whose population scores lie within it are tied (either order is right).
    n_threads : int, optional
        Threads the draws are split over (blocks of rows, each ranked by the kernel on its own thread; every row
        is computed alone, so the numbers are the same for any split). Default:
        :func:`robustness.kernel_threads.kernel_threads` where the call ranks at least :data:`SPLIT_RANKINGS` vectors
        a thread, else one.

    Returns
    -------
    ndarray (D, F), or (M, D, F) for an array of scales

    Examples
    --------
    >>> draws = np.array([[3.0, 2.0, 1.0]])
    >>> noisy_l1(draws, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]), 1.0)
    array([[0., 4.]])
    >>> noisy_l1(draws, np.array([[0.0, 0.0, 5.0]]), [1.0, 0.1])
    array([[[4.]],
    <BLANKLINE>
           [[0.]]])
    """
    draws = np.ascontiguousarray(draws, dtype=np.float64)
    noise = np.ascontiguousarray(noise, dtype=np.float64)
    scales = np.atleast_1d(np.asarray(scale, dtype=np.float64))
    if scales.ndim != 1:
        raise ValueError(f"scale must be a number or a 1-D array of them, got shape {np.shape(scale)}")
    n_d = draws.shape[0]
    if n_threads is None:
        n_threads = min(kernel_threads(), n_d * noise.shape[0] * scales.size // SPLIT_RANKINGS)
    n_threads = max(1, min(int(n_threads), n_d))
    if n_threads == 1:
        out = _kernels.margin_l1_sizes(draws, noise, scales, float(margin))
    else:
        edges = [n_d * t // n_threads for t in range(n_threads + 1)]
        out = np.concatenate(thread_map(_kernels.margin_l1_sizes, [(draws[a:b], noise, scales, float(margin))
                                                                   for a, b in zip(edges[:-1], edges[1:])],
                                        n_threads), axis=1)
    return out if np.ndim(scale) else out[0]


#: The fewest rankings (draws x noise vectors) a thread gets when :func:`noisy_l1` splits a call: about 2 ms of
#: work at 40 runs, against some 50 us to hand a block to another thread.
SPLIT_RANKINGS = 2_000
