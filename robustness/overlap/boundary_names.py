"""Boundary metrics by name: :class:`BoundaryMetric`, the registry :data:`BOUNDARY_METRICS` and the parser of names.

Names (their definitions: :mod:`robustness.overlap.boundary`): ``hd95``, ``assd``, ``hd``, ``masd``, ``hd<P>`` (any
percentile), ``hd95_pooled`` and ``hd<P>_pooled`` (the percentile of both directions pooled, medpy's),
``nsd@<tolerance>``, ``nsd@<label>=<tolerance>/<label>=<tolerance>...`` (a tolerance per label or region,
KiTS23's ``nsd@kidney=1.0330/masses=1.1328/tumor=1.1498``), ``volume_similarity``, ``abs_volume_difference`` and
the lesion-wise metrics of :mod:`robustness.overlap.lesions`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from robustness.overlap.brats import BRATS_SETTINGS, HD95_PENALTY
from robustness.overlap.empty import EmptyPolicy
from robustness.overlap.lesions import LESION_METRICS, is_lesion_metric, lesion_kind
from robustness.overlap.surface_stats import assd_of, hd95_of, hd_of, hdp_of, hdp_pooled_of, masd_of, nsd_of
from robustness.overlap.surfels import assd_weighted, hd_weighted, hdp_weighted, masd_weighted, nsd_weighted

__all__ = ["BoundaryMetric", "BOUNDARY_METRICS", "register_boundary_metric", "boundary_metric", "is_boundary_metric"]

_NSD = re.compile(r"^nsd@(?P<tol>[0-9]*\.?[0-9]+)$")
_NSD_PER_LABEL = re.compile(r"^nsd@(?P<spec>[A-Za-z0-9_-]+=[0-9]*\.?[0-9]+(/[A-Za-z0-9_-]+=[0-9]*\.?[0-9]+)*)$")
_HDP = re.compile(r"^hd(?P<p>[0-9]+(\.[0-9]+)?)$")
#: ``<metric>_surfel`` (``nsd_surfel@<tolerance>``): the distance metric on surface elements
_SURFEL = re.compile(r"^(?P<base>nsd|hd[0-9.]*|assd|masd)_surfel(?P<rest>@.*)?$")
#: ``hd95_pooled``, ``hd<P>_pooled``: the percentile of both directions' distances pooled (medpy's, seg-metrics')
_POOLED = re.compile(r"^(?P<base>hd[0-9.]*)_pooled$")
#: ``<metric>_run_to_ref`` / ``<metric>_ref_to_run``: one direction of a distance metric
_DIRECTED = re.compile(r"^(?P<stem>[a-z0-9._]+?)_(?P<direction>run_to_ref|ref_to_run)(?P<rest>@.*)?$")
#: ``brats_dice``, ``brats_hd95`` (BraTS 2023's lesion-wise scores, :mod:`robustness.overlap.brats`), with a setting
_BRATS = re.compile(r"^brats_(?P<stat>dice|hd95)(@(?P<setting>[a-z]+))?$")
#: The kinds a surface model applies to (distances between surfaces)
_DISTANCE_KINDS = ("nsd", "hd95", "hdp", "assd", "masd", "hd")


@dataclass(frozen=True)
class BoundaryMetric:
    """One boundary metric: its name, what it reduces the two directed distance sets to, its direction.

    Attributes
    ----------
    name : str
    kind : {'nsd', 'hd95', 'hdp', 'assd', 'masd', 'hd', 'volume', 'lesion', 'brats'}
    tolerance : float
        The NSD's tolerance in physical units, ``hd<P>``'s percentile (0 for the others).
    lower_better : bool
    description : str
    statistic : str
        A lesion-wise metric's statistic (:mod:`robustness.overlap.lesions`; ``lesion_nsd`` for every tolerance).
    tolerances : tuple of (str, float)
        An NSD with a tolerance per label or region (``nsd@kidney=1.033/masses=1.133/tumor=1.15``, KiTS23's):
        :meth:`for_label` gives the metric of one label.
    surface : {'voxels', 'elements'}
        The surface model of a distance metric: border voxels of weight 1 (MetricsReloaded's, the default) or
        surface elements weighted by their area (DeepMind's, MONAI's ``use_subvoxels``; names ending ``_surfel``,
        :mod:`robustness.overlap.surfels`).
    direction : {'both', 'run_to_ref', 'ref_to_run'}
        Both directions (the symmetric metric), or one: the run's border's distances to the reference's border
        (``_run_to_ref``: where the run draws what the reference does not) or the reverse (``_ref_to_run``).
    pooled : bool
        ``hd95``, ``hd<P>``: the percentile of both directions' distances pooled into one set (medpy's and
        seg-metrics' definition; names ending ``_pooled``) instead of the larger of the two directions'
        percentiles (MetricsReloaded's and MONAI's, the default).
    """

    name: str
    kind: str
    tolerance: float = 0.0
    lower_better: bool = True
    description: str = ""
    statistic: str = ""
    tolerances: tuple = ()
    surface: str = "voxels"
    direction: str = "both"
    pooled: bool = False

    @property
    def percentile(self) -> float:
        """The percentile of ``hd95`` (95) and ``hd<P>`` (P)."""
        return 95.0 if self.kind == "hd95" else self.tolerance

    def for_label(self, label: object) -> BoundaryMetric:
        """The metric as it scores an image of ``label`` (itself unless it has a tolerance per label).

        Parameters
        ----------
        label : int or str or None
            The image's label or region (None: a mask without labels).

        Returns
        -------
        BoundaryMetric
        """
        if not self.tolerances:
            return self
        chosen = dict(self.tolerances).get(str(label))
        if chosen is None:
            raise ValueError(f"{self.name}: no tolerance for label {label!r} (given for "
                             f"{', '.join(n for n, _ in self.tolerances)})")
        return replace(self, tolerance=chosen, tolerances=())

    @property
    def best(self) -> float:
        """The value of perfect agreement (a count or volume of missed lesions: 0)."""
        return 0.0 if self.lower_better else 1.0

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
        if self.kind == "brats":
            return np.full(shape, HD95_PENALTY if self.statistic == "hd95" else 0.0)
        distance = self.kind in ("hd95", "hdp", "assd", "masd", "hd") or self.statistic in ("lesion_hd95",
                                                                                       "lesion_hd95_pooled")
        return np.asarray(worst_distance, dtype=np.float64) if distance else np.zeros(shape)

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
        d_ab, d_ba = _directed(self.direction, d_ab, d_ba)
        if self.pooled:
            return hdp_pooled_of(d_ab, d_ba, self.percentile)
        if self.kind == "nsd":
            return nsd_of(d_ab, d_ba, self.tolerance)
        if self.kind == "hd95":
            return hd95_of(d_ab, d_ba)
        if self.kind == "hdp":
            return hdp_of(d_ab, d_ba, self.tolerance)
        if self.kind == "assd":
            return assd_of(d_ab, d_ba)
        if self.kind == "masd":
            return masd_of(d_ab, d_ba)
        return hd_of(d_ab, d_ba)

    def reduce_weighted(self, d_ab: np.ndarray, w_a: np.ndarray, d_ba: np.ndarray, w_b: np.ndarray) -> float:
        """The metric from two directed distance sets of surface elements and their areas (both non-empty).

        Parameters
        ----------
        d_ab, d_ba : ndarray
            Every element's distance to the other surface.
        w_a, w_b : ndarray
            The elements' areas.

        Returns
        -------
        float
        """
        (d_ab, w_a), (d_ba, w_b) = _directed(self.direction, (d_ab, w_a), (d_ba, w_b))
        if self.kind == "nsd":
            return nsd_weighted(d_ab, w_a, d_ba, w_b, self.tolerance)
        if self.kind in ("hd95", "hdp"):
            return hdp_weighted(d_ab, w_a, d_ba, w_b, self.percentile)
        if self.kind == "assd":
            return assd_weighted(d_ab, w_a, d_ba, w_b)
        if self.kind == "masd":
            return masd_weighted(d_ab, w_a, d_ba, w_b)
        return hd_weighted(d_ab, w_a, d_ba, w_b)


def _directed(direction: str, ab, ba):
    """Both directions, or one of them twice (a symmetric reduction of one direction is that direction's)."""
    return (ab, ab) if direction == "run_to_ref" else (ba, ba) if direction == "ref_to_run" else (ab, ba)


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
    BoundaryMetric("masd", "masd", description="mean average surface distance (mean of both directions' means)"),
    BoundaryMetric("volume_similarity", "volume", lower_better=False,
                   description="volume similarity, 1 - |(|A| - |B|)| / (|A| + |B|)"),
    BoundaryMetric("abs_volume_difference", "volume", description="absolute volume difference (physical units)"),
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
    directed = _DIRECTED.match(name)
    if directed is not None:
        return is_boundary_metric(directed.group("stem") + (directed.group("rest") or ""))
    surfel = _SURFEL.match(name)
    if surfel is not None:
        return is_boundary_metric(surfel.group("base") + (surfel.group("rest") or ""))
    pooled = _POOLED.match(name)
    if pooled is not None:
        return is_boundary_metric(pooled.group("base"))
    return (name in BOUNDARY_METRICS or _NSD.match(name) is not None or _BRATS.match(name) is not None
            or _HDP.match(name) is not None or _NSD_PER_LABEL.match(name) is not None or is_lesion_metric(name))


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
    text = str(name)
    for pattern, build in _VARIANTS:  # a metric with a variant: its base named in the rest of the name
        match = pattern.match(text)
        if match is not None:
            return build(name, match)
    if name in BOUNDARY_METRICS:
        return BOUNDARY_METRICS[name]
    for pattern, build in _SPELLED:
        match = pattern.match(text)
        if match is not None:
            return build(name, match)
    if is_lesion_metric(text):
        statistic, tol, lower, about = lesion_kind(text)
        spelled = text if statistic != "lesion_nsd" else f"lesion_nsd@{_spelled(tol, text.split('@')[1])}"
        return BoundaryMetric(spelled, "lesion", tol, lower_better=lower, description=about, statistic=statistic)
    match = _NSD.match(text)
    if match is None:
        known = (", ".join(sorted(BOUNDARY_METRICS)) + ", nsd@<tolerance>, hd<percentile>, "
                 + ", ".join(LESION_METRICS) + ", lesion_nsd@<tolerance>")
        raise ValueError(f"unknown boundary metric {name!r} (known: {known})")
    tol = float(match.group("tol"))
    if not tol > 0:
        raise ValueError(f"{name}: the NSD's tolerance must be positive")
    return BoundaryMetric(f"nsd@{_spelled(tol, match.group('tol'))}", "nsd", tol, lower_better=False,
                          description=f"normalised surface distance at a tolerance of {tol:g}")


def _read_directed(name, match: re.Match) -> BoundaryMetric:
    """A distance in one direction (``hd95_run_to_ref``)."""
    base = boundary_metric(match.group("stem") + (match.group("rest") or ""))
    if base.kind not in _DISTANCE_KINDS or base.tolerances or base.pooled:
        raise ValueError(f"{name}: one direction applies to nsd@<tolerance>, hd95, hd<P>, assd, masd and hd")
    stem, at, rest = base.name.partition("@")
    way = match.group("direction")
    words = ("from the run's border to the reference's" if way == "run_to_ref" else
             "from the reference's border to the run's")
    return replace(base, name=f"{stem}_{way}{at}{rest}", direction=way,
                   description=f"{base.description}, one direction: {words}")


def _read_surfel(name, match: re.Match) -> BoundaryMetric:
    """A distance on surface elements weighted by area (``nsd_surfel@1``)."""
    base = boundary_metric(match.group("base") + (match.group("rest") or ""))
    if base.kind not in _DISTANCE_KINDS:
        raise ValueError(f"{name}: surface elements apply to nsd, hd95, hd<P>, assd, masd and hd")
    stem, at, rest = base.name.partition("@")
    return replace(base, name=f"{stem}_surfel{at}{rest}", surface="elements",
                   description=base.description + ", on surface elements weighted by area (DeepMind's)")


def _read_pooled(name, match: re.Match) -> BoundaryMetric:
    """A percentile of both directions' distances pooled (``hd95_pooled``)."""
    base = boundary_metric(match.group("base"))
    if base.kind not in ("hd95", "hdp"):
        raise ValueError(f"{name}: the pooled percentile applies to hd95 and hd<P>")
    return replace(base, name=f"{base.name}_pooled", pooled=True,
                   description=f"{base.percentile:g}th percentile of both directions' surface distances pooled "
                               "(medpy's)")


def _read_brats(name, match: re.Match) -> BoundaryMetric:
    """BraTS 2023's lesion-wise Dice or HD95 in one of its settings (``brats_hd95@met``)."""
    setting = match.group("setting") or "gli"
    if setting not in BRATS_SETTINGS:
        raise ValueError(f"{name}: the BraTS settings are {', '.join(BRATS_SETTINGS)}")
    dilation, min_volume = BRATS_SETTINGS[setting]
    stat = match.group("stat")
    spelled = f"brats_{stat}" + ("" if setting == "gli" else f"@{setting}")
    return BoundaryMetric(spelled, "brats", lower_better=stat == "hd95", statistic=stat,
                          description=f"BraTS 2023's lesion-wise {'Dice' if stat == 'dice' else 'HD95'} "
                                      f"({setting.upper()}: lesions matched by {dilation} dilations, lesions of "
                                      f"at most {min_volume:g} left out, {HD95_PENALTY:g} for a missed or false "
                                      "lesion's HD95)")


def _read_nsd_per_label(name, match: re.Match) -> BoundaryMetric:
    """The NSD at a tolerance per label (``nsd@1=2/2=1``)."""
    pairs = [part.split("=") for part in match.group("spec").split("/")]
    tolerances = tuple((label, float(tol)) for label, tol in pairs)
    if any(not t > 0 for _, t in tolerances) or len({n for n, _ in tolerances}) != len(tolerances):
        raise ValueError(f"{name}: each label once, with a positive tolerance")
    spelled = "/".join(f"{label}={_spelled(t, tol)}" for (label, tol), (_, t) in zip(pairs, tolerances))
    return BoundaryMetric(f"nsd@{spelled}", "nsd", 0.0, lower_better=False, tolerances=tolerances,
                          description="normalised surface distance at a tolerance per label: " + ", ".join(
                              f"{label} {t:g}" for label, t in tolerances))


def _read_hdp(name, match: re.Match) -> BoundaryMetric:
    """A percentile Hausdorff distance (``hd90``)."""
    p = float(match.group("p"))
    if not 0 < p <= 100:
        raise ValueError(f"{name}: the percentile must lie in (0, 100]")
    return BoundaryMetric(f"hd{_spelled(p, match.group('p'))}", "hdp", p,
                          description=f"{p:g}th percentile Hausdorff distance (max of both directions)")


#: Names read in this order: the variants of a base metric first, then (after the registry's names) the
#: spelled families; a lesion-wise name and ``nsd@<tolerance>`` last.
_VARIANTS = ((_DIRECTED, _read_directed), (_SURFEL, _read_surfel), (_POOLED, _read_pooled))
_SPELLED = ((_BRATS, _read_brats), (_NSD_PER_LABEL, _read_nsd_per_label), (_HDP, _read_hdp))


def _spelled(tol: float, given: str) -> str:
    """One name per tolerance: ``nsd@2.0`` is ``nsd@2`` (a name the pattern reads back)."""
    spelled = f"{tol:.15g}"
    return spelled if float(spelled) == tol and "e" not in spelled else given
