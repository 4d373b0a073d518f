"""The per-case table study's Python entry points: prepare reads the table's columns as named, run takes its result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from robustness.io.case_table import CaseColumns
from robustness.statistics.ranking_options import RankingOptions
from robustness.studies.table import PreparedTable, TableOptions, prepare, run


def _table() -> pd.DataFrame:
    """Six cases of three runs, in columns named as another pipeline names them, two cases to a patient."""
    g = np.random.default_rng(3)
    return pd.DataFrame({"id": [f"c{i}" for i in range(6)] * 3, "team": np.repeat(["a", "b", "c"], 6),
                         "dsc": g.random(18), "patient": [f"p{i // 2}" for i in range(6)] * 3})


def test_prepare_reads_the_named_columns_and_run_takes_what_it_prepared():
    options = TableOptions(step=1, orders=3, bootstrap=5, outer=4)
    columns = CaseColumns(case="id", run="team", value="dsc", unit="patient")
    prepared = prepare(_table(), options, RankingOptions(), source="scores.csv", columns=columns)
    assert isinstance(prepared, PreparedTable) and (prepared.source, prepared.unit) == ("scores.csv", "patient")
    assert prepared.schemes is not None and prepared.schemes.n_units == 3  # three patients, not six cases
    assert sorted(prepared.tasks[0].runs) == ["a", "b", "c"]
    result = run(prepared, options)
    assert result.meta["input"]["table"] == "scores.csv" and result.meta["input"]["unit"] == "patient"
    # a column that is not the table's is named in the error
    with pytest.raises(Exception, match="dsc2"):
        prepare(_table(), options, RankingOptions(), source="scores.csv", columns=CaseColumns("id", "team", "dsc2"))


def test_the_column_keywords_of_before_are_accepted_with_a_deprecation_warning():
    options = TableOptions(step=1, orders=3, bootstrap=5, outer=4)
    new = prepare(_table(), options, RankingOptions(), source="s.csv",
                  columns=CaseColumns(case="id", run="team", value="dsc"))
    with pytest.warns(DeprecationWarning, match=r"prepare\(\): case_column=, run_column=, value_column=, notes= "
                                                r"are deprecated; pass columns=CaseColumns"):
        old = prepare(_table(), options, RankingOptions(), source="s.csv", case_column="id", run_column="team",
                      value_column="dsc", notes=["read from s.csv"])
    assert old.notes == ["read from s.csv", *new.notes]
    assert [t.values.tolist() for t in old.tasks] == [t.values.tolist() for t in new.tasks]
    with pytest.raises(TypeError, match="unexpected keyword argument 'case'"):
        prepare(_table(), options, RankingOptions(), source="s.csv", case="id")


def test_run_s_form_of_before_still_works_with_a_deprecation_warning():
    options = TableOptions(step=1, orders=3, bootstrap=5, outer=4)
    prepared = prepare(_table(), options, RankingOptions(), source="s.csv",
                       columns=CaseColumns(case="id", run="team", value="dsc"))
    new = run(prepared, options)
    with pytest.warns(DeprecationWarning, match=r"run\(\): source=, notes= are deprecated; pass run\(PreparedTable"):
        old = run(prepared.tasks, prepared.schemes, options, source="s.csv", notes=prepared.notes)
    assert sorted(old.tables) == sorted(new.tables)
    frames = {name: frame for name, frame in new.tables.items() if isinstance(frame, pd.DataFrame)}
    assert frames
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(old.tables[name], frame)
    assert old.meta["input"] == new.meta["input"]
    with pytest.raises(TypeError, match="takes a PreparedTable"):
        run(prepared, options, source="s.csv")
