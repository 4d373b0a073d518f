"""One way to run batches of work: in order, locally (joblib) or on a Dask cluster, with a progress bar.

Every parallel pass of the package (the pixel pass over images, the random
orders and bootstrap resamples) cuts its work into fixed-size batches and
hands them to :func:`run_batches`. Results come back in batch order whatever
the number of workers, and randomness is drawn per batch from
:func:`batch_generators` (SPEC 7: child ``b`` of ``rng.spawn``), so the numbers
are identical for any ``n_jobs`` and on Dask.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future
from typing import TYPE_CHECKING

import numpy as np

from robustness._lazy import lazy_module
from robustness.errors import InputError, parameter
from robustness.progress import Progress

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Protocol, TypeVar

    import joblib
    from dask.distributed import Client
    from joblib import _parallel_backends

    from robustness.seeds import SeedLike

    T = TypeVar("T")

    class _Progress(Protocol):
        """What :func:`run_batches` needs of a progress bar (a tqdm bar has it)."""

        def update(self, n: float = 1) -> object: ...
        def close(self) -> None: ...
else:  # joblib is needed only where work runs in parallel (n_jobs > 1)
    joblib = lazy_module("joblib")
    _parallel_backends = lazy_module("joblib._parallel_backends")

__all__ = ["run_batches", "default_backend", "batch_generators", "batch_sizes", "parallel_backend", "progress_bar",
           "check_scheduler", "SCHEDULER_TIMEOUT"]


def batch_sizes(total: int, batch_size: int) -> list[int]:
    """Fixed-size batches covering ``total`` items (the last one may be smaller).

    Parameters
    ----------
    total : int
        Number of items to cover (at least 1).
    batch_size : int
        Items per batch (at least 1).

    Returns
    -------
    list of int
        The size of every batch, in order; they sum to ``total``.

    Raises
    ------
    ValueError
        When ``total`` or ``batch_size`` is below 1.

    Examples
    --------
    >>> batch_sizes(10, 4)
    [4, 4, 2]
    """
    if total < 1 or batch_size < 1:
        raise ValueError(f"total and batch_size must be >= 1, got {total} and {batch_size}")
    return [min(batch_size, total - start) for start in range(0, total, batch_size)]


def batch_generators(rng: SeedLike, n_batches: int) -> list[np.random.Generator]:
    """One independent generator per batch: the children of ``np.random.default_rng(rng).spawn``.

    Parameters
    ----------
    rng : {None, int, array_like of int, numpy.random.SeedSequence, numpy.random.Generator}
        The seed or generator the batches' generators are spawned from (a Generator is advanced by the spawn).
    n_batches : int
        Number of generators.

    Returns
    -------
    list of numpy.random.Generator
        Generator ``b`` draws the randomness of batch ``b``, whichever process runs it.
    """
    return np.random.default_rng(rng).spawn(n_batches)


def progress_bar(enabled: bool, total: int, desc: str, unit: str = "batch", *,
                 shared: bool = False) -> Progress | None:
    """The count of a stage: a tqdm bar on a terminal, the status line's count elsewhere, or None.

    Parameters
    ----------
    enabled : bool
        Whether to show progress (False returns None).
    total : int
        The count the stage reaches when the work is done, in ``unit``.
    desc : str
        The stage's label, e.g. ``"pixel pass"``.
    unit : str
        What the stage counts (default ``"batch"``).
    shared : bool
        The work also advances by fractions of an item (:func:`robustness.progress.advance`, in this process or
        forked workers), shown as they come.

    Returns
    -------
    robustness.progress.Progress or None
        A bar on a terminal (left off it once closed); off a terminal the count the status line of
        :func:`robustness.progress.feedback` prints every 10 s; None when not ``enabled``.
    """
    if not enabled:
        return None

    return Progress(total, desc, unit, shared=shared)


def run_batches(fn: Callable[..., T], batches: Iterable[tuple], *, n_jobs: int = 1, prefer: str | None = None,
                progress: _Progress | None = None, weights: Sequence[float] | None = None,
                fresh: bool = False) -> Iterator[T]:
    """Yield ``fn(*args)`` for every ``args`` tuple of ``batches``, in batch order.

    Parameters
    ----------
    fn : callable
        The work of one batch, called as ``fn(*args)`` (picklable when it runs in worker processes).
    batches : iterable of tuple
        Consumed lazily: at most ``2 * n_jobs`` batches are in flight, so their arguments (and results)
        never pile up in memory.
    n_jobs : int
        1 runs in this process. More uses ``n_jobs - 1`` worker processes and this one (forked on Linux,
        loky's elsewhere; they end with this process: each checks every 0.2 s that its parent is alive),
        threads with ``prefer='threads'``, or whatever joblib backend is active (a Dask cluster inside
        :func:`parallel_backend`).
    prefer : {None, 'threads', 'processes'}
        joblib's hint: threads for kernels that release the GIL (numba
        ``nogil``), processes for work holding the GIL (decoding, numpy glue).
    progress : tqdm-like, optional
        Advanced by ``weights[b]`` (default 1) after batch ``b``; closed at the end. None: no progress shown.
    weights : sequence of float, optional
        How far each batch advances ``progress`` (e.g. its number of images); None advances it by 1 a batch.
    fresh : bool
        Worker processes forked now (on Linux), not those kept from an earlier pass: they start with everything
        registered and imported since (a gold strategy, a ranking method, matplotlib). The pool is this pass's
        own, ended with it; a kept pool stays kept (another pass may be half way through it). A function of a
        script (``__main__``) or of a module imported since the kept pool was made always gets one.

    Yields
    ------
    object
        ``fn(*args)`` of every batch, in batch order.

    Raises
    ------
    ValueError
        When ``n_jobs`` is below 1.
    """
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
    if n_jobs == 1:
        results = (fn(*b) for b in batches)
    elif prefer != "threads" and default_backend():
        results = _in_processes(fn, batches, n_jobs, fresh)
    else:
        results = joblib.Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")(
            joblib.delayed(fn)(*b) for b in batches)
    try:
        for b, r in enumerate(results):
            if progress is not None:
                progress.update(1 if weights is None else weights[b])
            yield r
    finally:
        if progress is not None:
            progress.close()


def default_backend() -> bool:
    """Whether work runs on this machine's processes: no joblib backend (Dask, threading...) was chosen.

    Returns
    -------
    bool
        False inside :func:`parallel_backend` or ``joblib.parallel_config`` with another backend.
    """
    return type(joblib.parallel.get_active_backend()[0]) is _parallel_backends.LokyBackend


def _in_processes(fn, batches, n_jobs, fresh=False):
    """``fn(*b)`` on ``n_jobs - 1`` worker processes (which exit when this process dies) and on this process.

    Where no pool is kept from an earlier pass, this process runs the first batch before any worker starts (forked
    workers then inherit its imports and compiled kernels); a kept pool's workers were forked already, so they
    start at once. A single batch always runs here. The workers' queue is kept two batches deep; whenever it is
    full this process takes the next batch itself, so no core waits. Results in batch order; at most
    ``4 * n_jobs`` batches in flight.
    """
    workers = n_jobs - 1
    fresh = fresh or (_kept(workers) and _defined_since_fork(fn))  # a kept pool may lack fn: one of its own
    batches = iter(batches)
    first = next(batches, None)
    if first is None:
        return
    second = next(batches, None) if not fresh and _kept(workers) else None
    if second is None:
        yield fn(*first)  # here first: forked workers then start with this process's imports and compiled kernels
    else:
        batches = itertools.chain((first, second), batches)
    executor = _pool(workers) if fresh else _executor(workers)  # a fresh pool is this pass's own
    pending: deque = deque()
    interrupted = False

    def ready():
        return pending and (not isinstance(pending[0], Future) or pending[0].done() or len(pending) >= 4 * n_jobs)

    try:
        for b in batches:
            queued = sum(isinstance(p, Future) and not p.done() for p in pending)
            pending.append(executor.submit(fn, *b) if queued < 2 * workers else fn(*b))
            while ready():
                head = pending.popleft()
                yield head.result() if isinstance(head, Future) else head
        while pending:
            head = pending.popleft()
            yield head.result() if isinstance(head, Future) else head
    except KeyboardInterrupt:  # Ctrl-C: the workers (which ignore it) are stopped now, not after their batch
        interrupted = True
        _stop_workers(executor)
        raise
    finally:
        for p in pending:
            if isinstance(p, Future):
                p.cancel()
        if fresh:  # ended with its pass; a pool kept for other passes (perhaps half way through one) is left alone
            executor.shutdown(wait=not interrupted, cancel_futures=True)


#: Idle loky workers exit after this many seconds (all workers also exit as soon as their parent is gone).
WORKER_IDLE_S = 30
_EXECUTOR: list = []  # [(pid, n_workers, executor)]: ours, not joblib's shared one (joblib expects its own type)
_FORKED_WITH: set = set()  # the modules this process held when its pool was made (:func:`_defined_since_fork`)


def _defined_since_fork(fn: Callable) -> bool:
    """Whether a kept pool's workers may lack ``fn``: a script's function, or one of a module imported since.

    A script's (``__main__``) function may have been defined after the workers were forked. Such work gets a pool
    forked now, as ``fresh`` asks (a worker that cannot find the function would break the pool).
    """
    while isinstance(fn, functools.partial):
        fn = fn.func
    module = getattr(fn, "__module__", None)
    return module == "__main__" or module not in _FORKED_WITH


def _kept(workers: int) -> bool:
    """Whether :func:`_executor` would hand back this process's pool of ``workers`` kept from an earlier pass."""
    if not _EXECUTOR:
        return False
    pid, n, ex = _EXECUTOR[0]
    broken = getattr(ex, "_broken", False) or getattr(getattr(ex, "_flags", None), "broken", None)
    return pid == os.getpid() and n == workers and not broken


