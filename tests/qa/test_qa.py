"""Closed QA: official scoring vs an independent re-implementation, Table 5, baselines, bad inputs, commands."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from robustness.errors import InputError
from robustness.qa import (
    Answers,
    answer_count_difference,
    baselines,
    credit,
    load_answers,
    load_definitions,
    make_qa_challenge,
    official_results,
    synthetic_questions,
)

DEFS = "closedquestions_definitions_imageclef2025.json"


# -- an independent re-implementation of the official formulas (DESIGN.md section 3) --------------

def official_like(gold_records, run_records, parents):
    def by_encounter(records):
        out = {}
        for item in records:
            enc = item["encounter_id"].split("-")[0]
            for key, val in item.items():
                if key != "encounter_id":
                    out.setdefault(enc, {}).setdefault(key.split("-")[0], []).append(val)
        return out

    g, r = by_encounter(gold_records), by_encounter(run_records)
    encounters = list(g)
    res, pooled = {}, []
    for parent in parents:
        pairs = [(g[e][parent], r[e][parent]) for e in encounters]
        pooled += pairs
        total = 0.0
        for x, y in pairs:
            total += len(set(x) & set(y)) / max(len(set(x)), len(set(y)))
        res[f"accuracy_{parent}"] = total / len(pairs)
    total = 0.0
    for x, y in pooled:
        total += len(set(x) & set(y)) / max(len(set(x)), len(set(y)))
    res["accuracy_all"] = total / len(pooled)
    res["number_cvqa_instances"] = len(set(i["encounter_id"] for i in gold_records))
    return res


@pytest.fixture(scope="module")
def real(dermavqa):
    qs = load_definitions(dermavqa / DEFS)
    return qs, load_answers(dermavqa / "train_cvqa.json", qs), load_answers(dermavqa / "valid_cvqa.json", qs)


def test_definitions(real):
    qs, train, valid = real
    assert len(qs.qids) == 27 and len(qs.parents) == 9
    assert qs.parents[:3] == ("CQID010", "CQID011", "CQID012")
    assert len(qs.slots("CQID020")) == 9 and len(qs.slots("CQID011")) == 6
    assert all(q.options[-1] == "Not mentioned" for q in qs.questions)
    assert len(train.encounters) == 300 and len(valid.encounters) == 56


def test_official_scores_identical_on_real_validation(real, dermavqa):
    qs, train, valid = real
    gold_records = json.loads((dermavqa / "valid_cvqa.json").read_text())
    runs = baselines(train, valid, rng=0)
    for run in runs:
        got = official_results(valid, run)
        exp = official_like(gold_records, run.to_records(), qs.parents)
        assert list(got) == list(exp)
        assert got == exp, run.name  # identical floats, not close
    assert official_results(valid, valid)["accuracy_all"] == 1.0


def test_train_majority_baseline_fixed_point(real):
    qs, train, valid = real
    run = next(r for r in baselines(train, valid, rng=0) if r.name == "train-majority")
    for s, qid in enumerate(qs.qids):
        counts = Counter(int(v) for v in train.values[:, s])
        top = max(counts.values())
        assert run.values[0, s] == min(k for k, c in counts.items() if c == top)
    assert (run.values == run.values[0]).all()
    res = official_results(valid, run)
    assert 0.45 < res["accuracy_all"] < 0.6  # measured 0.5203 with these files


def test_real_test_run_loads(dermavqa, real):
    qs = real[0]
    run = load_answers(dermavqa / "kle1_final_test_answers_cvqa.json", qs)
    assert len(run.encounters) == 100 and run.notes == ()


def test_table5_hand_made_and_not_mentioned():
    qs = synthetic_questions()
    site = qs.slots("CQID011")  # 6 slots, options 0..6, 7 = Not mentioned
    base = np.zeros((1, len(qs.qids)), dtype=np.int64)
    for s in qs.slots("CQID012") + qs.slots("CQID020"):
        base[0, s] = qs.not_mentioned[s]
    gold = base.copy()
    run = base.copy()
    # the paper's example: reference {arm, leg, N/A}, run {leg, N/A, N/A} (+ N/A elsewhere)
    gold[0, site] = [2, 3, 7, 7, 7, 7]
    run[0, site] = [3, 7, 7, 7, 7, 7]
    g = Answers("gold", ("E1",), gold, qs)
    r = Answers("run", ("E1",), run, qs)
    assert answer_count_difference(g, r)["CQID011"] == -1.0  # 1 - 2 distinct answers
    assert answer_count_difference(g, r, include_not_mentioned=True)["CQID011"] == -1.0  # 2 - 3
    # over-answering, and "Not mentioned" alone
    run[0, site] = [2, 3, 4, 5, 7, 7]
    assert answer_count_difference(g, Answers("run", ("E1",), run, qs))["CQID011"] == 2.0
    run[0, site] = [7] * 6
    d = answer_count_difference(g, Answers("run", ("E1",), run, qs))
    assert d["CQID011"] == -2.0 and d["CQID012"] == 0.0
    assert answer_count_difference(g, Answers("run", ("E1",), run, qs), include_not_mentioned=True)["CQID011"] == -2.0
    # partial credit counts "Not mentioned" as an answer: {2, 3, 7} vs {7}
    c = credit(g, Answers("run", ("E1",), run, qs))
    assert c[0, qs.parents.index("CQID011")] == 1 / 3


def test_synthetic_qa_challenge_is_graded():
    gold, runs = make_qa_challenge(n_encounters=60, n_runs=6, rng=1)
    acc = [official_results(gold, r)["accuracy_all"] for r in runs]
    assert 0.3 < min(acc) < max(acc) < 1.0
    again = make_qa_challenge(n_encounters=60, n_runs=6, rng=1)[1]
    assert all(np.array_equal(a.values, b.values) for a, b in zip(runs, again))


# -- bad inputs ---------------------------------------------------------------------------------

@pytest.fixture
def qa_files(tmp_path):
    qs = synthetic_questions()
    defs = [{"qid": q.qid, "options_en": list(q.options), "question_en": q.qid} for q in qs.questions]
    (tmp_path / DEFS).write_text(json.dumps(defs))
    gold, runs = make_qa_challenge(n_encounters=5, n_runs=2, rng=0, questions=qs)
    gold.write(tmp_path / "gold.json")
    (tmp_path / "runs").mkdir()
    for r in runs:
        r.write(tmp_path / "runs" / f"{r.name}.json")
    return tmp_path, qs


def write(path, records):
    path.write_text(json.dumps(records))
    return path


def test_bad_answer_files_name_file_encounter_and_slot(qa_files):
    folder, qs = qa_files
    rec = json.loads((folder / "gold.json").read_text())
    bad = [dict(r) for r in rec]
    bad[1]["CQID099-001"] = 0
    with pytest.raises(InputError, match=r"bad\.json: encounter ENC00002, slot CQID099-001: unknown question id"):
        load_answers(write(folder / "bad.json", bad), qs)
    bad = [dict(r) for r in rec]
    bad[2]["CQID010-001"] = 4
    with pytest.raises(InputError, match=r"encounter ENC00003, slot CQID010-001: option index 4 out of range 0\.\.3"):
        load_answers(write(folder / "bad.json", bad), qs)
    bad = [dict(r) for r in rec]
    bad[0]["CQID035-001"] = "two"
    with pytest.raises(InputError, match=r"encounter ENC00001, slot CQID035-001: answer 'two' is not an option index"):
        load_answers(write(folder / "bad.json", bad), qs)
    with pytest.raises(InputError, match=r"bad\.json: encounter ENC00001 appears twice"):
        load_answers(write(folder / "bad.json", rec + [rec[0]]), qs)
    bad = [dict(r) for r in rec]
    del bad[3]["CQID020-004"]
    with pytest.raises(InputError, match=r"bad\.json: encounter ENC00004, slot CQID020-004: no answer"):
        load_answers(write(folder / "bad.json", bad), qs)
    filled = load_answers(folder / "bad.json", qs, missing="not_mentioned")
    assert filled.values[3, qs.qids.index("CQID020-004")] == qs.not_mentioned[qs.qids.index("CQID020-004")]
    assert "0 missing encounter(s) and 1 missing slot(s) answered 'Not mentioned'" in filled.notes[0]
    with pytest.raises(InputError, match=r"bad\.json: encounter ENC00005 is missing"):
        load_answers(write(folder / "bad.json", rec[:4]), qs, encounters=[r["encounter_id"] for r in rec])
    (folder / "bad.json").write_text("[{")
    with pytest.raises(InputError, match=r"bad\.json: not valid JSON"):
        load_answers(folder / "bad.json", qs)
    with pytest.raises(InputError, match=r"bad\.json: record #0 has no 'encounter_id'"):
        load_answers(write(folder / "bad.json", [{"CQID010-001": 1}]), qs)


def test_encounter_suffix_is_cut_and_said(qa_files):
    folder, qs = qa_files
    rec = json.loads((folder / "gold.json").read_text())
    rec[0]["encounter_id"] = rec[0]["encounter_id"] + "-v2"
    a = load_answers(write(folder / "suffix.json", rec), qs)
    assert a.encounters[0] == "ENC00001"
    assert "1 encounter id(s) cut at the first '-' as the official scorer does, e.g. ENC00001-v2 -> ENC00001" in a.notes[0]


# -- commands -------------------------------------------------------------------------------

def test_qa_score_command(qa_files):
    from experiments import qa_score

    folder, qs = qa_files
    out = folder / "out"
    assert qa_score.main(["--gold", str(folder / "gold.json"), "--submissions", str(folder / "runs"), "--out", str(out),
                          "--quiet"]) == 0
    gold = load_answers(folder / "gold.json", qs)
    for name in ("run01", "run02"):
        res = json.loads((out / "official" / f"{name}.json").read_text())
        assert res == official_results(gold, load_answers(folder / "runs" / f"{name}.json", qs))
        assert list(res)[-2:] == ["accuracy_all", "number_cvqa_instances"]
    assert (out / "leaderboard.csv").read_text().startswith("run,accuracy_CQID010")
    assert "include_not_mentioned" in (out / "answer_counts.csv").read_text()


def test_qa_score_missing_run_encounter_is_one_line(qa_files, capsys):
    from experiments import qa_score
    from experiments._cli import run

    folder, qs = qa_files
    rec = json.loads((folder / "runs" / "run01.json").read_text())
    write(folder / "runs" / "run01.json", rec[1:])
    assert run(qa_score.main, ["--gold", str(folder / "gold.json"), "--submissions", str(folder / "runs"),
                               "--out", str(folder / "o")]) == 2
    assert capsys.readouterr().err.strip().endswith("run01.json: encounter ENC00001 is missing "
                                                    "(--missing-answers not_mentioned answers it 'Not mentioned' everywhere)")


@pytest.mark.slow
def test_qa_rank_convergence_on_validation_split(dermavqa, tmp_path):
    """The README's command: baselines from the train gold, studied on the validation split."""
    import pandas as pd

    from experiments import qa_rank_convergence as job
    from robustness.results.folder import open_results

    out = tmp_path / "qa"
    assert job.main(["--gold", str(dermavqa / "valid_cvqa.json"), "--baselines", str(dermavqa / "train_cvqa.json"),
                     "--orders", "20", "--bootstrap", "50", "--outer", "4", "--out", str(out), "--quiet"]) == 0
    _, meta = open_results(out)
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert board.index[0] == "perturbed-0.1" and "train-majority" in board.index
    curves = pd.read_parquet(out / "curves.parquet")
    assert set(curves.metric) == {"all", *[f"CQID0{n}" for n in ("10", "11", "12", "15", "20", "25", "34", "35", "36")]}
    assert (curves[curves.n == 56].l1 == 0).all()
    assert (out / "figures" / "fig_07_qa_convergence.png").exists()
    assert "Table 5" in (out / "summary.md").read_text()


