"""The per-image model of the synthetic challenge: an encounter's lesion seen in one image, and every rater's mask.

See :mod:`robustness.synthetic.challenge` for the model. Every image draws from its own
seeded streams (the encounter's lesion, this image's pose, each annotator,
each run; :func:`_stream`), in fixed-size blocks, so that an absent rater never
shifts another's draws and images of one encounter stay aligned. Blob fields
are computed by a numba kernel (:func:`robustness._kernels.blob_fields`) on a
coarse grid and upsampled to the image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from scipy.ndimage import gaussian_filter
from scipy.special import ndtr, ndtri

from robustness._kernels import blob_fields, rater_counts, rater_masks, upsample_positive

__all__ = ["generate_image", "ImageModel"]


class ImageModel(Protocol):
    """What :func:`generate_image` reads of a synthetic challenge.

    Its :class:`~robustness.synthetic.challenge.SyntheticSource`, which imports this module: a protocol, not that
    class, so that the two modules do not import each other, not even for annotations.
    """

    @property
    def config(self) -> Any:
        """The model's parameters (a SyntheticConfig)."""

    @property
    def population(self) -> Any:
        """The annotators' and runs' draws (a Population)."""

    @property
    def shapes(self) -> tuple:
        """Every image's shape."""

    @property
    def annotated(self) -> np.ndarray:
        """Which annotator drew which image."""

    @property
    def encounter_of(self) -> np.ndarray:
        """Every image's encounter."""

    @property
    def entropy(self) -> int:
        """The seed's entropy."""

    def image_key(self, image: int) -> int:
        """The image's index in the whole challenge (it seeds the image's streams).

        Parameters
        ----------
        image : int
            The image's index in this challenge.

        Returns
        -------
        int
        """

_COARSE = 64
_MAX_BLOBS = 4


def _stream(entropy, *keys):
    """An independent generator for one stream of one image (or encounter), from the challenge's entropy."""
    return np.random.default_rng(np.random.SeedSequence([entropy, *keys]))


_MAX_EXTRA = 6  # false blobs per rater at most (Poisson(2) exceeds it with probability 0.5%)
_HARM = np.arange(2, 6)  # the harmonics of a blob's wavy radius


def _mixed_normal(encounter_rng, image_rng, rho, size):
    """Standard normal draws shared within an encounter: ``sqrt(rho) z_encounter + sqrt(1 - rho) z_image``."""
    return np.sqrt(rho) * encounter_rng.standard_normal(size) + np.sqrt(1.0 - rho) * image_rng.standard_normal(size)


def _fields(grid, area, cy, cx, aspect, angle, amps, phases):
    """Blob fields on the coarse grid ``(ys, xs)``, one per row of the parameters: (n, ch, cw) (its kernel's)."""
    ys, xs = grid
    f = np.ascontiguousarray
    return blob_fields((f(ys.ravel(), dtype=np.float64), f(xs.ravel(), dtype=np.float64)), f(area, dtype=np.float64),
                       f(cy, dtype=np.float64), f(cx, dtype=np.float64), f(aspect, dtype=np.float64),
                       f(angle, dtype=np.float64), f(amps, dtype=np.float64), f(phases, dtype=np.float64))


def _raters(image_rng, encounter_rng, n, rho, grid):
    """The random draws of ``n`` raters of one image, in fixed-size blocks.

    Absent raters draw too, so that presence never shifts another rater's draws. Returns the shared
    uniforms/normals (jitter, blob misses, false-blob count, empty mask), the smooth boundary noise of every
    rater (on the coarse grid ``grid``: 2D, or 3D for a volume), and the parameters of up to ``_MAX_EXTRA``
    false blobs each (two more for a volume: the blob's slice and height).
    """
    m = _mixed_normal(encounter_rng, image_rng, rho, (n, 3 + _MAX_BLOBS))
    axes = tuple(range(1, len(grid) + 1))
    z = gaussian_filter(image_rng.standard_normal((n, *grid)), sigma=(0,) + (2.0,) * len(grid), mode="wrap")
    noise = z / (z.std(axis=axes, keepdims=True) + 1e-12)
    extra = image_rng.random((n, _MAX_EXTRA, 5 + 2 * _HARM.size + 2 * (len(grid) == 3)))
    return m[:, 0], ndtr(m[:, 1:1 + _MAX_BLOBS]), ndtr(m[:, -2]), ndtr(m[:, -1]), noise, extra


