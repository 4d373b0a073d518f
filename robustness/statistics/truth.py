"""Truth on synthetic data: how well each scheme's ranking recovers the runs' ranking against the latent truth.

Real data has no ground truth. A synthetic challenge (:mod:`robustness.synthetic.challenge`)
knows the latent true lesion of every image, and the pixel pass counts every
run against it (``OverlapCounts.truth_counts``). The *true ranking* of a scheme
is the runs' ranking by the same metric and averaging against the true masks
on the same test images (for ``mean``/``max`` over annotators: the macro
score against the truth), so a scheme's distance from it isolates the bias
of its gold. Kendall's tau to it carries a bootstrap interval over the
resampling unit (both rankings recomputed on every resample).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robustness import _kernels
from robustness.seeds import SeedLike
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.comparisons import resampled_taus
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.inference import tails
from robustness.statistics.ranks import TIE_TOL, rank
from robustness.statistics.schemes import Schemes

if TYPE_CHECKING:

    from robustness.overlap.counts import OverlapCounts
    from robustness.overlap.empty import EmptyPolicy

__all__ = ["truth_schemes", "truth_agreement"]


def truth_schemes(overlap: OverlapCounts, *, unit: str = "image", empty: str | EmptyPolicy = "one",
                  metrics: list | None = None) -> Schemes:
    """Per-unit statistics of every run against the latent truth.

    Parameters
    ----------
    overlap : OverlapCounts
        With ``truth_counts`` (a synthetic challenge).
    unit : {'image', 'encounter'}
    empty : str or EmptyPolicy
    metrics : list of str, optional

    Returns
    -------
    Schemes
        Schemes ``("truth", metric, average)``.
    """
    if not overlap.has_truth:
        raise ValueError("these counts have no latent truth (only synthetic challenges know it)")
    view = replace(overlap, strategies=("truth",), counts=overlap.truth_counts)
    return schemes_from_counts(view, unit=unit, empty=empty, metrics=metrics, annotators=[])


def truth_agreement(schemes: Schemes, overlap: OverlapCounts, *, n_resamples: int = 1000, confidence: float = 0.95,
                    ties: str = "average", tol: float = TIE_TOL, n_jobs: int = 1,
                    rng: SeedLike = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Kendall's tau-b between every scheme's ranking and the true ranking of the same metric and averaging.

    Parameters
    ----------
    schemes : Schemes
        The schemes to judge (built on ``overlap`` with the resampling unit).
    overlap : OverlapCounts
        With ``truth_counts``.
    n_resamples, rng
        The bootstrap over ``schemes``' units: scheme and truth scores are
        recomputed on the same resamples.
    confidence : float
    ties, tol
        The tie rule (:func:`robustness.statistics.ranks.rank`).
    n_jobs : int

    Returns
    -------
    (table, taus)
        ``table``: ``strategy, metric, average, tau_to_truth, tau_low, tau_high``
        (percentile ``confidence`` interval over resamples) and ``p_best``
        (share of resamples in which this scheme has the highest tau within its
        metric and averaging); ``taus``: (S, B) resampled taus, for paired
        comparisons (:func:`robustness.statistics.verdicts.best_with_ties`).
    """
    truth = truth_schemes(overlap, unit=schemes.unit, empty=schemes.empty,
                          metrics=list(dict.fromkeys(n[1] for n in schemes.names)))
    if truth.units != schemes.units:
        raise ValueError("the schemes and the truth must share their resampling units")
    seed = np.random.default_rng(rng).integers(2**63)
    boot = bootstrap(schemes, n_resamples=n_resamples, ties=ties, tol=tol, n_jobs=n_jobs, rng=seed)
    tboot = bootstrap(truth, n_resamples=n_resamples, ties=ties, tol=tol, n_jobs=n_jobs, rng=seed)  # same draws
    final = rank(schemes.scores(), ties=ties, tol=tol)
    tfinal = rank(truth.scores(), ties=ties, tol=tol)
    lo, hi = tails(confidence)
    taus = np.empty((len(schemes.names), n_resamples))
    rows = []
    for s, (strat, metric, average) in enumerate(schemes.names):
        t = truth.index("truth", metric, average)
        taus[s] = resampled_taus(boot.ranks[s], tboot.ranks[t])
        rows.append({"strategy": strat, "metric": metric, "average": average,
                     "tau_to_truth": float(_kernels.kendall_tau_b(final[s], tfinal[t])),
                     "tau_low": float(np.nanquantile(taus[s], lo)), "tau_high": float(np.nanquantile(taus[s], hi))})
    table = pd.DataFrame(rows)
    table["p_best"] = 0.0
    for _, idx in table.groupby(["metric", "average"], sort=False).groups.items():
        idx = np.asarray(idx)
        t = np.nan_to_num(taus[idx], nan=-np.inf)
        top = t == t.max(axis=0)  # ties for the best share the resample
        table.loc[idx, "p_best"] = (top / top.sum(axis=0)).mean(axis=1)
    return table, taus
