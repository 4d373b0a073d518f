"""Rank convergence: how fast the ranking on a growing random subset of the test set reaches its final one.

For random orders of the test units (images or encounters), every prefix of
every order is scored (a running sum of :class:`~robustness.schemes.Schemes`
statistics), the runs are ranked, and the L1 distance to the ranking on the
whole test set is recorded: the MEDIQA-MAGIC 2025 overview's Figures 2 and 3,
over many orders instead of one. All prefixes of an order cost one pass of a
numba kernel that never holds more than one order's scores.

Randomness (SPEC 7): batch ``b`` of orders draws from child ``b`` of
``rng.spawn`` (:mod:`robustness.parallel`), so the results are identical for
any ``n_jobs`` and on a Dask cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels
from .parallel import batch_generators, batch_sizes, progress_bar, run_batches
from .ranking import TIE_TOL, method_code, rank
from .schemes import Schemes

__all__ = ["Convergence", "rank_convergence"]


@dataclass(frozen=True, eq=False)
class Convergence:
    """L1 rank change to the final ranking after every prefix of every random order.

    Attributes
    ----------
    schemes : Schemes
    orders : int (K, U)
        The random orders of the units (the result can be recomputed from them).
    positions : int (P,)
        Prefix lengths recorded, in units.
    n_images : int (K, P)
        Images in each recorded prefix (= positions for unit 'image').
    l1 : float32 (S, K, P)
    final_ranks : float (S, R)
        Ranking on the whole test set under each scheme.
    """

    schemes: Schemes
    orders: np.ndarray
    positions: np.ndarray
    n_images: np.ndarray
    l1: np.ndarray
    final_ranks: np.ndarray
    method: str
    tol: float

    def to_frame(self):
        """Every curve: ``strategy, metric, average, order, n, n_images, l1`` (n in units)."""
        import pandas as pd

        s_n, k_n, p_n = self.l1.shape
        lab = np.asarray(self.schemes.names, dtype=object)
        s_idx = np.repeat(np.arange(s_n), k_n * p_n)
        return pd.DataFrame({
            "strategy": lab[s_idx, 0], "metric": lab[s_idx, 1], "average": lab[s_idx, 2],
            "order": np.tile(np.repeat(np.arange(k_n), p_n), s_n),
            "n": np.tile(self.positions, s_n * k_n),
            "n_images": np.tile(self.n_images.reshape(-1), s_n),
            "l1": self.l1.reshape(-1).astype(np.float64),
        })

    def orders_frame(self):
        """The orders: ``order, position, unit`` (position 1 = first unit added)."""
        import pandas as pd

        k, u = self.orders.shape
        units = np.asarray(self.schemes.units, dtype=object)
        return pd.DataFrame({"order": np.repeat(np.arange(k), u), "position": np.tile(np.arange(1, u + 1), k),
                             "unit": units[self.orders.reshape(-1)]})

    def summary(self, *, level: float = 0.9):
        """Mean L1 over orders at every prefix with a central ``level`` band (quantiles)."""
        import pandas as pd

        lo, hi = (1 - level) / 2, 1 - (1 - level) / 2
        q = np.quantile(self.l1, [lo, 0.5, hi], axis=1)  # (3, S, P)
        mean = self.l1.mean(axis=1, dtype=np.float64)
        frames = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            frames.append(pd.DataFrame({
                "strategy": strat, "metric": metric, "average": average, "n": self.positions,
                "n_images": self.n_images.mean(axis=0), "mean": mean[s], "low": q[0, s], "median": q[1, s],
                "high": q[2, s],
            }))
        return pd.concat(frames, ignore_index=True)

    def order_convergence(self, *, tolerance: float = 0.0) -> np.ndarray:
        """Per scheme and order, the smallest recorded n from which L1 stays <= tolerance. (S, K)"""
        bad = self.l1 > tolerance  # (S, K, P)
        any_bad = bad.any(axis=2)
        last_bad = self.positions.size - 1 - np.argmax(bad[..., ::-1], axis=2)
        idx = np.where(any_bad, last_bad + 1, 0)
        idx = np.minimum(idx, self.positions.size - 1)
        return self.positions[idx]

    def convergence_points(self, *, tolerance: float = 0.0, coverage: float = 0.95):
        """The convergence point of every scheme and the distribution over orders.

        The point is the smallest prefix length n after which L1 stays <= ``tolerance``
        in at least ``coverage`` of the orders (the ``coverage`` quantile, taken as an
        observed value, of the per-order points). Also: median, 5% and 95% of the
        per-order points, and the area under the mean L1 curve (the mean L1 over all
        recorded prefixes, in rank units), a one-number robustness score.
        """
        import pandas as pd

        per_order = self.order_convergence(tolerance=tolerance)  # (S, K)
        rows = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            pts = per_order[s]
            rows.append({
                "strategy": strat, "metric": metric, "average": average,
                "convergence_n": int(np.quantile(pts, coverage, method="higher")),
                "median_n": float(np.median(pts)),
                "p05_n": float(np.quantile(pts, 0.05)), "p95_n": float(np.quantile(pts, 0.95)),
                "auc": float(self.l1[s].mean(dtype=np.float64)),
                "n_units": int(self.positions[-1]),
            })
        return pd.DataFrame(rows)


def _convergence_batch(x, weights, n_units, positions, final, tol, method, size, child):
    orders = np.stack([child.permutation(n_units) for _ in range(size)]).astype(np.int64)
    return orders, _kernels.l1_curves(x, *weights, orders, positions, final, tol, method)


def rank_convergence(schemes: Schemes, *, n_orders: int = 200, step: int = 1, positions=None,
                     method: str = "average", tol: float = TIE_TOL, batch_size: int = 25, n_jobs: int = 1,
                     progress: bool = False, rng=None) -> Convergence:
    """L1 rank change vs number of test units, over ``n_orders`` random orders.

    For every order, every prefix length n (1..U, every ``step``-th, or the
    given ``positions``) and every scheme, the runs are scored on the first n
    units, ranked, and ``L1 = sum_runs |rank_n - rank_final|`` is recorded,
    where ``rank_final`` is the ranking on the whole test set under the same
    scheme. L1 is 0 at n = U by construction.

    Parameters
    ----------
    schemes : Schemes
    n_orders : int
    step : int
        Record every ``step``-th prefix (the last one always).
    positions : array of int, optional
        Explicit prefix lengths (overrides ``step``).
    method : {'average', 'min'}
        Tie rule (see :mod:`robustness.ranking`).
    batch_size : int
        Orders per batch; batch ``b`` draws its orders from child ``b`` of ``rng``.
    n_jobs : int
        Parallel batches (joblib threads; a Dask cluster under :func:`parallel_backend`).
    rng : {None, int, Generator}

    Examples
    --------
    >>> from robustness.synthetic import make_challenge
    >>> from robustness.overlap import compute_overlap
    >>> from robustness.schemes import schemes_from_counts
    >>> oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    >>> conv = rank_convergence(schemes_from_counts(oc), n_orders=10, rng=0)
    >>> conv.l1.shape[1:], float(conv.l1[:, :, -1].max())
    ((10, 12), 0.0)
    """
    code = method_code(method)
    if n_orders < 1 or batch_size < 1 or step < 1:
        raise ValueError("n_orders, batch_size and step must be >= 1")
    u = schemes.n_units
    if positions is None:
        positions = np.arange(step, u + 1, step)
        if positions.size == 0 or positions[-1] != u:
            positions = np.append(positions, u)
    positions = np.asarray(positions, dtype=np.int64)
    if positions.size == 0 or np.any(np.diff(positions) <= 0) or positions[0] < 1 or positions[-1] > u:
        raise ValueError(f"positions must be increasing prefix lengths in 1..{u}")
    final = rank(schemes.scores(), method=method, tol=tol)
    sizes = batch_sizes(n_orders, batch_size)
    children = batch_generators(rng, len(sizes))
    args = [(schemes.x, schemes.weights, u, positions, final, float(tol), code, size, child)
            for size, child in zip(sizes, children)]
    bar = progress_bar(progress, len(sizes), "rank convergence")
    results = list(run_batches(_convergence_batch, args, n_jobs=n_jobs, prefer="threads", progress=bar))
    orders = np.concatenate([r[0] for r in results])
    l1 = np.concatenate([r[1] for r in results], axis=1)
    cum_images = np.cumsum(schemes.unit_images[orders], axis=1)
    return Convergence(schemes=schemes, orders=orders, positions=positions, n_images=cum_images[:, positions - 1],
                       l1=l1, final_ranks=final, method=method, tol=tol)
