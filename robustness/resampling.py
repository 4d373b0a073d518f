"""Rank convergence over random orders, bootstrap intervals, rank stability.

Every leaderboard number is a ratio of sums over test units (images or
encounters): micro scores sum TP, FP and FN; macro scores sum per-image
scores and divide by the number of images. :class:`Schemes` holds those
per-unit additive statistics for every scoring scheme (strategy x metric x
averaging), so that

- a prefix of a random order is a running sum (all prefixes of an order in
  one pass, :func:`rank_convergence`), and
- a bootstrap resample is a sum over drawn units (:func:`bootstrap`),

both in numba kernels that never hold more than one order's or one resample's
scores at a time.

Randomness (SPEC 7): ``rng`` is turned into a generator once; work is cut
into fixed-size batches and batch ``b`` draws from the ``b``-th child of
``rng.spawn``, so the results are identical for any ``n_jobs`` and on a Dask
cluster.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import numpy as np

from . import _kernels
from .metrics import _EMPTY_VALUE, EMPTY_POLICIES, METRICS, over_annotators, per_image
from .ranking import TIE_TOL, _method_code, rank

__all__ = [
    "Schemes",
    "schemes_from_counts",
    "schemes_from_table",
    "per_case_table",
    "Convergence",
    "rank_convergence",
    "BootstrapResult",
    "bootstrap",
    "bootstrap_interval",
    "pairwise_tests",
    "parallel_backend",
    "strategy_agreement",
    "adjacent_pairs",
]

_KIND = {"micro_jaccard": _kernels.SCORE_MICRO_JACCARD, "micro_dice": _kernels.SCORE_MICRO_DICE}


# -- the statistics --------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Schemes:
    """Per-unit additive statistics of every run under every scoring scheme.

    Attributes
    ----------
    names : list of (strategy, metric, average)
    systems : tuple of str
    units : tuple of str
        Resampling units (image or encounter ids).
    unit_images : int array (U,)
        Number of images in each unit.
    x : float64 (U, M)
        Additive statistics, one column each (shared between schemes).
    cols : int (S, R, 3)
        For scheme ``s`` and run ``r`` the columns of ``x`` holding
        (tp, fp, fn) for micro schemes, or (sum of per-image scores, number
        of scored images, -1) for macro schemes.
    kind : int (S,)
        0 micro Jaccard, 1 micro Dice, 2 mean (macro).
    empty : str
        The both-empty policy the statistics were built with.
    per_case : float64 (S, R, N) or None
        Per-image scores of macro schemes (nan rows for micro schemes), for
        paired tests.
    """

    names: list
    systems: tuple
    units: tuple
    unit_images: np.ndarray
    x: np.ndarray
    cols: np.ndarray
    kind: np.ndarray
    empty: str = "one"
    per_case: np.ndarray | None = None

    @property
    def empty_value(self) -> float:
        return _EMPTY_VALUE[self.empty]

    @property
    def n_units(self) -> int:
        return len(self.units)

    def scores(self, sums=None) -> np.ndarray:
        """Scores (S, R) from summed statistics (default: the whole test set)."""
        if sums is None:
            sums = self.x.sum(axis=0)
        return _kernels.scores_from_sums(np.ascontiguousarray(sums, dtype=np.float64), self.cols, self.kind,
                                         self.empty_value)

    def index(self, strategy, metric, average) -> int:
        return self.names.index((strategy, metric, average))

    def labels_frame(self):
        import pandas as pd

        return pd.DataFrame(self.names, columns=["strategy", "metric", "average"])


def _group(values, codes, n_groups):
    """Sum the rows of ``values`` (N, ...) into ``n_groups`` groups by ``codes``."""
    out = np.zeros((n_groups,) + values.shape[1:], dtype=np.float64)
    np.add.at(out, codes, values)
    return out


def schemes_from_counts(overlap, *, unit: str = "image", empty: str = "one", strategies=None,
                        metrics=METRICS, averages=("micro", "macro"), annotators=("mean", "max")) -> Schemes:
    """Build :class:`Schemes` from :class:`~robustness.overlap.OverlapCounts`.

    Parameters
    ----------
    overlap : OverlapCounts
    unit : {'image', 'encounter'}
        The resampling unit; with 'encounter' an encounter's images stay together.
    empty : {'one', 'zero', 'ignore', 'official'}
        Both-empty policy (see :mod:`robustness.metrics`). Under 'ignore' such
        images are left out of macro sums and counts.
    strategies : list of str, optional
        Gold strategies (default: all of ``overlap``).
    annotators : tuple
        Macro schemes over annotators to add: ``mean`` and/or ``max``.
    """
    if unit not in ("image", "encounter"):
        raise ValueError(f"unit must be 'image' or 'encounter', got {unit!r}")
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty must be one of {EMPTY_POLICIES}, got {empty!r}")
    strategies = list(strategies or overlap.strategies)
    n_img = overlap.n_images
    n_sys = len(overlap.systems)
    if unit == "image":
        codes = np.arange(n_img)
        units = tuple(overlap.images)
    else:
        first: dict[str, int] = {}
        codes = np.array([first.setdefault(e, len(first)) for e in overlap.encounters])
        units = tuple(first)
    n_units = len(units)
    unit_images = np.bincount(codes, minlength=n_units)

    columns = []  # (U,) arrays
    names, cols, kinds, per_case = [], [], [], []

    def add(col):
        columns.append(col)
        return len(columns) - 1

    micro_cols = {}
    for strat in strategies:
        c = overlap.counts[overlap.strategies.index(strat)].astype(np.float64)  # (R, N, 3)
        if "micro" in averages:
            g = _group(np.moveaxis(c, 1, 0), codes, n_units)  # (U, R, 3)
            micro_cols[strat] = np.array([[add(g[:, r, k]) for k in range(3)] for r in range(n_sys)])
    count_cols = {}

    def macro_columns(values):  # values (R, N) per-image scores, nan = left out
        ok = ~np.isnan(values)
        if empty == "official":
            sums, counts = values, np.ones_like(values)  # nan propagates
        else:
            sums, counts = np.where(ok, values, 0.0), ok.astype(np.float64)
        gs = _group(sums.T, codes, n_units)  # (U, R)
        gc = _group(counts.T, codes, n_units)
        out = []
        for r in range(n_sys):
            key = gc[:, r].tobytes()
            if key not in count_cols:
                count_cols[key] = add(gc[:, r])
            out.append([add(gs[:, r]), count_cols[key], -1])
        return np.array(out)

    for metric in metrics:
        for strat in strategies:
            if "micro" in averages:
                names.append((strat, metric, "micro"))
                cols.append(micro_cols[strat])
                kinds.append(_KIND[f"micro_{metric}"])
                per_case.append(np.full((n_sys, n_img), np.nan))
            if "macro" in averages:
                v = per_image(overlap.counts[overlap.strategies.index(strat)], metric, empty=empty)
                names.append((strat, metric, "macro"))
                cols.append(macro_columns(v))
                kinds.append(_kernels.SCORE_MEAN)
                per_case.append(v)
        if "macro" in averages:
            for how in annotators:
                v = over_annotators(overlap.annotator_counts, overlap.annotator_valid, metric, how=how, empty=empty)
                names.append((how, metric, "macro"))
                cols.append(macro_columns(v))
                kinds.append(_kernels.SCORE_MEAN)
                per_case.append(v)
    return Schemes(
        names=names,
        systems=tuple(overlap.systems),
        units=units,
        unit_images=unit_images,
        x=np.ascontiguousarray(np.stack(columns, axis=1)),
        cols=np.array(cols, dtype=np.int64),
        kind=np.array(kinds, dtype=np.int64),
        empty=empty,
        per_case=np.stack(per_case),
    )


def per_case_table(overlap, *, empty: str = "one", metrics=METRICS):
    """Per-image scores as a challengeR-style long table.

    Columns: ``case, algorithm, value, strategy, metric, encounter``; one row
    per image, run, strategy (plus ``mean``/``max`` over annotators) and metric.
    """
    import pandas as pd

    s = schemes_from_counts(overlap, empty=empty, metrics=metrics, averages=("macro",))
    frames = []
    n_img = overlap.n_images
    for k, (strat, metric, _) in enumerate(s.names):
        v = s.per_case[k]  # (R, N)
        frames.append(pd.DataFrame({
            "case": np.tile(np.asarray(overlap.images, dtype=object), len(s.systems)),
            "algorithm": np.repeat(np.asarray(s.systems, dtype=object), n_img),
            "value": v.reshape(-1),
            "strategy": strat,
            "metric": metric,
            "encounter": np.tile(np.asarray(overlap.encounters, dtype=object), len(s.systems)),
        }))
    return pd.concat(frames, ignore_index=True)


def schemes_from_table(table, *, case: str = "case", algorithm: str = "algorithm", value: str = "value",
                       by=("strategy", "metric"), unit: str | None = None) -> Schemes:
    """Build macro :class:`Schemes` from a long per-case table (e.g. challengeR's input).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per (case, algorithm[, by...]) with a score in ``value``
        (higher is better). Every algorithm must have a value for every case.
    by : tuple of str
        Columns that name a scheme (missing columns are ignored).
    unit : str, optional
        A column grouping cases into resampling units (e.g. ``encounter``);
        default: every case is a unit.
    """
    import pandas as pd

    from .errors import InputError

    for c in (case, algorithm, value):
        if c not in table:
            raise InputError(f"per-case table has no column {c!r} (columns: {', '.join(map(str, table.columns))})")
    by = [b for b in by if b in table]
    groups = table.groupby(by, sort=False) if by else [((), table)]
    systems = tuple(sorted(table[algorithm].unique()))
    cases = tuple(sorted(table[case].unique()))
    if unit is not None:
        unit_of = table.drop_duplicates(case).set_index(case)[unit].reindex(cases)
        first: dict = {}
        codes = np.array([first.setdefault(u, len(first)) for u in unit_of])
        units = tuple(str(u) for u in first)
    else:
        codes = np.arange(len(cases))
        units = tuple(str(c) for c in cases)
    n_units = len(units)
    columns, names, cols, per_case = [], [], [], []
    for key, df in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = df.pivot_table(index=algorithm, columns=case, values=value, aggfunc="first")
        wide = wide.reindex(index=systems, columns=cases)
        if wide.isna().any().any():
            r, c = np.argwhere(wide.isna().to_numpy())[0]
            raise InputError(f"per-case table: no value for algorithm {systems[r]!r}, case {cases[c]!r} "
                             f"(scheme {key})")
        v = wide.to_numpy(dtype=np.float64)
        gs = _group(v.T, codes, n_units)
        gc = _group(np.ones_like(v).T, codes, n_units)
        count_col = len(columns)
        columns.append(gc[:, 0])
        rows = []
        for r in range(len(systems)):
            columns.append(gs[:, r])
            rows.append([len(columns) - 1, count_col, -1])
        label = dict(zip(by, key))
        names.append((str(label.get("strategy", "table")), str(label.get("metric", value)), "macro"))
        cols.append(rows)
        per_case.append(v)
    return Schemes(names=names, systems=systems, units=units, unit_images=np.bincount(codes, minlength=n_units),
                   x=np.ascontiguousarray(np.stack(columns, axis=1)), cols=np.array(cols, dtype=np.int64),
                   kind=np.full(len(names), _kernels.SCORE_MEAN, dtype=np.int64), empty="one",
                   per_case=np.stack(per_case))


# -- execution ------------------------------------------------------------------------------

@contextlib.contextmanager
def parallel_backend(scheduler: str | None = None, *, n_workers: int = 2):
    """Run joblib work on a Dask cluster inside this context.

    ``scheduler`` is a Dask scheduler address, or ``"local"`` to start (and
    stop) a ``dask.distributed.LocalCluster`` on loopback. ``None`` leaves
    joblib's default backend in place.
    """
    if scheduler is None:
        yield None
        return
    import joblib
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, host="127.0.0.1",
                               dashboard_address=None, processes=True)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_batches(fn, batches, n_jobs, progress=None):
    """Run ``fn(*args)`` for every args tuple; results in batch order."""
    if n_jobs == 1:
        results = (fn(*b) for b in batches)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(delayed(fn)(*b) for b in batches)
    out = []
    for r in results:
        out.append(r)
        if progress is not None:
            progress.update(1)
    return out


def _children(rng, n):
    return np.random.default_rng(rng).spawn(n)


def _progress(enabled, total, desc):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="batch", leave=False)


# -- rank convergence -----------------------------------------------------------------------

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


def _convergence_batch(x, cols, kind, n_units, positions, final, tol, method, empty_value, size, child):
    orders = np.stack([child.permutation(n_units) for _ in range(size)]).astype(np.int64)
    return orders, _kernels.l1_curves(x, cols, kind, orders, positions, final, tol, method, empty_value)


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
    >>> oc = compute_overlap(make_challenge(n_encounters=8, n_images=12, n_runs=4, n_teams=2, rng=0), rng=0)
    >>> conv = rank_convergence(schemes_from_counts(oc), n_orders=10, rng=0)
    >>> conv.l1.shape[1:], float(conv.l1[:, :, -1].max())
    ((10, 12), 0.0)
    """
    code = _method_code(method)
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
    n_batches = -(-n_orders // batch_size)
    children = _children(rng, n_batches)
    sizes = [min(batch_size, n_orders - b * batch_size) for b in range(n_batches)]
    args = [(schemes.x, schemes.cols, schemes.kind, u, positions, final, float(tol), code, schemes.empty_value,
             sizes[b], children[b]) for b in range(n_batches)]
    bar = _progress(progress, n_batches, "rank convergence")
    results = _run_batches(_convergence_batch, args, n_jobs, bar)
    if bar is not None:
        bar.close()
    orders = np.concatenate([r[0] for r in results])
    l1 = np.concatenate([r[1] for r in results], axis=1)
    cum_images = np.cumsum(schemes.unit_images[orders], axis=1)
    return Convergence(schemes=schemes, orders=orders, positions=positions, n_images=cum_images[:, positions - 1],
                       l1=l1, final_ranks=final, method=method, tol=tol)


# -- bootstrap -------------------------------------------------------------------------------

def bootstrap_interval(estimate, distribution, jackknife=None, *, method: str = "percentile",
                       confidence_level: float = 0.95):
    """Two-sided percentile or BCa interval along the last axis of ``distribution``.

    Follows ``scipy.stats.bootstrap`` (Efron & Tibshirani 1993, 14.3 and
    15.4): BCa needs the jackknife (leave-one-unit-out) values along the last
    axis of ``jackknife``. Quantiles are linear interpolations (numpy's default).

    Returns ``(low, high)``.
    """
    from scipy.special import ndtr, ndtri

    distribution = np.asarray(distribution, dtype=np.float64)
    alpha = (1 - confidence_level) / 2
    if method == "percentile":
        a1 = np.full(distribution.shape[:-1], alpha)
        a2 = np.full(distribution.shape[:-1], 1 - alpha)
    elif method == "bca":
        if jackknife is None:
            raise ValueError("BCa needs the jackknife values")
        theta = np.asarray(estimate, dtype=np.float64)[..., None]
        b = distribution.shape[-1]
        pct = (np.count_nonzero(distribution < theta, axis=-1)
               + np.count_nonzero(distribution <= theta, axis=-1)) / (2 * b)
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = ndtri(pct)
            jk = np.asarray(jackknife, dtype=np.float64)
            n = float(jk.shape[-1])
            u = (n - 1) * (jk.mean(axis=-1, keepdims=True) - jk)
            a_hat = 1 / 6 * (np.sum(u**3, axis=-1) / n**3) / (np.sum(u**2, axis=-1) / n**2) ** (3 / 2)
            z_a = float(ndtri(alpha))
            num1 = z0 + z_a
            a1 = ndtr(z0 + num1 / (1 - a_hat * num1))
            num2 = z0 - z_a
            a2 = ndtr(z0 + num2 / (1 - a_hat * num2))
    else:
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    low = np.empty(distribution.shape[:-1])
    high = np.empty(distribution.shape[:-1])
    for idx in np.ndindex(low.shape):
        d = distribution[idx]
        if np.isnan(a1[idx]) or np.isnan(a2[idx]) or np.isnan(d).any():
            low[idx] = high[idx] = np.nan
        else:
            low[idx], high[idx] = np.quantile(d, [a1[idx], a2[idx]])
    return low, high


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap distribution of every run's score and rank under every scheme.

    Attributes
    ----------
    schemes : Schemes
    estimate : (S, R) scores on the whole test set
    distribution : (S, B, R) scores on every resample (units drawn with replacement, paired across runs)
    ranks : float32 (S, B, R) ranks on every resample
    final_ranks : (S, R)
    tau : (S, B) Kendall's tau-b between the full-set ranking and each resample's
    wins : (S, R, R) share of resamples in which run i scores strictly above run j
    jackknife : (S, R, U) leave-one-unit-out scores (for BCa)
    """

    schemes: Schemes
    estimate: np.ndarray
    distribution: np.ndarray
    ranks: np.ndarray
    final_ranks: np.ndarray
    tau: np.ndarray
    wins: np.ndarray
    jackknife: np.ndarray

    def to_frame(self):
        """The tidy summary: every run's score with its 95% percentile interval (see :meth:`intervals`)."""
        return self.intervals()

    def intervals(self, *, method: str = "percentile", confidence_level: float = 0.95):
        """CIs of every run's score: ``strategy, metric, average, system, score, low, high, method``."""
        import pandas as pd

        dist = np.moveaxis(self.distribution, 1, -1)  # (S, R, B)
        low, high = bootstrap_interval(self.estimate, dist, self.jackknife, method=method,
                                       confidence_level=confidence_level)
        frames = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            frames.append(pd.DataFrame({
                "strategy": strat, "metric": metric, "average": average, "system": list(self.schemes.systems),
                "score": self.estimate[s], "low": low[s], "high": high[s], "rank": self.final_ranks[s],
                "method": method, "confidence_level": confidence_level,
            }))
        return pd.concat(frames, ignore_index=True)

    def rank_distribution(self):
        """Share of resamples in which each run takes each (rounded-up) rank: tidy table."""
        import pandas as pd

        s_n, b_n, r_n = self.ranks.shape
        rows = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            rk = np.ceil(self.ranks[s]).astype(int)  # (B, R)
            for r, sysname in enumerate(self.schemes.systems):
                counts = np.bincount(rk[:, r], minlength=r_n + 1)[1:]
                nz = np.flatnonzero(counts)
                rows.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average,
                                          "system": sysname, "rank": nz + 1, "share": counts[nz] / b_n,
                                          "full_rank": self.final_ranks[s, r]}))
        return pd.concat(rows, ignore_index=True)

    def stability(self, *, level: float = 0.95):
        """Kendall's tau between the full-set ranking and the resamples': median and central interval."""
        import pandas as pd

        lo, hi = (1 - level) / 2, 1 - (1 - level) / 2
        rows = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            t = self.tau[s][~np.isnan(self.tau[s])]
            rows.append({"strategy": strat, "metric": metric, "average": average,
                         "tau_median": float(np.median(t)) if t.size else np.nan,
                         "tau_low": float(np.quantile(t, lo)) if t.size else np.nan,
                         "tau_high": float(np.quantile(t, hi)) if t.size else np.nan})
        return pd.DataFrame(rows)


