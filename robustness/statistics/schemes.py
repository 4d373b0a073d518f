"""Per-unit statistics: every leaderboard score as a ratio of sums over test units.

Every leaderboard number is a ratio of sums over test units (images or
encounters): micro scores sum TP, FP and FN and apply the metric's weights
(:data:`robustness.overlap.metrics.METRICS`); macro scores sum per-image scores and
divide by the number of images. :class:`Schemes` holds those per-unit additive
statistics for every scoring scheme (gold strategy x metric x averaging), so
that a prefix of a random order is a running sum (:mod:`robustness.statistics.convergence`)
and a bootstrap resample is a sum over drawn units (:mod:`robustness.statistics.bootstrap`).
:func:`rank_then_aggregate` turns the per-case scores of macro schemes into
per-case ranks, which add up the same way (:mod:`robustness.statistics.ranking_methods`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness.errors import InputError
from robustness.overlap.gold import annotator_strategies
from robustness.overlap.metrics import METRICS, EmptyPolicy, empty_policy, get_metric, over_annotators, per_image
from robustness.statistics.ranks import rank

if TYPE_CHECKING:
    import pandas as pd

    from robustness.overlap.counts import OverlapCounts

__all__ = ["Schemes", "SchemesView", "schemes_from_counts", "schemes_from_table", "schemes_from_values",
           "per_case_table", "per_case_frames", "rank_then_aggregate", "MEAN_WEIGHTS"]

#: A macro mean as a ratio: (sum of per-image scores) / (number of images scored).
MEAN_WEIGHTS = (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))


@dataclass(frozen=True, eq=False)
class Schemes:
    """Per-unit additive statistics of every run under every scoring scheme.

    Attributes
    ----------
    names : list of (strategy, metric, average)
    runs : tuple of str
    units : tuple of str
        Resampling units (image or encounter ids).
    unit : str
        What a unit is (``image``, ``encounter``, ``case``...), for reports.
    unit_images : int array (U,)
        Number of images in each unit.
    x : float64 (U, M)
        Additive statistics, one column each (shared between schemes).
    cols : int (S, R, 3)
        For scheme ``s`` and run ``r`` the columns of ``x`` holding (tp, fp,
        fn) for micro schemes, or (sum of per-image scores, number of scored
        images, number of scored images) for macro schemes.
    numerator, denominator : float64 (S, 3)
        Weights over those three columns: the metric's for micro schemes,
        :data:`MEAN_WEIGHTS` for macro ones.
    empty_values : float64 (S,)
        The score where the denominator is 0: the empty policy's value for
        micro schemes, nan for a macro mean over no image.
    empty : EmptyPolicy
        The both-empty policy the statistics were built with.
    per_case : float64 (S, R, N) or None
        Per-image scores of macro schemes (nan rows for micro schemes), for
        paired tests.
    codes : int array (N,) or None
        The unit of every case (image) of ``per_case``.
    ranking : str
        The ranking method these statistics serve (:mod:`robustness.statistics.ranking_methods`):
        ``aggregate``, or ``rank-then-aggregate`` for per-case ranks.
    signs : float64 (S,) or None
        -1 for a scheme whose metric ranks its smallest values first (a distance, an error rate): its statistics
        are stored negated, so that every engine ranks "higher is better", and every table that shows a score
        multiplies it back (:attr:`sign_of`); None: every scheme +1.
    """

    names: list
    runs: tuple
    units: tuple
    unit_images: np.ndarray
    x: np.ndarray
    cols: np.ndarray
    numerator: np.ndarray
    denominator: np.ndarray
    empty_values: np.ndarray
    empty: EmptyPolicy = empty_policy("one")
    per_case: np.ndarray | None = None
    unit: str = "image"
    codes: np.ndarray | None = None
    ranking: str = "aggregate"
    signs: np.ndarray | None = None

    @property
    def sign_of(self) -> np.ndarray:
        """Every scheme's sign (S,): +1, or -1 where the stored statistics are the metric's negative."""
        return np.ones(len(self.names)) if self.signs is None else np.asarray(self.signs, dtype=np.float64)

    @property
    def n_units(self) -> int:
        """The number of resampling units."""
        return len(self.units)

    @property
    def weights(self) -> tuple:
        """``(cols, numerator, denominator, empty_values)``: what the kernels need to score."""
        return self.cols, self.numerator, self.denominator, self.empty_values

    def scores(self, sums: ArrayLike | None = None) -> np.ndarray:
        """Every run's score under every scheme from summed statistics.

        Parameters
        ----------
        sums : array_like (M,), optional
            Sums of the columns of :attr:`x` over some units (default: over all of them: the whole test set).

        Returns
        -------
        ndarray (S, R)
        """
        if sums is None:
            sums = self.x.sum(axis=0)
        return _kernels.scores_from_sums(np.ascontiguousarray(sums, dtype=np.float64), *self.weights)

    def index(self, strategy: str, metric: str, average: str) -> int:
        """The position of a scheme in :attr:`names` (:meth:`Rankable.index`)."""
        return self.names.index((strategy, metric, average))

    def is_macro(self, s: int) -> bool:
        """Whether scheme ``s`` averages per-image scores (it has per-case values for paired tests).

        Parameters
        ----------
        s : int
            A scheme's position.

        Returns
        -------
        bool
        """
        return self.names[s][2] == "macro"

    def labels_frame(self) -> pd.DataFrame:
        """The schemes as a table.

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average``, one row per scheme.
        """
        return pd.DataFrame(self.names, columns=["strategy", "metric", "average"])

    def select(self, indices: Iterable[int]) -> Schemes:
        """Some schemes only (the statistics ``x`` are shared).

        Parameters
        ----------
        indices : iterable of int
            Positions of the schemes to keep, in the order to keep them.

        Returns
        -------
        Schemes
        """
        idx = list(indices)
        return replace(self, names=[self.names[k] for k in idx], cols=self.cols[idx], numerator=self.numerator[idx],
                       denominator=self.denominator[idx], empty_values=self.empty_values[idx],
                       per_case=None if self.per_case is None else self.per_case[idx],
                       signs=None if self.signs is None else self.signs[idx])

    # -- what the resampling engines call (robustness.statistics.test_based.PairedTests answers the same calls) --

    def l1_curves(self, orders: np.ndarray, positions: np.ndarray, final_ranks: np.ndarray, tol: float,
                  ties: int) -> np.ndarray:
        """L1 to ``final_ranks`` after the recorded prefixes, one running sum per order (:meth:`Rankable.l1_curves`)."""
        cols, numerator, denominator, empty_values = self.weights
        return _kernels.l1_curves(self.x, cols, numerator, denominator, empty_values, orders, positions, final_ranks,
                                  tol, ties)

    def resample_scores(self, idx: np.ndarray) -> np.ndarray:
        """Scores on resamples of units drawn with replacement, (S, B, R) (:meth:`Rankable.resample_scores`)."""
        sums = _kernels.resample_sums(self.x, idx)
        out = np.empty((len(self.names), idx.shape[0], len(self.runs)))
        for b in range(idx.shape[0]):
            out[:, b] = _kernels.scores_from_sums(sums[b], *self.weights)
        return out

    def resample_se(self, idx: np.ndarray) -> np.ndarray:
        """Delta-method standard errors of the scores on resamples of units, (S, B, R) (the studentized bootstrap).

        On a resample that draws unit ``u`` ``c_u`` times, a score ``R = sum c a / sum c b`` has the squared
        standard error ``sum_u c_u (a_u - R b_u)^2 / (sum c b / n)^2 / (n (n - 1))``
        (:func:`robustness.statistics.population.delta_covariance`, its diagonal).

        Parameters
        ----------
        idx : ndarray of int (B, n)
            The units drawn by each resample.

        Returns
        -------
        ndarray (S, B, R)
            nan where a score's denominator sums to 0.
        """
        num, den = self.ratio_parts()
        n_u = num.shape[0]
        n = idx.shape[1]
        counts = np.zeros((idx.shape[0], n_u))
        np.add.at(counts, (np.repeat(np.arange(idx.shape[0]), n), idx.ravel()), 1.0)
        flat = (n_u, -1)
        a, b = num.reshape(flat), den.reshape(flat)
        sum_a, sum_b = counts @ a, counts @ b
        aa, ab, bb = counts @ (a * a), counts @ (a * b), counts @ (b * b)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = sum_a / sum_b
            ss = np.maximum(aa - 2 * r * ab + r * r * bb, 0.0)
            se = np.sqrt(ss / (sum_b / n) ** 2 / (n * max(n - 1, 1)))
        return np.moveaxis(se.reshape(idx.shape[0], *num.shape[1:]), 0, 1)

    def unit_scores(self) -> np.ndarray:
        """Every run's score on every unit alone (the unit-level scores of the paired tests).

        Micro schemes re-sum the unit's counts; macro schemes give the unit's mean per-image score.

        Returns
        -------
        ndarray (S, R, U)
        """
        out = np.empty((len(self.names), len(self.runs), self.n_units))
        with np.errstate(invalid="ignore", divide="ignore"):
            for u in range(self.n_units):
                out[:, :, u] = self.scores(self.x[u])
        return out

    def ratio_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """Every score as a ratio of sums over units: each unit's numerator and denominator.

        A micro score is ``sum of numerators / sum of denominators`` over the units (the metric's weights of
        TP, FP and FN); a macro score the sum of per-image scores over the number of scored images. Both are
        what the delta method and the studentized bootstrap need.

        Returns
        -------
        (numerator, denominator) : ndarray (U, S, R)
        """
        parts = self.x[:, self.cols]  # (U, S, R, 3)
        return ((parts * self.numerator[None, :, None, :]).sum(axis=-1),
                (parts * self.denominator[None, :, None, :]).sum(axis=-1))

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out scores (S, R, U), for BCa intervals (:meth:`Rankable.jackknife`)."""
        total = self.x.sum(axis=0)
        return np.stack([self.scores(total - self.x[j]) for j in range(self.n_units)], axis=-1)


