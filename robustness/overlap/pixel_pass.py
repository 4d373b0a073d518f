"""The pixel pass: TP/FP/FN of every run against every gold, one image at a time.

For each image the annotators' masks are read once and packed into 64-pixel
words; the histogram of rater patterns is counted on those words, and every
pixel-level gold of the registry (:mod:`robustness.overlap.gold`: look-up tables such
as majority, pattern-count fits such as STAPLE) and every individual annotator
is a look-up table over the patterns, built word by word once per image. Each
run's mask is then read once and counted against all golds with popcounts. Peak
memory is a few copies of the largest image, whatever the number of images or runs.

The result, :class:`OverlapCounts`, is all that every later study needs; it
is cached on disk under a fingerprint of the inputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robustness import __version__, _kernels
from robustness.errors import InputError, MaskWarning, NoteWarning, summarise_notes
from robustness.files import atomic_write, remove_stale_temporaries
from robustness.io.challenge import Challenge
from robustness.overlap.boundary import boundary_matrix, boundary_metric, crop
from robustness.overlap.counts import OverlapCounts
from robustness.overlap.gold import get_strategy, resolve
from robustness.overlap.patterns import MAX_ANNOTATORS, annotator_luts
from robustness.overlap.staple import STAPLE_MAX_ITER, staple
from robustness.parallel import progress_bar, run_batches

if TYPE_CHECKING:
    from collections.abc import Iterable

    from robustness.overlap.gold import GoldStrategy
    from robustness.seeds import SeedLike

__all__ = ["ImageCounts", "compute_overlap", "count_image", "TWIN_JACCARD"]

_CACHE_FORMAT = 6

#: Two masks this close (Jaccard, per image) count as the same rater's: see
#: :func:`robustness.overlap.checks.duplicate_raters`.
TWIN_JACCARD = 0.999


# -- one image ----------------------------------------------------------------

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


def count_image(challenge: Challenge, image: int, *, golds: Iterable[str | GoldStrategy] | None = None,
                staple_max_iter: int = STAPLE_MAX_ITER, loo: bool = True, boundary: tuple = ()) -> ImageCounts:
    """All counts of one image against the annotators, the pixel-pass ``golds`` and the leave-one-out STAPLEs.

    ``golds`` are registry strategies (names or :class:`~robustness.overlap.gold.GoldStrategy`)
    with a pixel-level gold; default: the registry's default ones.

    Parameters
    ----------
    challenge : Challenge
        The challenge whose masks are read.
    image : int
        Position of the image in ``challenge.images``.
    golds : iterable of str or GoldStrategy, optional
        The pixel-pass strategies to count against (None: the registry's default ones that have a pixel-level
        gold).
    staple_max_iter : int
        Cap on the EM iterations of every STAPLE fit (default :data:`~robustness.overlap.staple.STAPLE_MAX_ITER`).
    loo : bool
        Also count against each annotator's leave-one-out STAPLE (only where at least two annotators are present).
    boundary : tuple of str
        Boundary metrics (:mod:`robustness.overlap.boundary`) of every run against the annotators and the
        strategies' golds, with the image's voxel spacing (:meth:`Challenge.spacing`).

    Returns
    -------
    ImageCounts
        Every run and every present annotator against every gold of the image, with the fits' diagnostics, the
        decoding notes and the pairs of runs that are copies of each other.
    """
    chosen_golds: list[GoldStrategy] = [s for s in resolve(None, macro_only="drop") if s.in_pixel_pass] \
        if golds is None else [get_strategy(g) for g in golds]
    golds = chosen_golds
    names = challenge.annotators_of(image)
    present = [challenge.annotators.index(a) for a in names]
    notes = []
    k = len(names)
    n = int(np.prod(challenge.shapes[image]))
    # the annotators' masks are decoded straight into their rows, zero-padded to whole 64-pixel words
    masks = np.zeros((k, -(-n // 64) * 64), dtype=np.uint8)
    for j, a in enumerate(names):
        m, note = challenge.read(image, "annotator", a, out=masks[j, :n])
        if not np.shares_memory(m, masks[j]):
            masks[j, :n] = m.reshape(-1).view(np.uint8)
        if note:
            notes.append(note)
    ann_words = _kernels.pack_rows(masks)
    del masks
    hist = _kernels.pattern_hist(ann_words, n)
    truth_words = truth_annotator = None
    if challenge.has_truth:  # the latent truth: one more gold, packed once
        t, _ = challenge.read(image, "truth", "truth")
        truth_words = _kernels.pack_rows(t.reshape(1, -1).view(np.uint8))
        truth_size = int(t.sum())
        tp = np.bitwise_count(ann_words & truth_words).sum(axis=1)
        size = np.bitwise_count(ann_words).sum(axis=1)
        truth_annotator = np.stack([tp, size - tp, truth_size - tp], axis=1).astype(np.int64)
    luts = [annotator_luts(k)]
    fits = []
    for g in golds:
        lut, fit = g.fit(k, hist, max_iter=staple_max_iter)
        luts.append(lut[None, :])
        if g.kind == "histogram":
            fits.append(fit)
    # leave-one-annotator-out STAPLE (Table 4): consensus of the others, one per annotator present
    n_loo = 0
    if loo and k >= 2:
        for j in range(k):
            lut_j, fit = _staple_without(hist, k, j, staple_max_iter)
            luts.append(lut_j[None, :])
            if not fit.converged:
                notes.append(f"image {challenge.images[image]}: the leave-one-out STAPLE without annotator "
                             f"{names[j]!r} did not converge within {fit.iterations} EM iterations (its mask is the "
                             "last iterate's)")
        n_loo = k
    lut = np.concatenate(luts).astype(np.uint8)  # (g, 2**k)
    gold_words = _kernels.golds_from_words(ann_words, lut, n)
    gold_size = lut.astype(np.int64) @ hist  # (g,)
    del ann_words
    shape = tuple(challenge.shapes[image])
    boundary_golds = [crop(g) for g in _unpacked(gold_words[:k + len(golds)], n, shape)] if boundary else None
    boundary_runs = []  # each run's mask within its box: memory in proportion to the objects, not the image

    run_golds, run_gold_size = gold_words, gold_size
    if truth_words is not None:
        run_golds, run_gold_size = np.concatenate([gold_words, truth_words]), np.append(gold_size, truth_size)
    sys_counts = np.empty((run_golds.shape[0], challenge.n_runs, 3), dtype=np.int64)
    sizes = np.empty(challenge.n_runs, dtype=np.int64)
    buffer = np.empty(n, dtype=np.uint8)  # one run's mask at a time, decoded into the same memory
    for r, run in enumerate(challenge.runs):
        m, note = challenge.read(image, "run", run, out=buffer)
        if note:
            notes.append(note)
        size, tp = _kernels.count_run(m.reshape(-1).view(np.uint8), run_golds)
        if boundary:
            boundary_runs.append(crop(m.reshape(shape)))
        sizes[r] = size
        sys_counts[:, r, 0] = tp
        sys_counts[:, r, 1] = size - tp
        sys_counts[:, r, 2] = run_gold_size - tp
    truth = None
    if truth_words is not None:
        truth, sys_counts = sys_counts[-1], sys_counts[:-1]
    boundary_out = None
    if boundary:  # both-empty pairs nan: the policy applies later
        assert boundary_golds is not None  # cut above when boundary metrics are asked for
        boundary_out = boundary_matrix(boundary_runs, boundary_golds, boundary, challenge.spacing(image),
                                       empty="official")
        del boundary_runs, boundary_golds

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
        diagonal=float(np.sqrt(sum(((d - 1) * sp) ** 2 for d, sp in zip(shape, challenge.spacing(image))))),
    )


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


def _count_batch(challenge, golds, staple_max_iter, loo, boundary=()):
    """Counts of every image of ``challenge`` (a batch: :meth:`Challenge.subset`; workers read its files)."""
    return [count_image(challenge, i, golds=golds, staple_max_iter=staple_max_iter, loo=loo, boundary=boundary)
            for i in range(challenge.n_images)]


def _batches(challenge: Challenge, n_jobs: int) -> list[list[int]]:
    """Consecutive images in batches of about equal work (pixels x masks), at least 8 per worker."""
    work = challenge.n_pixels * (challenge.n_runs + challenge.annotated.sum(axis=1))
    target = min(_BATCH_WORK, work.sum() / (8 * n_jobs)) if n_jobs > 1 else _BATCH_WORK
    batches, current, load = [], [], 0
    for i, w in enumerate(work.tolist()):
        current.append(i)
        load += w
        if load >= target or len(current) >= _BATCH_IMAGES:
            batches.append(current)
            current, load = [], 0
    return batches + ([current] if current else [])


_BATCH_WORK = 200e6  # mask pixels per batch: ~0.2 s of decoding and counting
_BATCH_IMAGES = 256


# -- the pass ---------------------------------------------------------------

def _pass_key(challenge: Challenge, golds, staple_max_iter, loo, boundary=()) -> str:
    ks = np.unique(challenge.annotated.sum(axis=1))
    source = challenge.source
    payload = {
        "challenge": challenge.fingerprint(),
        "files": source.cache_key() if hasattr(source, "cache_key") else None,
        "golds": [[g.name, g.identity(ks)] for g in golds],
        "twin_jaccard": TWIN_JACCARD,
        "staple_max_iter": staple_max_iter,
        "leave_one_out": loo,
        "version": __version__,
        "format": _CACHE_FORMAT,
    } | ({"boundary": list(boundary)} if boundary else {})
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _pixel_pass(challenge, golds, staple_max_iter, n_jobs, progress, loo=True, boundary=()):
    n_img, n_sys, n_ann = challenge.n_images, challenge.n_runs, challenge.n_annotators
    n_gold = len(golds)
    n_fit = sum(g.kind == "histogram" for g in golds)
    gold_counts = np.zeros((n_gold, n_sys, n_img, 3), dtype=np.int64)
    ann_counts = np.zeros((n_ann, n_sys, n_img, 3), dtype=np.int64)
    ann_vs_gold = np.zeros((n_ann, n_gold, n_img, 3), dtype=np.int64)
    pair = np.zeros((n_ann, n_ann, n_img, 3), dtype=np.int64)
    loo_counts = np.zeros((n_ann, n_sys, n_img, 3), dtype=np.int64)
    loo_ann = np.zeros((n_ann, n_img, 3), dtype=np.int64)
    loo_valid = np.zeros((n_ann, n_img), dtype=bool)
    fit_iter = np.zeros((n_fit, n_img), dtype=np.int64)
    fit_conv = np.ones((n_fit, n_img), dtype=bool)
    fit_rule = np.full((n_fit, n_img), "", dtype=object)
    twins = np.zeros((n_sys, n_sys), dtype=np.int64)
    n_truth = 1 if challenge.has_truth else 0
    truth = np.zeros((n_truth, n_sys, n_img, 3), dtype=np.int64)
    truth_ann = np.zeros((n_truth, n_ann, n_img, 3), dtype=np.int64)
    n_b = len(boundary)
    ann_boundary = np.full((n_ann, n_sys, n_img, n_b), np.nan)
    gold_boundary = np.full((n_gold, n_sys, n_img, n_b), np.nan)
    diagonal = np.full(n_img, np.nan)
    notes: list[str] = []

    groups = _batches(challenge, n_jobs)
    batches = ((challenge.subset(images), golds, staple_max_iter, loo, tuple(boundary)) for images in groups)
    bar = progress_bar(progress, n_img, "pixel pass", unit="image")
    results = run_batches(_count_batch, batches, n_jobs=n_jobs, progress=bar, weights=[len(g) for g in groups])
    for images, res in zip(groups, results):
        for i, r in zip(images, res):
            pres, k, n_loo = r.present, r.k, r.n_loo
            sc, ac = r.run, r.annotator
            ann_counts[pres, :, i] = sc[:k]
            gold_counts[:, :, i] = sc[k:k + n_gold]
            pair[pres[:, None], pres[None, :], i] = ac[:, :k]
            ann_vs_gold[pres, :, i] = ac[:, k:k + n_gold]
            if n_loo:
                loo_counts[pres, :, i] = sc[k + n_gold:]
                loo_ann[pres, i] = ac[np.arange(k), k + n_gold + np.arange(k)]
                loo_valid[pres, i] = True
            fit_iter[:, i], fit_conv[:, i], fit_rule[:, i] = r.fit_iterations, r.fit_converged, r.fit_rule
            twins[r.twins[:, 0], r.twins[:, 1]] += 1
            if n_truth:
                truth[0, :, i] = r.truth
                truth_ann[0, pres, i] = r.truth_annotator
            if n_b:
                ann_boundary[pres, :, i] = r.boundary[:k]
                gold_boundary[:, :, i] = r.boundary[k:]
                diagonal[i] = r.diagonal
            notes.extend(r.notes)
    twins += twins.T
    return dict(gold_counts=gold_counts, ann_counts=ann_counts, ann_vs_gold=ann_vs_gold, pair=pair,
                loo_counts=loo_counts, loo_ann=loo_ann, loo_valid=loo_valid, fit_iter=fit_iter, fit_conv=fit_conv,
                fit_rule=fit_rule.astype(str), notes=np.array(notes, dtype=str), twins=twins, truth=truth,
                truth_ann=truth_ann) | (dict(ann_boundary=ann_boundary, gold_boundary=gold_boundary,
                                             diagonal=diagonal) if n_b else {})


def _shapes(challenge: Challenge, golds, boundary=()) -> dict:
    """The shape of every array of the pass (what a cache must hold; ``None``: any length)."""
    n_img, n_sys, n_ann, n_gold = challenge.n_images, challenge.n_runs, challenge.n_annotators, len(golds)
    n_fit = sum(g.kind == "histogram" for g in golds)
    n_truth = 1 if challenge.has_truth else 0
    return dict(gold_counts=(n_gold, n_sys, n_img, 3), ann_counts=(n_ann, n_sys, n_img, 3),
                ann_vs_gold=(n_ann, n_gold, n_img, 3), pair=(n_ann, n_ann, n_img, 3),
                loo_counts=(n_ann, n_sys, n_img, 3), loo_ann=(n_ann, n_img, 3), loo_valid=(n_ann, n_img),
                fit_iter=(n_fit, n_img), fit_conv=(n_fit, n_img), fit_rule=(n_fit, n_img), notes=(None,),
                twins=(n_sys, n_sys), truth=(n_truth, n_sys, n_img, 3), truth_ann=(n_truth, n_ann, n_img, 3)) | (
        dict(ann_boundary=(n_ann, n_sys, n_img, len(boundary)), gold_boundary=(n_gold, n_sys, n_img, len(boundary)),
             diagonal=(n_img,)) if boundary else {})


def _load_cache(path: Path, key: str, shapes: dict) -> tuple[dict | None, str | None]:
    """The cached arrays of this key, and a note when a cache was there but could not be trusted."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None, None
            data = {name: z[name] for name in z.files if name != "key"}
    except FileNotFoundError:
        return None, None
    except Exception as exc:  # a damaged cache is never trusted
        return None, f"{path}: ignoring unreadable overlap cache ({type(exc).__name__}: {exc}); counting again"
    for name, shape in shapes.items():
        if name not in data:
            return None, f"{path}: ignoring damaged overlap cache (no array {name!r}); counting again"
        got = data[name].shape
        if len(got) != len(shape) or any(w is not None and g != w for g, w in zip(got, shape)):
            return None, (f"{path}: ignoring damaged overlap cache (array {name!r} has shape {got}, expected "
                          f"{tuple('any' if w is None else w for w in shape)}); counting again")
    return data, None


