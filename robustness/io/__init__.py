"""Input: challenges read from disk (TIFF/PNG masks, the two folder layouts) and per-case score tables.

- :mod:`.challenge`: :class:`Challenge` (ids, shapes, who annotated what; lazy mask access), in-memory challenges;
- :mod:`.tiff`, :mod:`.masks`: decoding one mask file (every repair reported);
- :mod:`.folders`: what the layouts share (listing folders, shapes from headers, run policies, file-backed masks);
- :mod:`.dermavqa` (the MEDIQA-MAGIC 2025 layout, and writing it), :mod:`.raters` (one folder per rater);
- :mod:`.case_table`: per-case scores from other pipelines (challengeR's long format).

Nothing in an input folder is ever written to.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
