"""A study's ``meta.json``, read once into a typed, checked object: the design, main-job, table and QA studies'.

Reports and commands that read a study's metadata read the fields below through :meth:`DesignMeta.of`,
:meth:`MainJobMeta.of`, :meth:`TableMeta.of` and :meth:`QAMeta.of`, which check each one's type and say which field
of which folder is damaged (one line, :class:`~robustness.errors.InputError`), instead of indexing nested dicts
where they are used. A field a folder of an earlier version lacks takes the default its readers used before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

from robustness.errors import InputError

if TYPE_CHECKING:
    from robustness.results.study_result import StudyResult

__all__ = ["DesignMeta", "MainJobMeta", "TableMeta", "QAMeta"]

_NOTHING = object()
_KINDS = {str: "text", int: "an integer", float: "a number", dict: "an object", list: "a list",
          bool: "true or false", type(None): "null"}


def _reader(res: StudyResult, study: str) -> tuple[str, Callable[..., Any]]:  # study: "design study", "main job"
    """Where the results are (for messages), and their field reader.

    ``read(path, kinds, default)`` gives the field of ``res.meta`` at the dotted ``path``, of one of ``kinds``, or
    ``default`` where it is missing; anything else is one line naming the folder and the field.
    """
    meta = res.meta
    where = str(res.folder) if res.folder is not None else f"the {study}"

    def read(path: str, kinds: tuple[type, ...], default: Any = _NOTHING) -> Any:
        value: Any = meta
        for part in path.split("."):
            value = value.get(part, _NOTHING) if isinstance(value, Mapping) else _NOTHING
        if value is _NOTHING and default is not _NOTHING:
            return default
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
            shown = "missing" if value is _NOTHING else f"{value!r}"
            raise InputError(f"{where}: damaged {study.replace(' ', '-')} folder (meta.json's {path} is {shown}, not "
                             f"{' or '.join(_KINDS[k] for k in kinds)}); run the {study} again")
        return value

    return where, read


class _StudyMeta:
    """A study's metadata, read from ``meta.json`` once (:meth:`of`); each study's class names its fields."""

    STUDY: ClassVar[str] = "study"

    @classmethod
    def of(cls, res: StudyResult) -> Self:
        """Read and check the fields of ``res.meta``.

        Parameters
        ----------
        res : StudyResult
            The study's results (loaded from a folder or just computed).

        Returns
        -------
        DesignMeta, MainJobMeta, TableMeta or QAMeta
            This class's fields of ``res``.

        Raises
        ------
        InputError
            A field is missing or of the wrong type: one line naming the folder and the field.
        """
        where, read = _reader(res, cls.STUDY)
        return cls._read(res, where, read)

    @classmethod
    def _read(cls, res: StudyResult, where: str, read: Callable[..., Any]) -> Self:
        raise NotImplementedError


@dataclass(frozen=True)
class DesignMeta(_StudyMeta):
    """The fields of a design study's ``meta.json`` that other readers use.

    Attributes
    ----------
    where : str
        The folder (or ``"the design study"`` for results not yet written), for messages.
    study : str
        The study's name (``design_study`` for a design study; the results' own).
    base : mapping
        The twin's or the generator's parameters (``input.base``): the unit's name, the world, the depth...
    runs : int
        The runs of the base setting (``base_setting.runs``): the size target depends on it.
    target_l1 : float or None
        The target expected L1 the study was given (``options.target_l1``; None: the default target).
    quick : bool
        Whether it ran ``--quick`` (``options.quick``).
    like : str or None
        The challenge folder its twin was made of (``input.like``; None or ``"synthetic"``: the generator), as
        the command recorded it.
    challenge : str or None
        The fingerprint of the challenge it read (``input.challenge``; None when written by the library alone or
        before ``--design`` existed).
    """

    where: str
    study: str
    base: Mapping[str, Any]
    runs: int
    target_l1: float | None
    quick: bool
    like: str | None
    challenge: str | None

    STUDY: ClassVar[str] = "design study"

    @classmethod
    def _read(cls, res: StudyResult, where: str, read: Callable[..., Any]) -> DesignMeta:
        target = read("options.target_l1", (int, float, type(None)), None)
        runs = read("base_setting.runs", (int,))
        if runs < 1 or target is not None and not (math.isfinite(target) and target > 0):
            raise InputError(f"{where}: damaged design-study folder (meta.json's base_setting.runs {runs!r} or "
                             f"options.target_l1 {target!r} out of range); run the design study again")
        return cls(where=where, study=res.study, base=read("input.base", (dict,), {}), runs=runs,
                   target_l1=None if target is None else float(target),
                   quick=bool(read("options.quick", (bool, type(None)), False)),
                   like=read("input.like", (str, type(None)), None),
                   challenge=read("input.challenge", (str, type(None)), None))


@dataclass(frozen=True)
class MainJobMeta(_StudyMeta):
    """The fields of the main job's ``meta.json`` (``rank_convergence``) that its report reads.

    Attributes
    ----------
    where : str
        The folder (or ``"the main job"``), for messages.
    source : str
        The input in prose (``input.source``).
    images, encounters, runs : int
        What the challenge holds (``input``).
    annotators : tuple of str
        The annotators' names.
    volumes : bool
        3D input (``input.volumes``).
    labels : tuple or None
        The labels of a multi-label challenge (``input.labels``).
    regions : mapping or None
        The regions each label stands for (``input.regions``).
    reading : mapping or None
        How the command read its input (``input.reading``: ``layout``, ``folder``, ``options``; None in folders
        written before it was recorded, or by the library alone).
    bootstrap_unit : str
        What the bootstrap resampled (``image`` or ``encounter``).
    bootstrap_units : int
        How many of them.
    empty_policy : str
        The both-empty policy's name.
    gold_orders : int
        Random orders per resampled test set behind the golds' comparison (10 in folders without the field).
    target : mapping or None
        The size target's record (``target``: ``l1``, ``set_by``...; None in older folders).
    design_answer : mapping or None
        The design study's answers compared with this job's (``--design``).
    """

    where: str
    source: str
    images: int
    encounters: int
    runs: int
    annotators: tuple[str, ...]
    volumes: bool
    labels: tuple | None
    regions: Mapping[str, Any] | None
    reading: Mapping[str, Any] | None
    bootstrap_unit: str
    bootstrap_units: int
    empty_policy: str
    gold_orders: int
    target: Mapping[str, Any] | None
    design_answer: Mapping[str, Any] | None

    STUDY: ClassVar[str] = "main job"

    @classmethod
    def _read(cls, res: StudyResult, where: str, read: Callable[..., Any]) -> MainJobMeta:
        labels = read("input.labels", (list, type(None)), None)
        return cls(where=where, source=read("input.source", (str,)),
                   images=read("input.images", (int,)), encounters=read("input.encounters", (int,)),
                   runs=read("input.runs", (int,)), annotators=tuple(read("input.annotators", (list,), [])),
                   volumes=read("input.volumes", (bool,), False), labels=None if labels is None else tuple(labels),
                   regions=read("input.regions", (dict, type(None)), None),
                   reading=read("input.reading", (dict, type(None)), None) or None,
                   bootstrap_unit=read("bootstrap_unit", (str,)), bootstrap_units=read("bootstrap_units", (int,)),
                   empty_policy=read("empty_policy", (str,)), gold_orders=read("gold_orders", (int,), 10),
                   target=read("target", (dict, type(None)), None),
                   design_answer=read("design_answer", (dict, type(None)), None) or None)


@dataclass(frozen=True)
class TableMeta(_StudyMeta):
    """The fields of the per-case table study's ``meta.json`` (``table_rank_convergence``) that its report reads.

    Attributes
    ----------
    where : str
        The folder (or ``"the table study"``), for messages.
    table : str
        The table's path (``input.table``).
    tasks : tuple of str
        Its leaderboards.
    runs : int
        How many algorithms it ranks.
    units : int
        How many resampling units it holds.
    unit : str
        What a unit is (the unit column's name, or ``case``).
    schemes : tuple of (str, str, str)
        The resampling engines' schemes (empty where the engines did not run).
    """

    where: str
    table: str
    tasks: tuple[str, ...]
    runs: int
    units: int
    unit: str
    schemes: tuple[tuple[str, str, str], ...]

    STUDY: ClassVar[str] = "table study"

    @classmethod
    def _read(cls, res: StudyResult, where: str, read: Callable[..., Any]) -> TableMeta:
        schemes = read("input.schemes", (list,), [])
        if not all(isinstance(n, list) and len(n) == 3 for n in schemes):
            raise InputError(f"{where}: damaged table-study folder (meta.json's input.schemes is not a list of "
                             "(gold, metric, averaging) names); run the table study again")
        return cls(where=where, table=read("input.table", (str,)), tasks=tuple(read("input.tasks", (list,), [])),
                   runs=read("input.runs", (int,)), units=read("input.units", (int,)), unit=read("input.unit", (str,)),
                   schemes=tuple(tuple(n) for n in schemes))


@dataclass(frozen=True)
class QAMeta(_StudyMeta):
    """The fields of the closed-QA study's ``meta.json`` (``qa_rank_convergence``) that its report reads.

    Attributes
    ----------
    where : str
        The folder (or ``"the QA study"``), for messages.
    source : str
        The input in prose.
    encounters : int
        How many encounters it scores.
    runs : tuple of str
        The runs' names.
    """

    where: str
    source: str
    encounters: int
    runs: tuple[str, ...]

    STUDY: ClassVar[str] = "QA study"

    @classmethod
    def _read(cls, res: StudyResult, where: str, read: Callable[..., Any]) -> QAMeta:
        return cls(where=where, source=read("input.source", (str,)), encounters=read("input.encounters", (int,)),
                   runs=tuple(read("input.runs", (list,))))
