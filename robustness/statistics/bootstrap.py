"""Bootstrap of the test units: score intervals, rank distributions, rank stability, pairwise win shares.

Each resample draws ``U`` units with replacement (the same draw for every run:
paired) and re-sums the per-unit statistics of :class:`~robustness.statistics.schemes.Schemes`
(micro scores re-sum TP, FP and FN; macro scores re-average per-image scores).
Percentile and BCa intervals follow ``scipy.stats.bootstrap``.

Randomness (SPEC 7): batch ``b`` of resamples draws from child ``b`` of
``rng.spawn`` (:mod:`robustness.parallel`), so the results are identical for
any ``n_jobs`` and on a Dask cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from robustness import _kernels
from robustness.parallel import batch_generators, batch_sizes, progress_bar, run_batches
from robustness.seeds import SeedLike
from robustness.statistics.inference import bootstrap_interval, draw_indices, studentized_interval, tails
from robustness.statistics.rankable import Rankable
from robustness.statistics.ranking_methods import get_ranking
from robustness.statistics.ranks import TIE_TOL, rank, ties_code

__all__ = ["BootstrapResult", "bootstrap", "SCORE_INTERVAL"]

#: The score interval the reports show: studentized (bootstrap-t), whose coverage experiments.calibration
#: measured closest to nominal on clustered, size-dominated data (percentile and BCa fell short); a ranking method
#: whose statistic is not a ratio of sums falls back to the percentile interval.
SCORE_INTERVAL = "studentized"


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap distribution of every run's score and rank under every scheme.

    Attributes
    ----------
    schemes : Schemes or PairedTests
        What was ranked; its ``ranking`` names the ranking method, whose
        statistic the scores are (stored higher-is-better: a mean rank as its
        negative; :meth:`intervals` shows it with its own sign).
    estimate : (S, R) scores on the whole test set
    distribution : (S, B, R) scores on every resample (units drawn with replacement, paired across runs)
    ranks : float32 (S, B, R) ranks on every resample
    final_ranks : (S, R)
    tau : (S, B) Kendall's tau-b between the full-set ranking and each resample's
    wins : (S, R, R) share of resamples in which run i scores strictly above run j
    jackknife : (S, R, U) leave-one-unit-out scores (for BCa)
    standard_errors : (S, B, R) or None
        Delta-method standard errors of the scores on every resample, and ``estimate_se`` (S, R) on the whole
        test set (the studentized bootstrap); None for statistics that are not ratios of sums over units.
    """

    schemes: Rankable
    estimate: np.ndarray
    distribution: np.ndarray
    ranks: np.ndarray
    final_ranks: np.ndarray
    tau: np.ndarray
    wins: np.ndarray
    jackknife: np.ndarray
    standard_errors: np.ndarray | None = None
    estimate_se: np.ndarray | None = None

    @property
    def ranking(self) -> str:
        """The ranking method (:mod:`robustness.statistics.ranking_methods`)."""
        return self.schemes.ranking

    def to_frame(self) -> pd.DataFrame:
        """The tidy summary: every run's score with its 95% percentile interval.

        Returns
        -------
        pandas.DataFrame
            :meth:`intervals` with its defaults.
        """
        return self.intervals()

    def intervals(self, *, method: str = "percentile", confidence: float = 0.95) -> pd.DataFrame:
        """Every run's statistic with its bootstrap interval.

        ``score`` is the ranking method's statistic with its own sign (a mean
        score, a mean rank where lower is better, a number of runs beaten), named
        in ``statistic``.

        Parameters
        ----------
        method : {'percentile', 'bca', 'studentized'}
            'studentized' (bootstrap-t): the quantiles of ``(score* - score) / se*`` over resamples, with
            delta-method standard errors (Efron & Tibshirani 1993, 12.5); where it is not available (a ranking
            method whose statistic is not a ratio of sums), the percentile interval; and for a run whose standard
            error is 0 on the test set or a resample (a run equal to the gold on every image: t is undefined),
            that run's percentile interval, its row's ``method`` saying so.
        confidence : float

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, ranking, run, score, low, high, rank, statistic, method,
            confidence_level, unit, n_resamples`` (what was resampled, and how often; ``method`` the one used).
        """
        kind = get_ranking(self.ranking)
        dist = np.moveaxis(self.distribution, 1, -1)  # (S, R, B)
        if method == "studentized" and self.standard_errors is None:
            method = "percentile"
        methods = np.full(self.estimate.shape, method, dtype=object)
        if method == "studentized":
            assert self.standard_errors is not None and self.estimate_se is not None  # set together
            low, high = studentized_interval(self.estimate, self.estimate_se, dist,
                                             np.moveaxis(self.standard_errors, 1, -1), confidence=confidence)
            undefined = np.isnan(low) | np.isnan(high)
            if undefined.any():  # a standard error of 0: the percentile interval, said in the row
                p_low, p_high = bootstrap_interval(self.estimate, dist, method="percentile", confidence=confidence)
                use = undefined & np.isfinite(p_low) & np.isfinite(p_high)
                low, high = np.where(use, p_low, low), np.where(use, p_high, high)
                methods[use] = "percentile"
        else:
            low, high = bootstrap_interval(self.estimate, dist, self.jackknife, method=method,
                                           confidence=confidence)
        est = self.estimate
        if kind.sign < 0:  # stored as its negative: flip the estimate and the interval's ends
            est, low, high = -est, -high, -low
        signs = self.schemes.sign_of
        if kind.statistic == "score" and (signs < 0).any():
            # a metric where smaller is better is stored negated: its scores are shown with their own sign
            s = signs[:, None]
            est, low, high = s * est, np.where(s < 0, -high, low), np.where(s < 0, -low, high)
            est, low, high = est + 0.0, low + 0.0, high + 0.0  # no -0.0 where a negated 0 comes back
        frames = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            frames.append(pd.DataFrame({
                "strategy": strat, "metric": metric, "average": average, "ranking": kind.name,
                "run": list(self.schemes.runs), "score": est[s], "low": low[s], "high": high[s],
                "rank": self.final_ranks[s], "statistic": kind.statistic, "method": methods[s],
                "confidence_level": confidence, "unit": self.schemes.unit,
                "n_resamples": self.distribution.shape[1],
            }))
        return pd.concat(frames, ignore_index=True)

    def rank_distribution(self) -> pd.DataFrame:
        """Share of resamples in which each run takes each (rounded-up) rank.

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, ranking, run, rank, share, full_rank``.
        """
        s_n, b_n, r_n = self.ranks.shape
        runs = np.asarray(self.schemes.runs, dtype=object)
        frames = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            rk = np.ceil(self.ranks[s]).astype(np.int64) - 1  # (B, R), 0-based
            counts = np.bincount((np.arange(r_n) * r_n + rk).ravel(), minlength=r_n * r_n).reshape(r_n, r_n)
            r, k = np.nonzero(counts)  # run r took rank k + 1 (row-major: runs in order, ranks ascending)
            frames.append(pd.DataFrame({"strategy": strat, "metric": metric, "average": average,
                                        "ranking": self.ranking, "run": runs[r], "rank": k + 1,
                                        "share": counts[r, k] / b_n, "full_rank": self.final_ranks[s, r]}))
        return pd.concat(frames, ignore_index=True)

    def stability(self, *, confidence: float = 0.95) -> pd.DataFrame:
        """Kendall's tau between the full-set ranking and the resamples': median and central interval.

        Parameters
        ----------
        confidence : float
            The share of resamples the interval holds.

        Returns
        -------
        pandas.DataFrame
            ``strategy, metric, average, ranking, tau_median, tau_low, tau_high``.
        """
        lo, hi = tails(confidence)
        rows = []
        for s, (strat, metric, average) in enumerate(self.schemes.names):
            t = self.tau[s][~np.isnan(self.tau[s])]
            rows.append({"strategy": strat, "metric": metric, "average": average, "ranking": self.ranking,
                         "tau_median": float(np.median(t)) if t.size else np.nan,
                         "tau_low": float(np.quantile(t, lo)) if t.size else np.nan,
                         "tau_high": float(np.quantile(t, hi)) if t.size else np.nan})
        return pd.DataFrame(rows)


