"""How far the test set's ranking may be from the ranking the runs would get on unlimited data.

The paper's convergence curve compares a random subset with its own full test
set, so it is 0 at n = N by construction and says nothing about the full
test set's own error. The bootstrap answers that question by plug-in: in the
bootstrap world the test set is the population and its ranking the truth, so
the L1 between the ranking on ``m`` units drawn with replacement and the
observed ranking estimates the expected L1 between the ranking on a test set
of ``m`` units and the ranking on unlimited data. Drawing ``m`` below and above
the test set's size ``N`` (the m-out-of-n bootstrap) shows how the expected
distance falls with the test-set size, and how many units would bring it under
a tolerance.

Every number is per scheme and per resampling unit (encounters by default:
images of one encounter are photos of one lesion and move together), with its
Monte Carlo standard error over resamples. It is an estimate, not the truth:
``experiments.design_study`` checks it by simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness.parallel import batch_generators, batch_sizes, run_batches
from robustness.seeds import SeedLike
from robustness.statistics.inference import draw_counts, tails
from robustness.statistics.ranks import TIE_TOL, rank, ties_code
from robustness.statistics.schemes import Schemes

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ranking_uncertainty", "units_needed", "default_sizes"]


def default_sizes(n_units: int) -> np.ndarray:
    """The test-set sizes studied: ``N/8 .. 8N`` in factors of two (at least 2 units), and ``N`` itself.

    Parameters
    ----------
    n_units : int
        The test set's size N.

    Returns
    -------
    ndarray of int64
    """
    sizes = {max(2, int(round(n_units * f))) for f in (1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8)}
    return np.array(sorted(sizes | {n_units}), dtype=np.int64)


def _size_batch(x, weights, final, tol, ties, m, size, child):
    """``size`` resamples of ``m`` units: L1 to ``final``, whether each run keeps its rank, the top run's rank."""
    n_units = x.shape[0]
    w = draw_counts(child, n_units, size, m=m).astype(np.float64)  # (B, U) draw counts
    n_s, n_r = weights[0].shape[:2]
    l1 = np.empty((n_s, size))
    keep = np.zeros((n_s, n_r))
    top_stays = np.zeros(n_s)
    best = np.argmin(final, axis=1)
    for b in range(size):
        drawn = np.flatnonzero(w[b])  # a resample of m units: the drawn units, each times its count
        sums = w[b, drawn] @ x[drawn]  # (units never drawn stay out, even where their statistics are nan)
        ranks = _kernels.rank_rows(_kernels.scores_from_sums(sums, *weights), tol, ties)
        l1[:, b] = np.abs(ranks - final).sum(axis=1)
        keep += ranks == final
        top_stays += ranks[np.arange(n_s), best] == ranks.min(axis=1)
    return l1, keep, top_stays


