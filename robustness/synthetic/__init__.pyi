# The lazy names of robustness.synthetic: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import case_tables as case_tables
from . import challenge as challenge
from . import lesions as lesions
from . import pools as pools
from . import volumes as volumes
from .case_tables import example_table as example_table
from .challenge import Population as Population
from .challenge import SyntheticConfig as SyntheticConfig
from .challenge import draw_population as draw_population
from .challenge import make_challenge as make_challenge
from .challenge import true_mask as true_mask
from .pools import pool_counts as pool_counts

__all__ = [
    "Population",
    "SyntheticConfig",
    "case_tables",
    "challenge",
    "draw_population",
    "example_table",
    "lesions",
    "make_challenge",
    "pool_counts",
    "pools",
    "true_mask",
    "volumes",
]
