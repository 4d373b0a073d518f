"""numba kernels: plain arrays in, arrays out. No objects, no generators, no pandas.

- :mod:`.pixels`: mask decoding, bit packing, rater patterns, overlap counts,
  the synthetic generator's blob fields and upsampler (the pixel pass);
- :mod:`.resampling`: scores from summed statistics, ranks, Kendall's tau, L1
  curves and bootstrap sums (the resampling engines);
- :mod:`.signed_rank`: paired Wilcoxon signed-rank tests between every pair of
  runs, Holm, runs beaten (the test-based ranking);
- :mod:`.population`: the L1 with a margin between noisy rankings and their population's (the distance to
  unlimited data);
- :mod:`.surface`: mask borders, the box that holds them and exact distances between them (the boundary metrics);
- :mod:`.twin`: a rater's mask on a band around a real image's truth (the twin made of a challenge's images).

Every kernel has a slow, obviously correct numpy twin in ``tests/naive.py``.
"""

from robustness._kernels.pixels import (
                                        binarize,
                                        blob_fields,
                                        count_run,
                                        count_run_words,
                                        golds_from_words,
                                        pack_rows,
                                        pattern_hist,
                                        rater_counts,
                                        upsample_positive,
)
from robustness._kernels.population import margin_l1
from robustness._kernels.resampling import kendall_tau_b, l1_curves, rank_rows, resample_sums, scores_from_sums
from robustness._kernels.signed_rank import beaten_l1_curves, beaten_resamples, runs_beaten, signed_rank_z
from robustness._kernels.surface import (
    distances_at,
    label_sizes,
    mask_box,
    squared_edt,
    squared_edt_at,
    surface_distances,
    surface_of,
    union_box,
)
from robustness._kernels.twin import threshold_band

__all__ = ["binarize", "pack_rows", "pattern_hist", "golds_from_words", "count_run", "count_run_words",
           "upsample_positive", "blob_fields", "rater_counts",
           "rank_rows", "kendall_tau_b", "scores_from_sums", "l1_curves", "resample_sums",
           "signed_rank_z", "runs_beaten", "beaten_l1_curves", "beaten_resamples", "margin_l1",
           "surface_of", "squared_edt", "squared_edt_at", "surface_distances", "mask_box",
           "union_box", "distances_at", "label_sizes", "threshold_band"]
