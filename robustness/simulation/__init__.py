"""Simulation engines: the design study and the calibration, on synthetic challenges (:mod:`robustness.synthetic`).

- :mod:`.twin`: fit the synthetic generator to a real challenge (its twin);
- :mod:`.design`, :mod:`.grid`: one replicate of a setting, every replicate of a grid;
- :mod:`.recommendation`: summaries over replicates, the recommendation (which gold, how many encounters);
- :mod:`.calibration`: the package's claims checked against populations of known truth
  (:mod:`.populations`: the populations and their truth);
- :mod:`.metric_tau`, :mod:`.rank_intervals`: agreement between metrics' rankings and the coverage of a per-case
  table's rank intervals, by simulation.
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "challenge_stats": "twin", "fit": "twin",
    "Setting": "design", "DesignOptions": "design", "simulate": "design", "summarise": "recommendation",
    "recommend": "recommendation", "rank_interval_coverage": "rank_intervals",
}, modules=("twin", "design", "recommendation", "grid", "calibration", "populations", "metric_tau", "rank_intervals"))
