"""Any ranking method's statistic of the per-case scores as something the resampling engines can rank.

Rank-then-aggregate and the mean aggregate are running sums, paired tests under Holm have their own kernel; any
other statistic or option (a median, a quantile, a t-test, another adjustment, a new method) still goes through
every engine: :class:`CaseStatistic` recomputes the method's ``case_statistic``
(:class:`robustness.statistics.ranking_methods.RankingMethod`) from the per-case scores with a weight per case
(how often its unit is in the prefix or the resample), in plain numpy. It is slower than the kernels (one
statistic per recorded prefix and resample) but needs nothing beyond the statistic itself, which is what makes
a new ranking method one registration (:func:`robustness.statistics.ranking_methods.register_ranking`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from robustness import _kernels
from robustness.statistics.ranking_options import RankingOptions
from robustness.statistics.schemes import Schemes, SchemesView

__all__ = ["CaseStatistic", "recomputed_l1_curves", "recomputed_resamples", "recomputed_jackknife"]


#: A statistic of units weighted (U,) -> (S, R).
UnitScores = Callable[[np.ndarray], np.ndarray]


def recomputed_l1_curves(scores: UnitScores, n_units: int, orders: np.ndarray, positions: np.ndarray,
                         final_ranks: np.ndarray, tol: float, ties: int) -> np.ndarray:
    """L1 to ``final_ranks`` after the recorded prefixes of every order (S, K, P), ``scores(w)`` recomputed.

    Parameters
    ----------
    scores : callable
        ``scores(weights (U,)) -> (S, R)``: a statistic on units weighted 0/1 (the prefix).
    n_units : int
    orders, positions, final_ranks, tol, ties
        As :meth:`robustness.statistics.rankable.Rankable.l1_curves`.

    Returns
    -------
    ndarray of float32 (S, K, P)
    """
    out = np.empty((final_ranks.shape[0], orders.shape[0], positions.size), dtype=np.float32)
    for k, order in enumerate(orders):
        w = np.zeros(n_units)
        start = 0
        for p, n in enumerate(positions):
            w[order[start:n]] = 1.0
            start = n
            ranks = _kernels.rank_rows(np.ascontiguousarray(scores(w)), tol, ties)
            out[:, k, p] = np.abs(ranks - final_ranks).sum(axis=1)
    return out


def recomputed_resamples(scores: UnitScores, n_units: int, idx: np.ndarray) -> np.ndarray:
    """The statistic (S, B, R) on the resamples ``idx`` (B, U) of units drawn with replacement.

    Parameters
    ----------
    scores : callable
        ``scores(weights (U,)) -> (S, R)``, the weights draw counts.
    n_units : int
    idx : ndarray of int (B, U)

    Returns
    -------
    ndarray
    """
    counts = [np.bincount(row, minlength=n_units).astype(np.float64) for row in np.asarray(idx)]
    return np.stack([scores(w) for w in counts], axis=1)


def recomputed_jackknife(scores: UnitScores, n_units: int, n_schemes: int, n_runs: int) -> np.ndarray:
    """Leave-one-unit-out statistics (S, R, U) of ``scores(weights (U,)) -> (S, R)``.

    Parameters
    ----------
    scores : callable
    n_units, n_schemes, n_runs : int

    Returns
    -------
    ndarray
    """
    out = np.empty((n_schemes, n_runs, n_units))
    w = np.ones(n_units)
    for j in range(n_units):
        w[j] = 0.0
        out[:, :, j] = scores(w)
        w[j] = 1.0
    return out


@dataclass(frozen=True, eq=False)
class CaseStatistic(SchemesView):
    """A per-case statistic of the runs under every macro scheme, ready to recompute on any weighting of units.

    Attributes
    ----------
    schemes : Schemes
        The macro schemes (their ``per_case`` scores and ``codes``, the unit of each case).
    statistic : callable
        ``statistic(values, weights, *, options, lower_better, rng) -> (R,)``: ``values`` (R, N) per-case scores
        as given (a scheme stored negated because smaller is better is multiplied back, and ``lower_better`` is
        True for it), ``weights`` (N,) non-negative case weights (whole numbers: how often the case's unit was
        drawn); higher is better (a registered method's ``case_statistic``).
    ranking : str
        The ranking method's name.
    options : RankingOptions
    unit_level : bool
        Give the statistic one score per unit (the mean of its cases) and the units' weights.
    unit_values : ndarray (S, R, U) or None
        Those scores (with ``unit_level``).
    """

    schemes: Schemes
    statistic: Callable
    ranking: str
    options: RankingOptions = RankingOptions()
    unit_level: bool = False
    unit_values: np.ndarray | None = None

    @classmethod
    def from_schemes(cls, schemes: Schemes, statistic: Callable, *, ranking: str,
                     options: RankingOptions = RankingOptions(), unit_level: bool = False) -> CaseStatistic:
        """The macro schemes of ``schemes`` under ``statistic``.

        Parameters
        ----------
        schemes : Schemes
        statistic : callable
            See the class notes.
        ranking : str
            The ranking method's name.
        options : RankingOptions
            Passed to ``statistic``.
        unit_level : bool
            See the class notes.

        Returns
        -------
        CaseStatistic

        Examples
        --------
        >>> import pandas as pd
        >>> from robustness.statistics.table_schemes import schemes_from_table
        >>> t = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "algorithm": list("ababab"),
        ...                   "value": [0.9, 0.1, 0.2, 0.5, 0.8, 0.6]})
        >>> best_case = lambda v, w, **options: np.where(w > 0, v, -np.inf).max(axis=1)
        >>> CaseStatistic.from_schemes(schemes_from_table(t), best_case, ranking="best-case").scores().tolist()
        [[0.9, 0.6]]
        """
        macro = [s for s in range(len(schemes.names)) if schemes.is_macro(s)]
        if not macro:
            raise ValueError(f"{ranking} ranks per-case scores: it exists for macro schemes only")
        if schemes.codes is None:
            raise ValueError("these schemes do not say which unit each case belongs to (Schemes.codes)")
        macro_schemes = schemes.select(macro)
        return cls(macro_schemes, statistic, ranking, options, unit_level,
                   macro_schemes.unit_scores() if unit_level else None)

    # -- what the resampling engines call --
    def scores(self, weights: np.ndarray | None = None) -> np.ndarray:
        """The statistic (S, R) on the whole test set, or on the units weighted by ``weights`` (U,)."""
        w = np.ones(self.n_units) if weights is None else np.asarray(weights, dtype=np.float64)
        values, counts = (self.unit_values, w) if self.unit_level else (self.schemes.per_case, w[self.schemes.codes])
        assert values is not None  # from_schemes keeps macro schemes, which hold per-case scores
        signs = self.schemes.sign_of
        return np.stack([np.asarray(self.statistic(sign * v, counts, options=self.options, lower_better=bool(sign < 0),
                                                   rng=None), dtype=np.float64)
                         for v, sign in zip(values, signs)])

    def unit_scores(self) -> np.ndarray:
        """Every run's score on every unit alone (S, R, U), for the significance analysis's paired tests.

        Returns
        -------
        ndarray
        """
        return self.schemes.unit_scores() if self.unit_values is None else self.unit_values

    def l1_curves(self, orders: np.ndarray, positions: np.ndarray, final_ranks: np.ndarray, tol: float,
                  ties: int) -> np.ndarray:
        """L1 to ``final_ranks`` after the recorded prefixes of every order (S, K, P), the statistic recomputed."""
        return recomputed_l1_curves(self.scores, self.n_units, orders, positions, final_ranks, tol, ties)

    def resample_scores(self, idx: np.ndarray) -> np.ndarray:
        """The statistic (S, B, R) on the resamples ``idx`` (B, U) of units drawn with replacement."""
        return recomputed_resamples(self.scores, self.n_units, idx)

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out statistics (S, R, U)."""
        return recomputed_jackknife(self.scores, self.n_units, len(self.names), len(self.runs))