class SchemesView:
    """Members a ranking method's statistics share with the :class:`Schemes` they were built from.

    :class:`~robustness.statistics.test_based.PairedTests` and
    :class:`~robustness.statistics.case_statistic.CaseStatistic` hold a ``schemes`` attribute and inherit these
    members, which the reports and engines read (:class:`~robustness.statistics.ranking_methods.Rankable`).
    """

    schemes: Schemes

    @property
    def names(self) -> list:
        """The schemes: (strategy, metric, average)."""
        return self.schemes.names

    @property
    def runs(self) -> tuple:
        """The runs."""
        return self.schemes.runs

    @property
    def units(self) -> tuple:
        """The resampling units."""
        return self.schemes.units

    @property
    def unit(self) -> str:
        """What a unit is."""
        return self.schemes.unit

    @property
    def unit_images(self) -> np.ndarray:
        """Images in each unit."""
        return self.schemes.unit_images

    @property
    def sign_of(self) -> np.ndarray:
        """The schemes' signs (:attr:`Schemes.sign_of`)."""
        return self.schemes.sign_of

    def unit_scores(self) -> np.ndarray:
        """The schemes' unit-level scores (:meth:`Schemes.unit_scores`).

        Returns
        -------
        ndarray (S, R, U)
        """
        return self.schemes.unit_scores()

    @property
    def n_units(self) -> int:
        """The number of units."""
        return self.schemes.n_units

    def index(self, strategy: str, metric: str, average: str) -> int:
        """The position of a scheme in :attr:`names` (:meth:`Rankable.index`)."""
        return self.schemes.index(strategy, metric, average)


