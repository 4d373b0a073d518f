"""Library errors name parameters; the commands name their options (issue "Architecture IV", item 4).

A library function's error tells a Python caller which parameter to change (:func:`robustness.errors.parameter`:
```RankingOptions.missing```); a command prints the option that sets it (``--missing-scores``), through the one
table in ``experiments/_options.py``. Command-line options still written into the library's error messages are
counted per module, on a list that only shrinks (it is empty).
"""

from __future__ import annotations

import ast
import re

import pandas as pd
import pytest

from experiments._options import OPTIONS, for_command_line
from robustness.errors import InputError
from tests.conftest import REPO

#: Command-line options the library's raised messages still name, per module: a ceiling that only shrinks (none
#: now: 35 in 15 modules at the start).
FLAGS_IN_ERRORS: dict[str, int] = {}


def _raised_strings(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Raise) and node.exc is not None:
            yield from (s.value for s in ast.walk(node.exc) if isinstance(s, ast.Constant) and isinstance(s.value, str))


def test_options_in_library_errors_only_shrink():
    found = {}
    for path in sorted((REPO / "robustness").rglob("*.py")):
        n = sum(len(re.findall(r"--[a-z][a-z-]+", s)) for s in _raised_strings(path))
        if n:
            found[str(path.relative_to(REPO))] = n
    grown = {k: v for k, v in found.items() if v > FLAGS_IN_ERRORS.get(k, 0)}
    assert not grown, f"library errors that name a command-line option (name the parameter: errors.parameter): {grown}"
    stale = {k: v for k, v in FLAGS_IN_ERRORS.items() if found.get(k, 0) < v}
    assert not stale, f"fewer options named now: lower FLAGS_IN_ERRORS to {found}"


def test_every_parameter_the_library_names_has_its_option():
    named = set()
    for path in (REPO / "robustness").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "parameter" \
                    and all(isinstance(a, ast.Constant) for a in node.args):
                named.add(f"`{node.args[0].value}.{node.args[1].value}`")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "parameter":
                named.add("computed")  # a name built at run time: its owner's every parameter must be listed
    assert named, "no library message names a parameter"
    listed = {key.split("=")[0] for key in OPTIONS}
    assert named - {"computed"} <= listed, named - listed
    for column in ("case_column", "run_column", "value_column", "unit_column", "task_column"):  # the computed ones
        assert f"`read_case_table.{column}`" in OPTIONS


def test_a_python_caller_is_told_the_parameter_and_a_command_user_the_option(tmp_path):
    from robustness.io.case_table import read_case_table

    path = tmp_path / "t.csv"
    pd.DataFrame({"case": ["a"], "algorithm": ["r"], "value": [1.0]}).to_csv(path, index=False)
    with pytest.raises(InputError) as caught:
        read_case_table(path, value_column="score")
    message = str(caught.value)
    assert "`read_case_table.value_column`" in message and "--" not in message
    assert "(--value)" in for_command_line(message)
    pd.DataFrame({"case": ["a", "a"], "algorithm": ["r", "s"], "value": [1.0, None]}).to_csv(path, index=False)
    with pytest.raises(InputError) as caught:
        read_case_table(path)
    assert "`RankingOptions.missing`" in str(caught.value)
    assert "choose a treatment with --missing-scores" in for_command_line(str(caught.value))
