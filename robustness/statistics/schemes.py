"""Per-unit statistics: every leaderboard score as a ratio of sums over test units.

Every leaderboard number is a ratio of sums over test units (images or
encounters): micro scores sum TP, FP and FN and apply the metric's weights
(:data:`robustness.overlap.metrics.METRICS`); macro scores sum per-image scores and
divide by the number of images. :class:`Schemes` holds those per-unit additive
statistics for every scoring scheme (gold strategy x metric x averaging), so
that a prefix of a random order is a running sum (:mod:`robustness.statistics.convergence`)
and a bootstrap resample is a sum over drawn units (:mod:`robustness.statistics.bootstrap`).
Per-case tables, schemes from any pipeline's table and rank-then-aggregate are
:mod:`robustness.statistics.table_schemes`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness.overlap.metrics import EmptyPolicy, empty_policy

__all__ = ["Schemes", "SchemesView", "SchemeBuilder", "unit_codes", "MEAN_WEIGHTS"]

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
        return _kernels.scores_from_sums(np.ascontiguousarray(sums, dtype=np.float64), self.weights)

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
        return _kernels.l1_curves(self.x, self.weights, orders, positions, final_ranks, tol, ties)

    def resample_scores(self, idx: np.ndarray) -> np.ndarray:
        """Scores on resamples of units drawn with replacement, (S, B, R) (:meth:`Rankable.resample_scores`)."""
        sums = _kernels.resample_sums(self.x, idx)
        out = np.empty((len(self.names), idx.shape[0], len(self.runs)))
        for b in range(idx.shape[0]):
            out[:, b] = _kernels.scores_from_sums(sums[b], self.weights)
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


class SchemeBuilder:
    """Collects unit columns and scheme rows (shared count columns are stored once) into :class:`Schemes`.

    Parameters
    ----------
    codes : ndarray of int
        The unit of every case (:func:`unit_codes`).
    n_units : int
    """

    def __init__(self, codes: np.ndarray, n_units: int) -> None:
        self.codes, self.n_units = codes, n_units
        self.columns: list[np.ndarray] = []
        self.names: list[tuple] = []
        self.cols: list[list] = []
        self.num: list[np.ndarray] = []
        self.den: list[np.ndarray] = []
        self.empty: list[float] = []
        self.per_case: list[np.ndarray] = []
        self.signs: list[float] = []
        self._shared: dict[bytes, int] = {}

    def group(self, values: np.ndarray) -> np.ndarray:
        """Sum the rows of ``values`` into the units.

        Parameters
        ----------
        values : ndarray (N, ...)
            One row per case.

        Returns
        -------
        ndarray (n_units, ...)
        """
        out = np.zeros((self.n_units,) + values.shape[1:], dtype=np.float64)
        np.add.at(out, self.codes, values)
        return out

    def add(self, col: np.ndarray, *, shared: bool = False) -> int:
        """Store a unit column; return its position.

        Parameters
        ----------
        col : ndarray (n_units,)
        shared : bool
            Store an identical column once (the counts every run of a macro scheme shares).

        Returns
        -------
        int
        """
        if shared:
            key = col.tobytes()
            if key not in self._shared:
                self._shared[key] = self.add(col)
            return self._shared[key]
        self.columns.append(col)
        return len(self.columns) - 1

    def scheme(self, name: tuple, cols: list, weights: tuple, empty_value: float, per_case: np.ndarray,
               sign: float = 1.0) -> None:
        """Add a scheme: its name, each run's column positions, the metric's weights, and its per-case scores.

        Parameters
        ----------
        name : tuple
            (strategy, metric, average).
        cols : list
            Per run, the positions of its unit columns (:meth:`add`).
        weights : (ndarray, ndarray)
            The numerator's and denominator's weights over the columns.
        empty_value : float
            The score of a run whose denominator is zero.
        per_case : ndarray (R, N)
        sign : float
            -1 where the stored scores are negated (smaller is better).
        """
        self.signs.append(float(sign))
        self.names.append(name)
        self.cols.append(cols)
        self.num.append(weights[0])
        self.den.append(weights[1])
        self.empty.append(empty_value)
        self.per_case.append(per_case)

    def macro(self, name: tuple, values: np.ndarray, policy: EmptyPolicy, sign: float = 1.0) -> None:
        """A macro scheme from per-case scores, stored times ``sign`` (nan: left out or kept, by ``policy``).

        Parameters
        ----------
        name : tuple
        values : ndarray (R, N)
        policy : EmptyPolicy
        sign : float
        """
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

    def build(self, runs: Iterable[str], units: Iterable[str], empty: EmptyPolicy, unit: str,
              ranking: str = "aggregate") -> Schemes:
        """The :class:`Schemes` collected.

        Parameters
        ----------
        runs, units : iterable of str
        empty : EmptyPolicy
        unit : str
        ranking : str

        Returns
        -------
        Schemes
        """
        return Schemes(
            names=self.names, runs=tuple(runs), units=tuple(units),
            unit_images=np.bincount(self.codes, minlength=self.n_units),
            x=np.ascontiguousarray(np.stack(self.columns, axis=1)),
            cols=np.array(self.cols, dtype=np.int64), numerator=np.array(self.num, dtype=np.float64),
            denominator=np.array(self.den, dtype=np.float64), empty_values=np.array(self.empty, dtype=np.float64),
            empty=empty, per_case=np.stack(self.per_case), unit=unit, codes=self.codes, ranking=ranking,
            signs=np.array(self.signs) if any(s < 0 for s in self.signs) else None,
        )


def unit_codes(ids: Iterable, unit_of: Iterable | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    """Integer unit of every case (first-seen order) and the unit names.

    Parameters
    ----------
    ids : iterable
        The cases.
    unit_of : iterable, optional
        Each case's unit (default: the case is its unit).

    Returns
    -------
    (ndarray of int, tuple of str)
    """
    keys = ids if unit_of is None else unit_of
    first: dict = {}
    codes = np.array([first.setdefault(u, len(first)) for u in keys], dtype=np.intp)
    return codes, tuple(str(u) for u in first)
