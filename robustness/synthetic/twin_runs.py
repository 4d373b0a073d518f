"""The twin's runs: the challenge's own, with their effects scaled, and new run populations drawn like them.

A run's per-image parameters ``theta_ri = (o_ri, log w_ri)`` split into the image's mean over the runs, a run
effect and a residual (:mod:`robustness.synthetic.image_twin`'s notes). :func:`real_population` keeps the
challenge's runs with their effects times ``run_scale``; :func:`draw_twin_population` draws new effects from
normal distributions with the real effects' covariance between and within teams, and each run's residuals, misses
and false objects from a real run drawn at random.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from robustness.seeds import SeedLike
from robustness.synthetic.twin_images import RaterModel

__all__ = ["TwinPopulation", "RunsConfig", "run_model", "real_population", "draw_twin_population"]


class RunsConfig(Protocol):
    """What the runs' functions read of the twin (:class:`robustness.synthetic.image_twin.ImageTwinConfig`)."""

    @property
    def real_runs(self) -> TwinPopulation:
        """The real runs' parameters."""

    @property
    def run_groups(self) -> np.ndarray:
        """The real runs' teams."""

    @property
    def run_scale(self) -> float:
        """The run effects' scale."""

    @property
    def n_runs(self) -> int:
        """Runs to draw."""

    @property
    def n_teams(self) -> int:
        """Teams to draw."""

    def annotator_names_for(self) -> tuple:
        """The twin's annotators.

        Returns
        -------
        tuple of str
        """


@dataclass(frozen=True, eq=False)
class TwinPopulation:
    """Who takes part in a twin challenge: annotators and runs with their parameters on every real image.

    Attributes
    ----------
    annotators : tuple of str
    runs : tuple of str
    team_of : tuple of str
    offset, log_wobble : float64 (R, N)
        Every run's border offset and log wobble on every real image.
    p_miss : float64 (R, C)
        Every run's chance to miss an object of each size class (:data:`MISS_CLASSES`).
    spurious : float64 (R,)
        Every run's false objects per image.
    """

    annotators: tuple
    runs: tuple
    team_of: tuple
    offset: np.ndarray
    log_wobble: np.ndarray
    p_miss: np.ndarray
    spurious: np.ndarray

    @property
    def run_skill(self) -> np.ndarray:
        """A run's quality for reports ordering runs: minus its mean absolute offset plus wobble (higher is better)."""
        return -(np.abs(self.offset) + np.exp(self.log_wobble)).mean(axis=1)


def run_model(population: TwinPopulation, run: int, image: int) -> RaterModel:
    """A population's run on real image ``image``.

    Parameters
    ----------
    population : TwinPopulation
    run, image : int

    Returns
    -------
    RaterModel
    """
    return RaterModel(offset=float(population.offset[run, image]),
                      wobble=float(np.exp(population.log_wobble[run, image])),
                      p_miss=population.p_miss[run], spurious=float(population.spurious[run]))


def _effects(real: TwinPopulation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The real runs' image means (2, N), run effects (R, 2) and residuals (R, N, 2) of (offset, log wobble)."""
    theta = np.stack([real.offset, real.log_wobble], axis=-1)  # (R, N, 2)
    means = theta.mean(axis=0)  # (N, 2)
    dev = theta - means[None]
    effects = dev.mean(axis=1)  # (R, 2)
    residuals = dev - effects[:, None, :]
    return means.T, effects, residuals


def real_population(config: RunsConfig) -> TwinPopulation:
    """The real runs with their effects scaled by ``config.run_scale`` (population 0).

    Parameters
    ----------
    config : RunsConfig

    Returns
    -------
    TwinPopulation
    """
    real = config.real_runs
    means, effects, residuals = _effects(real)
    theta = means.T[None] + config.run_scale * effects[:, None, :] + residuals
    pop = replace(real, offset=theta[..., 0], log_wobble=theta[..., 1],
                  annotators=config.annotator_names_for())
    if config.n_runs != len(real.runs):  # a setting with another number of runs: drawn, the real ones first
        return draw_twin_population(config, np.random.default_rng(0), keep_real=True)
    return pop


def _team_covariances(effects: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Between-team and within-team covariances of the run effects (moments, clipped to positive semi-definite)."""
    r = effects.shape[0]
    teams = np.unique(groups)
    if r < 2:
        return np.zeros((2, 2)), np.zeros((2, 2))
    total = np.cov(effects.T, ddof=1).reshape(2, 2)
    if teams.size in (1, r):  # no team of two, or one team: one level
        return total, np.zeros((2, 2))
    within_ss = np.zeros((2, 2))
    df = 0
    for t in teams:
        e = effects[groups == t]
        if len(e) > 1:
            c = e - e.mean(axis=0)
            within_ss += c.T @ c
            df += len(e) - 1
    within = within_ss / max(df, 1)
    sizes = np.array([(groups == t).sum() for t in teams], dtype=float)
    n0 = (r - (sizes ** 2).sum() / r) / (teams.size - 1)
    means = np.array([effects[groups == t].mean(axis=0) for t in teams])
    between_ms = ((means - effects.mean(axis=0)).T * sizes) @ (means - effects.mean(axis=0)) / (teams.size - 1)
    between = (between_ms - within) / n0

    def psd(m):
        w, v = np.linalg.eigh((m + m.T) / 2)
        return (v * np.clip(w, 0, None)) @ v.T

    return psd(between), psd(within)


def draw_twin_population(config: RunsConfig, rng: SeedLike = None, *, keep_real: bool = False
                         ) -> TwinPopulation:
    """A new run population drawn like the real one (module notes).

    Parameters
    ----------
    config : RunsConfig
        ``n_runs`` runs in ``n_teams`` teams (as in the real runs' team sizes where they match).
    rng : SeedLike
    keep_real : bool
        The real runs first (scaled), then drawn ones (a setting with more runs than the challenge).

    Returns
    -------
    TwinPopulation
    """
    rng = np.random.default_rng(rng)
    real = config.real_runs
    means, effects, residuals = _effects(real)
    between, within = _team_covariances(effects, config.run_groups)
    n_runs, n_teams = int(config.n_runs), max(1, min(int(config.n_teams), int(config.n_runs)))
    per_team = 1 + np.bincount(rng.integers(0, n_teams, n_runs - n_teams), minlength=n_teams)
    team_effects = rng.multivariate_normal(np.zeros(2), between, size=n_teams, method="eigh")
    names, teams, eff = [], [], []
    for t in range(n_teams):
        for j in range(per_team[t]):
            names.append(f"team{t + 1}-run{j + 1}")
            teams.append(f"team{t + 1}")
            eff.append(team_effects[t] + rng.multivariate_normal(np.zeros(2), within, method="eigh"))
    donors = rng.integers(0, len(real.runs), n_runs)  # residuals, misses and false objects of a real run
    eff_a = np.array(eff).reshape(n_runs, 2)
    if keep_real:
        k = min(len(real.runs), n_runs)
        eff_a[:k] = effects[:k]
        donors[:k] = np.arange(k)
        names[:k] = list(real.runs[:k])
        teams[:k] = [str(g) for g in config.run_groups[:k]]
    theta = means.T[None] + config.run_scale * eff_a[:, None, :] + residuals[donors]
    return TwinPopulation(annotators=config.annotator_names_for(), runs=tuple(names), team_of=tuple(teams),
                          offset=theta[..., 0], log_wobble=theta[..., 1], p_miss=real.p_miss[donors].copy(),
                          spurious=real.spurious[donors].copy())


# -- masks ------------------------------------------------------------------------------------------------------
