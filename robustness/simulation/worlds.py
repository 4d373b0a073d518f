"""The design study's two worlds behind one set of calls: the embedded generator and the twin made of real images.

The design study (:mod:`robustness.simulation.design`) draws run populations, test sets and pools of images from
a world and sets a world to the grid's settings. The embedded generator
(:class:`~robustness.synthetic.challenge.SyntheticConfig`) serves the default challenge, ``--like synthetic`` and
the calibration populations; the twin made of a challenge's own images
(:class:`~robustness.synthetic.image_twin.ImageTwinConfig`) serves ``--like DATA``. These functions pick the one
the parameters belong to.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, replace
from typing import Any, NamedTuple

import numpy as np

from robustness.io.challenge import Challenge
from robustness.seeds import SeedLike, stream
from robustness.synthetic.challenge import SyntheticConfig, draw_population, make_challenge
from robustness.synthetic.image_twin import (
    ImageTwinConfig,
    draw_twin_population,
    make_twin_challenge,
    real_population,
    twin_pool_counts,
)
from robustness.synthetic.pools import pool_counts

#: What a design study simulates: the generator's parameters or the twin made of a challenge's images.
World = SyntheticConfig | ImageTwinConfig

__all__ = ["World", "is_image_twin", "population", "challenge", "pool", "pool_start", "with_agreement", "record",
           "world_name", "RunPopulation"]


def is_image_twin(config: Any) -> bool:
    """Whether ``config`` is the twin made of a challenge's images.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig

    Returns
    -------
    bool
    """
    return isinstance(config, ImageTwinConfig)


def world_name(config: Any) -> str:
    """The world in words, for reports.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig

    Returns
    -------
    str
        ``the twin made of the challenge's own images`` or ``the synthetic generator``.
    """
    return "the twin made of the challenge's own images" if is_image_twin(config) else "the synthetic generator"


class RunPopulation(NamedTuple):
    """One of a design study's run populations: its number and its population scores.

    The number draws its runs (:func:`population`'s ``index``); the scores are those on a large pool
    (:func:`robustness.simulation.design.population_scores`).
    """

    number: int
    scores: dict


def population(config: Any, index: int, *, seed: int) -> Any:
    """Run population ``index`` of a design study (stream ``population`` of :data:`robustness.seeds.DESIGN_STREAMS`).

    For the image twin population 0 is the challenge's own runs (their effects scaled as fitted); the others are
    drawn like them.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig
    index : int
    seed : int

    Returns
    -------
    Population or TwinPopulation
    """
    rng = stream(seed, "population", index, design=True)
    if is_image_twin(config):
        return real_population(config) if index == 0 else draw_twin_population(config, rng)
    return draw_population(config, rng)


def challenge(config: Any, *, rng: SeedLike, population: Any) -> Challenge:
    """A test set of ``config.n_encounters`` units with the population's runs.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig
    rng : SeedLike
    population : Population or TwinPopulation

    Returns
    -------
    Challenge
    """
    if is_image_twin(config):
        return make_twin_challenge(config, rng=rng, population=population)
    return make_challenge(config, rng=rng, population=population)


def pool(config: Any, population: Any, *, n_images: int, rng: SeedLike) -> np.ndarray:
    """The runs' counts against the truth on a pool of about ``n_images`` fresh images (R, n, 3).

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig
    population : Population or TwinPopulation
    n_images : int
    rng : SeedLike

    Returns
    -------
    ndarray of int64
    """
    if is_image_twin(config):
        return twin_pool_counts(config, population, n_encounters=n_images, rng=rng)[0]
    single = replace(config, n_encounters=n_images, n_images=n_images, max_images_per_encounter=1)
    return pool_counts(single, population, n_encounters=n_images, rng=rng)[0]


def pool_start(config: Any, pool_images: int) -> int:
    """A population pool's first batch of images.

    The generator's pools hold ``pool_images`` fresh images; the image twin's population of images is the real
    images, so its pool copies every real unit (eight times to start with: its only noise is the masks', not the
    images' choice) and doubles like the generator's until sharp.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig
    pool_images : int
        The design study's ``--pool``.

    Returns
    -------
    int
    """
    if is_image_twin(config):
        return min(int(pool_images), 8 * int(config.library.n_units))
    return int(pool_images)


def with_agreement(config: Any, agreement: float) -> Any:
    """The same world with the annotators at another agreement level.

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig
    agreement : float
        The generator's ``agreement``; for the image twin, the fitted level keeps the annotators and 1 makes them the
        truth (:meth:`~robustness.synthetic.image_twin.ImageTwinConfig.at`).

    Returns
    -------
    SyntheticConfig or ImageTwinConfig
    """
    if is_image_twin(config):
        return config.at(agreement=agreement)
    return replace(config, agreement=float(agreement))


def record(config: Any) -> dict:
    """The world's parameters as plain values (meta.json, the study's fingerprint).

    Parameters
    ----------
    config : SyntheticConfig or ImageTwinConfig

    Returns
    -------
    dict
    """
    if isinstance(config, SyntheticConfig):
        return asdict(config)
    c = config
    return {"world": "image twin", "library": c.library.digest, "n_encounters": c.n_encounters,
            "n_images": c.n_images, "n_annotators": c.n_annotators, "min_annotators": c.min_annotators,
            "agreement": c.agreement, "agreement_factor": c.agreement_factor, "annotator_scale": c.annotator_scale,
            "run_scale": c.run_scale, "n_runs": c.n_runs, "n_teams": c.n_teams, "length": c.length,
            "encounter_correlation": c.encounter_correlation, "depth": c.depth, "spacing": list(c.spacing),
            "megapixels": None, "annotators_per_image": c.annotators_per_image,
            "runs": list(c.real_runs.runs), "parameters": _digest(c)}


def _digest(c: ImageTwinConfig) -> str:
    """The fitted per-image parameters' identity."""
    h = hashlib.sha256()
    for a in (c.annotator_offset, c.annotator_log_wobble, c.annotator_p_miss, c.annotator_spurious,
              c.real_runs.offset, c.real_runs.log_wobble, c.real_runs.p_miss, c.real_runs.spurious):
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]
