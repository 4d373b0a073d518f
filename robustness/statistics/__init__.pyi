# The lazy names of robustness.statistics for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.statistics import bootstrap as bootstrap
from robustness.statistics import case_rankings as case_rankings
from robustness.statistics import case_statistic as case_statistic
from robustness.statistics import comparisons as comparisons
from robustness.statistics import consensus as consensus
from robustness.statistics import convergence as convergence
from robustness.statistics import count_schemes as count_schemes
from robustness.statistics import inference as inference
from robustness.statistics import leaderboard as leaderboard
from robustness.statistics import multiplicity as multiplicity
from robustness.statistics import paired as paired
from robustness.statistics import rankable as rankable
from robustness.statistics import ranking_methods as ranking_methods
from robustness.statistics import ranks as ranks
from robustness.statistics import schemes as schemes
from robustness.statistics import spread as spread
from robustness.statistics import table_schemes as table_schemes
from robustness.statistics import task_statistics as task_statistics
from robustness.statistics import test_based as test_based
from robustness.statistics import truth as truth
from robustness.statistics import uncertainty as uncertainty
from robustness.statistics import verdicts as verdicts
from robustness.statistics.bootstrap import BootstrapResult as BootstrapResult
from robustness.statistics.comparisons import adjacent_pairs as adjacent_pairs
from robustness.statistics.comparisons import pairwise_comparisons as pairwise_comparisons
from robustness.statistics.comparisons import pairwise_tests as pairwise_tests
from robustness.statistics.comparisons import ranking_agreement as ranking_agreement
from robustness.statistics.comparisons import strategy_agreement as strategy_agreement
from robustness.statistics.convergence import Convergence as Convergence
from robustness.statistics.convergence import rank_convergence as rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts as schemes_from_counts
from robustness.statistics.inference import bootstrap_interval as bootstrap_interval
from robustness.statistics.inference import mean_interval as mean_interval
from robustness.statistics.inference import tails as tails
from robustness.statistics.leaderboard import official_results as official_results
from robustness.statistics.leaderboard import scores_frame as scores_frame
from robustness.statistics.multiplicity import adjust as adjust
from robustness.statistics.rankable import Rankable as Rankable
from robustness.statistics.ranking_methods import RANKING_METHODS as RANKING_METHODS
from robustness.statistics.ranking_methods import RankingMethod as RankingMethod
from robustness.statistics.ranking_methods import get_ranking as get_ranking
from robustness.statistics.ranking_methods import prepare as prepare
from robustness.statistics.ranks import kendall_tau as kendall_tau
from robustness.statistics.ranks import l1 as l1
from robustness.statistics.ranks import rank as rank
from robustness.statistics.schemes import Schemes as Schemes
from robustness.statistics.spread import agreement as agreement
from robustness.statistics.spread import gold_spread as gold_spread
from robustness.statistics.table_schemes import per_case_table as per_case_table
from robustness.statistics.table_schemes import rank_then_aggregate as rank_then_aggregate
from robustness.statistics.table_schemes import schemes_from_table as schemes_from_table
from robustness.statistics.test_based import PairedTests as PairedTests
from robustness.statistics.truth import truth_agreement as truth_agreement
from robustness.statistics.uncertainty import ranking_uncertainty as ranking_uncertainty
from robustness.statistics.uncertainty import units_needed as units_needed

__all__ = [
    "BootstrapResult",
    "Convergence",
    "PairedTests",
    "RANKING_METHODS",
    "Rankable",
    "RankingMethod",
    "Schemes",
    "adjacent_pairs",
    "adjust",
    "agreement",
    "bootstrap",
    "bootstrap_interval",
    "case_rankings",
    "case_statistic",
    "comparisons",
    "consensus",
    "convergence",
    "count_schemes",
    "get_ranking",
    "gold_spread",
    "inference",
    "kendall_tau",
    "l1",
    "leaderboard",
    "mean_interval",
    "multiplicity",
    "official_results",
    "paired",
    "pairwise_comparisons",
    "pairwise_tests",
    "per_case_table",
    "prepare",
    "rank",
    "rank_convergence",
    "rank_then_aggregate",
    "rankable",
    "ranking_agreement",
    "ranking_methods",
    "ranking_uncertainty",
    "ranks",
    "schemes",
    "schemes_from_counts",
    "schemes_from_table",
    "scores_frame",
    "spread",
    "strategy_agreement",
    "table_schemes",
    "tails",
    "task_statistics",
    "test_based",
    "truth",
    "truth_agreement",
    "uncertainty",
    "units_needed",
    "verdicts",
]
