"""The slow marker, enforced and measured for every test the suite collects (a plugin: the root conftest.py loads it).

Every test means the doctests of the package's modules and of docs/python-api.md too, which tests/conftest.py, a
folder's conftest, never saw: their CPU was neither limited nor logged.
"""

from __future__ import annotations

import os
import sys

import pytest

# -- the slow marker, enforced ------------------------------------------------------------------------------------
# `make test-fast` (-m "not slow") is the quick loop, about a minute of CPU: a test over about half a CPU-second
# (whole-study runs, every test of a module fixture that runs one) carries @pytest.mark.slow and runs only in
# `make test`, unless it is one of the quick loop's checks of the code as a whole (static checks, import probes, the
# kernels run with the JIT off; docs/development.md). A test that takes more than SLOW_CPU_S seconds of CPU
# unmarked fails (this process and the commands it waited for, setup and call; the time numba spends compiling
# kernels left out, in CPU seconds too, so that a cold cache on a fresh clone does not count). CPU time, not wall
# time, so that a machine shared with other work does not fail the suite; the limit is six times the half second,
# for what a first import costs on a fresh machine (a font cache). ROBUSTNESS_SLOW_LIMIT overrides it (0: off).
SLOW_CPU_S = float(os.environ.get("ROBUSTNESS_SLOW_LIMIT", "3"))
#: ROBUSTNESS_CPU_LOG=FILE appends each test's CPU seconds (setup and call, compilation apart) to FILE.
CPU_LOG = os.environ.get("ROBUSTNESS_CPU_LOG")


def _cpu_seconds() -> float:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


_CLOCK = None


def _compile_clock():
    """CPU seconds numba spent compiling (outermost compilations only; this process), from its event API (``.total``).

    CPU seconds like the limit it is subtracted from: a compilation on a loaded machine takes longer on the clock
    but not in CPU time.
    """
    global _CLOCK
    if _CLOCK is None:
        import time

        from numba.core import event

        class Clock(event.Listener):
            def __init__(self) -> None:
                super().__init__()
                self.total, self._depth, self._start = 0.0, 0, 0.0

            def on_start(self, ev) -> None:
                if self._depth == 0:
                    self._start = time.process_time()
                self._depth += 1

            def on_end(self, ev) -> None:
                self._depth -= 1
                if self._depth == 0:
                    self.total += time.process_time() - self._start

        _CLOCK = Clock()
        event.register("numba:compile", _CLOCK)
    return _CLOCK


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if SLOW_CPU_S > 0 or CPU_LOG:
        item._cpu_start = (_cpu_seconds(), _compile_clock().total)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """After each test, stop the package's kept pool of worker processes and wait for them.

    A process's CPU counts once it has ended and been waited for: a pool kept from one test and ended in a later
    one would put the first test's worker CPU on the second (a cheap unmarked test could then fail the limit, and
    ROBUSTNESS_CPU_LOG would say the wrong test). Each test that runs work in processes forks its own.
    """
    yield
    parallel = sys.modules.get("robustness.parallel")
    if parallel is not None:
        parallel._shutdown()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    start = getattr(item, "_cpu_start", None)
    if call.when != "call" or start is None:
        return
    compiled = _compile_clock().total - start[1]
    spent = _cpu_seconds() - start[0] - compiled
    if CPU_LOG:  # one line per test: node id, CPU seconds, compile seconds, slow mark (tab-separated)
        with open(CPU_LOG, "a") as log:
            log.write(f"{item.nodeid}\t{spent:.3f}\t{compiled:.3f}\t{int(bool(item.get_closest_marker('slow')))}\n")
    if not report.passed or item.get_closest_marker("slow"):
        return
    if SLOW_CPU_S > 0 and spent > SLOW_CPU_S:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} took {spent:.1f} CPU-seconds (setup and call, numba compilation left "
                           f"out), over the {SLOW_CPU_S:g} s a test may take unmarked: mark it @pytest.mark.slow "
                           "(make test-fast leaves it out) or make it faster")


#: Doctests that run a whole study through the Python API (the slow rule's first kind; a doctest carries no marker,
#: so it is marked here by name): about 5 and 2 CPU-s.
SLOW_DOCTESTS = ("python-api.md", "robustness.studies.rank_convergence.run")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)
