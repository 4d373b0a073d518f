"""A synthetic multi-rater segmentation challenge: the embedded default.

It stands in for the MEDIQA-MAGIC 2025 test set (100 encounters, 314 images,
4 annotators of whom 3 or 4 annotate each image, about 40 runs from a few
teams) so that every study runs with no data, and it knows the truth, so a
study can ask which gold strategy recovers the true ranking.

Model
-----
Every image has a latent lesion made of 1-4 irregular blobs. Blob ``b`` is a
field ``f_b = 1 - d_b / R_b(theta)`` (1 at its centre, 0 on its boundary,
negative outside), where ``d_b`` is an anisotropic distance to the centre and
``R_b(theta) = r_b (1 + sum_m a_m cos(m theta + phi_m))`` a wavy radius. The
lesion's total area is log-uniform between 0.5% and 60% of the image. The
truth is ``max_b f_b > 0``.

A rater (annotator or run) draws ``max_{b kept} f_b + level + amp * noise > 0``:
``level`` moves the boundary outwards (dilation, ``level > 0``) or inwards
(erosion) by that fraction of the radius, ``noise`` is smooth unit-variance
Gaussian noise that makes the boundary wobble, some blobs are missed, some
false blobs added, and a few masks are empty.

- Annotators have a personal bias (sd 0.1), a per-image jitter (sd 0.06), a
  wobble of 0.16, miss a blob with probability 0.08 (0.02 when the lesion is a
  single blob), add one with 0.05 and draw nothing with 0.02.
- Sizes: ``size="small"`` (default, 0.01-0.06 MP, fast), ``"realistic"``
  (log-uniform 0.3-12 MP), or about ``megapixels`` each (x0.8-1.25).
- Runs have a skill ``s`` in (0, 1): teams draw a skill spread between
  ``skill_range`` and a bias (sd 0.12); their runs vary around both (sd 0.04).
  A run's wobble is ``0.1 + 0.6 (1 - s)``, its per-image jitter
  ``0.04 + 0.25 (1 - s)``; it misses a blob with probability ``0.35 (1 - s)``,
  adds ``Poisson(2 (1 - s))`` false blobs and is empty with ``0.1 (1 - s)``.

Fields are evaluated on a coarse grid (at most 64 points a side) and
interpolated bilinearly to the image, which keeps boundaries smooth and
generation fast. The agreement levels reached at the defaults are in the
README (``python -m experiments.synthetic_summary``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._kernels import upsample_positive
from .data import Challenge

__all__ = ["SyntheticConfig", "SyntheticSource", "make_challenge", "true_mask"]

_COARSE = 64


@dataclass(frozen=True)
class SyntheticConfig:
    """Parameters of :func:`make_challenge` (see the module notes for the model)."""

    n_encounters: int = 100
    n_images: int = 314
    max_images_per_encounter: int = 6
    n_annotators: int = 4
    min_annotators: int = 3
    p_all_annotators: float = 0.25
    n_runs: int = 40
    n_teams: int = 6
    skill_range: tuple[float, float] = (0.1, 0.85)
    size: str = "small"
    megapixels: float | None = None

    def __post_init__(self):
        if self.n_images < self.n_encounters:
            raise ValueError("n_images must be >= n_encounters (every encounter has an image)")
        if self.n_images > self.n_encounters * self.max_images_per_encounter:
            raise ValueError("n_images exceeds n_encounters * max_images_per_encounter")
        if not 1 <= self.min_annotators <= self.n_annotators:
            raise ValueError("need 1 <= min_annotators <= n_annotators")
        if self.n_teams < 1 or self.n_runs < self.n_teams:
            raise ValueError("need n_runs >= n_teams >= 1")
        if self.size not in ("small", "realistic"):
            raise ValueError(f"size must be 'small' or 'realistic', got {self.size!r}")
        if self.megapixels is not None and not self.megapixels > 0:
            raise ValueError(f"megapixels must be positive, got {self.megapixels}")


def _image_shapes(n, size, rng, megapixels=None):
    if megapixels is not None:
        mp = megapixels * np.exp(rng.uniform(np.log(0.8), np.log(1.25), n))  # about this size
    elif size == "small":
        mp = np.exp(rng.uniform(np.log(0.01), np.log(0.06), n))  # ~100x100 .. 245x245
    else:
        mp = np.exp(rng.uniform(np.log(0.3), np.log(12.0), n))  # realistic: 0.3 .. 12 MP
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
    """Mask source of a synthetic challenge: masks are regenerated per image from its seed.

    Attributes
    ----------
    skill : dict
        Each run's true skill in (0, 1) (higher is better).
    team : dict
        Each run's team.
    """

    config: SyntheticConfig
    shapes: tuple
    annotators: tuple
    annotated: np.ndarray
    systems: tuple
    seeds: tuple  # one SeedSequence per image
    annotator_bias: np.ndarray
    run_skill: np.ndarray
    run_bias: np.ndarray
    team_of: tuple
    entropy: int

    @property
    def skill(self) -> dict:
        return dict(zip(self.systems, self.run_skill.tolist()))

    @property
    def team(self) -> dict:
        return dict(zip(self.systems, self.team_of))

    def read(self, image, kind, name):
        masks = self.generate(image)
        return masks[(kind, name)], None

    def fingerprint(self) -> dict:
        return {"synthetic": repr(self.config), "entropy": str(self.entropy)}

    def generate(self, image: int) -> dict:
        """Every mask of one image: ``{(kind, name): bool array}``, kind in truth/annotator/system.

        The last image is cached, so reading its masks one by one costs one generation.
        """
        cache = self.__dict__.get("_cache")
        if cache is not None and cache[0] == image:
            return cache[1]
        masks = _generate_image(self, image)
        object.__setattr__(self, "_cache", (image, masks))
        return masks

    def subset(self, images) -> SyntheticSource:
        """The same generator restricted to ``images`` (positions), renumbered 0.. (same masks)."""
        from dataclasses import replace

        idx = list(images)
        return replace(self, shapes=tuple(self.shapes[i] for i in idx), annotated=self.annotated[idx],
                       seeds=tuple(self.seeds[i] for i in idx))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_cache", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


def _generate_image(src: SyntheticSource, i: int) -> dict:
    rng = np.random.default_rng(src.seeds[i])
    h, w = src.shapes[i]
    step = max(1.0, max(h, w) / _COARSE)
    ch, cw = max(2, int(np.ceil(h / step))), max(2, int(np.ceil(w / step)))
    ys = np.linspace(0.0, h - 1.0, ch)[:, None]
    xs = np.linspace(0.0, w - 1.0, cw)[None, :]

    def blob(area):
        r = np.sqrt(area / np.pi)
        cy = rng.uniform(min(r, h / 2), max(h - r, h / 2))
        cx = rng.uniform(min(r, w / 2), max(w - r, w / 2))
        aspect = np.exp(rng.normal(0.0, 0.25))
        angle = rng.uniform(0, np.pi)
        harm = np.arange(2, 6)
        amp = rng.normal(0.0, 0.07, harm.size)
        phase = rng.uniform(0, 2 * np.pi, harm.size)
        dy, dx = ys - cy, xs - cx
        ca, sa = np.cos(angle), np.sin(angle)
        u = (dy * ca + dx * sa) * np.sqrt(aspect)
        v = (-dy * sa + dx * ca) / np.sqrt(aspect)
        theta = np.arctan2(v, u)
        radius = r * (1.0 + (amp[:, None, None] * np.cos(harm[:, None, None] * theta + phase[:, None, None])).sum(0))
        return 1.0 - np.hypot(u, v) / np.maximum(radius, 1e-9)

    def smooth_noise():
        from scipy.ndimage import gaussian_filter

        z = gaussian_filter(rng.standard_normal((ch, cw)), sigma=2.0, mode="wrap")
        return z / (z.std() + 1e-12)

    n_blobs = 1 if rng.random() < 0.6 else int(rng.integers(2, 5))
    coverage = np.exp(rng.uniform(np.log(0.005), np.log(0.6)))
    shares = rng.dirichlet(np.full(n_blobs, 2.0))
    blobs = [blob(coverage * h * w * s) for s in shares]
    small_area = max(0.002 * h * w, 20.0)

    def rater(level, amp, p_miss, n_extra, p_empty):
        keep = [b for b in blobs if rng.random() >= p_miss]
        extra = [blob(small_area * rng.uniform(0.5, 3.0)) for _ in range(n_extra)]
        empty = rng.random() < p_empty
        noise = smooth_noise()
        if empty or not (keep or extra):
            return np.zeros((h, w), dtype=bool)
        field = np.max(np.stack(keep + extra), axis=0) + level + amp * noise
        return upsample_positive(np.ascontiguousarray(field, dtype=np.float64), h, w)

    out = {("truth", "truth"): upsample_positive(np.max(np.stack(blobs), axis=0), h, w)}
    for j, a in enumerate(src.annotators):
        # draw for every annotator, present or not, so presence does not shift the stream
        m = rater(
            level=src.annotator_bias[j] + rng.normal(0.0, 0.06),
            amp=0.16,
            p_miss=0.08 if n_blobs > 1 else 0.02,
            n_extra=int(rng.random() < 0.05),
            p_empty=0.02,
        )
        if src.annotated[i, j]:
            out[("annotator", a)] = m
    for r, name in enumerate(src.systems):
        s = src.run_skill[r]
        out[("system", name)] = rater(
            level=src.run_bias[r] + rng.normal(0.0, 0.04 + 0.25 * (1 - s)),
            amp=0.1 + 0.6 * (1 - s),
            p_miss=0.35 * (1 - s),
            n_extra=int(rng.poisson(2.0 * (1 - s))),
            p_empty=0.1 * (1 - s),
        )
    return out


def make_challenge(
    config: SyntheticConfig | None = None,
    *,
    rng=None,
    **overrides,
) -> Challenge:
    """Generate a synthetic challenge, deterministic under ``rng``.

    Parameters
    ----------
    config : SyntheticConfig, optional
        All parameters; keyword ``overrides`` replace single fields
        (e.g. ``n_images=20, size="realistic"``).
    rng : {None, int, numpy.random.Generator}
        Seed or generator (SPEC 7). The same seed gives the same challenge.

    Returns
    -------
    Challenge
        Its ``source`` is a :class:`SyntheticSource` exposing the true skill of
        every run; :func:`true_mask` gives the latent lesion of an image.

    Examples
    --------
    >>> ch = make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=1, rng=1)
    >>> ch.describe()["images"], ch.systems
    (6, ('team1-run1', 'team1-run2', 'team1-run3'))
    """
    from dataclasses import replace

    config = replace(config or SyntheticConfig(), **overrides)
    rng = np.random.default_rng(rng)
    c = config
    per_enc = _images_per_encounter(c.n_encounters, c.n_images, c.max_images_per_encounter, rng)
    images, encounters = [], []
    for e, k in enumerate(per_enc, start=1):
        for j in range(1, k + 1):
            images.append(f"IMG_ENC{e:05d}_{j:05d}")
            encounters.append(f"ENC{e:05d}")
    shapes = _image_shapes(c.n_images, c.size, rng, c.megapixels)
    annotators = tuple(f"ann{j}" for j in range(c.n_annotators))
    annotated = np.zeros((c.n_images, c.n_annotators), dtype=bool)
    for i in range(c.n_images):
        k = c.n_annotators if rng.random() < c.p_all_annotators else c.min_annotators
        annotated[i, rng.choice(c.n_annotators, size=k, replace=False)] = True
    annotator_bias = rng.normal(0.0, 0.1, c.n_annotators)

    # teams: evenly spread skills, a shared bias, 1+ runs each
    lo, hi = c.skill_range
    team_skill = rng.permutation(np.linspace(lo, hi, c.n_teams) + rng.normal(0, 0.03, c.n_teams))
    team_bias = rng.normal(0.0, 0.12, c.n_teams)
    runs_per_team = 1 + np.bincount(rng.integers(0, c.n_teams, c.n_runs - c.n_teams), minlength=c.n_teams)
    systems, skill, bias, team_of = [], [], [], []
    for t in range(c.n_teams):
        for r in range(runs_per_team[t]):
            systems.append(f"team{t + 1}-run{r + 1}")
            skill.append(np.clip(team_skill[t] + rng.normal(0, 0.04), 0.02, 0.98))
            bias.append(team_bias[t] + rng.normal(0, 0.04))
            team_of.append(f"team{t + 1}")
    entropy = int(rng.integers(2**63))
    seeds = tuple(np.random.SeedSequence(entropy).spawn(c.n_images))
    source = SyntheticSource(
        config=c,
        shapes=tuple(shapes),
        annotators=annotators,
        annotated=annotated,
        systems=tuple(systems),
        seeds=seeds,
        annotator_bias=annotator_bias,
        run_skill=np.array(skill),
        run_bias=np.array(bias),
        team_of=tuple(team_of),
        entropy=entropy,
    )
    return Challenge(
        images=tuple(images),
        encounters=tuple(encounters),
        shapes=tuple(shapes),
        annotators=annotators,
        annotated=annotated,
        systems=tuple(systems),
        source=source,
        notes=(),
    )


def true_mask(challenge: Challenge, image: int | str) -> np.ndarray:
    """The latent lesion of one image of a synthetic challenge."""
    src = challenge.source
    if not isinstance(src, SyntheticSource):
        raise TypeError("true_mask needs a synthetic challenge")
    return src.generate(challenge.image_index(image))[("truth", "truth")]
