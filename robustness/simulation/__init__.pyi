# The lazy names of robustness.simulation: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import calibration as calibration
from . import design as design
from . import grid as grid
from . import metric_tau as metric_tau
from . import populations as populations
from . import rank_intervals as rank_intervals
from . import recommendation as recommendation
from . import twin as twin
from .design import DesignOptions as DesignOptions
from .design import Setting as Setting
from .design import simulate as simulate
from .rank_intervals import rank_interval_coverage as rank_interval_coverage
from .recommendation import recommend as recommend
from .recommendation import summarise as summarise
from .twin import challenge_stats as challenge_stats
from .twin import fit as fit

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
