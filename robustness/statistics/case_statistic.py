"""Any statistic of the per-case scores as something the resampling engines can rank.

Rank-then-aggregate and the aggregate are running sums, paired tests have their
own kernels; a statistic that is neither (a median, a trimmed mean, a quantile)
can still go through every engine: :class:`CaseStatistic` recomputes it from the
per-case scores with a weight per case (how often its unit is in the prefix or
the resample), in plain numpy. It is slower than the kernels (one statistic per
recorded prefix and resample) but needs nothing beyond the statistic itself,
which is what makes a new ranking method one registration
(:func:`robustness.statistics.ranking_methods.register_ranking`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from robustness import _kernels
from robustness.statistics.schemes import Schemes, SchemesView

__all__ = ["CaseStatistic"]


@dataclass(frozen=True, eq=False)
class CaseStatistic(SchemesView):
    """A per-case statistic of the runs under every macro scheme, ready to recompute on any weighting of units.

    Attributes
    ----------
    schemes : Schemes
        The macro schemes (their ``per_case`` scores and ``codes``, the unit of each case).
    statistic : callable
        ``statistic(values, weights) -> (R,)``: ``values`` (R, N) per-case scores (nan: no score),
        ``weights`` (N,) non-negative case weights (whole numbers: how often the case's unit was drawn);
        higher is better.
    ranking : str
        The ranking method's name.
    """

    schemes: Schemes
    statistic: Callable
    ranking: str

    @classmethod
    def from_schemes(cls, schemes: Schemes, statistic: Callable, *, ranking: str) -> CaseStatistic:
        """The macro schemes of ``schemes`` under ``statistic``.

        Parameters
        ----------
        schemes : Schemes
        statistic : callable
            See the class notes.
        ranking : str
            The ranking method's name.

        Returns
        -------
        CaseStatistic

        Examples
        --------
        >>> import pandas as pd
        >>> from robustness.statistics.schemes import schemes_from_table
        >>> t = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "algorithm": list("ababab"),
        ...                   "value": [0.9, 0.1, 0.2, 0.5, 0.8, 0.6]})
        >>> best_case = lambda v, w: np.where(w > 0, v, -np.inf).max(axis=1)
        >>> CaseStatistic.from_schemes(schemes_from_table(t), best_case, ranking="best-case").scores().tolist()
        [[0.9, 0.6]]
        """
        macro = [s for s in range(len(schemes.names)) if schemes.is_macro(s)]
        if not macro:
            raise ValueError(f"{ranking} ranks per-case scores: it exists for macro schemes only")
        if schemes.codes is None:
            raise ValueError("these schemes do not say which unit each case belongs to (Schemes.codes)")
        return cls(schemes.select(macro), statistic, ranking)

    # -- what the resampling engines call --
    def scores(self, weights: np.ndarray | None = None) -> np.ndarray:
        """The statistic (S, R) on the whole test set, or on the units weighted by ``weights`` (U,)."""
        w = np.ones(self.n_units) if weights is None else np.asarray(weights, dtype=np.float64)
        cases = w[self.schemes.codes]
        return np.stack([np.asarray(self.statistic(v, cases), dtype=np.float64) for v in self.schemes.per_case])

    def l1_curves(self, orders: np.ndarray, positions: np.ndarray, final_ranks: np.ndarray, tol: float,
                  ties: int) -> np.ndarray:
        """L1 to ``final_ranks`` after the recorded prefixes of every order (S, K, P), the statistic recomputed."""
        out = np.empty((len(self.names), orders.shape[0], positions.size), dtype=np.float32)
        for k, order in enumerate(orders):
            w = np.zeros(self.n_units)
            start = 0
            for p, n in enumerate(positions):
                w[order[start:n]] = 1.0
                start = n
                ranks = _kernels.rank_rows(np.ascontiguousarray(self.scores(w)), tol, ties)
                out[:, k, p] = np.abs(ranks - final_ranks).sum(axis=1)
        return out

    def resample_scores(self, idx: np.ndarray) -> np.ndarray:
        """The statistic (S, B, R) on the resamples ``idx`` (B, U) of units drawn with replacement."""
        idx = np.asarray(idx)
        counts = [np.bincount(row, minlength=self.n_units).astype(np.float64) for row in idx]
        return np.stack([self.scores(w) for w in counts], axis=1)

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out statistics (S, R, U)."""
        out = np.empty((len(self.names), len(self.runs), self.n_units))
        w = np.ones(self.n_units)
        for j in range(self.n_units):
            w[j] = 0.0
            out[:, :, j] = self.scores(w)
            w[j] = 1.0
        return out
