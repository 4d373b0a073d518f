"""A design study's meta.json read once into a typed, checked object (robustness.results.meta)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from robustness.errors import InputError
from robustness.results.meta import DesignMeta
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
    (("options", "quick"), "yes", "options.quick is 'yes', not true or false or null"),
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


@pytest.mark.slow
def test_the_main_jobs_metadata_reads_as_written():
    """The library's own main job on a tiny challenge: every field typed as the report reads it."""
    from robustness.results.meta import MainJobMeta
    from robustness.studies.rank_convergence import RankConvergenceOptions, run
    from robustness.synthetic.challenge import make_challenge

    ch = make_challenge(n_encounters=6, n_images=10, n_runs=3, n_teams=1, rng=0)
    res = run(ch, RankConvergenceOptions(orders=5, bootstrap=20, outer=4), source="tiny")
    m = MainJobMeta.of(res)
    assert (m.source, m.images, m.encounters, m.runs) == ("tiny", 10, 6, 3) and m.where == "the main job"
    assert m.bootstrap_unit == "encounter" and m.bootstrap_units == 6 and m.gold_orders == 10
    assert m.annotators == tuple(ch.annotators) and m.volumes is False and m.labels is None
    assert m.reading is None and m.design_answer is None  # the command adds them; the library alone does not
    assert m.target is not None and m.target["l1"] > 0 and m.empty_policy == res.meta["empty_policy"]


def test_a_damaged_main_job_field_is_named_and_an_old_folder_takes_the_old_defaults():
    from robustness.results.meta import MainJobMeta

    meta = {"input": {"source": "s", "images": 4, "encounters": 2, "runs": 3}, "bootstrap_unit": "image",
            "bootstrap_units": 4, "empty_policy": "one"}
    m = MainJobMeta.of(StudyResult("rank_convergence", meta=meta, folder=Path("/r")))
    assert (m.gold_orders, m.target, m.reading, m.annotators, m.regions) == (10, None, None, (), None)
    meta["input"]["runs"] = "3"
    with pytest.raises(InputError, match=r"^/r: damaged main-job folder \(meta.json's input.runs is '3', not an "
                                         r"integer\); run the main job again$"):
        MainJobMeta.of(StudyResult("rank_convergence", meta=meta, folder=Path("/r")))


def test_the_table_studys_metadata_reads_as_written_and_a_damaged_scheme_is_named(tmp_path):
    """A real per-case table study's folder reads back typed; a scheme that is not three names is refused."""
    import json

    from experiments import table_rank_convergence
    from robustness.results.meta import TableMeta

    rng = np.random.default_rng(2)
    rows = [{"case": f"c{k}", "algorithm": f"r{j}", "value": float(rng.random())} for k in range(8) for j in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    assert table_rank_convergence.main(["--table", str(tmp_path / "t.csv"), "--orders", "4", "--bootstrap", "10",
                                        "--outer", "4", "--out", str(out), "--quiet", "--no-figures"]) == 0
    m = TableMeta.of(StudyResult.load(out))
    assert (m.table, m.runs, m.units, m.unit) == (str(tmp_path / "t.csv"), 3, 8, "case") and m.where == str(out)
    assert m.schemes == (("table", "value", "macro"),) and len(m.tasks) == 1
    meta = json.loads((out / "meta.json").read_text())
    meta["input"]["schemes"] = [["table", "value"]]
    with pytest.raises(InputError, match=r"damaged table-study folder \(meta.json's input.schemes is not a list"):
        TableMeta.of(StudyResult("table_rank_convergence", meta=meta, folder=out))


def test_the_qa_studys_metadata_is_typed_and_a_damaged_field_named():
    from robustness.results.meta import QAMeta

    meta = {"input": {"source": "s", "encounters": 5, "runs": ["a", "b"]}}
    m = QAMeta.of(StudyResult("qa_rank_convergence", meta=meta))
    assert (m.source, m.encounters, m.runs, m.where) == ("s", 5, ("a", "b"), "the QA study")
    meta["input"]["runs"] = 2
    with pytest.raises(InputError, match=r"the QA study: damaged QA-study folder \(meta.json's input.runs is 2, not a "
                                         r"list\)"):
        QAMeta.of(StudyResult("qa_rank_convergence", meta=meta))
