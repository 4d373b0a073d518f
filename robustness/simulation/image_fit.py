"""Fit the twin made of a challenge's own images (:mod:`robustness.synthetic.image_twin`) to the challenge.

:func:`measure` reads every real mask once: each image's truth (the gold annotators' majority vote), its signed
distance map, and for every real rater and image the border offset and wobble that give the real mask's numbers of
false-positive and false-negative voxels near the truth in expectation (:func:`fit_offset_wobble`), the objects it
misses and the false objects it draws; and the distance at which the real borders' displacement decorrelates
(:func:`displacement_length`). :func:`fit_image_twin` then fits two scales by bisection, on twins of the
challenge's size with common random numbers: the annotators' (their median pairwise Jaccard, the real annotators'
agreement) and the run effects' (the runs' separability, :func:`robustness.simulation.twin.challenge_stats`), and
checks the twin statistic by statistic (:func:`robustness.simulation.twin.check_statistic`): the same table as the
generator's fit, with the object size checked (the twin's objects are the real ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import ndimage
from scipy.optimize import least_squares
from scipy.special import ndtr

from robustness.io.challenge import Challenge
from robustness.simulation.twin import (
    FIT_SEEDS,
    STAT_LABELS,
    bisect_closest,
    challenge_stats,
    check_statistic,
    fit_counts,
)
from robustness.statistics.population import run_groups
from robustness.statistics.spread import pairwise_annotator_jaccard
from robustness.synthetic.image_twin import (
    MISS_CLASSES,
    ImageLibrary,
    ImageTwinConfig,
    TwinImage,
    TwinPopulation,
    library_digest,
    make_twin_challenge,
    object_labels,
    signed_distance,
    size_class,
)

__all__ = ["Measured", "measure", "fit_offset_wobble", "displacement_length", "fit_image_twin", "MISSED_RECALL",
           "IMAGE_TWIN_CHECKS"]

#: A truth object counts as missed by a rater whose mask covers less than this share of it.
MISSED_RECALL = 0.1

#: What the image twin's fit table checks beyond the generator's (:data:`robustness.simulation.twin.STAT_LABELS`):
#: the objects' size is the real one by construction, so it is checked within 10% (it differs only where the
#: twin's majority of simulated annotators differs from the real one).
IMAGE_TWIN_CHECKS = {"object_pixels_median": ("ratio", 1.1)}


@dataclass
class Measured:
    """What :func:`measure` reads off a challenge (arrays over raters ``a`` and real images ``i``)."""

    truths: list
    spacings: list
    annotator_offset: np.ndarray
    annotator_log_wobble: np.ndarray
    annotator_missed: np.ndarray
    annotator_objects: np.ndarray
    annotator_spurious: np.ndarray
    run_offset: np.ndarray
    run_log_wobble: np.ndarray
    run_missed: np.ndarray
    run_objects: np.ndarray
    run_spurious: np.ndarray
    ball_sizes: np.ndarray
    length: float
    reach: np.ndarray  # per image: the largest displacement seen (physical units)


def _histogram(d: np.ndarray, step: float, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts of signed distances within ``reach``, on bins of ``step`` (centres, counts)."""
    edges = np.arange(-reach, reach + step, step)
    counts, _ = np.histogram(d[np.abs(d) <= reach], bins=edges)
    centres = (edges[:-1] + edges[1:]) / 2
    keep = counts > 0
    return centres[keep], counts[keep].astype(np.float64)


