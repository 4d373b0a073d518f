"""Errors and warnings raised on bad input, and how a list of notes is shown.

Every message is one line that names the offending file (or encounter, slot,
image, run) and says what is wrong, so a command-line user never has to read a
traceback.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import types
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["InputError", "OutputError", "NoteWarning", "MaskWarning", "summarise_notes", "shown", "one_line",
           "parameter", "deprecated_keywords", "deprecated_name", "renamed_keyword", "options_with", "MAX_LINE",
           "DIRECTION_CONTROLS"]

_Options = TypeVar("_Options")

#: The longest line an error or warning prints (a 50 MB table cell or file name is cut, never echoed whole).
MAX_LINE = 2000

#: Characters that change the direction of the text after them (Unicode's bidirectional controls): a run named
#: ``evil\u202egpj.exe`` displays as ``evilexe.jpg``. Escaped wherever a name is written
#: (:mod:`robustness.results.escape`).
DIRECTION_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

_CONTROL = re.compile("[\x00-\x1f\x7f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(value: object, limit: int = 80) -> str:
    r"""A name or cell for a one-line message: control and direction characters escaped (``\n``, ``\u202e``), cut.

    Parameters
    ----------
    value : object
        Shown as its ``str``.
    limit : int
        The longest it may be (default 80); a longer one ends in ``... (N characters)``.

    Returns
    -------
    str

    Examples
    --------
    >>> shown("run\nB"), shown("x" * 100, limit=5)
    ('run\\nB', 'xxxxx... (100 characters)')
    """
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(value))
    return text if len(text) <= limit else f"{text[:limit]}... ({len(str(value))} characters)"


def one_line(message: object, limit: int = MAX_LINE) -> str:
    """A message as one printable line of at most ``limit`` characters, its cut included (:func:`shown`).

    Parameters
    ----------
    message : object
    limit : int
        The longest the line may be (a caller that prints a prefix such as ``error: `` gives ``MAX_LINE`` minus
        its length).

    Returns
    -------
    str

    Examples
    --------
    >>> len(one_line("x" * 5000, 100))
    100
    """
    text = shown(message, limit)
    if len(text) > limit:  # the cut's note, "... (5000 characters)", counts too
        text = shown(message, max(limit - (len(text) - limit), 0))
    return text


def parameter(owner: str, name: str) -> str:
    """A library parameter as an error message names it: ```owner.name```; the commands show their option instead.

    The library speaks to Python callers in its parameters' names; a command's one-line error and warning lines put
    the command-line option in their place (``experiments._cli.OPTIONS``, the one table from parameters to options).

    Parameters
    ----------
    owner : str
        The function or options class that takes it (``RankingOptions``, ``read_case_table``).
    name : str
        The parameter's name.

    Returns
    -------
    str

    Examples
    --------
    >>> parameter("RankingOptions", "missing")
    '`RankingOptions.missing`'
    """
    return f"`{owner}.{name}`"


def deprecated_keywords(owner: str, given: Mapping[str, Any], accepted: Iterable[str], instead: str) -> dict:
    """The keyword arguments a caller still passes by their old names, each accepted with a DeprecationWarning.

    A function whose keywords moved into an options object keeps its old callers working: it takes ``**given``
    and reads them through this (a name it never took is still a TypeError, as Python would raise).

    Parameters
    ----------
    owner : str
        The function's name, as the warning names it.
    given : mapping
        The keywords passed beyond the function's own.
    accepted : iterable of str
        The old names still accepted.
    instead : str
        What to pass now (the warning says it).

    Returns
    -------
    dict
        ``given``, checked.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated_keywords("run", {"seed": 1}, ["seed"], "RunOptions(seed=...)")
    {'seed': 1}
    >>> str(caught[0].message)
    'run(): seed= is deprecated; pass RunOptions(seed=...)'
    """
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise TypeError(f"{owner}() got an unexpected keyword argument {unknown[0]!r}")
    if given:
        names = ", ".join(f"{k}=" for k in given)
        warnings.warn(f"{owner}(): {names} {'is' if len(given) == 1 else 'are'} deprecated; pass {instead}",
                      DeprecationWarning, stacklevel=_callers_level())
    return dict(given)


def renamed_keyword(owner: str, given: Mapping[str, Any], old: str, new: str, value: Any) -> Any:
    """A keyword's value, passed by its new name or (with a DeprecationWarning) by its old one, never by both.

    Parameters
    ----------
    owner : str
        The function's name, as the warning and the error name it.
    given : mapping
        The keywords passed beyond the function's own (its ``**deprecated``).
    old, new : str
        The old and the new name.
    value : object
        What was passed as ``new``; None where it was not passed (the function's default for it must be None).

    Returns
    -------
    object
        ``given[old]`` where the old name was used, else ``value``.

    Raises
    ------
    TypeError
        Both names passed, or a keyword the function never took (as Python would raise).

    Examples
    --------
    >>> renamed_keyword("agreement", {}, "gold", "strategy", "staple")
    'staple'
    >>> renamed_keyword("agreement", {"gold": "staple"}, "gold", "strategy", "majority")
    Traceback (most recent call last):
    TypeError: agreement() got both strategy= and its deprecated name gold=
    """
    if old in given and value is not None:
        raise TypeError(f"{owner}() got both {new}= and its deprecated name {old}=")
    return deprecated_keywords(owner, given, [old], f"{new}=...").get(old, value)


def deprecated_name(old: str, new: str) -> None:
    """Warn that a caller used a deprecated name (an attribute, a function) that still works.

    Parameters
    ----------
    old : str
        The deprecated name, as the warning names it (``Scheme.gold``).
    new : str
        Its name now.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated_name("Scheme.gold", "Scheme.strategy")
    >>> str(caught[0].message)
    'Scheme.gold is deprecated; use Scheme.strategy'
    """
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=_callers_level())


#: The package's folder: a warning about how it was called is attributed to the first frame outside it.
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _callers_level() -> int:
    """The ``stacklevel`` of the first frame outside the package, seen from the function that calls this one.

    A deprecated keyword may be read a helper or two below the public function (:func:`options_with`); the warning
    names the caller's own line wherever that is, so that Python's default filter, which shows a
    DeprecationWarning only where ``__main__`` triggers it, shows it to a script that passes an old keyword.
    """
    frame: types.FrameType | None = sys._getframe(1)  # the function that warns: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def options_with(owner: str, options: _Options, given: Mapping[str, Any]) -> _Options:
    """An options object with the fields a caller still passes to ``owner`` as keywords, one by one (deprecated).

    Parameters
    ----------
    owner : str
        The function the keywords were passed to.
    options : dataclass instance
        Its options object.
    given : mapping
        Its ``**deprecated`` keywords: each must be one of the options' fields (:func:`deprecated_keywords`).

    Returns
    -------
    dataclass instance
        ``options`` with those fields replaced.
    """
    names = [f.name for f in dataclasses.fields(options)]  # type: ignore[arg-type]
    legacy = deprecated_keywords(owner, given, names, f"options={type(options).__name__}(...)")
    return dataclasses.replace(options, **legacy)  # type: ignore[type-var]


class InputError(ValueError):
    """Bad input data: a missing folder, a corrupt or non-binary mask, a shape mismatch...

    The message is a single line naming the file and the problem. Command-line
    entry points print it as ``error: <message>`` and exit with status 2.
    """


class OutputError(InputError):
    """The results cannot be written (a full disk, a quota, a read-only file system): one line naming the file.

    A subclass of :class:`InputError` so that command-line entry points print it the same way (``error: ...``,
    exit status 2); the earlier results are left whole.
    """


class NoteWarning(UserWarning):
    """Something a user must know about the input or the results folder (printed as ``warning: ...``)."""


class MaskWarning(NoteWarning):
    """A mask was readable but needed a documented repair (e.g. stray pixel values)."""


def summarise_notes(notes: Iterable[str], *, keep: int = 3) -> list[str]:
    """Notes in order, at most ``keep`` of each kind.

    Per-file notes (``<file>: <note>``) that differ only in the file name and numbers are one kind, and the
    rest of a kind becomes one line that counts them.

    Parameters
    ----------
    notes : iterable of str
        One-line notes, in the order they were made (anything else is shown as its ``str``).
    keep : int
        How many notes of each kind are kept word for word (default 3).

    Returns
    -------
    list of str
        The kept notes grouped by kind (kinds in first-seen order, notes in their order within a kind), a
        kind with more than ``keep`` notes ending in one ``and N more file(s) with the same note as <file>``
        line.

    Examples
    --------
    >>> summarise_notes([f"m{i}.png: 1 pixel(s) repaired" for i in range(5)], keep=2)
    ['m0.png: 1 pixel(s) repaired', 'm1.png: 1 pixel(s) repaired', 'and 3 more file(s) with the same note as m0.png']
    """
    kinds: dict[str, list[str]] = {}
    for note in map(str, notes):
        path, sep, rest = note.partition(": ")
        kind = re.sub(r"\d+", "#", rest if sep else note)
        kinds.setdefault(kind, []).append(note)
    out = []
    for group in kinds.values():
        out += group[:keep]
        if len(group) > keep:
            out.append(f"and {len(group) - keep} more file(s) with the same note as {group[0].partition(': ')[0]}")
    return out