@pytest.mark.slow
def test_qa_rank_convergence_synthetic_default(tmp_path):
    from experiments import qa_rank_convergence as job

    out = tmp_path / "qa"
    assert job.main(["--orders", "5", "--bootstrap", "20", "--outer", "4", "--out", str(out), "--quiet", "--no-figures"]) == 0
    assert (out / "meta.json").exists() and (out / "convergence.csv").exists()


# -- hostile files (issue 10): one line naming the file, exit status 2 ---------------------------------

def _qa_refused(argv, capsys, match):
    from experiments import qa_score
    from experiments._cli import run

    assert run(qa_score.main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: ") and "Traceback" not in err, err
    import re

    assert re.search(match, err), err


@pytest.mark.parametrize("case,match", [
    ("latin1", r"gold\.json: not UTF-8 text \(invalid byte at offset"),
    ("folder", r"gold\.json: is a folder, not a file"),
    ("nested", r"gold\.json: JSON nested too deeply"),
    ("empty", r"gold\.json: no answer records \(an empty list\): nothing to score"),
    ("missing", r"argument --gold: .*gold\.json: file not found"),
])
def test_bad_gold_files(qa_files, capsys, case, match):
    folder, _ = qa_files
    gold = folder / "gold.json"
    gold.unlink()
    if case == "latin1":
        gold.write_bytes('[{"encounter_id": "ENC\xe900001"}]'.encode("latin-1"))
    elif case == "folder":
        gold.mkdir()
    elif case == "nested":
        gold.write_text("[" * 100000 + "]" * 100000)
    elif case == "empty":
        gold.write_text("[]")
    _qa_refused(["--gold", str(gold), "--submissions", str(folder / "runs"), "--out", str(folder / "o")], capsys, match)


def test_integer_question_id_in_definitions(qa_files, capsys):
    folder, _ = qa_files
    defs = json.loads((folder / DEFS).read_text())
    defs[0]["qid"] = 11
    (folder / DEFS).write_text(json.dumps(defs))
    _qa_refused(["--gold", str(folder / "gold.json"), "--submissions", str(folder / "runs"), "--out", str(folder / "o")],
                capsys, rf"{DEFS}: question id 11 is not of the form CQIDnnn-mmm")


def test_run_file_that_is_a_folder(qa_files, capsys):
    folder, _ = qa_files
    (folder / "runs" / "run03.json").mkdir()
    _qa_refused(["--gold", str(folder / "gold.json"), "--submissions", str(folder / "runs"), "--out", str(folder / "o")],
                capsys, r"run03\.json: is a folder, not a JSON file")


def test_qa_notes_are_warnings_everywhere(qa_files, capsys):
    from experiments import qa_score
    from robustness.results.folder import open_results

    folder, _ = qa_files
    rec = json.loads((folder / "runs" / "run01.json").read_text())
    rec[0]["encounter_id"] += "-v2"
    write(folder / "runs" / "run01.json", rec)
    out = folder / "o"
    assert qa_score.main(["--gold", str(folder / "gold.json"), "--submissions", str(folder / "runs"), "--out", str(out),
                          "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning: run01.json: 1 encounter id(s) cut at the first '-'" in err
    _, meta = open_results(out)
    assert any("cut at the first '-'" in w for w in meta["warnings"])
    assert "## Warnings" in (out / "summary.md").read_text()