class _Builder:
    """Collects unit columns and scheme rows (shared count columns are stored once)."""

    def __init__(self, codes, n_units):
        self.codes, self.n_units = codes, n_units
        self.columns, self.names, self.cols, self.num, self.den, self.empty, self.per_case = [], [], [], [], [], [], []
        self.signs = []
        self._shared = {}

    def group(self, values):
        """Sum the rows of ``values`` (N, ...) into the units."""
        out = np.zeros((self.n_units,) + values.shape[1:], dtype=np.float64)
        np.add.at(out, self.codes, values)
        return out

    def add(self, col, *, shared=False):
        if shared:
            key = col.tobytes()
            if key not in self._shared:
                self._shared[key] = self.add(col)
            return self._shared[key]
        self.columns.append(col)
        return len(self.columns) - 1

    def scheme(self, name, cols, weights, empty_value, per_case, sign=1.0):
        self.signs.append(float(sign))
        self.names.append(name)
        self.cols.append(cols)
        self.num.append(weights[0])
        self.den.append(weights[1])
        self.empty.append(empty_value)
        self.per_case.append(per_case)

    def macro(self, name, values, policy, sign=1.0):
        """A macro scheme from per-case scores ``values`` (R, N), stored times ``sign`` (nan: left out or kept)."""
        values = values if sign > 0 else -values
        ok = ~np.isnan(values)
        if policy.propagates:
            sums, counts = values, np.ones_like(values)  # nan propagates
        else:
            sums, counts = np.where(ok, values, 0.0), ok.astype(np.float64)
        gs = self.group(sums.T)  # (U, R)
        gc = self.group(counts.T)
        rows = []
        for r in range(values.shape[0]):
            c = self.add(gc[:, r], shared=True)
            rows.append([self.add(gs[:, r]), c, c])
        self.scheme(name, rows, MEAN_WEIGHTS, np.nan, values, sign)

    def build(self, runs, units, empty, unit, ranking="aggregate"):
        return Schemes(
            names=self.names, runs=tuple(runs), units=tuple(units),
            unit_images=np.bincount(self.codes, minlength=self.n_units),
            x=np.ascontiguousarray(np.stack(self.columns, axis=1)),
            cols=np.array(self.cols, dtype=np.int64), numerator=np.array(self.num, dtype=np.float64),
            denominator=np.array(self.den, dtype=np.float64), empty_values=np.array(self.empty, dtype=np.float64),
            empty=empty, per_case=np.stack(self.per_case), unit=unit, codes=self.codes, ranking=ranking,
            signs=np.array(self.signs) if any(s < 0 for s in self.signs) else None,
        )


