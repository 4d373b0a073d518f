"""Library errors name parameters; the commands name their options (issue "Architecture IV", item 4).

A library function's error tells a Python caller which parameter to change (:func:`robustness.errors.parameter`:
```RankingOptions.missing```); a command prints the option that sets it (``--missing-scores``), through the one
table in ``experiments/_options.py``. Command-line options still written into the library's error messages are
counted per module, on a list that only shrinks (it is empty).
"""

from __future__ import annotations

import ast
import re

import numpy as np
import pandas as pd
import pytest

from experiments._options import OPTIONS, for_command_line
from robustness.errors import InputError
from tests.conftest import REPO
from tests.source import parsed

#: Command-line options the library's raised messages still name, per module: a ceiling that only shrinks (none
#: now: 35 in 15 modules at the start).
FLAGS_IN_ERRORS: dict[str, int] = {}


def _raised_strings(path):
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            yield from (s.value for s in ast.walk(node.exc) if isinstance(s, ast.Constant) and isinstance(s.value, str))


def _only_shrinks(strings, ceiling: dict, what: str) -> None:
    """The command-line options ``strings(path)`` name, per library module, stay within ``ceiling`` and lower it."""
    found = {}
    for path in sorted((REPO / "robustness").rglob("*.py")):
        n = sum(len(re.findall(r"--[a-z][a-z-]+", s)) for s in strings(path))
        if n:
            found[str(path.relative_to(REPO))] = n
    grown = {k: v for k, v in found.items() if v > ceiling.get(k, 0)}
    assert not grown, f"{what} that name a command-line option (name the parameter: errors.parameter): {grown}"
    stale = {k: v for k, v in ceiling.items() if found.get(k, 0) < v}
    assert not stale, f"fewer options named now: lower the ceiling to {found}"


def test_options_in_library_errors_only_shrink():
    _only_shrinks(_raised_strings, FLAGS_IN_ERRORS, "library errors")


def test_every_parameter_the_library_names_has_its_option():
    named = set()
    for path in (REPO / "robustness").rglob("*.py"):
        for node in ast.walk(parsed(path)):
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


def test_a_report_names_the_parameter_for_python_and_the_option_for_a_command(tmp_path):
    """The same note in the report a Python caller publishes (the parameter) and in the one a command rebuilds
    from that folder (the option): the table study on 6 cases with ``step`` 10 notes that its curves cannot run."""
    from experiments import report as report_command
    from robustness.reporting.publish import publish
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.studies import table as study

    frame = pd.DataFrame({"case": [f"c{i}" for i in range(6)] * 3, "algorithm": np.repeat(["a", "b", "c"], 6),
                          "value": np.random.default_rng(0).random(18)})
    options = study.TableOptions(step=10, orders=3, bootstrap=5, outer=4)
    prepared = study.prepare(frame, options, RankingOptions(), source="t.csv")
    res = study.run(prepared, options)
    publish(res, tmp_path / "out", figures=False)
    python = (tmp_path / "out" / "summary.md").read_text()
    assert "`TableOptions.step` 10 leaves fewer than 2 recorded prefixes" in python and "--step" not in python
    assert report_command.main([str(tmp_path / "out"), "--quiet"]) == 0
    command = (tmp_path / "out" / "summary.md").read_text()
    assert "--step 10 leaves fewer than 2 recorded prefixes" in command and "TableOptions.step" not in command
    assert command.replace("--step", "`TableOptions.step`") == python  # nothing else differs


#: Command-line options still written in the library's other strings (warnings, notes, report text; docstrings and
#: comments apart), per module: a ceiling that only shrinks (52 in 17 modules before the reports were spelled for
#: their reader). What stays: the design study's command the main job's report prints (a command line, the
#: design_command helper), the values older folders recorded for the organiser's choices (``set_by`` "--primary"
#: and "--target", read as "organiser"), ``python -m robustness.simulation.metric_tau --labels`` (a command) and a
#: cell of the design study's fit.csv (tables are not respelled).
FLAGS_IN_MESSAGES = {
    "robustness/reporting/sections/rank_convergence.py": 4,
    "robustness/reporting/sections/rank_convergence_agreement.py": 1,
    "robustness/scheme.py": 2,
    "robustness/simulation/metric_tau.py": 1,
    "robustness/simulation/twin.py": 1,
}


def _message_strings(path):
    tree = parsed(path)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_options_in_library_messages_only_shrink():
    _only_shrinks(_message_strings, FLAGS_IN_MESSAGES, "library text")
