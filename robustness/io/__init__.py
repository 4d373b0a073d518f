"""Input: challenges read from disk (TIFF/PNG masks, the two folder layouts) and per-case score tables.

- :mod:`.challenge`: :class:`Challenge` (ids, shapes, who annotated what; lazy mask access), in-memory challenges;
- :mod:`.tiff`, :mod:`.masks`: decoding one mask file (every repair reported);
- :mod:`.folders`: what the layouts share (listing folders, shapes from headers, run policies, file-backed masks);
- :mod:`.dermavqa` (the MEDIQA-MAGIC 2025 layout, and writing it), :mod:`.raters` (one folder per rater);
- :mod:`.case_table`: per-case scores from other pipelines (challengeR's long format).

Nothing in an input folder is ever written to.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "Challenge": "challenge", "MaskSource": "challenge", "ArraySource": "arrays", "from_arrays": "arrays",
    "MaskFormat": "masks", "read_mask": "masks", "read_shape": "masks", "MASK_SUFFIXES": "masks",
    "FileSource": "file_source", "load_dermavqa": "dermavqa", "load_challenge": "dermavqa",
    "write_dermavqa": "dermavqa", "load_raters": "raters", "read_case_table": "case_table",
}, modules=("challenge", "arrays", "file_source", "tiff", "masks", "folders", "dermavqa", "raters", "case_table"))
