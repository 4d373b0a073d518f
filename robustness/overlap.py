"""The pixel pass: TP/FP/FN of every run against every gold, one image at a time.

For each image the annotators' masks are read once and turned into rater
pattern codes; every aggregated gold (majority, intersection, union, STAPLE)
and every individual annotator is a look-up table over those codes
(:mod:`robustness.gold`), packed into 64-pixel words once per image. Each
run's mask is then read once and counted against all golds with popcounts.
Peak memory is a few copies of the largest image, whatever the number of
images or runs.

The result, :class:`OverlapCounts`, is all that every later study needs; it
is cached on disk under a fingerprint of the inputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from . import __version__, _kernels
from .data import Challenge
from .errors import InputError, MaskWarning
from .gold import AGGREGATES, STAPLE_MAX_ITER, annotator_luts, split_strategies, staple, strategy_names

__all__ = ["OverlapCounts", "compute_overlap", "count_image"]

_CACHE_FORMAT = 2


@dataclass(frozen=True, eq=False)
class OverlapCounts:
    """Per-image overlap counts of every run against every gold.

    Count arrays end in an axis of 3: ``(tp, fp, fn)`` with FP = run pixels
    outside the gold and FN = gold pixels the run missed.

    Attributes
    ----------
    strategies : tuple of str
        Gold strategies of ``counts`` (``rand1..`` then aggregates).
    systems, images, encounters, annotators : tuple of str
    counts : int64 (n_strategies, n_systems, n_images, 3)
    annotator_counts : int64 (n_annotators, n_systems, n_images, 3)
        Every run against every individual annotator (zeros where invalid).
    annotator_valid : bool (n_annotators, n_images)
        Whether the annotator annotated the image.
    annotator_vs_gold : int64 (n_annotators, n_strategies, n_images, 3)
        Every annotator scored as if it were a run against every gold (for
        the annotators' own spread, e.g. the paper's Table 4).
    pair_counts : int64 (n_annotators, n_annotators, n_images, 3)
        Annotator ``a`` (as run) against annotator ``b`` (as gold).
    loo_counts : int64 (n_annotators, n_systems, n_images, 3)
        Every run against the STAPLE consensus of all annotators but one
        (leave-one-annotator-out), indexed by the annotator left out.
    loo_annotator : int64 (n_annotators, n_images, 3)
        Each annotator against the STAPLE consensus of the others.
    loo_valid : bool (n_annotators, n_images)
        Annotator present and at least one other annotator present.
    rand_choice : int (n_random, n_images)
        Index of the annotator each ``randN`` strategy uses for every image.
    n_pixels : int64 (n_images,)
    staple_iterations : int (n_images,), staple_converged : bool (n_images,)
    staple_rule : tuple of str
        Per image, which STAPLE path applied (em, all-empty, all-full, identical).
    fingerprint : str
        Hash of the inputs and settings the pixel pass depended on.
    """

    strategies: tuple
    systems: tuple
    images: tuple
    encounters: tuple
    annotators: tuple
    counts: np.ndarray
    annotator_counts: np.ndarray
    annotator_valid: np.ndarray
    annotator_vs_gold: np.ndarray
    pair_counts: np.ndarray
    loo_counts: np.ndarray
    loo_annotator: np.ndarray
    loo_valid: np.ndarray
    rand_choice: np.ndarray
    n_pixels: np.ndarray
    staple_iterations: np.ndarray
    staple_converged: np.ndarray
    staple_rule: tuple
    fingerprint: str

    @property
    def n_images(self) -> int:
        return len(self.images)

    def strategy_counts(self, strategy: str) -> np.ndarray:
        """Counts against one strategy: int64 (n_systems, n_images, 3)."""
        return self.counts[self.strategies.index(strategy)]

    def to_frame(self):
        """Tidy long table: strategy, system, image, encounter, tp, fp, fn.

        Strategies ``ann0``.. are the individual annotators (invalid pairs dropped).
        """
        import pandas as pd

        parts = []
        for names, arr, valid in (
            (self.strategies, self.counts, None),
            (self.annotators, self.annotator_counts, self.annotator_valid),
        ):
            s, r, i = np.meshgrid(np.arange(len(names)), np.arange(len(self.systems)),
                                  np.arange(self.n_images), indexing="ij")
            keep = np.ones(s.shape, bool) if valid is None else np.broadcast_to(valid[:, None, :], s.shape)
            parts.append(pd.DataFrame({
                "strategy": np.asarray(names, dtype=object)[s[keep]],
                "system": np.asarray(self.systems, dtype=object)[r[keep]],
                "image": np.asarray(self.images, dtype=object)[i[keep]],
                "encounter": np.asarray(self.encounters, dtype=object)[i[keep]],
                "tp": arr[..., 0][keep], "fp": arr[..., 1][keep], "fn": arr[..., 2][keep],
            }))
        return pd.concat(parts, ignore_index=True)


# -- one image ----------------------------------------------------------------

def _staple_without(hist, k, j, max_iter):
    """STAPLE of all annotators but ``j``, as a LUT over the full ``2**k`` patterns."""
    p = np.arange(1 << k)
    low = p & ((1 << j) - 1)
    high = (p >> (j + 1)) << j
    reduced = low | high  # pattern without bit j
    sub = np.bincount(reduced, weights=hist, minlength=1 << (k - 1)).astype(np.int64)
    return staple(sub, max_iter=max_iter).lut[reduced]


def count_image(challenge: Challenge, image: int, *, aggregates=tuple(AGGREGATES),
                staple_max_iter: int = STAPLE_MAX_ITER, loo: bool = True) -> dict:
    """All counts of one image (the unit of work of the pixel pass).

    Returns a dict of arrays for this image: ``system`` (n_golds, n_systems, 3)
    where the golds are the annotators present then ``aggregates``;
    ``annotator`` (k, n_golds, 3) with each present annotator as a run;
    ``present`` (indices of the annotators present), ``n_loo`` (the number
    of trailing leave-one-annotator-out STAPLE golds: k, or 0 when k < 2),
    STAPLE diagnostics and the decoding notes.
    """
    names = challenge.annotators_of(image)
    present = [challenge.annotators.index(a) for a in names]
    notes = []
    masks = []
    for a in names:
        m, note = challenge.read(image, "annotator", a)
        masks.append(m.reshape(-1).view(np.uint8))
        if note:
            notes.append(note)
    k = len(masks)
    codes, hist = _kernels.pattern_codes(np.stack(masks))
    del masks
    luts = [annotator_luts(k)]
    st = None
    for agg in aggregates:
        if agg == "staple":
            st = staple(hist, max_iter=staple_max_iter)
            luts.append(st.lut[None, :])
        else:
            luts.append(AGGREGATES[agg](k)[None, :])
    # leave-one-annotator-out STAPLE: consensus of the others, one per annotator present
    n_loo = 0
    if loo and k >= 2:
        for j in range(k):
            luts.append(_staple_without(hist, k, j, staple_max_iter)[None, :])
        n_loo = k
    lut = np.concatenate(luts).astype(np.uint8)  # (g, 2**k)
    gold_words = _kernels.pack_lut(codes, lut)
    gold_size = lut.astype(np.int64) @ hist  # (g,)
    del codes

    sys_counts = np.empty((lut.shape[0], challenge.n_systems, 3), dtype=np.int64)
    for r, system in enumerate(challenge.systems):
        m, note = challenge.read(image, "system", system)
        if note:
            notes.append(note)
        size, tp = _kernels.count_run(m.reshape(-1).view(np.uint8), gold_words)
        sys_counts[:, r, 0] = tp
        sys_counts[:, r, 1] = size - tp
        sys_counts[:, r, 2] = gold_size - tp

    # annotators as runs, straight from the pattern histogram: tp[j, g] = sum_p hist[p] bit_j(p) lut_g(p)
    ann_luts = lut[:k].astype(np.int64)  # the first k golds are the annotators themselves
    ann_tp = (ann_luts * hist) @ lut.T.astype(np.int64)  # (k, g)
    ann_size = ann_luts @ hist
    ann_counts = np.stack([ann_tp, ann_size[:, None] - ann_tp, gold_size[None, :] - ann_tp], axis=-1)
    return {
        "present": np.array(present, dtype=np.intp),
        "n_loo": n_loo,
        "system": sys_counts,
        "annotator": ann_counts,
        "staple_iterations": st.iterations if st else 0,
        "staple_converged": st.converged if st else True,
        "staple_rule": st.rule if st else "",
        "notes": notes,
    }


def _count_batch(challenge, images, aggregates, staple_max_iter):
    return [count_image(challenge, i, aggregates=aggregates, staple_max_iter=staple_max_iter, loo=True)
            for i in images]


# -- the pass ---------------------------------------------------------------

def _pass_key(challenge: Challenge, aggregates, staple_max_iter) -> str:
    payload = {
        "challenge": challenge.fingerprint(),
        "aggregates": list(aggregates),
        "staple_max_iter": staple_max_iter,
        "version": __version__,
        "format": _CACHE_FORMAT,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _pixel_pass(challenge, aggregates, staple_max_iter, n_jobs, progress):
    n_img, n_sys, n_ann = challenge.n_images, challenge.n_systems, challenge.n_annotators
    n_agg = len(aggregates)
    agg_counts = np.zeros((n_agg, n_sys, n_img, 3), dtype=np.int64)
    ann_counts = np.zeros((n_ann, n_sys, n_img, 3), dtype=np.int64)
    ann_vs_agg = np.zeros((n_ann, n_agg, n_img, 3), dtype=np.int64)
    pair = np.zeros((n_ann, n_ann, n_img, 3), dtype=np.int64)
    loo_counts = np.zeros((n_ann, n_sys, n_img, 3), dtype=np.int64)
    loo_ann = np.zeros((n_ann, n_img, 3), dtype=np.int64)
    loo_valid = np.zeros((n_ann, n_img), dtype=bool)
    st_iter = np.zeros(n_img, dtype=np.int64)
    st_conv = np.ones(n_img, dtype=bool)
    st_rule = [""] * n_img
    notes: list[str] = []

    batch = 4
    batches = [list(range(s, min(s + batch, n_img))) for s in range(0, n_img, batch)]
    if n_jobs == 1:
        results = (_count_batch(challenge, b, aggregates, staple_max_iter) for b in batches)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_count_batch)(challenge, b, aggregates, staple_max_iter) for b in batches
        )
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_img, desc="pixel pass", unit="image", leave=False)
    for b, res in zip(batches, results):
        for i, r in zip(b, res):
            pres = r["present"]
            k = pres.size
            n_loo = r["n_loo"]
            sc, ac = r["system"], r["annotator"]
            ann_counts[pres, :, i] = sc[:k]
            agg_counts[:, :, i] = sc[k:k + n_agg]
            pair[pres[:, None], pres[None, :], i] = ac[:, :k]
            ann_vs_agg[pres, :, i] = ac[:, k:k + n_agg]
            if n_loo:
                loo_counts[pres, :, i] = sc[k + n_agg:]
                loo_ann[pres, i] = ac[np.arange(k), k + n_agg + np.arange(k)]
                loo_valid[pres, i] = True
            st_iter[i], st_conv[i], st_rule[i] = r["staple_iterations"], r["staple_converged"], r["staple_rule"]
            notes.extend(r["notes"])
        if bar is not None:
            bar.update(len(b))
    if bar is not None:
        bar.close()
    return dict(agg_counts=agg_counts, ann_counts=ann_counts, ann_vs_agg=ann_vs_agg, pair=pair,
                loo_counts=loo_counts, loo_ann=loo_ann, loo_valid=loo_valid, st_iter=st_iter, st_conv=st_conv, st_rule=np.array(st_rule), notes=np.array(notes, dtype=str))


def _load_cache(path: Path, key: str):
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None
            return {name: z[name] for name in z.files if name != "key"}
    except FileNotFoundError:
        return None
    except Exception as exc:  # a damaged cache is never trusted
        warnings.warn(f"{path}: ignoring unreadable overlap cache ({exc})", RuntimeWarning, stacklevel=3)
        return None


def atomic_write(path: Path, write) -> None:
    """Write a file through ``write(fileobj)`` into a temporary sibling, then rename it into place.

    An interrupted write leaves at most a ``*.tmp`` file, which nothing reads.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def compute_overlap(
    challenge: Challenge,
    *,
    strategies=None,
    n_random: int = 3,
    staple_max_iter: int = STAPLE_MAX_ITER,
    n_jobs: int = 1,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = False,
    rng=None,
) -> OverlapCounts:
    """Count TP/FP/FN of every run against every gold strategy and every annotator.

    Parameters
    ----------
    challenge : Challenge
    strategies : list of str, optional
        Gold strategies (default ``rand1..rand{n_random}``, majority,
        intersection, union, staple).
    n_random : int
        Number of ``randN`` strategies when ``strategies`` is not given.
    staple_max_iter : int
        Cap on STAPLE's EM iterations; images that reach it are flagged in
        ``staple_converged``.
    n_jobs : int
        Worker processes (joblib) over batches of images. Results are identical
        for any value, and under a ``joblib.parallel_config(backend="dask")``.
    cache_dir : path, optional
        Folder for the counts cache (``overlap-<key>.npz``), keyed by the
        input files (names, sizes, mtimes), the strategies and the package
        version. Random strategies are drawn after the pass, so changing the
        seed reuses the cache.
    progress : bool
        Show a progress bar (tqdm).
    rng : {None, int, numpy.random.Generator}
        Draws the annotator used by each ``randN`` strategy for every image.

    Returns
    -------
    OverlapCounts

    Examples
    --------
    >>> from robustness.synthetic import make_challenge
    >>> ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=0)
    >>> oc = compute_overlap(ch, rng=0)
    >>> oc.strategies
    ('rand1', 'rand2', 'rand3', 'majority', 'intersection', 'union', 'staple')
    >>> oc.counts.shape
    (7, 2, 4, 3)
    """
    strategies = list(strategies or strategy_names(n_random))
    aggregates, n_rand = split_strategies(strategies)
    k = challenge.annotated.sum(axis=1)
    if k.max() > 16:
        i = int(np.argmax(k))
        raise InputError(f"image {challenge.images[i]} has {k[i]} annotators; at most 16 per image are supported")
    rng = np.random.default_rng(rng)
    key = _pass_key(challenge, aggregates, staple_max_iter)
    data = None
    cache_path = None
    if cache_dir is not None:
        cache_path = Path(cache_dir) / f"overlap-{key[:20]}.npz"
        data = _load_cache(cache_path, key)
    if data is None:
        data = _pixel_pass(challenge, aggregates, staple_max_iter, n_jobs, progress)
        if cache_path is not None:
            atomic_write(cache_path, lambda f: np.savez_compressed(f, key=np.array(key), **data))
    for note in data["notes"]:
        warnings.warn(str(note), MaskWarning, stacklevel=2)

    # random strategies: a draw per (strategy, image) among the annotators present
    valid = challenge.annotated.T.copy()  # (n_ann, n_img)
    k = valid.sum(axis=0)
    choice = np.empty((n_rand, challenge.n_images), dtype=np.intp)
    for s in range(n_rand):
        pick = rng.integers(0, k)  # position among the annotators present
        for i in range(challenge.n_images):
            choice[s, i] = np.flatnonzero(valid[:, i])[pick[i]]
    img = np.arange(challenge.n_images)
    ann_counts, pair, ann_vs_agg = data["ann_counts"], data["pair"], data["ann_vs_agg"]
    rand_counts = np.stack([ann_counts[choice[s], :, img].transpose(1, 0, 2) for s in range(n_rand)]) \
        if n_rand else np.zeros((0,) + ann_counts.shape[1:], dtype=np.int64)
    rand_vs = np.stack([pair[:, choice[s], img] for s in range(n_rand)], axis=1) \
        if n_rand else np.zeros((ann_counts.shape[0], 0) + pair.shape[2:], dtype=np.int64)

    # order as requested: strategies as given by the caller
    rows, vs_rows = [], []
    for name in strategies:
        if name.startswith("rand"):
            s = int(name[4:]) - 1
            rows.append(rand_counts[s])
            vs_rows.append(rand_vs[:, s])
        else:
            a = aggregates.index(name)
            rows.append(data["agg_counts"][a])
            vs_rows.append(ann_vs_agg[:, a])
    return OverlapCounts(
        strategies=tuple(strategies),
        systems=challenge.systems,
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
        staple_iterations=data["st_iter"],
        staple_converged=data["st_conv"],
        staple_rule=tuple(str(x) for x in data["st_rule"]),
        fingerprint=key,
    )


def save_counts(counts: OverlapCounts, path) -> None:
    """Save :class:`OverlapCounts` to one ``.npz`` file, atomically."""
    arrays = {}
    for f in fields(counts):
        v = getattr(counts, f.name)
        arrays[f.name] = np.asarray(v) if not isinstance(v, str) else np.array(v)
    atomic_write(Path(path), lambda fh: np.savez_compressed(fh, **arrays))


def load_counts(path) -> OverlapCounts:
    """Inverse of :func:`save_counts`."""
    with np.load(path, allow_pickle=False) as z:
        kw = {}
        for f in fields(OverlapCounts):
            v = z[f.name]
            if f.name in ("strategies", "systems", "images", "encounters", "annotators", "staple_rule"):
                v = tuple(str(x) for x in v)
            elif f.name == "fingerprint":
                v = str(v)
            kw[f.name] = v
    return OverlapCounts(**kw)
