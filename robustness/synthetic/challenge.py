"""A synthetic multi-rater segmentation challenge: the embedded default, and the design study's world.

It stands in for the MEDIQA-MAGIC 2025 test set (100 encounters, 314 images,
4 annotators of whom 3 or 4 annotate each image, about 40 runs from a few
teams) so that every study runs with no data, and it knows the truth (the
latent lesion of every image), so a study can ask which gold strategy
recovers the runs' true ranking.

Model
-----
Every encounter has a lesion made of 1-4 irregular blobs; every image of the
encounter shows it with its own pose (rotation, scale, shift). Blob ``b`` is a
field ``f_b = 1 - d_b / R_b(theta)`` (1 at its centre, 0 on its boundary,
negative outside), where ``d_b`` is an anisotropic distance to the centre and
``R_b(theta) = r_b (1 + sum_m a_m cos(m theta + phi_m))`` a wavy radius. The
lesion's total area is log-uniform within ``coverage_range`` of the image
(default 0.5% to 60%). The truth is ``max_b f_b > 0``.

Images of one encounter are not independent: every random quantity of an
image (the number, size, place and shape of the blobs, a difficulty factor
``d`` shared by all raters of the image, and each rater's per-image boundary
shift) is ``sqrt(rho) z_encounter + sqrt(1 - rho) z_image`` of standard normal
draws, mapped to its distribution, with ``rho = encounter_correlation``: 0
makes the images of an encounter independent, 1 shows the same lesion with
only the pose and the boundary noise changed.

A rater (annotator or run) draws ``max_{b kept} f_b + level + amp * noise > 0``:
``level`` moves the boundary outwards (dilation, ``level > 0``) or inwards
(erosion) by that fraction of the radius, ``noise`` is smooth unit-variance
Gaussian noise that makes the boundary wobble ("lighting"), some blobs are
missed, some false blobs added, and a few masks are empty.

- Annotators: every noise term is scaled by ``(1 - agreement) / 0.4``
  (``agreement`` 0.6 by default; 1.0 makes every annotator equal to the truth).
  At the default an annotator has a personal bias (sd 0.1), a per-image
  jitter (sd 0.06), a wobble of ``0.16 d``, misses a blob with probability 0.08
  (0.02 when the lesion is a single blob), adds one with 0.05 and draws
  nothing with 0.02.
- Runs have a skill ``s`` in (0, 1): teams draw a skill spread over
  ``skill_range`` and a bias (sd ``run_bias_sd``, 0.12); their runs vary around
  both (sd 0.04 and ``run_bias_sd / 3``). A run's wobble is
  ``(0.03 + 0.67 (1 - s)) d``, its per-image jitter ``(0.01 + 0.29 (1 - s)) d``;
  it misses a blob with probability ``0.35 (1 - s)``, adds ``Poisson(2 (1 - s))``
  false blobs and is empty with ``0.1 (1 - s)``, each rate times ``run_failure``
  (1 by default; 0: runs never fail grossly, as expert raters): a run of skill
  near 1 without bias is as good as a careful annotator.
- The difficulty ``d = exp(0.35 z)`` scales every rater's boundary noise.
- Sizes: ``size="small"`` (default, 0.01-0.06 MP, fast), ``"realistic"``
  (log-uniform 0.3-12 MP), or about ``megapixels`` each (x0.8-1.25).

Volumes (``depth`` slices of ``spacing`` mm) follow the same model in 3D: a
blob's field at height ``z`` is ``1 - sqrt((1 - f_b)^2 + ((z - c_b) / h_b)^2)``
(its 2D shape shrunk like an ellipsoid's sections) with a centre slice ``c_b``
in the middle 40% of the volume and a half-height ``h_b`` of 15-40% of it,
drawn like the blob's other parameters; the raters' boundary noise is smooth in
3D, and ``coverage_range`` is the share of the largest slice. 2D images draw
exactly as before.

Who takes part (:class:`Population`: annotators' biases, runs' skills and
biases) is drawn before the images, so the same runs can be scored on a test
set and on a large independent pool of images (:func:`robustness.synthetic.pools.pool_counts`), and
settings that differ only in their annotators share the same images and runs.
Every image draws from its own seeded streams (lesion, each annotator, each
run), so annotators present or absent never shift another rater's draws.
Fields are evaluated on a coarse grid (at most 64 points a side) and
interpolated bilinearly to the image. The levels reached at the defaults
are in the README (``python -m experiments.synthetic_summary``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np

from robustness.io.challenge import Challenge
from robustness.io.headers import MAX_VOXELS
from robustness.seeds import SeedLike
from robustness.synthetic.lesions import generate_image

__all__ = ["SyntheticConfig", "Population", "SyntheticSource", "draw_population", "make_challenge", "true_mask"]


@dataclass(frozen=True)
class SyntheticConfig:
    """Parameters of :func:`make_challenge` (see the module notes for the model).

    ``agreement`` in [0, 1] sets the annotators' noise (1: equal to the
    truth); ``encounter_correlation`` in [0, 1] how much the images of one
    encounter share; ``skill_range`` the spread of the runs' true quality.
    ``depth`` makes every image a volume of that many slices (None: 2D images), with voxels of ``spacing``
    (z, y, x) in mm; the in-plane size follows ``size``/``megapixels`` per slice.
    """

    n_encounters: int = 100
    n_images: int = 314
    max_images_per_encounter: int = 6
    n_annotators: int = 4
    min_annotators: int = 3
    p_all_annotators: float = 0.25
    n_runs: int = 40
    n_teams: int = 6
    skill_range: tuple[float, float] = (0.1, 0.75)
    run_bias_sd: float = 0.12
    run_failure: float = 1.0
    agreement: float = 0.6
    encounter_correlation: float = 0.5
    coverage_range: tuple[float, float] = (0.005, 0.6)
    size: str = "small"
    megapixels: float | None = None
    depth: int | None = None
    spacing: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        """Check that the sizes fit together."""
        if self.n_encounters < 1:
            raise ValueError(f"n_encounters must be >= 1, got {self.n_encounters}")
        if self.n_images < self.n_encounters:
            raise ValueError("n_images must be >= n_encounters (every encounter has an image)")
        if self.n_images > self.n_encounters * self.max_images_per_encounter:
            raise ValueError("n_images exceeds n_encounters * max_images_per_encounter")
        if not 1 <= self.min_annotators <= self.n_annotators:
            raise ValueError("need 1 <= min_annotators <= n_annotators")
        if self.n_teams < 1 or self.n_runs < self.n_teams:
            raise ValueError("need n_runs >= n_teams >= 1")
        self._check_geometry()
        if not 0.0 <= self.run_failure <= 2.0:
            raise ValueError(f"run_failure must be in [0, 2], got {self.run_failure}")
        for name in ("agreement", "encounter_correlation", "p_all_annotators"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        lo, hi = self.skill_range
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"skill_range must satisfy 0 <= low <= high <= 1, got {self.skill_range}")
        lo, hi = self.coverage_range
        if not 0.0 < lo <= hi < 1.0:
            raise ValueError(f"coverage_range must satisfy 0 < low <= high < 1, got {self.coverage_range}")

    def _check_geometry(self) -> None:
        """Check the images' size, depth and voxel spacing."""
        if self.size not in ("small", "realistic"):
            raise ValueError(f"size must be 'small' or 'realistic', got {self.size!r}")
        if self.megapixels is not None and not self.megapixels > 0:
            raise ValueError(f"megapixels must be positive, got {self.megapixels}")
        if self.depth is not None and not 1 <= self.depth <= max_depth(self.size, self.megapixels):
            raise ValueError(f"depth must be >= 1 slice and at most {max_depth(self.size, self.megapixels)} slices of "
                             f"{self.megapixels or SLICE_MEGAPIXELS[self.size][1]:g} MP at most (a volume holds at "
                             f"most {MAX_VOXELS} voxels), got {self.depth}")
        if len(self.spacing) != 3 or not all(MIN_SPACING <= float(v) <= MAX_SPACING for v in self.spacing):
            raise ValueError(f"spacing must be three positive voxel sizes (z, y, x) from {MIN_SPACING:g} to "
                             f"{MAX_SPACING:g} mm, got {self.spacing}")


