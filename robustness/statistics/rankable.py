"""The one interface the resampling engines rank: :class:`Rankable`.

Aggregate scores and per-case ranks (:class:`~robustness.statistics.schemes.Schemes`),
paired tests (:class:`~robustness.statistics.test_based.PairedTests`) and any
per-case statistic (:class:`~robustness.statistics.case_statistic.CaseStatistic`)
implement it, so :func:`~robustness.statistics.convergence.rank_convergence`,
:func:`~robustness.statistics.bootstrap.bootstrap` and the comparisons run every
ranking method unchanged. This module imports nothing, so every other can
subclass it.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Rankable"]


@runtime_checkable
class Rankable(Protocol):
    """What the resampling engines rank: the runs' statistic under every scheme, on any set of units.

    :func:`~robustness.statistics.convergence.rank_convergence`,
    :func:`~robustness.statistics.bootstrap.bootstrap` and the comparisons read
    these members only. :class:`~robustness.statistics.schemes.Schemes` (additive
    statistics: aggregate-then-rank, per-case ranks),
    :class:`~robustness.statistics.test_based.PairedTests` (paired tests) and
    :class:`~robustness.statistics.case_statistic.CaseStatistic` (any per-case
    statistic) follow it.

    Attributes
    ----------
    names : list of (strategy, metric, average)
        The schemes, in the order of the first axis of every array below.
    runs : tuple of str
    units : tuple of str
        The resampling units (images, encounters, cases).
    unit : str
        What a unit is, for reports.
    unit_images : ndarray of int (U,)
        Images in each unit.
    n_units : int
    ranking : str
        The name of the ranking method whose statistic this is.
    """

    @property
    def ranking(self) -> str:
        """The name of the ranking method whose statistic this is."""

    @property
    def names(self) -> list:
        """The schemes, (strategy, metric, average) each."""

    @property
    def runs(self) -> tuple:
        """The runs."""

    @property
    def units(self) -> tuple:
        """The resampling units."""

    @property
    def unit(self) -> str:
        """What a unit is."""

    @property
    def unit_images(self) -> Any:
        """Images in each unit."""

    @property
    def n_units(self) -> int:
        """The number of resampling units."""

    @property
    def sign_of(self) -> Any:
        """Every scheme's sign (S,): -1 where the scores are stored negated (a metric where smaller is better).

        Returns
        -------
        ndarray (S,)
        """

    def index(self, strategy: str, metric: str, average: str) -> int:
        """The position of a scheme in :attr:`names`.

        Parameters
        ----------
        strategy, metric, average : str

        Returns
        -------
        int
        """

    def scores(self) -> Any:
        """The statistic of every run on the whole test set, higher is better.

        Returns
        -------
        ndarray (S, R)
        """

    def l1_curves(self, orders: Any, positions: Any, final_ranks: Any, tol: float, ties: int) -> Any:
        """L1 rank change to ``final_ranks`` after the recorded prefixes of every order.

        Parameters
        ----------
        orders : ndarray of int64 (K, U)
            Random orders of the units.
        positions : ndarray of int64 (P,)
            Prefix lengths to record.
        final_ranks : ndarray (S, R)
            The ranking on the whole test set.
        tol : float
            Statistics this close tie.
        ties : int
            The tie rule's code (:func:`robustness.statistics.ranks.ties_code`).

        Returns
        -------
        ndarray of float32 (S, K, P)
        """

    def unit_scores(self) -> Any:
        """Every run's score on every unit alone, for the significance analysis's paired tests.

        Returns
        -------
        ndarray (S, R, U)
        """

    def resample_scores(self, idx: Any) -> Any:
        """The statistic on resamples of units drawn with replacement.

        Parameters
        ----------
        idx : ndarray of int (B, U)
            The units of every resample.

        Returns
        -------
        ndarray (S, B, R)
        """

    def jackknife(self) -> Any:
        """Leave-one-unit-out statistics, for BCa intervals.

        Returns
        -------
        ndarray (S, R, U)
        """
