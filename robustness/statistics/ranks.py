"""Rankings from scores, and distances between rankings.

Tie rule
--------
Rank 1 is the best (highest) score. Scores that differ by at most ``tol``
(default 1e-12) from their neighbour in sorted order are tied: a macro score
summed in another order can differ in its last bits, and that is not a
difference between runs. Ties get the average of the ranks they span
(``ties="average"``, default), the smallest (``"min"``, as in competition
rankings "1, 2, 2, 4"), the largest (``"max"``), consecutive ranks in the
runs' order (``"first"``), in the reverse order (``"last"``) or in a random
order (``"random"``, drawn from ``rng``). These are R's ``rank(ties.method=)`` rules, which challengeR uses.
A nan score ranks last; nan scores tie among themselves under ``average``,
``min``, ``max`` and ``random`` (all at the rank after the scored runs under
``random``, as challengeR's ``rankNA2``) and follow the runs' order under
``first`` and ``last`` (R's ``rank`` puts them last in the order they appear).

Distances
---------
- ``l1``: sum over runs of ``|rank_a - rank_b|``, the paper's measure of rank
  change. On permutations this is Spearman's footrule.
- ``footrule``: the same, optionally normalised by its maximum ``floor(n^2/2)``.
- ``kendall_tau``: Kendall's tau-b (scipy), 1 for identical rankings.
- ``n_changed``: the number of runs whose rank differs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.errors import InputError, parameter

if TYPE_CHECKING:
    from scipy import stats
else:
    stats = lazy_module("scipy.stats")

__all__ = ["rank", "l1", "random_l1", "footrule", "kendall_tau", "n_changed", "ties_code", "TIE_TOL", "TIES",
           "TIE_RULES", "size_target", "target_rule", "format_target", "target_text", "target_record", "same_target",
           "max_l1", "check_target", "TARGET_SHARE"]

TIE_TOL = 1e-12
TIES = {"average": 0, "min": 1, "max": 2, "first": 3, "last": 4}
#: Every tie rule :func:`rank` knows (``random`` is ``first`` on a random order of the runs).
TIE_RULES = (*TIES, "random")


def ties_code(ties: str) -> int:
    """The kernels' integer code of a tie rule.

    Parameters
    ----------
    ties : {'average', 'min', 'max', 'first', 'last'}

    Returns
    -------
    int
        0 for ``average``, 1 for ``min``, 2 for ``max``, 3 for ``first``, 4 for ``last``.
    """
    try:
        return TIES[ties]
    except KeyError:
        hint = (" (random ties are broken by random draws: the engines that record curves need a deterministic "
                "rule)") if ties == "random" else ""
        raise ValueError(f"ties must be one of {tuple(TIES)}, got {ties!r}{hint}") from None


def rank(scores: ArrayLike, *, ties: str = "average", tol: float = TIE_TOL, lower_better: bool = False,
         rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Ranks along the last axis (1 = best; higher scores are better unless ``lower_better``).

    Parameters
    ----------
    scores : array_like
        Scores along the last axis (nan ranks last).
    ties : {'average', 'min', 'max', 'first', 'last', 'random'}
        The tie rule (module notes).
    tol : float
        Scores within ``tol`` of their neighbour in sorted order are tied.
    lower_better : bool
        Rank the lowest score first.
    rng : numpy.random.Generator or int, optional
        For ``ties="random"``: a fresh random order of the runs for every ranking along the leading axes.

    Returns
    -------
    ndarray of float
        The ranks, shaped like ``scores``.

    Examples
    --------
    >>> rank([0.9, 0.5, 0.9, 0.1])
    array([1.5, 3. , 1.5, 4. ])
    >>> rank([0.9, 0.5, 0.9, 0.1], ties="min")
    array([1., 3., 1., 4.])
    >>> rank([0.2, np.nan, 0.3])
    array([2., 3., 1.])
    >>> rank([0.9, 0.5, 0.9, 0.1], ties="max", lower_better=True)
    array([4., 2., 4., 1.])
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    if tol < 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 0:
        raise ValueError("scores must have at least one axis")
    flat = np.ascontiguousarray(s.reshape(-1, s.shape[-1]))
    if lower_better:
        flat = -flat
    if ties != "random":
        return _kernels.rank_rows(flat, float(tol), TIES[ties]).reshape(s.shape)
    gen = np.random.default_rng(rng)
    perm = np.argsort(gen.random(flat.shape), axis=1)  # a random order of the runs, per ranking
    rows = np.arange(flat.shape[0])[:, None]
    ranked = np.empty_like(flat)
    ranked[rows, perm] = _kernels.rank_rows(np.ascontiguousarray(flat[rows, perm]), float(tol), TIES["first"])
    missing = np.isnan(flat)
    ranked[missing] = np.broadcast_to((~missing).sum(axis=1, keepdims=True) + 1.0, flat.shape)[missing]
    return ranked.reshape(s.shape)


def l1(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Sum of absolute rank differences along the last axis (the paper's L1 rank change).

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.

    Returns
    -------
    ndarray
        One distance per ranking pair (the leading axes).
    """
    return np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)).sum(axis=-1)


