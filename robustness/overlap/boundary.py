"""Boundary metrics with voxel spacing: normalised surface distance, HD95, ASSD (Metrics Reloaded's definitions).

A boundary metric is one entry of :data:`BOUNDARY_METRICS`. It is not a ratio of overlap counts: it scores one
image (2D) or volume (3D) at a time, so only macro averages (per image, then the mean) exist for it.

Definitions (Maier-Hein, Reinke et al. 2024, "Metrics reloaded", Nature Methods 21; the border of a mask is its
foreground voxels with a face neighbour in the background, voxels outside the array counting as background;
``d(a, B)`` is the Euclidean distance in physical units, e.g. mm, between the centre of voxel ``a`` and the
nearest border voxel of ``B``; ``dA`` and ``dB`` are the two borders):

============ ================================================================== =========
name          value                                                              better
============ ================================================================== =========
``nsd@t``     ``(#{a in dA: d(a, dB) <= t} + #{b in dB: d(b, dA) <= t}) / (|dA| + |dB|)`` higher
``hd95``      ``max(P95{d(a, dB)}, P95{d(b, dA)})`` (numpy's linear percentile)   lower
``assd``      ``(sum d(a, dB) + sum d(b, dA)) / (|dA| + |dB|)``                  lower
``hd``        ``max(max d(a, dB), max d(b, dA))`` (the Hausdorff distance)        lower
============ ================================================================== =========

``d <= t`` is decided on squared distances with a relative slack of 1e-9, so that a distance that is exactly the
tolerance in real numbers (two voxels of 1 mm at ``nsd@2``) counts whatever the rounding of the spacing.

Empty masks (:func:`boundary_scores`), in the spirit of the overlap metrics' both-empty policy
(:mod:`robustness.overlap.metrics`):

- both empty: the policy ``one`` (default) gives the best value (NSD 1, distances 0: the run agrees perfectly with
  an empty reference), ``zero`` the worst, ``ignore`` and ``official`` nan (left out of the mean);
- one empty (a run that finds nothing where the reference has a lesion, or the reverse): NSD 0, and the distances
  the worst value, the largest distance between two voxels of the array (its diagonal in physical units), as
  BraTS and many challenges do, so that an empty answer never beats a poor one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness.overlap.empty import EmptyPolicy, empty_policy

__all__ = ["BoundaryMetric", "BOUNDARY_METRICS", "register_boundary_metric", "boundary_metric", "is_boundary_metric",
           "boundary_scores", "surface_distances", "boundary_matrix", "crop", "SLACK"]

#: Relative slack on squared distances when comparing a distance with the NSD's tolerance.
SLACK = 1e-9

_NSD = re.compile(r"^nsd@(?P<tol>[0-9]*\.?[0-9]+)$")


@dataclass(frozen=True)
class BoundaryMetric:
    """One boundary metric: its name, what it reduces the two directed distance sets to, its direction.

    Attributes
    ----------
    name : str
    kind : {'nsd', 'hd95', 'assd', 'hd'}
    tolerance : float
        The NSD's tolerance in physical units (0 for the others).
    lower_better : bool
    description : str
    """

    name: str
    kind: str
    tolerance: float = 0.0
    lower_better: bool = True
    description: str = ""

    @property
    def best(self) -> float:
        """The value of perfect agreement."""
        return 1.0 if self.kind == "nsd" else 0.0

    def worst(self, worst_distance: ArrayLike) -> ArrayLike:
        """The value of no agreement: NSD 0, a distance the largest one in the image (``worst_distance``).

        Parameters
        ----------
        worst_distance : float or ndarray
            The image's diagonal in physical units (one per image for an array).

        Returns
        -------
        float or ndarray
        """
        shape = np.shape(worst_distance)
        return np.zeros(shape) if self.kind == "nsd" else np.asarray(worst_distance, dtype=np.float64)

    def both_empty(self, policy: EmptyPolicy, worst_distance: ArrayLike) -> ArrayLike:
        """What a pair of two empty masks scores under the both-empty policy (module notes).

        Parameters
        ----------
        policy : EmptyPolicy
        worst_distance : float or ndarray
            The image's diagonal (see :meth:`worst`).

        Returns
        -------
        float or ndarray
            The best value under ``one``, the worst under ``zero``, nan otherwise.
        """
        if policy.value == 0.0:
            return self.worst(worst_distance)
        return np.full(np.shape(worst_distance), self.best if policy.value == 1.0 else np.nan)

    def reduce(self, d_ab: np.ndarray, d_ba: np.ndarray) -> float:
        """The metric from the two directed distance sets (both non-empty, finite).

        Parameters
        ----------
        d_ab, d_ba : ndarray
            Distances from every border voxel of one mask to the other's border, and back.

        Returns
        -------
        float
        """
        if self.kind == "nsd":
            limit = self.tolerance * self.tolerance * (1.0 + SLACK)
            hits = np.count_nonzero(d_ab * d_ab <= limit) + np.count_nonzero(d_ba * d_ba <= limit)
            return hits / (d_ab.size + d_ba.size)
        if self.kind == "hd95":
            return float(max(np.percentile(d_ab, 95), np.percentile(d_ba, 95)))
        if self.kind == "assd":
            return float((d_ab.sum() + d_ba.sum()) / (d_ab.size + d_ba.size))
        return float(max(d_ab.max(), d_ba.max()))


#: The fixed boundary metrics by name (``nsd@<tolerance>`` names are parsed by :func:`boundary_metric`).
BOUNDARY_METRICS: dict[str, BoundaryMetric] = {}


def register_boundary_metric(metric: BoundaryMetric) -> BoundaryMetric:
    """Add (or replace) a fixed boundary metric in :data:`BOUNDARY_METRICS`.

    Parameters
    ----------
    metric : BoundaryMetric

    Returns
    -------
    BoundaryMetric
        ``metric``, registered.
    """
    if not isinstance(metric, BoundaryMetric):
        raise TypeError(f"expected a BoundaryMetric, got {type(metric).__name__}")
    BOUNDARY_METRICS[metric.name] = metric
    return metric


for _metric in (
    BoundaryMetric("hd95", "hd95", description="95th percentile Hausdorff distance (max of both directions)"),
    BoundaryMetric("assd", "assd", description="average symmetric surface distance"),
    BoundaryMetric("hd", "hd", description="Hausdorff distance (maximum of both directions)"),
):
    register_boundary_metric(_metric)


def is_boundary_metric(name: str) -> bool:
    """Whether ``name`` is a boundary metric (``hd95``, ``assd``, ``hd`` or ``nsd@<tolerance>``).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool

    Examples
    --------
    >>> is_boundary_metric("nsd@2"), is_boundary_metric("jaccard")
    (True, False)
    """
    return name in BOUNDARY_METRICS or _NSD.match(name) is not None


def boundary_metric(name: str | BoundaryMetric) -> BoundaryMetric:
    """The boundary metric of a name.

    Parameters
    ----------
    name : str or BoundaryMetric
        ``hd95``, ``assd``, ``hd``, or ``nsd@<tolerance>`` with the tolerance in the images' physical units
        (``nsd@2``: 2 mm on volumes whose spacing is in mm).

    Returns
    -------
    BoundaryMetric

    Raises
    ------
    ValueError
        For an unknown name or a tolerance that is not a positive number.

    Examples
    --------
    >>> boundary_metric("nsd@1.5").tolerance
    1.5
    """
    if isinstance(name, BoundaryMetric):
        return name
    if name in BOUNDARY_METRICS:
        return BOUNDARY_METRICS[name]
    match = _NSD.match(str(name))
    if match is None:
        known = ", ".join(sorted(BOUNDARY_METRICS)) + ", nsd@<tolerance>"
        raise ValueError(f"unknown boundary metric {name!r} (known: {known})")
    tol = float(match.group("tol"))
    if not tol > 0:
        raise ValueError(f"{name}: the NSD's tolerance must be positive")
    spelled = f"{tol:.15g}"  # one name per tolerance: nsd@2.0 is nsd@2 (a name the pattern reads back)
    spelled = spelled if float(spelled) == tol and "e" not in spelled else match.group("tol")
    return BoundaryMetric(f"nsd@{spelled}", "nsd", tol, lower_better=False,
                          description=f"normalised surface distance at a tolerance of {tol:g}")


def _as_volume(mask: ArrayLike) -> tuple[np.ndarray, bool]:
    """A 3D boolean array (a boolean mask is not copied) and whether it was 2D (its first axis then does not count)."""
    arr = np.asarray(mask)
    if arr.ndim not in (2, 3):
        raise ValueError(f"a mask must be 2D or 3D, got {arr.ndim} dimensions")
    arr = arr if arr.dtype == bool else arr != 0
    return (arr[None], True) if arr.ndim == 2 else (arr, False)


def _spacing(spacing: ArrayLike | None, ndim: int) -> np.ndarray:
    """The voxel size along (z, y, x): 1 along a 2D mask's missing axis."""
    sp = np.ones(ndim) if spacing is None else np.asarray(spacing, dtype=np.float64).ravel()
    if sp.size != ndim or not np.all(np.isfinite(sp)) or not np.all(sp > 0):
        raise ValueError(f"spacing must hold {ndim} positive numbers (one per axis), got {spacing!r}")
    return np.concatenate([[1.0], sp]) if ndim == 2 else sp


