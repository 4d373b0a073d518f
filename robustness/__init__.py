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

__version__ = "0.1.0"

#: Where each public name lives (the subpackage, then its module).
_PUBLIC = {
    # input
    "Challenge": "io.challenge", "from_arrays": "io.arrays", "load_dermavqa": "io.dermavqa",
    "load_raters": "io.raters", "load_challenge": "io.dermavqa", "write_dermavqa": "io.dermavqa",
    "read_mask": "io.masks", "read_case_table": "io.case_table",
    # results folders
    "publish": "reporting.publish",
    # overlap
    "compute_overlap": "overlap.pixel_pass", "OverlapCounts": "overlap.counts", "GoldStrategy": "overlap.gold",
    "register_strategy": "overlap.gold", "register": "overlap.gold", "Metric": "overlap.metrics",
    "register_metric": "overlap.metrics",
    "staple": "overlap.staple",
    # statistics
    "Schemes": "statistics.schemes", "schemes_from_counts": "statistics.count_schemes",
    "schemes_from_table": "statistics.table_schemes", "rank": "statistics.ranks",
    "rank_convergence": "statistics.convergence", "bootstrap": "statistics.bootstrap",
    "pairwise_comparisons": "statistics.comparisons", "ranking_uncertainty": "statistics.uncertainty",
    "gold_spread": "statistics.spread", "RankingMethod": "statistics.ranking_methods",
    "register_ranking": "statistics.ranking_methods", "scores_frame": "statistics.leaderboard",
    "leaderboard": "statistics.leaderboard",
    # simulation
    "make_challenge": "synthetic.challenge", "SyntheticConfig": "synthetic.challenge",
    # reporting
    "Report": "reporting.document", "ResultsDir": "results.folder", "open_results": "results.folder",
}

_SUBPACKAGES = ("io", "synthetic", "overlap", "statistics", "simulation", "results", "reporting", "qa", "errors",
                "files", "parallel", "seeds")


def __getattr__(name: str):
    import importlib

    if name in _PUBLIC:
        return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted({"__version__", *_PUBLIC, *_SUBPACKAGES})