def _extrude(fields, zs, centre, half_height):
    """Volume fields of blobs from their 2D fields: ``1 - sqrt((1 - f)^2 + ((z - centre) / half_height)^2)``.

    A blob's slice at height ``z`` is its 2D shape shrunk as an ellipsoid's section (``f`` is 1 at the centre and
    0 on the boundary, so ``1 - f`` is the scaled distance); ``fields`` (n, ch, cw), ``zs`` the coarse slices'
    positions (voxels), ``centre`` and ``half_height`` (n,) in voxels. Returns (n, len(zs), ch, cw).
    """
    t = (zs[None, :] - centre[:, None]) / half_height[:, None]  # (n, cz)
    return 1.0 - np.sqrt((1.0 - fields[:, None]) ** 2 + t[:, :, None, None] ** 2)


def _upsample(coarse, shape):
    """The mask ``field > 0`` at full size: bilinear in the plane, and linear between coarse slices in a volume."""
    if len(shape) == 2:
        return upsample_positive(np.ascontiguousarray(coarse, dtype=np.float64), *shape)
    depth, h, w = shape
    cz = coarse.shape[0]
    out = np.empty(shape, dtype=bool)
    pos = np.arange(depth) * ((cz - 1) / max(depth - 1, 1))
    for k, p in enumerate(pos):
        z0 = min(int(p), max(cz - 2, 0))
        t = p - z0
        plane = coarse[z0] if cz == 1 else coarse[z0] * (1 - t) + coarse[z0 + 1] * t
        out[k] = upsample_positive(np.ascontiguousarray(plane, dtype=np.float64), h, w)
    return out


def generate_image(src: ImageModel, i: int, *, annotators: bool = True, common_runs: bool = False,
                   run_counts: bool = False) -> dict:
    """Every mask of one image of a synthetic challenge.

    Parameters
    ----------
    src : ImageModel
        A :class:`~robustness.synthetic.challenge.SyntheticSource`.
    i : int
        The image's position in ``src``.
    annotators : bool
        Draw the annotators' masks too.
    common_runs : bool
        Common random numbers across the runs: every run draws its jitter, misses, false blobs, empty mask and
        boundary noise from the same uniforms and normals (each through its own parameters). Each run's masks keep
        their distribution, so its expected score is unchanged, while the differences between runs lose the
        noise of independent draws: a pool of images estimates the runs' population *ranking* far more sharply
        (:func:`robustness.synthetic.pools.pool_counts`). A test set never uses it.
    run_counts : bool
        Instead of the runs' masks, their TP, FP, FN against the truth under ``("run", "counts")`` (int64, one row
        per run; 2D images: counted by :func:`robustness._kernels.rater_counts` without making the masks, equal to
        counting the masks).

    Returns
    -------
    dict
        ``{(kind, name): bool array}``, kind in truth/annotator/run.
    """
    c, pop = src.config, src.population
    e = int(src.encounter_of[i])
    shape, annotated = src.shapes[i], src.annotated[i]
    i = int(src.image_key(i))  # the streams are the whole challenge's image's
    rho = c.encounter_correlation
    scene, difficulty = _scene(src, i, e, shape)
    n_blobs = scene.n_blobs
    out = {("truth", "truth"): _upsample(scene.blobs.max(axis=0), shape)}
    if annotators:
        kn = (1.0 - c.agreement) / 0.4  # annotator noise scale: 1 at the default agreement, 0 at agreement 1
        draws = _raters(_stream(src.entropy, 2, i), _stream(src.entropy, 3, e), len(pop.annotators), rho, scene.grid)
        which = np.flatnonzero(annotated)
        bias = 0.1 * pop.annotator_z
        masks = _draw(scene, draws, which, _RaterModel(
            level=[lambda jit, b=bias[j]: kn * (b + 0.06 * jit) for j in which],
            amp=[kn * 0.16 * difficulty] * len(which),
            p_miss=[min(1.0, kn * (0.08 if n_blobs > 1 else 0.02))] * len(which),
            extra_rate=[-np.log1p(-min(0.999, kn * 0.05))] * len(which),  # P(at least one) = 0.05 k
            p_empty=[min(1.0, kn * 0.02)] * len(which)))
        out.update({("annotator", pop.annotators[j]): m for j, m in zip(which, masks)})
    n_draws = 1 if common_runs else len(pop.runs)
    draws = _raters(_stream(src.entropy, 4, i), _stream(src.entropy, 5, e), n_draws, rho, scene.grid)
    s_, b_ = pop.run_skill, pop.run_bias
    masks = _draw(scene, draws, np.zeros(len(pop.runs), dtype=int) if common_runs else np.arange(len(pop.runs)),
                  _RaterModel(level=[lambda jit, b=b_[r], s=s_[r]: b + (0.01 + 0.29 * (1 - s)) * difficulty * jit
                                     for r in range(len(pop.runs))],
                              amp=(0.03 + 0.67 * (1 - s_)) * difficulty, p_miss=c.run_failure * 0.35 * (1 - s_),
                              extra_rate=c.run_failure * 2.0 * (1 - s_), p_empty=c.run_failure * 0.1 * (1 - s_)),
                  truth=out[("truth", "truth")] if run_counts else None)
    if run_counts and isinstance(masks, np.ndarray):
        out[("run", "counts")] = masks
    elif run_counts:  # volumes: count the masks
        t = out[("truth", "truth")]
        n_t = int(t.sum())
        tp = np.array([np.count_nonzero(m & t) for m in masks], dtype=np.int64)
        out[("run", "counts")] = np.stack([tp, np.array([m.sum() for m in masks]) - tp, n_t - tp], axis=1)
    else:
        out.update({("run", name): m for name, m in zip(pop.runs, masks)})
    return out


