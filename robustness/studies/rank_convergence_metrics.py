"""The main job's metric and label analyses: does the metric, or the label, change the ranking.

The headline gold's per-image values under every per-image metric (:class:`PerImage`) are ranked per metric and
per label; their leaderboards are compared with Kendall's tau over bootstrap test sets and run through the same
convergence engine as the golds (:func:`metric_tables`, :func:`label_tables`), and the verdicts state what the
report says of them (:func:`metric_verdicts`, :func:`label_verdicts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from robustness.errors import deprecated_name
from robustness.overlap.counts import OverlapCounts
from robustness.overlap.metrics import METRICS, EmptyPolicy
from robustness.results.study_result import Verdicts
from robustness.scheme import Scheme
from robustness.statistics.bootstrap import SCORE_INTERVAL
from robustness.statistics.count_schemes import schemes_from_counts, schemes_from_values
from robustness.statistics.metric_agreement import PerImageValues, metric_agreement, metric_values
from robustness.studies.common import (
    convergence_points,
    resample,
)
from robustness.studies.rank_convergence_options import RankConvergenceOptions

__all__ = ["PerImage", "overlap_metrics", "metric_tables", "label_tables", "metric_verdicts", "label_verdicts"]


def overlap_metrics() -> tuple:
    """The overlap metrics of the metric table (every registered one).

    Ranked per image beside the boundary metrics after the headline metric, and the metrics of the paper's Table 4
    (gold_spread.csv).

    Returns
    -------
    tuple of str
    """
    return tuple(METRICS)


@dataclass(frozen=True)
class PerImage:
    """The headline gold's per-image values under every per-image metric, ranked by the metric and label tables.

    The headline metric comes first (the others are compared with it).

    Attributes
    ----------
    primary : Scheme
        The headline scheme.
    empty : EmptyPolicy
        The both-empty policy.
    metrics : list of str
    values : ndarray (metric, run, image)
    lower : ndarray of bool
        Lower is better, per metric.
    unit : str
        The bootstrap's unit.
    clusters : ndarray
        Every image's unit.
    """

    primary: Scheme
    empty: EmptyPolicy
    metrics: list
    values: np.ndarray  # (metric, run, image)
    lower: np.ndarray  # lower is better, per metric
    unit: str  # the bootstrap's unit
    clusters: np.ndarray  # every image's unit

    @classmethod
    def of(cls, counts: OverlapCounts, primary: Scheme, empty: EmptyPolicy, unit: str) -> PerImage:
        """The per-image values of ``counts`` under the headline gold, for every per-image metric.

        Parameters
        ----------
        counts : OverlapCounts
        primary : Scheme
        empty : EmptyPolicy
        unit : str
            The bootstrap's unit (``image`` or ``encounter``).

        Returns
        -------
        PerImage
        """
        metrics = list(dict.fromkeys((primary.metric,) + overlap_metrics() + tuple(counts.boundary_metrics)))
        values, lower = metric_values(counts, primary.strategy, metrics, empty=empty)
        clusters = np.asarray(counts.encounters if unit == "encounter" else counts.images)
        return cls(primary, empty, metrics, values, lower, unit, clusters)

    @property
    def strategy(self) -> str:
        """The headline gold strategy."""
        return self.primary.strategy

    @property
    def gold(self) -> str:
        """Deprecated name of :attr:`strategy`."""
        deprecated_name("PerImage.gold", "PerImage.strategy")
        return self.strategy


def metric_tables(counts: OverlapCounts, per_image: PerImage, options: RankConvergenceOptions, *, n_jobs: int,
                  lenient: float) -> dict:
    """Leaderboards of the headline gold under every per-image metric and their agreement (bootstrap over units).

    And how fast each metric's ranking settles on its own full-set ranking (random orders, every ranking method).

    Parameters
    ----------
    counts : OverlapCounts
    per_image : PerImage
    options : RankConvergenceOptions
    n_jobs : int
    lenient : float
        The size target (L1) of the convergence points.

    Returns
    -------
    dict
        ``metric_leaderboard.csv``, ``metric_agreement.csv``, ``metric_convergence.csv``.
    """
    p = per_image
    boards, agreement = metric_agreement(PerImageValues(p.values, p.lower, p.metrics, counts.runs, p.clusters),
                                         empty=p.empty, n_resamples=options.bootstrap, ties=options.ties,
                                         rng=options.rng("metric_agreement"))
    # each metric's ranking through the convergence engine (every ranking method), as the golds' curves
    signed = np.where(p.lower, -1.0, 1.0)[:, None, None] * p.values  # higher is better for the engines
    names = [(p.strategy, m, "macro") for m in p.metrics]
    conv = schemes_from_values(signed, names, counts, unit=options.unit, empty=p.empty)
    boot = schemes_from_values(signed, names, counts, unit=options.bootstrap_unit, empty=p.empty)
    res = resample(conv, options, n_jobs=n_jobs, boot_schemes=boot, bootstrap=False)
    return {"metric_leaderboard.csv": boards.assign(strategy=p.strategy, unit=p.unit),
            "metric_agreement.csv": agreement.assign(strategy=p.strategy, unit=p.unit),
            "metric_convergence.csv": convergence_points(res.convergence.values(), tolerance=options.tolerance,
                                                         lenient=lenient)}


def label_tables(counts: OverlapCounts, labels: np.ndarray, per_image: PerImage, over: list,
                 options: RankConvergenceOptions, *, n_jobs: int, lenient: float) -> dict:
    """The label as one more dimension of the schemes: each gold's scheme of the headline metric on one label.

    Each label's schemes (micro and macro, every gold) go through the same convergence and bootstrap engines and
    every ranking method as the main schemes (label_scores.csv, label_convergence.csv); the headline gold's
    per-label leaderboards under every per-image metric are compared with Kendall's tau, resampling units with
    all their labels (label_leaderboard.csv, label_agreement.csv).

    Parameters
    ----------
    counts : OverlapCounts
    labels : ndarray
        Every image's label.
    per_image : PerImage
    over : list of str
        The golds that average over the annotators (macro only).
    options : RankConvergenceOptions
    n_jobs : int
    lenient : float

    Returns
    -------
    dict
        ``label_scores.csv``, ``label_convergence.csv``, ``label_leaderboard.csv``, ``label_agreement.csv``.
    """
    p = per_image
    found = list(dict.fromkeys(labels.tolist()))
    scores, points = [], []
    for label in found:
        part = counts.select(np.flatnonzero(labels == label))

        def schemes(unit, part=part):
            return schemes_from_counts(part, unit=unit, empty=p.empty, metrics=[p.primary.metric], annotators=over)

        conv = schemes(options.unit)
        boot = conv if options.bootstrap_unit == options.unit else schemes(options.bootstrap_unit)
        res = resample(conv, options, n_jobs=n_jobs, boot_schemes=boot)
        scores += [b.intervals(method=SCORE_INTERVAL).assign(label=label) for b in res.bootstrap.values()]
        points.append(convergence_points(res.convergence.values(), tolerance=options.tolerance,
                                         lenient=lenient).assign(label=label))
    masks = np.stack([labels == label for label in found])
    boards, agree = [], []
    for m, metric in enumerate(p.metrics):
        by_label = PerImageValues(np.repeat(p.values[m][None], len(found), axis=0), np.repeat(p.lower[m], len(found)),
                                  [str(label) for label in found], counts.runs, p.clusters)
        b, a = metric_agreement(by_label, empty=p.empty, n_resamples=options.bootstrap, ties=options.ties, masks=masks,
                                rng=options.rng("label_agreement"))
        boards.append(b.rename(columns={"metric": "label"}).assign(metric=metric))
        agree.append(a.rename(columns={"metric_a": "label_a", "metric_b": "label_b"}).assign(metric=metric))
    return {"label_scores.csv": pd.concat(scores, ignore_index=True),
            "label_convergence.csv": pd.concat(points, ignore_index=True),
            "label_leaderboard.csv": pd.concat(boards, ignore_index=True).assign(strategy=p.strategy, unit=p.unit),
            "label_agreement.csv": pd.concat(agree, ignore_index=True).assign(strategy=p.strategy, unit=p.unit)}


def _tau_statement(row) -> str:
    """Two rankings 'agree' (every resample: tau 1), 'differ' (tau's interval below 1) or 'may differ'."""
    return "agree" if row.tau_low > 0.999 else ("differ" if row.tau_high < 0.999 else "may differ")


def label_verdicts(v: Verdicts, tables: dict, primary: Scheme) -> None:
    """Kendall's tau between every two labels' rankings (headline gold and metric, macro), and how many runs move.

    Parameters
    ----------
    v : Verdicts
        Rows ``label_tau`` are added.
    tables : dict
        The study's tables (:func:`label_tables`').
    primary : Scheme
    """
    agree, boards = tables["label_agreement.csv"], tables["label_leaderboard.csv"]
    agree, boards = agree[agree.metric == primary.metric], boards[boards.metric == primary.metric]
    for row in agree.itertuples():
        a = boards[boards.label == row.label_a].set_index("run")["rank"]
        b = boards[boards.label == row.label_b].set_index("run")["rank"].reindex(a.index)
        v.add("label_tau", strategy=primary.strategy, metric=primary.metric, average="macro",
              statement=_tau_statement(row),
              subject=(str(row.label_a), str(row.label_b)), value=row.tau, low=row.tau_low, high=row.tau_high,
              level=0.95, count=int((a != b).sum()), total=len(a), table="label_agreement.csv")


def metric_verdicts(v: Verdicts, tables: dict, primary: Scheme) -> None:
    """Kendall's tau between the headline metric's ranking and every other metric's, and how many runs move.

    Parameters
    ----------
    v : Verdicts
        Rows ``metric_tau`` are added.
    tables : dict
        The study's tables (:func:`metric_tables`').
    primary : Scheme
    """
    agree, boards = tables["metric_agreement.csv"], tables["metric_leaderboard.csv"]
    base = boards[boards.metric == primary.metric].set_index("run")["rank"]
    for row in agree[agree.metric_a == primary.metric].itertuples():
        other = boards[boards.metric == row.metric_b].set_index("run")["rank"]
        moved = int((other.reindex(base.index) != base).sum())
        v.add("metric_tau", strategy=primary.strategy, metric=row.metric_b, average="macro",
              statement=_tau_statement(row), subject=(primary.metric, row.metric_b), value=row.tau, low=row.tau_low,
              high=row.tau_high, level=0.95,
              count=moved, total=len(base), table="metric_agreement.csv")