def _bootstrap_batch(schemes, final, tol, ties, n_units, size, child):
    idx = draw_indices(child, n_units, size)
    scores = schemes.resample_scores(idx)  # (S, size, R)
    n_s, n_r = final.shape
    ranks = _kernels.rank_rows(scores.reshape(-1, n_r), tol, ties).reshape(n_s, size, n_r)
    tau = np.empty((n_s, size))
    for s in range(n_s):
        for b in range(size):
            tau[s, b] = _kernels.kendall_tau_b(final[s], ranks[s, b])
    filled = np.where(np.isnan(scores), -np.inf, scores)
    wins = (filled[:, :, :, None] > filled[:, :, None, :]).sum(axis=1)  # (S, R, R)
    se = schemes.resample_se(idx) if hasattr(schemes, "resample_se") else None
    return scores, ranks.astype(np.float32), tau, wins, se


def bootstrap(schemes: Rankable, *, n_resamples: int = 1000, ties: str = "average", tol: float = TIE_TOL,
              batch_size: int = 100, n_jobs: int = 1, progress: bool = False, rng: SeedLike = None) -> BootstrapResult:
    """Bootstrap the test units: scores, CIs, rank distributions, rank stability, pairwise wins.

    Each resample draws ``U`` units with replacement (the same draw for every
    run: paired), re-sums the per-unit statistics (micro scores re-sum TP, FP
    and FN; macro scores re-average the per-image scores of the drawn units),
    and ranks the runs.

    Parameters
    ----------
    schemes : Rankable
        :class:`~robustness.statistics.schemes.Schemes` or another ranking method's statistics; build it with
        ``unit='encounter'`` (the recommended default for bootstrap: an encounter's images are not independent)
        or 'image'; a
        ranking method's statistics come from
        :func:`robustness.statistics.ranking_methods.prepare`. The same ``rng`` draws the
        same resamples for every method on the same units (paired: Kendall's
        tau between methods is computed resample by resample).
    n_resamples : int
    ties : {'average', 'min'}
        Tie rule for the ranks.
    tol : float
        Scores this close tie (:func:`robustness.statistics.ranks.rank`).
    batch_size, n_jobs, progress, rng
        As in :func:`robustness.statistics.convergence.rank_convergence`.

    Returns
    -------
    BootstrapResult
    """
    code = ties_code(ties)
    if n_resamples < 1 or batch_size < 1:
        raise ValueError("n_resamples and batch_size must be >= 1")
    estimate = schemes.scores()
    final = rank(estimate, ties=ties, tol=tol)
    u = schemes.n_units
    sizes = batch_sizes(n_resamples, batch_size)
    children = batch_generators(rng, len(sizes))
    args = [(schemes, final, float(tol), code, u, size, child) for size, child in zip(sizes, children)]
    bar = progress_bar(progress, len(sizes), f"bootstrap ({schemes.ranking})")
    results = list(run_batches(_bootstrap_batch, args, n_jobs=n_jobs, prefer="threads", progress=bar))
    scores = np.concatenate([r[0] for r in results], axis=1)
    ranks = np.concatenate([r[1] for r in results], axis=1)
    tau = np.concatenate([r[2] for r in results], axis=1)
    wins = sum(r[3] for r in results) / n_resamples
    se = estimate_se = None
    if hasattr(schemes, "resample_se"):
        se = np.concatenate([r[4] for r in results], axis=1)
        estimate_se = schemes.resample_se(np.arange(u)[None])[:, 0]
    return BootstrapResult(schemes=schemes, estimate=estimate, distribution=scores, ranks=ranks,
                           final_ranks=final, tau=tau, wins=wins, jackknife=schemes.jackknife(),
                           standard_errors=se, estimate_se=estimate_se)
