"""Test-based ranking: every run scored by the number of runs it beats significantly in paired tests.

For every macro scheme and every ordered pair of runs ``(i, j)``: a one-sided
Wilcoxon signed-rank test of "i scores higher than j" on the per-unit scores
(:meth:`robustness.statistics.schemes.Schemes.unit_scores`: the mean per-image score of each
resampling unit, so encounter-level scores when the unit is the encounter,
the cluster-aware choice of the package's significance analysis); the
``R (R - 1)`` p-values of a scheme adjusted together by Holm's step-down
method (``adjustment="none"`` leaves them as they are, challengeR's default);
run ``i`` beats ``j`` when its adjusted p-value is below ``alpha`` (5%). A
run's statistic is the number of runs it beats; runs are ranked by it (ties:
average rank). Units where either run has no score (nan) are left out of that
pair's test; differences within 1e-12 count as zero (the package's tie rule)
and zero differences are dropped (Wilcoxon's method). The test is scipy's
``wilcoxon(method="asymptotic")``: normal approximation with tie correction,
no continuity correction (accurate for tens of units and more; approximate
below about 20).

:class:`PairedTests` sorts each pair's units by ``|d|`` once; a set of units
(a prefix of a random order, a bootstrap resample, the whole test set) is then
a weight per unit and every test one pass over the sorted units
(:mod:`robustness._kernels.signed_rank`). It answers the same calls as
:class:`~robustness.statistics.schemes.Schemes` (``scores``, ``l1_curves``,
``resample_scores``, ``jackknife``), so :func:`~robustness.statistics.convergence.rank_convergence`
and :func:`~robustness.statistics.bootstrap.bootstrap` run it unchanged. Unlike per-case
ranks, tests do not add up: each recorded prefix reruns every test, which is
why the studies record every ``--test-step``-th prefix only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtr

from robustness import _kernels
from robustness.statistics.case_statistic import recomputed_jackknife, recomputed_l1_curves, recomputed_resamples
from robustness.statistics.multiplicity import adjust
from robustness.statistics.paired import wins
from robustness.statistics.ranking_options import ADJUSTMENTS
from robustness.statistics.ranks import TIE_TOL
from robustness.statistics.schemes import Schemes, SchemesView

__all__ = ["PairedTests", "KERNEL_ADJUSTMENTS"]

#: The adjustments the runs-beaten kernels apply themselves; any other adjustment of
#: :data:`robustness.statistics.ranking_options.ADJUSTMENTS` takes the signed-rank kernel's z of every pair and
#: adjusts in numpy (:func:`robustness.statistics.multiplicity.adjust`), one weighting at a time.
KERNEL_ADJUSTMENTS = ("holm", "none")


@dataclass(frozen=True, eq=False)
class PairedTests(SchemesView):
    """Paired one-sided Wilcoxon tests between every pair of runs of every macro scheme, for any set of units.

    Attributes
    ----------
    schemes : Schemes
        The macro schemes tested (names, runs, units).
    order : int32 (S, P, U)
        For scheme ``s`` and pair ``p``, the units with a nonzero difference,
        sorted by ``|d|`` (the first ``length[s, p]`` entries).
    positive : float64 (S, P, U)
        1.0 where ``d > 0``, else 0.0 (a number, so that the kernel multiplies instead of branching).
    new_group : bool (S, P, U)
        ``|d|`` differs from the previous entry's.
    length : int64 (S, P)
    pair_i, pair_j : int64 (P,)
        The pairs ``i < j``.
    alpha : float
    adjustment : str
        Any of :data:`robustness.statistics.ranking_options.ADJUSTMENTS`.
    """

    schemes: Schemes
    order: np.ndarray
    positive: np.ndarray
    new_group: np.ndarray
    length: np.ndarray
    pair_i: np.ndarray
    pair_j: np.ndarray
    alpha: float = 0.05
    adjustment: str = "holm"
    ranking = "test-based"

    @classmethod
    def from_schemes(cls, schemes: Schemes, *, alpha: float = 0.05, adjustment: str = "holm") -> PairedTests:
        """Tests between the runs of the macro schemes of ``schemes``, on its unit.

        Parameters
        ----------
        schemes : Schemes
            Its macro schemes are tested, on its resampling unit.
        alpha : float
            Family-wise error (Holm), false discovery rate (``fdr_*``) or the level of each test
            (``adjustment='none'``).
        adjustment : str
            Any of :data:`robustness.statistics.ranking_options.ADJUSTMENTS`.

        Returns
        -------
        PairedTests

        Examples
        --------
        >>> import pandas as pd
        >>> from robustness.statistics.table_schemes import schemes_from_table
        >>> v = {"a": [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.9, 0.7, 0.8, 0.9], "b": [0.5] * 10}
        >>> t = pd.DataFrame([{"case": k, "algorithm": a, "value": x} for a in v for k, x in enumerate(v[a])])
        >>> PairedTests.from_schemes(schemes_from_table(t)).scores().tolist()  # a beats b on 10 cases of 10
        [[1.0, 0.0]]
        """
        if not 0 < alpha < 0.5:
            raise ValueError(f"alpha must lie in (0, 0.5), got {alpha}: at 0.5 or more a one-sided test finds "
                             "each run of a tied pair better than the other")
        if adjustment not in ADJUSTMENTS:
            raise ValueError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}, got {adjustment!r}")
        macro = [s for s in range(len(schemes.names)) if schemes.is_macro(s)]
        if not macro:
            raise ValueError("test-based ranking tests per-case scores: it exists for macro schemes only")
        schemes = schemes.select(macro)
        per_unit = schemes.unit_scores()  # (S, R, U)
        n_s, n_r, n_u = per_unit.shape
        pair_i, pair_j = np.triu_indices(n_r, k=1)
        d = per_unit[:, pair_i] - per_unit[:, pair_j]  # (S, P, U)
        d = np.where(np.abs(d) <= TIE_TOL, 0.0, d)
        valid = ~np.isnan(d) & (d != 0)
        key = np.where(valid, np.abs(d), np.inf)
        order = np.argsort(key, axis=-1, kind="stable")
        sorted_key = np.take_along_axis(key, order, axis=-1)
        new_group = np.ones_like(valid)
        new_group[..., 1:] = sorted_key[..., 1:] != sorted_key[..., :-1]
        return cls(schemes=schemes, order=order.astype(np.int32),
                   positive=np.take_along_axis(d > 0, order, axis=-1).astype(np.float64), new_group=new_group,
                   length=valid.sum(axis=-1).astype(np.int64), pair_i=pair_i.astype(np.int64),
                   pair_j=pair_j.astype(np.int64), alpha=float(alpha), adjustment=adjustment)

    # -- what the resampling engines call --

    def _tests(self) -> tuple[Any, ...]:
        """The kernels' ``tests`` tuple (:mod:`robustness._kernels.signed_rank`)."""
        return (self.order, self.positive, self.new_group, self.length, self.pair_i, self.pair_j,
                len(self.runs), self.alpha, self.adjustment == "holm")

    def scores(self, weights: ArrayLike | None = None) -> np.ndarray:
        """Runs beaten significantly (S, R), on the whole test set or on the units weighted by ``weights`` (U,)."""
        w = np.ones(self.n_units) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        if self.adjustment in KERNEL_ADJUSTMENTS:
            return _kernels.runs_beaten(w, self._tests())

        z = self.z(w)
        n_r = len(self.runs)
        out = np.zeros((z.shape[0], n_r))
        for s in range(z.shape[0]):
            p = np.full((n_r, n_r), np.nan)
            p[self.pair_i, self.pair_j], p[self.pair_j, self.pair_i] = ndtr(-z[s]), ndtr(z[s])
            out[s] = wins(p, self.adjustment, self.alpha)  # the leaderboard's rule
        return out

    def z(self, weights: ArrayLike | None = None) -> np.ndarray:
        """The signed-rank z of every scheme and pair.

        Parameters
        ----------
        weights : array_like (U,), optional
            How often each unit counts (default: once: the whole test set).

        Returns
        -------
        ndarray (S, P)
            Positive: ``pair_i`` scores higher.
        """
        w = np.ones(self.n_units) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        return _kernels.signed_rank_z(w, self.order, self.positive, self.new_group, self.length)

    def l1_curves(self, orders: np.ndarray, positions: np.ndarray, final_ranks: np.ndarray, tol: float,
                  ties: int) -> np.ndarray:
        """L1 rank change to ``final_ranks`` after the recorded prefixes (every test rerun per prefix)."""
        if self.adjustment not in KERNEL_ADJUSTMENTS:
            return recomputed_l1_curves(self.scores, self.n_units, orders, positions, final_ranks, tol, ties)
        return _kernels.beaten_l1_curves(self._tests(), orders, positions, final_ranks, tol, ties)

    def resample_scores(self, idx: np.ndarray) -> np.ndarray:
        """Runs beaten (S, B, R) on the resamples ``idx`` (B, n) of units drawn with replacement."""
        if self.adjustment not in KERNEL_ADJUSTMENTS:
            return recomputed_resamples(self.scores, self.n_units, idx)
        return _kernels.beaten_resamples(self._tests(), np.ascontiguousarray(idx, dtype=np.int64))

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out runs beaten (S, R, U)."""
        return recomputed_jackknife(self.scores, self.n_units, len(self.names), len(self.runs))

    def tests_frame(self) -> pd.DataFrame:
        """Every ordered pair's test on the whole test set.

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, run, other, z, p, p_adjusted, beats, unit, adjustment`` (``p``:
            one-sided, unadjusted; ``beats``: significant after the adjustment).
        """
        z = self.z()
        runs = np.asarray(self.runs, dtype=object)
        frames = []
        for s, (strat, metric, average) in enumerate(self.names):
            zz = np.concatenate([z[s], -z[s]])
            winner = np.concatenate([self.pair_i, self.pair_j])
            loser = np.concatenate([self.pair_j, self.pair_i])
            p = ndtr(-zz)
            adjusted = adjust(p, self.adjustment, alpha=self.alpha)
            frames.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average,
                                        "run": runs[winner], "other": runs[loser], "z": zz, "p": p,
                                        "p_adjusted": adjusted, "beats": adjusted < self.alpha,
                                        "unit": self.unit, "adjustment": self.adjustment}))
        return pd.concat(frames, ignore_index=True)