def random_l1(n: int) -> float:
    """The expected :func:`l1` between a fixed ranking of ``n`` runs and a uniformly random one: ``(n^2 - 1) / 3``.

    Each run's place differs from a random place by ``sum_j |i - j| / n`` on average; summed over ``i`` that is
    ``(n^2 - 1) / 3`` (Diaconis & Graham 1977, the mean of Spearman's footrule under independence). A distance
    means the same with 4 runs and with 40 only beside this baseline: an L1 of 4 is 80% of it with 4 runs.

    Parameters
    ----------
    n : int
        Number of runs (untied).

    Returns
    -------
    float

    Examples
    --------
    >>> random_l1(4), random_l1(40)
    (5.0, 533.0)
    """
    return (n * n - 1) / 3


#: The default size target's cap as a share of a random ranking's expected L1 (:func:`size_target`).
TARGET_SHARE = 0.1


def size_target(n: int, target: float | None = None) -> float:
    """The target expected L1 of the size answers: one place per run, at most a tenth of a random order's distance.

    One place per run (L1 = ``n``) is the convention of rank-convergence studies such as MEDIQA-MAGIC 2025's; with
    few runs it is most of what a random ranking scores (80% with 4 runs), so the default is the stricter of it
    and :data:`TARGET_SHARE` of :func:`random_l1`. The two meet at about 30 runs: with 31 runs or more the target
    is one place per run, with fewer it is the share (1.17 with 6 runs, 0.5 with 4).

    Parameters
    ----------
    n : int
        Number of runs.
    target : float, optional
        A target the user set (``--target``): returned as it is.

    Returns
    -------
    float

    Examples
    --------
    >>> size_target(40), size_target(6), size_target(4), size_target(6, 3.0)
    (40.0, 1.1666666666666667, 0.5, 3.0)
    """
    if target is not None:
        return float(target)
    return min(float(n), TARGET_SHARE * random_l1(n))


def target_rule(target: float, n: int) -> str:
    """Which rule a size target follows, in prose: ``one place per run``, ``a tenth of a random order's distance``.

    Parameters
    ----------
    target : float
        The target expected L1 (:func:`size_target`).
    n : int
        Number of runs.

    Returns
    -------
    str

    Examples
    --------
    >>> target_rule(40.0, 40), target_rule(size_target(6), 6), target_rule(3.0, 6)
    ('one place per run', "a tenth of a random order's distance", 'set by the organiser')
    """
    if same_target(target, float(n)):
        return "one place per run"
    if same_target(target, TARGET_SHARE * random_l1(n)):
        return "a tenth of a random order's distance"
    return "set by the organiser"


def same_target(a: float, b: float) -> bool:
    """Whether two size targets are one (equal but for rounding: a target read back from a table or a verdict).

    Parameters
    ----------
    a, b : float

    Returns
    -------
    bool

    Examples
    --------
    >>> same_target(size_target(6), float(f"{size_target(6):g}")), same_target(1.17, 1.1667)
    (True, False)
    """
    return abs(float(a) - float(b)) <= 1e-5 * max(1.0, abs(float(b)))


