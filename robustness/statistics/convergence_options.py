"""The options of a convergence curve (:func:`robustness.statistics.convergence.rank_convergence`).

Which prefixes it records, how its rankings tie and how its orders are batched; the few calls that change them
pass one :class:`ConvergenceOptions` (the number of orders, the workers and the seed stay keywords).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robustness.statistics.ranks import TIE_TOL

__all__ = ["ConvergenceOptions"]


@dataclass(frozen=True)
class ConvergenceOptions:
    """Which prefixes a convergence curve records, how its rankings tie, and how its orders are batched.

    Attributes
    ----------
    step : int
        Record every ``step``-th prefix (the last one always).
    positions : array of int, optional
        Explicit prefix lengths (overrides ``step``;
        :func:`~robustness.statistics.convergence.rank_convergence` only).
    ties : {'average', 'min'}
        Tie rule (see :mod:`robustness.statistics.ranks`).
    tol : float
        Scores this close tie.
    batch_size : int
        Orders per batch; batch ``b`` draws its orders from child ``b`` of ``rng``
        (:func:`~robustness.statistics.convergence.rank_convergence` only).
    """

    step: int = 1
    positions: Any = None
    ties: str = "average"
    tol: float = TIE_TOL
    batch_size: int = 25
