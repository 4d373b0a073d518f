# The lazy names of robustness.studies for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.studies import calibration as calibration
from robustness.studies import common as common
from robustness.studies import design as design
from robustness.studies import design_base as design_base
from robustness.studies import qa as qa
from robustness.studies import rank_convergence as rank_convergence
from robustness.studies import rank_convergence_metrics as rank_convergence_metrics
from robustness.studies import rank_convergence_options as rank_convergence_options
from robustness.studies import resampling_verdicts as resampling_verdicts
from robustness.studies import scoring as scoring
from robustness.studies import table as table
from robustness.studies.common import ResamplingOptions as ResamplingOptions
from robustness.studies.design_base import DesignStudyOptions as DesignStudyOptions
from robustness.studies.qa import QAOptions as QAOptions
from robustness.studies.rank_convergence_options import RankConvergenceOptions as RankConvergenceOptions
from robustness.studies.table import TableOptions as TableOptions

__all__ = [
    "DesignStudyOptions",
    "QAOptions",
    "RankConvergenceOptions",
    "ResamplingOptions",
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
