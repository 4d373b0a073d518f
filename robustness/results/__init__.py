"""What a study hands over and where it is written, below both the studies and the reports.

- :mod:`.study_result`: :class:`StudyResult`, the hand-off (tables by registered name, verdicts, metadata);
- :mod:`.claims`: every claim of the verdicts, declared once (:data:`~.claims.CLAIMS`);
- :mod:`.folder`: staged, locked results folders (written atomically, never mixed with another input's);
- :mod:`.escape`: names made safe for Markdown, HTML and CSV;
- :mod:`.checksums`: the tables' and figures' checksums, recorded in meta.json and checked before a rebuild.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
