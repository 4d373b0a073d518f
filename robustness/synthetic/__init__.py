"""Generators: synthetic inputs with a known truth, depending on nothing but the input layer and the seeds.

- :mod:`.challenge` (who takes part, then the images: :func:`make_challenge`), :mod:`.lesions` (one image's
  masks), :mod:`.volumes` (the same as 3D volumes);
- :mod:`.case_tables`: a multi-task per-case table (challengeR's long format).

The engines that use them (the design study, the calibration) are in :mod:`robustness.simulation`.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
