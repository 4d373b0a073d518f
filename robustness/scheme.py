"""The headline scheme: the gold, the metric and the averaging a challenge ranks its runs by.

A challenge's organiser decides how the leaderboard is computed; every verdict,
section and figure that speaks of "the leaderboard" reads this one value. The
command line sets it with ``--primary STRATEGY:METRIC:AVERAGING`` (for example
``--primary staple:dice:macro``); without it the default is :data:`DEFAULT`
(majority vote, micro Jaccard), which the MEDIQA-MAGIC layout's official scorer
uses and which only that layout calls "official" (``official=True``).

The names are checked against the registries: the gold against
:mod:`robustness.overlap.gold` (a random single-annotator gold is a draw, not a
scheme an organiser can adopt; a gold over annotators, ``mean`` or ``max``,
exists only per image, macro), the metric against the overlap metric table
(:data:`robustness.overlap.metrics.METRICS`, any registered metric, with its
direction) or the boundary metrics (:mod:`robustness.overlap.boundary`: ``hd95``,
``assd``, ``hd``, ``nsd@<tolerance>``, which exist per image only, macro), and
the averaging against :data:`robustness.overlap.metrics.AVERAGES`. A metric
where smaller is better (a distance, an error rate) ranks smallest first
everywhere; the engines store its negative and every table shows it with its own
sign (:attr:`robustness.statistics.schemes.Schemes.signs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robustness.errors import deprecated_name, renamed_keyword
from robustness.overlap.boundary import boundary_metric, is_boundary_metric
from robustness.overlap.gold import get_strategy, is_random, official_strategy
from robustness.overlap.metrics import AVERAGES, METRICS, get_metric

if TYPE_CHECKING:
    from robustness.overlap.gold import GoldStrategy

__all__ = ["Scheme", "DEFAULT", "default_scheme", "from_meta", "metric_label", "lower_is_better", "metric_unit",
           "set_by_organiser"]


@dataclass(frozen=True, init=False)
class Scheme:
    """One way of ranking the runs: a gold strategy, an overlap metric and an averaging.

    Parameters
    ----------
    strategy : str
        A gold strategy of the registry (not a random single-annotator draw). ``gold=`` is its deprecated name.
    metric : str
        An overlap metric of the metric table or a boundary metric (its direction comes from there).
    average : {'micro', 'macro'}
    official : bool
        The challenge's own scorer ranks by this scheme (reports may call it "official"): only the MEDIQA-MAGIC
        layout's default.

    Examples
    --------
    >>> s = Scheme.parse("staple:dice:macro")
    >>> s.key, s.label
    (('staple', 'dice', 'macro'), 'STAPLE, macro Dice')
    >>> Scheme.parse("majority:jaccard:micro").averages
    ('micro', 'macro')
    """

    strategy: str
    metric: str
    average: str
    official: bool = False

    def __init__(self, strategy: str | None = None, metric: str | None = None, average: str | None = None,
                 official: bool = False, **deprecated: str) -> None:
        """Set the four fields and check them; ``gold=`` is accepted for ``strategy=`` (deprecated)."""
        strategy = renamed_keyword("Scheme", deprecated, "gold", "strategy", strategy)
        given = dict(strategy=strategy, metric=metric, average=average)
        missing = [name for name, value in given.items() if value is None]
        if missing:  # as the generated __init__ said it
            raise TypeError(f"Scheme() missing required argument(s): {', '.join(map(repr, missing))}")
        for name, value in (given | {"official": official}).items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __setstate__(self, state: dict) -> None:
        """Unpickle, also a scheme pickled when ``strategy`` was called ``gold`` (before the evening of 2026-12-07)."""
        state = dict(state)
        if "gold" in state and "strategy" not in state:
            state["strategy"] = state.pop("gold")
        self.__dict__.update(state)

    def __post_init__(self) -> None:
        """Check the three names against their registries (one line naming the bad part)."""
        strategy = get_strategy(self.strategy)
        if is_random(self.strategy):
            raise ValueError(f"gold strategy {self.strategy!r} is one annotator drawn at random per image: a draw, "
                             "not a headline scheme (choose a fixed gold)")
        object.__setattr__(self, "strategy", strategy.name)
        boundary = is_boundary_metric(str(self.metric))
        if boundary:  # a bad NSD tolerance: one line; nsd@2.0 is spelled nsd@2
            object.__setattr__(self, "metric", boundary_metric(self.metric).name)
        elif str(self.metric) not in METRICS:
            raise ValueError(f"unknown metric {self.metric!r}; choose one of {', '.join(METRICS)} or a boundary "
                             "metric (hd95, assd, hd, nsd@<tolerance>)")
        if self.average not in AVERAGES:
            raise ValueError(f"averaging must be one of {', '.join(AVERAGES)}; got {self.average!r}")
        if strategy.macro_only and self.average != "macro":
            raise ValueError(f"gold strategy {self.strategy!r} scores a run against each annotator per image, so it "
                             f"exists only macro; got {self.average!r}")
        if boundary and self.average != "macro":
            raise ValueError(f"metric {self.metric!r} is a boundary metric: it scores each image on its own, so it "
                             f"exists only macro; got {self.average!r}")
        if boundary and strategy.macro_only:
            raise ValueError(f"metric {self.metric!r} is a boundary metric, computed against a gold mask; gold "
                             f"strategy {self.strategy!r} has none (it scores against each annotator)")

    @classmethod
    def parse(cls, text: str, *, official: bool = False) -> Scheme:
        """``STRATEGY:METRIC:AVERAGING`` (e.g. ``staple:dice:macro``) as a scheme.

        Parameters
        ----------
        text : str
        official : bool

        Returns
        -------
        Scheme
        """
        parts = str(text).split(":")
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"expected STRATEGY:METRIC:AVERAGING (e.g. staple:dice:macro), got {text!r}")
        odd = [p for p in parts if p != p.strip().lower()]
        if odd:  # spelled as the registries and --strategies spell them: nothing guessed
            raise ValueError(f"{odd[0]!r} in {text!r}: names are lower case, without spaces "
                             "(e.g. staple:dice:macro)")
        strategy, metric, average = parts
        return cls(strategy, metric, average, official=official)

    @property
    def key(self) -> tuple[str, str, str]:
        """``(strategy, metric, average)``, the scheme's name in the score tables."""
        return (self.strategy, self.metric, self.average)

    @property
    def text(self) -> str:
        """``strategy:metric:average``, as ``--primary`` takes it."""
        return ":".join(self.key)

    @property
    def averages(self) -> tuple[str, ...]:
        """The averagings the reports show beside each other for this gold and metric (micro first)."""
        return ("macro",) if get_strategy(self.strategy).macro_only or self.boundary else tuple(AVERAGES)

    @property
    def boundary(self) -> bool:
        """A boundary metric (:mod:`robustness.overlap.boundary`): per image only, computed with ``--boundary``."""
        return is_boundary_metric(self.metric)

    def with_average(self, average: str) -> tuple[str, str, str]:
        """The scheme's gold and metric under another averaging, as a score-table name.

        Parameters
        ----------
        average : str
            ``micro`` or ``macro``.

        Returns
        -------
        tuple of str
            ``(strategy, metric, average)``.
        """
        return (self.strategy, self.metric, average)

    @property
    def lower_better(self) -> bool:
        """Whether smaller values rank first (from the metric table or the boundary metric)."""
        return lower_is_better(self.metric)

    @property
    def metric_label(self) -> str:
        """The metric's name in prose (``Jaccard``)."""
        return metric_label(self.metric)

    @property
    def strategy_label(self) -> str:
        """The gold strategy's name in prose (the registry's label)."""
        s = get_strategy(self.strategy)
        return s.label or s.name

    @property
    def gold(self) -> str:
        """Deprecated name of :attr:`strategy`."""
        deprecated_name("Scheme.gold", "Scheme.strategy")
        return self.strategy

    @property
    def gold_label(self) -> str:
        """Deprecated name of :attr:`strategy_label`."""
        deprecated_name("Scheme.gold_label", "Scheme.strategy_label")
        return self.strategy_label

    @property
    def label(self) -> str:
        """``majority, micro Jaccard``: the gold, the averaging and the metric in prose."""
        return f"{self.strategy_label}, {self.average} {self.metric_label}"

    @property
    def title(self) -> str:
        """What the reports call it: "the official scheme" where the layout's scorer uses it, else "the headline"."""
        return "the official scheme" if self.official else "the headline scheme"

    @property
    def gold_title(self) -> str:
        """"the official gold" or "the headline gold"."""
        return "the official gold" if self.official else "the headline gold"

    def to_meta(self) -> dict:
        """The scheme as meta.json records it (named fields, read back by :func:`from_meta`).

        Returns
        -------
        dict
            ``strategy``, ``metric``, ``average``, ``official``, ``label`` and ``lower_better``.
        """
        return {"strategy": self.strategy, "metric": self.metric, "average": self.average, "official": self.official,
                "label": self.label, "lower_better": self.lower_better}