def ranking_uncertainty(schemes: Schemes, *, sizes: ArrayLike | None = None, n_resamples: int = 1000,
                        ties: str = "average", tol: float = TIE_TOL, confidence: float = 0.95, batch_size: int = 100,
                        n_jobs: int = 1, rng: SeedLike = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Expected L1 between the ranking on ``m`` resampled units and the observed ranking, for each size ``m``.

    Parameters
    ----------
    schemes : Schemes
        Built with the resampling unit (``unit='encounter'`` is the default of the studies).
    sizes : array of int, optional
        Test-set sizes in units (default :func:`default_sizes`: N/8 .. 8N).
    n_resamples : int
        Resamples per size; batch ``b`` of each size draws from its own child of ``rng``.
    ties, tol
        The tie rule (:func:`robustness.statistics.ranks.rank`).
    confidence : float
        Of the central range of L1 over resamples.
    batch_size, n_jobs
        Resamples per batch, parallel batches.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (per_size, per_run) : DataFrames
        ``per_size``: ``strategy, metric, average, m, n_images, observed_size, expected_l1,
        expected_l1_se, l1_low, l1_high`` (central ``confidence`` range over resamples),
        ``p_top_stays`` (share of resamples in which the observed best run is ranked
        first, alone or tied), ``p_same_ranking`` (L1 = 0), ``mean_p_keep_rank``.
        ``per_run`` (at ``m = N``): ``strategy, metric, average, system, rank, p_keep_rank``.

    Examples
    --------
    >>> from robustness.simulation.synthetic import make_challenge
    >>> from robustness.overlap import compute_overlap
    >>> from robustness.statistics.schemes import schemes_from_counts
    >>> oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    >>> per_size, per_run = ranking_uncertainty(schemes_from_counts(oc, unit="encounter"), n_resamples=50, rng=0)
    >>> sorted(set(per_size.m))
    [2, 4, 8, 16, 32, 64]
    """
    import pandas as pd

    code = ties_code(ties)
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be >= 2, got {n_resamples}")
    n_units = schemes.n_units
    sizes = default_sizes(n_units) if sizes is None else np.unique(np.asarray(sizes, dtype=np.int64))
    if sizes.size == 0 or sizes[0] < 1:
        raise ValueError(f"sizes must be positive numbers of units, got {sizes}")
    final = rank(schemes.scores(), ties=ties, tol=tol)
    x = np.ascontiguousarray(schemes.x)
    images_per_unit = float(schemes.unit_images.mean())
    children = batch_generators(rng, sizes.size)
    lo, hi = tails(confidence)
    rows, per_run = [], None
    for m, child in zip(sizes, children):
        chunks = batch_sizes(n_resamples, batch_size)
        args = [(x, schemes.weights, final, float(tol), code, int(m), size, g)
                for size, g in zip(chunks, batch_generators(child, len(chunks)))]
        results = list(run_batches(_size_batch, args, n_jobs=n_jobs, prefer="threads"))
        l1 = np.concatenate([r[0] for r in results], axis=1)  # (S, B)
        keep = sum(r[1] for r in results) / n_resamples  # (S, R)
        top = sum(r[2] for r in results) / n_resamples  # (S,)
        for s, (strat, metric, average) in enumerate(schemes.names):
            rows.append({"strategy": strat, "metric": metric, "average": average, "m": int(m),
                         "n_images": m * images_per_unit, "observed_size": m == n_units,
                         "expected_l1": float(l1[s].mean()),
                         "expected_l1_se": float(l1[s].std(ddof=1) / np.sqrt(n_resamples)),
                         "l1_low": float(np.quantile(l1[s], lo)), "l1_high": float(np.quantile(l1[s], hi)),
                         "p_top_stays": float(top[s]), "p_same_ranking": float((l1[s] == 0).mean()),
                         "mean_p_keep_rank": float(keep[s].mean())})
        if m == n_units:
            per_run = pd.concat([pd.DataFrame({"strategy": strat, "metric": metric, "average": average,
                                               "system": list(schemes.runs), "rank": final[s],
                                               "p_keep_rank": keep[s]})
                                 for s, (strat, metric, average) in enumerate(schemes.names)], ignore_index=True)
    return pd.DataFrame(rows), per_run


def units_needed(per_size: pd.DataFrame, *, tolerance: float) -> pd.DataFrame:
    """Per scheme, the number of units at which the expected L1 falls to ``tolerance`` (log-linear interpolation).

    ``units_needed`` is nan where the expected L1 stays above the tolerance on the
    whole grid (``beyond`` gives the largest size tried) and the smallest size
    where it is already below.

    Parameters
    ----------
    per_size : pandas.DataFrame
        The first table of :func:`ranking_uncertainty`.
    tolerance : float
        The target expected L1.

    Returns
    -------
    pandas.DataFrame
        ``strategy, metric, average, tolerance, units_needed, images_needed, beyond, already, largest_size``.
    """
    import pandas as pd

    rows = []
    for key, d in per_size.groupby(["strategy", "metric", "average"], sort=False):
        d = d.sort_values("m")
        m, e = d.m.to_numpy(dtype=float), d.expected_l1.to_numpy()
        ipu = float((d.n_images / d.m).iloc[0])
        below = np.flatnonzero(e <= tolerance)
        need = np.nan
        if below.size and below[0] == 0:
            need = m[0]
        elif below.size:
            i = below[0]  # e[i-1] > tol >= e[i]: interpolate log(m) linearly in L1
            t = (e[i - 1] - tolerance) / (e[i - 1] - e[i])
            need = float(np.exp(np.log(m[i - 1]) + t * (np.log(m[i]) - np.log(m[i - 1]))))
        rows.append(dict(zip(["strategy", "metric", "average"], key), tolerance=tolerance,
                         units_needed=need, images_needed=need * ipu, beyond=bool(not below.size),
                         already=bool(below.size and below[0] == 0), largest_size=int(m[-1])))
    return pd.DataFrame(rows)
