"""The hand-off: a table read back from a results folder is the table that was written, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from robustness.results.folder import ResultsDir
from robustness.results.study_result import StudyResult, Verdicts, read_table


def test_tables_read_back_exactly(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.random(50_000) * np.logspace(-300, 300, 50_000)
    frame = pd.DataFrame({"run": ["1", "NA", "None", "nan", "team-1"] * 10_000, "score": x,
                          "rank": rng.integers(1, 40, 50_000).astype(float), "significant": x > 1})
    frame.loc[3, "score"] = np.nan
    out = ResultsDir(tmp_path / "out", fingerprint="f")
    out.write_csv("scores.csv", frame, index=False)
    back = read_table(out.staging / "scores.csv")
    assert back.run.tolist() == frame.run.tolist()  # names stay names, whatever they look like
    np.testing.assert_array_equal(back.score.to_numpy(), frame.score.to_numpy())  # every float to the last bit
    np.testing.assert_array_equal(back["rank"].to_numpy(), frame["rank"].to_numpy())
    assert back.significant.tolist() == frame.significant.tolist()


def test_a_study_result_saves_and_loads(tmp_path):
    v = Verdicts()
    v.add("fastest_convergence", strategy="", metric="jaccard", average="micro", statement="tied",
          subject=["majority", "staple"], value=61.25, low=60.5, high=62.0, level=0.99, table="convergence.csv")
    board = pd.DataFrame({"majority_jaccard_micro": [0.5, 0.25]}, index=pd.Index(["b", "a"], name="run"))
    result = StudyResult("score", tables={"leaderboard.csv": board}, verdicts=v.frame(),
                         files={"official/a.json": "{}"}, meta={"warnings": ["w"]})
    out = ResultsDir(tmp_path / "out", fingerprint="f")
    result.save(out)
    out.finish({"study": "score", "warnings": ["w"]})
    loaded = StudyResult.load(tmp_path / "out")
    assert loaded.study == "score" and loaded.warnings == ["w"]
    pd.testing.assert_frame_equal(loaded.table("leaderboard.csv"), board)
    row = loaded.verdict("fastest_convergence", average="micro")[0]
    assert row["subject"] == ["majority", "staple"] and row["value"] == 61.25 and row["count"] is None
    assert (tmp_path / "out" / "official" / "a.json").read_text() == "{}"


def test_a_folder_with_the_earlier_system_column_reads_with_run(tmp_path):
    """Tables written before the column was renamed (``system``) read back as ``run``, names kept as text; a table
    that already has ``run`` is read as it is."""
    old = tmp_path / "old.csv"
    old.write_text("strategy,system,score\nmajority,007,0.5\nmajority,NA,0.25\n")
    back = read_table(old)
    assert list(back.columns) == ["strategy", "run", "score"] and back.run.tolist() == ["007", "NA"]
    board = tmp_path / "leaderboard.csv"
    board.write_text("system,majority_jaccard_micro\n007,0.5\n")
    assert read_table(board, index=True).index.name == "run"
    pd.DataFrame({"system": ["a"], "other": ["b"], "score": [1.0]}).to_parquet(tmp_path / "pairs.parquet")
    assert list(read_table(tmp_path / "pairs.parquet").columns) == ["run", "other", "score"]
    both = tmp_path / "both.csv"
    both.write_text("run,system\na,b\n")
    assert list(read_table(both).columns) == ["run", "system"]


def _verdict_by_pandas(res: StudyResult, claim: str, **where) -> list[dict]:
    """The slow twin of ``StudyResult.verdict``: the table filtered column by column, as pandas compares."""
    import json
    import math

    v = res.verdicts
    rows = v[v.claim == claim]
    for column, value in where.items():
        rows = rows[rows[column] == value]
    out = []
    for row in rows.to_dict("records"):
        row["subject"] = json.loads(row["subject"])
        for key in ("count", "total"):
            missing = row[key] is None or row[key] is pd.NA or (isinstance(row[key], float) and math.isnan(row[key]))
            row[key] = None if missing else int(row[key])
        out.append(row)
    return out


def _same_rows(a: list[dict], b: list[dict]) -> bool:
    def same(x, y):
        return (x is y or type(x) is type(y) and (x == y or isinstance(x, float) and math.isnan(x) and math.isnan(y)))

    import math

    return len(a) == len(b) and all(x.keys() == y.keys() and all(same(x[k], y[k]) for k in x) for x, y in zip(a, b))


@pytest.mark.slow  # about 2-3 CPU-s (over 500 lookups, each beside pandas), near the 3 s an unmarked test may take
def test_verdict_lookups_equal_the_table_filtered_by_pandas(tmp_path):
    """``verdict`` reads the table once into rows by claim; every question, on the frame a study makes and on the one
    read back from its folder, answers what filtering the table does: missing values equal nothing, names stay
    text, the order is the table's; a table replaced afterwards is read again."""
    import itertools

    rng = np.random.default_rng(5)
    v = Verdicts()
    for k in range(60):
        v.add(["pairs_differ", "fastest_convergence", "unlimited_distance"][k % 3], table="t.csv",
              strategy=["majority", "staple", "", "1"][rng.integers(4)], metric=["jaccard", "dice"][rng.integers(2)],
              average=["micro", "macro"][rng.integers(2)], statement=["tied", "differ", ""][rng.integers(3)],
              subject=[f"run{rng.integers(3)}"], value=[np.nan, 0.5, 1.0][rng.integers(3)],
              count=[None, 1, 2][rng.integers(3)], total=3)
    made = StudyResult("rank_convergence", verdicts=v.frame())
    out = ResultsDir(tmp_path / "out", fingerprint="f")
    made.save(out)
    out.finish({"study": "rank_convergence"})
    read = StudyResult.load(tmp_path / "out")
    values = {"strategy": ["majority", "", "1", 1, None], "average": ["micro", "zz", np.nan],
              "value": [0.5, 1, np.nan, None], "count": [1, 2.0, None], "statement": ["tied", ""]}
    asked = 0
    for res in (made, read):
        for claim in ("pairs_differ", "fastest_convergence", "unlimited_distance", "best_is_best"):
            for keys in itertools.chain.from_iterable(itertools.combinations(values, r) for r in range(3)):
                for chosen in itertools.product(*(values[k] for k in keys)):
                    where = dict(zip(keys, chosen))
                    assert _same_rows(res.verdict(claim, **where), _verdict_by_pandas(res, claim, **where)), where
                    asked += 1
    assert asked > 500
    # a table replaced after the first question is read again, not answered from the rows of the old one
    before = made.verdict("pairs_differ")
    made.verdicts = made.verdicts[made.verdicts.claim != "pairs_differ"]
    assert before and made.verdict("pairs_differ") == []
    try:
        made.verdict("pairs_differ", no_such_column=1)
    except KeyError as exc:
        assert "no_such_column" in str(exc)
    else:
        raise AssertionError("an unknown column must be a KeyError, as filtering the frame was")
