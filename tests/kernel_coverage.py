"""The numba kernels' line coverage by their twin tests, measured with the JIT off.

Jitted code is invisible to coverage tools; with ``NUMBA_DISABLE_JIT=1`` every kernel runs as the Python it is
written in, so the lines the twin tests (``tests/kernels/test_kernels.py``, ``tests/overlap/test_boundary.py``) execute can be
counted. Needs the ``coverage`` package (``pip install coverage``; not a test dependency: ``make test`` does not
run this). Usage, from the repository::

    python -m tests.kernel_coverage          # or: make kernel-coverage

Prints one line per kernel module (statements, missed, percent) and the lines missed; exit status 1 when a
twin test fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = ["tests/kernels/test_kernels.py", "tests/overlap/test_boundary.py"]


def main() -> int:
    """Run the twin tests with the JIT off under coverage; print the kernels' coverage.

    Returns
    -------
    int
        The tests' exit status.
    """
    try:
        import coverage  # noqa: F401
    except ImportError:
        print("error: the coverage package is not installed (pip install coverage)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / ".coverage"
        env = dict(os.environ, NUMBA_DISABLE_JIT="1", COVERAGE_FILE=str(data))
        run = [sys.executable, "-m", "coverage", "run", "--include=robustness/_kernels/*", "-m", "pytest", "-q",
               "-p", "no:cacheprovider", *TESTS]
        code = subprocess.run(run, cwd=REPO, env=env).returncode
        subprocess.run([sys.executable, "-m", "coverage", "report", "--show-missing"], cwd=REPO, env=env)
    return code


if __name__ == "__main__":
    sys.exit(main())
