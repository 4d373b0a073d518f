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
import mmap
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from robustness._lazy import lazy_module

if TYPE_CHECKING:
    import tqdm.auto as tqdm_auto
else:  # a bar is drawn only on a terminal
    tqdm_auto = lazy_module("tqdm.auto")

__all__ = ["EVERY", "Progress", "feedback", "stage", "advance"]

#: Seconds without a line after which the status line is printed (off a terminal).
EVERY = 10.0

#: Work done within a counted stage's items, in items (a fraction of an image of the pixel pass), one slot per
#: process: shared memory that forked workers inherit, each process adding to its own slot only (no lock, so a
#: worker stopped at any moment leaves nothing locked). A stage counted with ``shared=True`` shows their sum.
_SLOTS = 256
_MEMORY = mmap.mmap(-1, _SLOTS * 8)  # anonymous and shared: forked workers write into the same pages
_SHARED = memoryview(_MEMORY).cast("d")


def advance(items: float) -> None:
    """Add ``items`` (a fraction of an item) to the counted stage's work done, from this process or a worker.

    The items of a ``shared`` stage (:class:`Progress`) are counted this way as they advance: each item's
    fractions add up to 1. Elsewhere the call costs a store and shows nothing.

    Parameters
    ----------
    items : float
    """
    _SHARED[os.getpid() % _SLOTS] += items


def _shared_done() -> float:
    return float(sum(_SHARED))


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
        self.shared: Progress | None = None  # the counted stage whose items advance in shared memory

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        count = ""
        total, done = self.total, self.done or 0.0
        if self.shared is not None:
            done = max(done, min(_shared_done(), total or 0.0))
        if total:
            shown = f"{round(done):g}" if abs(done - round(done)) < 1e-6 else f"{done:.1f}"
            count = (f": {shown}/{total:g} {self.unit}{'es' if self.unit.endswith('h') else 's'} "
                     f"({done / total:.0%})")
        return f"[{elapsed:.0f} s] {self.stage}{count}"


_STATE = _State()


def _beat(stop: threading.Event, every: float, stream, terminal: bool) -> None:
    while not stop.wait(min(1.0, every / 4)):
        with _STATE.lock:
            if _STATE.shared is not None:
                _STATE.shared.refresh()
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
    shared : bool
        The items also advance by fractions (:func:`advance`, from this process or forked workers): the count
        shows them as they come (a 3D image whose metrics take minutes moves the count), not only whole items.
    """

    def __init__(self, total: int, desc: str, unit: str = "batch", *, shared: bool = False) -> None:
        self._bar = None
        if terminal():


            # a pseudo-terminal without a size (script, some CI runners) reports 0 columns: tqdm then draws nothing
            sized = _columns() > 0  # tqdm hides a bar below a height of 0 rows and draws it 0 columns wide
            self._bar = tqdm_auto.tqdm(total=total, desc=desc, unit=unit, leave=False,
                                       ncols=None if sized else shutil.get_terminal_size((80, 24)).columns or 80,
                                       nrows=None if sized else 24)
        with _STATE.lock:
            self._before = (_STATE.stage, _STATE.done, _STATE.total, _STATE.unit, _STATE.shared)
            _STATE.stage, _STATE.done, _STATE.total, _STATE.unit = desc, 0, total, unit
            _STATE.bars += self._bar is not None
            if shared:
                _MEMORY[:] = bytes(_SLOTS * 8)
                _STATE.shared = self
        self.n: float = 0
        self.total = total
        self._shared = shared
        self._open = True

    def refresh(self) -> None:
        """Show the fractions advanced in shared memory on the bar (the status line reads them itself)."""
        if self._bar is not None:
            done = max(self.n, min(_shared_done(), self.total))
            if done > self._bar.n:
                self._bar.n = round(done, 2)
                self._bar.refresh()

    def update(self, n: float = 1) -> None:
        """Advance the count by ``n``.

        Parameters
        ----------
        n : float
        """
        self.n += n
        if self._bar is not None:
            if self._shared:  # the bar may already show part of these items
                self._bar.n = round(max(self.n, min(_shared_done(), self.total)), 2)
                self._bar.refresh()
            else:
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
            _STATE.stage, _STATE.done, _STATE.total, _STATE.unit, _STATE.shared = self._before
        self._bar = None

    def __enter__(self) -> Progress:
        """The stage, counted inside a ``with`` block."""
        return self

    def __exit__(self, *exc) -> None:
        """Close the stage."""
        self.close()