def _unit_codes(ids, unit_of=None):
    """Integer unit of every case (first-seen order) and the unit names."""
    keys = ids if unit_of is None else unit_of
    first: dict = {}
    codes = np.array([first.setdefault(u, len(first)) for u in keys], dtype=np.intp)
    return codes, tuple(str(u) for u in first)


def _unit_builder(overlap, unit):
    """A :class:`_Builder` over the resampling units of ``overlap``'s images, the units, and the unit's name.

    With 'encounter' an encounter's images stay together; where every encounter is one image (the per-rater
    layout), the unit is the image, and says so.
    """
    if unit not in ("image", "encounter"):
        raise ValueError(f"unit must be 'image' or 'encounter', got {unit!r}")
    if unit == "encounter" and len(set(overlap.encounters)) == len(overlap.images):
        unit = "image"
    codes, units = (_unit_codes(overlap.images) if unit == "image" else
                    _unit_codes(overlap.images, overlap.encounters))
    return _Builder(codes, len(units)), units, unit


def schemes_from_counts(overlap: OverlapCounts, *, unit: str = "image", empty: str | EmptyPolicy = "one",
                        strategies: list[str] | None = None, metrics: list | None = None,
                        averages: tuple = ("micro", "macro"), annotators: list[str] | None = None,
                        extra: Iterable[tuple] = ()) -> Schemes:
    """Build :class:`Schemes` from :class:`~robustness.overlap.OverlapCounts`.

    Parameters
    ----------
    overlap : OverlapCounts
    unit : {'image', 'encounter'}
        The resampling unit; with 'encounter' an encounter's images stay together. Where every encounter holds
        one image, 'encounter' is 'image' (the units are the images, and are named so).
    empty : str or EmptyPolicy
        Both-empty policy (see :mod:`robustness.overlap.metrics`). Under 'ignore' such
        images are left out of macro sums and counts.
    strategies : list of str, optional
        Gold strategies with counts (default: all of ``overlap``).
    metrics : list of str, optional
        Metrics of the metric table (default: all of it).
    averages : tuple of {'micro', 'macro'}
        The averagings to build.
    annotators : list of str, optional
        Macro-only strategies over annotators to add (default: the registry's
        default ones, ``mean`` and ``max``).
    extra : iterable of ((strategy, metric, 'macro'), values, lower_better)
        More macro schemes from per-image values (R, N) of ``overlap``'s runs and images, e.g. a boundary
        metric's (nan as in :func:`schemes_from_values`), after the others.

    Returns
    -------
    Schemes
        A metric where smaller is better is stored negated, with sign -1 (:attr:`Schemes.signs`).
    """
    b, units, unit = _unit_builder(overlap, unit)
    policy = empty_policy(empty)
    metrics = [get_metric(m) for m in (METRICS if metrics is None else metrics)]
    strategies = list(strategies or overlap.strategies)
    over = annotator_strategies(annotators)
    n_sys = len(overlap.runs)

    micro_cols = {}
    if "micro" in averages:
        for strat in strategies:
            c = overlap.strategy_counts(strat).astype(np.float64)  # (R, N, 3)
            g = b.group(np.moveaxis(c, 1, 0))  # (U, R, 3)
            micro_cols[strat] = [[b.add(g[:, r, k]) for k in range(3)] for r in range(n_sys)]
    for metric in metrics:
        sign = -1.0 if metric.lower_better else 1.0  # stored higher-is-better
        num, den = metric.weights()
        for strat in strategies:
            if "micro" in averages:
                b.scheme((strat, metric.name, "micro"), micro_cols[strat], (sign * num, den), sign * policy.value,
                         np.full((n_sys, overlap.n_images), np.nan), sign)
            if "macro" in averages:
                v = per_image(overlap.strategy_counts(strat), metric, empty=policy)
                b.macro((strat, metric.name, "macro"), v, policy, sign)
        if "macro" in averages:
            for a in over:
                assert a.how is not None  # a strategy over annotators says how it combines them
                v = over_annotators(overlap.annotator_counts, overlap.annotator_valid, metric, how=a.how,
                                    empty=policy)
                b.macro((a.name, metric.name, "macro"), v, policy, sign)
    for name, values, lower in extra:
        b.macro(tuple(name), np.asarray(values, dtype=np.float64), policy, -1.0 if lower else 1.0)
    return b.build(overlap.runs, units, policy, unit)


