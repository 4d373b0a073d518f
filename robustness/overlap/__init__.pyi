# The lazy names of robustness.overlap: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import checks as checks
from . import counts as counts
from . import empty as empty
from . import gold as gold
from . import image_counts as image_counts
from . import metrics as metrics
from . import patterns as patterns
from . import pixel_pass as pixel_pass
from . import staple as staple
from .checks import duplicate_raters as duplicate_raters
from .checks import foreground_coverage as foreground_coverage
from .counts import OverlapCounts as OverlapCounts
from .counts import load_counts as load_counts
from .counts import save_counts as save_counts
from .empty import EMPTY_POLICIES as EMPTY_POLICIES
from .empty import EmptyPolicy as EmptyPolicy
from .empty import empty_policy as empty_policy
from .empty import register_empty_policy as register_empty_policy
from .gold import STRATEGIES as STRATEGIES
from .gold import GoldStrategy as GoldStrategy
from .gold import get_strategy as get_strategy
from .gold import official_strategy as official_strategy
from .gold import register as register
from .gold import register_strategy as register_strategy
from .gold import resolve as resolve
from .image_counts import TWIN_JACCARD as TWIN_JACCARD
from .image_counts import ImageCounts as ImageCounts
from .image_counts import count_image as count_image
from .metrics import METRICS as METRICS
from .metrics import Metric as Metric
from .metrics import get_metric as get_metric
from .metrics import register_metric as register_metric
from .pixel_pass import OverlapOptions as OverlapOptions
from .pixel_pass import compute_overlap as compute_overlap
from .staple import StapleResult as StapleResult

__all__ = [
    "EMPTY_POLICIES",
    "EmptyPolicy",
    "GoldStrategy",
    "ImageCounts",
    "METRICS",
    "Metric",
    "OverlapCounts",
    "OverlapOptions",
    "STRATEGIES",
    "StapleResult",
    "TWIN_JACCARD",
    "checks",
    "compute_overlap",
    "count_image",
    "counts",
    "duplicate_raters",
    "empty",
    "empty_policy",
    "foreground_coverage",
    "get_metric",
    "get_strategy",
    "gold",
    "image_counts",
    "load_counts",
    "metrics",
    "official_strategy",
    "patterns",
    "pixel_pass",
    "register",
    "register_empty_policy",
    "register_metric",
    "register_strategy",
    "resolve",
    "save_counts",
    "staple",
]
