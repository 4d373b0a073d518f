"""Ranking methods: how per-case scores become a leaderboard. One registry, read by every study.

Beside the metric table (:data:`robustness.overlap.metrics.METRICS`) and the gold
registry (:data:`robustness.overlap.gold.STRATEGIES`), this is the third choice an
organiser makes. The three families of challengeR (Wiesenfarth et al., Sci.
Rep. 2021):

``aggregate`` (aggregate-then-rank, the MEDIQA-MAGIC leaderboard)
    One score per run (micro: pooled TP/FP/FN; macro: the mean of per-image
    scores), then the ranking of those scores.
``rank-then-aggregate`` (as BraTS)
    Per case (image; encounter for QA), the runs are ranked by their per-case
    score (ties: average rank; a run without a score on a case, nan, is left
    out of that case's ranking); runs are then ordered by their mean rank
    (lower is better). It needs per-case scores, so it exists for **macro**
    schemes only: a micro score pools counts over images and has no per-case
    value. Per-case ranks add up, so prefixes and resamples are running sums
    exactly as for the aggregate (:func:`robustness.statistics.schemes.rank_then_aggregate`).
``test-based`` (test-then-rank)
    For every ordered pair of runs, a one-sided paired Wilcoxon signed-rank
    test on per-unit scores (the resampling unit: encounters by default, so
    that photos of one lesion are not counted as independent evidence; images
    or cases where the study resamples those), the ``R (R - 1)`` p-values of a
    scheme adjusted together by **Holm's** step-down method (family-wise error
    5%); a run scores the number of runs it beats significantly and runs are
    ranked by that number (ties: average rank). challengeR's ``testThenRank``
    defaults to no adjustment (``p.adjust.method = "none"``), under which
    about ``0.05 R (R - 1)`` "wins" are expected among runs of equal quality;
    ``adjustment="none"`` reproduces that choice in the library. Macro schemes
    only, like rank-then-aggregate (:mod:`robustness.statistics.test_based`).

Importing this module is cheap (no numpy), so command-line options can list
and validate the methods before any heavy import.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RankingMethod", "RANKING_METHODS", "DEFAULT_RANKING", "get_ranking", "parse_rankings", "prepare"]


@dataclass(frozen=True)
class RankingMethod:
    """One ranking method.

    Attributes
    ----------
    name : str
        Command-line and table name.
    label : str
        Name in prose and on figures.
    statistic : str
        What a run's number is under this method (``score``, ``mean rank``, ``runs beaten``).
    sign : int
        +1 when the statistic is higher-is-better as stored; -1 when the
        engines store its negative (mean ranks are stored as minus the mean
        rank, so that every engine ranks "higher is better").
    per_case : bool
        Needs per-case scores: exists for macro schemes only.
    """

    name: str
    label: str
    statistic: str
    sign: int
    per_case: bool
    description: str


RANKING_METHODS: dict = {m.name: m for m in (
    RankingMethod("aggregate", "aggregate-then-rank", "score", 1, False,
                  "one score per run (micro or macro mean), then rank"),
    RankingMethod("rank-then-aggregate", "rank-then-aggregate", "mean rank", -1, True,
                  "rank the runs on every case (ties: average rank), then order by mean rank; macro only"),
    RankingMethod("test-based", "test-based", "runs beaten", 1, True,
                  "one-sided paired Wilcoxon signed-rank test for every ordered pair on per-unit scores, Holm "
                  "over the pairs, 5%; rank by the number of runs beaten significantly; macro only"),
)}

#: The default: today's leaderboard.
DEFAULT_RANKING = ("aggregate",)


def get_ranking(name: str) -> RankingMethod:
    """The registered ranking method ``name``."""
    try:
        return RANKING_METHODS[name]
    except KeyError:
        raise ValueError(f"unknown ranking method {name!r} (choose from {', '.join(RANKING_METHODS)})") from None


def parse_rankings(text: str) -> tuple:
    """``"aggregate,test-based"`` -> ``("aggregate", "test-based")``, validated, duplicates dropped.

    Examples
    --------
    >>> parse_rankings("test-based, aggregate,test-based")
    ('test-based', 'aggregate')
    """
    names = tuple(dict.fromkeys(n.strip() for n in str(text).split(",") if n.strip()))
    if not names:
        raise ValueError(f"no ranking method given in {text!r} (choose from {', '.join(RANKING_METHODS)})")
    for n in names:
        get_ranking(n)
    return names


def prepare(schemes, name: str, *, alpha: float = 0.05, adjustment: str = "holm"):
    """What the engines (:func:`~robustness.statistics.convergence.rank_convergence`, :func:`~robustness.statistics.bootstrap.bootstrap`)
    need to rank ``schemes`` under the method ``name``.

    ``aggregate``: ``schemes`` itself. ``rank-then-aggregate``: the macro
    schemes with per-case ranks as statistics (a :class:`~robustness.statistics.schemes.Schemes`).
    ``test-based``: a :class:`~robustness.statistics.test_based.PairedTests` of the macro
    schemes on ``schemes``' unit (``alpha`` and ``adjustment`` apply to it only).
    """
    method = get_ranking(name)
    if method.name == "aggregate":
        return schemes
    if not any(schemes.is_macro(s) for s in range(len(schemes.names))):
        raise ValueError(f"{method.label} ranks per-case scores: it exists for macro schemes only, and these "
                         "schemes are all micro")
    if method.name == "rank-then-aggregate":
        from robustness.statistics.schemes import rank_then_aggregate

        return rank_then_aggregate(schemes)
    from robustness.statistics.test_based import PairedTests

    return PairedTests.from_schemes(schemes, alpha=alpha, adjustment=adjustment)
