"""The whole suite's plugins, and the process the tests run in.

The slow marker's limit and CPU log (tests/timing.py) reach the doctests of the package and of docs/ as well as
the tests under tests/.

BLAS runs one thread per process, as in every command (``experiments/__init__.py``: set before numpy is first
imported, which this file is loaded before): a test that calls a command's ``main`` then runs it as the command
runs. With OpenBLAS's own threads (numpy imported by the suite first) their spinning cost the suite's whole-study
tests about a fifth more CPU for the same numbers (the default challenge's main job and design study: 36.4 CPU-s
against 29.5; docs/development.md). A user's own setting is kept.
"""

import os
import sys

#: Whether numpy had been imported before this file set BLAS's threads (it must not have: tests/test_suite_speed.py).
NUMPY_BEFORE = "numpy" in sys.modules
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

pytest_plugins = ["tests.timing"]