def _draw_random(valid, n_rand, rng):
    """``choice[s, i]``: the annotator the ``rand{s+1}`` gold uses for image ``i`` (uniform among those present)."""
    k = valid.sum(axis=0)
    choice = np.empty((n_rand, valid.shape[1]), dtype=np.intp)
    for s in range(n_rand):
        pick = rng.integers(0, k)  # position among the annotators present
        for i in range(valid.shape[1]):
            choice[s, i] = np.flatnonzero(valid[:, i])[pick[i]]
    return choice


def compute_overlap(
    challenge: Challenge,
    *,
    strategies: Iterable[str | GoldStrategy] | None = None,
    n_random: int | None = None,
    staple_max_iter: int = STAPLE_MAX_ITER,
    leave_one_out: bool = True,
    n_jobs: int = 1,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = False,
    rng: SeedLike = None,
    boundary: Iterable[str] = (),
) -> OverlapCounts:
    """Count TP/FP/FN of every run against every gold strategy and every annotator.

    Parameters
    ----------
    challenge : Challenge
        The runs, the annotators and the images whose masks are counted.
    strategies : list of str, optional
        Gold strategies of the registry (:mod:`robustness.overlap.gold`); default: its
        default ones (``rand1..rand3``, majority, intersection, union, staple).
        Macro-only strategies (``mean``, ``max``) need no counts and are skipped.
    n_random : int, optional
        Number of ``randN`` strategies when ``strategies`` is not given (None: the default three).
    staple_max_iter : int
        Cap on STAPLE's EM iterations (default :data:`~robustness.overlap.staple.STAPLE_MAX_ITER`); images that
        reach it are flagged in ``fit_converged``, leave-one-out fits that reach it in ``notes``.
    leave_one_out : bool
        Also count against each annotator's leave-one-out STAPLE (Table 4's
        ``leave_one_out`` variant). Scoring alone does not need them: False
        leaves ``loo_valid`` all False and saves a STAPLE fit per annotator.
    n_jobs : int
        Worker processes (joblib) over batches of images. Results are identical
        for any value, and under a ``joblib.parallel_config(backend="dask")``.
    cache_dir : str or os.PathLike, optional
        Folder for the counts cache (``overlap-<key>.npz``), keyed by the
        input files (names, sizes, modification and status-change times,
        inodes: restoring a file's mtime after changing it does not fool it),
        the strategies and the package version. Random strategies are drawn
        after the pass, so changing the seed reuses the cache. Temporary files
        that killed writers left there are deleted. A cache that cannot be
        read, or lacks an array or holds one of another shape, is ignored with
        a :class:`~robustness.errors.NoteWarning` (also kept in ``notes``) and
        the pass runs again. None: no cache.
    progress : bool
        Show a progress bar (tqdm).
    rng : {None, int, numpy.random.Generator}
        Draws the annotator used by each ``randN`` strategy for every image.
    boundary : iterable of str
        Boundary metrics (``nsd@2``, ``hd95``, ``assd``, ``hd``: :mod:`robustness.overlap.boundary`) of every run
        against every gold, per image, with the images' voxel spacing (``boundary`` of the result).

    Returns
    -------
    OverlapCounts
        The counts of every run and annotator against every gold strategy, image by image.

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=0)
    >>> oc = compute_overlap(ch, rng=0)
    >>> oc.strategies
    ('rand1', 'rand2', 'rand3', 'majority', 'intersection', 'union', 'staple')
    >>> oc.counts.shape
    (7, 2, 4, 3)
    """
    if strategies is None and n_random is not None:
        strategies = [f"rand{i}" for i in range(1, n_random + 1)] + [
            s.name for s in resolve(None, macro_only="drop") if s.kind != "random"]
    chosen = resolve(strategies, macro_only="drop")
    golds = [s for s in chosen if s.in_pixel_pass]
    n_rand = sum(s.kind == "random" for s in chosen)
    k = challenge.annotated.sum(axis=1)
    if k.max() > MAX_ANNOTATORS:
        i = int(np.argmax(k))
        raise InputError(f"image {challenge.images[i]} has {k[i]} annotators; "
                         f"at most {MAX_ANNOTATORS} per image are supported")
    rng = np.random.default_rng(rng)
    boundary = tuple(dict.fromkeys(boundary_metric(b).name for b in boundary))  # nsd@2.0 and nsd@2: one metric
    key = _pass_key(challenge, golds, staple_max_iter, leave_one_out, boundary)
    data = None
    cache_path = cache_note = None
    if cache_dir is not None:
        cache_path = Path(cache_dir) / f"overlap-{key[:20]}.npz"
        remove_stale_temporaries(cache_dir)
        data, cache_note = _load_cache(cache_path, key, _shapes(challenge, golds, boundary))
    if cache_note:
        warnings.warn(cache_note, NoteWarning, stacklevel=2)
    if data is None:
        data = _pixel_pass(challenge, golds, staple_max_iter, n_jobs, progress, loo=leave_one_out, boundary=boundary)
        if cache_path is not None:
            atomic_write(cache_path, lambda f: np.savez_compressed(f, key=np.array(key), **data))
    notes = tuple(str(n) for n in data["notes"])
    for note in summarise_notes(notes):
        warnings.warn(note, MaskWarning, stacklevel=2)
    notes += (cache_note,) if cache_note else ()

    valid = challenge.annotated.T.copy()  # (n_ann, n_img)
    choice = _draw_random(valid, n_rand, rng)
    img = np.arange(challenge.n_images)
    ann_counts, pair = data["ann_counts"], data["pair"]
    rows, vs_rows, b_rows = [], [], []
    for s in chosen:  # in the order asked for
        if s.kind == "random":
            assert s.index is not None  # a random gold is numbered
            c = choice[s.index - 1]
            rows.append(ann_counts[c, :, img].transpose(1, 0, 2))
            vs_rows.append(pair[:, c, img])
            if boundary:
                b_rows.append(data["ann_boundary"][c, :, img].transpose(1, 0, 2))
        else:
            g = golds.index(s)
            rows.append(data["gold_counts"][g])
            vs_rows.append(data["ann_vs_gold"][:, g])
            if boundary:
                b_rows.append(data["gold_boundary"][g])
    return OverlapCounts(
        strategies=tuple(s.name for s in chosen),
        runs=challenge.runs,
        images=challenge.images,
        encounters=challenge.encounters,
        annotators=challenge.annotators,
        counts=np.stack(rows),
        annotator_counts=ann_counts,
        annotator_valid=valid,
        annotator_vs_gold=np.stack(vs_rows, axis=1),
        pair_counts=pair,
        loo_counts=data["loo_counts"],
        loo_annotator=data["loo_ann"],
        loo_valid=data["loo_valid"],
        rand_choice=choice,
        n_pixels=challenge.n_pixels,
        fits=tuple(g.name for g in golds if g.kind == "histogram"),
        fit_iterations=data["fit_iter"],
        fit_converged=data["fit_conv"],
        fit_rule=data["fit_rule"],
        truth_counts=data["truth"],
        truth_annotator=data["truth_ann"],
        fingerprint=key,
        run_twins=data["twins"],
        notes=notes,
        boundary_metrics=boundary,
        boundary=np.stack(b_rows) if boundary else None,
        boundary_worst=data["diagonal"] if boundary else None,
    )