def fit_offset_wobble(centres: np.ndarray, counts: np.ndarray, fp: int, fn: int, *, floor: float,
                      reach: float) -> tuple[float, float]:
    """The border offset ``o`` and wobble ``w`` whose expected false positives and negatives are ``fp`` and ``fn``.

    With a displacement ``o + w F`` (``F`` standard normal at every voxel), a voxel at signed distance ``d`` is
    drawn with probability ``Phi((o - d) / w)``: the expected false positives are the sum of that over the voxels
    outside (``d > 0``), the false negatives the sum of ``Phi((d - o) / w)`` over those inside.

    Parameters
    ----------
    centres, counts : ndarray
        The voxels' signed distances near the truth (a histogram).
    fp, fn : int
        The real mask's false positives and negatives near the truth.
    floor : float
        The smallest wobble (a tenth of a voxel).
    reach : float
        The largest offset or wobble considered.

    Returns
    -------
    (offset, wobble) : float, float

    Examples
    --------
    >>> d = np.arange(-20.5, 21)  # a flat border: one voxel per unit of distance
    >>> o, w = fit_offset_wobble(d, np.ones_like(d), 5, 1, floor=0.1, reach=20)
    >>> bool(o > 0)  # more drawn outside than missed inside: the border moved outwards
    True
    """
    outside, inside = centres > 0, centres < 0
    target = np.log1p([fp, fn])

    def expected(o, w):
        z = (o - centres) / w
        return np.array([(counts[outside] * ndtr(z[outside])).sum(), (counts[inside] * ndtr(-z[inside])).sum()])

    def residual(x):
        return np.log1p(expected(x[0], np.exp(x[1]))) - target

    # a coarse grid first (the surface has flat stretches), then least squares from its best point
    offsets = np.linspace(-reach, reach, 31)
    wobbles = np.geomspace(floor, reach, 17)
    best, start = np.inf, (0.0, np.log(floor))
    for w in wobbles:
        z = (offsets[:, None] - centres[None, :]) / w
        e_fp = (counts[outside] * ndtr(z[:, outside])).sum(axis=1)
        e_fn = (counts[inside] * ndtr(-z[:, inside])).sum(axis=1)
        err = (np.log1p(e_fp) - target[0]) ** 2 + (np.log1p(e_fn) - target[1]) ** 2
        k = int(np.argmin(err))
        if err[k] < best:
            best, start = float(err[k]), (float(offsets[k]), float(np.log(w)))
    fit = least_squares(residual, np.array(start), bounds=([-reach, np.log(floor)], [reach, np.log(reach)]))
    return float(fit.x[0]), float(np.exp(fit.x[1]))