def lower_is_better(name: str) -> bool:
    """Whether a registered metric (overlap or boundary) ranks its smallest values first.

    Parameters
    ----------
    name : str

    Returns
    -------
    bool

    Examples
    --------
    >>> lower_is_better("jaccard"), lower_is_better("hd95"), lower_is_better("nsd@2")
    (False, True, False)
    """
    return boundary_metric(name).lower_better if is_boundary_metric(name) else get_metric(name).lower_better


def metric_label(name: str) -> str:
    """A metric's name in prose: ``Jaccard``, ``Dice``, ``Precision``; boundary metrics as they are (``hd95``).

    A name the package does not compute (a per-case table's own metric) is written as the table spells it: its
    case may carry meaning (``nDSC``, ``mIoU``).

    Parameters
    ----------
    name : str
        A metric's name.

    Returns
    -------
    str

    Examples
    --------
    >>> metric_label("jaccard"), metric_label("hd95"), metric_label("nDSC")
    ('Jaccard', 'hd95', 'nDSC')
    """
    return name[:1].upper() + name[1:] if name in METRICS and not is_boundary_metric(name) else name


def metric_unit(name: str, distance_unit: str | None) -> str:
    """The unit of a metric's values: ``mm`` for a distance, ``mm^3`` for a volume, ``""`` for a ratio or a count.

    Parameters
    ----------
    name : str
        A metric's name (an unknown one, a per-case table's own column, has no unit here).
    distance_unit : str or None
        The images' spacing unit (``mm`` for medical images, ``pixels`` for images without a spacing); None where it
        is not known (a per-case table): then no unit.

    Returns
    -------
    str

    Examples
    --------
    >>> metric_unit("hd95", "mm"), metric_unit("fp_volume", "mm"), metric_unit("lesion_f1", "mm")
    ('mm', 'mm^3', '')
    """
    if distance_unit is None or not is_boundary_metric(name):
        return ""
    m = boundary_metric(name)
    if m.kind in ("hd95", "hdp", "assd", "masd", "hd") or m.statistic in ("lesion_hd95", "lesion_hd95_pooled", "hd95"):
        return distance_unit
    if m.name in ("abs_volume_difference", "fp_volume", "fn_volume"):
        return f"{distance_unit}^3" if distance_unit == "mm" else distance_unit
    return ""


