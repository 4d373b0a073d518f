"""The whole suite's plugins, and the process the tests run in.

The slow marker's limit and CPU log (tests/timing.py) reach the doctests of the package and of docs/ as well as
the tests under tests/.

BLAS runs one thread per process, as in every command: importing ``experiments`` sets it
(``experiments/__init__.py``, before numpy is first imported, which this file is loaded before), so a test that
calls a command's ``main`` runs it as the command runs. With OpenBLAS's own threads (numpy imported by the suite
first) their spinning cost the suite's whole-study tests about a fifth more CPU for the same numbers (the default
challenge's main job and design study: 36.4 CPU-s against 29.5; docs/development.md). A user's own setting is
kept.
"""

import sys

#: Whether numpy had been imported before this file set BLAS's threads (it must not have: tests/test_suite_speed.py).
NUMPY_BEFORE = "numpy" in sys.modules
import experiments  # noqa: E402, F401  (the commands' own setting of BLAS's threads, a user's kept)

pytest_plugins = ["tests.timing"]
