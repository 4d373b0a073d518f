"""The main job's options: those of every resampling study, plus a segmentation challenge's golds and units."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from robustness.overlap.boundary import boundary_metric, conventions
from robustness.overlap.empty import empty_policy
from robustness.overlap.gold import resolve
from robustness.overlap.lesions import MIN_LESION_SIZE
from robustness.scheme import Scheme
from robustness.studies.common import (
    ResamplingOptions,
)

if TYPE_CHECKING:

    pass

__all__ = ["RankConvergenceOptions"]


@dataclass(frozen=True)
class RankConvergenceOptions(ResamplingOptions):
    """The main job's options (besides :class:`~robustness.studies.common.ResamplingOptions`).

    Attributes
    ----------
    strategies : tuple of str or None
        Gold strategies (None: the registry's defaults).
    empty : str
        The both-empty policy (:data:`robustness.overlap.empty.EMPTY_POLICIES`).
    unit : {'image', 'encounter'}
        The unit added one by one in the random orders.
    bootstrap_unit : {'image', 'encounter'}
        The unit the bootstrap resamples.
    boundary : tuple of str
        Boundary metrics (:mod:`robustness.overlap.boundary`) computed per image and ranked beside the overlap
        metrics under the headline gold (metric_leaderboard.csv, metric_agreement.csv).
    primary : Scheme or None
        The headline scheme (:class:`robustness.scheme.Scheme`): the leaderboard, the verdicts and the report's
        conclusions are about it. None: :func:`robustness.scheme.default_scheme` of the strategies (never called
        official).
    rope : float, optional
        Also the Bayesian signed-rank test with this region of practical equivalence down the headline's per-case
        leaderboard (on encounter means where the bootstrap resamples encounters): ``bayes_signed_rank.csv``.
    empty_distance : str or float
        The boundary metrics' distance between an empty and a non-empty mask
        (:data:`robustness.overlap.boundary.EMPTY_DISTANCES` or a number).
    one_slice : {'2d', '3d'}
        How a volume of one slice is scored (:data:`robustness.overlap.boundary.ONE_SLICE`).
    border : {'face', 'full'}
        Which voxels are border (:data:`robustness.overlap.boundary.BORDERS`).
    min_lesion_size : str or int or float
        The lesion-wise metrics' minimum lesion size (:func:`robustness.overlap.lesions.lesion_size`: ``8`` voxels,
        ``'2.5 mm3'``; default none left out).
    resolve : float, optional
        A true score difference (in the headline metric's units) whose test-set size is wanted: resolve.csv gives
        the units at which the paired test declares it with 80% power
        (:func:`robustness.statistics.resolution.resolve_table`).
    """

    strategies: tuple | None = None
    empty: str = "one"
    unit: str = "image"
    bootstrap_unit: str = "encounter"
    boundary: tuple = ()
    primary: Scheme | None = None
    rope: float | None = None
    empty_distance: str | float = "diagonal"
    one_slice: str = "2d"
    border: str = "face"
    resolve: float | None = None
    min_lesion_size: str | int | float = MIN_LESION_SIZE

    @property
    def boundary_conventions(self) -> dict:
        """The boundary metrics' conventions (:func:`robustness.overlap.boundary.conventions`)."""
        return conventions(empty_distance=self.empty_distance, one_slice=self.one_slice, border=self.border,
                           min_lesion_size=self.min_lesion_size)

    def __post_init__(self) -> None:
        """Check the values (the strategies and the empty policy against their registries)."""
        super().__post_init__()

        empty_policy(self.empty)
        chosen = [g.name for g in resolve(None if self.strategies is None else list(self.strategies))]
        if self.primary is not None:
            if not isinstance(self.primary, Scheme):
                raise TypeError(f"primary must be a Scheme, got {type(self.primary).__name__}")
            if self.primary.strategy not in chosen:
                raise ValueError(f"the headline scheme's gold strategy {self.primary.strategy!r} is not among the "
                                 f"strategies chosen ({', '.join(chosen)}): add it to them")
        for name in self.boundary:
            boundary_metric(name)
        self.boundary_conventions  # noqa: B018  (refuses a convention outside its list)
        if self.resolve is not None and not (np.isfinite(self.resolve) and self.resolve > 0):
            raise ValueError(f"resolve must be a positive, finite difference, got {self.resolve!r}")
        for name in ("unit", "bootstrap_unit"):
            if getattr(self, name) not in ("image", "encounter"):
                raise ValueError(f"{name} must be 'image' or 'encounter', got {getattr(self, name)!r}")