def schemes_from_values(values: np.ndarray, names: list, overlap: OverlapCounts, *, unit: str = "image",
                        empty: str | EmptyPolicy = "one") -> Schemes:
    """Macro :class:`Schemes` from per-image values of the runs (e.g. boundary metrics), higher is better.

    Parameters
    ----------
    values : ndarray (S, R, N)
        Every run's value on every image of ``overlap`` per scheme (negate a lower-is-better metric); nan where
        the both-empty policy leaves a pair out (``ignore``) or makes the mean nan (``official``).
    names : list of (strategy, metric, average)
        One per scheme (``average`` is ``macro``).
    overlap : OverlapCounts
        For the images, encounters and runs.
    unit : {'image', 'encounter'}
        The resampling unit, as in :func:`schemes_from_counts`.
    empty : str or EmptyPolicy

    Returns
    -------
    Schemes
    """
    b, units, unit = _unit_builder(overlap, unit)
    policy = empty_policy(empty)
    for name, v in zip(names, values):
        b.macro(tuple(name), np.asarray(v, dtype=np.float64), policy)
    return b.build(overlap.runs, units, policy, unit)


def per_case_frames(schemes: Schemes, overlap: OverlapCounts) -> Iterator[pd.DataFrame]:
    """The per-image scores of every macro scheme as challengeR-style long frames, one scheme at a time.

    Parameters
    ----------
    schemes : Schemes
        Built from ``overlap``.
    overlap : OverlapCounts
        For the image and encounter ids.

    Yields
    ------
    pandas.DataFrame
        ``case, algorithm, value, strategy, metric, encounter``.
    """
    n_img = overlap.n_images
    cases = np.tile(np.asarray(overlap.images, dtype=object), len(schemes.runs))
    algorithms = np.repeat(np.asarray(schemes.runs, dtype=object), n_img)
    encounters = np.tile(np.asarray(overlap.encounters, dtype=object), len(schemes.runs))
    signs = schemes.sign_of
    per_case = schemes.per_case
    assert per_case is not None  # schemes from counts hold every macro scheme's per-image scores
    for k, (strat, metric, average) in enumerate(schemes.names):
        if average == "macro":  # a metric stored negated is given with its own sign
            values = per_case[k].reshape(-1) * signs[k] if signs[k] < 0 else per_case[k].reshape(-1)
            yield pd.DataFrame({"case": cases, "algorithm": algorithms, "value": values,
                                "strategy": strat, "metric": metric, "encounter": encounters})


