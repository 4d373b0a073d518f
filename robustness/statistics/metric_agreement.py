"""Does the metric change the ranking? Leaderboards under overlap and boundary metrics and their agreement.

Maier-Hein et al. (2018, Nature Communications 9: 5217) showed that the metric, like the gold standard and the
test cases, can reorder a leaderboard. Under one gold strategy this module ranks the runs by the mean over images
of every per-image metric (overlap metrics per image, i.e. their macro averages, and the boundary metrics of
:mod:`robustness.overlap.boundary`, which only exist per image), each in its own direction (HD95 and ASSD: lower
is better), and measures how far the rankings agree with Kendall's tau-b between every pair of metrics.

Uncertainty: the statistic is about a new test set drawn like this one, so the units (encounters, with all their
images and labels) are resampled with replacement (``n_resamples`` bootstrap test sets); every resample ranks
the runs under every metric and gives every pair's tau. The interval is the percentile interval of those taus
(95%), and each run's rank interval under each metric the percentile interval of its ranks (observed ranks:
numpy's ``inverted_cdf`` quantiles). With few units the percentile interval of a tau is wide and discrete; read it
as how much the agreement could move, not as a test.

Both-empty pairs of a boundary metric follow the both-empty policy (:mod:`robustness.overlap.empty`): ``one`` the
best value (NSD 1, distance 0), ``zero`` the worst (NSD 0, the image's diagonal), ``ignore`` left out of the mean,
``official`` nan (the run's mean is then nan).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.overlap.boundary import boundary_metric, is_boundary_metric
from robustness.overlap.empty import EmptyPolicy, empty_policy
from robustness.overlap.metrics import per_image
from robustness.scheme import lower_is_better
from robustness.statistics.inference import nanquantile_columns
from robustness.statistics.ranks import rank

if TYPE_CHECKING:

    import pandas as pd

    from robustness.overlap.counts import OverlapCounts
    from robustness.seeds import SeedLike
else:
    pd = lazy_module("pandas")

__all__ = ["boundary_values", "metric_values", "metric_agreement", "PerImageValues"]


@dataclass(frozen=True)
class PerImageValues:
    """What :func:`metric_agreement` ranks: every run's per-image value under every metric, and the images' units.

    Attributes
    ----------
    values : ndarray (n_metrics, n_runs, n_images)
        :func:`metric_values`.
    lower_better : ndarray of bool (n_metrics,)
    metrics, runs : sequence of str
    clusters : ndarray (n_images,)
        The unit of every image (its encounter): units are resampled with all their images.
    """

    values: np.ndarray
    lower_better: np.ndarray
    metrics: Sequence[str]
    runs: Sequence[str]
    clusters: np.ndarray


def boundary_values(counts: OverlapCounts, strategy: str, metric: str, *,
                    empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Every run's boundary metric against one gold strategy, per image, both-empty pairs by the policy.

    Parameters
    ----------
    counts : OverlapCounts
        With boundary metrics (``compute_overlap(..., boundary=...)``).
    strategy : str
    metric : str
        One of ``counts.boundary_metrics``.
    empty : str or EmptyPolicy

    Returns
    -------
    ndarray (n_runs, n_images)
    """
    if metric not in counts.boundary_metrics:
        raise ValueError(f"no boundary metric {metric!r} was computed (computed: {', '.join(counts.boundary_metrics)})")
    policy = empty_policy(empty)
    m = boundary_metric(metric)
    if counts.boundary is None or counts.boundary_worst is None:
        raise ValueError("these counts hold no boundary metric")
    s = counts.strategies.index(strategy)
    values = counts.boundary[s, :, :, counts.boundary_metrics.index(metric)].copy()
    # both masks empty: no voxel counted (an empty mask against a non-empty one is nan only under the convention
    # empty_distance='nan', and stays so)
    both_empty = np.isnan(values) & (counts.counts[s].sum(axis=-1) == 0)
    worst = np.broadcast_to(counts.boundary_worst, values.shape)[both_empty]
    values[both_empty] = m.both_empty(policy, worst)
    return values


def metric_values(counts: OverlapCounts, strategy: str, metrics: Sequence[str], *,
                  empty: str | EmptyPolicy = "one") -> tuple[np.ndarray, np.ndarray]:
    """Per-image values of every metric under one gold, and whether lower is better for each.

    Parameters
    ----------
    counts : OverlapCounts
    strategy : str
        A gold strategy with counts (not ``mean``/``max`` over annotators).
    metrics : sequence of str
        Overlap metrics of the metric table (per image) and boundary metrics of ``counts``.
    empty : str or EmptyPolicy

    Returns
    -------
    (values, lower_better) : ndarray (n_metrics, n_runs, n_images), ndarray of bool (n_metrics,)
    """
    out = [boundary_values(counts, strategy, name, empty=empty) if is_boundary_metric(name) else
           per_image(counts.strategy_counts(strategy), name, empty=empty) for name in metrics]
    return np.stack(out), np.array([lower_is_better(name) for name in metrics])


