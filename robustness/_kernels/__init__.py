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

The kernels are exported lazily (:mod:`robustness._lazy`): ``from robustness import _kernels`` loads no numba,
and the first call of ``_kernels.count_run`` imports :mod:`.pixels` (and numba with it).
"""

from robustness._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    **dict.fromkeys(("binarize", "pack_rows", "pattern_hist", "golds_from_words", "count_run", "count_run_words",
                     "upsample_positive", "blob_fields", "rater_counts"), "pixels"),
    **dict.fromkeys(("rank_rows", "kendall_tau_b", "scores_from_sums", "l1_curves", "resample_sums"), "resampling"),
    **dict.fromkeys(("signed_rank_z", "runs_beaten", "beaten_l1_curves", "beaten_resamples"), "signed_rank"),
    **dict.fromkeys(("margin_l1", "margin_l1_sizes"), "population"),
    **dict.fromkeys(("surface_of", "squared_edt", "squared_edt_at", "surface_distances", "mask_box", "union_box",
                     "distances_at", "label_sizes"), "surface"),
    "threshold_band": "twin",
}, modules=("pixels", "resampling", "signed_rank", "population", "surface", "twin"))
