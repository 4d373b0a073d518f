"""Simulation engines: the design study and the calibration, on synthetic challenges (:mod:`robustness.synthetic`).

- :mod:`.twin`: fit the synthetic generator to a real challenge (its twin);
- :mod:`.design`, :mod:`.grid`: one replicate of a setting, every replicate of a grid;
- :mod:`.recommendation`: summaries over replicates, the recommendation (which gold, how many encounters);
- :mod:`.calibration`: the package's claims checked against populations of known truth
  (:mod:`.populations`: the populations and their truth);
- :mod:`.metric_tau`, :mod:`.rank_intervals`: agreement between metrics' rankings and the coverage of a per-case
  table's rank intervals, by simulation.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
