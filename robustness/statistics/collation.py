"""The order of names where challengeR sorts them: code points, or R's order in a UTF-8 locale.

R sorts character vectors (``sort``, ``order``, the levels of ``factor``) by the locale's collation
(``LC_COLLATE``). In the C locale that is the strings' code points (``Beta`` before ``alpha``: upper case
first). R built with ICU (``capabilities("ICU")``, as Debian's R is) collates in a UTF-8 locale such as
en_US.UTF-8 with ICU's root collation, which is the Unicode collation algorithm on the default table (Unicode
Technical Standard #10, its DUCET): letters compare first without their case and accents, lower case before upper
case only where nothing else differs (``alpha`` < ``Alpha`` < ``Beta`` < ``beta2``), punctuation and spaces before
digits before letters. challengeR sorts names in three places: the algorithm factor's levels (its aggregated table's
rows, which ties ``first`` and ``last`` follow), ``tidyr::complete`` filling a task's absent rows (the task's rows
then follow the algorithms' and the cases' order) and ``merge`` in its bootstrap (each resample's rows in the
cases' order).

``locale`` uses ``pyuca`` (a Python implementation of the algorithm with the Unicode Consortium's table); checked
against R 4.2.2's ``sort`` under en_US.UTF-8 on 416 random names of letters in both cases, digits, accents,
spaces and punctuation: the same order (40 of them in ``tests/statistics/test_challenger_ties.py``). Locales with
their own rules (Swedish, Lithuanian, ...) sort some letters elsewhere; those are not reproduced.

Case names made only of numbers are ordered as numbers, as R reads such a column (a number column, sorted by value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import pyuca

from robustness.statistics.ranking_options import COLLATIONS

__all__ = ["collation_key", "collated_order", "case_order"]


@lru_cache(maxsize=1)
def _collator() -> pyuca.Collator:
    return pyuca.Collator()  # reads the Unicode table once (0.1-0.3 s)


def collation_key(name: str, collation: str = "C") -> tuple:
    """The key that orders ``name`` among others under ``collation``.

    Parameters
    ----------
    name : str
    collation : {'C', 'locale'}

    Returns
    -------
    tuple
        Keys of the same collation compare as R compares the names (equal keys: R's order of appearance).

    Examples
    --------
    >>> sorted(["Beta", "alpha"], key=lambda n: collation_key(n, "C"))
    ['Beta', 'alpha']
    >>> sorted(["Beta", "alpha", "Alpha", "beta"], key=lambda n: collation_key(n, "locale"))
    ['alpha', 'Alpha', 'beta', 'Beta']
    """
    if collation not in COLLATIONS:
        raise ValueError(f"collation must be one of {', '.join(COLLATIONS)}, got {collation!r}")
    text = str(name)
    if collation == "C":
        return (text,)
    return (_collator().sort_key(text), text)


def collated_order(names: Sequence[str], collation: str = "C") -> list[int]:
    """The positions of ``names`` in R's sorted order (stable: equal names keep their order).

    Parameters
    ----------
    names : sequence of str
    collation : {'C', 'locale'}

    Returns
    -------
    list of int
        ``[names[i] for i in order]`` is R's ``sort(names)``.

    Examples
    --------
    >>> collated_order(["Beta", "alpha", "a b"], "locale"), collated_order(["Beta", "alpha", "a b"], "C")
    ([2, 1, 0], [0, 2, 1])
    """
    keys = [collation_key(n, collation) for n in names]
    return sorted(range(len(names)), key=keys.__getitem__)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def case_order(cases: Sequence[str], collation: str = "C") -> list[int]:
    """The order R puts a table's case names in: as numbers when every name is one, else as text.

    Parameters
    ----------
    cases : sequence of str
    collation : {'C', 'locale'}

    Returns
    -------
    list of int

    Examples
    --------
    >>> case_order(["10", "9", "1"]), case_order(["c10", "c9", "c1"])
    ([2, 1, 0], [2, 0, 1])
    """
    numbers = [_number(str(c)) for c in cases]
    if cases and all(v is not None for v in numbers):
        values = [float(v or 0.0) for v in numbers]
        return sorted(range(len(cases)), key=values.__getitem__)
    return collated_order(cases, collation)
