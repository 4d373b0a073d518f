"""Threads for the numba kernels between parallel batches: a large call's rows split over the cores given.

The batches of :mod:`robustness.parallel` keep the cores busy where a pass has many batches. Between them, a
study may make large kernel calls one at a time (the distance to unlimited data's estimate on the test set and its
prior-sensitivity band: 10,000 rankings per call). Inside :func:`threads_for_kernels`, such a call cuts its
independent rows into blocks and ranks them on :func:`thread_map`'s threads; the kernels release the GIL
(``nogil=True``). Every row is computed alone, so the numbers are the same for any number of threads.
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import TypeVar

    T = TypeVar("T")

__all__ = ["kernel_threads", "threads_for_kernels", "thread_map"]

#: Threads a kernel call may split its rows over (:func:`threads_for_kernels`); a context variable, so a batch's
#: worker thread, which starts in a context of its own, sees 1 and never splits again.
_KERNEL_THREADS: ContextVar[int] = ContextVar("kernel_threads", default=1)
_THREADS: list = []  # [(pid, n, ThreadPoolExecutor)]


def kernel_threads() -> int:
    """The threads a kernel call made here may use (1 unless inside :func:`threads_for_kernels`).

    Returns
    -------
    int
    """
    return _KERNEL_THREADS.get()


@contextlib.contextmanager
def threads_for_kernels(n_jobs: int) -> Iterator[None]:
    """Let the kernel calls made in this thread split their rows over ``n_jobs`` threads (:func:`thread_map`).

    For the serial stretches between parallel batches (a large kernel call that no batch surrounds): the calls
    whose rows are independent cut them into blocks, one per thread, and the numbers are the same for any
    ``n_jobs``.

    Parameters
    ----------
    n_jobs : int
        Threads (values below 1 count as 1).

    Returns
    -------
    contextlib.AbstractContextManager
        Inside it, :func:`kernel_threads` gives ``n_jobs`` in this thread.
    """
    token = _KERNEL_THREADS.set(max(int(n_jobs), 1))
    try:
        yield
    finally:
        _KERNEL_THREADS.reset(token)


def thread_map(fn: Callable[..., T], items: Sequence, n_threads: int) -> list[T]:
    """``[fn(*item) for item in items]``, the items spread over ``n_threads`` threads (this one included).

    For numba kernels that release the GIL (``nogil=True``); the results come back in the items' order.

    Parameters
    ----------
    fn : callable
    items : sequence of tuple
        The arguments of each call.
    n_threads : int
        Threads, this one included (1: every call here, in order).

    Returns
    -------
    list
        ``fn(*item)`` for every item, in order.
    """
    if n_threads <= 1 or len(items) <= 1:
        return [fn(*item) for item in items]
    if not _THREADS or _THREADS[0][0] != os.getpid() or _THREADS[0][1] < n_threads - 1:
        if _THREADS and _THREADS[0][0] == os.getpid():
            _THREADS[0][2].shutdown(wait=False)
        _THREADS[:] = [(os.getpid(), n_threads - 1, ThreadPoolExecutor(n_threads - 1, "kernel"))]
    futures = [_THREADS[0][2].submit(fn, *item) for item in items[1:]]
    first = fn(*items[0])  # this thread works too
    return [first] + [f.result() for f in futures]
