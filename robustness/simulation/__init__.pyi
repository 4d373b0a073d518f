# The lazy names of robustness.simulation for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.simulation import calibration as calibration
from robustness.simulation import design as design
from robustness.simulation import grid as grid
from robustness.simulation import metric_tau as metric_tau
from robustness.simulation import populations as populations
from robustness.simulation import rank_intervals as rank_intervals
from robustness.simulation import recommendation as recommendation
from robustness.simulation import twin as twin
from robustness.simulation.design import DesignOptions as DesignOptions
from robustness.simulation.design import Setting as Setting
from robustness.simulation.design import simulate as simulate
from robustness.simulation.rank_intervals import rank_interval_coverage as rank_interval_coverage
from robustness.simulation.recommendation import recommend as recommend
from robustness.simulation.recommendation import summarise as summarise
from robustness.simulation.twin import challenge_stats as challenge_stats
from robustness.simulation.twin import fit as fit

__all__ = [
    "DesignOptions",
    "Setting",
    "calibration",
    "challenge_stats",
    "design",
    "fit",
    "grid",
    "metric_tau",
    "populations",
    "rank_interval_coverage",
    "rank_intervals",
    "recommend",
    "recommendation",
    "simulate",
    "summarise",
    "twin",
]