def per_case_table(overlap: OverlapCounts, *, empty: str | EmptyPolicy = "one",
                   metrics: list | None = None) -> pd.DataFrame:
    """Per-image scores as a challengeR-style long table (:func:`per_case_frames` of every macro scheme).

    Parameters
    ----------
    overlap : OverlapCounts
    empty : str or EmptyPolicy
    metrics : list of str, optional

    Returns
    -------
    pandas.DataFrame
        ``case, algorithm, value, strategy, metric, encounter``; one row per image, run, strategy (plus
        ``mean``/``max`` over annotators) and metric.
    """
    s = schemes_from_counts(overlap, empty=empty, metrics=metrics, averages=("macro",))
    return pd.concat(list(per_case_frames(s, overlap)), ignore_index=True)


def schemes_from_table(table: pd.DataFrame, *, case_column: str = "case", run_column: str = "algorithm",
                       value_column: str = "value", by: tuple = ("strategy", "metric"), unit_column: str | None = None,
                       unit_name: str | None = None) -> Schemes:
    """Build macro :class:`Schemes` from a long per-case table (e.g. challengeR's input).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per case and run (and ``by`` columns) with a score (higher is better), in challengeR's long
        format. Every run must have a value for every case.
    case_column, run_column, value_column : str
        The columns holding the case, the run (challengeR's ``algorithm``) and the score.
    by : tuple of str
        Columns that name a scheme (missing columns are ignored). A ``task`` column among them names the scheme's
        strategy (``task`` or ``task/strategy``); tasks must then share their cases (otherwise rank them apart:
        :mod:`robustness.statistics.case_rankings`).
    unit_column : str, optional
        A column grouping cases into resampling units (e.g. ``encounter``);
        default: every case is a unit.
    unit_name : str, optional
        What a unit is, for reports (default: ``unit_column``, or ``case``).

    Returns
    -------
    Schemes
        One macro scheme per value of the ``by`` columns.
    """
    case, run, value = case_column, run_column, value_column
    for c in (case, run, value):
        if c not in table:
            raise InputError(f"per-case table has no column {c!r} (columns: {', '.join(map(str, table.columns))})")
    columns = [b for b in by if b in table]
    keys = [case, run, *columns]
    repeated = table.duplicated(keys, keep=False)
    if repeated.any():
        r = table[repeated].iloc[0]
        other = [c for c in ("task", "strategy", "metric") if c in table and c not in columns]
        hint = f": is {other[0]!r} a column that names schemes? pass it in by" if other else ""
        n_rows = int(((table[keys] == r[keys]).all(axis=1)).sum())
        raise InputError(f"per-case table: algorithm {r[run]!r}, case {r[case]!r} has {n_rows} rows"
                         f"{' for one ' + '/'.join(columns) if columns else ''}{hint}")
    groups = table.groupby(columns, sort=False) if columns else [((), table)]
    runs = tuple(sorted(table[run].unique()))
    cases = tuple(sorted(table[case].unique()))
    unit_of = None if unit_column is None else \
        table.drop_duplicates(case).set_index(case)[unit_column].reindex(cases)
    codes, units = _unit_codes(cases, unit_of)
    b = _Builder(codes, len(units))
    policy = empty_policy("one")
    for key, df in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = df.pivot_table(index=run, columns=case, values=value, aggfunc="first")
        wide = wide.reindex(index=runs, columns=cases)
        if wide.isna().any().any():
            r, c = np.argwhere(wide.isna().to_numpy())[0]
            raise InputError(f"per-case table: no value for algorithm {runs[r]!r}, case {cases[c]!r} "
                             f"(scheme {key})")
        label = dict(zip(columns, key))
        strategy = "/".join(str(label[c]) for c in ("task", "strategy") if c in label) or "table"
        name = (strategy, str(label.get("metric", value)), "macro")
        b.macro(name, wide.to_numpy(dtype=np.float64), policy)
    return b.build(runs, units, policy, unit_name or unit_column or "case")


