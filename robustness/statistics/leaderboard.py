"""Score tables: every run under every gold strategy, metric and averaging; the official scorer's JSON.

One source for every score a study writes: :func:`scores_frame` (tidy),
:func:`leaderboard` (wide) and :func:`official_results` all reduce the counts
with :mod:`robustness.overlap.metrics`, whose reductions equal the official scorer's
to the last digit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from robustness._lazy import lazy_module
from robustness.overlap.gold import annotator_strategies
from robustness.overlap.metrics import METRICS, macro, macro_over_annotators, mean_over_images, micro
from robustness.scheme import DEFAULT, Scheme, lower_is_better
from robustness.statistics.metric_agreement import boundary_values
from robustness.statistics.ranks import rank

if TYPE_CHECKING:

    import pandas as pd

    from robustness.overlap.counts import OverlapCounts
    from robustness.overlap.empty import EmptyPolicy
else:
    pd = lazy_module("pandas")

__all__ = ["scores_frame", "leaderboard", "official_results"]


def boundary_means(overlap: OverlapCounts, metric: str, *, empty: str | EmptyPolicy = "one") -> list[tuple]:
    """Every run's mean boundary metric over images under every gold of ``overlap`` (macro: per image only).

    As :func:`robustness.overlap.metrics.macro` averages an overlap metric's per-image scores
    (:func:`~robustness.overlap.metrics.mean_over_images`).

    Parameters
    ----------
    overlap : OverlapCounts
        With ``metric`` among its boundary metrics.
    metric : str
    empty : str or EmptyPolicy

    Returns
    -------
    list of (strategy, ndarray (n_runs,))
    """
    return [(name, mean_over_images(boundary_values(overlap, name, metric, empty=empty), empty))
            for name in overlap.strategies]


def scores_frame(overlap: OverlapCounts, *, empty: str | EmptyPolicy = "one", annotators: list[str] | None = None,
                 ranks: bool = False, boundary: Iterable[str] = ()) -> pd.DataFrame:
    """Every run's score under every strategy, metric and averaging, as a tidy table.

    Strategies are the gold strategies of ``overlap`` (micro and macro) plus
    the macro-only strategies over annotators.

    Parameters
    ----------
    overlap : OverlapCounts
    empty : str or EmptyPolicy
        The both-empty policy.
    annotators : list of str, optional
        Macro-only strategies over annotators (default: the registry's, ``mean`` and ``max``).
    ranks : bool
        Add each run's rank (1 = best, in the metric's direction; ties as :func:`robustness.statistics.ranks.rank`).
    boundary : iterable of str
        Boundary metrics of ``overlap`` to add, macro, under every gold (:func:`boundary_means`).

    Returns
    -------
    pandas.DataFrame
        ``strategy, metric, average, run, score`` (and ``rank``).
    """
    over = annotator_strategies(annotators)
    rows = []
    for metric in METRICS:
        for s, name in enumerate(overlap.strategies):
            c = overlap.counts[s]
            for average, vals in (("micro", micro(c, metric, empty=empty)),
                                  ("macro", macro(c, metric, empty=empty))):
                rows.append((name, metric, average, vals))
        for a in over:
            assert a.how is not None  # a strategy over annotators says how it combines them
            vals = macro_over_annotators(overlap.annotator_counts, overlap.annotator_valid, metric,
                                         how=a.how, empty=empty)
            rows.append((a.name, metric, "macro", vals))
    for metric in boundary:
        rows += [(name, metric, "macro", vals) for name, vals in boundary_means(overlap, metric, empty=empty)]
    frames = [
        pd.DataFrame({"strategy": st, "metric": me, "average": av, "run": list(overlap.runs), "score": v}
                     | ({"rank": rank(v, lower_better=lower_is_better(me))} if ranks else {}))
        for st, me, av, v in rows
    ]
    return pd.concat(frames, ignore_index=True)


def leaderboard(overlap: OverlapCounts, *, empty: str | EmptyPolicy = "one", primary: Scheme = DEFAULT,
                annotators: list[str] | None = None, boundary: Iterable[str] = ()) -> pd.DataFrame:
    """Wide leaderboard: one row per run, a column per ``strategy_metric_average``.

    Parameters
    ----------
    overlap : OverlapCounts
    empty : str or EmptyPolicy
    primary : Scheme
        The headline scheme, whose column sorts the rows (best first, in the metric's direction).
    annotators : list of str, optional
        As in :func:`scores_frame`.
    boundary : iterable of str
        As in :func:`scores_frame`.

    Returns
    -------
    pandas.DataFrame
        Indexed by run.
    """
    df = scores_frame(overlap, empty=empty, annotators=annotators, boundary=boundary)
    df["column"] = df["strategy"] + "_" + df["metric"] + "_" + df["average"]
    wide = df.pivot(index="run", columns="column", values="score")
    order = list(dict.fromkeys(df["column"]))
    wide = wide[order]
    key = "_".join(primary.key)
    if key in wide:
        wide = wide.sort_values(key, ascending=primary.lower_better, kind="stable")
    wide.columns.name = None
    return wide


def official_results(overlap: OverlapCounts, run: str, *, empty: str | EmptyPolicy = "official") -> dict:
    """The official scorer's JSON for one run: same keys, same order, same numbers.

    Parameters
    ----------
    overlap : OverlapCounts
        With the ``majority`` strategy.
    run : str
    empty : str or EmptyPolicy
        ``official``: 0/0 = nan, as the official scorer.

    Returns
    -------
    dict
        ``jaccard``/``dice``: micro scores against the majority vote; ``*_meanofmax``/``*_meanofmean``: macro over
        annotators; ``number_segmentation_instances``.
    """
    if "majority" not in overlap.strategies:
        raise ValueError("official results need the 'majority' strategy")
    r = overlap.runs.index(run)
    ac = overlap.annotator_counts[:, r]
    valid = overlap.annotator_valid
    out = {}
    for metric in ("jaccard", "dice"):
        for how in ("max", "mean"):
            out[f"{metric}_meanof{how}"] = float(macro_over_annotators(ac, valid, metric, how=how, empty=empty))
    maj = overlap.strategy_counts("majority")[r]
    out["jaccard"] = float(micro(maj, "jaccard", empty=empty))
    out["dice"] = float(micro(maj, "dice", empty=empty))
    out["number_segmentation_instances"] = int(overlap.n_images)
    return out
