# The lazy names of robustness.reporting: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import design_plots as design_plots
from . import document as document
from . import inference_plots as inference_plots
from . import plotting as plotting
from . import report as report
from . import sections as sections
from .document import Report as Report
from .publish import publish as publish
from .report import build as build
from .report import write as write

__all__ = [
    "Report",
    "build",
    "design_plots",
    "document",
    "inference_plots",
    "plotting",
    "publish",
    "report",
    "sections",
    "write",
]
