r"""Names escaped for the medium they are written into: Markdown, CSV cells read by spreadsheets.

Run, rater, task and case names come from the user's files and may hold anything: ``<script>``, a Markdown link
to ``javascript:``, a formula ``=cmd|' /C calc'!A0``. Each medium gets its own escape, applied where the medium is
written, so no report section and no table has to remember it:

- Markdown (:func:`markdown`, :func:`markdown_cell`): outside code spans, a backslash goes before every ``<``
  that could open a tag or an autolink, every ``&`` that could open an entity, every ``]`` that could close a
  link, and every backslash that would escape the next character (no HTML, no link, no image; in a table cell
  ``|`` is escaped too, so no cell a name did not write); so does every ``*``, ``~`` and ``_`` that could open or
  close emphasis or strikethrough (a ``_`` inside a word cannot: ``p_best`` stays; nor can a run with blanks on both
  sides), the mark that would open a block at the start of a text (``#``, ``>``, ``- ``, ``* ``, ``1. ``, a
  thematic break, ``--`` after a bullet, a task box ``[ ]``), the ``:`` or ``.`` of a bare link (``http:``,
  ``www.``) and the ``@`` of a bare e-mail address (GFM links them), so a run named ``_a_``, ``1. b`` or
  ``www.x.com`` reads as written; blanks at either end are dropped. The raw file stays readable (``<=``, ``>=`` and
  intervals ``[0.61, 0.72]`` are left alone). Code spans are
  found by CommonMark's rule (a run of n backticks closes at the next run of exactly n), so they split where every
  CommonMark renderer splits them, and their content is shown literally by every renderer. Line breaks become
  spaces. The package's own ``**bold**`` and ```code``` still render.
- CSV (:func:`csv_frame`, :func:`csv_unquote`): a text cell beginning with ``= + - @``, a tab or a carriage return
  (what spreadsheets read as a formula) or with ``'`` is written with a leading ``'``, as OWASP advises;
  :func:`csv_unquote` removes exactly that quote when the package reads its tables back, so names round-trip.
- HTML: :mod:`robustness.reporting.document` renders this Markdown with markdown-it (raw HTML shown as text).
- Figures draw names as plain text (``text.parse_math: False`` in the house style, so ``$x^{$`` is not mathtext).
- Direction controls (Unicode's bidirectional embeddings, overrides, isolates and marks: a run named
  ``evil\u202egpj.exe`` displays as ``evilexe.jpg``) are shown as their code, ``\u202e``, in every medium
  (:func:`visible`): Markdown and HTML (the whole page), the PDF, figures, messages
  (:func:`robustness.errors.shown`); in CSV a cell that holds one is written behind ``'\`` with its backslashes
  doubled and each control as its code, and read back as it was (:func:`csv_unquote`).
- Figures (:func:`figure_text`): a name longer than :data:`FIGURE_NAME` characters keeps its start and end around
  an ellipsis (the tables and the report keep it whole): a 300-character name made an 11,458 x 12,085 pixel figure
  and a 3.9 GB PDF.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from robustness._lazy import lazy_module
from robustness.errors import DIRECTION_CONTROLS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = lazy_module("numpy")
    pd = lazy_module("pandas")

__all__ = ["markdown", "markdown_cell", "csv_frame", "csv_unquote", "FORMULA_STARTS", "visible", "figure_text",
           "FIGURE_NAME"]

#: The longest name a figure draws (longer ones are shortened around an ellipsis, :func:`figure_text`).
FIGURE_NAME = 40


def visible(text: str) -> str:
    r"""``text`` with every direction control shown as its code (``\u202e``), so it cannot reorder what follows.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(visible("evil\u202egpj.exe"))
    evil\u202egpj.exe
    """
    return DIRECTION_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", str(text))


def figure_text(name: object, width: int = FIGURE_NAME) -> str:
    """A name as a figure draws it: direction controls and line breaks shown as codes, at most ``width`` characters.

    A longer name keeps its first ``width - 9`` and last 8 characters around an ellipsis, so that names that
    differ at their end (``team-..._run1``, ``..._run2``) stay apart; the tables hold the whole name.

    Parameters
    ----------
    name : object
    width : int

    Returns
    -------
    str

    Examples
    --------
    >>> figure_text("a" * 50 + "_run1")
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u2026aaa_run1'
    """
    text = visible(_BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(name)))
    return text if len(text) <= width else text[:width - 9] + "\u2026" + text[-8:]


#: The first characters that make a spreadsheet read a CSV cell as a formula (and the quote that marks an escape).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")

_TICKS = re.compile(r"`+")
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")
#: What makes plain text markup in CommonMark (and GFM, marked, markdown-it): a backslash before punctuation (an
#: escape; at the end of a piece of text it stands before a backtick), ``<`` opening a tag, a comment or an
#: autolink (a scheme, or an e-mail address: ``<1@b.co>``), ``&`` opening an entity, ``]`` closing a link or a
#: reference definition. Each gets a backslash; nothing else changes, so ``<=``, ``>=`` or ``[0.61, 0.72]`` read as
#: written in the raw file.
_MARKUP = re.compile(r"""\\(?=[!-/:-@\[-`{-~]|$)|<(?=[A-Za-z/!?]|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@)"""
                     r"""|&(?=#\d+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)|\](?=[(\[:])""")
#: GFM's bare links (``www.``, ``http://``, ``https://``, ``ftp://``, ``mailto:``, ``xmpp:``), wherever they stand
#: (marked links ``xhttp://`` too): a backslash before the ``.`` or ``:`` keeps a name from becoming a link, and from
#: a renderer taking the next escape's backslash into the link (marked then left ``http://x.y\<img ...>``'s tag raw).
_BARE_LINK = re.compile(r"(?i)(?:https?|ftp|mailto|xmpp)(?=:)|www(?=\.)")
#: CommonMark's whitespace: tab, line feed, form feed, carriage return and the space separators (not NEL).
_BLANKS = "\t\n\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
#: GFM's bare e-mail addresses (``a@b.co``; also a boundary metric ``nsd@1.5``): a backslash before the ``@``.
_BARE_EMAIL = re.compile(r"(?<=[A-Za-z0-9._+-])@(?=[A-Za-z0-9_-]+\.[A-Za-z0-9_-])")


#: Emphasis and strikethrough: a run of ``*`` (but the package's own ``**`` outside a table cell), ``~``, or ``_``
#: that is not inside a word (CommonMark never opens or closes emphasis with ``_`` between two letters or digits) and
#: not between two blanks (such a run neither opens nor closes: ``a ~ b`` stays as written).
_EMPHASIS = re.compile(r"\*+|~+|_+")
#: What opens a block at the start of a paragraph, a bullet's text or a heading (after its leading blanks, which
#: are dropped: four of them make a code block): a heading's ``#``, a quote's ``>``, a list item's ``-``, ``+`` or
#: ``1.``/``1)``, a fence ``~~~``, a thematic break (three ``-``, ``*`` or ``_``, blanks between; after a bullet's
#: own ``- ``, two dashes are enough), a GFM task box ``[ ]``/``[x]``; and a heading's closing ``#`` run at the end.
#: Each gets a backslash before its mark.
_BLOCK = re.compile(r"^(?:(?P<mark>[#>]|[-+*](?=[ \t]|$)|~~~)|\d{1,9}(?P<number>[.)])(?=[ \t]|$))"
                    r"|^(?P<rule>[-*_])(?=(?:[ \t]*[-*_]){2,}[ \t]*$)|^(?P<dashes>-)(?=[- \t]*$)"
                    r"|^(?P<task>\[)(?=[ xX]\])|(?<=[ \t])(?P<closing>#)#*[ \t]*$")


def _emphasis(m: re.Match, cell: bool) -> str:
    run, text = m.group(), m.string
    if run == "**" and not cell:
        return run
    if 0 < m.start() and m.end() < len(text) and text[m.start() - 1] in _BLANKS and text[m.end()] in _BLANKS:
        return run  # blanks on both sides: neither opens nor closes (``a ~ b``, ``2 * 3``)
    if run[0] == "_" and 0 < m.start() and m.end() < len(text) and text[m.start() - 1].isalnum() \
            and text[m.end()].isalnum():
        return run
    return "".join("\\" + c for c in run)


def _plain(text: str, cell: bool) -> str:
    out = _MARKUP.sub(lambda m: "\\" + m.group(), text)
    out = _EMPHASIS.sub(lambda m: _emphasis(m, cell), out)
    out = _BARE_EMAIL.sub(r"\\@", _BARE_LINK.sub(lambda m: m.group() + "\\", out))
    return out.replace("|", "\\|") if cell else out


def _block_start(text: str) -> str:
    """``text`` with the mark that would open a block at its start (or close a heading at its end) escaped."""

    def escape(m: re.Match) -> str:
        name = next(k for k in ("mark", "number", "rule", "dashes", "task", "closing") if m.group(k) is not None)
        at = m.start(name) - m.start()
        return m.group()[:at] + "\\" + m.group()[at:]

    return _BLOCK.sub(escape, text)


def markdown(text: str, *, cell: bool = False) -> str:
    r"""Text for a Markdown paragraph, bullet, heading or caption (see the module notes).

    Parameters
    ----------
    text : str
    cell : bool
        The text goes into a table cell: ``|`` is escaped everywhere, code spans included (GFM splits cells first).

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown("run <img src=x onerror=alert(1)> is **first**, J >= 0.5 [0.61, 0.72]"))
    run \<img src=x onerror=alert(1)> is **first**, J >= 0.5 [0.61, 0.72]
    >>> print(markdown("see `a<b>` and [x](javascript:alert(1))"))
    see `a<b>` and [x\](javascript:alert(1))
    >>> print(markdown("1. _run_ *b* p_best"))
    1\. \_run\_ \*b\* p_best
    """
    text = visible(_BREAKS.sub(" ", str(text))).strip(_BLANKS)  # blanks at an end: a code block, a broken list
    out, i = [], 0
    while True:
        opening = _TICKS.search(text, i)
        if opening is None:
            out.append(_plain(text[i:], cell))
            break
        n = len(opening.group())
        closing = next((m for m in _TICKS.finditer(text, opening.end()) if len(m.group()) == n), None)
        if closing is None:  # no code span: the backticks are text (escaped, so no later run pairs with them)
            out.append(_plain(text[i:opening.start()], cell) + "\\`" * n)
            i = opening.end()
            continue
        out.append(_plain(text[i:opening.start()], cell))
        span = text[opening.start():closing.end()]
        out.append(span.replace("|", "\\|") if cell else span)
        i = closing.end()
    return "".join(out) if cell else _block_start("".join(out))


def markdown_cell(value: object) -> str:
    """A table cell's text for Markdown (:func:`markdown` with ``cell=True``).

    Parameters
    ----------
    value : object

    Returns
    -------
    str
    """
    return markdown(str(value), cell=True)


def _dictionary_values(dtype) -> Any:
    """The values' type of a pyarrow dictionary dtype, or None for any other dtype."""
    return getattr(getattr(dtype, "pyarrow_dtype", None), "value_type", None)


def _coded_like(dtype) -> bool:
    """A dtype whose cells stand for values held apart (categorical, sparse, a pyarrow dictionary)."""
    return isinstance(dtype, (pd.CategoricalDtype, pd.SparseDtype)) or _dictionary_values(dtype) is not None


def _is_text(values) -> bool:
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):  # its categories are what a cell can hold
        return _is_text(dtype.categories)
    if isinstance(dtype, pd.SparseDtype):
        return pd.api.types.is_object_dtype(dtype.subtype)
    dictionary_values = _dictionary_values(dtype)
    if dictionary_values is not None:
        return str(dictionary_values) in ("string", "large_string")
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _selected(values: Any, test: Callable[[str], Any]) -> np.ndarray:
    """Which of ``values`` are text that ``test`` selects (bool)."""
    return np.array([isinstance(v, str) and bool(test(v)) for v in values], dtype=bool)


def _hits(values: pd.Series | pd.Index, test: Callable[[str], Any]) -> np.ndarray | None:
    """Which entries ``test`` selects (bool), or None when none is or the values are not text.

    An object column may mix text with booleans, numbers or None (a fit table's "within"): only text is checked,
    each distinct text once.
    """
    if not _is_text(values):
        return None
    try:
        codes, distinct = pd.factorize(values)
    except TypeError:  # unhashable cells (lists): each cell checked
        chosen = _selected(values, test)
        return chosen if chosen.any() else None
    hit = _selected(distinct, test)
    if not hit.any():
        return None
    return np.where(codes >= 0, hit[np.maximum(codes, 0)], False)


def _changed(values: pd.Series | pd.Index, chosen: np.ndarray, change: Callable[[str], str]) -> tuple:
    """The cells with the chosen ones changed (object), and the dtype they are written back with.

    An object column stays one (None stays None); a categorical, sparse or dictionary one becomes text.
    """
    cells = values.to_numpy(dtype=object, copy=True)
    cells[chosen] = [change(v) for v in cells[chosen]]
    return cells, object if _coded_like(values.dtype) else values.dtype


def _recode_name(name: Any, test: Callable[[str], Any], change: Callable[[str], str]) -> Any:
    return change(name) if isinstance(name, str) and test(name) else name


def _recode_labels(labels: pd.Index, test: Callable[[str], Any], change: Callable[[str], str]) -> pd.Index | None:
    """The labels with the selected text changed (each level of a MultiIndex, and the names), or None if none is.

    A MultiIndex is rebuilt from its levels' values in place (the labels its rows use), so a level whose changed
    values meet values it already holds stays whole.
    """
    names = [_recode_name(n, test, change) for n in labels.names]
    if isinstance(labels, pd.MultiIndex):
        levels = [labels.get_level_values(k) for k in range(labels.nlevels)]
        recoded = [_recode_labels(level, test, change) for level in levels]
        if all(level is None for level in recoded) and names == list(labels.names):
            return None
        return pd.MultiIndex.from_arrays([old if new is None else new for old, new in zip(levels, recoded)],
                                         names=names)
    chosen = _hits(labels, test)
    if chosen is None:
        return None if names == list(labels.names) else labels.rename(names[0])
    cells, dtype = _changed(labels, chosen, change)
    return pd.Index(cells, dtype=dtype, name=names[0])


def _recode(frame: pd.DataFrame, which, change) -> pd.DataFrame:
    """``frame`` with ``change`` applied to every text cell, index entry and column name that ``which`` selects.

    ``which``: a tuple of starts (a text beginning with one), or a function of the text. Returns ``frame`` itself
    when nothing is selected (no copy of a large table for nothing). Columns are taken by position (two may share
    a name) and cells changed by position (the index may repeat a label). The names of the index and of the
    columns' index are labels too.
    """
    test = which if callable(which) else (lambda v: v.startswith(which))
    columns = {i: m for i in range(frame.shape[1]) if (m := _hits(frame.iloc[:, i], test)) is not None}
    index = _recode_labels(frame.index, test, change)
    names = _recode_labels(frame.columns, test, change)
    if not columns and index is None and names is None:
        return frame
    out = frame.copy()
    for i, chosen in columns.items():
        cells, dtype = _changed(out.iloc[:, i], chosen, change)
        out.isetitem(i, pd.Series(cells, index=out.index, dtype=dtype))
    if index is not None:
        out.index = index
    if names is not None:
        out.columns = names
    return out


def csv_frame(frame: pd.DataFrame) -> pd.DataFrame:
    r"""``frame`` with every text cell (and text index and column name) that a spreadsheet would run quoted.

    A cell holding a direction control or a carriage return is written coded (``'\`` and its text with those
    characters as ``\uXXXX`` codes), so that it neither reorders what a reader sees nor ends a CSV row;
    :func:`csv_unquote` reads every cell back as it was.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        A copy when anything was quoted, else ``frame`` itself.

    Examples
    --------
    >>> import pandas as pd
    >>> csv_frame(pd.DataFrame({"run": ["=1+1", "A", "-x"], "value": [-1.0, 2.0, 3.0]})).run.tolist()
    ["'=1+1", 'A', "'-x"]
    """
    return _recode(frame, lambda v: v.startswith(FORMULA_STARTS) or _needs_code(v),
                   lambda v: _coded(v) if _needs_code(v) else "'" + v)


#: How a CSV cell holding direction controls or a carriage return begins (:func:`csv_frame`); a user's cell
#: beginning with ``'`` is written behind a second ``'``, so no other cell begins so.
_CODED = "'\\"
_CODE = re.compile(r"\\(\\|u[0-9a-f]{4})")


def _needs_code(text: str) -> bool:
    """Whether a CSV cell is written coded: it holds a direction control or a carriage return.

    A CSV writer whose lines end with a line feed leaves a carriage return unquoted, and a reader ends the row there.
    """
    return "\r" in text or bool(DIRECTION_CONTROLS.search(text))


def _coded(text: str) -> str:
    return _CODED + visible(text.replace("\\", "\\\\")).replace("\r", "\\u000d")


def _decoded(text: str) -> str:
    return _CODE.sub(lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1)[1:], 16)), text[len(_CODED):])


def csv_unquote(frame: pd.DataFrame) -> pd.DataFrame:
    """Undo :func:`csv_frame` on a table read back (text cells, index and column names).

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
    """
    quoted = tuple("'" + c for c in FORMULA_STARTS)
    return _recode(frame, lambda v: v.startswith(quoted + (_CODED,)),
                   lambda v: _decoded(v) if v.startswith(_CODED) else v[1:])
