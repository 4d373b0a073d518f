"""Overlap: every run counted against every gold, one image at a time, and what the counts mean.

- :mod:`.patterns`, :mod:`.gold`, :mod:`.staple`: rater patterns, the gold-strategy registry, STAPLE on pattern
  counts;
- :mod:`.pixel_pass`: :func:`compute_overlap`, the pixel pass (streams image by image, cached on disk);
- :mod:`.counts`: :class:`OverlapCounts`, its result;
- :mod:`.metrics`, :mod:`.empty`: the metric table and the both-empty policy (scores from counts);
- :mod:`.checks`: inputs that score without error but mean something else (copied raters, swapped foreground).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
