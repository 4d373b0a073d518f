"""The gold-strategy registry: how several annotators' masks become one reference.

With ``k`` annotators, every pixel shows one of ``2**k`` *rater patterns*
(bit ``j`` set when annotator ``j`` marked it). Every pixel-level gold here is
a function of the pattern, so it is a look-up table (LUT) of ``2**k``
booleans and a gold mask is ``lut[pattern]``: building all golds of an image
is one pass over its pixels, and STAPLE runs exactly on the ``2**k`` pattern
counts.

Each strategy is one :class:`GoldStrategy` in :data:`STRATEGIES`; the overlap
pass, the metrics, the resampling schemes, the command-line defaults and the
plots all read it. Kinds:

``lut``
    ``build(k)`` gives the LUT for ``k`` annotators: ``majority`` (at least
    ``ceil(k / 2)``, the official MEDIQA-MAGIC rule: with 4 annotators a 2-2
    tie is foreground; with 2 annotators this is the union), ``intersection``
    (all), ``union`` (any).
``histogram``
    ``build(hist[, max_iter=...])`` gives a :class:`~robustness.overlap.staple.StapleResult`-like fit
    (``lut``, ``iterations``, ``converged``, ``rule``) from the image's pattern
    counts: ``staple`` (ITK/SimpleITK's STAPLE, foreground where the posterior
    is strictly above 0.5; see :mod:`robustness.overlap.staple`).
``random``
    ``randN``: for every image one of the annotators present, drawn at random
    (independently per strategy and image, reproducible under ``rng``). No
    pixel pass: their counts are the chosen annotator's. Any ``N`` is accepted;
    ``rand1..rand3`` are the defaults.
``annotators``
    Macro only: per image the ``mean`` or ``max`` over the annotators present
    of the run's score against each of them (the official ``meanofmean`` and
    ``meanofmax``).

Adding a look-up-table strategy is one call::

    register_strategy(GoldStrategy("atleast2", "lut", build=lambda k: pattern_bits(k).sum(axis=1) >= 2))

The registry imports nothing heavy (numpy is loaded on first use), so command
lines can read their defaults from it without slowing ``--help``.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from robustness.overlap.patterns import (
    MAX_ANNOTATORS,
    annotator_luts,
    intersection_lut,
    majority_lut,
    pattern_bits,
    union_lut,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "ONE_RANDOM",
    "GoldStrategy",
    "STRATEGIES",
    "is_random",
    "register_strategy",
    "register",
    "get_strategy",
    "resolve",
    "majority_lut",
    "intersection_lut",
    "union_lut",
    "annotator_luts",
    "pattern_bits",
    "official_strategy",
    "annotator_strategies",
    "MAX_ANNOTATORS",
]

#: The random single-annotator golds summarised as one scheme (a draw, not a choice):
#: :func:`robustness.simulation.recommendation.one_random`.
ONE_RANDOM = "random"

KINDS = ("lut", "histogram", "random", "annotators")


@dataclass(frozen=True)
class GoldStrategy:
    """One way of building the gold standard.

    Parameters
    ----------
    name : str
    kind : {'lut', 'histogram', 'random', 'annotators'}
        See the module notes.
    build : callable, optional
        ``lut``: ``build(k) -> bool (2**k,)``; ``histogram``: ``build(hist, max_iter=...)``
        returning an object with ``lut``, ``iterations``, ``converged``, ``rule``.
    label : str, optional
        Name in figures and reports (default: ``name``).
    style : dict
        Matplotlib line style (``color``, ``linestyle``, ``linewidth``).
    default : bool
        Part of the default strategy list of every study.
    how : {'mean', 'max'}, optional
        ``annotators`` kind: the reduction over annotators.
    index : int, optional
        ``random`` kind: ``N`` of ``randN``.
    """

    name: str
    kind: str
    build: Callable | None = None
    label: str | None = None
    style: dict = field(default_factory=dict)
    default: bool = True
    description: str = ""
    how: str | None = None
    index: int | None = None

    def __post_init__(self) -> None:
        """Check the entry: a known kind, a builder where the kind needs one."""
        if self.kind not in KINDS:
            raise ValueError(f"strategy {self.name!r}: kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        if self.kind in ("lut", "histogram") and self.build is None:
            raise ValueError(f"strategy {self.name!r}: a {self.kind} strategy needs build")
        if self.kind == "annotators" and self.how not in ("mean", "max"):
            raise ValueError(f"strategy {self.name!r}: an annotators strategy needs how='mean' or 'max'")
        if self.label is None:
            object.__setattr__(self, "label", self.name)

    @property
    def macro_only(self) -> bool:
        """Scored per image over annotators, so it has no micro average."""
        return self.kind == "annotators"

    @property
    def in_pixel_pass(self) -> bool:
        """Its gold masks are built in the pixel pass (look-up table or pattern-count fit)."""
        return self.kind in ("lut", "histogram")

    def fit(self, k: int, hist: ArrayLike | None, *, max_iter: int | None = None) -> tuple[Any, Any]:
        """The gold of one image from its annotator count and pattern histogram.

        Parameters
        ----------
        k : int
            Annotators present.
        hist : array_like of int (2**k,) or None
            Pixels per rater pattern (histogram strategies; a LUT strategy ignores it).
        max_iter : int, optional
            Caps an iterative fit (None: its own default).

        Returns
        -------
        (lut, fit)
            ``lut``: bool (2**k,), the foreground patterns; ``fit``: the histogram strategy's result (its
            diagnostics), None for a LUT strategy.
        """
        import numpy as np

        if self.build is None:
            raise ValueError(f"strategy {self.name!r} ({self.kind}) has no pixel-level gold")
        if self.kind == "lut":
            lut = np.asarray(self.build(k), dtype=bool)
            if lut.shape != (1 << k,):
                raise ValueError(f"strategy {self.name!r}: build({k}) must give {1 << k} booleans, got {lut.shape}")
            return lut, None
        if self.kind == "histogram":
            result = self.build(hist) if max_iter is None else self.build(hist, max_iter=max_iter)
            return np.asarray(result.lut, dtype=bool), result
        raise ValueError(f"strategy {self.name!r} ({self.kind}) has no pixel-level gold")

    def identity(self, ks: Iterable[int]) -> str:
        """What the cached counts of this strategy depend on: its LUTs for ``ks`` annotators, or its fit.

        Parameters
        ----------
        ks : iterable of int
            The numbers of annotators per image in the challenge.

        Returns
        -------
        str
            A short hash.
        """
        import numpy as np

        h = hashlib.sha256(f"{self.name}|{self.kind}".encode())
        if self.kind == "lut":
            for k in sorted(set(int(k) for k in ks)):
                h.update(np.packbits(self.fit(k, None)[0]).tobytes())
        elif self.kind == "histogram":
            h.update(f"{self.build.__module__}.{getattr(self.build, '__qualname__', self.build)}".encode())
        return h.hexdigest()[:16]


#: The registry: every gold strategy, in the order studies report them.
STRATEGIES: dict[str, GoldStrategy] = {}

_RANDOM = re.compile(r"^rand([1-9][0-9]*)$")
# Okabe & Ito (2008) palette, one colour per gold (majority blue; STAPLE black and dashed, so that it does not hide
# majority where they overlap); the random single-annotator golds share greys with dash patterns.
_RANDOM_STYLES: dict[int, dict[str, object]] = {
    1: dict(color="#999999", linestyle=(0, (1, 1))),
    2: dict(color="#777777", linestyle=(0, (4, 2))),
    3: dict(color="#555555", linestyle=(0, (6, 2, 1, 2))),
}


def register_strategy(strategy: GoldStrategy) -> GoldStrategy:
    """Add (or replace) a gold strategy in :data:`STRATEGIES`.

    Parameters
    ----------
    strategy : GoldStrategy

    Returns
    -------
    GoldStrategy
        ``strategy``, registered: every study, table, figure and report then knows it.
    """
    if not isinstance(strategy, GoldStrategy):
        raise TypeError(f"expected a GoldStrategy, got {type(strategy).__name__}")
    if strategy.kind != "random" and _RANDOM.match(strategy.name):
        raise ValueError(f"the name {strategy.name!r} is reserved for random single-annotator golds")
    STRATEGIES[strategy.name] = strategy
    return strategy


def register(strategy: GoldStrategy) -> GoldStrategy:
    """The earlier name of :func:`register_strategy` (every registry is ``register_<kind>``): deprecated.

    Parameters
    ----------
    strategy : GoldStrategy

    Returns
    -------
    GoldStrategy
    """
    warnings.warn("robustness.overlap.gold.register is deprecated: use register_strategy", DeprecationWarning,
                  stacklevel=2)
    return register_strategy(strategy)


def _random(n: int, default: bool = False) -> GoldStrategy:
    style: dict = dict(_RANDOM_STYLES.get(n, dict(color="#888888", linestyle=(0, (2, 2)))))
    return GoldStrategy(f"rand{n}", "random", style=style, default=default, index=n,
                        description=f"one annotator per image, drawn at random (draw {n})")


for _n in (1, 2, 3):
    register_strategy(_random(_n, default=True))
register_strategy(GoldStrategy("majority", "lut", build=majority_lut, style=dict(color="#0072B2", linestyle="-"),
                               description="at least ceil(k/2) of the k annotators present (official)"))
register_strategy(GoldStrategy("intersection", "lut", build=intersection_lut,
                               style=dict(color="#E69F00", linestyle="-"), description="all annotators present"))
register_strategy(GoldStrategy("union", "lut", build=union_lut, style=dict(color="#009E73", linestyle="-"),
                               description="any annotator present"))


def _staple(hist, **options):
    from robustness.overlap.staple import staple

    return staple(hist, **options)


register_strategy(GoldStrategy("staple", "histogram", build=_staple, label="STAPLE",
                               style=dict(color="#000000", linestyle=(0, (4, 2)), linewidth=1.4),
                               description="STAPLE (Warfield et al. 2004) as SimpleITK, posterior > 0.5"))
register_strategy(GoldStrategy("mean", "annotators", how="mean", label="mean over annotators",
                               style=dict(color="#CC79A7", linestyle="-"),
                               description="per image, the mean over annotators of the run's score (macro only)"))
register_strategy(GoldStrategy("max", "annotators", how="max", label="max over annotators",
                               style=dict(color="#56B4E9", linestyle=(0, (5, 1, 1, 1))),
                               description="per image, the max over annotators of the run's score (macro only)"))


def get_strategy(name: str | GoldStrategy) -> GoldStrategy:
    """The registry entry of ``name``; ``randN`` for any ``N`` (a GoldStrategy passes through).

    Parameters
    ----------
    name : str or GoldStrategy

    Returns
    -------
    GoldStrategy
    """
    if isinstance(name, GoldStrategy):
        return name
    if name in STRATEGIES:
        return STRATEGIES[name]
    m = _RANDOM.match(str(name))
    if m:
        return _random(int(m[1]))
    choices = ["rand1..randN"] + [s for s, g in STRATEGIES.items() if g.kind != "random"]
    raise ValueError(f"unknown gold strategy {name!r}; choose from {', '.join(choices)}")


def is_random(name: str) -> bool:
    """A random single-annotator gold (``randN``): a draw, not a choice an organiser can adopt.

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    return bool(_RANDOM.match(str(name))) or (name in STRATEGIES and STRATEGIES[name].kind == "random")