@dataclass(frozen=True)
class _Scene:
    """One image's coarse grid and its lesion's blob fields: what every rater's mask of the image is drawn from."""

    shape: tuple
    ys: np.ndarray  # (ch, 1)
    xs: np.ndarray  # (1, cw)
    zs: np.ndarray | None  # a volume's coarse slices
    depth: int
    blobs: np.ndarray
    n_blobs: int

    @property
    def grid(self) -> tuple[int, ...]:
        """The coarse grid's shape: (ch, cw), or (cz, ch, cw) for a volume."""
        plane = (self.ys.shape[0], self.xs.shape[1])
        return plane if self.zs is None else (self.zs.size, *plane)


def _scene(src: ImageModel, i: int, e: int, shape: tuple) -> tuple[_Scene, float]:
    """Image ``i``'s (the challenge's key) coarse grid and lesion, seen in this image, and the lesion's difficulty.

    The lesion is the encounter's (``e``); every draw has a fixed size, so images stay aligned.
    """
    c = src.config
    rho = c.encounter_correlation
    h, w = shape[-2:]
    step = max(1.0, max(h, w) / _COARSE)
    ch, cw = max(2, int(np.ceil(h / step))), max(2, int(np.ceil(w / step)))
    ys = np.linspace(0.0, h - 1.0, ch)[:, None]
    xs = np.linspace(0.0, w - 1.0, cw)[None, :]
    zs, depth = None, 1
    if len(shape) == 3:  # a volume: coarse slices as far apart (in mm) as the coarse grid's in-plane points
        depth = shape[0]
        sz, sy = c.spacing[0], c.spacing[1]
        cz = max(1, min(depth, int(np.ceil(depth * sz / (step * sy))) + 1))
        zs = np.linspace(0.0, depth - 1.0, cz)
    lesion_rng = _stream(src.entropy, 1, i)
    z = _mixed_normal(_stream(src.entropy, 0, e), lesion_rng, rho, 4 + _MAX_BLOBS * (6 + 2 * _HARM.size))
    u = ndtr(z)
    n_blobs = 1 if u[0] < 0.6 else 2 + min(int((u[0] - 0.6) / 0.4 * 3), 2)
    lo, hi = np.log(c.coverage_range[0]), np.log(c.coverage_range[1])
    coverage = np.exp(lo + u[1] * (hi - lo))
    difficulty = np.exp(0.35 * z[2])
    blob = z[4:].reshape(_MAX_BLOBS, 6 + 2 * _HARM.size)[:n_blobs]
    shares = np.exp(0.6 * blob[:, 0])
    shares /= shares.sum()
    # this image's pose of the lesion: rotation, scale, shift
    rot, scale = 0.15 * lesion_rng.standard_normal(), np.exp(0.08 * lesion_rng.standard_normal())
    shift = 0.04 * lesion_rng.standard_normal(2)
    area = coverage * h * w * shares * scale**2
    r = np.sqrt(area / np.pi)
    py, px = ndtr(blob[:, 1]) - 0.5, ndtr(blob[:, 2]) - 0.5
    cr, sr = np.cos(rot), np.sin(rot)
    py, px = scale * (cr * py - sr * px) + 0.5 + shift[0], scale * (sr * py + cr * px) + 0.5 + shift[1]
    low_y, low_x = np.minimum(r, h / 2), np.minimum(r, w / 2)
    cy = low_y + np.clip(py, 0, 1) * (np.maximum(h - r, h / 2) - low_y)
    cx = low_x + np.clip(px, 0, 1) * (np.maximum(w - r, w / 2) - low_x)
    blobs = _fields((ys, xs), area, cy, cx, np.exp(0.25 * blob[:, 3]), np.pi * ndtr(blob[:, 4]) + rot,
                    0.07 * blob[:, 6:6 + _HARM.size], 2 * np.pi * ndtr(blob[:, 6 + _HARM.size:]))
    if zs is not None:  # each blob's slice and half-height, shared within the encounter like its other draws
        uz = ndtr(_mixed_normal(_stream(src.entropy, 6, e), _stream(src.entropy, 7, i), rho, (_MAX_BLOBS, 2)))
        uz = uz[:n_blobs]
        blobs = _extrude(blobs, zs, depth * (0.3 + 0.4 * uz[:, 0]), np.maximum(depth * (0.15 + 0.25 * uz[:, 1]), 1.0))
    return _Scene(tuple(shape), ys, xs, zs, depth, blobs, n_blobs), difficulty


