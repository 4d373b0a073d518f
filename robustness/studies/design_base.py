"""The challenge the design study plans for: its options, and the generator fitted to a named challenge.

:func:`prepare` turns the input (a challenge read from disk, or none: the
generator's defaults) into the study's :class:`DesignBase`: the generator
(:func:`base_from_challenge`, checked statistic by statistic), the checks'
warnings, the main job's own size answer on the real challenge
(:func:`main_job_answer`) and the input's fingerprint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from robustness.errors import InputError, parameter
from robustness.files import atomic_write
from robustness.io.challenge import Challenge
from robustness.overlap.checks import input_warnings
from robustness.overlap.counts import OverlapCounts
from robustness.overlap.gold import resolve
from robustness.overlap.pixel_pass import compute_overlap
from robustness.results.escape import csv_frame
from robustness.scheme import DEFAULT
from robustness.simulation.design import DesignOptions
from robustness.simulation.image_fit import fit_image_twin
from robustness.simulation.twin import challenge_stats, fit, fit_counts, fit_failures
from robustness.simulation.worlds import World
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.ranks import check_target, format_target, size_target
from robustness.statistics.resolution import resolution_table
from robustness.studies.common import uncertainty_tables
from robustness.studies.rank_convergence import RankConvergenceOptions
from robustness.synthetic.challenge import SyntheticConfig

#: What a real challenge's twin can be made of (:attr:`DesignStudyOptions.twin`).
TWINS = ("images", "generator")

__all__ = ["TWINS", "DesignStudyOptions", "DesignBase", "prepare", "base_from_challenge", "main_job_counts",
           "main_job_answer", "main_job_resolution", "image_megapixels", "max_encounters"]


@dataclass(frozen=True)
class DesignStudyOptions:
    """The design study's options (None: the default around the base challenge; see :func:`make_grid`).

    Attributes
    ----------
    encounters, annotators, agreement, spread, runs, correlation : tuple or None
        The grid's values.
    replicates, populations, pool, orders, bootstrap : int or None
        Replicates per setting, run populations, images of each population's pool (its first batch: it doubles
        until sharp, :func:`robustness.simulation.design.population_scores`), random orders and bootstrap
        resamples per test set.
    image_mp : float or None
        Simulated image size in megapixels.
    boundary : tuple of str
        Boundary metrics (:mod:`robustness.overlap.boundary`) whose ranking is compared with macro Jaccard's on
        every simulated test set (``tau_jaccard_<metric>`` in design.csv).
    target_l1 : float or None
        Target expected L1 to the population ranking (default: :func:`robustness.statistics.ranks.size_target`,
        one place per run or a tenth of a random order's distance, whichever is smaller).
    target_top1 : float
        Target share of replicates with the true best run first.
    max_encounters : int or None
        The size search's cap (default :func:`max_encounters`).
    quick : bool
        A small grid (4 replicates, each its own run population, pools from 12,000 images, 40 orders, 150 resamples).
    seed : int
    twin : {'images', 'generator'}
        What a real challenge's twin is made of: its own images (:mod:`robustness.synthetic.image_twin`, the
        default) or the embedded generator fitted to its statistics (:mod:`robustness.simulation.twin`).
    """

    encounters: tuple | None = None
    annotators: tuple | None = None
    agreement: tuple | None = None
    spread: tuple | None = None
    runs: tuple | None = None
    correlation: tuple | None = None
    replicates: int | None = None
    populations: int | None = None
    pool: int | None = None
    orders: int | None = None
    bootstrap: int | None = None
    image_mp: float | None = None
    target_l1: float | None = None
    target_top1: float = 0.9
    max_encounters: int | None = None
    quick: bool = False
    boundary: tuple = ()
    seed: int = 0
    twin: str = "images"

    def __post_init__(self) -> None:
        """Check the twin's kind."""
        if self.twin not in TWINS:
            raise ValueError(f"twin must be one of {', '.join(TWINS)}, got {self.twin!r}")

    def simulation(self, base: World) -> DesignOptions:
        """How hard each replicate works.

        Parameters
        ----------
        base : SyntheticConfig
            The challenge planned for (its lesion sizes set the default image size).

        Returns
        -------
        DesignOptions
        """
        return DesignOptions(pool_images=self.pool or (12_000 if self.quick else 25_000),
                             n_orders=self.orders or (40 if self.quick else 100),
                             n_resamples=self.bootstrap or (150 if self.quick else 300),
                             megapixels=image_megapixels(self, float(np.sqrt(base.coverage_range[0]
                                                                             * base.coverage_range[1]))
                                                         * (base.depth or 1)),
                             boundary=tuple(self.boundary))