#: The default headline scheme: majority vote, micro Jaccard (the MEDIQA-MAGIC 2025 official scorer's leaderboard).
DEFAULT = Scheme("majority", "jaccard", "micro")


def default_scheme(strategies: Iterable[str | GoldStrategy], *, official: bool = False) -> Scheme:
    """The headline scheme when the organiser names none.

    :data:`DEFAULT`'s metric and averaging with its gold, or with the first fixed strategy that has a micro average
    when the study leaves majority out.

    Parameters
    ----------
    strategies : iterable of str or GoldStrategy
        The study's gold strategies.
    official : bool
        The input's layout is the one whose scorer ranks by :data:`DEFAULT` (MEDIQA-MAGIC).

    Returns
    -------
    Scheme
    """
    names: list[str] = [str(getattr(s, "name", s)) for s in strategies]
    fixed = [n for n in names if not is_random(n)] or names
    strategy = DEFAULT.strategy if DEFAULT.strategy in fixed else official_strategy(fixed)
    average = DEFAULT.average if not get_strategy(strategy).macro_only else "macro"
    return Scheme(strategy, DEFAULT.metric, average, official=official and strategy == DEFAULT.strategy)


def from_meta(meta: dict) -> Scheme:
    """The headline scheme a results folder's meta.json records.

    meta.json's ``primary`` names its gold strategy ``strategy`` (``gold`` in folders written before the evening of
    2026-12-07).
    Folders written before it existed: their ``official`` gold with :data:`DEFAULT`'s metric and averaging, called
    official as they were.

    Parameters
    ----------
    meta : dict
        A results folder's meta.json.

    Returns
    -------
    Scheme

    Raises
    ------
    ValueError
        A ``primary`` that is not a record, that names its strategy under neither name or under both, or whose
        strategy, metric or averaging is not a name.
    """
    p = meta.get("primary")
    if p is not None and not isinstance(p, dict):
        raise ValueError(f"meta.json's primary is not a record (a {type(p).__name__})")
    if isinstance(p, dict):
        named = [key for key in ("strategy", "gold") if key in p]  # "gold": written before 2026-12-07 evening
        if len(named) != 1:
            raise ValueError("meta.json's primary record names " + ("no gold strategy ('strategy')" if not named else
                                                                    "its gold strategy twice ('strategy' and 'gold')"))
        unnamed = [key for key in (named[0], "metric", "average") if not isinstance(p.get(key), str)]
        if unnamed:
            raise ValueError(f"meta.json's primary record gives no name for {unnamed[0]!r}")
        return Scheme(p[named[0]], p["metric"], p["average"], official=bool(p.get("official")))
    strategy = meta.get("official", DEFAULT.strategy)
    return Scheme(strategy, DEFAULT.metric, DEFAULT.average if not get_strategy(strategy).macro_only else "macro",
                  official=True)


#: How meta.json says a choice was the organiser's (``set_by``): this version's word, and the option's name that
#: folders written before it recorded.
ORGANISER = ("organiser", "--primary", "--target")


def set_by_organiser(record: Mapping | None) -> bool:
    """Whether meta.json's record of the headline scheme or of the size target says the organiser chose it.

    Parameters
    ----------
    record : mapping or None
        meta.json's ``primary`` or ``target``.

    Returns
    -------
    bool

    Examples
    --------
    >>> set_by_organiser({"set_by": "organiser"}), set_by_organiser({"set_by": "default"}), set_by_organiser(None)
    (True, False, False)
    """
    return (record or {}).get("set_by") in ORGANISER
