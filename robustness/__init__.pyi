# The lazy names of robustness: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import errors as errors
from . import files as files
from . import io as io
from . import overlap as overlap
from . import parallel as parallel
from . import qa as qa
from . import reporting as reporting
from . import results as results
from . import seeds as seeds
from . import simulation as simulation
from . import statistics as statistics
from . import synthetic as synthetic
from .io.arrays import from_arrays as from_arrays
from .io.case_table import read_case_table as read_case_table
from .io.challenge import Challenge as Challenge
from .io.dermavqa import load_challenge as load_challenge
from .io.dermavqa import load_dermavqa as load_dermavqa
from .io.dermavqa import write_dermavqa as write_dermavqa
from .io.masks import read_mask as read_mask
from .io.raters import load_raters as load_raters
from .overlap.counts import OverlapCounts as OverlapCounts
from .overlap.gold import GoldStrategy as GoldStrategy
from .overlap.gold import register as register
from .overlap.gold import register_strategy as register_strategy
from .overlap.metrics import Metric as Metric
from .overlap.metrics import register_metric as register_metric
from .overlap.pixel_pass import OverlapOptions as OverlapOptions
from .overlap.pixel_pass import compute_overlap as compute_overlap
from .overlap.staple import staple as staple
from .reporting.document import Report as Report
from .reporting.publish import publish as publish
from .results.folder import ResultsDir as ResultsDir
from .results.folder import open_results as open_results
from .statistics.bootstrap import bootstrap as bootstrap
from .statistics.comparisons import pairwise_comparisons as pairwise_comparisons
from .statistics.convergence import rank_convergence as rank_convergence
from .statistics.count_schemes import schemes_from_counts as schemes_from_counts
from .statistics.leaderboard import leaderboard as leaderboard
from .statistics.leaderboard import scores_frame as scores_frame
from .statistics.ranking_methods import RankingMethod as RankingMethod
from .statistics.ranking_methods import register_ranking as register_ranking
from .statistics.ranks import rank as rank
from .statistics.schemes import Schemes as Schemes
from .statistics.spread import gold_spread as gold_spread
from .statistics.table_schemes import schemes_from_table as schemes_from_table
from .statistics.uncertainty import ranking_uncertainty as ranking_uncertainty
from .synthetic.challenge import SyntheticConfig as SyntheticConfig
from .synthetic.challenge import make_challenge as make_challenge

__version__: str

__all__ = [
    "Challenge",
    "GoldStrategy",
    "Metric",
    "OverlapCounts",
    "OverlapOptions",
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
