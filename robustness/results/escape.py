r"""Names escaped for the medium they are written into: Markdown, CSV cells read by spreadsheets.

Run, rater, task and case names come from the user's files and may hold anything: ``<script>``, a Markdown link
to ``javascript:``, a formula ``=cmd|' /C calc'!A0``. Each medium gets its own escape, applied where the medium is
written, so no report section and no table has to remember it:

- Markdown (:func:`markdown`, :func:`markdown_cell`): outside code spans, a backslash goes before every ``<``
  that could open a tag or an autolink, every ``&`` that could open an entity, every ``]`` that could close a
  link, and every backslash that would escape the next character (no HTML, no link, no image; in a table cell
  ``|`` is escaped too, so no cell a name did not write); the raw file stays readable (``>=`` and intervals
  ``[0.61, 0.72]`` are left alone). Code spans are
  found by CommonMark's rule (a run of n backticks closes at the next run of exactly n), so they split where every
  CommonMark renderer splits them, and their content is shown literally by every renderer. Line breaks become
  spaces. The package's own ``**bold**`` and ```code``` still render.
- CSV (:func:`csv_frame`, :func:`csv_unquote`): a text cell beginning with ``= + - @``, a tab or a carriage return
  (what spreadsheets read as a formula) or with ``'`` is written with a leading ``'``, as OWASP advises;
  :func:`csv_unquote` removes exactly that quote when the package reads its tables back, so names round-trip.
- HTML is escaped by :mod:`robustness.reporting.document` (``html.escape``); figures draw names as plain text
  (``text.parse_math: False`` in the house style, so ``$x^{$`` is not mathtext).
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["markdown", "markdown_cell", "csv_frame", "csv_unquote", "FORMULA_STARTS"]

#: The first characters that make a spreadsheet read a CSV cell as a formula (and the quote that marks an escape).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")

_TICKS = re.compile(r"`+")
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")
#: What makes plain text markup in CommonMark (and GFM, marked, markdown-it): a backslash before punctuation (an
#: escape; at the end of a piece of text it stands before a backtick), ``<`` opening a tag, a comment or an
#: autolink, ``&`` opening an entity, ``]`` closing a link or a reference definition. Each gets a backslash; nothing
#: else changes, so ``>=`` or ``[0.61, 0.72]`` read as written in the raw file.
_MARKUP = re.compile(r"""\\(?=[!-/:-@\[-`{-~]|$)|<(?=[A-Za-z/!?])|&(?=#\d+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)"""
                     r"|\](?=[(\[:])")


def _plain(text: str, cell: bool) -> str:
    out = _MARKUP.sub(lambda m: "\\" + m.group(), text)
    return out.replace("|", "\\|") if cell else out


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
    """
    text = _BREAKS.sub(" ", str(text))
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
    return "".join(out)


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


def _is_text(values) -> bool:
    return values.dtype == object or str(values.dtype) in ("str", "string")


def _recode(frame: pd.DataFrame, starts: tuple, change) -> pd.DataFrame:
    """``frame`` with ``change`` applied to every text cell, index entry and column name beginning with ``starts``.

    Returns ``frame`` itself when nothing begins so (no copy of a large table for nothing).
    """

    def hits(values: pd.Series):
        if not _is_text(values):
            return None
        # an object column may mix text with booleans, numbers or None (a fit table's "within"): only text is checked
        return values.map(lambda v: isinstance(v, str) and v.startswith(starts)).astype(bool)

    columns = {c: hits(frame[c]) for c in frame.columns}
    columns = {c: m for c, m in columns.items() if m is not None and m.any()}
    index = hits(pd.Series(frame.index, dtype=frame.index.dtype))
    names = [isinstance(c, str) and c.startswith(starts) for c in frame.columns]
    if not columns and not any(names) and (index is None or not index.any()):
        return frame
    out = frame.copy()
    for c, m in columns.items():
        out[c] = out[c].where(~m.to_numpy(), out[c][m].map(change))
    if index is not None and index.any():
        out.index = [change(v) if hit else v for v, hit in zip(out.index, index)]
    out.columns = [change(c) if hit else c for c, hit in zip(out.columns, names)]
    return out


def csv_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell (and text index and column name) that a spreadsheet would run quoted.

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
    return _recode(frame, FORMULA_STARTS, lambda v: "'" + v)


def csv_unquote(frame: pd.DataFrame) -> pd.DataFrame:
    """Undo :func:`csv_frame` on a table read back (text cells, index and column names).

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
    """
    return _recode(frame, tuple("'" + c for c in FORMULA_STARTS), lambda v: v[1:])
