"""One way to run batches of work: in order, locally (joblib) or on a Dask cluster, with a progress bar.

Every parallel pass of the package (the pixel pass over images, the random
orders and bootstrap resamples) cuts its work into fixed-size batches and
hands them to :func:`run_batches`. Results come back in batch order whatever
the number of workers, and randomness is drawn per batch from
:func:`batch_generators` (SPEC 7: child ``b`` of ``rng.spawn``), so the numbers
are identical for any ``n_jobs`` and on Dask.
"""

from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["run_batches", "batch_generators", "batch_sizes", "parallel_backend", "progress_bar"]


def batch_sizes(total: int, batch_size: int) -> list[int]:
    """Fixed-size batches covering ``total`` items (the last one may be smaller)."""
    if total < 1 or batch_size < 1:
        raise ValueError(f"total and batch_size must be >= 1, got {total} and {batch_size}")
    return [min(batch_size, total - start) for start in range(0, total, batch_size)]


def batch_generators(rng, n_batches: int) -> list[np.random.Generator]:
    """One independent generator per batch: the children of ``np.random.default_rng(rng).spawn``."""
    return np.random.default_rng(rng).spawn(n_batches)


def progress_bar(enabled: bool, total: int, desc: str, unit: str = "batch"):
    """A tqdm bar on the terminal, or None."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, leave=False)


def run_batches(fn, batches, *, n_jobs: int = 1, prefer: str | None = None, progress=None, weights=None):
    """Yield ``fn(*args)`` for every ``args`` tuple of ``batches``, in batch order.

    Parameters
    ----------
    fn : callable
    batches : list of tuple
    n_jobs : int
        1 runs in this process; more uses joblib (its default process
        backend, threads with ``prefer='threads'``, or a Dask cluster inside
        :func:`parallel_backend`).
    prefer : {None, 'threads', 'processes'}
        joblib's hint: threads for kernels that release the GIL (numba
        ``nogil``), processes for work holding the GIL (decoding, numpy glue).
    progress : tqdm-like, optional
        Advanced by ``weights[b]`` (default 1) after batch ``b``; closed at the end.
    """
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
    if n_jobs == 1:
        results = (fn(*b) for b in batches)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")(delayed(fn)(*b) for b in batches)
    try:
        for b, r in enumerate(results):
            if progress is not None:
                progress.update(1 if weights is None else weights[b])
            yield r
    finally:
        if progress is not None:
            progress.close()


@contextlib.contextmanager
def parallel_backend(scheduler: str | None = None, *, n_workers: int = 2):
    """Run joblib work on a Dask cluster inside this context.

    ``scheduler`` is a Dask scheduler address, or ``"local"`` to start (and
    stop) a ``dask.distributed.LocalCluster`` on loopback. ``None`` leaves
    joblib's default backend in place.
    """
    if scheduler is None:
        yield None
        return
    import joblib
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, host="127.0.0.1",
                               dashboard_address=None, processes=True)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
