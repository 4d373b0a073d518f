# The lazy names of robustness.overlap for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.overlap import checks as checks
from robustness.overlap import counts as counts
from robustness.overlap import empty as empty
from robustness.overlap import gold as gold
from robustness.overlap import image_counts as image_counts
from robustness.overlap import metrics as metrics
from robustness.overlap import patterns as patterns
from robustness.overlap import pixel_pass as pixel_pass
from robustness.overlap import staple as staple
from robustness.overlap.checks import duplicate_raters as duplicate_raters
from robustness.overlap.checks import foreground_coverage as foreground_coverage
from robustness.overlap.counts import OverlapCounts as OverlapCounts
from robustness.overlap.counts import load_counts as load_counts
from robustness.overlap.counts import save_counts as save_counts
from robustness.overlap.empty import EMPTY_POLICIES as EMPTY_POLICIES
from robustness.overlap.empty import EmptyPolicy as EmptyPolicy
from robustness.overlap.empty import empty_policy as empty_policy
from robustness.overlap.empty import register_empty_policy as register_empty_policy
from robustness.overlap.gold import STRATEGIES as STRATEGIES
from robustness.overlap.gold import GoldStrategy as GoldStrategy
from robustness.overlap.gold import get_strategy as get_strategy
from robustness.overlap.gold import official_strategy as official_strategy
from robustness.overlap.gold import register as register
from robustness.overlap.gold import register_strategy as register_strategy
from robustness.overlap.gold import resolve as resolve
from robustness.overlap.image_counts import TWIN_JACCARD as TWIN_JACCARD
from robustness.overlap.image_counts import ImageCounts as ImageCounts
from robustness.overlap.image_counts import count_image as count_image
from robustness.overlap.metrics import METRICS as METRICS
from robustness.overlap.metrics import Metric as Metric
from robustness.overlap.metrics import get_metric as get_metric
from robustness.overlap.metrics import register_metric as register_metric
from robustness.overlap.pixel_pass import compute_overlap as compute_overlap
from robustness.overlap.staple import StapleResult as StapleResult

__all__ = [
    "EMPTY_POLICIES",
    "EmptyPolicy",
    "GoldStrategy",
    "ImageCounts",
    "METRICS",
    "Metric",
    "OverlapCounts",
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