def image_megapixels(options: DesignStudyOptions, median_coverage: float) -> float:
    """The simulated images' size: ``image_mp``, else enough for median lesions of 150 pixels (75 quick).

    For volumes, ``median_coverage`` times the slices: the size is then per slice.

    Parameters
    ----------
    options : DesignStudyOptions
    median_coverage : float
        The median share of an image the gold covers.

    Returns
    -------
    float
        Megapixels.
    """
    return options.image_mp or float(np.clip((75 if options.quick else 150) / (median_coverage * 1e6), 0.0006, 0.004))


#: The most slices a 3D challenge's synthetic twin simulates per volume (time; the fit table says so).
TWIN_SLICES = 24


def base_from_challenge(challenge: Challenge, options: DesignStudyOptions, *,
                        counts: OverlapCounts | None = None, say: Callable[..., None] | None = None
                        ) -> tuple[Any, pd.DataFrame]:
    """The challenge's twin and its fit table.

    Made of the challenge's own images (:func:`robustness.simulation.image_fit.fit_image_twin`, ``options.twin``
    'images', the default), or the generator fitted to its statistics (:func:`robustness.simulation.twin.fit`).

    Parameters
    ----------
    challenge : Challenge
    options : DesignStudyOptions
    counts : OverlapCounts, optional
        The challenge's counts with the majority gold (default: counted here).
    say : callable, optional
        Progress lines.

    Returns
    -------
    (ImageTwinConfig or SyntheticConfig, pandas.DataFrame)
        The fit table has each statistic's tolerance and whether the twin meets it
        (:func:`robustness.simulation.twin.fit_failures`).
    """
    if counts is None:
        counts = fit_counts(challenge)
    target = challenge_stats(counts)
    if options.twin == "images":
        return fit_image_twin(challenge, target=target, seed=options.seed, say=say)
    volumes = [shape for shape in challenge.shapes if len(shape) == 3]
    if not volumes:
        return fit(target, seed=options.seed, megapixels=image_megapixels(options, target["coverage_median"]))
    # a 3D challenge's twin simulates volumes: the median number of slices (at most TWIN_SLICES) and spacing
    slices = float(np.median([shape[0] for shape in volumes]))
    spacing = tuple(float(v) for v in np.median([challenge.spacing(i) for i in range(challenge.n_images)
                                                 if len(challenge.shapes[i]) == 3], axis=0))
    depth = int(min(max(round(slices), 1), TWIN_SLICES))
    megapixels = image_megapixels(options, target["coverage_median"] * depth)
    # the twin's voxels are fewer than the input's: larger voxels keep its physical size (boundary metrics' mm)
    plane = float(np.median([shape[1] * shape[2] for shape in volumes]))
    grow = np.sqrt(plane / (megapixels * 1e6))
    spacing = (spacing[0] * slices / depth, spacing[1] * grow, spacing[2] * grow)
    return fit(target | {"slices": slices}, seed=options.seed, depth=depth, spacing=spacing, megapixels=megapixels)


