"""What a study hands over and where it is written, below both the studies and the reports.

- :mod:`.study_result`: :class:`StudyResult`, the hand-off (tables by registered name, verdicts, metadata);
- :mod:`.claims`: every claim of the verdicts, declared once (:data:`~.claims.CLAIMS`);
- :mod:`.folder`: staged, locked results folders (written atomically, never mixed with another input's);
- :mod:`.escape`: names made safe for Markdown, HTML and CSV;
- :mod:`.checksums`: the tables' and figures' checksums, recorded in meta.json and checked before a rebuild.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "ResultsDir": "folder", "open_results": "folder", "StudyResult": "study_result", "Verdicts": "study_result",
    "register_table": "study_result", "CLAIMS": "claims", "register_claim": "claims",
}, modules=("study_result", "claims", "folder", "escape", "checksums"))
