# The lazy names of robustness.results for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.results import checksums as checksums
from robustness.results import claims as claims
from robustness.results import escape as escape
from robustness.results import folder as folder
from robustness.results import study_result as study_result
from robustness.results.claims import CLAIMS as CLAIMS
from robustness.results.claims import register_claim as register_claim
from robustness.results.folder import ResultsDir as ResultsDir
from robustness.results.folder import open_results as open_results
from robustness.results.study_result import StudyResult as StudyResult
from robustness.results.study_result import Verdicts as Verdicts
from robustness.results.study_result import register_table as register_table

__all__ = [
    "CLAIMS",
    "ResultsDir",
    "StudyResult",
    "Verdicts",
    "checksums",
    "claims",
    "escape",
    "folder",
    "open_results",
    "register_claim",
    "register_table",
    "study_result",
]
