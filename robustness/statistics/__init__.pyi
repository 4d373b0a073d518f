# The lazy names of robustness.statistics: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import bootstrap as bootstrap
from . import case_rankings as case_rankings
from . import case_statistic as case_statistic
from . import comparisons as comparisons
from . import consensus as consensus
from . import convergence as convergence
from . import convergence_options as convergence_options
from . import count_schemes as count_schemes
from . import inference as inference
from . import leaderboard as leaderboard
from . import multiplicity as multiplicity
from . import paired as paired
from . import rankable as rankable
from . import ranking_methods as ranking_methods
from . import ranks as ranks
from . import schemes as schemes
from . import spread as spread
from . import table_schemes as table_schemes
from . import task_statistics as task_statistics
from . import test_based as test_based
from . import truth as truth
from . import uncertainty as uncertainty
from . import uncertainty_options as uncertainty_options
from . import verdicts as verdicts
from .bootstrap import BootstrapResult as BootstrapResult
from .comparisons import adjacent_pairs as adjacent_pairs
from .comparisons import pairwise_comparisons as pairwise_comparisons
from .comparisons import pairwise_tests as pairwise_tests
from .comparisons import ranking_agreement as ranking_agreement
from .comparisons import strategy_agreement as strategy_agreement
from .convergence import Convergence as Convergence
from .convergence import rank_convergence as rank_convergence
from .convergence_options import ConvergenceOptions as ConvergenceOptions
from .count_schemes import schemes_from_counts as schemes_from_counts
from .inference import bootstrap_interval as bootstrap_interval
from .inference import mean_interval as mean_interval
from .inference import tails as tails
from .leaderboard import official_results as official_results
from .leaderboard import scores_frame as scores_frame
from .multiplicity import adjust as adjust
from .rankable import Rankable as Rankable
from .ranking_methods import RANKING_METHODS as RANKING_METHODS
from .ranking_methods import RankingMethod as RankingMethod
from .ranking_methods import get_ranking as get_ranking
from .ranking_methods import prepare as prepare
from .ranks import kendall_tau as kendall_tau
from .ranks import l1 as l1
from .ranks import rank as rank
from .schemes import Schemes as Schemes
from .spread import agreement as agreement
from .spread import gold_spread as gold_spread
from .table_schemes import per_case_table as per_case_table
from .table_schemes import rank_then_aggregate as rank_then_aggregate
from .table_schemes import schemes_from_table as schemes_from_table
from .test_based import PairedTests as PairedTests
from .truth import truth_agreement as truth_agreement
from .uncertainty import ranking_uncertainty as ranking_uncertainty
from .uncertainty import units_needed as units_needed
from .uncertainty_options import UncertaintyOptions as UncertaintyOptions

__all__ = [
    "BootstrapResult",
    "Convergence",
    "ConvergenceOptions",
    "PairedTests",
    "RANKING_METHODS",
    "Rankable",
    "RankingMethod",
    "Schemes",
    "UncertaintyOptions",
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
    "convergence_options",
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
    "uncertainty_options",
    "units_needed",
    "verdicts",
]