def format_target(target: float) -> str:
    """A target L1 as the reports print it: whole numbers as they are, others to two decimals (or three digits).

    Parameters
    ----------
    target : float

    Returns
    -------
    str

    Examples
    --------
    >>> format_target(40.0), format_target(size_target(6)), format_target(0.5), format_target(0.004)
    ('40', '1.17', '0.50', '0.004')
    """
    t = float(target)
    if t != 0 and not 0.01 <= abs(t) < 1e6:
        return f"{t:.3g}"
    return f"{t:.0f}" if t.is_integer() else f"{t:.2f}"


def target_text(target: float, n: int) -> str:
    """A size target and its rule, as the reports print them: ``1.17 (a tenth of a random order's distance)``.

    Parameters
    ----------
    target : float
    n : int
        Number of runs.

    Returns
    -------
    str

    Examples
    --------
    >>> target_text(40.0, 40)
    '40 (one place per run)'
    """
    return f"{format_target(target)} ({target_rule(target, n)})"


def target_record(n: int, target: float | None = None) -> dict:
    """The size target as meta.json records it: ``l1``, ``rule`` (in prose) and ``set_by``.

    Parameters
    ----------
    n : int
        Number of runs.
    target : float, optional
        ``--target`` (None: the default, :func:`size_target`).

    Returns
    -------
    dict

    Examples
    --------
    >>> target_record(40)
    {'l1': 40.0, 'rule': 'one place per run', 'set_by': 'default'}
    """
    t = size_target(n, target)
    return {"l1": t, "rule": target_rule(t, n), "set_by": "default" if target is None else "organiser"}


def max_l1(n: int) -> int:
    """The largest L1 between two rankings of ``n`` runs: ``floor(n^2 / 2)`` (one order against its reverse).

    Parameters
    ----------
    n : int

    Returns
    -------
    int

    Examples
    --------
    >>> max_l1(4), max_l1(5)
    (8, 12)
    """
    return n * n // 2


def check_target(target: float | None, n: int) -> None:
    """Refuse a size target no ranking can need: 0 or less (never certified) or above :func:`max_l1`.

    Parameters
    ----------
    target : float or None
        ``--target`` (None: the default, always valid).
    n : int
        Number of runs.

    Raises
    ------
    robustness.errors.InputError
        One line naming the target (``options.target``) and the range (a ``ValueError``; the commands print it as
        ``error: ...``, naming ``--target``).
    """
    if target is None:
        return
    if not 0 < float(target) <= max_l1(n):
        raise InputError(f"{parameter('options', 'target')} {float(target):g}: the target expected L1 must be above 0 "
                         "(an expected L1 of "
                         f"exactly 0 is never certified) and at most {max_l1(n)}, the largest L1 between two "
                         f"rankings of {n} runs")


def footrule(a: ArrayLike, b: ArrayLike, *, normalized: bool = False) -> np.ndarray:
    """Spearman's footrule (= :func:`l1` of rank vectors), optionally normalised to [0, 1].

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.
    normalized : bool
        Divide by the largest possible value, ``floor(n^2 / 2)``.

    Returns
    -------
    ndarray
    """
    d = l1(a, b)
    if normalized:
        n = np.shape(a)[-1]
        d = d / max(n * n // 2, 1)
    return d


def n_changed(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Number of runs whose rank differs.

    Parameters
    ----------
    a, b : array_like
        Rankings along the last axis.

    Returns
    -------
    ndarray of int
    """
    return (np.asarray(a) != np.asarray(b)).sum(axis=-1)


def kendall_tau(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Kendall's tau-b between rankings (or scores) along the last axis (``scipy.stats.kendalltau``).

    Parameters
    ----------
    a, b : array_like
        Rankings or scores along the last axis, broadcast against each other.

    Returns
    -------
    ndarray
        tau-b per pair of rankings (1 for identical rankings, nan where a ranking ties every run).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape[:-1])
    for idx in np.ndindex(out.shape):
        out[idx] = stats.kendalltau(a[idx], b[idx]).statistic
    return out
