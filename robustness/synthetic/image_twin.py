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
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from robustness.io.challenge import Challenge
from robustness.seeds import SeedLike
from robustness.synthetic.twin_images import (
    LATTICE_PER_LENGTH,
    MISS_CLASSES,
    SMOOTHING,
    TRUTH_RULE,
    RaterModel,
    TwinImage,
    draw_band,
    field_lattice,
    object_labels,
    signed_distance,
    size_class,
    volume_tuple,
)
from robustness.synthetic.twin_library import ImageLibrary, library_digest
from robustness.synthetic.twin_masks import ball_voxels, band_counts, draw_mask, place_balls, truth_mask
from robustness.synthetic.twin_runs import TwinPopulation, draw_twin_population, real_population, run_model

__all__ = ["TwinImage", "ImageLibrary", "RaterModel", "TwinPopulation", "ImageTwinConfig", "ImageTwinSource",
           "signed_distance", "object_labels", "make_twin_challenge", "draw_twin_population", "real_population",
           "twin_pool_counts", "field_lattice", "draw_band", "draw_mask", "truth_mask", "band_counts", "TRUTH_RULE",
           "MISS_CLASSES", "size_class", "library_digest", "run_model", "SMOOTHING", "LATTICE_PER_LENGTH",
           "volume_tuple"]


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

    def with_library(self, library: ImageLibrary) -> ImageTwinConfig:
        """The same twin reading its images from ``library`` (the same one, bound to its file).

        Parameters
        ----------
        library : ImageLibrary

        Returns
        -------
        ImageTwinConfig
        """
        if library.digest != self.library.digest:
            raise ValueError("a twin's library may be replaced only by the same images (its digest differs)")
        return replace(self, library=library)

    def annotator_names_for(self) -> tuple:
        """The twin's annotators: the real ones, then ``ann<j>`` for more.

        Returns
        -------
        tuple of str
        """
        k = self.annotators_per_image or len(self.annotator_names)
        names = list(self.annotator_names[:k])
        names += [f"ann{j}" for j in range(len(names), k)]
        return tuple(names)

    def annotator_model(self, slot: int, image: int) -> RaterModel:
        """Twin annotator ``slot`` on real image ``image`` (module notes).

        Parameters
        ----------
        slot : int
        image : int
            A real image's position in the library.

        Returns
        -------
        RaterModel
        """
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
        """The image's index in the whole challenge (its streams' seed).

        Parameters
        ----------
        image : int

        Returns
        -------
        int
        """
        return int(image if self.image_keys is None else self.image_keys[image])

    def read(self, image: int, kind: str, name: str) -> tuple[np.ndarray, None]:
        """One mask (:class:`~robustness.io.challenge.MaskSource`).

        Parameters
        ----------
        image : int
        kind : {'annotator', 'run', 'truth'}
        name : str

        Returns
        -------
        (mask, None)
            A drawn mask is never repaired.
        """
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
        """The identity of the twin (its library, parameters, entropy and population).

        Returns
        -------
        dict
        """
        c = self.config
        return {"image_twin": c.library.digest, "entropy": str(self.entropy),
                "scales": [c.annotator_scale, c.agreement_factor, c.run_scale, c.length],
                "population": hashlib.sha256(np.ascontiguousarray(
                    np.stack([self.population.offset, self.population.log_wobble])).tobytes()).hexdigest()[:16]}

    def subset(self, images: Iterable[int]) -> ImageTwinSource:
        """The same twin restricted to ``images`` (positions), renumbered 0.. (same masks).

        Parameters
        ----------
        images : iterable of int

        Returns
        -------
        ImageTwinSource
        """
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
                shape3 = volume_tuple(im.shape, 1)
                fp += sum(ball_voxels(lo, hi, ce, ra, len(im.shape), shape3).size
                          for lo, hi, ce, ra in place_balls(im, balls, count, g))
            counts[r, col] = (tp, fp, fn)
        encounters.append(f"P{c + 1:04d}_{lib.unit_of[i]:05d}")
    return counts, tuple(encounters)