def _executor(workers: int):
    """The pool of ``workers`` processes of this process, kept between calls (started again when broken).

    On Linux the workers are forked: they start with every module and compiled kernel of this process, in
    milliseconds instead of the second or two a fresh interpreter needs to import numpy, numba and the
    package (which would eat the gain of a pass of a few seconds). Elsewhere they are loky's (spawned).
    """
    if _EXECUTOR:
        pid, _, ex = _EXECUTOR[0]
        if _kept(workers):
            return ex
        _EXECUTOR.clear()
        if pid == os.getpid():
            ex.shutdown(wait=False)
    ex = _pool(workers)
    _EXECUTOR[:] = [(os.getpid(), workers, ex)]
    _FORKED_WITH.clear()
    _FORKED_WITH.update(sys.modules)  # the workers fork on their first task, with at least these
    return ex


def _pool(workers: int):
    """A new pool of ``workers`` processes (:func:`_executor`'s kind), kept by no one."""
    if sys.platform.startswith("linux"):
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_watch_parent, initargs=(os.getpid(),))
    from joblib.externals.loky import ProcessPoolExecutor as LokyPool

    return LokyPool(max_workers=workers, timeout=WORKER_IDLE_S, initializer=_watch_parent, initargs=(os.getpid(),))


def _stop_workers(also=None) -> None:
    """Terminate this process's kept pool, and the pool ``also``, at once (after Ctrl-C).

    No batch is finished, nothing is printed.
    """
    pools = [ex for pid, _, ex in _EXECUTOR if pid == os.getpid()] + ([also] if also is not None else [])
    for ex in dict.fromkeys(pools):
        for p in list((getattr(ex, "_processes", None) or {}).values()):
            p.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
    _EXECUTOR.clear()


