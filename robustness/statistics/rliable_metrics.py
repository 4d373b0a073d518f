"""What reinforcement-learning and ML benchmarks report besides a ranking (Agarwal et al. 2021, NeurIPS; rliable).

Per leaderboard, over its cases:

- **interquartile mean** (IQM): a run's mean score over the middle half of its cases (the lowest and highest
  quarter, ``floor(N / 4)`` cases each, left out; scipy's ``trim_mean(x, 0.25)``, rliable's ``aggregate_iqm``):
  robust to a few failed cases, less noisy than the median;
- **probability of improvement** ``P(X > Y)``: the chance that run X scores above run Y on a case drawn from
  each, ties counting a half (the Mann-Whitney U over ``N_X N_Y``; rliable's ``probability_of_improvement``);
  it treats the two runs' cases as independent samples, as rliable does;
- **performance profile**: the share of a run's cases scoring above each threshold ``tau``.

Intervals are percentile intervals over bootstrap resamples of the cases (rliable's stratified bootstrap with
one stratum per leaderboard; for ``P(X > Y)`` each run's cases are resampled on their own, as rliable's
independent bootstrap), or of whole resampling units where units group the cases (a patient's, an encounter's
cases are not independent; rliable has no such grouping): about a new test set drawn like this one. A score
where smaller is better is negated first, so that "above" is "better".
"""

from __future__ import annotations

import numpy as np

from robustness.statistics.inference import members

__all__ = ["iqm", "probability_of_improvement", "performance_profile", "bootstrap_profile", "bootstrap_iqm",
           "bootstrap_improvement"]


def iqm(values: np.ndarray) -> np.ndarray:
    """The interquartile mean along the last axis (nan-free input).

    Parameters
    ----------
    values : ndarray (..., N)

    Returns
    -------
    ndarray (...)

    Examples
    --------
    >>> float(iqm(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 100.0, 5.0, 6.0])))
    3.5
    """
    x = np.sort(np.asarray(values, dtype=np.float64), axis=-1)
    n = x.shape[-1]
    cut = int(0.25 * n)
    return x[..., cut:n - cut].mean(axis=-1)


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """``P(X > Y) + P(X = Y) / 2`` for one draw from each sample.

    Parameters
    ----------
    x, y : ndarray (N_X,), (N_Y,)

    Returns
    -------
    float

    Examples
    --------
    >>> probability_of_improvement(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    0.875
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    ys = np.sort(y)
    below = np.searchsorted(ys, x, side="left")
    equal = np.searchsorted(ys, x, side="right") - below
    return float((below.sum() + 0.5 * equal.sum()) / (x.size * y.size))


def performance_profile(values: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """The share of cases scoring above each threshold, per run.

    Parameters
    ----------
    values : ndarray (R, N)
    taus : ndarray (T,)

    Returns
    -------
    ndarray (R, T)
    """
    v = np.asarray(values, dtype=np.float64)
    return (v[:, :, None] > np.asarray(taus, dtype=np.float64)[None, None, :]).mean(axis=1)


def bootstrap_profile(values: np.ndarray, taus: np.ndarray, n_resamples: int, rng: np.random.Generator,
                      confidence: float = 0.95, units: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every run's performance profile with a percentile band over resamples of the cases (rliable's band).

    Parameters
    ----------
    values : ndarray (R, N)
    taus : ndarray (T,)
    n_resamples : int
    rng : numpy.random.Generator
    confidence : float
    units : ndarray (N,), optional
        Each case's resampling unit: whole units are resampled (default: the cases themselves).

    Returns
    -------
    (share, low, high) : ndarrays (R, T)
    """
    v = np.asarray(values, dtype=np.float64)
    t = np.asarray(taus, dtype=np.float64)
    above = (v[:, :, None] > t[None, None, :]).astype(np.float64)  # (R, N, T)
    boot = np.empty((n_resamples, v.shape[0], t.size))
    draws = _resampled(v.shape[1], units, n_resamples, rng)
    for start in range(0, n_resamples, CHUNK):
        times = _multiplicities(v.shape[1], draws[start:start + CHUNK]).astype(np.float64)  # (B, N)
        size = times.sum(axis=1)
        for r in range(v.shape[0]):  # counts of whole cases: exact, so each share equals the resample's own mean
            boot[start:start + times.shape[0], r] = (times @ above[r]) / size[:, None]
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail], axis=0)
    return performance_profile(v, taus), low, high


#: Resamples counted at once (the memory of a chunk is this many times the cases).
CHUNK = 256


