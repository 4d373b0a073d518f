"""numba kernels: plain arrays in, arrays out. No objects, no generators, no pandas.

- :mod:`.pixels`: mask decoding, bit packing, rater patterns, overlap counts,
  the synthetic generator's blob fields and upsampler (the pixel pass);
- :mod:`.resampling`: scores from summed statistics, ranks, Kendall's tau, L1
  curves and bootstrap sums (the resampling engines);
- :mod:`.signed_rank`: paired Wilcoxon signed-rank tests between every pair of
  runs, Holm, runs beaten (the test-based ranking);
- :mod:`.population`: the L1 with a margin between noisy rankings and their population's (the distance to
  unlimited data);
- :mod:`.surface`: mask borders, the box that holds them and exact distances between them (the boundary metrics);
- :mod:`.twin`: a rater's mask on a band around a real image's truth (the twin made of a challenge's images).

Every kernel has a slow, obviously correct numpy twin in ``tests/naive.py``.

The kernels are exported lazily (lazy_loader, from ``__init__.pyi``): ``from robustness import _kernels`` loads no
numba, and the first call of ``_kernels.count_run`` imports :mod:`.pixels` (and numba with it).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
