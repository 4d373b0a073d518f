# The lazy names of robustness.reporting for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.reporting import design_plots as design_plots
from robustness.reporting import document as document
from robustness.reporting import inference_plots as inference_plots
from robustness.reporting import plotting as plotting
from robustness.reporting import report as report
from robustness.reporting import sections as sections
from robustness.reporting.document import Report as Report
from robustness.reporting.publish import publish as publish
from robustness.reporting.report import build as build
from robustness.reporting.report import write as write

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