@atexit.register
def _shutdown() -> None:
    """Stop our pool before the interpreter tears modules down under its callbacks."""
    for pid, _, ex in _EXECUTOR:
        if pid == os.getpid():
            ex.shutdown(wait=True, cancel_futures=True)
    _EXECUTOR.clear()


def _watch_parent(parent: int) -> None:
    """Worker initializer: a daemon thread ends the worker once ``parent`` is gone (e.g. killed by SIGKILL).

    Workers ignore Ctrl-C (SIGINT, which the terminal sends to every process of the job): the parent alone
    handles it, says ``interrupted`` and stops them, so no worker prints a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


#: Seconds a Dask scheduler has to accept a connection and send its greeting (the first message of Dask's
#: handshake), checked before any work: a listener that accepts and never answers would otherwise hang the client.
SCHEDULER_TIMEOUT = 5.0
_GREETING_BYTES = 1 << 16  # a scheduler's greeting is about 60 bytes; anything near this is not one


def _address(address: str) -> tuple[str, int]:
    """``(host, port)`` of ``tcp://HOST:PORT`` or ``HOST:PORT``; ValueError naming the address otherwise."""
    rest = address
    if "://" in address:
        scheme, rest = address.split("://", 1)
        if scheme != "tcp":
            raise ValueError(f"{address}: the {scheme}:// transport is not supported; give tcp://HOST:PORT, "
                             "HOST:PORT or 'local'")
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{address}: expected HOST:PORT, tcp://HOST:PORT or 'local'")
    return host.strip("[]"), int(port)


