"""The batch runner: results in order for any n_jobs, bounded work in flight, no orphaned workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from robustness.parallel import run_batches
from tests.conftest import REPO


def _square(x):
    return x * x


def test_in_order_for_any_n_jobs_and_lazy():
    batches = ((i,) for i in range(40))  # a generator: consumed as workers free up
    assert list(run_batches(_square, batches, n_jobs=2)) == [i * i for i in range(40)]
    assert list(run_batches(_square, [(i,) for i in range(5)], n_jobs=1)) == [0, 1, 4, 9, 16]
    with pytest.raises(ValueError, match="n_jobs must be >= 1, got 0"):
        list(run_batches(_square, [(1,)], n_jobs=0))


def _pid(_):
    return os.getpid()


def test_a_kept_pool_starts_at_once_and_a_single_batch_stays_here():
    list(run_batches(_square, [(i,) for i in range(4)], n_jobs=2))  # a pool of one worker, kept
    # a single batch runs in this process, kept pool or not (a local function would not reach a worker)
    assert list(run_batches(lambda x: os.getpid(), [(0,)], n_jobs=2)) == [os.getpid()]
    # with the kept pool, the worker takes the first batch at once (a fresh pool's first batch runs here)
    pids = list(run_batches(_pid, [(i,) for i in range(6)], n_jobs=2))
    assert len(pids) == 6 and pids[0] != os.getpid()
    assert list(run_batches(_pid, [(i,) for i in range(6)], n_jobs=2, fresh=True))[0] == os.getpid()



def test_a_scripts_function_defined_after_the_pool_was_kept_still_runs():
    """A kept pool's workers were forked before a script defined its next function: that work gets workers forked
    now (before, the worker could not find the function and the pool broke with a traceback)."""
    import functools
    import types

    list(run_batches(_square, [(i,) for i in range(4)], n_jobs=2))  # a pool of one worker, kept
    main = sys.modules["__main__"]

    def cube(x):
        return x ** 3

    cube.__module__, cube.__qualname__ = "__main__", "robustness_test_cube"
    setattr(main, "robustness_test_cube", cube)  # pickled by reference: found in this process only
    try:
        for fn in (cube, functools.partial(cube)):
            assert list(run_batches(fn, [(i,) for i in range(6)], n_jobs=2)) == [i ** 3 for i in range(6)]
        # a module imported after the pool was made: the same
        late = types.ModuleType("robustness_test_late_module")
        exec("def double(x):\n    return 2 * x\n", late.__dict__)
        sys.modules[late.__name__] = late
        assert list(run_batches(late.double, [(i,) for i in range(6)], n_jobs=2)) == [2 * i for i in range(6)]
        # such a pass's own pool leaves the kept pool alone: a pass half way through it goes on (it used to be shut
        # down under it: "cannot schedule new futures after shutdown")
        first = run_batches(os.path.join, [("a", str(i)) for i in range(40)], n_jobs=2)
        head = [next(first) for _ in range(5)]
        assert list(run_batches(cube, [(i,) for i in range(20)], n_jobs=2)) == [i ** 3 for i in range(20)]
        assert head + list(first) == [os.path.join("a", str(i)) for i in range(40)]
    finally:
        delattr(main, "robustness_test_cube")
        sys.modules.pop("robustness_test_late_module", None)

def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its (dead) parent's reaper counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def test_workers_end_with_their_parent():
    """SIGKILL the parent of a pixel-pass-like job: its loky workers exit within seconds, not minutes."""
    script = textwrap.dedent("""
        import os, sys, time
        from robustness.parallel import run_batches

        def work(i):
            if os.getpid() != PARENT:
                time.sleep(0.5 if i < 4 else 60)
            return os.getpid()

        PARENT = os.getpid()
        pids = set()
        for pid in run_batches(work, [(i,) for i in range(12)], n_jobs=3):  # 2 workers and this process
            pids.add(pid)
            if len(pids - {PARENT}) == 2:
                print(*(pids - {PARENT}), flush=True)
                time.sleep(60)
        """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        line = parent.stdout.readline()
        workers = [int(x) for x in line.split()]
        assert len(workers) == 2 and parent.pid not in workers, line
        assert all(_alive(w) for w in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "orphaned workers"
    finally:
        parent.kill()


def test_joblib_still_works_after_our_workers():
    """Our process pool is ours: joblib's own loky executor (a different type) is not taken over."""
    from joblib import Parallel, delayed

    assert list(run_batches(_square, [(i,) for i in range(6)], n_jobs=2)) == [i * i for i in range(6)]
    assert Parallel(n_jobs=2)(delayed(_square)(i) for i in range(4)) == [0, 1, 4, 9]
    assert list(run_batches(_square, [(i,) for i in range(6)], n_jobs=2)) == [i * i for i in range(6)]


def _fail_on_three(x):
    from robustness.errors import InputError

    if x == 3:
        raise InputError(f"batch {x}: bad mask")
    return x


def test_a_worker_error_reaches_the_caller_as_is():
    from robustness.errors import InputError

    with pytest.raises(InputError, match=r"^batch 3: bad mask$"):
        list(run_batches(_fail_on_three, [(i,) for i in range(8)], n_jobs=2))
    assert list(run_batches(_square, [(i,) for i in range(4)], n_jobs=2)) == [0, 1, 4, 9]  # the pool still works
