# The lazy names of robustness.results: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import checksums as checksums
from . import claims as claims
from . import escape as escape
from . import folder as folder
from . import meta as meta
from . import study_result as study_result
from .claims import CLAIMS as CLAIMS
from .claims import register_claim as register_claim
from .folder import ResultsDir as ResultsDir
from .folder import open_results as open_results
from .meta import DesignMeta as DesignMeta
from .meta import MainJobMeta as MainJobMeta
from .meta import QAMeta as QAMeta
from .meta import TableMeta as TableMeta
from .study_result import StudyResult as StudyResult
from .study_result import Verdicts as Verdicts
from .study_result import register_table as register_table

__all__ = [
    "CLAIMS",
    "DesignMeta",
    "MainJobMeta",
    "QAMeta",
    "ResultsDir",
    "StudyResult",
    "TableMeta",
    "Verdicts",
    "checksums",
    "claims",
    "escape",
    "folder",
    "meta",
    "open_results",
    "register_claim",
    "register_table",
    "study_result",
]
