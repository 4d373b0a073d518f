"""Per-case tables from other pipelines: every bad table is one line naming the file, row and column."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from experiments import table_rank_convergence as job
from experiments._cli import run
from robustness.io.case_table import read_case_table
from robustness.results.folder import open_results


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    rows = [{"case": c, "algorithm": a, "value": float(rng.random()), "encounter": c // 2}
            for c in range(8) for a in (1, 2, 3)]  # integer names: must never show as np.int64(2)
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def refused(argv, capsys, match):
    assert run(job.main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: "), err
    assert not re.search(r"np\.\w+\(|\(scheme ", err), err
    assert re.search(match, err), err


def edit(path, row, column, value):
    df = pd.read_csv(path)
    df[column] = df[column].astype(object)
    df.loc[row, column] = value
    df.to_csv(path, index=False)


def test_unknown_unit_column(table, tmp_path, capsys):
    refused(["--table", str(table), "--unit", "encountr", "--out", str(tmp_path / "o")], capsys,
            r"t\.csv: no column 'encountr' \(--unit\); columns: case, algorithm, value, encounter")


@pytest.mark.parametrize("value,shown,what", [("abc", "abc", "is not a finite number"),
                                               ("inf", "inf", "is not a finite number"),
                                               ("", "nan", r"is empty \(a missing score: choose a treatment with "
                                                           "--missing-scores\\)")])
def test_non_numeric_or_infinite_value(table, tmp_path, capsys, value, shown, what):
    edit(table, 4, "value", value)
    refused(["--table", str(table), "--out", str(tmp_path / "o")], capsys,
            rf"t\.csv: row 5: value {shown} for algorithm 2, case 1 {what}")


@pytest.mark.parametrize("value", ["abc", "inf"])
def test_text_or_infinite_refused_even_with_a_missing_treatment(table, tmp_path, capsys, value):
    edit(table, 4, "value", value)
    refused(["--table", str(table), "--missing-scores", "drop", "--out", str(tmp_path / "o")], capsys,
            rf"t\.csv: row 5: value {value} for algorithm 2, case 1 is not a finite number")


def test_duplicate_case_algorithm_with_another_value(table, tmp_path, capsys):
    df = pd.read_csv(table)
    pd.concat([df, df.iloc[[4]].assign(value=0.123)]).to_csv(table, index=False)
    refused(["--table", str(table), "--out", str(tmp_path / "o")], capsys,
            r"t\.csv: algorithm 2, case 1 has two different values")


def test_exact_duplicate_row_is_dropped_with_a_warning(table, tmp_path, capsys):
    df = pd.read_csv(table)
    pd.concat([df, df.iloc[[4]]]).to_csv(table, index=False)
    out = tmp_path / "o"
    assert job.main(["--table", str(table), "--out", str(out), "--orders", "3", "--bootstrap", "5", "--outer", "4", "--quiet",
                     "--no-figures", "--unit", "encounter"]) == 0
    assert "warning: " in capsys.readouterr().err
    _, meta = open_results(out)
    assert meta["warnings"] and "dropped 1 row(s) that repeat another row exactly" in meta["warnings"][0]
    assert "## Warnings" in (out / "summary.md").read_text()
    checked, notes = read_case_table(table, unit_column="encounter")
    assert len(checked) == 24 and all(isinstance(c, str) for c in checked.case)


def test_case_in_two_units(table, tmp_path, capsys):
    edit(table, 0, "encounter", 3)
    refused(["--table", str(table), "--unit", "encounter", "--out", str(tmp_path / "o")], capsys,
            r"t\.csv: case 0 lies in 2 different units of 'encounter'")


def test_missing_value_names_algorithm_and_case(table, tmp_path, capsys):
    df = pd.read_csv(table)
    df.drop(index=4).assign(metric="dice").to_csv(table, index=False)
    refused(["--table", str(table), "--out", str(tmp_path / "o")], capsys,
            r"t\.csv: no value for algorithm 2, case 1 \(dice\): every algorithm needs a value for every case")
