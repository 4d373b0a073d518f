# The lazy names of robustness._kernels: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import pixels as pixels
from . import population as population
from . import resampling as resampling
from . import signed_rank as signed_rank
from . import surface as surface
from . import twin as twin
from .pixels import binarize as binarize
from .pixels import blob_fields as blob_fields
from .pixels import count_run as count_run
from .pixels import count_run_words as count_run_words
from .pixels import golds_from_words as golds_from_words
from .pixels import pack_rows as pack_rows
from .pixels import pattern_hist as pattern_hist
from .pixels import rater_counts as rater_counts
from .pixels import rater_masks as rater_masks
from .pixels import upsample_positive as upsample_positive
from .population import margin_l1 as margin_l1
from .population import margin_l1_sizes as margin_l1_sizes
from .resampling import kendall_tau_b as kendall_tau_b
from .resampling import l1_curves as l1_curves
from .resampling import rank_rows as rank_rows
from .resampling import resample_sums as resample_sums
from .resampling import scores_from_sums as scores_from_sums
from .signed_rank import beaten_l1_curves as beaten_l1_curves
from .signed_rank import beaten_resamples as beaten_resamples
from .signed_rank import runs_beaten as runs_beaten
from .signed_rank import signed_rank_z as signed_rank_z
from .surface import distances_at as distances_at
from .surface import label_sizes as label_sizes
from .surface import mask_box as mask_box
from .surface import squared_edt as squared_edt
from .surface import squared_edt_at as squared_edt_at
from .surface import surface_distances as surface_distances
from .surface import surface_of as surface_of
from .surface import union_box as union_box
from .twin import threshold_band as threshold_band

__all__ = [
    "beaten_l1_curves",
    "beaten_resamples",
    "binarize",
    "blob_fields",
    "count_run",
    "count_run_words",
    "distances_at",
    "golds_from_words",
    "kendall_tau_b",
    "l1_curves",
    "label_sizes",
    "margin_l1",
    "margin_l1_sizes",
    "mask_box",
    "pack_rows",
    "pattern_hist",
    "pixels",
    "population",
    "rank_rows",
    "rater_counts",
    "rater_masks",
    "resample_sums",
    "resampling",
    "runs_beaten",
    "scores_from_sums",
    "signed_rank",
    "signed_rank_z",
    "squared_edt",
    "squared_edt_at",
    "surface",
    "surface_distances",
    "surface_of",
    "threshold_band",
    "twin",
    "union_box",
    "upsample_positive",
]