def main_job_counts(challenge: Challenge, *, seed: int = 0, **kwargs: Any) -> OverlapCounts:
    """The challenge's overlap counts as the main job computes them with its default golds and this seed.

    Every gold of the registry's default set (the random single-annotator golds drawn from the main job's stream),
    so that :func:`main_job_answer` sees the schemes the main job ranks.

    Parameters
    ----------
    challenge : Challenge
    seed : int
        The main job's ``--seed``.
    **kwargs
        Passed to :func:`robustness.overlap.pixel_pass.compute_overlap` (``n_jobs``, ``progress``...).

    Returns
    -------
    OverlapCounts
    """
    counted = [s.name for s in resolve(None) if not s.macro_only]
    return compute_overlap(challenge, strategies=counted, rng=RankConvergenceOptions(seed=seed).rng("random_golds"),
                           **kwargs)


def main_job_answer(counts: OverlapCounts, *, target_l1: float, seed: int = 0) -> pd.DataFrame:
    """The main job's own answer on the real challenge: the test-set size at which its expected L1 meets the target.

    Computed as the main job computes its test_set_size.csv with its default options and this seed (the same
    schemes on the bootstrap's unit, the same random stream, :func:`robustness.studies.common.uncertainty_tables`):
    on counts from :func:`main_job_counts` the numbers are the main job's own, so the two reports state one
    answer. The estimate (``units_needed_point``) and the sizes where its one-sided 95% bounds meet the target
    (a 90% two-sided interval), for :data:`robustness.scheme.DEFAULT`'s gold and metric, micro and macro.

    Parameters
    ----------
    counts : OverlapCounts
        The real challenge's counts (:func:`main_job_counts`).
    target_l1 : float
    seed : int
        The main job's ``--seed``.

    Returns
    -------
    pandas.DataFrame
        ``test_set_size.csv``'s columns, one row per averaging.
    """
    o = RankConvergenceOptions(seed=seed)
    over = [s.name for s in resolve(None) if s.macro_only]
    schemes = schemes_from_counts(counts, unit=o.bootstrap_unit, empty=o.empty, annotators=over)
    table = uncertainty_tables(schemes, o, tolerance=target_l1)["test_set_size.csv"]
    keep = (table.strategy == DEFAULT.strategy) & (table.metric == DEFAULT.metric)
    return table[keep].reset_index(drop=True)




def main_job_resolution(counts: OverlapCounts, *, seed: int = 0) -> pd.DataFrame:
    """The main job's resolution on the real challenge, as its resolution.csv states it, for the default scheme.

    The same schemes, unit, resamples and stream as the main job with its default options
    (:func:`robustness.statistics.resolution.resolution_table`): the two reports state one number.

    Parameters
    ----------
    counts : OverlapCounts
        The real challenge's counts (:func:`main_job_counts`).
    seed : int
        The main job's ``--seed``.

    Returns
    -------
    pandas.DataFrame
        ``resolution.csv``'s rows of :data:`robustness.scheme.DEFAULT`'s gold and metric.
    """
    o = RankConvergenceOptions(seed=seed)
    over = [s.name for s in resolve(None) if s.macro_only]
    schemes = schemes_from_counts(counts, unit=o.bootstrap_unit, empty=o.empty, annotators=over)
    table = resolution_table(schemes)
    keep = (table.strategy == DEFAULT.strategy) & (table.metric == DEFAULT.metric)
    return table[keep].reset_index(drop=True)


def max_encounters(base: World, quick: bool = False) -> int:
    """The size search's cap: 32 times the challenge's encounters, 400 to 6,400 (``--quick``: 4 times, 200 to 400).

    Parameters
    ----------
    base : SyntheticConfig
    quick : bool

    Returns
    -------
    int
    """
    if quick:  # a number in minutes: the point where the mean crosses the target, its interval open above
        return int(np.clip(4 * base.n_encounters, 200, 400))
    return int(np.clip(32 * base.n_encounters, 400, 6400))


