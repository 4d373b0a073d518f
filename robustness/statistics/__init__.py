"""Statistics: from overlap counts (or per-case scores) to rankings and how far they can be trusted.

- :mod:`.schemes`: :class:`Schemes`, every leaderboard score as a ratio of sums over test units;
- :mod:`.ranks`: ranks with an explicit tie rule, L1, Kendall's tau; :mod:`.multiplicity`: adjusted p-values;
- :mod:`.ranking_methods` (the registry and the :class:`Rankable` protocol the engines rank; each method's
  exact statistic in :mod:`.task_statistics`), :mod:`.test_based` (the engines' paired tests),
  :mod:`.paired` (the Wilcoxon and t-tests), :mod:`.case_rankings` and :mod:`.consensus` (per-case tables);
- :mod:`.convergence` (the paper's curves over many orders), :mod:`.bootstrap` (resampled units),
  :mod:`.uncertainty` (distance to unlimited data), :mod:`.comparisons` (the significance analysis,
  agreement between rankings);
- :mod:`.spread` (the annotators' own spread, Table 4), :mod:`.truth` (synthetic truth),
  :mod:`.leaderboard` (score tables, the official JSON), :mod:`.verdicts` (leaders and ties).
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "Schemes": "schemes", "schemes_from_counts": "count_schemes", "schemes_from_table": "table_schemes",
    "per_case_table": "table_schemes", "rank_then_aggregate": "table_schemes",
    "rank": "ranks", "l1": "ranks", "kendall_tau": "ranks",
    "Convergence": "convergence", "rank_convergence": "convergence",
    "BootstrapResult": "bootstrap", "bootstrap_interval": "inference", "mean_interval": "inference",
    "adjust": "multiplicity", "tails": "inference",
    "pairwise_comparisons": "comparisons", "pairwise_tests": "comparisons", "adjacent_pairs": "comparisons",
    "strategy_agreement": "comparisons", "ranking_agreement": "comparisons",
    "ranking_uncertainty": "uncertainty", "units_needed": "uncertainty",
    "RankingMethod": "ranking_methods", "RANKING_METHODS": "ranking_methods", "get_ranking": "ranking_methods",
    "prepare": "ranking_methods", "Rankable": "rankable", "PairedTests": "test_based",
    "gold_spread": "spread", "agreement": "spread", "truth_agreement": "truth",
    "scores_frame": "leaderboard", "official_results": "leaderboard",
}, modules=("inference", "multiplicity", "paired", "task_statistics", "case_rankings", "consensus", "rankable",
            "schemes", "count_schemes", "table_schemes", "ranks", "ranking_methods", "test_based", "case_statistic",
            "convergence", "bootstrap", "comparisons", "uncertainty", "spread", "truth", "leaderboard", "verdicts"))
