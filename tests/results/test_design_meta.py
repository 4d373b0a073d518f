"""A design study's meta.json read once into a typed, checked object (robustness.results.design_meta)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from robustness.errors import InputError
from robustness.results.design_meta import DesignMeta
from robustness.results.study_result import StudyResult

GOOD = {"options": {"target_l1": None, "quick": True}, "base_setting": {"runs": 6, "annotators": 3},
        "input": {"base": {"n_encounters": 40, "depth": None}, "like": "/data/challenge", "challenge": "abc"}}


def _res(meta, folder=Path("/results/design")):
    return StudyResult("design_study", meta=meta, folder=folder)


def test_the_fields_are_read_with_their_types():
    m = DesignMeta.of(_res(GOOD))
    assert (m.study, m.runs, m.target_l1, m.quick, m.like, m.challenge) == (
        "design_study", 6, None, True, "/data/challenge", "abc")
    assert m.base == {"n_encounters": 40, "depth": None} and m.where == "/results/design"
    target = copy.deepcopy(GOOD)
    target["options"]["target_l1"] = 3
    assert DesignMeta.of(_res(target)).target_l1 == 3.0 and isinstance(DesignMeta.of(_res(target)).target_l1, float)


def test_optional_fields_take_their_defaults():
    m = DesignMeta.of(_res({"base_setting": {"runs": 2}}, folder=None))
    assert (m.base, m.target_l1, m.quick, m.like, m.challenge, m.where) == ({}, None, False, None, None,
                                                                            "the design study")


@pytest.mark.parametrize("path, value, said", [
    (("base_setting", "runs"), "six", "base_setting.runs is 'six', not an integer"),
    (("base_setting", "runs"), True, "base_setting.runs is True, not an integer"),  # a bool is not a count
    (("base_setting", "runs"), 0, "base_setting.runs 0"),
    (("options", "target_l1"), -1.0, "options.target_l1 -1.0 out of range"),
    (("options", "target_l1"), float("nan"), "out of range"),
    (("options", "quick"), "yes", "options.quick is 'yes', not true or false"),
    (("input", "like"), 5, "input.like is 5, not text or null"),
    (("input", "base"), [1], "input.base is [1], not an object"),
])
def test_a_damaged_field_is_named_in_one_line(path, value, said):
    meta = copy.deepcopy(GOOD)
    meta[path[0]][path[1]] = value
    with pytest.raises(InputError) as info:
        DesignMeta.of(_res(meta))
    message = str(info.value)
    assert message.startswith("/results/design: damaged design-study folder") and said in message
    assert "\n" not in message and "run the design study again" in message


def test_a_missing_required_field_is_named():
    with pytest.raises(InputError, match=r"meta.json's base_setting.runs is missing, not an integer"):
        DesignMeta.of(_res({"input": GOOD["input"]}))
