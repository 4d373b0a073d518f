"""Reports as a list of blocks, rendered to Markdown (``summary.md``) and to one self-contained HTML file.

A study builds a :class:`Report` (headings, paragraphs, bullet lists,
tables, figures) from its result tables; :meth:`Report.to_markdown` and
:meth:`Report.to_html` render the same content. The HTML page embeds every
figure as a data URI and every style in the page, references no external
URL, and reads on a laptop and on a phone (tables scroll sideways); it opens
with a table of contents of its sections (each an anchor), and every file of the
results folder it names links to the file. Columns of whole numbers print as
integers in both.
Inline markup in text: ``**bold**`` and ```code```. A report made for a command (``spell``: the command's
spelling, e.g. ``experiments._options.for_command_line``) names its options where the library names parameters
(```RankingOptions.missing```, :func:`robustness.errors.parameter`). Every text is escaped for Markdown by
:func:`robustness.results.escape.markdown`; the HTML page's texts and table cells are that Markdown rendered by
markdown-it (CommonMark, raw HTML shown as text), so both files say the same thing and a run named ``<script>``
is shown, never run, in either.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from markdown_it import MarkdownIt
from markdown_it.token import Token

from robustness.files import MAX_FIGURE_BYTES, exists_inside, read_inside
from robustness.results.escape import markdown as md
from robustness.results.escape import markdown_cell, visible

if TYPE_CHECKING:
    import pandas as pd
    from markdown_it.rules_core import StateCore

__all__ = ["Report", "md_table", "cells_of"]


def _cell(v, floatfmt):
    if isinstance(v, float):
        return "" if v != v else floatfmt.format(v)
    return str(v)


def _column_formats(df: pd.DataFrame, floatfmt: str) -> list[str]:
    """Each column's float format: whole numbers (counts, sizes) as integers, other floats by ``floatfmt``."""
    out = []
    for c in df.columns:
        v = df[c]
        numeric = v.dtype.kind == "f" and v.notna().any()
        whole = numeric and bool(np.all(np.mod(v.dropna().to_numpy(), 1) == 0)) and bool(v.abs().max() < 1e15)
        out.append("{:.0f}" if whole else floatfmt)
    return out


def cells_of(df: pd.DataFrame, floatfmt: str) -> list[list[str]]:
    """Every cell of ``df`` as text (whole-number columns as integers, other floats by ``floatfmt``).

    Parameters
    ----------
    df : pandas.DataFrame
    floatfmt : str
        A format such as ``"{:.3g}"``.

    Returns
    -------
    list of list of str
        One list per row.
    """
    formats = _column_formats(df, floatfmt)
    return [[_cell(v, f) for v, f in zip(row, formats)] for row in df.itertuples(index=False)]


def md_table(df: pd.DataFrame, floatfmt: str = "{:.4f}") -> str:
    """A pandas frame as a Markdown table.

    Parameters
    ----------
    df : pandas.DataFrame
    floatfmt : str
        How floats are printed (nan: an empty cell); columns of whole numbers print as integers.

    Returns
    -------
    str
    """
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(markdown_cell, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in cells_of(df, floatfmt)]
    return "\n".join(lines)


def _slug(text: str, taken: set) -> str:
    """A section's anchor: its words, lower case, joined by hyphens (unique within the page)."""
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


_FILE = re.compile(r"(?<![\w/.-])((?:figures/)?[\w.-]+\.(?:csv|parquet|json|md|png|pdf|html))(?![\w/-])")


#: Files every results folder gets after its report is built (linked before they exist).
_WRITTEN_LAST = ("meta.json", "summary.md", "report.html")


def _linkable(name: str, root: Path) -> bool:
    return name in _WRITTEN_LAST or exists_inside(root, name)


def _link(name: str, inner: list[Token]) -> list[Token]:
    return [Token("link_open", "a", 1, attrs={"href": name}), *inner, Token("link_close", "a", -1)]


def _linked(token: Token, root: Path) -> list[Token]:
    """One inline token, with the results folder's file names it holds as links to the files."""
    if token.type == "code_inline":
        whole = _FILE.fullmatch(token.content)
        return _link(token.content, [token]) if whole and _linkable(token.content, root) else [token]
    if token.type != "text":
        return [token]
    out, at = [], 0
    for m in _FILE.finditer(token.content):
        if _linkable(m.group(1), root):
            out += [Token("text", "", 0, content=token.content[at:m.start(1)])]
            out += _link(m.group(1), [Token("text", "", 0, content=m.group(1))])
            at = m.end(1)
    return [token] if not out else out + [Token("text", "", 0, content=token.content[at:])]