def _multiplicities(n: int, draws: list[np.ndarray]) -> np.ndarray:
    """How often each of ``n`` cases is drawn in each resample: (B, n) integers."""
    lengths = np.array([d.size for d in draws])
    flat = np.concatenate(draws) + np.repeat(np.arange(len(draws)) * n, lengths)
    return np.bincount(flat, minlength=len(draws) * n).reshape(len(draws), n)


def _resampled(n: int, units: np.ndarray | None, n_resamples: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Each resample's case indices: ``n`` cases drawn with replacement, or whole units (clusters) where given."""
    if units is None:
        return list(rng.integers(0, n, size=(n_resamples, n)))
    labels, where = members(units)
    draws = rng.integers(0, labels.size, size=(n_resamples, labels.size))
    return _gathered(where, draws)


def _gathered(where: list[np.ndarray], draws: np.ndarray) -> list[np.ndarray]:
    """Each row of ``draws`` as its units' cases one after another: ``np.concatenate([where[k] for k in row])``.

    In one pass over all rows (the cases of every drawn unit found by offsets into the units' cases laid end to
    end), not a Python loop over each row's units.
    """
    sizes = np.array([w.size for w in where], dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    per_unit = sizes[draws]  # cases of each drawn unit (B, U)
    taken = per_unit.ravel()
    first = np.repeat(starts[draws].ravel(), taken)
    within = np.arange(int(taken.sum())) - np.repeat(np.cumsum(taken) - taken, taken)
    cases = np.concatenate(where)[first + within]
    return np.split(cases, np.cumsum(per_unit.sum(axis=1))[:-1])


def bootstrap_iqm(values: np.ndarray, n_resamples: int, rng: np.random.Generator,
                  confidence: float = 0.95, units: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every run's IQM with a percentile interval over resamples of the cases (or of their units).

    Parameters
    ----------
    values : ndarray (R, N)
    n_resamples : int
    rng : numpy.random.Generator
    confidence : float
    units : ndarray (N,), optional
        Each case's resampling unit (a patient, an encounter): whole units are resampled, as cases of one unit are
        not independent (default: the cases themselves).

    Returns
    -------
    (iqm, low, high) : ndarrays (R,)
    """
    v = np.asarray(values, dtype=np.float64)
    draws = _resampled(v.shape[1], units, n_resamples, rng)
    lengths = np.array([d.size for d in draws])
    boot = np.empty((n_resamples, v.shape[0]))  # (B, R)
    for size in np.unique(lengths):  # resamples of one size side by side: each row sorted and averaged as alone
        same = np.flatnonzero(lengths == size)
        for start in range(0, same.size, CHUNK):
            rows = same[start:start + CHUNK]
            boot[rows] = iqm(v[:, np.stack([draws[i] for i in rows])]).T
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail], axis=0)
    return iqm(v), low, high


def bootstrap_improvement(x: np.ndarray, y: np.ndarray, n_resamples: int, rng: np.random.Generator,
                          confidence: float = 0.95, units_x: np.ndarray | None = None,
                          units_y: np.ndarray | None = None) -> tuple[float, float, float]:
    """``P(X > Y)`` with a percentile interval, each sample's cases (or units) resampled on their own.

    Parameters
    ----------
    x, y : ndarray
    n_resamples : int
    rng : numpy.random.Generator
    confidence : float
    units_x, units_y : ndarray, optional
        Each case's resampling unit (whole units are resampled; default: the cases).

    Returns
    -------
    (p, low, high) : floats
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    bx = _resampled(x.size, units_x, n_resamples, rng)
    by = _resampled(y.size, units_y, n_resamples, rng)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    below, upto = np.searchsorted(ys, x, side="left"), np.searchsorted(ys, x, side="right")
    boot = np.empty(n_resamples)
    for start in range(0, n_resamples, CHUNK):
        cx = _multiplicities(x.size, bx[start:start + CHUNK])
        cy = _multiplicities(y.size, by[start:start + CHUNK])[:, order]
        cum = np.zeros((cy.shape[0], y.size + 1), dtype=np.int64)
        np.cumsum(cy, axis=1, out=cum[:, 1:])  # drawn y below each sorted position
        less = (cx * cum[:, below]).sum(axis=1)  # pairs with y < x, counted exactly
        equal = (cx * cum[:, upto]).sum(axis=1) - less
        boot[start:start + cx.shape[0]] = (less + 0.5 * equal) / (cx.sum(axis=1) * cy.sum(axis=1))
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return probability_of_improvement(x, y), float(low), float(high)