def check_scheduler(address: str, *, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Check that a Dask scheduler answers at ``address`` within ``timeout`` seconds, all told.

    Connects, and reads the greeting a Dask scheduler sends first (its handshake: a small message of Dask's
    framing that decodes to a dict), without ever trusting a length it announces beyond a few kilobytes: a
    listener that accepts and stays silent is refused after ``timeout``, a server of another protocol is
    refused at once (Dask itself would try to allocate whatever its first bytes announce).

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT`` or ``HOST:PORT``.
    timeout : float
        Seconds, all told, to connect and receive the greeting (default :data:`SCHEDULER_TIMEOUT`).

    Raises
    ------
    ValueError
        Not a TCP address (``inproc://``, ``ucx://``, ``tls://`` are refused: this package passes no
        certificates and runs its workers in other processes).
    InputError
        Nothing answers, nothing is said within ``timeout``, or what is said is not a Dask greeting.
    """
    host, port = _address(address)
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise InputError(f"no Dask scheduler answers at {address} ({exc.strerror or type(exc).__name__})") from None

    def receive(n):
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError
            data += chunk
        return data

    with sock:
        try:
            (size,) = struct.unpack("<Q", receive(8))
            if not 8 <= size <= _GREETING_BYTES:
                raise ValueError
            from distributed.protocol.core import loads
            from distributed.protocol.utils import unpack_frames

            frames, rest = unpack_frames(receive(size), partial=True)
            greeting = loads(frames, deserialize=False) if not rest else None
        except TimeoutError:
            raise InputError(f"no Dask scheduler answers at {address}: it accepted the connection but said nothing "
                             f"within {timeout:g} s") from None
        except (ConnectionError, OSError):
            raise InputError(f"no Dask scheduler answers at {address}: it closed the connection without a Dask "
                             "greeting") from None
        except Exception:
            greeting = None
    if not isinstance(greeting, dict) or "compression" not in greeting:
        raise InputError(f"no Dask scheduler answers at {address}: what answers there does not speak Dask's "
                         "protocol")


@contextlib.contextmanager
def parallel_backend(scheduler: str | None = None, *, n_workers: int = 2) -> Iterator[Client | None]:
    """Run joblib work on a Dask cluster inside this context.

    ``scheduler`` is a Dask scheduler address (``tcp://HOST:PORT`` or ``HOST:PORT``, first checked with
    :func:`check_scheduler`), or ``"local"`` to start (and stop) a ``dask.distributed.LocalCluster`` on
    loopback. ``None`` leaves joblib's default backend in place.

    Parameters
    ----------
    scheduler : str, optional
        The Dask scheduler's address, ``"local"``, or None (joblib's default backend, no Dask).
    n_workers : int
        Worker processes of the local cluster (``"local"`` only; default 2).

    Yields
    ------
    dask.distributed.Client or None
        The client connected to the cluster (closed, with a local cluster, on leaving the context), or None
        when ``scheduler`` is None.

    Raises
    ------
    InputError
        When the address is not a TCP one, nothing answers there as a Dask scheduler, or Dask cannot connect.
    """
    if scheduler is None:
        yield None
        return

    if scheduler != "local":
        try:
            check_scheduler(scheduler)
        except ValueError as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(f"{parameter('parallel_backend', 'scheduler')} {exc}") from None
    from dask.distributed import Client, LocalCluster

    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, host="127.0.0.1",
                                   dashboard_address=None, processes=True)
            client = Client(cluster, timeout=SCHEDULER_TIMEOUT * 2)
        else:
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT * 2)
    except Exception as exc:  # whatever Dask raises, the user needs one line
        if cluster is not None:
            cluster.close()
        raise InputError(f"{parameter('parallel_backend', 'scheduler')} {scheduler}: cannot use the Dask cluster "
                         f"({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
