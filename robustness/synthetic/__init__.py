"""Generators: synthetic inputs with a known truth, depending on nothing but the input layer and the seeds.

- :mod:`.challenge` (who takes part, then the images: :func:`make_challenge`), :mod:`.lesions` (one image's
  masks), :mod:`.volumes` (the same as 3D volumes);
- :mod:`.case_tables`: a multi-task per-case table (challengeR's long format).

The engines that use them (the design study, the calibration) are in :mod:`robustness.simulation`.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "SyntheticConfig": "challenge", "Population": "challenge", "draw_population": "challenge",
    "make_challenge": "challenge", "true_mask": "challenge", "pool_counts": "pools",
    "example_table": "case_tables",
}, modules=("challenge", "pools", "lesions", "volumes", "case_tables"))
