"""Checks on the overlap counts that catch inputs which would score without error but mean something else.

- :func:`duplicate_raters`: a run that is a copy of an annotator (it scores 1.0 against that annotator, so
  its max-over-annotators score is 1.0) or of another run, or two annotators that are copies.
- :func:`foreground_coverage`: the chosen foreground covers more than half of most annotator masks, as
  when the foreground and background values are swapped (every run then agrees with everyone).

Each returns one-line warnings (an empty list when all is well).
"""

from __future__ import annotations

import numpy as np

from robustness.overlap.counts import OverlapCounts

__all__ = ["duplicate_raters", "foreground_coverage", "input_checks"]


def _jaccard(c: np.ndarray) -> np.ndarray:
    """Per-pair Jaccard of counts ``(..., 3)``; both empty counts as 1 (identical)."""
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    union = tp + fp + fn
    return np.where(union > 0, tp / np.maximum(union, 1), 1.0)


def duplicate_raters(counts: OverlapCounts, *, threshold: float | None = None) -> list[str]:
    """Runs identical to an annotator or to another run, and annotators identical to each other.

    Two raters count as identical when their masks agree to Jaccard >= ``threshold`` (default
    :data:`robustness.overlap.TWIN_JACCARD`, 0.999) on every image both have (both empty: agree).

    Examples
    --------
    >>> import numpy as np
    >>> from robustness.io.challenge import from_arrays
    >>> from robustness.overlap import compute_overlap
    >>> a, b = np.eye(3, dtype=bool), np.ones((3, 3), dtype=bool)
    >>> ch = from_arrays({"x": {"ann0": a, "ann1": b}}, {"copy": {"x": a}, "other": {"x": ~a}})
    >>> duplicate_raters(compute_overlap(ch, rng=0))  # doctest: +ELLIPSIS
    ["run 'copy' is identical to annotator 'ann0' on all 1 image(s) ...]
    """
    from robustness.overlap.pixel_pass import TWIN_JACCARD

    t = TWIN_JACCARD if threshold is None else threshold
    out = []
    valid = counts.annotator_valid
    same = _jaccard(counts.annotator_counts) >= t  # (annotator, run, image)
    for a, name in enumerate(counts.annotators):
        n = int(valid[a].sum())
        for r, run in enumerate(counts.runs):
            if n and same[a, r][valid[a]].all():
                out.append(f"run {run!r} is identical to annotator {name!r} on all {n} image(s) that annotator "
                           f"drew (Jaccard >= {t:g} on each): it scores 1.0 against it, and 1.0 on max over "
                           "annotators; score it as a copy of that annotator, not as a run")
    pair = _jaccard(counts.pair_counts) >= t
    for a in range(len(counts.annotators)):
        for b in range(a + 1, len(counts.annotators)):
            both = valid[a] & valid[b]
            if both.any() and pair[a, b][both].all():
                out.append(f"annotators {counts.annotators[a]!r} and {counts.annotators[b]!r} are identical on all "
                           f"{int(both.sum())} image(s) both drew (Jaccard >= {t:g} on each): one rater counted twice")
    if counts.run_twins is not None and t >= TWIN_JACCARD:
        n = counts.n_images
        for r, s in zip(*np.nonzero(np.triu(counts.run_twins >= n, 1))):
            out.append(f"runs {counts.runs[r]!r} and {counts.runs[s]!r} are identical on all {n} images "
                       f"(Jaccard >= {TWIN_JACCARD:g} on each): one submission counted twice")
    return out


def foreground_coverage(counts: OverlapCounts, *, foreground: int, background: int,
                        threshold: int | None = None) -> list[str]:
    """A warning when the annotators' foreground covers more than half of the image in most of their masks.

    Lesions, cells and organs rarely fill most of every image; masks read with the foreground and
    background values swapped do.
    """
    valid = counts.annotator_valid
    size = np.array([counts.pair_counts[a, a, :, 0] for a in range(len(counts.annotators))])  # |mask|
    cover = size / np.maximum(counts.n_pixels, 1)[None, :]
    share = cover[valid]
    n_big = int((share > 0.5).sum())
    if share.size == 0 or n_big <= share.size / 2:
        return []
    how = f"--threshold {threshold} " if threshold is not None else ""
    return [f"the foreground (value {foreground}{', ' + how.strip() if how else ''}) covers more than half of the "
            f"image in {n_big} of {share.size} annotator masks (median {np.median(share):.0%}): did you mean "
            f"--foreground {background} --background {foreground}?"]


def input_checks(challenge, counts: OverlapCounts) -> list[str]:
    """Every check on the counts that applies to ``challenge``: copied raters, and where the masks were read with
    a chosen foreground value (the per-rater layout), a swapped foreground.

    Parameters
    ----------
    challenge : Challenge
        The challenge the counts come from (its mask format says which checks apply).
    counts : OverlapCounts

    Returns
    -------
    list of str
        One-line warnings (empty when all is well).
    """
    found = duplicate_raters(counts)
    fmt = getattr(challenge.source, "annotator_format", None)
    if fmt is not None and fmt.rescale:  # the per-rater layout: the user chose the foreground value
        found += foreground_coverage(counts, foreground=fmt.foreground, background=fmt.background,
                                     threshold=fmt.threshold)
    return found
