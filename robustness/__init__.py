"""robustness: how far a challenge leaderboard can be trusted.

Data flow (pixels are read once), one subpackage per stage::

    io          files (TIFF/PNG masks, two folder layouts, per-case tables) -> Challenge
    synthetic   generators: synthetic challenges with a known truth (same Challenge API), per-case tables
    simulation  the engines of the design study and the calibration (twin fit, replicates, claims checked)
    overlap     Challenge -> pixel pass (gold registry, STAPLE, numba kernels) -> OverlapCounts; metrics
    statistics  OverlapCounts -> Schemes -> rankings, convergence, bootstrap, comparisons, uncertainty
    results     the hand-off of a study (StudyResult, verdicts, claims) and its results folder, below both
    reporting   figures and the report (read from the folder a study wrote), publishing a study
    qa          closed-ended QA: official partial credit, Table 5 (feeds the same statistics)

One table per concept: metrics (:data:`robustness.overlap.metrics.METRICS`), gold strategies
(:data:`robustness.overlap.gold.STRATEGIES`), both-empty policies
(:data:`robustness.overlap.empty.EMPTY_POLICIES`), ranking methods
(:data:`robustness.statistics.ranking_methods.RANKING_METHODS`).

Everything is imported lazily, so ``import robustness`` is cheap; ``from robustness import make_challenge``
(and the other public names below) works as before the subpackages.

Examples
--------
>>> from robustness import make_challenge, compute_overlap, schemes_from_counts, bootstrap
>>> counts = compute_overlap(make_challenge(n_encounters=6, n_images=8, n_runs=3, n_teams=1, rng=0), rng=0)
>>> boot = bootstrap(schemes_from_counts(counts, unit="encounter"), n_resamples=50, rng=0)
>>> boot.estimate.shape  # (schemes, runs)
(32, 3)
"""

from __future__ import annotations

import lazy_loader

__version__ = "0.1.0"

# the public names and subpackages: __init__.pyi (lazy_loader reads it; each name's module is imported on first use)
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
__all__ = sorted({*__all__, "__version__"})
