# The lazy names of robustness.synthetic for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.synthetic import case_tables as case_tables
from robustness.synthetic import challenge as challenge
from robustness.synthetic import lesions as lesions
from robustness.synthetic import pools as pools
from robustness.synthetic import volumes as volumes
from robustness.synthetic.case_tables import example_table as example_table
from robustness.synthetic.challenge import Population as Population
from robustness.synthetic.challenge import SyntheticConfig as SyntheticConfig
from robustness.synthetic.challenge import draw_population as draw_population
from robustness.synthetic.challenge import make_challenge as make_challenge
from robustness.synthetic.challenge import true_mask as true_mask
from robustness.synthetic.pools import pool_counts as pool_counts

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
