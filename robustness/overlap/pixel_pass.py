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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robustness import __version__
from robustness.errors import InputError, MaskWarning, NoteWarning, deprecated_keywords, options_with, summarise_notes
from robustness.files import atomic_write, remove_stale_temporaries
from robustness.io.challenge import Challenge
from robustness.overlap.boundary import boundary_metric, conventions
from robustness.overlap.counts import OverlapCounts
from robustness.overlap.gold import resolve
from robustness.overlap.image_counts import TWIN_JACCARD, count_image
from robustness.overlap.patterns import MAX_ANNOTATORS
from robustness.overlap.staple import STAPLE_MAX_ITER
from robustness.parallel import progress_bar, run_batches

if TYPE_CHECKING:
    from collections.abc import Iterable

    from robustness.overlap.gold import GoldStrategy
    from robustness.seeds import SeedLike

__all__ = ["OverlapOptions", "compute_overlap"]

_CACHE_FORMAT = 7  # 7: a volume of one slice has the boundary metrics of the image it is


@dataclass(frozen=True)
class OverlapOptions:
    """How :func:`compute_overlap` fits the golds and measures the boundaries, beyond which ones it counts.

    Parameters
    ----------
    leave_one_out : bool
        Also count against each annotator's leave-one-out STAPLE (Table 4's ``leave_one_out`` variant). Scoring
        alone does not need them: False leaves ``loo_valid`` all False and saves a STAPLE fit per annotator.
    staple_max_iter : int
        Cap on STAPLE's EM iterations (default :data:`~robustness.overlap.staple.STAPLE_MAX_ITER`); images that
        reach it are flagged in ``fit_converged``, leave-one-out fits that reach it in ``notes``.
    boundary_conventions : mapping, optional
        The boundary metrics' conventions (:func:`robustness.overlap.boundary.conventions`: ``empty_distance``,
        ``one_slice``, ``border``, ``min_lesion_size``; default theirs).

    Examples
    --------
    >>> OverlapOptions(leave_one_out=False).staple_max_iter == STAPLE_MAX_ITER
    True
    """

    leave_one_out: bool = True
    staple_max_iter: int = STAPLE_MAX_ITER
    boundary_conventions: Mapping[str, Any] | None = None


# -- one image ----------------------------------------------------------------


def _count_batch(challenge, golds, staple_max_iter, loo, boundary=(), boundary_conventions=None):
    """Counts of every image of ``challenge`` (a batch: :meth:`Challenge.subset`; workers read its files)."""
    return [count_image(challenge, i, strategies=golds, staple_max_iter=staple_max_iter, loo=loo, boundary=boundary,
                        boundary_conventions=boundary_conventions)
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

def _pass_key(challenge: Challenge, golds, staple_max_iter, loo, boundary=(), boundary_conventions=None) -> str:
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
    } | ({"boundary": list(boundary)} if boundary else {}) | (
        {"conventions": boundary_conventions} if boundary and boundary_conventions not in (None, conventions()) else {})
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _pixel_pass(challenge, golds, staple_max_iter, n_jobs, progress, loo=True, boundary=(), boundary_conventions=None):
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
    batches = ((challenge.subset(images), golds, staple_max_iter, loo, tuple(boundary), boundary_conventions)
               for images in groups)
    bar = progress_bar(progress, n_img, "pixel pass", unit="image", shared=True)
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


def _with_deprecated(options: OverlapOptions | None, given: dict) -> tuple[OverlapOptions, int | None]:
    """The pass's options with the keywords of before them, and the deprecated ``n_random`` (each one warned)."""
    given = dict(given)
    old_random = {"n_random": given.pop("n_random")} if "n_random" in given else {}
    n_random = deprecated_keywords("compute_overlap", old_random, ["n_random"],
                                   "strategies=[rand1, .., randN, majority, ..]").get("n_random")
    return options_with("compute_overlap", options or OverlapOptions(), given), n_random


def _chosen(strategies: Iterable[str | GoldStrategy] | None, n_random: int | None) -> list[GoldStrategy]:
    """The strategies asked for (``n_random``: that many random golds beside the default others), resolved."""
    if strategies is None and n_random is not None:
        strategies = [f"rand{i}" for i in range(1, n_random + 1)] + [
            s.name for s in resolve(None, macro_only="drop") if s.kind != "random"]
    return resolve(strategies, macro_only="drop")


