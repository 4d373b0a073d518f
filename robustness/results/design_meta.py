"""A design study's metadata, read once from its ``meta.json`` into a typed, checked object.

The main job's ``--design DIR`` and the design report read the fields below through :meth:`DesignMeta.of`, which
checks each one's type and says which field of which folder is damaged (one line, :class:`InputError`), instead
of indexing nested dicts where they are used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robustness.errors import InputError

if TYPE_CHECKING:
    from robustness.results.study_result import StudyResult

__all__ = ["DesignMeta"]

_NOTHING = object()
_KINDS = {str: "text", int: "an integer", float: "a number", dict: "an object", bool: "true or false",
          type(None): "null"}


@dataclass(frozen=True)
class DesignMeta:
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

    @classmethod
    def of(cls, res: StudyResult) -> DesignMeta:
        """Read and check the fields of ``res.meta``.

        Parameters
        ----------
        res : StudyResult
            A design study's results (loaded from a folder or just computed).

        Returns
        -------
        DesignMeta

        Raises
        ------
        InputError
            A field is missing or of the wrong type: one line naming the folder and the field.
        """
        where = str(res.folder) if res.folder is not None else "the design study"
        meta = res.meta

        def read(path: str, kinds: tuple[type, ...], default: Any = _NOTHING) -> Any:
            value: Any = meta
            for part in path.split("."):
                value = value.get(part, _NOTHING) if isinstance(value, Mapping) else _NOTHING
            if value is _NOTHING and default is not _NOTHING:
                return default
            if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
                shown = "missing" if value is _NOTHING else f"{value!r}"
                raise InputError(f"{where}: damaged design-study folder (meta.json's {path} is {shown}, not "
                                 f"{' or '.join(_KINDS[k] for k in kinds)}); run the design study again")
            return value

        target = read("options.target_l1", (int, float, type(None)), None)
        runs = read("base_setting.runs", (int,))
        if runs < 1 or target is not None and not (math.isfinite(target) and target > 0):
            raise InputError(f"{where}: damaged design-study folder (meta.json's base_setting.runs {runs!r} or "
                             f"options.target_l1 {target!r} out of range); run the design study again")
        return cls(where=where, study=res.study, base=read("input.base", (dict,), {}), runs=runs,
                   target_l1=None if target is None else float(target),
                   quick=read("options.quick", (bool,), False), like=read("input.like", (str, type(None)), None),
                   challenge=read("input.challenge", (str, type(None)), None))
