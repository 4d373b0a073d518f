"""Overlap: every run counted against every gold, one image at a time, and what the counts mean.

- :mod:`.patterns`, :mod:`.gold`, :mod:`.staple`: rater patterns, the gold-strategy registry, STAPLE on pattern
  counts;
- :mod:`.pixel_pass`: :func:`compute_overlap`, the pixel pass (streams image by image, cached on disk);
- :mod:`.counts`: :class:`OverlapCounts`, its result;
- :mod:`.metrics`, :mod:`.empty`: the metric table and the both-empty policy (scores from counts);
- :mod:`.checks`: inputs that score without error but mean something else (copied raters, swapped foreground).
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "compute_overlap": "pixel_pass", "count_image": "image_counts", "ImageCounts": "image_counts",
    "TWIN_JACCARD": "image_counts", "OverlapCounts": "counts", "save_counts": "counts", "load_counts": "counts",
    "GoldStrategy": "gold", "STRATEGIES": "gold", "register_strategy": "gold",
    "register": "gold", "get_strategy": "gold", "resolve": "gold",
    "official_strategy": "gold", "Metric": "metrics", "METRICS": "metrics", "register_metric": "metrics",
    "get_metric": "metrics", "EmptyPolicy": "empty", "EMPTY_POLICIES": "empty", "empty_policy": "empty",
    "register_empty_policy": "empty",
    "StapleResult": "staple", "duplicate_raters": "checks", "foreground_coverage": "checks",
}, modules=("patterns", "gold", "staple", "metrics", "empty", "counts", "checks", "image_counts", "pixel_pass"))
