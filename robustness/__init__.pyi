# The lazy names of robustness for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness import errors as errors
from robustness import files as files
from robustness import io as io
from robustness import overlap as overlap
from robustness import parallel as parallel
from robustness import qa as qa
from robustness import reporting as reporting
from robustness import results as results
from robustness import seeds as seeds
from robustness import simulation as simulation
from robustness import statistics as statistics
from robustness import synthetic as synthetic
from robustness.io.arrays import from_arrays as from_arrays
from robustness.io.case_table import read_case_table as read_case_table
from robustness.io.challenge import Challenge as Challenge
from robustness.io.dermavqa import load_challenge as load_challenge
from robustness.io.dermavqa import load_dermavqa as load_dermavqa
from robustness.io.dermavqa import write_dermavqa as write_dermavqa
from robustness.io.masks import read_mask as read_mask
from robustness.io.raters import load_raters as load_raters
from robustness.overlap.counts import OverlapCounts as OverlapCounts
from robustness.overlap.gold import GoldStrategy as GoldStrategy
from robustness.overlap.gold import register as register
from robustness.overlap.gold import register_strategy as register_strategy
from robustness.overlap.metrics import Metric as Metric
from robustness.overlap.metrics import register_metric as register_metric
from robustness.overlap.pixel_pass import compute_overlap as compute_overlap
from robustness.overlap.staple import staple as staple
from robustness.reporting.document import Report as Report
from robustness.reporting.publish import publish as publish
from robustness.results.folder import ResultsDir as ResultsDir
from robustness.results.folder import open_results as open_results
from robustness.statistics.bootstrap import bootstrap as bootstrap
from robustness.statistics.comparisons import pairwise_comparisons as pairwise_comparisons
from robustness.statistics.convergence import rank_convergence as rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts as schemes_from_counts
from robustness.statistics.leaderboard import leaderboard as leaderboard
from robustness.statistics.leaderboard import scores_frame as scores_frame
from robustness.statistics.ranking_methods import RankingMethod as RankingMethod
from robustness.statistics.ranking_methods import register_ranking as register_ranking
from robustness.statistics.ranks import rank as rank
from robustness.statistics.schemes import Schemes as Schemes
from robustness.statistics.spread import gold_spread as gold_spread
from robustness.statistics.table_schemes import schemes_from_table as schemes_from_table
from robustness.statistics.uncertainty import ranking_uncertainty as ranking_uncertainty
from robustness.synthetic.challenge import SyntheticConfig as SyntheticConfig
from robustness.synthetic.challenge import make_challenge as make_challenge

__version__: str

__all__ = [
    "Challenge",
    "GoldStrategy",
    "Metric",
    "OverlapCounts",
    "RankingMethod",
    "Report",
    "ResultsDir",
    "Schemes",
    "SyntheticConfig",
    "bootstrap",
    "compute_overlap",
    "errors",
    "files",
    "from_arrays",
    "gold_spread",
    "io",
    "leaderboard",
    "load_challenge",
    "load_dermavqa",
    "load_raters",
    "make_challenge",
    "open_results",
    "overlap",
    "pairwise_comparisons",
    "parallel",
    "publish",
    "qa",
    "rank",
    "rank_convergence",
    "ranking_uncertainty",
    "read_case_table",
    "read_mask",
    "register",
    "register_metric",
    "register_ranking",
    "register_strategy",
    "reporting",
    "results",
    "schemes_from_counts",
    "schemes_from_table",
    "scores_frame",
    "seeds",
    "simulation",
    "staple",
    "statistics",
    "synthetic",
    "write_dermavqa",
]
