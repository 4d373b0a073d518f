"""Checks on the overlap counts that catch inputs which would score without error but mean something else.

- :func:`duplicate_raters`: a run that is a copy of an annotator (it scores 1.0 against that annotator, so
  its max-over-annotators score is 1.0) or of another run, or two annotators that are copies.
- :func:`foreground_coverage`: the chosen foreground covers more than half of most annotator masks, as
  when the foreground and background values are swapped (every run then agrees with everyone).
- :func:`empty_annotators`: an annotator whose masks are empty on every image it drew (a mask on another scale,
  or read with the wrong foreground value or threshold, reads as empty).
- :func:`outlier_annotators`: a (non-empty) annotation that disagrees with every other annotator of its image
  while they agree with each other (a different object traced, a misplaced file).
- :func:`unconverged_fits`: images where an iterative gold (STAPLE) reached its iteration cap.
- :func:`absent_labels`: a label asked for (``--labels``) that no annotator's and no run's mask holds (every
  pair of its images is both-empty, which scores 1.0 under the default policy).

Each returns one-line warnings (an empty list when all is well).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from robustness.errors import InputError, parameter, summarise_notes
from robustness.overlap.counts import OverlapCounts
from robustness.overlap.image_counts import TWIN_JACCARD

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from robustness.io.challenge import Challenge

__all__ = ["duplicate_raters", "foreground_coverage", "empty_annotators", "outlier_annotators", "unconverged_fits",
           "absent_labels", "covering_foreground", "input_checks", "input_warnings", "OUTLIER_JACCARD", "OTHERS_AGREE"]

#: An annotation with Jaccard below this against every other annotator of its image is an outlier ...
OUTLIER_JACCARD = 0.1
#: ... when the others agree with each other: the median Jaccard of their pairs is at least this.
OTHERS_AGREE = 0.5


def _jaccard(c: np.ndarray) -> np.ndarray:
    """Per-pair Jaccard of counts ``(..., 3)``; both empty counts as 1 (identical)."""
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    union = tp + fp + fn
    return np.where(union > 0, tp / np.maximum(union, 1), 1.0)


def duplicate_raters(counts: OverlapCounts, *, threshold: float | None = None) -> list[str]:
    """Runs identical to an annotator or to another run, and annotators identical to each other.

    Two raters count as identical when their masks agree to Jaccard >= ``threshold`` (default
    :data:`robustness.overlap.TWIN_JACCARD`, 0.999) on every image both have (both empty: agree).

    Parameters
    ----------
    counts : OverlapCounts
        The counts of the pixel pass (runs and annotators against each other, image by image).
    threshold : float, optional
        The Jaccard at or above which two masks count as identical (default, None:
        :data:`robustness.overlap.TWIN_JACCARD`). Pairs of runs are compared only when it is at least that
        default (the pixel pass counts run twins at that level only).

    Returns
    -------
    list of str
        One-line warnings, one per copied run or pair of identical raters (empty when there is none).

    Examples
    --------
    >>> import numpy as np
    >>> from robustness.io.arrays import from_arrays
    >>> from robustness.overlap import compute_overlap
    >>> a, b = np.eye(3, dtype=bool), np.ones((3, 3), dtype=bool)
    >>> ch = from_arrays({"x": {"ann0": a, "ann1": b}}, {"copy": {"x": a}, "other": {"x": ~a}})
    >>> duplicate_raters(compute_overlap(ch, rng=0))  # doctest: +ELLIPSIS
    ["run 'copy' is identical to annotator 'ann0' on all 1 image(s) ...]
    """
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

    Parameters
    ----------
    counts : OverlapCounts
        The counts of the pixel pass (each annotator's mask size is its count against itself).
    foreground, background : int
        The pixel values the annotator masks were read with as foreground and background (named in the warning,
        which suggests swapping them).
    threshold : int, optional
        The threshold the masks were read with, named in the warning (None: no threshold was given).

    Returns
    -------
    list of str
        One warning when more than half of the annotator masks cover more than half of their image, else empty.
    """
    share = _cover(counts)
    n_big = int((share > 0.5).sum())
    if share.size == 0 or n_big <= share.size / 2:
        return []
    how = f"{parameter('RaterOptions', 'threshold')} {threshold} " if threshold is not None else ""
    return [f"the foreground (value {foreground}{', ' + how.strip() if how else ''}) covers more than half of the "
            f"image in {n_big} of {share.size} annotator masks (median {np.median(share):.0%}): did you mean "
            f"{parameter('load_raters', 'foreground')} {background} {parameter('load_raters', 'background')} "
            f"{foreground}?"]


#: The share of annotator masks whose foreground covers more than half of their image above which a foreground
#: the user did not name is refused: every mask (or all but a few) fills most of its image.
COVERING_SHARE = 0.9


def covering_foreground(counts: OverlapCounts) -> bool:
    """Whether the annotators' foreground covers more than half of the image in at least 90% of their masks.

    Parameters
    ----------
    counts : OverlapCounts

    Returns
    -------
    bool
    """
    share = _cover(counts)
    return bool(share.size) and float((share > 0.5).mean()) >= COVERING_SHARE


def _sizes(counts: OverlapCounts) -> np.ndarray:
    """|mask| of every annotator on every image (annotator, image)."""
    return np.array([counts.pair_counts[a, a, :, 0] for a in range(len(counts.annotators))]).reshape(
        len(counts.annotators), counts.n_images)


def _cover(counts: OverlapCounts) -> np.ndarray:
    """The share of its image each annotator mask covers, over the masks drawn (flat)."""
    return (_sizes(counts) / np.maximum(counts.n_pixels, 1)[None, :])[counts.annotator_valid]


def empty_annotators(counts: OverlapCounts) -> list[str]:
    """A warning for every annotator whose mask is empty on every image it drew.

    Parameters
    ----------
    counts : OverlapCounts
        The counts of the pixel pass.

    Returns
    -------
    list of str
        One warning per annotator that is empty on every image it annotated (empty when there is none).

    Examples
    --------
    >>> import numpy as np
    >>> from robustness.io.arrays import from_arrays
    >>> from robustness.overlap import compute_overlap
    >>> z, m = np.zeros((3, 3), bool), np.eye(3, dtype=bool)
    >>> ch = from_arrays({"x": {"a": m, "b": z}, "y": {"a": m, "b": z}}, {"r": {"x": m, "y": m}})
    >>> empty_annotators(compute_overlap(ch, rng=0))  # doctest: +ELLIPSIS
    ["annotator 'b' is empty on all 2 image(s) it drew: ...]
    """
    valid, size = counts.annotator_valid, _sizes(counts)
    out = []
    for a, name in enumerate(counts.annotators):
        n = int(valid[a].sum())
        if n and not size[a][valid[a]].any():
            out.append(f"annotator {name!r} is empty on all {n} image(s) it drew: a mask on another scale (0/1 "
                       "where the others are 0/255) or read with the wrong foreground value or threshold reads as "
                       "empty; check its files and "
                       + f"{parameter('load_raters', 'foreground')}/{parameter('load_raters', 'background')}/"
                       + parameter("RaterOptions", "threshold"))
    return out


def outlier_annotators(counts: OverlapCounts, *, level: float = OUTLIER_JACCARD,
                       agreement: float = OTHERS_AGREE) -> list[str]:
    """One warning per annotator whose annotation of some image disagrees with all the others, which agree.

    The warning names the images where the annotator disagrees with every other annotator there while they agree
    with each other.

    Annotator ``a`` on image ``i`` (at least three annotators present) is flagged when its mask is not empty, its
    Jaccard with every other annotator present is below ``level`` (default :data:`OUTLIER_JACCARD`, 0.1) and the
    median Jaccard of the other annotators' pairs is at least ``agreement`` (default :data:`OTHERS_AGREE`, 0.5): a
    different object traced, or the file of another image. Two empty masks agree; an empty mask among agreeing
    others is a missed object, which annotators do, not another one (:func:`empty_annotators` flags an annotator
    empty everywhere).

    Parameters
    ----------
    counts : OverlapCounts
        The counts of the pixel pass (the annotators' pair counts are used).
    level : float
        The Jaccard, in [0, 1], below which an annotation disagrees with another (default
        :data:`OUTLIER_JACCARD`).
    agreement : float
        The median Jaccard, in [0, 1], of the other annotators' pairs at or above which they agree with each other
        (default :data:`OTHERS_AGREE`).

    Returns
    -------
    list of str
        One warning per outlying annotator, naming up to five of its images (empty when there is none).

    Raises
    ------
    ValueError
        When ``level`` or ``agreement`` lies outside [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from robustness.io.arrays import from_arrays
    >>> from robustness.overlap import compute_overlap
    >>> cell, other = np.zeros((8, 8), bool), np.zeros((8, 8), bool)
    >>> cell[:3, :3], other[5:, 5:] = True, True
    >>> ch = from_arrays({"P10": {"a": cell, "b": cell, "c": cell, "d": other}}, {"r": {"P10": cell}})
    >>> outlier_annotators(compute_overlap(ch, rng=0))  # doctest: +ELLIPSIS
    ["annotator 'd' disagrees with every other annotator on 1 image(s): P10 (Jaccard at most 0.00); its ...]
    """
    for name, v in (("level", level), ("agreement", agreement)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {v!r}")
    valid, size = counts.annotator_valid, _sizes(counts)
    jac = _jaccard(counts.pair_counts)  # (a, b, image)
    found: dict[int, list[str]] = {}
    for i, image in enumerate(counts.images):
        present = np.flatnonzero(valid[:, i])
        if present.size < 3:
            continue
        j = jac[np.ix_(present, present, np.array([i]))][..., 0]
        for pos, a in enumerate(present):
            others = np.delete(np.arange(present.size), pos)
            against = j[pos, others]
            if size[a, i] == 0 or against.max() >= level:  # an empty mask is a miss, not another object
                continue
            pairs = j[np.ix_(others, others)][np.triu_indices(others.size, 1)]
            if np.median(pairs) < agreement:
                continue
            found.setdefault(int(a), []).append(f"{image} (Jaccard at most {against.max():.2f})")
    return [f"annotator {counts.annotators[a]!r} disagrees with every other annotator on {len(items)} image(s): "
            + ", ".join(items[:5]) + (", ..." if len(items) > 5 else "")
            + f"; its mask has Jaccard below {level:g} with each of theirs while they agree with each other (median "
            f"Jaccard >= {agreement:g}): a different object traced, or the file of another image?"
            for a, items in sorted(found.items())]


def unconverged_fits(counts: OverlapCounts) -> list[str]:
    """A warning for every image where an iterative gold (STAPLE) reached its cap before converging.

    Parameters
    ----------
    counts : OverlapCounts
        The counts of the pixel pass, with the iterative fits' diagnostics per image.

    Returns
    -------
    list of str
        One warning per image and fit that reached the iteration cap (empty when every fit converged).
    """
    out = []
    for f, fit in enumerate(counts.fits):
        for i in np.flatnonzero(~np.asarray(counts.fit_converged[f], dtype=bool)):
            out.append(f"image {counts.images[i]}: {fit} did not converge within {int(counts.fit_iterations[f, i])} "
                       "EM iterations: its gold is the last iterate's, not the converged one (SimpleITK runs to "
                       "convergence)")
    return out


def absent_labels(labels: Sequence[int], counts: OverlapCounts) -> list[str]:
    """A warning for every label that no annotator's and no run's mask holds on any of its images.

    Parameters
    ----------
    labels : sequence of int
        The label each image of ``counts`` reads (multi-label masks: one image per file and label).
    counts : OverlapCounts
        The counts of the pixel pass.

    Returns
    -------
    list of str
        One warning per absent label (empty when every label is drawn somewhere).

    Examples
    --------
    >>> import numpy as np
    >>> from robustness.io.arrays import from_arrays
    >>> from robustness.overlap import compute_overlap
    >>> z, m = np.zeros((3, 3), bool), np.eye(3, dtype=bool)
    >>> ch = from_arrays({"x.label1": {"a": m, "b": m}, "x.label9": {"a": z, "b": z}}, {"r": {"x.label1": m,
    ...                  "x.label9": z}})
    >>> absent_labels([1, 9], compute_overlap(ch, rng=0))  # doctest: +ELLIPSIS
    ['label 9 is in no mask: ...]
    """
    values = np.asarray(labels)
    annotators = _sizes(counts)  # (annotator, image)
    c = counts.annotator_counts  # (annotator, run, image, 3)
    runs = (c[..., 0] + c[..., 1]).max(axis=0) if c.size else np.zeros((0, counts.n_images))  # (run, image)
    drawn = np.asarray(annotators.any(axis=0) | runs.any(axis=0))
    out = []
    for label in dict.fromkeys(values.tolist()):
        on = np.asarray(values == label)
        if not drawn[on].any():
            region = isinstance(label, str)  # a region's name (labels given as regions), else a label number
            given = (f"the labels of region {label} given to {parameter('load_raters', 'labels')} as regions"
                     if region else f"the label numbers given to {parameter('load_raters', 'labels')}")
            out.append(f"{'region' if region else 'label'} {label} is in no mask: every annotator and every run is "
                       f"empty for it on all {int(on.sum())} file(s), so each of its images is a both-empty pair "
                       f"(scored by the {parameter('options', 'empty')} policy, 1.0 by default); check {given}")
    return out


_NAME_PARTS = re.compile(r"[-_.\s]+")


def shared_authors(annotators: Sequence[str], runs: Sequence[str]) -> list[str]:
    """Runs whose name shares its leading part with a gold annotator's (``Person1_ImageJ``, ``Person1_Amira``).

    A run made by one of the gold's annotators (or their team) agrees with part of its own reference, so its
    score is not independent evidence. The leading part of a name (up to the first ``-``, ``_``, ``.`` or space)
    is taken to name a person or team only where it tells the annotators apart (annotators all called
    ``mturk_...`` share a prefix that names the layout, not a person).

    Parameters
    ----------
    annotators, runs : sequence of str

    Returns
    -------
    list of str
        One-line warnings, one per run.

    Examples
    --------
    >>> shared_authors(["Person1_Amira", "Person2_Amira"], ["Person1_ImageJ", "Person3_ImageJ"])[0][:44]
    "run 'Person1_ImageJ' and annotator 'Person1_"
    >>> shared_authors(["mturk_1", "mturk_2"], ["mturk_3"])
    []
    """
    def lead(name):
        part = _NAME_PARTS.split(str(name).strip(), maxsplit=1)[0].casefold()
        return part if part != str(name).strip().casefold() else None  # a name of one part has no leading part

    leads = {a: lead(a) for a in annotators}
    if len({v for v in leads.values() if v}) < 2 and len(annotators) > 1:
        return []
    out = []
    for run in runs:
        mine = lead(run)
        same = [a for a, v in leads.items() if mine and v == mine]
        if same:
            out.append(f"run '{run}' and annotator{'s' if len(same) > 1 else ''} "
                       + ", ".join(f"'{a}'" for a in same)
                       + f" of the gold share the name part '{_NAME_PARTS.split(str(run).strip(), 1)[0]}': if one "
                       "person or team made both, the run is scored against a gold it helped draw (its agreement is "
                       f"not independent evidence); {parameter('load_raters', 'runs')} can leave it out")
    return out


def input_checks(challenge: Challenge, counts: OverlapCounts) -> list[str]:
    """Every check on the counts that applies to ``challenge``, in the order they are printed.

    An iterative gold that did not converge, an annotator empty everywhere, an annotation that disagrees with all
    the others, copied raters, and where the masks were read with a chosen foreground value (the per-rater
    layout), a swapped foreground.

    Parameters
    ----------
    challenge : Challenge
        The challenge the counts come from (its mask format says which checks apply).
    counts : OverlapCounts
        The counts of the pixel pass on ``challenge``.

    Returns
    -------
    list of str
        One-line warnings (empty when all is well).
    """
    found = unconverged_fits(counts) + empty_annotators(counts) + outlier_annotators(counts) + duplicate_raters(counts)
    found += shared_authors(challenge.annotators, challenge.runs)
    labels = getattr(challenge.source, "labels", None)
    if labels is not None:
        found += absent_labels(labels, counts)
    fmt = getattr(challenge.source, "annotator_format", None)
    if fmt is not None and fmt.rescale:  # the per-rater layout: the foreground value is chosen or detected
        said = foreground_coverage(counts, foreground=fmt.foreground, background=fmt.background,
                                   threshold=fmt.threshold)
        if said and not fmt.given and covering_foreground(counts):
            paths = getattr(challenge.source, "annotator_paths", {})  # a folder's source: the per-rater layout
            first = next((p for ps in paths.values() for p in ps if p is not None), None)
            where = f"{first.parent.parent}: " if first is not None else ""
            raise InputError(f"{where}{said[0]} (the values were not given: give "
                             f"{parameter('load_raters', 'foreground')} and {parameter('load_raters', 'background')} "
                             "to score the masks as read)")
        found += said
    return found


def input_warnings(challenge: Challenge, counts: OverlapCounts, *,
                   warn: Callable[[list[str]], None] | None = None) -> list[str]:
    """Everything reading and counting ``challenge`` noted, plus :func:`input_checks`' findings: a study's warnings.

    Parameters
    ----------
    challenge : Challenge
    counts : OverlapCounts
        The counts of the pixel pass on ``challenge``.
    warn : callable, optional
        Called with the checks' findings as soon as they are known (the loader's and decoder's notes were said
        when they happened).

    Returns
    -------
    list of str
        The loader's notes, the pixel pass's (summarised) and the checks', in that order.
    """
    found = input_checks(challenge, counts)
    if warn is not None:
        warn(found)
    return list(challenge.notes) + summarise_notes(counts.notes) + found
