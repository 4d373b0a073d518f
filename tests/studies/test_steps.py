"""A study as declared steps: the checks of a list, the running of one, and the main job's own list."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

from robustness.results.study_result import TABLES
from robustness.studies import rank_convergence, table
from robustness.studies.steps import TABLES_SO_FAR, Step, check_steps, run_steps


def _double(x):
    return {"y": 2 * x}


def _table(y):
    return {"leaderboard.csv": [y]}


def _seen(tables, y):
    return {"names": sorted(tables), "z": y + 1}


def _pid(x):
    return {"pid": os.getpid(), "scores.csv": [x]}


def test_steps_run_in_order_and_hand_on_values_and_tables():
    values, tables = run_steps([Step(_double, makes=("y",)), Step(_table, writes=("leaderboard.csv",)),
                                Step(_seen, makes=("names", "z"))], {"x": 3})
    assert values["y"] == 6 and values["z"] == 7
    assert tables == {"leaderboard.csv": [6]}
    assert values["names"] == ["leaderboard.csv"]  # `tables` is every table written before the step


def test_a_need_no_one_makes_is_refused_before_any_step_runs():
    ran = []

    def first(x):
        ran.append(x)
        return {"y": x}

    with pytest.raises(ValueError, match=r"step 'table' needs \['y'\]"):
        run_steps([Step(_table, writes=("leaderboard.csv",)), Step(first, makes=("y",))], {"x": 1})
    assert ran == []


@pytest.mark.parametrize("steps, message", [
    ([Step(_double, makes=("y",)), Step(_double, makes=("y",))], r"makes \['y'\] again"),
    ([Step(_double, makes=("x",))], r"makes \['x'\] again"),  # an input is not made again
    ([Step(_table, writes=("not_a_table.csv",))], "registered tables"),
    ([Step(_double, makes=("y.csv",))], "registered tables"),
])
def test_a_list_that_does_not_check(steps, message):
    with pytest.raises(ValueError, match=message):
        check_steps(steps, ["x", "y"] if "_table" in repr(steps) else ["x"])


def test_a_step_returning_other_than_it_declared_is_refused():
    with pytest.raises(ValueError, match=r"step 'double' returned \['y'\]; it declares makes=\['w'\]"):
        run_steps([Step(_double, makes=("w",))], {"x": 1})
    with pytest.raises(ValueError, match="writes=\\[\\]"):  # a table it did not declare
        run_steps([Step(_double, makes=("y",)), Step(_table)], {"x": 1})


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_background_step_is_collected_where_needed(n_jobs):
    values, tables = run_steps([Step(_pid, makes=("pid",), writes=("scores.csv",), background=True),
                                Step(_double, makes=("y",)), Step(_seen, makes=("names", "z"))],
                               {"x": 4}, n_jobs=n_jobs)
    assert values["y"] == 8 and tables == {"scores.csv": [4]} and values["names"] == ["scores.csv"]
    forked = n_jobs > 1 and os.name == "posix"
    assert (values["pid"] != os.getpid()) == forked


def test_the_main_jobs_steps_check_and_each_writes_registered_tables():
    given = inspect.signature(rank_convergence.run).parameters
    check_steps(rank_convergence.STEPS, list(given))
    written = [t for s in rank_convergence.STEPS for t in s.writes]
    assert len(written) == len(set(written)) and set(written) <= set(TABLES)
    assert {n for s in rank_convergence.STEPS for n in s.needs} <= set(given) | {
        m for s in rank_convergence.STEPS for m in s.makes} | {TABLES_SO_FAR}


def test_a_step_runs_only_when_its_value_is_there():
    steps = [Step(_double, makes=("y",), when="x"), Step(_table, writes=("leaderboard.csv",), when="y")]
    values, tables = run_steps(steps, {"x": None})
    assert values["y"] is None and tables == {}  # skipped: its values None, its tables not written
    values, tables = run_steps(steps, {"x": 2})
    assert values["y"] == 4 and tables == {"leaderboard.csv": [4]}
    with pytest.raises(ValueError, match=r"needs \['w'\]"):  # `when` names a need like any other
        check_steps([Step(_double, makes=("y",), when="w")], ["x"])


def test_the_table_studys_steps_check():


    given = ["tasks", "schemes", "options", "ranking_options", "methods", "source", "unit", "n_jobs", "progress",
             "notes"]
    check_steps(table.STEPS, given)
    assert [s.name for s in table.STEPS if s.when is None] == ["rankings", "input_meta", "meta"]


def test_the_per_case_tables_steps_check_and_keep_the_streams_order():
    from robustness.studies.table_ranks import RANK_STEPS

    check_steps(RANK_STEPS, ["tasks", "methods", "ranking_options", "options", "gen", "with_consensus",
                             "significance", "rope", "top_k"])
    drawing = [s.name for s in RANK_STEPS if "gen" in s.needs]  # one stream: the order of the draws is the order
    assert drawing == ["rankings", "bootstrap", "case_rank_tables", "podium"]


def _gen_user(gen):
    return {"draw": float(gen.random())}


def test_a_background_step_that_would_depend_on_n_jobs_is_refused():
    """A background step sees a forked copy at its start: `tables` (more of them by its collection) and a random
    generator (whose forked copy would not advance this process's stream) would make it depend on n_jobs."""
    with pytest.raises(ValueError, match="runs in the background and needs `tables`"):
        check_steps([Step(_seen, makes=("names", "z"), background=True)], ["y"])
    with pytest.raises(ValueError, match="runs in the background with a random generator"):
        run_steps([Step(_gen_user, makes=("draw",), background=True)], {"gen": np.random.default_rng(0)})
