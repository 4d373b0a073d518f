"""The hand-off: a table read back from a results folder is the table that was written, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
