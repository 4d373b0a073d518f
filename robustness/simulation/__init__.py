"""Simulation: synthetic challenges with a known truth, fitted to real ones, and the design study.

- :mod:`.synthetic` (the generator: who takes part, then the images), :mod:`.lesions` (one image's masks);
- :mod:`.calibrate`: fit the generator to a real challenge;
- :mod:`.design`: one replicate of a setting, summaries over replicates, the recommendation.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "SyntheticConfig": "synthetic", "Population": "synthetic", "draw_population": "synthetic",
    "make_challenge": "synthetic", "true_mask": "synthetic", "pool_counts": "synthetic",
    "challenge_stats": "calibrate", "fit": "calibrate",
    "Setting": "design", "DesignOptions": "design", "simulate": "design", "summarise": "design",
    "recommend": "design",
}, modules=("synthetic", "lesions", "calibrate", "design"))
