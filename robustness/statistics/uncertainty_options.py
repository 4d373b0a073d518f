"""The options of the distance to unlimited data (:func:`robustness.statistics.uncertainty.ranking_uncertainty`).

Its margin, the runs' groups of its prior, the tie rule of the observed ranking, its interval's confidence and
how many draws it takes: the calls that change them pass one :class:`UncertaintyOptions` (the sizes, the outer
resamples, the workers and the seed stay keywords).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from robustness.errors import deprecated_keywords
from robustness.statistics.ranks import TIE_TOL

__all__ = ["UncertaintyDraws", "UncertaintyOptions", "with_deprecated"]


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


#: The keywords ``ranking_uncertainty`` took before :class:`UncertaintyOptions`.
_OPTION_KEYWORDS = ("margin", "groups", "ties", "tol", "confidence", "draws")


def with_deprecated(owner: str, options: UncertaintyOptions, deprecated: dict) -> UncertaintyOptions:
    """``options`` with the keywords a caller still passes one by one (each accepted with a DeprecationWarning).

    Parameters
    ----------
    owner : str
        The function they were passed to.
    options : UncertaintyOptions
    deprecated : dict
        Its ``**deprecated`` keywords.

    Returns
    -------
    UncertaintyOptions
    """
    legacy = deprecated_keywords(owner, deprecated, _OPTION_KEYWORDS, "options=UncertaintyOptions(...)")
    return replace(options, **legacy)