@dataclass(frozen=True, eq=False)
class Population:
    """Who takes part: the annotators (standardised biases) and the runs (skill, bias, team).

    Drawn by :func:`draw_population` before any image, so the same population
    can be scored on several image sets (a test set and a large pool).
    """

    annotators: tuple
    annotator_z: np.ndarray
    runs: tuple
    run_skill: np.ndarray
    run_bias: np.ndarray
    team_of: tuple


def draw_population(config: SyntheticConfig, rng: SeedLike = None) -> Population:
    """Annotators and runs of a synthetic challenge (SPEC 7 ``rng``).

    The runs are drawn first, so they do not depend on the number of annotators, and no draw depends on
    ``agreement``: settings that differ only in their annotators share their runs.

    Parameters
    ----------
    config : SyntheticConfig
    rng : None, int or numpy.random.Generator

    Returns
    -------
    Population
    """
    c = config
    rng = np.random.default_rng(rng)
    lo, hi = c.skill_range
    team_skill = rng.permutation(np.linspace(lo, hi, c.n_teams) + rng.normal(0, 0.03, c.n_teams))
    team_bias = rng.normal(0.0, c.run_bias_sd, c.n_teams)
    runs_per_team = 1 + np.bincount(rng.integers(0, c.n_teams, c.n_runs - c.n_teams), minlength=c.n_teams)
    runs, skill, bias, team_of = [], [], [], []
    for t in range(c.n_teams):
        for r in range(runs_per_team[t]):
            runs.append(f"team{t + 1}-run{r + 1}")
            skill.append(np.clip(team_skill[t] + rng.normal(0, 0.04), 0.02, 0.98))
            bias.append(team_bias[t] + rng.normal(0, c.run_bias_sd / 3))
            team_of.append(f"team{t + 1}")
    annotator_z = rng.standard_normal(c.n_annotators)  # last: the runs do not depend on the annotators
    return Population(annotators=tuple(f"ann{j}" for j in range(c.n_annotators)), annotator_z=annotator_z,
                      runs=tuple(runs), run_skill=np.array(skill), run_bias=np.array(bias),
                      team_of=tuple(team_of))


