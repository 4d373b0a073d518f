"""Reporting: figures and the report, all read from the folder a study wrote; publishing a study.

The hand-off a study returns and the results folder it is written into live below both studies and reporting,
in :mod:`robustness.results`.

- :mod:`.publish`: :func:`publish`, a study's tables, figures, report and ``meta.json`` into its folder;
- :mod:`.plotting`, :mod:`.design_plots`: matplotlib figures (no file I/O);
- :mod:`.document`: a report as blocks, rendered to ``summary.md`` and one self-contained ``report.html``;
- :mod:`.sections`: the report sections of every study, registered per study; :mod:`.report` builds a report
  from a results folder alone.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
