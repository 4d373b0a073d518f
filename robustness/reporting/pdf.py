"""A report as a printable PDF (``report.pdf``): the same blocks as ``summary.md`` and ``report.html`` on A4 pages.

Drawn with matplotlib's PDF backend (no LaTeX, no browser): headings, paragraphs and bullets wrapped to the page,
tables in a fixed-width font (shrunk to fit the width, down to 5.5 points; wider tables wrap their widest
columns' cells onto more lines; long tables continue on the next page), each figure scaled to the page width
with its caption, and page numbers. Every text is drawn as given, never parsed as mathematics (a run named
``$x$`` prints as ``$x$``). Figures are read from the results folder, never through a link that leaves it.
"""

from __future__ import annotations

import io
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import matplotlib.image as mpimg
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages

from robustness.files import MAX_FIGURE_BYTES, read_inside
from robustness.reporting.document import cells_of
from robustness.results.escape import visible

if TYPE_CHECKING:
    from robustness.reporting.document import Report

__all__ = ["to_pdf"]


_PAGE = (8.27, 11.69)  # A4, inches
_MARGIN = 0.7
_WIDTH_CHARS = 100  # characters of 9-point body text on a line
_TEXT_WIDTH = _PAGE[0] - 2 * _MARGIN  # inches
_SMALLEST = 5.5  # points: a table's font at its smallest (wider tables wrap their widest columns)


def _plain(text: str) -> str:
    """Inline markup (``**bold**``, ```code```) dropped for the page."""
    return re.sub(r"\*\*(.+?)\*\*", r"\1", re.sub(r"`([^`]*)`", r"\1", str(text)))


class _Pages:
    """A writer of text lines and images down A4 pages."""

    def __init__(self, pdf, title: str) -> None:
        self.plt, self.pdf, self.title = plt, pdf, title
        self.number = 0
        self.fig: Any = None
        self.y = 0.0
        self._new()

    def _new(self) -> None:
        if self.fig is not None:
            self._close()
        self.fig = self.plt.figure(figsize=_PAGE)
        self.number += 1
        self.y = _PAGE[1] - _MARGIN

    def _close(self) -> None:
        self.fig.text(0.5, 0.35 / _PAGE[1], f"{self.title}: page {self.number}", ha="center", fontsize=7,
                      color="0.4", parse_math=False)
        self.pdf.savefig(self.fig)
        self.plt.close(self.fig)

    def room(self, inches: float) -> None:
        """Start a new page unless ``inches`` fit below."""
        if self.y - inches < _MARGIN and self.y < _PAGE[1] - _MARGIN:
            self._new()

    def line(self, text: str, *, size: float = 9.0, weight: str = "normal", family: str = "sans-serif",
             indent: float = 0.0, color: str = "black") -> None:
        """One line of text at the current height."""
        step = size * 1.45 / 72
        self.room(step)
        self.fig.text((_MARGIN + indent) / _PAGE[0], (self.y - size / 72) / _PAGE[1], visible(text), fontsize=size,
                      weight=weight, family=family, color=color, parse_math=False, va="baseline")
        self.y -= step

    def gap(self, inches: float) -> None:
        self.y -= inches

    def image(self, png: bytes, caption: str) -> None:
        """A figure scaled to the page's width (or height), its caption below."""
        picture = mpimg.imread(io.BytesIO(png), format="png")
        h_px, w_px = picture.shape[:2]
        width = _PAGE[0] - 2 * _MARGIN
        height = width * h_px / w_px
        most = _PAGE[1] - 2 * _MARGIN - 0.9
        if height > most:
            width, height = width * most / height, most
        self.room(height + 0.2)
        ax = self.fig.add_axes(((_PAGE[0] - width) / 2 / _PAGE[0], (self.y - height) / _PAGE[1],
                                width / _PAGE[0], height / _PAGE[1]))
        ax.imshow(picture, interpolation="none")
        ax.set_axis_off()
        self.y -= height + 0.1
        for text in textwrap.wrap(_plain(caption), 120) or [""]:
            self.line(text, size=7.5, color="0.25")

    def finish(self) -> None:
        self._close()


