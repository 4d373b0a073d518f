"""One piece of work on a core of its own while this process goes on: a forked process and its result.

A study's stages that run on one core whatever ``n_jobs`` is (a table computed run by run, with no batches to
share) leave the other core idle. :func:`start` forks a process that does such a piece of work beside the
stages that follow, and :meth:`Background.result` collects its result where the work stood before. The child
computes exactly what this process would have (the same function, arguments and seeds), so the numbers do not
depend on ``n_jobs``; with one job, off Linux, or under a chosen joblib backend (Dask), the work runs here, when
its result is asked for.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from robustness.parallel import default_backend

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Background", "start"]

T = TypeVar("T")


class Background(Generic[T]):
    """The result of ``fn(*args)``, computed in a forked process or, when asked for, here.

    Parameters
    ----------
    fn : callable
        The work.
    args : tuple
        Its arguments (inherited by the forked process, not pickled).
    forked : bool
        Whether to fork a process now.
    """

    def __init__(self, fn: Callable[..., T], args: tuple, forked: bool) -> None:
        self._fn, self._args = fn, args
        self._process: Any = None
        if forked:
            ctx = multiprocessing.get_context("fork")
            self._receive, send = ctx.Pipe(duplex=False)
            self._process = ctx.Process(target=_child, args=(fn, args, send, os.getpid()), daemon=True)
            self._process.start()
            send.close()
            weakref.finalize(self, _stop, self._process)  # a result never asked for (an error above): no child left

    def result(self) -> T:
        """Wait for the work and return its result; the warnings it raised are raised here too.

        Returns
        -------
        object
            ``fn(*args)``.

        Raises
        ------
        Exception
            The exception the work raised (re-raised here; a worker that died says so in a RuntimeError).
        """
        if self._process is None:
            return self._fn(*self._args)
        try:
            try:
                status, value, said = self._receive.recv()
            except EOFError:
                self._process.join()
                raise RuntimeError(f"the background work {getattr(self._fn, '__name__', self._fn)!r} ended "
                                   f"without a result (exit code {self._process.exitcode})") from None
            self._process.join()
        except BaseException:  # Ctrl-C or a failure: the child stops now
            self.cancel()
            raise
        finally:
            self._receive.close()
        for message, category, filename, lineno in said:
            warnings.warn_explicit(message, category, filename, lineno)
        if status == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the forked process (if any) without waiting for its work."""
        if self._process is not None:
            _stop(self._process)


def start(fn: Callable[..., T], *args: Any, n_jobs: int = 1) -> Background[T]:
    """Start ``fn(*args)`` beside this process's work when ``n_jobs`` allows a second core.

    Parameters
    ----------
    fn : callable
        The work; its result must be picklable (it comes back through a pipe).
    *args
        Its arguments.
    n_jobs : int
        The cores the caller was given: above 1, on Linux and under joblib's default backend, the work runs in a
        process forked now; otherwise here, when :meth:`Background.result` is called.

    Returns
    -------
    Background
        Call :meth:`Background.result` where the result is needed.

    Examples
    --------
    >>> start(sum, [1, 2, 3], n_jobs=1).result()
    6
    """
    forked = n_jobs > 1 and sys.platform.startswith("linux") and default_backend()
    return Background(fn, args, forked)


def _stop(process: Any) -> None:
    """Terminate ``process`` if it still runs, and reap it."""
    if process.is_alive():
        process.terminate()
    process.join()


def _child(fn: Callable, args: tuple, send: Any, parent: int) -> None:
    """The forked process: ignore Ctrl-C (the parent stops it), end with the parent, send the result back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
    with warnings.catch_warnings(record=True) as caught:  # the parent's filters, recorded to be raised there
        try:
            out: tuple = ("ok", fn(*args))
        except Exception as exc:  # sent to the parent, which raises it where the result was asked for
            out = ("error", exc)
    said = [(str(w.message), w.category, w.filename, w.lineno) for w in caught]
    try:
        send.send((*out, said))
    except Exception:  # an exception or a result that does not pickle: its traceback, as text
        send.send(("error", RuntimeError(traceback.format_exc()), said))
    send.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no atexit handlers of the parent's (its pools, its files) run in the child
