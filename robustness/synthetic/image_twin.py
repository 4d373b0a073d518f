"""A twin made of a challenge's own images: its real truths, and annotators and runs fitted to the real ones.

The design study asks how a challenge like the organiser's behaves where the truth is known. The embedded
generator (:mod:`robustness.synthetic.challenge`) cannot look like real images at an affordable size; this twin
is made of the organiser's images themselves.

Model
-----
- **Truth.** Each real image's truth is the majority vote of its real gold annotators (foreground where at least
  ``ceil(k/2)`` of the ``k`` present draw it: the official rule, :func:`robustness.overlap.patterns.majority_lut`).
  Its objects are the truth's connected components (full connectivity), so object size, count and shape are the
  real ones.
- **A rater** (simulated annotator or run) on an image draws the voxels whose signed distance to the truth's border
  (physical units, negative inside) lies below a displacement ``o + w F``: ``o`` moves the border outwards
  (``o > 0``) or inwards, ``F`` is a smooth Gaussian random field of unit variance whose correlation falls to one
  half at ``length`` (the border's wobble), drawn afresh for every mask. Each truth object is missed with
  probability ``p_miss``, and ``Poisson(spurious)`` false objects (balls of the real false objects' sizes) are
  placed in the background.
- **Fitted image by image** (:mod:`robustness.simulation.image_fit`): for every real rater and image ``(o, w)``
  give the real mask's numbers of false-positive and false-negative voxels near the truth in expectation;
  ``p_miss`` and ``spurious`` pool the rater's images. A twin rater on an image thus reproduces the real rater's
  counts there: the per-image score distributions, the images' difficulty and the correlation between raters on an
  image are the real ones by construction.
- **Runs** (:class:`TwinPopulation`): a run's per-image parameters ``theta_ri = (o_ri, log w_ri)`` split into the
  image's mean over the runs ``m_i``, a run effect ``a_r`` and a residual ``e_ri``. Population 0 is the real runs
  with their effects times ``run_scale`` (fitted so that the twin's runs are as separable as the real ones: a
  test set's noise widens observed differences, so the true ones are smaller); a new population
  (:func:`draw_twin_population`) draws its effects from normal distributions with the real effects' covariance
  between and within teams (teams from the run names, :func:`robustness.statistics.population.run_groups`), times
  ``run_scale``, and takes each run's residuals, miss rate and false objects from a real run drawn at random.
- **Annotators**: twin annotator ``j`` on an image takes the parameters of the image's ``j``-th real annotator
  (cycling through them when a setting asks for more), times ``annotator_scale`` (fitted so that the twin
  annotators agree with each other as the real ones do; 0 makes every annotator the truth).
- **Test sets** (:func:`make_twin_challenge`): ``n`` units (encounters with all their images) drawn with replacement
  from the real ones; a unit drawn twice is the same images with fresh masks (new fields, misses and false
  objects), scored as two units. The population of images is the real images, each unit equally likely.

Only a band of voxels around each truth's border (half-width ``bound``) is kept: deeper voxels are inside every
mask that keeps their object, farther ones outside every mask (a displacement beyond the band is clipped to it and
counted, :attr:`TwinImage.bound`). A mask costs a pass over the band (:func:`robustness._kernels.threshold_band`)
and a copy of the interior.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from robustness import _kernels
from robustness.io.challenge import Challenge
from robustness.seeds import SeedLike

__all__ = ["TwinImage", "ImageLibrary", "RaterModel", "TwinPopulation", "ImageTwinConfig", "ImageTwinSource",
           "signed_distance", "object_labels", "make_twin_challenge", "draw_twin_population", "real_population",
           "twin_pool_counts", "field_lattice", "draw_band", "TRUTH_RULE", "MISS_CLASSES", "size_class"]

#: How a real image's truth is built from its gold annotators.
TRUTH_RULE = "majority vote of the real gold annotators (foreground where at least ceil(k/2) of k draw it)"

#: Objects are missed by size class: a rater's chance to miss a one-voxel speck is not its chance to miss the
#: main object. Class ``c`` holds objects of ``MISS_CLASSES[c]`` to ``MISS_CLASSES[c + 1]`` voxels.
MISS_CLASSES = np.array([0, 10, 100, 1_000, 10_000, np.inf])


def size_class(sizes: np.ndarray) -> np.ndarray:
    """Every object's size class (:data:`MISS_CLASSES`)."""
    return (np.searchsorted(MISS_CLASSES, np.asarray(sizes), side="right") - 1).clip(0, MISS_CLASSES.size - 2)


#: The random field's lattice: the field is white noise on a lattice of step ``length / LATTICE_PER_LENGTH``,
#: smoothed by a Gaussian of ``SMOOTHING`` lattice steps and interpolated; its correlation at distance r is then
#: ``exp(-r^2 / (4 (SMOOTHING step)^2))``, one half at ``2 SMOOTHING sqrt(ln 2) step = length``.
SMOOTHING = 1.5
LATTICE_PER_LENGTH = 2 * SMOOTHING * float(np.sqrt(np.log(2)))


def _as3(shape_or_spacing: tuple, fill: float | int) -> tuple:
    """A 2D shape or spacing as the (z, y, x) of a volume of one slice."""
    t = tuple(shape_or_spacing)
    return ((fill,) + t) if len(t) == 2 else t


