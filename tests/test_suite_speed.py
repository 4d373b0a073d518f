"""The slow marker is enforced: a test over the CPU limit fails unless marked (tests/timing.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

BURN = """
import time

import pytest


def burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_unmarked():
    burn(0.4)


@pytest.mark.slow
def test_marked():
    burn(0.4)


def test_quick():
    pass
"""


@pytest.mark.slow
def test_an_unmarked_test_over_the_limit_fails_and_a_marked_one_passes(pytester, monkeypatch):
    pytester.makeconftest((Path(__file__).parent / "timing.py").read_text())
    pytester.makepyfile(test_burn=BURN)
    monkeypatch.setenv("ROBUSTNESS_SLOW_LIMIT", "0.2")
    monkeypatch.delenv("ROBUSTNESS_CPU_LOG", raising=False)  # the inner suite's tests are not this suite's
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "test_burn.py::test_unmarked took" in out and "mark it @pytest.mark.slow" in out
    assert "test_marked took" not in out
    monkeypatch.setenv("ROBUSTNESS_SLOW_LIMIT", "0")  # off
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning"
                                  ).assert_outcomes(passed=3)


def test_the_compilation_clock_counts_cpu_seconds_like_the_limit():
    """numba's compile time is subtracted from a CPU-second limit, so it is counted in CPU-seconds: a compilation
    that waits (a loaded machine) adds nothing, one that computes adds what it computed."""
    import time

    from tests.timing import _compile_clock

    clock = _compile_clock()
    before = clock.total
    clock.on_start(None)
    time.sleep(0.3)  # waiting: no CPU
    clock.on_end(None)
    assert clock.total - before < 0.1
    before = clock.total
    clock.on_start(None)
    start = time.process_time()
    while time.process_time() - start < 0.2:
        pass
    clock.on_end(None)
    assert clock.total - before >= 0.2


def test_blas_runs_one_thread_as_in_the_commands(pytestconfig):
    """The root conftest.py sets BLAS's threads before numpy is first imported, as the commands do."""
    import os

    root = Path(__file__).resolve().parent.parent / "conftest.py"
    conftest = next(m for m in pytestconfig.pluginmanager.get_plugins() if getattr(m, "__file__", None)
                    and Path(m.__file__).resolve() == root)
    assert conftest.NUMPY_BEFORE is False
    assert os.environ["OPENBLAS_NUM_THREADS"] and os.environ["MKL_NUM_THREADS"]