#: A synthetic image's (or a volume's slice's) size in megapixels, per ``size``: small ~100x100 .. 245x245.
SLICE_MEGAPIXELS = {"small": (0.01, 0.06), "realistic": (0.3, 12.0)}
#: Voxel sizes a synthetic volume may have, in mm (the physical extents stay finite numbers).
MIN_SPACING, MAX_SPACING = 1e-3, 1e3
#: The most slices of a synthetic volume, whatever their size.
MAX_DEPTH = 4096


def max_depth(size: str, megapixels: float | None = None) -> int:
    """The most slices a synthetic volume of this slice size may have (:data:`~robustness.io.headers.MAX_VOXELS`).

    Parameters
    ----------
    size : {"small", "realistic"}
    megapixels : float, optional
        The slices' size when set (it varies by a factor 1.25 about it).

    Returns
    -------
    int

    Examples
    --------
    >>> max_depth("small"), max_depth("realistic")
    (4096, 44)
    """
    largest = 1.25 * megapixels if megapixels is not None else SLICE_MEGAPIXELS[size][1]
    return max(1, min(MAX_DEPTH, int(MAX_VOXELS // (largest * 1e6))))


def _image_shapes(n, size, rng, megapixels=None):
    if megapixels is not None:
        mp = megapixels * np.exp(rng.uniform(np.log(0.8), np.log(1.25), n))  # about this size
    else:
        low, high = SLICE_MEGAPIXELS[size]
        mp = np.exp(rng.uniform(np.log(low), np.log(high), n))
    aspect = np.exp(rng.uniform(np.log(0.6), np.log(1.6), n))
    h = np.maximum(16, np.round(np.sqrt(mp * 1e6 * aspect))).astype(int)
    w = np.maximum(16, np.round(np.sqrt(mp * 1e6 / aspect))).astype(int)
    return [(int(a), int(b)) for a, b in zip(h, w)]


def _images_per_encounter(n_enc, n_img, cap, rng):
    counts = np.ones(n_enc, dtype=int)
    for _ in range(n_img - n_enc):
        open_ = np.flatnonzero(counts < cap)
        counts[rng.choice(open_)] += 1
    return counts


@dataclass(frozen=True, eq=False)
class SyntheticSource:
    """Mask source of a synthetic challenge: masks are regenerated per image from its seeds.

    Attributes
    ----------
    skill : dict
        Each run's true skill in (0, 1) (higher is better).
    team : dict
        Each run's team.
    """

    config: SyntheticConfig
    population: Population
    shapes: tuple
    annotated: np.ndarray
    encounter_of: np.ndarray  # encounter index of every image
    entropy: int
    image_keys: np.ndarray | None = None  # every image's index in the whole challenge (seeds its streams)

    has_truth = True

    @property
    def annotators(self) -> tuple:
        """The annotators."""
        return self.population.annotators

    @property
    def runs(self) -> tuple:
        """The runs."""
        return self.population.runs

    @property
    def run_skill(self) -> np.ndarray:
        """Every run's true skill, in the order of :attr:`runs`."""
        return self.population.run_skill

    @property
    def skill(self) -> dict:
        """Every run's true skill in (0, 1), higher is better."""
        return dict(zip(self.runs, self.run_skill.tolist()))

    @property
    def team(self) -> dict:
        """Every run's team."""
        return dict(zip(self.runs, self.population.team_of))

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
            A generated mask is never repaired.
        """
        masks = self.generate(image)
        return masks[(kind, name)], None

    def fingerprint(self) -> dict:
        """The identity of the generator (its parameters, entropy and population).

        Returns
        -------
        dict
        """
        return {"synthetic": repr(self.config), "entropy": str(self.entropy),
                "population": [self.population.annotator_z.tolist(), self.run_skill.tolist(),
                               self.population.run_bias.tolist()]}

    def generate(self, image: int, *, annotators: bool = True) -> dict:
        """Every mask of one image.

        The last image is cached, so reading its masks one by one costs one generation.

        Parameters
        ----------
        image : int
        annotators : bool
            Draw the annotators' masks too (a pool of images needs the truth and the runs only).

        Returns
        -------
        dict
            ``{(kind, name): bool array}``, kind in truth/annotator/run.
        """
        cache = self.__dict__.get("_cache")
        if cache is not None and cache[0] == (image, annotators):
            return cache[1]
        masks = generate_image(self, image, annotators=annotators)
        object.__setattr__(self, "_cache", ((image, annotators), masks))
        return masks

    def subset(self, images: Iterable[int]) -> SyntheticSource:
        """The same generator restricted to ``images`` (positions), renumbered 0.. (same masks).

        Parameters
        ----------
        images : iterable of int

        Returns
        -------
        SyntheticSource
        """
        idx = np.asarray(list(images), dtype=np.int64)
        return replace(self, shapes=tuple(self.shapes[i] for i in idx), annotated=self.annotated[idx],
                       encounter_of=self.encounter_of[idx], image_keys=self.image_key(idx))

    @overload
    def image_key(self, image: int) -> int: ...

    @overload
    def image_key(self, image: np.ndarray) -> np.ndarray: ...

    def image_key(self, image: int | np.ndarray) -> int | np.ndarray:
        """The index in the whole challenge of image ``image`` of this source (its streams' seed).

        Parameters
        ----------
        image : int or ndarray of int

        Returns
        -------
        int or ndarray of int
        """
        return image if self.image_keys is None else self.image_keys[image]

    def __getstate__(self) -> dict:
        """Pickle without the cached image (workers regenerate it)."""
        state = dict(self.__dict__)
        state.pop("_cache", None)
        return state

    def __setstate__(self, state: dict) -> None:
        """Restore a pickled source."""
        self.__dict__.update(state)


def _layout(c: SyntheticConfig, rng):
    """Images, encounters, shapes, the images' entropy, and who annotated what.

    Who annotated what is drawn last, so that the images and the runs' masks do not depend on the annotators.
    """
    per_enc = _images_per_encounter(c.n_encounters, c.n_images, c.max_images_per_encounter, rng)
    images, encounters, encounter_of = [], [], []
    for e, k in enumerate(per_enc):
        for j in range(1, k + 1):
            images.append(f"IMG_ENC{e + 1:05d}_{j:05d}")
            encounters.append(f"ENC{e + 1:05d}")
            encounter_of.append(e)
    shapes = _image_shapes(c.n_images, c.size, rng, c.megapixels)
    if c.depth is not None:
        shapes = [(int(c.depth), h, w) for h, w in shapes]
    entropy = int(rng.integers(2**63))
    annotated = np.zeros((c.n_images, c.n_annotators), dtype=bool)
    for i in range(c.n_images):
        k = c.n_annotators if rng.random() < c.p_all_annotators else c.min_annotators
        annotated[i, rng.choice(c.n_annotators, size=k, replace=False)] = True
    return images, encounters, np.array(encounter_of, dtype=np.int64), tuple(shapes), entropy, annotated


def make_challenge(
    config: SyntheticConfig | None = None,
    *,
    rng: SeedLike = None,
    population: Population | None = None,
    **overrides: Any,
) -> Challenge:
    """Generate a synthetic challenge, deterministic under ``rng``.

    Parameters
    ----------
    config : SyntheticConfig, optional
        All parameters; keyword ``overrides`` replace single fields
        (e.g. ``n_images=20, size="realistic"``).
    rng : {None, int, numpy.random.Generator}
        Seed or generator (SPEC 7). The same seed gives the same challenge.
    population : Population, optional
        The annotators and runs (default: drawn from ``rng`` first, see
        :func:`draw_population`); give one to score the same runs on other images.
    **overrides
        Fields of :class:`SyntheticConfig`.

    Returns
    -------
    Challenge
        Its ``source`` is a :class:`SyntheticSource` exposing the true skill of
        every run; it knows the latent truth (``Challenge.has_truth``), and
        :func:`true_mask` gives the latent lesion of an image.

    Examples
    --------
    >>> ch = make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=1, rng=1)
    >>> ch.describe()["images"], ch.runs
    (6, ('team1-run1', 'team1-run2', 'team1-run3'))
    """
    config = replace(config or SyntheticConfig(), **overrides)
    population_rng, layout_rng = np.random.default_rng(rng).spawn(2)  # independent: a population leaves the
    if population is None:                                            # images' draws alone
        population = draw_population(config, population_rng)
    elif (len(population.annotators), len(population.runs)) != (config.n_annotators, config.n_runs):
        raise ValueError("the population's annotators and runs do not match the config")
    images, encounters, encounter_of, shapes, entropy, annotated = _layout(config, layout_rng)
    source = SyntheticSource(config=config, population=population, shapes=shapes, annotated=annotated,
                             encounter_of=encounter_of, entropy=entropy)
    return Challenge(
        images=tuple(images),
        encounters=tuple(encounters),
        shapes=shapes,
        annotators=population.annotators,
        annotated=annotated,
        runs=population.runs,
        source=source,
        notes=(),
        spacings=None if config.depth is None else (tuple(float(v) for v in config.spacing),) * len(images),
    )


def true_mask(challenge: Challenge, image: int | str) -> np.ndarray:
    """The latent lesion of one image of a synthetic challenge.

    Parameters
    ----------
    challenge : Challenge
        Made by :func:`make_challenge`.
    image : int or str
        Its index or id.

    Returns
    -------
    ndarray of bool
    """
    src = challenge.source
    if not isinstance(src, SyntheticSource):
        raise TypeError("true_mask needs a synthetic challenge")
    return src.generate(challenge.image_index(image))[("truth", "truth")]
