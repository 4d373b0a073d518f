"""The both-empty policy: what a pair scores when run and reference are both empty (0/0), as one object.

The official MEDIQA-MAGIC scorer divides 0 by 0 there, and the nan propagates
through its max and mean over annotators and images. Every study takes one
:class:`EmptyPolicy` (command line: ``--empty``), and every score and every
resampling statistic reads it. This module imports nothing heavy, so command
lines can list the choices without loading numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["EmptyPolicy", "EMPTY_POLICIES", "register_empty_policy", "empty_policy"]


@dataclass(frozen=True)
class EmptyPolicy:
    """What a pair with denominator 0 (run and reference both empty) scores, and how averages treat it.

    Attributes
    ----------
    name : str
    value : float
        The pair's score (nan for ``ignore`` and ``official``).
    skip : bool
        Leave such pairs out of means and maxima (``ignore``); otherwise a nan
        value propagates through them (``official``).
    """

    name: str
    value: float
    skip: bool
    description: str = ""

    @property
    def propagates(self) -> bool:
        """True when a both-empty pair makes the averages it enters nan (the official scorer's 0/0)."""
        return math.isnan(self.value) and not self.skip


#: The both-empty policies, by name (the command-line ``--empty`` choices).
EMPTY_POLICIES: dict[str, EmptyPolicy] = {}


def register_empty_policy(policy: EmptyPolicy) -> EmptyPolicy:
    """Add (or replace) a both-empty policy in :data:`EMPTY_POLICIES`.

    Parameters
    ----------
    policy : EmptyPolicy

    Returns
    -------
    EmptyPolicy
        ``policy``, registered.
    """
    if not isinstance(policy, EmptyPolicy):
        raise TypeError(f"expected an EmptyPolicy, got {type(policy).__name__}")
    EMPTY_POLICIES[policy.name] = policy
    return policy


for _policy in (
    EmptyPolicy("one", 1.0, False, "both-empty pairs score 1"),
    EmptyPolicy("zero", 0.0, False, "both-empty pairs score 0"),
    EmptyPolicy("ignore", math.nan, True, "both-empty pairs are left out of the averages"),
    EmptyPolicy("official", math.nan, False, "both-empty pairs are 0/0 = nan, propagating as in the official scorer"),
):
    register_empty_policy(_policy)


def empty_policy(empty: str | EmptyPolicy) -> EmptyPolicy:
    """The :class:`EmptyPolicy` named ``empty`` (an EmptyPolicy passes through).

    Parameters
    ----------
    empty : str or EmptyPolicy
        One of :data:`EMPTY_POLICIES`.

    Returns
    -------
    EmptyPolicy
    """
    if isinstance(empty, EmptyPolicy):
        return empty
    try:
        return EMPTY_POLICIES[empty]
    except (KeyError, TypeError):
        raise ValueError(f"empty must be one of {', '.join(EMPTY_POLICIES)}; got {empty!r}") from None
