# The lazy names of robustness.studies: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import calibration as calibration
from . import common as common
from . import design as design
from . import design_base as design_base
from . import qa as qa
from . import rank_convergence as rank_convergence
from . import rank_convergence_metrics as rank_convergence_metrics
from . import rank_convergence_options as rank_convergence_options
from . import resampling_verdicts as resampling_verdicts
from . import scoring as scoring
from . import table as table
from .common import ResamplingOptions as ResamplingOptions
from .design_base import DesignStudyOptions as DesignStudyOptions
from .qa import QAOptions as QAOptions
from .rank_convergence_options import RankConvergenceOptions as RankConvergenceOptions
from .scoring import ScoringOptions as ScoringOptions
from .table import TableOptions as TableOptions

__all__ = [
    "DesignStudyOptions",
    "QAOptions",
    "RankConvergenceOptions",
    "ResamplingOptions",
    "ScoringOptions",
    "TableOptions",
    "calibration",
    "common",
    "design",
    "design_base",
    "qa",
    "rank_convergence",
    "rank_convergence_metrics",
    "rank_convergence_options",
    "resampling_verdicts",
    "scoring",
    "table",
]