def _bootstrap_batch(x, cols, kind, final, tol, method, empty_value, n_units, size, child):
    idx = child.integers(0, n_units, (size, n_units))
    sums = _kernels.resample_sums(x, idx)
    n_s, n_r = cols.shape[0], cols.shape[1]
    scores = np.empty((n_s, size, n_r))
    for b in range(size):
        scores[:, b] = _kernels.scores_from_sums(sums[b], cols, kind, empty_value)
    ranks = _kernels.rank_rows(scores.reshape(-1, n_r), tol, method).reshape(n_s, size, n_r)
    tau = np.empty((n_s, size))
    for s in range(n_s):
        for b in range(size):
            tau[s, b] = _kernels.kendall_tau_b(final[s], ranks[s, b])
    filled = np.where(np.isnan(scores), -np.inf, scores)
    wins = (filled[:, :, :, None] > filled[:, :, None, :]).sum(axis=1)  # (S, R, R)
    return scores, ranks.astype(np.float32), tau, wins


def bootstrap(schemes: Schemes, *, n_resamples: int = 1000, method: str = "average", tol: float = TIE_TOL,
              batch_size: int = 100, n_jobs: int = 1, progress: bool = False, rng=None) -> BootstrapResult:
    """Bootstrap the test units: scores, CIs, rank distributions, rank stability, pairwise wins.

    Each resample draws ``U`` units with replacement (the same draw for every
    run: paired), re-sums the per-unit statistics (micro scores re-sum TP, FP
    and FN; macro scores re-average the per-image scores of the drawn units),
    and ranks the runs.

    Parameters
    ----------
    schemes : Schemes
        Build it with ``unit='encounter'`` (the recommended default for
        bootstrap: an encounter's images are not independent) or 'image'.
    n_resamples : int
    method : {'average', 'min'}
        Tie rule for the ranks.
    batch_size, n_jobs, progress, rng
        As in :func:`rank_convergence`.
    """
    code = _method_code(method)
    if n_resamples < 1 or batch_size < 1:
        raise ValueError("n_resamples and batch_size must be >= 1")
    estimate = schemes.scores()
    final = rank(estimate, method=method, tol=tol)
    u = schemes.n_units
    n_batches = -(-n_resamples // batch_size)
    children = _children(rng, n_batches)
    sizes = [min(batch_size, n_resamples - b * batch_size) for b in range(n_batches)]
    args = [(schemes.x, schemes.cols, schemes.kind, final, float(tol), code, schemes.empty_value, u, sizes[b],
             children[b]) for b in range(n_batches)]
    bar = _progress(progress, n_batches, "bootstrap")
    results = _run_batches(_bootstrap_batch, args, n_jobs, bar)
    if bar is not None:
        bar.close()
    scores = np.concatenate([r[0] for r in results], axis=1)
    ranks = np.concatenate([r[1] for r in results], axis=1)
    tau = np.concatenate([r[2] for r in results], axis=1)
    wins = sum(r[3] for r in results) / n_resamples
    total = schemes.x.sum(axis=0)
    jack = np.stack([schemes.scores(total - schemes.x[j]) for j in range(u)], axis=-1)  # (S, R, U)
    return BootstrapResult(schemes=schemes, estimate=estimate, distribution=scores, ranks=ranks,
                           final_ranks=final, tau=tau, wins=wins, jackknife=jack)


# -- paired tests -----------------------------------------------------------------------------

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
        if schemes.kind[s] != _kernels.SCORE_MEAN:
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


# -- summaries across schemes ----------------------------------------------------------------

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