def resolve(names: Iterable[str | GoldStrategy] | None = None, *, macro_only: str = "default") -> list[GoldStrategy]:
    """Validated strategies, in the order given (default: the registry's default ones).

    Parameters
    ----------
    names : iterable of str, optional
        ``randN`` names must be ``rand1..randN`` without gaps; no duplicates.
    macro_only : {'default', 'keep', 'drop'}
        ``default`` adds the default macro-only strategies (``mean``, ``max``) when ``names`` lists none;
        ``keep`` takes ``names`` as they are; ``drop`` removes them (the strategies that have counts).

    Returns
    -------
    list of GoldStrategy
    """
    if names is None:
        out = [s for s in STRATEGIES.values() if s.default]
    else:
        out = _given(list(names))
        if macro_only == "default" and not any(s.macro_only for s in out):
            out += [s for s in STRATEGIES.values() if s.default and s.macro_only]
    if macro_only == "drop":
        out = [s for s in out if not s.macro_only]
    return out


def _given(names: list) -> list[GoldStrategy]:
    """The strategies named, checked: at least one, none twice, ``rand1..randN`` without gaps."""
    if not names:
        raise ValueError("no gold strategy given")
    out = [get_strategy(n) for n in names]
    seen = [s.name for s in out]
    dup = next((n for n in seen if seen.count(n) > 1), None)
    if dup is not None:
        raise ValueError(f"gold strategy {dup!r} is given twice")
    rand = sorted(s.index for s in out if s.kind == "random" and s.index is not None)
    if rand != list(range(1, len(rand) + 1)):
        raise ValueError("random strategies must be rand1..randN without gaps, got "
                         + ", ".join(f"rand{i}" for i in rand))
    return out


def annotator_strategies(names: Iterable[str] | None = None) -> list[GoldStrategy]:
    """The macro-only strategies over annotators among ``names``.

    Parameters
    ----------
    names : iterable of str, optional
        Default: the registry's default ones.

    Returns
    -------
    list of GoldStrategy
    """
    chosen = resolve(None) if names is None else [get_strategy(n) for n in names]
    return [s for s in chosen if s.macro_only]


def official_strategy(names: Iterable[str | GoldStrategy]) -> str:
    """The gold a study reports as its leaderboard.

    Parameters
    ----------
    names : iterable of str or GoldStrategy
        The study's strategies.

    Returns
    -------
    str
        ``majority`` (the official gold) if present, else the first strategy that has a micro average.
    """
    given = [n.name if isinstance(n, GoldStrategy) else n for n in names]
    if "majority" in given:
        return "majority"
    micro = [n for n in given if n not in STRATEGIES or not STRATEGIES[n].macro_only]
    return (micro or given)[0]


def __getattr__(name):  # STAPLE itself lives in robustness.overlap.staple (numpy), loaded on first use
    if name in ("staple", "StapleResult"):
        from robustness.overlap import staple as module

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
