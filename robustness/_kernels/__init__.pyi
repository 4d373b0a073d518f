# The lazy names of robustness._kernels for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness._kernels import pixels as pixels
from robustness._kernels import population as population
from robustness._kernels import resampling as resampling
from robustness._kernels import signed_rank as signed_rank
from robustness._kernels import surface as surface
from robustness._kernels import twin as twin
from robustness._kernels.pixels import binarize as binarize
from robustness._kernels.pixels import blob_fields as blob_fields
from robustness._kernels.pixels import count_run as count_run
from robustness._kernels.pixels import count_run_words as count_run_words
from robustness._kernels.pixels import golds_from_words as golds_from_words
from robustness._kernels.pixels import pack_rows as pack_rows
from robustness._kernels.pixels import pattern_hist as pattern_hist
from robustness._kernels.pixels import rater_counts as rater_counts
from robustness._kernels.pixels import upsample_positive as upsample_positive
from robustness._kernels.population import margin_l1 as margin_l1
from robustness._kernels.population import margin_l1_sizes as margin_l1_sizes
from robustness._kernels.resampling import kendall_tau_b as kendall_tau_b
from robustness._kernels.resampling import l1_curves as l1_curves
from robustness._kernels.resampling import rank_rows as rank_rows
from robustness._kernels.resampling import resample_sums as resample_sums
from robustness._kernels.resampling import scores_from_sums as scores_from_sums
from robustness._kernels.signed_rank import beaten_l1_curves as beaten_l1_curves
from robustness._kernels.signed_rank import beaten_resamples as beaten_resamples
from robustness._kernels.signed_rank import runs_beaten as runs_beaten
from robustness._kernels.signed_rank import signed_rank_z as signed_rank_z
from robustness._kernels.surface import distances_at as distances_at
from robustness._kernels.surface import label_sizes as label_sizes
from robustness._kernels.surface import mask_box as mask_box
from robustness._kernels.surface import squared_edt as squared_edt
from robustness._kernels.surface import squared_edt_at as squared_edt_at
from robustness._kernels.surface import surface_distances as surface_distances
from robustness._kernels.surface import surface_of as surface_of
from robustness._kernels.surface import union_box as union_box
from robustness._kernels.twin import threshold_band as threshold_band

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
