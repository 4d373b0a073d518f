"""Reporting: results folders, figures and the report, all read from the folder a study wrote.

- :mod:`.results`: staged, locked results folders (written atomically, never mixed with another input's);
- :mod:`.plotting`, :mod:`.design_plots`: matplotlib figures (no file I/O);
- :mod:`.report`: the report as blocks, rendered to ``summary.md`` and one self-contained ``report.html``.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "ResultsDir": "results", "open_results": "results", "Report": "report",
}, modules=("results", "plotting", "design_plots", "report"))
