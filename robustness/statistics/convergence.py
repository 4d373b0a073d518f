"""Rank convergence: how fast the ranking on a growing random subset of the test set reaches its final one.

For random orders of the test units (images or encounters), every prefix of
every order is scored (a running sum of :class:`~robustness.statistics.schemes.Schemes`
statistics), the runs are ranked, and the L1 distance to the ranking on the
whole test set is recorded: the MEDIQA-MAGIC 2025 overview's Figures 2 and 3,
over many orders instead of one. All prefixes of an order cost one pass of a
numba kernel that never holds more than one order's scores. The ranking
method travels with the statistics (:mod:`robustness.statistics.ranking_methods`): per-case
ranks (:func:`~robustness.statistics.table_schemes.rank_then_aggregate`) run through the same
running sums, paired tests (:class:`~robustness.statistics.test_based.PairedTests`) rerun
on every recorded prefix.

Randomness (SPEC 7): batch ``b`` of orders draws from child ``b`` of
``rng.spawn`` (:mod:`robustness.parallel`), so the results are identical for
any ``n_jobs`` and on a Dask cluster.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtri

from robustness.errors import options_with
from robustness.parallel import batch_generators, batch_sizes, progress_bar, run_batches
from robustness.seeds import SeedLike
from robustness.statistics.convergence_options import ConvergenceOptions
from robustness.statistics.inference import members, quantile_interval, tails
from robustness.statistics.rankable import Rankable
from robustness.statistics.ranks import rank, ties_code

if TYPE_CHECKING:

    from robustness.statistics.schemes import Schemes

__all__ = ["auc_over_test_sets", "compare_over_test_sets", "Convergence", "ConvergenceOptions", "GOLD_ORDERS",
           "rank_convergence"]

#: Random orders per resampled test set when golds' curves are compared over test sets (the outer resamples carry
#: the rest): the main job's and the calibration's comparisons use this one value.
GOLD_ORDERS = 10


@dataclass(frozen=True, eq=False)
class Convergence:
    """L1 rank change to the final ranking after every prefix of every random order.

    Attributes
    ----------
    schemes : Rankable
        What was ranked; its ``ranking`` names the ranking method.
    orders : int (K, U)
        The random orders of the units (the result can be recomputed from them).
    positions : int (P,)
        Prefix lengths recorded, in units.
    n_images : int (K, P)
        Images in each recorded prefix (= positions for unit 'image').
    l1 : float32 (S, K, P)
    final_ranks : float (S, R)
        Ranking on the whole test set under each scheme.

    Notes
    -----
    What this measures: how fast the ranking on a random subset of *this* test
    set approaches the ranking on the whole test set (L1 = 0 at n = N by
    construction). It does not say how far the test set's ranking is from the
    runs' ranking on unlimited data; :mod:`robustness.statistics.uncertainty` estimates that.
    Every summary over orders carries its Monte Carlo error (the orders are a
    random sample of all orders): ``auc_se`` and intervals for the points.
    """

    schemes: Rankable
    orders: np.ndarray
    positions: np.ndarray
    n_images: np.ndarray
    l1: np.ndarray
    final_ranks: np.ndarray
    ties: str
    tol: float

    @property
    def n_orders(self) -> int:
        """The number of random orders."""
        return self.orders.shape[0]

    @property
    def ranking(self) -> str:
        """The ranking method (:mod:`robustness.statistics.ranking_methods`)."""
        return self.schemes.ranking

    def to_frame(self, *, orders: ArrayLike | None = None) -> pd.DataFrame:
        """The curves of some orders as one tidy table.

        Parameters
        ----------
        orders : array_like of int, optional
            Which orders (default all).

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, ranking, order, n, n_images, l1``.
        """
        return pd.concat(list(self.iter_frames(orders=orders)), ignore_index=True)

    def iter_frames(self, *, orders: ArrayLike | None = None) -> Iterator[pd.DataFrame]:
        """:meth:`to_frame` one scheme at a time (bounded memory: write each, then drop it).

        Parameters
        ----------
        orders : array_like of int, optional
            Which orders (default all).

        Yields
        ------
        pandas.DataFrame
            One scheme's rows of :meth:`to_frame`.
        """
        orders = np.arange(self.n_orders) if orders is None else np.asarray(orders)
        k_n, p_n = orders.size, self.positions.size
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            yield pd.DataFrame({
                "strategy": np.full(k_n * p_n, strat, dtype=object),
                "metric": np.full(k_n * p_n, metric, dtype=object),
                "average": np.full(k_n * p_n, average, dtype=object),
                "ranking": np.full(k_n * p_n, self.ranking, dtype=object),
                "order": np.repeat(orders, p_n),
                "n": np.tile(self.positions, k_n),
                "n_images": self.n_images[orders].reshape(-1),
                "l1": self.l1[s, orders].reshape(-1).astype(np.float64),
            })

    def orders_frame(self) -> pd.DataFrame:
        """The random orders as a table.

        Returns
        -------
        pandas.DataFrame
            ``order, position, unit`` (position 1 = first unit added).
        """
        k, u = self.orders.shape
        units = np.asarray(self.schemes.units, dtype=object)
        return pd.DataFrame({"order": np.repeat(np.arange(k), u), "position": np.tile(np.arange(1, u + 1), k),
                             "unit": units[self.orders.reshape(-1)]})

    def summary(self, *, confidence: float = 0.9) -> pd.DataFrame:
        """Mean L1 over orders at every prefix, with a central band of the orders (quantiles).

        Parameters
        ----------
        confidence : float
            The share of orders the band holds.

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, ranking, n, n_images, mean, low, median, high``.
        """
        lo, hi = tails(confidence)
        frames = []
        n_images = self.n_images.mean(axis=0)
        for s, (strat, metric, average) in enumerate(self.schemes.names):  # one scheme at a time: bounded memory
            q = np.quantile(self.l1[s], [lo, 0.5, hi], axis=0)  # (3, P)
            frames.append(pd.DataFrame({
                "strategy": strat, "metric": metric, "average": average, "ranking": self.ranking, "n": self.positions,
                "n_images": n_images, "mean": self.l1[s].mean(axis=0, dtype=np.float64), "low": q[0],
                "median": q[1], "high": q[2],
            }))
        return pd.concat(frames, ignore_index=True)

    def order_auc(self) -> np.ndarray:
        """Area under each order's curve: the mean L1 over the recorded prefixes.

        Returns
        -------
        ndarray (S, K)
            In rank units.
        """
        return np.stack([self.l1[s].mean(axis=1, dtype=np.float64) for s in range(self.l1.shape[0])])

    def order_convergence(self, *, tolerance: float = 0.0) -> np.ndarray:
        """Per scheme and order, the smallest recorded n from which L1 stays at or below ``tolerance``.

        Parameters
        ----------
        tolerance : float

        Returns
        -------
        ndarray of int (S, K)
        """
        out = np.empty(self.l1.shape[:2], dtype=self.positions.dtype)
        for s in range(self.l1.shape[0]):
            bad = self.l1[s] > tolerance  # (K, P)
            last_bad = self.positions.size - 1 - np.argmax(bad[:, ::-1], axis=1)
            idx = np.minimum(np.where(bad.any(axis=1), last_bad + 1, 0), self.positions.size - 1)
            out[s] = self.positions[idx]
        return out

    def convergence_points(self, *, tolerance: float = 0.0, coverage: float = 0.95,
                           confidence: float = 0.95) -> pd.DataFrame:
        """The convergence point of every scheme, its Monte Carlo interval, and the area under the curve.

        Parameters
        ----------
        tolerance : float
            L1 at or below this counts as converged.
        coverage : float
            The share of orders that must have converged.
        confidence : float
            Of the intervals over orders.

        Returns
        -------
        pandas.DataFrame
            One row per scheme; columns below.

        Notes
        -----
        Each row names its scheme (``strategy``, ``metric``, ``average``) and ``ranking`` method, with
        ``n_units`` (the test set's units) and ``n_orders``.
        ``convergence_n``, the smallest prefix length n after which L1
        stays <= ``tolerance`` in at least ``coverage`` of the orders (the
        ``coverage`` quantile of the per-order points, an observed value), with
        ``convergence_n_low``/``convergence_n_high``, a distribution-free ``confidence``
        interval for that quantile over the random orders (order statistics,
        binomial); ``reached`` (the point lies before the whole test set);
        ``median_n``, ``p05_n``, ``p95_n`` (spread of the per-order points; the
        point lies inside it); ``auc`` (mean L1 over all recorded prefixes and
        orders, in rank units) with ``auc_se`` (its Monte Carlo standard error
        over orders) and the normal ``confidence`` interval ``auc_low``/``auc_high``.
        """
        per_order = self.order_convergence(tolerance=tolerance)  # (S, K)
        auc = self.order_auc()
        z = float(ndtri(tails(confidence)[1]))
        k = self.n_orders
        rows = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            pts = per_order[s]
            low, high = quantile_interval(pts, coverage, confidence=confidence)
            mean = float(auc[s].mean())
            se = float(auc[s].std(ddof=1) / np.sqrt(k)) if k > 1 else np.nan
            point = int(np.quantile(pts, coverage, method="higher"))
            rows.append({
                "strategy": strat, "metric": metric, "average": average, "ranking": self.ranking,
                "convergence_n": point, "convergence_n_low": int(low), "convergence_n_high": int(high),
                "reached": bool(point < self.positions[-1]),
                "median_n": float(np.median(pts)),
                "p05_n": int(np.quantile(pts, 0.05, method="lower")),
                "p95_n": int(np.quantile(pts, 0.95, method="higher")),
                "auc": mean, "auc_se": se, "auc_low": mean - z * se, "auc_high": mean + z * se,
                "n_units": int(self.positions[-1]), "n_orders": k,
            })
        return pd.DataFrame(rows)

    def compare_strategies(self, *, confidence: float = 0.95) -> pd.DataFrame:
        """Paired differences of the area under the curve between the strategies of each metric and averaging.

        Every order is shared by all schemes, so ``auc_a - auc_b`` is computed
        per order and averaged; ``auc_diff_se`` is its Monte Carlo standard
        error over orders and ``auc_diff_low``/``_high`` the normal
        ``confidence`` interval. Negative: ``strategy_a`` converges faster.

        Parameters
        ----------
        confidence : float

        Returns
        -------
        pandas.DataFrame
            ``metric, average, ranking, strategy_a, strategy_b, auc_diff, auc_diff_se, auc_diff_low, auc_diff_high``
            (every ordered pair).
        """
        auc = self.order_auc()
        z = float(ndtri(tails(confidence)[1]))
        k = self.n_orders
        rows = []
        names = self.schemes.names
        for a, (sa, metric, average) in enumerate(names):
            for b, (sb, metric_b, average_b) in enumerate(names):
                if a == b or (metric_b, average_b) != (metric, average):
                    continue
                d = auc[a] - auc[b]
                mean = float(d.mean())
                se = float(d.std(ddof=1) / np.sqrt(k)) if k > 1 else np.nan
                rows.append({"metric": metric, "average": average, "ranking": self.ranking,
                             "strategy_a": sa, "strategy_b": sb,
                             "auc_diff": mean, "auc_diff_se": se, "auc_diff_low": mean - z * se,
                             "auc_diff_high": mean + z * se})
        return pd.DataFrame(rows, columns=["metric", "average", "ranking", "strategy_a", "strategy_b", "auc_diff",
                                           "auc_diff_se", "auc_diff_low", "auc_diff_high"])


def _prefix_positions(n_units: int, step: int) -> np.ndarray:
    """Every ``step``-th prefix length, and the whole test set."""
    positions = np.arange(step, n_units + 1, step)
    if positions.size == 0 or positions[-1] != n_units:
        positions = np.append(positions, n_units)
    return positions.astype(np.int64)


def _test_set_batch(schemes, members, n_orders, step, tol, ties, size, child):
    """``size`` outer resamples: each a test set of clusters drawn with replacement; its curves' AUC (S, size)."""
    out = np.empty((len(schemes.names), size))
    for b in range(size):
        drawn = child.integers(0, len(members), len(members))
        idx = np.concatenate([members[k] for k in drawn])
        test = replace(schemes, x=np.ascontiguousarray(schemes.x[idx]), units=tuple(range(idx.size)),
                       unit_images=schemes.unit_images[idx], per_case=None, codes=None)
        final = rank(test.scores(), tol=tol, ties=ties)
        orders = np.stack([child.permutation(idx.size) for _ in range(n_orders)]).astype(np.int64)
        curves = test.l1_curves(orders, _prefix_positions(idx.size, step), final, tol, ties_code(ties))
        out[:, b] = curves.mean(axis=(1, 2))
    return out


def auc_over_test_sets(schemes: Schemes, *, clusters: ArrayLike | None = None, n_resamples: int = 200,
                       n_orders: int = 10, options: ConvergenceOptions = ConvergenceOptions(), n_jobs: int = 1,
                       progress: bool = False, rng: SeedLike = None, **deprecated: Any) -> np.ndarray:
    """Each scheme's area under the convergence curve on test sets resampled from this one.

    A claim that one gold's curve settles faster than another's is about the gold, not about this test set's
    orders: each outer resample draws a new test set (the clusters, e.g. encounters, with replacement, each with
    all its units), and ``n_orders`` random orders of it give its curves' area (the mean L1 over the recorded
    prefixes and orders). The spread over outer resamples holds both the test-set sampling and the orders' Monte
    Carlo error.

    Parameters
    ----------
    schemes : Schemes
        On the curves' unit (additive statistics).
    clusters : array_like (U,), optional
        The cluster of every unit (e.g. its encounter); default: every unit its own.
    n_resamples : int
        Outer resamples (new test sets).
    n_orders : int
        Random orders per resampled test set.
    options : ConvergenceOptions
        Its ``step``, ``ties`` and ``tol`` (``positions`` and ``batch_size`` are refused).
    n_jobs : int
    progress : bool
        Count the resampled test sets (``curves over new test sets: 40/200 test sets``).
    rng : None, int or numpy.random.Generator
    **deprecated
        ``step``, ``ties``, ``tol``: the options one by one (deprecated: pass ``options``).

    Returns
    -------
    ndarray (S, n_resamples)
        Paired over resamples (the same test sets and orders for every scheme).
    """
    options = options_with("auc_over_test_sets", options, deprecated)
    step, ties, tol = options.step, options.ties, options.tol
    if options.positions is not None or options.batch_size != ConvergenceOptions.batch_size:
        raise ValueError("auc_over_test_sets records every step-th prefix of orders batched by test set: "
                         "ConvergenceOptions.positions and batch_size are rank_convergence's")
    ties_code(ties)  # an unknown rule is refused before any work
    if n_resamples < 2 or n_orders < 1:
        raise ValueError("n_resamples must be >= 2 and n_orders >= 1")
    labels = np.arange(schemes.n_units) if clusters is None else np.asarray(clusters)
    _, units = members(labels)
    sizes = batch_sizes(n_resamples, 10)
    args = [(schemes, units, n_orders, step, float(tol), ties, size, g)
            for size, g in zip(sizes, batch_generators(rng, len(sizes)))]
    bar = progress_bar(progress, n_resamples, "curves over new test sets", unit="test set")
    return np.concatenate(list(run_batches(_test_set_batch, args, n_jobs=n_jobs, prefer="threads", progress=bar,
                                           weights=sizes)), axis=1)


def compare_over_test_sets(auc: np.ndarray, names: list[tuple], *, confidence: float = 0.95) -> pd.DataFrame:
    """Every two strategies' difference in area under the curve, with its interval over resampled test sets.

    Parameters
    ----------
    auc : ndarray (S, B)
        :func:`auc_over_test_sets`.
    names : list of (strategy, metric, average)
        The schemes of ``auc``'s rows.
    confidence : float

    Returns
    -------
    pandas.DataFrame
        ``metric, average, strategy_a, strategy_b, auc_diff_test_sets`` (mean over resamples),
        ``auc_diff_test_sets_low``, ``auc_diff_test_sets_high`` (percentile interval), ``n_test_sets``.
    """
    lo, hi = tails(confidence)
    rows = []
    for a, (sa, ma, aa) in enumerate(names):
        for b, (sb, mb, ab) in enumerate(names):
            if a == b or ma != mb or aa != ab:
                continue
            d = auc[a] - auc[b]
            rows.append({"metric": ma, "average": aa, "strategy_a": sa, "strategy_b": sb,
                         "auc_diff_test_sets": float(d.mean()), "auc_diff_test_sets_low": float(np.quantile(d, lo)),
                         "auc_diff_test_sets_high": float(np.quantile(d, hi)), "n_test_sets": d.size})
    return pd.DataFrame(rows)


def _convergence_batch(schemes, n_units, positions, final, tol, ties, size, child):
    orders = np.stack([child.permutation(n_units) for _ in range(size)]).astype(np.int64)
    return orders, schemes.l1_curves(orders, positions, final, tol, ties)


def rank_convergence(schemes: Rankable, *, n_orders: int = 200, options: ConvergenceOptions = ConvergenceOptions(),
                     n_jobs: int = 1, progress: bool = False, rng: SeedLike = None, **deprecated: Any) -> Convergence:
    """L1 rank change vs number of test units, over ``n_orders`` random orders.

    For every order, every prefix length n (1..U, every ``step``-th, or the
    given ``positions``) and every scheme, the runs are scored on the first n
    units, ranked, and ``L1 = sum_runs |rank_n - rank_final|`` is recorded,
    where ``rank_final`` is the ranking on the whole test set under the same
    scheme. L1 is 0 at n = U by construction.

    Parameters
    ----------
    schemes : Rankable
        What to rank: per-unit statistics (aggregate-then-rank, or per-case
        ranks for rank-then-aggregate) or paired tests (test-based), as
        :func:`robustness.statistics.ranking_methods.prepare` builds them. The same
        ``rng`` draws the same orders for all of them on the same units.
    n_orders : int
    options : ConvergenceOptions
        The prefixes recorded (``step`` or ``positions``), the tie rule and the orders' batches.
    n_jobs : int
        Parallel batches (joblib threads; a Dask cluster under :func:`robustness.parallel.parallel_backend`).
    progress : bool
        Show a progress bar.
    rng : None, int or numpy.random.Generator
    **deprecated
        ``step``, ``positions``, ``ties``, ``tol``, ``batch_size``: the options one by one (deprecated: pass
        ``options``).

    Returns
    -------
    Convergence

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> from robustness.overlap import compute_overlap
    >>> from robustness.statistics.count_schemes import schemes_from_counts
    >>> oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    >>> conv = rank_convergence(schemes_from_counts(oc), n_orders=10, rng=0)
    >>> conv.l1.shape[1:], float(conv.l1[:, :, -1].max())
    ((10, 12), 0.0)
    """
    options = options_with("rank_convergence", options, deprecated)
    step, positions, ties, tol, batch_size = (options.step, options.positions, options.ties, options.tol,
                                              options.batch_size)
    code = ties_code(ties)
    if n_orders < 1 or batch_size < 1 or step < 1:
        raise ValueError("n_orders, batch_size and step must be >= 1")
    u = schemes.n_units
    positions = _prefix_positions(u, step) if positions is None else np.asarray(positions, dtype=np.int64)
    if positions.size == 0 or np.any(np.diff(positions) <= 0) or positions[0] < 1 or positions[-1] > u:
        raise ValueError(f"positions must be increasing prefix lengths in 1..{u}")
    final = rank(schemes.scores(), ties=ties, tol=tol)
    sizes = batch_sizes(n_orders, batch_size)
    children = batch_generators(rng, len(sizes))
    args = [(schemes, u, positions, final, float(tol), code, size, child) for size, child in zip(sizes, children)]
    bar = progress_bar(progress, len(sizes), f"rank convergence ({schemes.ranking})")
    orders = np.empty((n_orders, u), dtype=np.int64)
    l1 = np.empty((len(schemes.names), n_orders, positions.size), dtype=np.float32)
    start = 0
    for size, (o, curves) in zip(sizes, run_batches(_convergence_batch, args, n_jobs=n_jobs, prefer="threads",
                                                     progress=bar)):
        orders[start:start + size] = o  # filled batch by batch: the peak is the result plus one batch
        l1[:, start:start + size] = curves
        start += size
    cum_images = np.cumsum(schemes.unit_images[orders], axis=1)
    return Convergence(schemes=schemes, orders=orders, positions=positions, n_images=cum_images[:, positions - 1],
                       l1=l1, final_ranks=final, ties=ties, tol=tol)