def object_labels(truth: np.ndarray) -> tuple[np.ndarray, int]:
    """The truth's objects: connected components with full connectivity (8 in 2D, 26 in 3D).

    Parameters
    ----------
    truth : ndarray of bool

    Returns
    -------
    (labels, n) : int32 ndarray of the truth's shape (0 background, 1..n), int
    """
    from scipy import ndimage

    labels, n = ndimage.label(truth, structure=np.ones((3,) * truth.ndim, dtype=bool))
    return labels.astype(np.int32), int(n)


def signed_distance(truth: np.ndarray, spacing: tuple) -> np.ndarray:
    """Each voxel's distance to the truth's border in physical units: negative inside, positive outside.

    Inside, minus the distance to the nearest background voxel; outside, the distance to the nearest truth voxel
    (so the truth is exactly ``d < 0``). An empty truth: every voxel +inf.

    Parameters
    ----------
    truth : ndarray of bool
    spacing : tuple of float
        One voxel size per axis.

    Returns
    -------
    ndarray of float32
    """
    from scipy import ndimage

    if not truth.any():
        return np.full(truth.shape, np.inf, dtype=np.float32)
    outside = ndimage.distance_transform_edt(~truth, sampling=spacing)
    inside = ndimage.distance_transform_edt(truth, sampling=spacing) if not truth.all() else \
        np.full(truth.shape, np.inf)
    return np.where(truth, -inside, outside).astype(np.float32)


@dataclass(frozen=True, eq=False)
class TwinImage:
    """One real image's truth as the twin keeps it: a band of signed distances around its border.

    Attributes
    ----------
    shape : tuple of int
        The image's shape as read (2D or 3D).
    spacing : tuple of float
        Its voxel size (z, y, x) (a 2D image: z = 1).
    origin, crop : tuple of int
        Where the box holding the band starts in the (z, y, x) image, and its shape.
    band : int64 (V,)
        The band's voxels (flat indices within the box).
    full : int64 (V,)
        The same voxels' flat indices within the image.
    dist : float32 (V,)
        Their signed distance to the truth's border.
    obj : int32 (V,)
        The truth object nearest to each (1..K).
    interior : int64 (Q,)
        The voxels deeper inside than the band (flat within the image), object by object.
    interior_start : int64 (K + 1,)
        Object ``k``'s interior is ``interior[interior_start[k - 1]:interior_start[k]]``.
    object_sizes : int64 (K,)
        Voxels per object.
    bound : float
        The band's half-width (physical units).
    band_inside : int64 (K,)
        Band voxels inside each object (``dist < 0``).
    """

    shape: tuple
    spacing: tuple
    origin: tuple
    crop: tuple
    band: np.ndarray
    full: np.ndarray
    dist: np.ndarray
    obj: np.ndarray
    interior: np.ndarray
    interior_start: np.ndarray
    object_sizes: np.ndarray
    bound: float
    band_inside: np.ndarray

    @property
    def n_objects(self) -> int:
        """The truth's objects."""
        return int(self.object_sizes.size)

    @property
    def truth_size(self) -> int:
        """The truth's voxels."""
        return int(self.object_sizes.sum())

    @property
    def n_voxels(self) -> int:
        """The image's voxels."""
        return int(np.prod(self.shape))

    @classmethod
    def build(cls, truth: np.ndarray, spacing: tuple, bound: float) -> TwinImage:
        """The band of a truth mask of half-width ``bound`` (physical units).

        Parameters
        ----------
        truth : ndarray of bool
            2D or 3D.
        spacing : tuple of float
            One voxel size per axis of ``truth``.
        bound : float
            Positive.

        Returns
        -------
        TwinImage
        """
        from scipy import ndimage

        shape = tuple(int(s) for s in truth.shape)
        t3 = truth.reshape(_as3(shape, 1))
        sp3 = tuple(float(s) for s in _as3(tuple(spacing), 1.0))
        labels, n = object_labels(t3)
        if n == 0:
            empty64 = np.zeros(0, dtype=np.int64)
            return cls(shape, sp3, (0, 0, 0), (1, 1, 1), empty64, empty64, np.zeros(0, np.float32),
                       np.zeros(0, np.int32), empty64, np.zeros(1, np.int64), empty64, float(bound), empty64)
        margin = [int(np.ceil(bound / s)) + 1 if t3.shape[a] > 1 else 0 for a, s in enumerate(sp3)]
        where = np.nonzero(t3)
        lo = [max(0, int(w.min()) - m) for w, m in zip(where, margin)]
        hi = [min(t3.shape[a], int(w.max()) + 1 + m) for a, (w, m) in enumerate(zip(where, margin))]
        box = tuple(slice(a, b) for a, b in zip(lo, hi))
        sub = t3[box]
        d = signed_distance(sub, sp3)
        # the nearest truth object of every voxel of the box (inside: its own)
        _, nearest = ndimage.distance_transform_edt(~sub, sampling=sp3, return_indices=True)
        obj_of = labels[box][tuple(nearest)]
        in_band = np.abs(d) <= bound
        band = np.flatnonzero(in_band).astype(np.int64)
        crop = sub.shape
        coords = np.unravel_index(band, crop)
        full = np.ravel_multi_index(tuple(c + o for c, o in zip(coords, lo)), t3.shape).astype(np.int64)
        deep = (d < -bound)
        deep_flat = np.flatnonzero(deep)
        deep_obj = obj_of.reshape(-1)[deep_flat]
        order = np.argsort(deep_obj, kind="stable")
        deep_full = np.ravel_multi_index(tuple(c + o for c, o in zip(np.unravel_index(deep_flat[order], crop), lo)),
                                         t3.shape).astype(np.int64)
        start = np.concatenate([[0], np.cumsum(np.bincount(deep_obj, minlength=n + 1)[1:])]).astype(np.int64)
        sizes = np.bincount(labels[box][sub], minlength=n + 1)[1:].astype(np.int64)
        dist = d.reshape(-1)[band].astype(np.float32)
        obj = obj_of.reshape(-1)[band].astype(np.int32)
        inside = np.bincount(obj[dist < 0], minlength=n + 1)[1:].astype(np.int64)
        return cls(shape, sp3, tuple(lo), tuple(crop), band, full, dist, obj, deep_full, start, sizes, float(bound),
                   inside)

    def interior_of(self, k: int) -> np.ndarray:
        """Object ``k``'s interior voxels (1-based ``k``)."""
        return self.interior[self.interior_start[k - 1]:self.interior_start[k]]

    @cached_property
    def inner(self) -> tuple:
        """The band's inner part, within a third of the bound, and the band's bits as the truth draws them.

        (positions in the band, their box indices, their distances, the band's bits with every voxel inside 1).

        A rater whose offset plus six wobbles stays inside the inner part is drawn there alone (:func:`draw_band`):
        beyond it, its displacement is smaller than the distance in all but one voxel in about a billion.
        """
        positions = np.flatnonzero(np.abs(self.dist) <= self.bound / 3).astype(np.int64)
        return (positions, np.ascontiguousarray(self.band[positions]), np.ascontiguousarray(self.dist[positions]),
                (self.dist < 0).astype(np.uint8))


