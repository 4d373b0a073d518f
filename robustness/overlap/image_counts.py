"""One image's counts: every gold's and annotator's TP, FP and FN of every run, read and counted once.

:func:`count_image` is the pixel pass's unit of work
(:func:`robustness.overlap.pixel_pass.compute_overlap` runs it over the images,
in batches and workers); it also finds runs that copy an annotator (``TWIN_JACCARD``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from robustness import _kernels, progress
from robustness.errors import renamed_keyword
from robustness.io.challenge import Challenge
from robustness.overlap.boundary import boundary_matrix, conventions, crop
from robustness.overlap.boundary_conventions import empty_mask_distance
from robustness.overlap.gold import get_strategy, resolve
from robustness.overlap.patterns import annotator_luts
from robustness.overlap.staple import STAPLE_MAX_ITER, staple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from robustness.overlap.gold import GoldStrategy

__all__ = ["ImageCounts", "count_image", "TWIN_JACCARD"]


#: Two masks this close (Jaccard, per image) count as the same rater's: see
#: :func:`robustness.overlap.checks.duplicate_raters`.
TWIN_JACCARD = 0.999


@dataclass(frozen=True, eq=False)
class ImageCounts:
    """All counts of one image: the unit of work of the pixel pass.

    Golds are ordered: the ``k`` annotators present, then the pixel-pass
    strategies, then (``n_loo`` of them) each annotator's leave-one-out STAPLE.

    Attributes
    ----------
    present : int (k,)
        Indices of the annotators present.
    run : int64 (n_golds, n_runs, 3)
        Every run against every gold.
    annotator : int64 (k, n_golds, 3)
        Every present annotator, as a run, against every gold.
    n_loo : int
        Number of trailing leave-one-out golds (k, or 0 when k < 2).
    fit_iterations, fit_converged, fit_rule : tuple
        Diagnostics of each histogram strategy's fit.
    notes : tuple of str
        Repairs applied while decoding the masks.
    twins : int (n_pairs, 2)
        Pairs of runs ``(r, s)``, ``r < s``, whose masks agree to Jaccard >= :data:`TWIN_JACCARD`.
    truth : int64 (n_runs, 3) or None
        Every run against the latent truth (challenges that know it).
    truth_annotator : int64 (k, 3) or None
        Every present annotator against the latent truth.
    boundary : float64 (k + n_strategies, n_runs, n_boundary) or None
        Every run's boundary metrics against the present annotators and the pixel-pass strategies' golds (nan
        where both masks are empty).
    diagonal : float
        The image's largest distance between two voxel centres (the worst distance).
    """

    present: np.ndarray
    run: np.ndarray
    annotator: np.ndarray
    n_loo: int
    fit_iterations: tuple
    fit_converged: tuple
    fit_rule: tuple
    notes: tuple
    twins: np.ndarray
    truth: np.ndarray | None = None
    truth_annotator: np.ndarray | None = None
    boundary: np.ndarray | None = None
    diagonal: float = float("nan")

    @property
    def k(self) -> int:
        """The number of annotators present on the image."""
        return self.present.size


def _staple_without(hist, k, j, max_iter):
    """STAPLE of all annotators but ``j``, as a LUT over the full ``2**k`` patterns, and the fit."""
    p = np.arange(1 << k)
    low = p & ((1 << j) - 1)
    high = (p >> (j + 1)) << j
    reduced = low | high  # pattern without bit j
    sub = np.bincount(reduced, weights=hist, minlength=1 << (k - 1)).astype(np.int64)
    fit = staple(sub, max_iter=max_iter)
    return fit.lut[reduced], fit


def count_image(challenge: Challenge, image: int, *, strategies: Iterable[str | GoldStrategy] | None = None,
                staple_max_iter: int = STAPLE_MAX_ITER, loo: bool = True, boundary: tuple = (),
                boundary_conventions: dict | None = None, **deprecated: Any) -> ImageCounts:
    """All counts of one image against the annotators, the pixel-pass ``strategies`` and the leave-one-out STAPLEs.

    ``strategies`` are registry strategies (names or :class:`~robustness.overlap.gold.GoldStrategy`)
    with a pixel-level gold; default: the registry's default ones.

    Parameters
    ----------
    challenge : Challenge
        The challenge whose masks are read.
    image : int
        Position of the image in ``challenge.images``.
    strategies : iterable of str or GoldStrategy, optional
        The pixel-pass strategies to count against (None: the registry's default ones that have a pixel-level
        gold).
    staple_max_iter : int
        Cap on the EM iterations of every STAPLE fit (default :data:`~robustness.overlap.staple.STAPLE_MAX_ITER`).
    loo : bool
        Also count against each annotator's leave-one-out STAPLE (only where at least two annotators are present).
    boundary : tuple of str
        Boundary metrics (:mod:`robustness.overlap.boundary`) of every run against the annotators and the
        strategies' golds, with the image's voxel spacing (:meth:`Challenge.spacing`).
    boundary_conventions : dict, optional
        Their conventions (:func:`robustness.overlap.boundary.conventions`; default theirs).
    **deprecated
        ``golds=``, the old name of ``strategies``, with a DeprecationWarning (not both).

    Returns
    -------
    ImageCounts
        Every run and every present annotator against every gold of the image, with the fits' diagnostics, the
        decoding notes and the pairs of runs that are copies of each other.
    """
    strategies = renamed_keyword("count_image", deprecated, "golds", "strategies", strategies)
    golds = _pixel_golds(strategies)
    # the image's share of a counted stage (robustness.progress.advance): the golds, each run, the boundary metrics
    shares = (0.05, 0.05, 0.9) if boundary else (0.5, 0.5, 0.0)
    given = 0.0

    def advance(share: float) -> None:
        nonlocal given
        given += share
        progress.advance(share)

    names = challenge.annotators_of(image)
    present = [challenge.annotators.index(a) for a in names]
    notes: list[str] = []
    k = len(names)
    n = int(np.prod(challenge.shapes[image]))
    ann_words = _annotator_words(challenge, image, names, n, notes)
    hist = _kernels.pattern_hist(ann_words, n)
    truth_words, truth_size, truth_annotator = _truth_words(challenge, image, ann_words)
    lut, fits = _gold_luts(golds, k, hist, staple_max_iter)
    n_loo = k if loo and k >= 2 else 0
    if n_loo:  # leave-one-annotator-out STAPLE (Table 4): consensus of the others, one per annotator present
        lut = np.concatenate([lut, _loo_luts(hist, names, staple_max_iter, challenge.images[image], notes)])
    gold_words = _kernels.golds_from_words(ann_words, lut, n)
    gold_size = lut.astype(np.int64) @ hist  # (g,)
    del ann_words
    shape = tuple(challenge.shapes[image])
    chosen = conventions(**(boundary_conventions or {}))
    boundary_golds = ([crop(g, chosen["one_slice"]) for g in _unpacked(gold_words[:k + len(golds)], n, shape)]
                      if boundary else None)
    boundary_runs = []  # each run's mask within its box: memory in proportion to the objects, not the image

    run_golds, run_gold_size = gold_words, gold_size
    if truth_words is not None:
        run_golds, run_gold_size = np.concatenate([gold_words, truth_words]), np.append(gold_size, truth_size)
    advance(shares[0])
    sys_counts, sizes = _count_runs(challenge, image, run_golds, run_gold_size, notes,
                                    (lambda m: boundary_runs.append(crop(m.reshape(shape), chosen["one_slice"])))
                                    if boundary else None, lambda: advance(shares[1] / challenge.n_runs))
    truth = None
    if truth_words is not None:
        truth, sys_counts = sys_counts[-1], sys_counts[:-1]
    boundary_out = None
    if boundary:  # both-empty pairs nan: the policy applies later
        assert boundary_golds is not None  # cut above when boundary metrics are asked for
        boundary_out = _boundary(challenge, image, (boundary_runs, boundary_golds), boundary, chosen,
                                 lambda done: advance(shares[2] * done))
        del boundary_runs, boundary_golds
    advance(1.0 - given)  # the image is done: its shares add up to one image

    # annotators as runs, straight from the pattern histogram: tp[j, g] = sum_p hist[p] bit_j(p) lut_g(p)
    ann_luts = lut[:k].astype(np.int64)  # the first k golds are the annotators themselves
    ann_tp = (ann_luts * hist) @ lut.T.astype(np.int64)  # (k, g)
    ann_size = ann_luts @ hist
    ann_counts = np.stack([ann_tp, ann_size[:, None] - ann_tp, gold_size[None, :] - ann_tp], axis=-1)
    return ImageCounts(
        present=np.array(present, dtype=np.intp), run=sys_counts, annotator=ann_counts, n_loo=n_loo,
        fit_iterations=tuple(f.iterations for f in fits), fit_converged=tuple(f.converged for f in fits),
        fit_rule=tuple(f.rule for f in fits), notes=tuple(notes),
        twins=_twins(challenge, image, sizes, sys_counts[:, :, 0]), truth=truth, truth_annotator=truth_annotator,
        boundary=boundary_out,
        diagonal=empty_mask_distance(shape, challenge.spacing(image), chosen["empty_distance"]),
    )


def _pixel_golds(golds: Iterable[str | GoldStrategy] | None) -> list[GoldStrategy]:
    """The strategies named, or the registry's default ones that have a pixel-level gold."""
    if golds is None:
        return [s for s in resolve(None, macro_only="drop") if s.in_pixel_pass]
    return [get_strategy(g) for g in golds]


