"""The options of the distance to unlimited data (:func:`robustness.statistics.uncertainty.ranking_uncertainty`).

Its margin, the runs' groups of its prior, the tie rule of the observed ranking, its interval's confidence and
how many draws it takes: the calls that change them pass one :class:`UncertaintyOptions` (the sizes, the outer
resamples, the workers and the seed stay keywords).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from robustness.statistics.ranks import TIE_TOL

__all__ = ["UncertaintyDraws", "UncertaintyOptions"]


@dataclass(frozen=True)
class UncertaintyDraws:
    """How many populations and noise vectors the estimate and each outer resample draw.

    The estimate on the test set averages ``draws x noise`` rankings per size and scheme; each outer resample,
    whose only use is the spread of the estimate, ``outer_draws x outer_noise``; the plug-in stability indices
    ``plugin_noise`` test sets drawn around the observed scores.
    """

    draws: int = 200
    noise: int = 50
    outer_draws: int = 10
    outer_noise: int = 10
    plugin_noise: int = 1000


@dataclass(frozen=True)
class UncertaintyOptions:
    """The choices of :func:`~robustness.statistics.uncertainty.ranking_uncertainty` beyond its sizes and resamples.

    Attributes
    ----------
    margin : float
        Runs whose population scores differ by at most this count as tied (either order is right); 0 (the
        default) ties equal scores only.
    groups : {'auto', 'none'} or mapping
        The runs' groups (teams) of the prior (:func:`robustness.statistics.population.run_groups`).
    ties, tol
        The tie rule and tolerance of the observed ranking in ``per_run``
        (:func:`robustness.statistics.ranks.rank`).
    confidence : float
        Of the interval of the expected L1.
    draws : UncertaintyDraws
        Populations and noise vectors per estimate.
    """

    margin: float = 0.0
    groups: str | Mapping[str, str] = "auto"
    ties: str = "average"
    tol: float = TIE_TOL
    confidence: float = 0.95
    draws: UncertaintyDraws = field(default_factory=UncertaintyDraws)