def field_lattice(image: TwinImage, length: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A smooth Gaussian random field of unit variance over an image's band box, on a lattice (module notes).

    Parameters
    ----------
    image : TwinImage
    length : float
        The distance (physical units) at which the field's correlation falls to one half.
    rng : numpy.random.Generator

    Returns
    -------
    (lattice, step) : float64 (Lz, Ly, Lx), float64 (3,)
        Point ``(a, b, c)`` sits ``(a, b, c) * step`` from the box's first voxel.
    """
    from scipy import ndimage

    step = np.full(3, float(length) / LATTICE_PER_LENGTH)
    extent = np.array(image.crop) * np.array(image.spacing)
    n = np.where(np.array(image.crop) > 1, np.ceil(extent / step).astype(int) + 1, 1)
    pad = int(np.ceil(4 * SMOOTHING))
    padded = np.where(n > 1, n + 2 * pad, 1)
    white = rng.standard_normal(tuple(int(v) for v in padded))
    sigma = [SMOOTHING if v > 1 else 0.0 for v in n]
    smooth = ndimage.gaussian_filter(white, sigma=sigma, mode="constant", truncate=4.0)
    core = tuple(slice(pad, pad + int(v)) if v > 1 else slice(0, 1) for v in n)
    # unit variance between lattice points on average: interpolating (1 - u) a + u b of neighbours correlated
    # rho has variance 2/3 + rho/3 averaged over u, per interpolated axis
    rho = float(np.exp(-1.0 / (4 * SMOOTHING ** 2)))
    active = int(sum(v > 1 for v in n))
    return smooth[core] / _smoothing_sd(tuple(v > 1 for v in n)) / (2 / 3 + rho / 3) ** (active / 2), step


_SD_CACHE: dict = {}


def _smoothing_sd(axes: tuple) -> float:
    """The standard deviation of white noise after the lattice's Gaussian smoothing along ``axes``."""
    if axes not in _SD_CACHE:
        from scipy import ndimage

        size = int(2 * np.ceil(4 * SMOOTHING) + 1)
        delta = np.zeros(tuple(size if a else 1 for a in axes))
        delta[tuple(size // 2 if a else 0 for a in axes)] = 1.0
        kernel = ndimage.gaussian_filter(delta, sigma=[SMOOTHING if a else 0.0 for a in axes], mode="constant",
                                         truncate=4.0)
        _SD_CACHE[axes] = float(np.sqrt((kernel ** 2).sum()))
    return _SD_CACHE[axes]


@dataclass(frozen=True)
class RaterModel:
    """One rater's parameters on one image (module notes): the border's offset and wobble, misses, false objects.

    ``p_miss`` is the chance to miss an object of each size class (:data:`MISS_CLASSES`), or one chance for all.
    """

    offset: float
    wobble: float
    p_miss: float | np.ndarray = 0.0
    spurious: float = 0.0


_NO_POSITIONS = np.zeros(0, dtype=np.int64)


def draw_band(image: TwinImage, model: RaterModel, length: float, rng: np.random.Generator, *,
              lattice: tuple | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """A rater's band voxels and missed objects on one image.

    Parameters
    ----------
    image : TwinImage
    model : RaterModel
    length : float
        The field's correlation length (:func:`field_lattice`).
    rng : numpy.random.Generator
        Draws, in order, the field (unless ``lattice`` is given), then one uniform per object for the misses.
    lattice : (lattice, step), optional
        A field shared with other raters (common random numbers), instead of a fresh one.

    Returns
    -------
    (bits, missed, clipped) : uint8 (V,), bool (K,), int
        The band voxels drawn (0 in missed objects), which objects are missed, and how many displacements were
        clipped to the band.
    """
    if lattice is None:
        lattice = field_lattice(image, length, rng)
    crop = np.array(image.crop, dtype=np.int64)
    spacing = np.array(image.spacing, dtype=np.float64)
    args = (lattice[0], lattice[1], float(model.offset), float(model.wobble), float(image.bound))
    if abs(model.offset) + 6 * model.wobble <= image.bound / 3:  # the inner part decides (property notes)
        positions, flat, dist, bits = image.inner
        bits = bits.copy()
        clipped = _kernels.threshold_band(flat, dist, crop, spacing, *args, bits, positions)
    else:
        bits = np.empty(image.band.size, dtype=np.uint8)
        clipped = _kernels.threshold_band(image.band, image.dist, crop, spacing, *args, bits, _NO_POSITIONS)
    chance = np.asarray(model.p_miss, dtype=np.float64)
    if chance.ndim:
        chance = chance[size_class(image.object_sizes)]
    missed = rng.random(image.n_objects) < chance
    if missed.any():
        bits[missed[image.obj - 1]] = 0
    return bits, missed, int(clipped)


@dataclass(frozen=True, eq=False)
class ImageLibrary:
    """The real images' truths as the twin keeps them, and how they group into units.

    Attributes
    ----------
    images : tuple of TwinImage
    image_ids : tuple of str
        The real images' ids.
    unit_of : int64 (N,)
        The unit (encounter) of every image, 0..U-1.
    ball_sizes : int64 (S,)
        The real false objects' sizes in voxels (what the twin's false objects are drawn from; empty: none seen).
    digest : str
        The identity of the truths (and the band).
    """

    images: tuple
    image_ids: tuple
    unit_of: np.ndarray
    ball_sizes: np.ndarray
    digest: str
    path: str | None = None

    @property
    def n_units(self) -> int:
        """The real units."""
        return int(self.unit_of.max()) + 1 if self.unit_of.size else 0

    def images_of(self, unit: int) -> np.ndarray:
        """The real images of one unit."""
        return np.flatnonzero(self.unit_of == unit)

    def save(self, path: Path | str) -> ImageLibrary:
        """Write the library to ``path`` (numpy's npz) and return it bound to the file (pickled by reference).

        Parameters
        ----------
        path : path

        Returns
        -------
        ImageLibrary
        """
        from robustness.files import atomic_write

        path = Path(path).resolve()  # workers may run in another folder
        arrays: dict[str, Any] = {"image_ids": np.array(self.image_ids), "unit_of": self.unit_of,
                                  "ball_sizes": self.ball_sizes, "digest": np.array(self.digest)}
        for i, im in enumerate(self.images):
            for name in ("band", "full", "dist", "obj", "interior", "interior_start", "object_sizes", "band_inside"):
                arrays[f"{i}/{name}"] = getattr(im, name)
            arrays[f"{i}/meta"] = np.array([*_as3(im.shape, 1), *im.spacing, *im.origin, *im.crop, im.bound,
                                            len(im.shape)], dtype=np.float64)

        def write(f):
            np.savez(f, **arrays)

        atomic_write(path, write)
        bound = replace(self, path=str(path))
        _LIBRARIES[self.digest] = bound
        return bound

    @classmethod
    def load(cls, path: Path | str) -> ImageLibrary:
        """A library written by :meth:`save`.

        Parameters
        ----------
        path : path

        Returns
        -------
        ImageLibrary
        """
        with np.load(path, allow_pickle=False) as z:
            ids = tuple(str(s) for s in z["image_ids"])
            images = []
            for i in range(len(ids)):
                m = z[f"{i}/meta"]
                ndim = int(m[-1])
                shape3 = tuple(int(v) for v in m[0:3])
                images.append(TwinImage(shape3[3 - ndim:], tuple(float(v) for v in m[3:6]),
                                        tuple(int(v) for v in m[6:9]), tuple(int(v) for v in m[9:12]),
                                        z[f"{i}/band"], z[f"{i}/full"], z[f"{i}/dist"], z[f"{i}/obj"],
                                        z[f"{i}/interior"], z[f"{i}/interior_start"], z[f"{i}/object_sizes"],
                                        float(m[12]), z[f"{i}/band_inside"]))
            lib = cls(tuple(images), ids, z["unit_of"], z["ball_sizes"], str(z["digest"]), str(path))
        _LIBRARIES[lib.digest] = lib
        return lib

    def __getstate__(self) -> dict:
        """Pickled by reference to its file where it has one (workers load it once)."""
        if self.path is not None:
            return {"path": self.path, "digest": self.digest}
        return dict(self.__dict__)

    def __setstate__(self, state: dict) -> None:
        """Restore: from this process's libraries, or the file."""
        if set(state) == {"path", "digest"}:
            found = _LIBRARIES.get(state["digest"]) or ImageLibrary.load(state["path"])
            state = dict(found.__dict__)
        self.__dict__.update(state)


#: The libraries this process holds, by digest (a worker loads each once).
_LIBRARIES: dict[str, ImageLibrary] = {}


def library_digest(images: list[TwinImage], ids: tuple, unit_of: np.ndarray, ball_sizes: np.ndarray) -> str:
    """The identity of a library's truths, bands and units.

    Parameters
    ----------
    images : list of TwinImage
    ids : tuple of str
    unit_of, ball_sizes : ndarray

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    h.update(repr((ids, unit_of.tolist(), ball_sizes.tolist())).encode())
    for im in images:
        h.update(repr((im.shape, im.spacing, im.origin, im.crop, im.bound)).encode())
        for a in (im.band, im.dist, im.obj, im.interior, im.object_sizes):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:20]


@dataclass(frozen=True, eq=False)
class TwinPopulation:
    """Who takes part in a twin challenge: annotators and runs with their parameters on every real image.

    Attributes
    ----------
    annotators : tuple of str
    runs : tuple of str
    team_of : tuple of str
    offset, log_wobble : float64 (R, N)
        Every run's border offset and log wobble on every real image.
    p_miss : float64 (R, C)
        Every run's chance to miss an object of each size class (:data:`MISS_CLASSES`).
    spurious : float64 (R,)
        Every run's false objects per image.
    """

    annotators: tuple
    runs: tuple
    team_of: tuple
    offset: np.ndarray
    log_wobble: np.ndarray
    p_miss: np.ndarray
    spurious: np.ndarray

    @property
    def run_skill(self) -> np.ndarray:
        """A run's quality for reports ordering runs: minus its mean absolute offset plus wobble (higher is better)."""
        return -(np.abs(self.offset) + np.exp(self.log_wobble)).mean(axis=1)


@dataclass(frozen=True, eq=False)
class ImageTwinConfig:
    """The twin of a real challenge, made of its images (module notes), and the design study's settings of it.

    The fields the design study reads from a generator's parameters (:class:`robustness.synthetic.challenge.
    SyntheticConfig`) have the same names and meanings: ``n_encounters`` (units), ``n_images``, the annotators'
    numbers, ``agreement`` (the real annotators' median pairwise Jaccard; a setting's ``agreement`` a scales the
    annotators' parameters by ``annotator_scale * (1 - a) / (1 - agreement)``), ``skill_range`` (``(0, run_scale)``:
    a setting's spread is the run effects' scale), ``n_runs``, ``n_teams``, ``encounter_correlation``.

    Attributes
    ----------
    library : ImageLibrary
    annotator_offset, annotator_log_wobble : float64 (A, N)
        The real annotators' parameters on every real image (nan where absent).
    annotator_p_miss : float64 (A, C)
        Their chance to miss an object of each size class.
    annotator_spurious : float64 (A,)
    real_runs : TwinPopulation
        The real runs' parameters (their effects unscaled).
    run_groups : int64 (R,)
        The real runs' teams.
    length : float
        The field's correlation length (physical units).
    annotator_scale, run_scale : float
        Fitted (module notes).
    """

    library: ImageLibrary
    annotator_names: tuple
    annotator_present: np.ndarray
    annotator_offset: np.ndarray
    annotator_log_wobble: np.ndarray
    annotator_p_miss: np.ndarray
    annotator_spurious: np.ndarray
    real_runs: TwinPopulation
    run_groups: np.ndarray
    length: float
    n_encounters: int
    n_images: int
    n_annotators: int
    min_annotators: int
    p_all_annotators: float
    agreement: float
    n_runs: int
    n_teams: int
    encounter_correlation: float
    max_images_per_encounter: int
    annotator_scale: float = 1.0
    run_scale: float = 1.0
    annotators_per_image: int | None = None
    agreement_factor: float = 1.0
    coverage_range: tuple = (0.01, 0.1)
    depth: int | None = None
    spacing: tuple = (1.0, 1.0, 1.0)
    megapixels: float | None = None
    size: str = "real"
    notes: tuple = field(default=())

    @property
    def skill_range(self) -> tuple:
        """``(0, run_scale)``: the design grid's spread is the run effects' scale."""
        return (0.0, float(self.run_scale))

    def at(self, *, n_encounters: int | None = None, annotators: int | None = None, agreement: float | None = None,
           run_scale: float | None = None, n_runs: int | None = None) -> ImageTwinConfig:
        """The twin at a design setting (None: as fitted).

        Parameters
        ----------
        n_encounters : int, optional
            Units per test set.
        annotators : int, optional
            Annotators on every image.
        agreement : float, optional
            The annotators' agreement: the fitted ``agreement`` keeps them, 1 makes them the truth.
        run_scale : float, optional
        n_runs : int, optional

        Returns
        -------
        ImageTwinConfig
        """
        out = self
        if n_encounters is not None:
            per = self.n_images / max(self.n_encounters, 1)
            out = replace(out, n_encounters=int(n_encounters), n_images=max(int(n_encounters),
                                                                             int(round(per * n_encounters))))
        if annotators is not None:
            out = replace(out, annotators_per_image=int(annotators), n_annotators=int(annotators),
                          min_annotators=int(annotators), p_all_annotators=1.0)
        if agreement is not None:
            gap = 1.0 - float(self.agreement)
            factor = (1.0 - float(agreement)) / gap if gap > 0 else (0.0 if agreement >= 1 else 1.0)
            out = replace(out, agreement_factor=max(factor, 0.0))
        if run_scale is not None:
            out = replace(out, run_scale=float(run_scale))
        if n_runs is not None:
            out = replace(out, n_runs=int(n_runs), n_teams=min(self.n_teams, int(n_runs)))
        return out

    def annotator_names_for(self) -> tuple:
        """The twin's annotators: the real ones, then ``ann<j>`` for more."""
        k = self.annotators_per_image or len(self.annotator_names)
        names = list(self.annotator_names[:k])
        names += [f"ann{j}" for j in range(len(names), k)]
        return tuple(names)

    def annotator_model(self, slot: int, image: int) -> RaterModel:
        """Twin annotator ``slot`` on real image ``image`` (module notes)."""
        present = np.flatnonzero(self.annotator_present[:, image])
        if self.annotators_per_image is None:
            a = slot
        else:
            a = int(present[slot % present.size])
        s = self.annotator_scale * self.agreement_factor
        return RaterModel(offset=s * float(self.annotator_offset[a, image]),
                          wobble=s * float(np.exp(self.annotator_log_wobble[a, image])),
                          p_miss=np.minimum(1.0, s * self.annotator_p_miss[a]),
                          spurious=float(s * self.annotator_spurious[a]))


def run_model(population: TwinPopulation, run: int, image: int) -> RaterModel:
    """A population's run on real image ``image``."""
    return RaterModel(offset=float(population.offset[run, image]),
                      wobble=float(np.exp(population.log_wobble[run, image])),
                      p_miss=population.p_miss[run], spurious=float(population.spurious[run]))


def _effects(real: TwinPopulation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The real runs' image means (2, N), run effects (R, 2) and residuals (R, N, 2) of (offset, log wobble)."""
    theta = np.stack([real.offset, real.log_wobble], axis=-1)  # (R, N, 2)
    means = theta.mean(axis=0)  # (N, 2)
    dev = theta - means[None]
    effects = dev.mean(axis=1)  # (R, 2)
    residuals = dev - effects[:, None, :]
    return means.T, effects, residuals


def real_population(config: ImageTwinConfig) -> TwinPopulation:
    """The real runs with their effects scaled by ``config.run_scale`` (population 0).

    Parameters
    ----------
    config : ImageTwinConfig

    Returns
    -------
    TwinPopulation
    """
    real = config.real_runs
    means, effects, residuals = _effects(real)
    theta = means.T[None] + config.run_scale * effects[:, None, :] + residuals
    pop = replace(real, offset=theta[..., 0], log_wobble=theta[..., 1],
                  annotators=config.annotator_names_for())
    if config.n_runs != len(real.runs):  # a setting with another number of runs: drawn, the real ones first
        return draw_twin_population(config, np.random.default_rng(0), keep_real=True)
    return pop


def _team_covariances(effects: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Between-team and within-team covariances of the run effects (moments, clipped to positive semi-definite)."""
    r = effects.shape[0]
    teams = np.unique(groups)
    if r < 2:
        return np.zeros((2, 2)), np.zeros((2, 2))
    total = np.cov(effects.T, ddof=1).reshape(2, 2)
    if teams.size in (1, r):  # no team of two, or one team: one level
        return total, np.zeros((2, 2))
    within_ss = np.zeros((2, 2))
    df = 0
    for t in teams:
        e = effects[groups == t]
        if len(e) > 1:
            c = e - e.mean(axis=0)
            within_ss += c.T @ c
            df += len(e) - 1
    within = within_ss / max(df, 1)
    sizes = np.array([(groups == t).sum() for t in teams], dtype=float)
    n0 = (r - (sizes ** 2).sum() / r) / (teams.size - 1)
    means = np.array([effects[groups == t].mean(axis=0) for t in teams])
    between_ms = ((means - effects.mean(axis=0)).T * sizes) @ (means - effects.mean(axis=0)) / (teams.size - 1)
    between = (between_ms - within) / n0

    def psd(m):
        w, v = np.linalg.eigh((m + m.T) / 2)
        return (v * np.clip(w, 0, None)) @ v.T

    return psd(between), psd(within)


def draw_twin_population(config: ImageTwinConfig, rng: SeedLike = None, *, keep_real: bool = False
                         ) -> TwinPopulation:
    """A new run population drawn like the real one (module notes).

    Parameters
    ----------
    config : ImageTwinConfig
        ``n_runs`` runs in ``n_teams`` teams (as in the real runs' team sizes where they match).
    rng : SeedLike
    keep_real : bool
        The real runs first (scaled), then drawn ones (a setting with more runs than the challenge).

    Returns
    -------
    TwinPopulation
    """
    rng = np.random.default_rng(rng)
    real = config.real_runs
    means, effects, residuals = _effects(real)
    between, within = _team_covariances(effects, config.run_groups)
    n_runs, n_teams = int(config.n_runs), max(1, min(int(config.n_teams), int(config.n_runs)))
    per_team = 1 + np.bincount(rng.integers(0, n_teams, n_runs - n_teams), minlength=n_teams)
    team_effects = rng.multivariate_normal(np.zeros(2), between, size=n_teams, method="eigh")
    names, teams, eff = [], [], []
    for t in range(n_teams):
        for j in range(per_team[t]):
            names.append(f"team{t + 1}-run{j + 1}")
            teams.append(f"team{t + 1}")
            eff.append(team_effects[t] + rng.multivariate_normal(np.zeros(2), within, method="eigh"))
    donors = rng.integers(0, len(real.runs), n_runs)  # residuals, misses and false objects of a real run
    eff_a = np.array(eff).reshape(n_runs, 2)
    if keep_real:
        k = min(len(real.runs), n_runs)
        eff_a[:k] = effects[:k]
        donors[:k] = np.arange(k)
        names[:k] = list(real.runs[:k])
        teams[:k] = [str(g) for g in config.run_groups[:k]]
    theta = means.T[None] + config.run_scale * eff_a[:, None, :] + residuals[donors]
    return TwinPopulation(annotators=config.annotator_names_for(), runs=tuple(names), team_of=tuple(teams),
                          offset=theta[..., 0], log_wobble=theta[..., 1], p_miss=real.p_miss[donors].copy(),
                          spurious=real.spurious[donors].copy())


# -- masks ------------------------------------------------------------------------------------------------------

def _place_balls(image: TwinImage, sizes: np.ndarray, count: int, rng: np.random.Generator) -> list[tuple]:
    """False objects: balls (box, centre, radius in voxels) in the background.

    Clear of the band's box and of each other; a ball that finds no room in 50 tries is left out.
    """
    if count == 0 or sizes.size == 0:
        return []
    shape = np.array(_as3(image.shape, 1))
    ndim = len(image.shape)
    box_lo, box_hi = np.array(image.origin), np.array(image.origin) + np.array(image.crop)
    placed: list[tuple] = []
    for _ in range(count):
        size = float(sizes[rng.integers(0, sizes.size)])
        radius = (size / np.pi) ** 0.5 if ndim == 2 else (3 * size / (4 * np.pi)) ** (1 / 3)
        r = int(np.ceil(radius))
        for _ in range(50):
            centre = np.array([0 if (ndim == 2 and a == 0) else int(rng.integers(r, max(r + 1, shape[a] - r)))
                               for a in range(3)])
            lo = centre - np.where(np.arange(3) == 0, 0 if ndim == 2 else r, r)
            hi = centre + np.where(np.arange(3) == 0, 1 if ndim == 2 else r + 1, r + 1)
            if np.any(lo < 0) or np.any(hi > shape):
                continue
            if np.all(lo < box_hi) and np.all(hi > box_lo) and image.band.size:
                continue  # overlaps the truth's box
            if any(np.all(lo < h) and np.all(hi > lw) for (lw, h, _, _) in placed):
                continue
            placed.append((lo, hi, centre, radius))
            break
    return placed


def _ball_voxels(lo, hi, centre, radius, ndim: int, shape3: tuple) -> np.ndarray:
    """Flat indices (within the (z, y, x) image) of a digital ball."""
    grids = np.meshgrid(*[np.arange(a, b) for a, b in zip(lo, hi)], indexing="ij")
    axes = range(1, 3) if ndim == 2 else range(3)
    inside = sum((grids[a] - centre[a]) ** 2 for a in axes) <= radius ** 2
    return np.ravel_multi_index(tuple(g[inside] for g in grids), shape3)


def draw_mask(image: TwinImage, model: RaterModel, length: float, rng: np.random.Generator, *,
              ball_sizes: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """One rater's whole mask on a real image (the image's shape).

    Parameters
    ----------
    image : TwinImage
    model : RaterModel
    length : float
    rng : numpy.random.Generator
        Draws the field, the misses, then the false objects.
    ball_sizes : ndarray
        Sizes (voxels) the false objects are drawn from.
    out : uint8 ndarray, optional
        A buffer of the image's voxels.

    Returns
    -------
    (mask, clipped) : bool ndarray of the image's shape, int
    """
    n = image.n_voxels
    buf = np.zeros(n, dtype=np.uint8) if out is None else out.reshape(-1)[:n]
    if out is not None:
        buf[:] = 0
    if image.band.size:
        bits, missed, clipped = draw_band(image, model, length, rng)
        buf[image.full] = bits
        for k in range(1, image.n_objects + 1):
            if not missed[k - 1]:
                buf[image.interior_of(k)] = 1
    else:
        clipped = 0
    count = int(rng.poisson(model.spurious)) if model.spurious > 0 else 0
    shape3 = _as3(image.shape, 1)
    for lo, hi, centre, radius in _place_balls(image, ball_sizes, count, rng):
        buf[_ball_voxels(lo, hi, centre, radius, len(image.shape), shape3)] = 1
    return buf.view(bool).reshape(image.shape), clipped


def truth_mask(image: TwinImage) -> np.ndarray:
    """A real image's truth (the image's shape)."""
    buf = np.zeros(image.n_voxels, dtype=bool)
    buf[image.full[image.dist < 0]] = True
    buf[image.interior] = True
    return buf.reshape(image.shape)


def band_counts(image: TwinImage, bits: np.ndarray, missed: np.ndarray) -> tuple[int, int, int]:
    """TP, FP and FN against the truth of a rater's band and misses (false objects not included)."""
    inside = image.dist < 0
    drawn = bits.astype(bool)
    tp_band = int(np.count_nonzero(drawn & inside))
    fp = int(np.count_nonzero(drawn & ~inside))
    kept = ~missed
    interior = np.diff(image.interior_start)
    tp = tp_band + int(interior[kept].sum())
    return tp, fp, image.truth_size - tp


# -- the challenge ------------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ImageTwinSource:
    """Mask source of a twin challenge: every mask drawn from its own stream (image key, rater)."""

    config: ImageTwinConfig
    population: TwinPopulation
    real_image: np.ndarray  # the real image of every twin image
    entropy: int
    image_keys: np.ndarray | None = None

    has_truth = True

    @property
    def runs(self) -> tuple:
        """The runs."""
        return self.population.runs

    @property
    def team(self) -> dict:
        """Every run's team."""
        return dict(zip(self.population.runs, self.population.team_of))

    def image_key(self, image: int) -> int:
        """The image's index in the whole challenge (its streams' seed)."""
        return int(image if self.image_keys is None else self.image_keys[image])

    def read(self, image: int, kind: str, name: str) -> tuple[np.ndarray, None]:
        """One mask (:class:`~robustness.io.challenge.MaskSource`)."""
        lib = self.config.library
        real = int(self.real_image[image])
        im = lib.images[real]
        if kind == "truth":
            return truth_mask(im), None
        if kind == "annotator":
            slot = self.population.annotators.index(name)
            model = self.config.annotator_model(slot, real)
            who = slot
        elif kind == "run":
            r = self.population.runs.index(name)
            model = run_model(self.population, r, real)
            who = 1000 + r
        else:
            raise ValueError(f"unknown mask kind {kind!r}")
        rng = np.random.default_rng([self.entropy, self.image_key(image), who])
        mask, _ = draw_mask(im, model, self.config.length, rng, ball_sizes=lib.ball_sizes)
        return mask, None

    def fingerprint(self) -> dict:
        """The identity of the twin (its library, parameters, entropy and population)."""
        c = self.config
        return {"image_twin": c.library.digest, "entropy": str(self.entropy),
                "scales": [c.annotator_scale, c.agreement_factor, c.run_scale, c.length],
                "population": hashlib.sha256(np.ascontiguousarray(
                    np.stack([self.population.offset, self.population.log_wobble])).tobytes()).hexdigest()[:16]}

    def subset(self, images) -> ImageTwinSource:
        """The same twin restricted to ``images`` (positions), renumbered 0.. (same masks)."""
        idx = np.asarray(list(images), dtype=np.int64)
        keys = idx if self.image_keys is None else self.image_keys[idx]
        return replace(self, real_image=self.real_image[idx], image_keys=keys)


def make_twin_challenge(config: ImageTwinConfig, *, rng: SeedLike = None,
                        population: TwinPopulation | None = None, every_unit: bool = False) -> Challenge:
    """A test set of ``config.n_encounters`` real units drawn with replacement, with twin masks (module notes).

    Parameters
    ----------
    config : ImageTwinConfig
    rng : SeedLike
        Draws the units and the masks' entropy (the population, when not given, from its own stream first).
    population : TwinPopulation, optional
        Default: the real runs (:func:`real_population`).
    every_unit : bool
        Every real unit once, in order (the challenge's own images with twin masks: what the fit compares),
        instead of ``n_encounters`` drawn with replacement.

    Returns
    -------
    Challenge
        Its source knows the truth (``has_truth``).
    """
    population_rng, layout_rng = np.random.default_rng(rng).spawn(2)
    if population is None:
        population = real_population(config)
    lib = config.library
    units = (np.arange(lib.n_units) if every_unit else layout_rng.integers(0, lib.n_units, int(config.n_encounters)))
    entropy = int(layout_rng.integers(2**63))
    images, encounters, real = [], [], []
    for u_pos, u in enumerate(units.tolist()):
        for i in lib.images_of(u).tolist():
            images.append(f"U{u_pos + 1:05d}_{lib.image_ids[i]}")
            encounters.append(f"U{u_pos + 1:05d}")
            real.append(i)
    real_a = np.array(real, dtype=np.int64)
    names = population.annotators
    if config.annotators_per_image is None:
        annotated = config.annotator_present[:, real_a].T.copy()
    else:
        annotated = np.ones((real_a.size, len(names)), dtype=bool)
    shapes = tuple(lib.images[i].shape for i in real)
    spacings = tuple(tuple(lib.images[i].spacing[3 - len(lib.images[i].shape):]) for i in real)
    source = ImageTwinSource(config=config, population=population, real_image=real_a, entropy=entropy)
    return Challenge(images=tuple(images), encounters=tuple(encounters), shapes=shapes, annotators=names,
                     annotated=annotated, runs=population.runs, source=source, notes=(), spacings=spacings)


def twin_pool_counts(config: ImageTwinConfig, population: TwinPopulation, *, n_encounters: int,
                     rng: SeedLike = None) -> tuple[np.ndarray, tuple]:
    """The runs' TP/FP/FN against the truth on a pool of twin images, every real unit equally often.

    The pool holds ``ceil(n_encounters / U)`` copies of every real unit (a stratified pool: the population of
    images is the real images, equally weighted), each with fresh masks; the runs of one copy share its field
    (common random numbers: their differences are sharper than with independent fields). False objects are
    counted as their voxels (they never touch the truth).

    Parameters
    ----------
    config : ImageTwinConfig
    population : TwinPopulation
    n_encounters : int
    rng : SeedLike

    Returns
    -------
    (counts, encounters) : int64 (R, n_images, 3), tuple of str
    """
    rng = np.random.default_rng(rng)
    lib = config.library
    copies = max(1, int(np.ceil(n_encounters / max(lib.n_units, 1))))
    order = [(c, i) for c in range(copies) for u in range(lib.n_units) for i in lib.images_of(u).tolist()]
    counts = np.empty((len(population.runs), len(order), 3), dtype=np.int64)
    encounters = []
    balls = lib.ball_sizes
    for col, (c, i) in enumerate(order):
        im = lib.images[i]
        g = np.random.default_rng(rng.integers(2**63))
        lattice = field_lattice(im, config.length, g) if im.band.size else None
        for r in range(len(population.runs)):
            model = run_model(population, r, i)
            if im.band.size:
                bits, missed, _ = draw_band(im, model, config.length, g, lattice=lattice)
                tp, fp, fn = band_counts(im, bits, missed)
            else:
                tp, fp, fn = 0, 0, 0
            count = int(g.poisson(model.spurious)) if model.spurious > 0 else 0
            if count and balls.size:
                shape3 = _as3(im.shape, 1)
                fp += sum(_ball_voxels(lo, hi, ce, ra, len(im.shape), shape3).size
                          for lo, hi, ce, ra in _place_balls(im, balls, count, g))
            counts[r, col] = (tp, fp, fn)
        encounters.append(f"P{c + 1:04d}_{lib.unit_of[i]:05d}")
    return counts, tuple(encounters)