def surface_distances(a: ArrayLike, b: ArrayLike, spacing: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distances from every border voxel of ``a`` to ``b``'s border, and from ``b``'s to ``a``'s.

    Parameters
    ----------
    a, b : array_like, 2D or 3D, same shape
        Masks (non-zero is foreground), in array order (``(y, x)`` or ``(z, y, x)``).
    spacing : array_like, optional
        The voxel size along each axis in array order (default 1).

    Returns
    -------
    (d_ab, d_ba) : ndarray
        In the border voxels' C order; empty for an empty mask, ``inf`` where the other mask is empty.

    Examples
    --------
    >>> a = np.zeros((5, 5), bool); a[1:3, 1:3] = True
    >>> b = np.roll(a, 1, axis=1)
    >>> surface_distances(a, b)[0].tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    va, planar = _as_volume(a)
    vb, _ = _as_volume(b)
    if va.shape != vb.shape:
        raise ValueError(f"masks of different shapes: {np.shape(a)} and {np.shape(b)}")
    return _kernels.surface_distances(va, vb, _spacing(spacing, np.ndim(a)), planar)


def _diagonal(shape: tuple, spacing: np.ndarray) -> float:
    """The largest distance between two voxel centres of the array (physical units)."""
    return math.sqrt(sum(((n - 1) * s) ** 2 for n, s in zip(shape, spacing)))


def boundary_scores(run: ArrayLike, reference: ArrayLike, metrics: Sequence[str | BoundaryMetric],
                    spacing: ArrayLike | None = None, *, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Every boundary metric of a run's mask against a reference mask (module notes for empty masks).

    Parameters
    ----------
    run, reference : array_like, 2D or 3D, same shape
    metrics : sequence of str or BoundaryMetric
    spacing : array_like, optional
        The voxel size along each axis in array order (default 1).
    empty : str or EmptyPolicy
        What a pair of two empty masks scores: ``one`` the best value, ``zero`` the worst, ``ignore`` and
        ``official`` nan.

    Returns
    -------
    ndarray (len(metrics),)

    Examples
    --------
    A 2 x 3 x 3 block (every voxel on its border) and the block moved by one voxel: the 6 voxels of each face
    the other leaves are 1 away, the other 12 of each border 0.

    >>> a = np.zeros((4, 6, 6), bool); a[1:3, 1:4, 1:4] = True
    >>> boundary_scores(a, np.roll(a, 1, axis=2), ["nsd@1", "hd95", "assd"]).round(4).tolist()
    [1.0, 1.0, 0.3333]
    """
    table = [boundary_metric(m) for m in metrics]
    d_ab, d_ba = surface_distances(run, reference, spacing)
    worst_distance = _diagonal(np.shape(_as_volume(run)[0]), _spacing(spacing, np.ndim(run)))
    return _reduced(table, d_ab, d_ba, worst_distance, empty_policy(empty))


def _reduced(table, d_ab, d_ba, worst_distance, policy):
    """The metrics from the two directed distance sets, empty masks by the module's rules."""
    if d_ab.size and d_ba.size:
        return np.array([m.reduce(d_ab, d_ba) for m in table])
    if d_ab.size or d_ba.size:  # one mask empty
        return np.array([m.worst(worst_distance) for m in table], dtype=np.float64)
    return np.array([m.both_empty(policy, worst_distance) for m in table], dtype=np.float64)


def crop(mask: ArrayLike) -> tuple:
    """A mask as its foreground's box and the mask inside it (what :func:`boundary_matrix` keeps of a run).

    Parameters
    ----------
    mask : array_like, 2D or 3D

    Returns
    -------
    (box, inside, shape, planar)
        ``box`` the foreground's ``(z0, z1, y0, y1, x0, x1)``, ends exclusive (None: empty); ``inside`` the
        boolean mask within it; ``shape`` the 3D shape; ``planar`` whether the mask was 2D.
    """
    vol, planar = _as_volume(mask)
    box = _kernels.mask_box(vol)
    inside = None if box is None else vol[box[0]:box[1], box[2]:box[3], box[4]:box[5]].copy()
    return box, inside, vol.shape, planar


def boundary_matrix(runs: Sequence, references: Sequence, metrics: Sequence[str | BoundaryMetric],
                    spacing: ArrayLike | None = None, *, empty: str | EmptyPolicy = "one") -> np.ndarray:
    """Every run's boundary metrics against every reference of one image, with one distance transform per mask.

    The same numbers as :func:`boundary_scores` pair by pair, at the cost of ``len(runs) + len(references)``
    distance transforms instead of twice their product: each mask's border distance map is computed once on the
    box that holds every mask's foreground, and read at every other mask's border.

    Parameters
    ----------
    runs, references : sequence of array_like (2D or 3D, all of one shape) or of :func:`crop` results
        A cropped mask costs memory in proportion to its object, not to the image.
    metrics : sequence of str or BoundaryMetric
    spacing : array_like, optional
    empty : str or EmptyPolicy

    Returns
    -------
    ndarray (len(references), len(runs), len(metrics))
    """
    table = [boundary_metric(m) for m in metrics]
    policy = empty_policy(empty)
    items = [m if isinstance(m, tuple) else crop(m) for m in list(runs) + list(references)]
    shape, planar = (items[0][2], items[0][3]) if items else ((1, 1, 1), False)
    if any(it[2] != shape for it in items):
        raise ValueError("masks of different shapes")
    sp = _spacing(spacing, 2 if planar else 3)
    worst_distance = _diagonal(shape, sp)
    out = np.empty((len(references), len(runs), len(table)))
    box = _kernels.union_box([it[0] for it in items])
    if box is None:
        out[:] = _reduced(table, np.empty(0), np.empty(0), worst_distance, policy)
        return out
    lo, hi = box
    borders = []
    for box, inside, _, _ in items:
        placed = np.zeros(tuple(hi - lo), dtype=bool)
        if box is not None:
            placed[box[0] - lo[0]:box[1] - lo[0], box[2] - lo[1]:box[3] - lo[1], box[4] - lo[2]:box[5] - lo[2]] = inside
        borders.append(_kernels.surface_of(placed, planar))
    where = [np.flatnonzero(b) for b in borders]
    n_r = len(runs)
    # to_ref[g][r]: run r's border voxels' distances to reference g's border (one transform per reference)
    to_ref = [_kernels.distances_at(borders[n_r + g], where[:n_r], sp) for g in range(len(references))]
    for r in range(n_r):
        to_run = _kernels.distances_at(borders[r], where[n_r:], sp)  # the references' borders to run r's
        for g in range(len(references)):
            out[g, r] = _reduced(table, to_ref[g][r], to_run[g], worst_distance, policy)
    return out