def _cached(cache_dir, key: str, challenge: Challenge, golds: list, boundary: tuple) -> tuple:
    """The pass's counts from the cache folder where they are there and whole: (data or None, path, note)."""
    if cache_dir is None:
        return None, None, None
    cache_path = Path(cache_dir) / f"overlap-{key[:20]}.npz"
    remove_stale_temporaries(cache_dir)
    data, cache_note = _load_cache(cache_path, key, _shapes(challenge, golds, boundary))
    return data, cache_path, cache_note


def _gold_rows(chosen: list, golds: list, data: dict, choice: np.ndarray, img: np.ndarray,
               boundary: bool) -> tuple[list, list, list]:
    """Each strategy's counts, annotators against its gold and boundary metrics, in the order asked for.

    A random gold takes each image's drawn annotator (``choice``) from the annotators' own counts.
    """
    rows, vs_rows, b_rows = [], [], []
    for s in chosen:
        if s.kind == "random":
            assert s.index is not None  # a random gold is numbered
            c = choice[s.index - 1]
            rows.append(data["ann_counts"][c, :, img].transpose(1, 0, 2))
            vs_rows.append(data["pair"][:, c, img])
            if boundary:
                b_rows.append(data["ann_boundary"][c, :, img].transpose(1, 0, 2))
        else:
            g = golds.index(s)
            rows.append(data["gold_counts"][g])
            vs_rows.append(data["ann_vs_gold"][:, g])
            if boundary:
                b_rows.append(data["gold_boundary"][g])
    return rows, vs_rows, b_rows


def compute_overlap(
    challenge: Challenge,
    *,
    strategies: Iterable[str | GoldStrategy] | None = None,
    n_jobs: int = 1,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = False,
    rng: SeedLike = None,
    boundary: Iterable[str] = (),
    options: OverlapOptions | None = None,
    **deprecated: Any,
) -> OverlapCounts:
    """Count TP/FP/FN of every run against every gold strategy and every annotator.

    Parameters
    ----------
    challenge : Challenge
        The runs, the annotators and the images whose masks are counted.
    strategies : list of str, optional
        Gold strategies of the registry (:mod:`robustness.overlap.gold`); default: its
        default ones (``rand1..rand3``, majority, intersection, union, staple).
        Macro-only strategies (``mean``, ``max``) need no counts and are skipped. More random golds than
        the default three: name them, without gaps (``rand1``, ``rand2``, ... ``rand5``).
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
    options : OverlapOptions, optional
        Leave-one-out STAPLE, STAPLE's iteration cap and the boundary conventions (default: ``OverlapOptions()``).
    **deprecated
        ``OverlapOptions``' fields as keywords, and ``n_random`` (that many ``randN`` golds beside the default
        others, when ``strategies`` is not given), each with a DeprecationWarning.

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
    opts, n_random = _with_deprecated(options, deprecated)
    staple_max_iter, leave_one_out = opts.staple_max_iter, opts.leave_one_out
    chosen = _chosen(strategies, n_random)
    golds = [s for s in chosen if s.in_pixel_pass]
    n_rand = sum(s.kind == "random" for s in chosen)
    k = challenge.annotated.sum(axis=1)
    if k.max() > MAX_ANNOTATORS:
        i = int(np.argmax(k))
        raise InputError(f"image {challenge.images[i]} has {k[i]} annotators; "
                         f"at most {MAX_ANNOTATORS} per image are supported")
    rng = np.random.default_rng(rng)
    boundary = tuple(dict.fromkeys(boundary_metric(b).name for b in boundary))  # nsd@2.0 and nsd@2: one metric
    chosen_conventions = conventions(**dict(opts.boundary_conventions or {}))
    key = _pass_key(challenge, golds, staple_max_iter, leave_one_out, boundary, chosen_conventions)
    data, cache_path, cache_note = _cached(cache_dir, key, challenge, golds, boundary)
    if cache_note:
        warnings.warn(cache_note, NoteWarning, stacklevel=2)
    if data is None:
        data = _pixel_pass(challenge, golds, staple_max_iter, n_jobs, progress, loo=leave_one_out, boundary=boundary,
                           boundary_conventions=chosen_conventions)
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
    rows, vs_rows, b_rows = _gold_rows(chosen, golds, data, choice, img, bool(boundary))
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