def rank_then_aggregate(schemes: Schemes, *, ties: str = "average") -> Schemes:
    """The macro schemes of ``schemes`` with per-case ranks in place of per-case scores.

    On every case (image, or the case of a per-case table) the runs are ranked
    by their score (1 = best; scores within 1e-12 tie and get the rank of the
    tie rule ``ties``, average by default, :func:`robustness.statistics.ranks.rank`);
    a run without a score on a case (nan) is left out of that case's ranking and its rank there is nan, which the
    empty-pair policy then treats as it treats a nan score (left out of the
    mean, or propagated under ``official``). Each per-case value is **minus**
    the rank, so that the scheme's mean is minus the mean rank and every engine
    ranks it "higher is better": ranking these schemes is ranking the runs by
    mean rank, lower first. Ranks add up, so prefixes and resamples stay
    running sums. Micro schemes have no per-case scores and are dropped.

    Parameters
    ----------
    schemes : Schemes
    ties : {'average', 'min', 'max', 'first'}
        The per-case tie rule.

    Returns
    -------
    Schemes
        The macro schemes, ``ranking="rank-then-aggregate"``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"case": ["c1", "c1", "c2", "c2"], "algorithm": ["a", "b", "a", "b"],
    ...                   "value": [0.9, 0.1, 0.4, 0.5]})
    >>> (-rank_then_aggregate(schemes_from_table(t)).scores()).tolist()  # mean ranks of a and b
    [[1.5, 1.5]]
    """
    macro = [s for s in range(len(schemes.names)) if schemes.is_macro(s)]
    if not macro:
        raise ValueError("rank-then-aggregate ranks per-case scores: it exists for macro schemes only")
    codes = schemes.codes
    per_case = schemes.per_case
    if per_case is None:
        raise ValueError("these schemes carry no per-case scores")
    if codes is None:
        codes = np.arange(schemes.n_units) if per_case.shape[2] == schemes.n_units else None
    if codes is None:
        raise ValueError("these schemes do not say which unit each case belongs to (Schemes.codes)")
    b = _Builder(codes, schemes.n_units)
    for s in macro:
        v = per_case[s]  # (R, N)
        ranks = rank(v.T, ties=ties).T  # nan scores rank last: the others' ranks are their ranks among the scored runs
        b.macro(schemes.names[s], np.where(np.isnan(v), np.nan, -ranks), schemes.empty)
    return b.build(schemes.runs, schemes.units, schemes.empty, schemes.unit, ranking="rank-then-aggregate")