def _boundary(challenge: Challenge, image: int, masks: tuple, metrics: tuple, chosen: dict,
              advance: Callable[[float], None]) -> np.ndarray:
    """The boundary metrics of every run's cropped mask against every gold's (``masks``: (runs, golds)).

    Both-empty pairs are nan here: the study's both-empty policy applies later.
    """
    labels = getattr(challenge.source, "labels", None)
    runs, golds = masks
    return boundary_matrix(runs, golds, metrics, challenge.spacing(image),
                           label=None if labels is None else labels[image], empty="official",
                           conventions=chosen, advance=advance)


def _count_runs(challenge: Challenge, image: int, golds: np.ndarray, gold_size: np.ndarray, notes: list,
                keep: Callable[[np.ndarray], None] | None,
                advance: Callable[[], None]) -> tuple[np.ndarray, np.ndarray]:
    """Every run's (tp, fp, fn) against every packed gold of the image, (g, runs, 3), and its size.

    One run's mask at a time, decoded into the same memory; ``keep`` sees each mask (before the next is decoded),
    ``advance`` is called after each run.
    """
    counts = np.empty((golds.shape[0], challenge.n_runs, 3), dtype=np.int64)
    sizes = np.empty(challenge.n_runs, dtype=np.int64)
    buffer = np.empty(int(np.prod(challenge.shapes[image])), dtype=np.uint8)
    for r, run in enumerate(challenge.runs):
        m, note = challenge.read(image, "run", run, out=buffer)
        if note:
            notes.append(note)
        size, tp = _kernels.count_run(m.reshape(-1).view(np.uint8), golds)
        if keep is not None:
            keep(m)
        sizes[r] = size
        counts[:, r, 0] = tp
        counts[:, r, 1] = size - tp
        counts[:, r, 2] = gold_size - tp
        advance()
    return counts, sizes