@dataclass
class DesignBase:
    """What the design study plans for (:func:`prepare`).

    Attributes
    ----------
    config : SyntheticConfig or ImageTwinConfig
        The generator's defaults, or the challenge's twin.
    fit_table : DataFrame or None
        Each statistic of the challenge and of its twin, with its tolerance (None without a challenge).
    warnings : list of str
        The input's and the fit's (the results' warnings).
    main_answer : DataFrame or None
        The main job's own size answer on the challenge (:func:`main_job_answer`).
    main_resolution : DataFrame or None
        The main job's own resolution on the challenge (:func:`main_job_resolution`).
    fingerprint : str or None
        :meth:`robustness.io.challenge.Challenge.fingerprint` of the challenge as read.
    """

    config: Any
    fit_table: pd.DataFrame | None = None
    warnings: list = field(default_factory=list)
    main_answer: pd.DataFrame | None = None
    fingerprint: str | None = None
    main_resolution: pd.DataFrame | None = None


def _quiet(*_: Any) -> None:
    return None


def _write_refused(path: Path, table: pd.DataFrame) -> None:
    """A refused twin's fit table, written atomically (its folder made first; names escaped for spreadsheets)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda f: f.write(csv_frame(table).to_csv(index=False).encode()))


def prepare(challenge: Challenge | None, options: DesignStudyOptions, *, config: SyntheticConfig | None = None,
            name: str = "the challenge", force: bool = False,
            say: Callable[..., None] = _quiet, warn: Callable[[Sequence[str]], None] = _quiet,
            refused_fit: Path | None = None) -> DesignBase:
    """The design study's base: the generator's defaults, or its twin fitted to ``challenge``, checked.

    The challenge gets every check the main job makes (polarity, copied raters, outlier annotations...), and the
    fit is checked statistic by statistic (:data:`robustness.simulation.twin.FIT_TOLERANCES`): a twin that is not
    like the challenge is refused, naming the statistics, unless ``force``.

    Parameters
    ----------
    challenge : Challenge or None
        The challenge planned for (None: ``config``).
    options : DesignStudyOptions
    config : SyntheticConfig, optional
        The generator without a challenge (default: its defaults).
    name : str
        The challenge as the user named it (in messages).
    force : bool
        Plan with a twin that fails the fit (said in the warnings).
    say : callable
        Progress lines.
    warn : callable
        Called with warning lines as they are found (before the long fit).
    refused_fit : path, optional
        Where a refused twin's fit table is written (atomically) before the refusal, which names it.

    Returns
    -------
    DesignBase

    Raises
    ------
    InputError
        A size target the runs cannot meet, or a twin unlike the challenge without ``force``.
    """
    if challenge is None:
        config = config or SyntheticConfig()
        check_target(options.target_l1, config.n_runs)
        return DesignBase(config)
    check_target(options.target_l1, challenge.n_runs)  # before the pixel pass and the fit
    counts = main_job_counts(challenge, seed=options.seed)  # the main job's golds: its own size answer below
    warnings = input_warnings(challenge, counts, warn=warn)
    made = "its own images" if options.twin == "images" else "the generator"
    say(f"fitting a twin made of {made} to {name} ({challenge.n_images} images, {challenge.n_runs} runs)")
    base, table = base_from_challenge(challenge, options, counts=counts, say=say)
    failed = fit_failures(table)
    if failed and not force:
        where = ""
        if refused_fit is not None:
            _write_refused(refused_fit, table)
            where = f"; the whole fit: {refused_fit}"
        raise InputError(f"{name}: the twin made of {made} is not like this challenge: {'; '.join(failed)} (the "
                         f"fit's tolerances{where}; a misread input, such as a swapped foreground, fails here; "
                         f"{parameter('prepare', 'force')}=True plans with the twin anyway, and every report then "
                         "says it failed)")
    if failed:
        note = f"the fitted twin is not like the challenge ({parameter('prepare', 'force')}=True): {'; '.join(failed)}"
        warn([note])
        warnings.append(note)
    target = size_target(challenge.n_runs, options.target_l1)
    say(f"the main job's own size answer on {name} (target L1 <= {format_target(target)})")
    return DesignBase(base, table, warnings, main_job_answer(counts, target_l1=target, seed=options.seed),
                      challenge.fingerprint(), main_job_resolution(counts, seed=options.seed))