def _link_files(state: StateCore) -> None:
    """A core rule of the renderer below: file names as links where ``env["root"]`` names the results folder."""
    root = state.env.get("root")
    if root is None:
        return
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = [piece for child in token.children for piece in _linked(child, root)]


#: The HTML renderer: CommonMark (raw HTML shown as text, no typography), GFM tables, and the rule above.
_RENDERER = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
_RENDERER.core.ruler.push("link_files", _link_files)


def _inline(text: str, root: Path | None = None) -> str:
    """A text of the report as HTML, rendered inline by markdown-it from its Markdown (:func:`md`).

    ``**bold**`` and ```code``` spans render and everything else is shown as written; with ``root``, the folder's
    file names are links.
    """
    return _RENDERER.renderInline(md(text), {"root": root})


def _html_cell(value: str, root: Path) -> str:
    return _RENDERER.renderInline(markdown_cell(value), {"root": root})


def _html_table(block: tuple, root: Path) -> list[str]:
    """A table block as HTML: its caption, the table in a sideways-scrolling box, how many rows it left out."""
    _, frame, floatfmt, caption, max_rows = block
    out = [f'<p class="caption">{_inline(caption, root)}</p>'] if caption else []
    shown = frame if max_rows is None else frame.head(max_rows)
    head = "".join(f"<th>{_html_cell(str(c), root)}</th>" for c in shown.columns)
    cells = cells_of(shown, floatfmt)
    long = ' class="long"'  # a long cell may wrap in a wide table
    rows = "".join("<tr>" + "".join(f"<td{long if len(v) > 18 else ''}>{_html_cell(v, root)}"
                                    "</td>" for v in row) + "</tr>" for row in cells)
    widest = [max([len(str(c))] + [len(row[k]) for row in cells]) for k, c in enumerate(shown.columns)]
    wrap = ' class="wrap"' if sum(widest) + 3 * len(widest) > 100 else ""  # ~ the column's characters
    out.append(f'<div class="scroll"><table{wrap}><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')
    if max_rows is not None and len(frame) > max_rows:
        out.append(f'<p class="caption">({len(frame) - max_rows} more rows in the table file)</p>')
    return out


def _html_figure(block: tuple, root: Path) -> str:
    """A figure block as HTML: the PNG embedded as a data URI, its caption with links to its files."""
    _, path, caption = block
    png = read_inside(root, path, limit=MAX_FIGURE_BYTES, what="figure")
    data = base64.b64encode(png).decode()
    files = [path] + [f for f in (str(Path(path).with_suffix(".pdf")),) if exists_inside(root, f)]
    links = " ".join(f'<a href="{f}">{Path(f).suffix[1:].upper()}</a>' for f in files)
    return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_inline(caption, root)} ({links})</figcaption></figure>")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;margin:0;color:#1a1a1a;
