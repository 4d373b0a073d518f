"""The verdicts table's rows, typed: one frozen :class:`Verdict` per claim, collected by :class:`Verdicts`.

A study states each finding as a row (what is claimed, about which scheme and runs, with its number, interval and
the table behind it); the report reads them back by claim (:meth:`robustness.results.study_result.StudyResult.verdict`)
and phrases them. The claim is a :data:`~robustness.results.claims.ClaimName`, which mypy checks where it is written.
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple, dataclass, fields
from typing import TYPE_CHECKING, Any

from robustness._lazy import lazy_module
from robustness.results.claims import ClaimName, known_claim

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["VERDICT_COLUMNS", "Verdict", "Verdicts"]


@dataclass(frozen=True)
class Verdict:
    """One row of the verdicts table: a finding, with its number, its uncertainty and the table behind it.

    Attributes
    ----------
    claim : ClaimName
        What is claimed (:data:`~robustness.results.claims.CLAIMS`; checked when the row is made).
    ranking, strategy, metric, average : str
        The scheme (and ranking method) it is about.
    statement : str
        The outcome (e.g. ``fastest``, ``tied``).
    subject : tuple of str
        The runs, strategies or ranking methods it names (a leader first, then what is tied with it).
    value, se, low, high, level : float
        The number, its standard error, its interval and the interval's confidence.
    count, total : int or None
        How many of how many (pairs that differ, images...).
    table : str
        The file that backs the claim.
    """

    claim: ClaimName
    ranking: str = "aggregate"
    strategy: str = ""
    metric: str = ""
    average: str = ""
    statement: str = ""
    subject: tuple[str, ...] = ()
    value: float = math.nan
    se: float = math.nan
    low: float = math.nan
    high: float = math.nan
    level: float = math.nan
    count: int | None = None
    total: int | None = None
    table: str = ""

    def __post_init__(self) -> None:
        """Check the claim and the table, and hold the subject and the numbers as the table writes them."""
        known_claim(self.claim)
        object.__setattr__(self, "subject", tuple(str(s) for s in self.subject))
        for name in ("value", "se", "low", "high", "level"):
            object.__setattr__(self, name, float(getattr(self, name)))
        if not self.table:
            raise ValueError(f"verdict {self.claim!r}: name the table that backs it")

    def record(self) -> tuple:
        """The row as the table writes it (``subject`` as a JSON list), in :data:`VERDICT_COLUMNS`' order.

        Returns
        -------
        tuple
        """
        return tuple(json.dumps(list(self.subject)) if f.name == "subject" else v
                     for f, v in zip(fields(self), astuple(self)))


#: The columns of the verdicts table: :class:`Verdict`'s fields. ``subject``: the runs, strategies or ranking
#: methods a claim is about, as a JSON list (a leader first, then what is tied with it); ``statement``: the outcome
#: (e.g. ``fastest``, ``tied``); ``value``, ``se``, ``low``, ``high``: the number and its uncertainty (``level``:
#: the confidence of the interval); ``count`` of ``total``: how many (pairs that differ, images...); ``table``: the
#: file that backs the claim.
VERDICT_COLUMNS = tuple(f.name for f in fields(Verdict))


class Verdicts:
    """Rows of the verdicts table, added one claim at a time (:class:`Verdict`).

    Examples
    --------
    >>> v = Verdicts()
    >>> v.add("pairs_differ", strategy="majority", metric="jaccard", average="micro", count=3, total=6,
    ...       table="pairwise.parquet")
    >>> row = v.frame().iloc[0]
    >>> row.claim, int(row["count"]), int(row.total), row.table
    ('pairs_differ', 3, 6, 'pairwise.parquet')
    """

    def __init__(self) -> None:
        self.rows: list[Verdict] = []

    def add(self, claim: ClaimName, *, table: str, subject: Iterable[str] = (), **scheme_and_numbers: Any) -> None:
        """Add one claim.

        Parameters
        ----------
        claim : ClaimName
            What is claimed (e.g. ``pairs_differ``).
        table : str
            The file that backs it.
        subject : iterable of str
            The runs, strategies or methods it names (a leader first).
        **scheme_and_numbers
            :class:`Verdict`'s other fields: ``ranking``, ``strategy``, ``metric``, ``average``, ``statement``,
            ``value``, ``se``, ``low``, ``high``, ``level``, ``count``, ``total``.
        """
        self.rows.append(Verdict(claim, table=table, subject=tuple(subject), **scheme_and_numbers))

    def frame(self) -> pd.DataFrame:
        """The verdicts table.

        Returns
        -------
        pandas.DataFrame
            :data:`VERDICT_COLUMNS` (``count`` and ``total`` as nullable integers).
        """
        frame = pd.DataFrame([v.record() for v in self.rows], columns=list(VERDICT_COLUMNS))
        for column in ("count", "total"):
            frame[column] = frame[column].astype("Int64")
        return frame
