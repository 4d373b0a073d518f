"""The whole suite's plugins.

The slow marker's limit and CPU log (tests/timing.py) reach the doctests of the package and of docs/ as well as
the tests under tests/.
"""

pytest_plugins = ["tests.timing"]