background:#fff}
main{max-width:62rem;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.6rem;margin:.6rem 0 1rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd;
padding-bottom:.2rem}h3{font-size:1.05rem}
p,li{max-width:48rem}code{background:#f3f3f3;padding:0 .2em;border-radius:3px;font-size:.92em}
h1,h2,h3,p,li,figcaption{overflow-wrap:anywhere}
.scroll{overflow-x:auto;margin:.6rem 0 1rem;border:1px solid #eee}
table{border-collapse:collapse;font-size:.85rem}
th,td{padding:.25rem .55rem;border-bottom:1px solid #eee;text-align:right}th{background:#fafafa;position:sticky;top:0;
vertical-align:bottom;min-width:4rem}td{white-space:nowrap}.wrap td.long{white-space:normal;min-width:7rem}
td:first-child,th:first-child{text-align:left}
figure{margin:1rem 0 1.6rem}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.88rem;color:#444;max-width:48rem;margin-top:.3rem}
.caption{font-size:.85rem;color:#555;margin:.1rem 0 .2rem}
.toc{background:#f7f7f7;border:1px solid #e5e5e5;border-radius:4px;padding:.4rem 1rem;max-width:46rem}
.toc p{margin:.2rem 0;font-weight:600}.toc ol{margin:.2rem 0 .4rem;padding-left:1.4rem}
a{color:#0b5cad}h2{scroll-margin-top:.5rem}
@media (max-width:40rem){main{padding:.6rem .7rem 2rem}h1{font-size:1.3rem}table{font-size:.78rem}}
"""


@dataclass
class Report:
    """An ordered list of blocks; see the module notes.

    Attributes
    ----------
    title : str
    blocks : list
    spell : callable, optional
        Applied to every text as it is added (headings, paragraphs, bullets, captions): how the reader's interface
        names what the library calls a parameter (None: as the library names it).
    """

    title: str
    blocks: list = field(default_factory=list)
    spell: Callable[[str], str] | None = field(default=None, repr=False, compare=False)

    def _said(self, text: str) -> str:
        return text if self.spell is None else self.spell(text)

    def heading(self, text: str, level: int = 2) -> Report:
        """Add a heading (``level`` 2: a section).

        Parameters
        ----------
        text : str
        level : int

        Returns
        -------
        Report
            This report (calls chain).
        """
        self.blocks.append(("heading", level, self._said(text)))
        return self

    def paragraph(self, text: str) -> Report:
        """Add a paragraph (``**bold**`` and ```code``` spans are kept).

        Parameters
        ----------
        text : str

        Returns
        -------
        Report
        """
        self.blocks.append(("paragraph", self._said(text)))
        return self

    def bullets(self, items: Iterable[str]) -> Report:
        """Add a bullet list.

        Parameters
        ----------
        items : iterable of str

        Returns
        -------
        Report
        """
        self.blocks.append(("bullets", [self._said(x) for x in items]))
        return self

    def table(self, frame: pd.DataFrame, *, floatfmt: str = "{:.4f}", caption: str | None = None,
              max_rows: int | None = None) -> Report:
        """Add a table.

        Parameters
        ----------
        frame : pandas.DataFrame
        floatfmt : str
        caption : str, optional
            Printed above the table.
        max_rows : int, optional
            Keep the first rows and say how many more the file holds.

        Returns
        -------
        Report
        """
        self.blocks.append(("table", frame, floatfmt, None if caption is None else self._said(caption), max_rows))
        return self

    def warnings(self, warnings: Iterable[str]) -> Report:
        """Add a "Warnings" section: what the loaders skipped, repaired or guessed (nothing when there is none).

        Parameters
        ----------
        warnings : iterable of str

        Returns
        -------
        Report
        """
        if warnings:
            self.heading("Warnings")
            self.bullets(warnings)
        return self

    def figure(self, path: str, caption: str) -> Report:
        """Add a figure by its path relative to the results folder (PNG for the HTML page).

        Parameters
        ----------
        path : str
        caption : str

        Returns
        -------
        Report
        """
        self.blocks.append(("figure", path, self._said(caption)))
        return self

    def figures(self) -> list[str]:
        """The report's figures.

        Returns
        -------
        list of str
            Their paths, relative to the results folder.
        """
        return [b[1] for b in self.blocks if b[0] == "figure"]

    def to_markdown(self) -> str:
        """The report as Markdown (``summary.md``).

        Returns
        -------
        str
        """
        lines = [f"# {md(self.title)}", ""]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                lines += ["#" * block[1] + " " + md(block[2]), ""]
            elif kind == "paragraph":
                lines += [md(block[1]), ""]
            elif kind == "bullets":
                lines += [f"- {md(item)}" for item in block[1]] + [""]
            elif kind == "table":
                _, frame, floatfmt, caption, max_rows = block
                if caption:
                    lines += [md(caption), ""]
                shown = frame if max_rows is None else frame.head(max_rows)
                lines += [md_table(shown, floatfmt), ""]
                if max_rows is not None and len(frame) > max_rows:
                    lines += [f"({len(frame) - max_rows} more rows in the table file)", ""]
            elif kind == "figure":
                lines += [f"![{md(block[2])}]({block[1]})", "", f"*{md(block[2])}*", ""]
        return "\n".join(lines)

    def to_html(self, root: Path | str) -> str:
        """The report as one self-contained HTML page (``report.html``).

        Parameters
        ----------
        root : path
            The results folder: every figure is read from it and embedded as a data URI.

        Returns
        -------
        str
        """
        root = Path(root)
        taken: set = set()
        toc, body = [], []

        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                anchor = _slug(block[2], taken)
                if block[1] == 2:
                    toc.append(f'<li><a href="#{anchor}">{_inline(block[2])}</a></li>')
                body.append(f'<h{block[1]} id="{anchor}">{_inline(block[2])}</h{block[1]}>')
            elif kind == "paragraph":
                body.append(f"<p>{_inline(block[1], root)}</p>")
            elif kind == "bullets":
                body.append("<ul>" + "".join(f"<li>{_inline(i, root)}</li>" for i in block[1]) + "</ul>")
            elif kind == "table":
                body += _html_table(block, root)
            elif kind == "figure":
                body.append(_html_figure(block, root))
        nav = f'<nav class="toc"><p>Contents</p><ol>{"".join(toc)}</ol></nav>' if len(toc) > 1 else ""
        body = [f"<h1>{_inline(self.title)}</h1>", nav, *body]
        return visible("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"  # no name reorders text
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                       f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>"
                       f"<body><main>{''.join(body)}</main></body></html>\n")