def _means(values, weights, skip, masks=None):
    """Weighted mean over images (axis -1); nan images left out when ``skip``; only each item's images if masked.

    An image a resample does not draw (weight 0) takes no part, not even as a nan that would propagate.
    """
    if masks is not None:
        weights = masks[:, None, :] * weights  # (M, 1, N): an item's other images weigh nothing
    values = np.where(weights > 0, values, 0.0)
    if skip:
        ok = ~np.isnan(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.where(ok, values, 0.0) * weights).sum(axis=-1) / (ok * weights).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (values * weights).sum(axis=-1) / np.sum(weights, axis=-1)


def metric_agreement(table: PerImageValues, *legacy: Any, empty: str | EmptyPolicy = "one", n_resamples: int = 1000,
                     confidence: float = 0.95, ties: str = "average", masks: np.ndarray | None = None,
                     rng: SeedLike = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Leaderboards under every metric and Kendall's tau between every pair of them, with bootstrap intervals.

    Parameters
    ----------
    table : PerImageValues
        The values, their directions, the metrics' and runs' names and the images' units.
    *legacy
        ``lower_better, metrics, runs, clusters`` after the values array as ``table`` (the form before
        PerImageValues; deprecated).
    empty : str or EmptyPolicy
        ``ignore`` leaves nan values out of the means; otherwise a nan makes the mean nan.
    n_resamples : int
    confidence : float
    ties : str
        The tie rule of the ranks (:func:`robustness.statistics.ranks.rank`).
    masks : ndarray of bool (n_metrics, n_images), optional
        The images each leaderboard averages (default: all): e.g. one label's images of a multi-label challenge,
        so that the rankings compared are the labels'. The bootstrap still resamples
        whole units, with all their images.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (boards, agreement) : (pandas.DataFrame, pandas.DataFrame)
        ``boards``: ``metric, lower_better, run, value, value_low, value_high, rank, rank_low, rank_high``
        (``value``: the mean over images); ``agreement``: ``metric_a, metric_b, tau, tau_low, tau_high,
        tau_median, n_resamples, units`` (``tau`` on the test set; ``units``: the units resampled).
    """
    if not isinstance(table, PerImageValues):  # the positional form of before
        warnings.warn("metric_agreement(values, lower_better, metrics, runs, clusters) is deprecated; pass "
                      "PerImageValues(values, lower_better, metrics, runs, clusters)", DeprecationWarning, stacklevel=2)
        table = PerImageValues(table, *legacy)
    elif legacy:
        raise TypeError(f"metric_agreement() takes one PerImageValues, got {1 + len(legacy)} positional arguments")
    values, lower_better, metrics, runs, clusters = (table.values, table.lower_better, table.metrics, table.runs,
                                                     table.clusters)
    rng = np.random.default_rng(rng)
    skip = empty_policy(empty).skip
    codes, clusters = np.unique(np.asarray(clusters), return_inverse=True)
    n_units = codes.size
    n_m, n_r, _ = values.shape
    sign = np.where(lower_better, -1.0, 1.0)[:, None]

    def ranks_of(weights):
        means = _means(values, weights, skip, masks)  # (M, R)
        return means, rank(sign * means, ties=ties)

    full_means, full_ranks = ranks_of(np.ones(values.shape[-1]))
    draws = rng.integers(0, n_units, size=(n_resamples, n_units))
    boot_means = np.empty((n_resamples, n_m, n_r))
    boot_ranks = np.empty((n_resamples, n_m, n_r))
    for b in range(n_resamples):
        weights = np.bincount(draws[b], minlength=n_units)[clusters].astype(np.float64)
        boot_means[b], boot_ranks[b] = ranks_of(weights)
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value_lo, value_hi = nanquantile_columns(boot_means, [alpha, 1 - alpha])
        # ranks: observed ranks (the empirical quantile), not a blend of two neighbouring places
        rank_lo, rank_hi = nanquantile_columns(boot_ranks, [alpha, 1 - alpha], method="inverted_cdf")
    boards = pd.DataFrame([
        {"metric": metrics[m], "lower_better": bool(lower_better[m]), "run": runs[r], "value": full_means[m, r],
         "value_low": value_lo[m, r], "value_high": value_hi[m, r], "rank": full_ranks[m, r],
         "rank_low": rank_lo[m, r], "rank_high": rank_hi[m, r]} for m in range(n_m) for r in range(n_r)])
    rows = []
    for a in range(n_m):
        for c in range(a + 1, n_m):
            taus = np.array([_kernels.kendall_tau_b(boot_ranks[b, a], boot_ranks[b, c]) for b in range(n_resamples)])
            tau = _kernels.kendall_tau_b(full_ranks[a], full_ranks[c])
            lo, med, hi = np.nanquantile(taus, [alpha, 0.5, 1 - alpha]) if np.isfinite(taus).any() else [np.nan] * 3
            rows.append({"metric_a": metrics[a], "metric_b": metrics[c], "tau": tau, "tau_low": lo, "tau_high": hi,
                         "tau_median": med, "n_resamples": n_resamples, "units": n_units})
    return boards, pd.DataFrame(rows)