@dataclass(frozen=True)
class _RaterModel:
    """Per-rater parameters of a group of raters, one entry each.

    The level (a function of the rater's jitter), the noise's amplitude, the chance to miss each blob, the rate of
    false blobs and the chance of an empty mask.
    """

    level: list
    amp: Any
    p_miss: Any
    extra_rate: Any
    p_empty: Any


def _draw(scene: _Scene, draws: tuple, which, model: _RaterModel, truth: np.ndarray | None = None):
    """The masks of raters ``which`` (rows of the draws); false blobs computed in one call.

    A 2D image's raters are drawn by one kernel call (:func:`robustness._kernels.rater_masks`), or with ``truth``
    counted against it instead (:func:`robustness._kernels.rater_counts`); a volume's one by one.
    """
    level, amp, p_miss, extra_rate, p_empty = model.level, model.amp, model.p_miss, model.extra_rate, model.p_empty
    blobs, n_blobs, shape = scene.blobs, scene.n_blobs, scene.shape
    jitter, u_miss, u_extra, u_empty, noise, extra = draws
    n_extra = [min(_poisson_ppf(u_extra[k], extra_rate[n]), _MAX_EXTRA) for n, k in enumerate(which)]
    # each draw's false blobs once (raters sharing a draw, common_runs, take the first ones they need)
    most: dict[int, int] = {}
    for k, m in zip(which, n_extra):
        most[k] = max(most.get(k, 0), m)
    offset = dict(zip(most, np.cumsum([0, *most.values()])[:-1].tolist()))
    x = np.concatenate([extra[k, :m] for k, m in most.items()]) if sum(n_extra) else None
    if x is not None:
        false_blobs = _false_blobs(scene, x)
    if scene.zs is None:  # 2D: every rater in one kernel call, the masks or their counts against ``truth``
        fields = blobs if x is None else np.concatenate([blobs, false_blobs])
        which = np.asarray(which)
        args = (np.ascontiguousarray(fields, dtype=np.float64),
                u_miss[which, :n_blobs] >= np.asarray(p_miss, dtype=np.float64)[:, None],
                (np.array([offset.get(k, 0) for k in which], dtype=np.int64), np.array(n_extra, dtype=np.int64)),
                np.array([level[n](jitter[k]) for n, k in enumerate(which)], dtype=np.float64),
                np.asarray(amp, dtype=np.float64),
                (np.ascontiguousarray(noise, dtype=np.float64), which.astype(np.int64)),
                u_empty[which] < np.asarray(p_empty, dtype=np.float64))
        if truth is not None:
            return rater_counts(*args, truth)
        return list(rater_masks(*args, shape))
    masks = []
    for n, k in enumerate(which):
        keep = blobs[u_miss[k, :n_blobs] >= p_miss[n]]
        if n_extra[n]:
            keep = np.concatenate([keep, false_blobs[offset[k]:offset[k] + n_extra[n]]])
        if u_empty[k] < p_empty[n] or not len(keep):
            masks.append(np.zeros(shape, dtype=bool))
            continue
        f = keep.max(axis=0) + level[n](jitter[k]) + amp[n] * noise[k]
        masks.append(_upsample(f, shape))
    return masks


def _false_blobs(scene: _Scene, x: np.ndarray) -> np.ndarray:
    """The fields of false blobs with parameters ``x`` (one row each, uniforms) on the scene's coarse grid."""
    h, w = scene.shape[-2:]
    small_area = max(0.002 * h * w, 20.0)
    q = np.clip(x, 1e-12, 1 - 1e-12)
    harm = slice(5 + _HARM.size, 5 + 2 * _HARM.size)
    false_blobs = _fields((scene.ys, scene.xs), small_area * (0.5 + 2.5 * x[:, 0]), h * x[:, 1], w * x[:, 2],
                          np.exp(0.25 * ndtri(q[:, 3])), np.pi * x[:, 4], 0.07 * ndtri(q[:, 5:5 + _HARM.size]),
                          2 * np.pi * x[:, harm])
    if scene.zs is not None:
        false_blobs = _extrude(false_blobs, scene.zs, scene.depth * x[:, -2],
                               np.maximum(scene.depth * (0.05 + 0.1 * x[:, -1]), 1.0))
    return false_blobs


def _poisson_ppf(u: float, rate: float) -> int:
    """The smallest n with P(Poisson(rate) <= n) >= u (inverse CDF, for the small rates used here)."""
    if rate <= 0:
        return 0
    n, p = 0, np.exp(-rate)
    cdf = p
    while cdf < u and n < 50:
        n += 1
        p *= rate / n
        cdf += p
    return n