def _table_lines(frame, floatfmt: str, budget: int) -> list[str]:
    """The table as fixed-width lines at most ``budget`` characters wide: the widest columns wrapped first."""
    rows = [[str(c) for c in frame.columns]] + cells_of(frame, floatfmt)
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    while sum(widths) + 2 * (len(widths) - 1) > budget and max(widths) > 8:
        widths[widths.index(max(widths))] -= 1
    lines = []
    for n, row in enumerate(rows):
        parts = [textwrap.wrap(v, w, break_long_words=True, break_on_hyphens=False) or [""]
                 for v, w in zip(row, widths)]
        for k in range(max(len(p) for p in parts)):
            lines.append("  ".join((p[k] if k < len(p) else "").ljust(w) for p, w in zip(parts, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _heading(pages: _Pages, block: tuple, root: Path) -> None:
    size = {2: 12.5, 3: 10.5}.get(block[1], 10)
    pages.room(0.9)
    pages.gap(0.12)
    for text in textwrap.wrap(_plain(block[2]), 80):
        pages.line(text, size=size, weight="bold")
    pages.gap(0.04)


def _paragraph(pages: _Pages, block: tuple, root: Path) -> None:
    for text in textwrap.wrap(_plain(block[1]), _WIDTH_CHARS) or [""]:
        pages.line(text)
    pages.gap(0.08)


def _bullets(pages: _Pages, block: tuple, root: Path) -> None:
    for item in block[1]:
        for k, text in enumerate(textwrap.wrap(_plain(item), _WIDTH_CHARS - 4) or [""]):
            pages.line(("• " if k == 0 else "  ") + text, indent=0.1)
    pages.gap(0.08)


def _table(pages: _Pages, block: tuple, root: Path) -> None:
    """A table in a fixed-width font, shrunk to the width (down to :data:`_SMALLEST`), its caption above."""
    _, frame, floatfmt, caption, max_rows = block
    if caption:
        for text in textwrap.wrap(_plain(caption), _WIDTH_CHARS + 10):
            pages.line(text, size=8, color="0.25")
    shown = frame if max_rows is None else frame.head(max_rows)
    natural = max(len(x) for x in _table_lines(shown, floatfmt, 10**6))
    size = max(_SMALLEST, min(7.5, _TEXT_WIDTH * 72 / (0.6 * max(natural, 1))))
    for text in _table_lines(shown, floatfmt, int(_TEXT_WIDTH * 72 / (0.6 * size))):
        pages.line(text, size=size, family="monospace")
    if max_rows is not None and len(frame) > max_rows:
        pages.line(f"({len(frame) - max_rows} more rows in the table file)", size=7.5, color="0.25")
    pages.gap(0.1)


def _figure(pages: _Pages, block: tuple, root: Path) -> None:
    pages.image(read_inside(root, block[1], limit=MAX_FIGURE_BYTES, what="figure"), block[2])
    pages.gap(0.1)


#: How each kind of block of a :class:`~robustness.reporting.document.Report` goes onto the pages.
_BLOCKS = {"heading": _heading, "paragraph": _paragraph, "bullets": _bullets, "table": _table, "figure": _figure}


def to_pdf(report: Report, root: Path | str) -> bytes:
    """The report as a PDF document.

    Parameters
    ----------
    report : Report
    root : path
        The results folder (its figures are read from it).

    Returns
    -------
    bytes
    """
    root = Path(root)
    buffer = io.BytesIO()
    with matplotlib.rc_context({"font.family": "sans-serif", "pdf.fonttype": 42}), \
            PdfPages(buffer, metadata={"Title": _plain(report.title), "Creator": "robustness"}) as pdf:
        pages = _Pages(pdf, _plain(report.title))
        for text in textwrap.wrap(_plain(report.title), 60):
            pages.line(text, size=15, weight="bold")
        pages.gap(0.1)
        for block in report.blocks:
            _BLOCKS[block[0]](pages, block, root)
        pages.finish()
    return buffer.getvalue()
