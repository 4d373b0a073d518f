"""robustness.background: one piece of work in a forked process, its result, errors and warnings back here."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import warnings

import numpy as np
import pytest

from robustness import background

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the work is forked on Linux only")


def _pid_and_sum(values):
    return os.getpid(), float(np.sum(values))


def _fails(message):
    raise ValueError(message)


def _warns(message):
    warnings.warn(message, RuntimeWarning, stacklevel=1)
    return 7


def _unpicklable():
    return threading.Lock()  # a lock does not pickle


def _sleeps(seconds):
    time.sleep(seconds)
    return seconds


@linux
def test_forked_with_two_jobs_here_with_one_and_the_same_result():
    values = np.arange(10.0)
    pid, total = background.start(_pid_and_sum, values, n_jobs=2).result()
    assert pid != os.getpid() and total == 45.0
    pid, total = background.start(_pid_and_sum, values, n_jobs=1).result()
    assert pid == os.getpid() and total == 45.0


@linux
def test_under_another_joblib_backend_the_work_runs_here():
    import joblib

    with joblib.parallel_config(backend="threading"):
        pid, _ = background.start(_pid_and_sum, [1.0], n_jobs=2).result()
    assert pid == os.getpid()


@linux
def test_an_error_of_the_work_is_raised_where_the_result_is_asked_for():
    job = background.start(_fails, "bad input in image 3", n_jobs=2)
    with pytest.raises(ValueError, match="bad input in image 3"):
        job.result()


@linux
def test_the_works_warnings_are_raised_here():
    job = background.start(_warns, "a note from the child", n_jobs=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert job.result() == 7
    assert [str(w.message) for w in caught] == ["a note from the child"]
    assert caught[0].category is RuntimeWarning


@linux
def test_a_result_that_does_not_pickle_is_an_error_naming_it():
    with pytest.raises(RuntimeError, match="pickle|Lock"):
        background.start(_unpicklable, n_jobs=2).result()


@linux
def test_a_result_never_asked_for_leaves_no_process():
    job = background.start(_sleeps, 30.0, n_jobs=2)
    process = job._process
    assert process.is_alive()
    del job
    gc.collect()
    process.join(timeout=5)
    assert not process.is_alive()


@linux
def test_cancel_stops_the_work():
    job = background.start(_sleeps, 30.0, n_jobs=2)
    started = time.monotonic()
    job.cancel()
    assert not job._process.is_alive() and time.monotonic() - started < 5
