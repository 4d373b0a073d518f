"""Reporting: results folders, figures and the report, all read from the folder a study wrote.

- :mod:`.study_result`: :class:`StudyResult`, the hand-off (tables by registered name, verdicts, metadata);
- :mod:`.results`: staged, locked results folders (written atomically, never mixed with another input's);
- :mod:`.plotting`, :mod:`.design_plots`: matplotlib figures (no file I/O);
- :mod:`.document`: a report as blocks, rendered to ``summary.md`` and one self-contained ``report.html``;
- :mod:`.sections`: the report sections of every study, registered per study; :mod:`.report` builds a report
  from a results folder alone.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "ResultsDir": "results", "open_results": "results", "Report": "document", "StudyResult": "study_result",
    "register_table": "study_result", "build": "report", "write": "report",
}, modules=("results", "plotting", "design_plots", "document", "report", "sections", "study_result"))
