"""Feedback on long work: a bar on a terminal, a status line at least every 10 s otherwise.

A command opens :func:`feedback` around its work. Inside it, :func:`stage` names what is being done (the
commands' own progress lines do), and :class:`Progress` counts the steps of a stage (the pixel pass, the
resamples, the replicates). On a terminal each counted stage is a tqdm bar; elsewhere (a log file, a pipe, a
batch job) a daemon thread prints one line on stderr whenever 10 s pass without one:
``[42 s] bootstrap (mean): 12/40 batches (30%)``. Stages with nothing to count get the same line without the
count, so a fit that takes minutes still says it is alive. Nothing is printed with ``--quiet``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

from tqdm.auto import tqdm

__all__ = ["EVERY", "Progress", "feedback", "stage"]

#: Seconds without a line after which the status line is printed (off a terminal).
EVERY = 10.0


class _State:
    """What the status line says: the stage, its count, and when the last line was printed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.last = time.monotonic()
        self.stage = "starting"
        self.done: float | None = None
        self.total: float | None = None
        self.unit = ""
        self.bars = 0

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        count = ""
        total, done = self.total, self.done or 0.0
        if total:
            count = (f": {done:g}/{total:g} {self.unit}{'es' if self.unit.endswith('h') else 's'} "
                     f"({done / total:.0%})")
        return f"[{elapsed:.0f} s] {self.stage}{count}"


_STATE = _State()


def _beat(stop: threading.Event, every: float, stream, terminal: bool) -> None:
    while not stop.wait(min(1.0, every / 4)):
        with _STATE.lock:
            if terminal and _STATE.bars:  # the bar says it
                continue
            if time.monotonic() - _STATE.last >= every:
                print(_STATE.line(), file=stream, flush=True)
                _STATE.last = time.monotonic()


@contextlib.contextmanager
def feedback(enabled: bool, *, every: float | None = None, stream: TextIO | None = None) -> Iterator[None]:
    """Status lines on ``stream`` (stderr) every ``every`` seconds without output, while the block runs.

    Parameters
    ----------
    enabled : bool
        False (``--quiet``): nothing is printed, the bars are off too.
    every : float, optional
        Seconds without a line before the status line is printed (default :data:`EVERY`, read when called).
    stream : file, optional
        Where the lines go (default ``sys.stderr``).

    Yields
    ------
    None
    """
    stream = sys.stderr if stream is None else stream
    every = EVERY if every is None else every
    if not enabled:
        yield
        return
    terminal = bool(getattr(stream, "isatty", lambda: False)())
    with _STATE.lock:
        _STATE.started, _STATE.last = time.monotonic(), time.monotonic()
        _STATE.stage, _STATE.done, _STATE.total, _STATE.bars = "starting", None, None, 0
    stop = threading.Event()
    thread = threading.Thread(target=_beat, args=(stop, every, stream, terminal), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def stage(text: str, *, printed: bool = True) -> None:
    """Name the work now running (the status line's subject); ``printed``: the caller printed it (a fresh line).

    Parameters
    ----------
    text : str
        What is being done, e.g. ``"fitting the generator"``.
    printed : bool
        The text was just printed: the next status line is due ``EVERY`` seconds from now.
    """
    with _STATE.lock:
        _STATE.stage, _STATE.done, _STATE.total = text, None, None
        if printed:
            _STATE.last = time.monotonic()


def terminal() -> bool:
    """Whether stderr is a terminal (bars) rather than a file or a pipe (status lines).

    Returns
    -------
    bool
    """
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def _columns() -> int:
    """The terminal's width as stderr sees it (0 when it has none)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 0


class Progress:
    """The count of one stage: a tqdm bar on a terminal, the status line's count elsewhere.

    Parameters
    ----------
    total : int
        The count the stage reaches.
    desc : str
        The stage, e.g. ``"pixel pass"``.
    unit : str
        What is counted.
    """

    def __init__(self, total: int, desc: str, unit: str = "batch") -> None:
        self._bar = None
        if terminal():


            # a pseudo-terminal without a size (script, some CI runners) reports 0 columns: tqdm then draws nothing
            sized = _columns() > 0  # tqdm hides a bar below a height of 0 rows and draws it 0 columns wide
            self._bar = tqdm(total=total, desc=desc, unit=unit, leave=False,
                             ncols=None if sized else shutil.get_terminal_size((80, 24)).columns or 80,
                             nrows=None if sized else 24)
        with _STATE.lock:
            self._before = (_STATE.stage, _STATE.done, _STATE.total, _STATE.unit)
            _STATE.stage, _STATE.done, _STATE.total, _STATE.unit = desc, 0, total, unit
            _STATE.bars += self._bar is not None
        self.n: float = 0
        self._open = True

    def update(self, n: float = 1) -> None:
        """Advance the count by ``n``.

        Parameters
        ----------
        n : float
        """
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        with _STATE.lock:
            _STATE.done = self.n

    def close(self) -> None:
        """End the stage (the bar leaves the terminal; the status line names the enclosing stage again)."""
        if not self._open:
            return
        self._open = False
        if self._bar is not None:
            self._bar.close()
        with _STATE.lock:
            _STATE.bars -= self._bar is not None
            _STATE.stage, _STATE.done, _STATE.total, _STATE.unit = self._before
        self._bar = None

    def __enter__(self) -> Progress:
        """The stage, counted inside a ``with`` block."""
        return self

    def __exit__(self, *exc) -> None:
        """Close the stage."""
        self.close()