def _annotator_words(challenge: Challenge, image: int, names: tuple, n: int, notes: list) -> np.ndarray:
    """The image's annotator masks packed in 64-pixel words, one row each (decoding notes added to ``notes``).

    The masks are decoded straight into their rows, zero-padded to whole words.
    """
    masks = np.zeros((len(names), -(-n // 64) * 64), dtype=np.uint8)
    for j, a in enumerate(names):
        m, note = challenge.read(image, "annotator", a, out=masks[j, :n])
        if not np.shares_memory(m, masks[j]):
            masks[j, :n] = m.reshape(-1).view(np.uint8)
        if note:
            notes.append(note)
    return _kernels.pack_rows(masks)


def _truth_words(challenge: Challenge, image: int, ann_words: np.ndarray) -> tuple:
    """The latent truth packed (one more gold), its size and each annotator's counts against it; Nones without it."""
    if not challenge.has_truth:
        return None, None, None
    t, _ = challenge.read(image, "truth", "truth")
    truth_words = _kernels.pack_rows(t.reshape(1, -1).view(np.uint8))
    truth_size = int(t.sum())
    tp = np.bitwise_count(ann_words & truth_words).sum(axis=1)
    size = np.bitwise_count(ann_words).sum(axis=1)
    return truth_words, truth_size, np.stack([tp, size - tp, truth_size - tp], axis=1).astype(np.int64)


def _gold_luts(golds: list, k: int, hist: np.ndarray, staple_max_iter: int) -> tuple[np.ndarray, list]:
    """The annotators' and the golds' look-up tables over the ``2**k`` patterns (uint8, one row each), and fits.

    The fits are those of the golds fitted to the pattern histogram (STAPLE's).
    """
    luts = [annotator_luts(k)]
    fits = []
    for g in golds:
        lut, fit = g.fit(k, hist, max_iter=staple_max_iter)
        luts.append(lut[None, :])
        if g.kind == "histogram":
            fits.append(fit)
    return np.concatenate(luts).astype(np.uint8), fits


def _loo_luts(hist: np.ndarray, names: tuple, staple_max_iter: int, image_id: str, notes: list) -> np.ndarray:
    """Each annotator's leave-one-out STAPLE as a look-up table (uint8, one row each).

    A fit that did not converge is noted in ``notes``.
    """
    k = len(names)
    luts = []
    for j in range(k):
        lut_j, fit = _staple_without(hist, k, j, staple_max_iter)
        luts.append(lut_j[None, :])
        if not fit.converged:
            notes.append(f"image {image_id}: the leave-one-out STAPLE without annotator "
                         f"{names[j]!r} did not converge within {fit.iterations} EM iterations (its mask is the "
                         "last iterate's)")
    return np.concatenate(luts).astype(np.uint8)


def _unpacked(words: np.ndarray, n: int, shape: tuple) -> np.ndarray:
    """Packed masks (pixel p in bit p % 64 of word p // 64) as boolean arrays of the image's shape, (g, *shape)."""
    bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little")[:, :n]
    return bits.view(bool).reshape((words.shape[0],) + shape)


def _twins(challenge, image, sizes, tp) -> np.ndarray:
    """Pairs of runs whose masks of this image agree to Jaccard >= TWIN_JACCARD (both empty: agree).

    ``J >= t`` needs ``|A xor B| <= (1 - t) |A or B| <= (1 - t)(|A| + |B|)``, and the counts against every gold
    bound ``|A xor B|`` from below (``|tp_A - tp_B|``, ``|fp_A - fp_B|``), so only the pairs that pass that bound
    (almost never, unless two runs are copies) are read again and intersected exactly.
    """
    fp = sizes[None, :] - tp
    gap = np.abs(sizes[:, None] - sizes[None, :])
    for c in (tp, fp):
        gap = np.maximum(gap, np.abs(c[:, :, None] - c[:, None, :]).max(axis=0))
    r, s = np.nonzero(np.triu(gap <= (1 - TWIN_JACCARD) * (sizes[:, None] + sizes[None, :]), 1))
    packed: dict[int, np.ndarray] = {}
    pairs = []
    for a, b in zip(r.tolist(), s.tolist()):
        if sizes[a] or sizes[b]:
            for x in (a, b):
                if x not in packed:
                    packed[x] = np.packbits(challenge.read(image, "run", challenge.runs[x])[0])
            inter = int(np.bitwise_count(packed[a] & packed[b]).sum())
            if inter < TWIN_JACCARD * (sizes[a] + sizes[b] - inter):
                continue
        pairs.append((a, b))
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)