def _near_and_false(mask: np.ndarray, touch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A real mask's components that touch the truth (the rest are false objects: their sizes)."""
    comps, n_comp = ndimage.label(mask, structure=np.ones((3,) * mask.ndim, dtype=bool))
    if n_comp == 0:
        return mask, np.zeros(0, np.int64)
    touching = np.zeros(n_comp + 1, dtype=bool)
    touching[np.unique(comps[touch])] = True
    touching[0] = False
    if touching[1:].all():  # the common case: every component touches the truth
        return mask, np.zeros(0, np.int64)
    sizes = np.bincount(comps.reshape(-1), minlength=n_comp + 1)
    false = np.flatnonzero(~touching[1:]) + 1
    return touching[comps], sizes[false].astype(np.int64)


def _box(masks: list, shape: tuple, margin: int) -> tuple:
    """The box holding every mask's voxels, widened by ``margin`` and clipped to the image."""
    union = np.any(masks, axis=0)
    where = np.nonzero(union)
    return tuple(slice(max(0, int(w.min()) - margin), min(n, int(w.max()) + 1 + margin)) for w, n in zip(where, shape))


def _missed_fp_fn(near, truth, labels, n_obj, nearest, obj_sizes):
    """Objects a real mask misses, and its false positives and negatives near the objects it keeps."""
    covered = np.bincount(labels[near].reshape(-1), minlength=n_obj + 1)[1:]
    missed = covered < MISSED_RECALL * obj_sizes
    region = ~missed[np.maximum(nearest, 1) - 1]
    return missed, region, near & ~truth & region, truth & ~near & region


#: Images whose raters' border displacement is sampled for its correlation length.
_PROFILED_IMAGES = 8


def measure(challenge: Challenge, *, say: Callable[..., None] | None = None) -> Measured:
    """Every real mask of ``challenge`` read once, and what the twin is fitted to (module notes).

    Each image's work is done in the box holding its truth and every real mask's voxels near it (false objects
    are found on the whole image first).

    Parameters
    ----------
    challenge : Challenge
        Its annotators are the gold panel.
    say : callable, optional
        Progress lines.

    Returns
    -------
    Measured
    """
    n_img, n_ann, n_run = challenge.n_images, challenge.n_annotators, challenge.n_runs
    n_class = MISS_CLASSES.size - 1
    arrays = (np.full((n_ann, n_img), np.nan), np.full((n_ann, n_img), np.nan), np.zeros((n_ann, n_class)),
              np.zeros((n_ann, n_class)), np.zeros((n_ann, n_img)), np.full((n_run, n_img), np.nan),
              np.full((n_run, n_img), np.nan), np.zeros((n_run, n_class)), np.zeros((n_run, n_class)),
              np.zeros((n_run, n_img)))
    truths, spacings, balls, reach = [], [], [], np.zeros(n_img)
    profiles = []
    profiled = set(np.linspace(0, n_img - 1, min(n_img, _PROFILED_IMAGES)).round().astype(int).tolist())
    for i in range(n_img):
        names = challenge.annotators_of(i)
        gold = [challenge.read(i, "annotator", a)[0].astype(bool) for a in names]
        truth = np.sum(gold, axis=0) >= -(-len(gold) // 2)  # the majority vote
        spacing = tuple(float(s) for s in challenge.spacing(i))
        raters = [("annotator", a, m) for a, m in zip(names, gold)] + \
            [("run", r, challenge.read(i, "run", r)[0].astype(bool)) for r in challenge.runs]
        truths.append(truth)
        spacings.append(spacing)
        st = np.ones((3,) * truth.ndim, bool)
        touch = ndimage.binary_dilation(truth, structure=st) if truth.any() else truth
        nears = []
        for kind, name, mask in raters:
            near, sizes = _near_and_false(mask, touch)
            balls.append(sizes)
            nears.append((kind, name, near, len(sizes)))
        if not truth.any():  # every drawn voxel is a false object's
            for kind, name, _, n_false in nears:
                _record(challenge, kind, name, i, (0.0, 0.1 * min(spacing)),
                        (n_false, np.zeros(n_class), np.zeros(n_class)), arrays)
            continue
        box = _box([truth] + [n for _, _, n, _ in nears], truth.shape, 3)
        t_box = truth[box]
        labels, n_obj = object_labels(t_box)
        obj_sizes = np.bincount(labels.reshape(-1), minlength=n_obj + 1)[1:]
        classes = size_class(obj_sizes)
        per_class = np.bincount(classes, minlength=n_class)
        d = signed_distance(t_box, spacing)
        _, idx = ndimage.distance_transform_edt(~t_box, sampling=spacing, return_indices=True)
        nearest = labels[tuple(idx)]
        found = []
        for kind, name, near, n_false in nears:
            missed, region, fp_vox, fn_vox = _missed_fp_fn(near[box], t_box, labels, n_obj, nearest, obj_sizes)
            far = np.abs(d[fp_vox | fn_vox])
            reach[i] = max(reach[i], float(far.max()) if far.size else 0.0)
            found.append((kind, name, missed, int(fp_vox.sum()), int(fn_vox.sum()), region, n_false))
        floor = 0.1 * min(spacing)
        span = max(reach[i] + 3 * max(spacing), 5 * max(spacing))
        for kind, name, missed, fp, fn, region, n_false in found:
            centres, counts = _histogram(d[region], 0.25 * min(spacing), span)
            ow = fit_offset_wobble(centres, counts, fp, fn, floor=floor, reach=span)
            _record(challenge, kind, name, i, ow, (n_false, np.bincount(classes[missed], minlength=n_class),
                                                   per_class), arrays)
        if i in profiled:
            profiles += _displacements(d, [n[box] for _, _, n, _ in nears], spacing, i)
        if say is not None and (i + 1) % 10 == 0:
            say(f"twin: measured {i + 1} of {n_img} images")
    ball_sizes = np.concatenate(balls).astype(np.int64) if balls else np.zeros(0, np.int64)
    return Measured(truths, spacings, *arrays[:2], arrays[2], arrays[3], arrays[4], *arrays[5:7], arrays[7],
                    arrays[8], arrays[9], ball_sizes, displacement_length(profiles), reach)


def _record(challenge, kind, name, i, ow, objects, arrays) -> None:
    """Store one real rater's parameters on image ``i``.

    ``ow`` is its border's (offset, wobble); ``objects`` its (false objects, objects missed per size class, the
    truth's objects per size class).
    """
    a_off, a_lw, a_miss, a_obj, a_spur, r_off, r_lw, r_miss, r_obj, r_spur = arrays
    o, w = ow
    n_false, lost, per_class = objects
    if kind == "annotator":
        a = challenge.annotators.index(name)
        a_off[a, i], a_lw[a, i], a_spur[a, i] = o, np.log(w), n_false
        a_miss[a] += lost
        a_obj[a] += per_class
    else:
        r = challenge.runs.index(name)
        r_off[r, i], r_lw[r, i], r_spur[r, i] = o, np.log(w), n_false
        r_miss[r] += lost
        r_obj[r] += per_class


#: Border voxels sampled per rater and image for the displacement's correlation (and pairs of them).
_BORDER_SAMPLE = 200


def _displacements(d: np.ndarray, masks: list, spacing: tuple, seed: int) -> list:
    """Every rater's signed border displacement at a sample of its border voxels, with their positions.

    A rater's border voxel lies ``d`` (the truth's signed distance there) from the truth's border: outwards where
    positive. No distance map of the rater's own is needed.
    """
    rng = np.random.default_rng(seed)
    st = np.ones((3,) * d.ndim, bool)
    out = []
    for m in masks:
        border = m & ~ndimage.binary_erosion(m, structure=st, border_value=0)
        where = np.argwhere(border)
        if len(where) < 3:
            continue
        pick = where[rng.choice(len(where), min(_BORDER_SAMPLE, len(where)), replace=False)]
        disp = d[tuple(pick.T)].astype(np.float64)
        out.append(((pick * np.array(spacing)).astype(np.float64), disp - disp.mean()))
    return out


def displacement_length(profiles: list, *, default: float = 10.0) -> float:
    """The distance along the border at which the real raters' displacement decorrelates to one half.

    Parameters
    ----------
    profiles : list of (positions (P, ndim), centred displacements (P,))
        One per rater and image.
    default : float
        Returned where no correlation can be measured.

    Returns
    -------
    float
        Physical units; the first distance where the pooled correlation of displacements falls below 0.5 (linear
        between bins of a tenth of the largest distance seen).
    """
    if not profiles:
        return float(default)
    dists, prods, var = [], [], 0.0
    for pos, disp in profiles:
        i, j = np.triu_indices(len(disp), 1)
        dists.append(np.sqrt(((pos[i] - pos[j]) ** 2).sum(axis=1)))
        prods.append(disp[i] * disp[j])
        var += float((disp ** 2).sum())
    n = sum(len(p[1]) for p in profiles)
    if var <= 0:
        return float(default)
    h, p = np.concatenate(dists), np.concatenate(prods)
    edges = np.quantile(h, np.linspace(0, 0.5, 26))
    centres, corr = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        sel = (h >= a) & (h < b)
        if sel.sum() > 20:
            centres.append(float(h[sel].mean()))
            corr.append(float(p[sel].mean() / (var / n)))
    for k in range(len(corr)):
        if corr[k] < 0.5:
            if k == 0:
                return max(centres[0], 1e-6)
            x0, x1, y0, y1 = centres[k - 1], centres[k], corr[k - 1], corr[k]
            return float(x0 + (0.5 - y0) * (x1 - x0) / (y1 - y0))
    return float(centres[-1]) if centres else float(default)


def _library(challenge: Challenge, m: Measured) -> ImageLibrary:
    """The real truths' bands.

    Each holds 1.5 times the widest displacement a real rater's parameters draw there (the offset and five
    wobbles: beyond it a displacement is clipped, which a normal field reaches once in about 3 million voxels at
    the real raters' own parameters).
    """
    params = np.concatenate([np.abs(m.annotator_offset) + 5 * np.exp(m.annotator_log_wobble),
                             np.abs(m.run_offset) + 5 * np.exp(m.run_log_wobble)])
    images = []
    for i, (t, sp) in enumerate(zip(m.truths, m.spacings)):
        widest = np.nanmax(params[:, i]) if np.isfinite(params[:, i]).any() else 0.0
        bound = 1.5 * widest + 2.0 * max(sp)
        images.append(TwinImage.build(t, sp, bound))
    units = {e: k for k, e in enumerate(dict.fromkeys(challenge.encounters))}
    unit_of = np.array([units[e] for e in challenge.encounters], dtype=np.int64)
    digest = library_digest(images, tuple(challenge.images), unit_of, m.ball_sizes)
    return ImageLibrary(tuple(images), tuple(challenge.images), unit_of, m.ball_sizes, digest)


def _config(challenge: Challenge, m: Measured, library: ImageLibrary, target: dict) -> ImageTwinConfig:
    """The twin before its scales are fitted."""
    pooled = (m.annotator_missed.sum(axis=0) + m.run_missed.sum(axis=0)) / np.maximum(
        m.annotator_objects.sum(axis=0) + m.run_objects.sum(axis=0), 1)

    def rate(missed, objects):  # each rater's misses per size class, shrunk to the pooled rate by one object
        return (missed + pooled[None]) / (objects + 1.0)
    present = np.asarray(challenge.annotated).T.copy()
    n_img = challenge.n_images
    real = TwinPopulation(annotators=tuple(challenge.annotators), runs=tuple(challenge.runs),
                          team_of=tuple(challenge.runs), offset=m.run_offset, log_wobble=m.run_log_wobble,
                          p_miss=rate(m.run_missed, m.run_objects), spurious=m.run_spurious.sum(axis=1) / n_img)
    groups, _ = run_groups(challenge.runs, "auto")
    per_enc = np.bincount(library.unit_of)
    k = present.sum(axis=0)
    volumes = [s for s in challenge.shapes if len(s) == 3]
    return ImageTwinConfig(
        library=library, annotator_names=tuple(challenge.annotators), annotator_present=present,
        annotator_offset=m.annotator_offset, annotator_log_wobble=m.annotator_log_wobble,
        annotator_p_miss=rate(m.annotator_missed, m.annotator_objects),
        annotator_spurious=m.annotator_spurious.sum(axis=1) / np.maximum(present.sum(axis=1), 1),
        real_runs=replace(real, team_of=tuple(str(g) for g in groups)), run_groups=np.asarray(groups),
        length=float(m.length), n_encounters=int(library.n_units), n_images=n_img, n_annotators=int(k.max()),
        min_annotators=int(k.min()), p_all_annotators=float((k == k.max()).mean()),
        agreement=float(np.clip(target["annotator_pairwise_jaccard_median"], 0.0, 0.999)),
        n_runs=challenge.n_runs, n_teams=int(len(np.unique(groups))),
        encounter_correlation=float(target["icc"]) if np.isfinite(target.get("icc", np.nan)) else 0.0,
        max_images_per_encounter=int(per_enc.max()) if per_enc.size else 1,
        coverage_range=(float(target["coverage_p05"]), float(target["coverage_p95"])),
        depth=int(np.median([s[0] for s in volumes])) if volumes else None,
        spacing=tuple(float(v) for v in np.median([library.images[i].spacing for i in range(n_img)], axis=0)))


def _twin_stats(config: ImageTwinConfig, seed: int) -> dict:
    """The fit statistics of the challenge's own images with twin masks (the real runs and annotators' presence)."""
    return challenge_stats(fit_counts(make_twin_challenge(config, rng=seed, every_unit=True), leave_one_out=False))


def _annotator_jaccard(config: ImageTwinConfig, seed: int) -> float:
    """:func:`_twin_stats`'s median pairwise annotator Jaccard alone: the same twin, its runs not drawn.

    Each mask is drawn from its own stream (image and rater), so the annotators' masks are those of the whole
    twin, and so is the statistic, without drawing or counting the runs' masks.
    """
    twin = make_twin_challenge(config, rng=seed, every_unit=True)
    return float(np.median(pairwise_annotator_jaccard(fit_counts(replace(twin, runs=()), leave_one_out=False))))


def fit_image_twin(challenge: Challenge, *, target: dict, seed: int = 0, say: Callable[..., None] | None = None
                   ) -> tuple[ImageTwinConfig, pd.DataFrame]:
    """The twin made of the challenge's images, fitted and checked (module notes).

    Parameters
    ----------
    challenge : Challenge
    target : dict
        :func:`robustness.simulation.twin.challenge_stats` of the challenge.
    seed : int
        Common random numbers of every twin simulated.
    say : callable, optional

    Returns
    -------
    (config, table) : ImageTwinConfig, pandas.DataFrame
        The fit table (``statistic, target, fitted, tolerance, within``; the twin's value is the first of
        :data:`~robustness.simulation.twin.FIT_SEEDS` twins, or their median for the distance), with the twin's
        set parameters as rows whose tolerance says so.
    """
    m = measure(challenge, say=say)
    library = _library(challenge, m)
    config = _config(challenge, m, library, target)
    if say is not None:
        say("twin: fitting the annotators' agreement and the runs' separability")
    if challenge.n_annotators > 1 and np.isfinite(target["annotator_pairwise_jaccard_median"]):
        scale = bisect_closest(lambda v: _annotator_jaccard(replace(config, annotator_scale=v), seed),
                               target["annotator_pairwise_jaccard_median"], 0.0, 3.0, increasing=False)
        config = replace(config, annotator_scale=scale)
    if challenge.n_runs > 2 and np.isfinite(target["run_separability"]):
        scale = bisect_closest(lambda v: _twin_stats(replace(config, run_scale=v), seed)["run_separability"],
                               target["run_separability"], 0.0, 2.0)
        config = replace(config, run_scale=scale)
    twins = [_twin_stats(config, seed + k) for k in range(FIT_SEEDS)]
    rows = []
    for key in STAT_LABELS:
        fitted, within, text = check_statistic(key, float(target[key]), [float(x[key]) for x in twins],
                                               extra=IMAGE_TWIN_CHECKS)
        rows.append({"statistic": STAT_LABELS[key], "target": float(target[key]), "fitted": fitted,
                     "tolerance": text, "within": within})
    volumes = [shape[0] for shape in challenge.shapes if len(shape) == 3]
    if volumes:  # the twin's volumes are the real ones
        slices = float(np.median(volumes))
        rows.append({"statistic": "slices per volume", "target": slices, "fitted": slices,
                     "tolerance": "copied (the real volumes)", "within": True})
    for label, value in (("annotators' scale (fitted: their pairwise Jaccard)", config.annotator_scale),
                         ("run effects' scale (fitted: the runs' separability)", config.run_scale),
                         ("border wobble's correlation length (measured, physical units)", config.length)):
        rows.append({"statistic": label, "target": np.nan, "fitted": float(value), "tolerance": "set",
                     "within": True})
    return config, pd.DataFrame(rows)
