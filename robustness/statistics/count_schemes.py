"""Schemes from a challenge's overlap counts: every gold, metric and averaging as per-unit sums (:class:`Schemes`).

:func:`schemes_from_counts` turns the pixel pass's counts into the schemes every engine ranks;
:func:`schemes_from_values` does the same for per-image values already computed (boundary metrics, labels).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from robustness.overlap.gold import annotator_strategies
from robustness.overlap.metrics import METRICS, EmptyPolicy, empty_policy, get_metric, over_annotators, per_image
from robustness.statistics.schemes import SchemeBuilder, Schemes, unit_codes

if TYPE_CHECKING:
    from robustness.overlap.counts import OverlapCounts

__all__ = ["schemes_from_counts", "schemes_from_values"]


def _unit_builder(overlap, unit):
    """A :class:`SchemeBuilder` over the resampling units of ``overlap``'s images, the units, and the unit's name.

    With 'encounter' an encounter's images stay together; where every encounter is one image (the per-rater
    layout), the unit is the image, and says so.
    """
    if unit not in ("image", "encounter"):
        raise ValueError(f"unit must be 'image' or 'encounter', got {unit!r}")
    if unit == "encounter" and len(set(overlap.encounters)) == len(overlap.images):
        unit = "image"
    codes, units = (unit_codes(overlap.images) if unit == "image" else
                    unit_codes(overlap.images, overlap.encounters))
    return SchemeBuilder(codes, len(units)), units, unit


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
