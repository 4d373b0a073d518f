"""Closed-ended visual QA (DermaVQA-DAS / MEDIQA-MAGIC 2025): official partial-credit scoring and Table 5.

Data
----
Question definitions: 27 *slot* questions (``CQIDnnn-mmm``) grouped into 9
*parent* questions (``CQIDnnn``); each slot has ``options_en`` and the last
option is "Not mentioned". Answer files: a JSON list of
``{"encounter_id": "ENC...", "CQID010-001": 2, ...}`` with 0-based option
indices.

Scoring (identical to the official scorer)
------------------------------------------
For an encounter and a parent question the slot answers of the gold and of
the run are pooled as sets ("Not mentioned" is an ordinary member) and the
partial credit is ``|gold ∩ run| / max(|gold|, |run|)``. ``accuracy_<parent>``
is the mean over encounters, ``accuracy_all`` the mean over every (encounter,
parent) pair. Sums are taken in the same order as the official scorer (Python
floats, encounter order of the gold file), except that the official scorer
walks the parents in Python-set order, which changes from one process to the
next; we walk them in definition order, so ``accuracy_all`` can differ from
one official run in the last digit exactly as two official runs can differ
from each other. Encounter ids are cut at their first '-', as the official
scorer does (and we say so).

Table 5 (answer-count difference)
---------------------------------
For the multi-slot parents (CQID011 site location, CQID012 size, CQID020
skin description): the mean over encounters of (number of distinct answers of
the run) - (number of distinct gold answers); "Not mentioned" is left out by
default (``include_not_mentioned=True`` counts it). Negative: the run gives
fewer answers than the reference. The overview's worked example (reference
{arm, leg, N/A}, run {leg, N/A, N/A}, "the difference would be 2") does not
follow from a distinct-count definition: distinct counts give 1 - 2 = -1
without "Not mentioned" and 2 - 3 = -1 with it. This package uses the
distinct-count definition.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError

__all__ = [
    "Question",
    "QuestionSet",
    "Answers",
    "load_definitions",
    "load_answers",
    "credit",
    "official_results",
    "answer_count_difference",
    "qa_table",
    "baselines",
    "synthetic_questions",
    "make_qa_challenge",
    "MULTI_SLOT_PARENTS",
]

MULTI_SLOT_PARENTS = ("CQID011", "CQID012", "CQID020")


@dataclass(frozen=True)
class Question:
    """One slot question."""

    qid: str
    options: tuple
    question: str = ""
    type: str = ""

    @property
    def parent(self) -> str:
        return self.qid.split("-")[0]

    @property
    def not_mentioned(self) -> int:
        """Index of the "Not mentioned" option (the last one)."""
        return len(self.options) - 1


@dataclass(frozen=True)
class QuestionSet:
    """Slot questions in definition order, grouped into parents (first-seen order)."""

    questions: tuple

    @property
    def qids(self) -> tuple:
        return tuple(q.qid for q in self.questions)

    @property
    def parents(self) -> tuple:
        return tuple(dict.fromkeys(q.parent for q in self.questions))

    def slots(self, parent: str) -> list[int]:
        """Positions of a parent's slots in :attr:`qids`."""
        return [i for i, q in enumerate(self.questions) if q.parent == parent]

    @property
    def n_options(self) -> np.ndarray:
        return np.array([len(q.options) for q in self.questions])

    @property
    def not_mentioned(self) -> np.ndarray:
        return np.array([q.not_mentioned for q in self.questions])


@dataclass(frozen=True, eq=False)
class Answers:
    """One answer file: ``values[e, s]`` is the option index of slot ``s`` for encounter ``e``."""

    name: str
    encounters: tuple
    values: np.ndarray
    questions: QuestionSet
    notes: tuple = field(default=())

    def to_records(self) -> list[dict]:
        """The official JSON form."""
        return [{"encounter_id": e, **{q: int(v) for q, v in zip(self.questions.qids, row)}}
                for e, row in zip(self.encounters, self.values)]

    def write(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_records(), indent=1))


def _read_json(path: Path):
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def load_definitions(path: str | os.PathLike) -> QuestionSet:
    """Read ``closedquestions_definitions_imageclef2025.json`` (or a file of the same shape)."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list) or not data:
        raise InputError(f"{path}: expected a non-empty JSON list of question definitions")
    questions = []
    for k, item in enumerate(data):
        if not isinstance(item, dict) or "qid" not in item or "options_en" not in item:
            raise InputError(f"{path}: definition #{k} has no 'qid' or 'options_en'")
        qid = item["qid"]
        if "-" not in qid:
            raise InputError(f"{path}: question id {qid!r} is not of the form CQIDnnn-mmm")
        questions.append(Question(qid, tuple(item["options_en"]), item.get("question_en", ""),
                                  item.get("question_type_en", "")))
    qids = [q.qid for q in questions]
    if len(set(qids)) != len(qids):
        dup = next(q for q in qids if qids.count(q) > 1)
        raise InputError(f"{path}: question {dup} is defined twice")
    return QuestionSet(tuple(questions))


def load_answers(path: str | os.PathLike, questions: QuestionSet, *, name: str | None = None,
                 encounters=None, missing: str = "error") -> Answers:
    """Read and check one answer file.

    Parameters
    ----------
    path : path
    questions : QuestionSet
    name : str, optional
        Run name (default: the file's stem).
    encounters : sequence of str, optional
        The encounters that must be answered (a run is checked against the
        gold's encounters); extra encounters are dropped with a note.
    missing : {'error', 'not_mentioned'}
        A missing encounter or slot: error (default), or answer "Not
        mentioned" there and say how many.

    Raises
    ------
    InputError
        Naming the file and the encounter/slot: not a list, no encounter id,
        unknown question id, option index out of range or not an integer,
        duplicate encounters, missing encounters or slots (under 'error').
    """
    if missing not in ("error", "not_mentioned"):
        raise ValueError(f"missing must be 'error' or 'not_mentioned', got {missing!r}")
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of answer records")
    qids = questions.qids
    pos = {q: i for i, q in enumerate(qids)}
    n_opt = questions.n_options
    notes = []
    rows: dict[str, dict] = {}
    cut = []
    for k, item in enumerate(data):
        if not isinstance(item, dict) or "encounter_id" not in item:
            raise InputError(f"{path}: record #{k} has no 'encounter_id'")
        raw = str(item["encounter_id"])
        enc = raw.split("-")[0]
        if enc != raw:
            cut.append(raw)
        if enc in rows:
            raise InputError(f"{path}: encounter {enc} appears twice" + (f" (as {raw})" if enc != raw else ""))
        answers = {}
        for key, value in item.items():
            if key == "encounter_id":
                continue
            if key not in pos:
                raise InputError(f"{path}: encounter {enc}, slot {key}: unknown question id")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(f"{path}: encounter {enc}, slot {key}: answer {value!r} is not an option index")
            if not 0 <= value < n_opt[pos[key]]:
                raise InputError(f"{path}: encounter {enc}, slot {key}: option index {value} out of range "
                                 f"0..{n_opt[pos[key]] - 1}")
            answers[key] = int(value)
        rows[enc] = answers
    if cut:
        notes.append(f"{path.name}: {len(cut)} encounter id(s) cut at the first '-' as the official scorer does, "
                     f"e.g. {cut[0]} -> {cut[0].split('-')[0]}")
    wanted = list(rows) if encounters is None else list(encounters)
    extra = [e for e in rows if e not in set(wanted)]
    if extra:
        notes.append(f"{path.name}: {len(extra)} encounter(s) not in the reference ignored, e.g. {extra[0]}")
    values = np.empty((len(wanted), len(qids)), dtype=np.int64)
    n_missing_enc = n_missing_slot = 0
    for e, enc in enumerate(wanted):
        row = rows.get(enc)
        if row is None:
            if missing == "error":
                raise InputError(f"{path}: encounter {enc} is missing (missing='not_mentioned' answers it "
                                 "'Not mentioned' everywhere)")
            n_missing_enc += 1
            row = {}
        for s, q in enumerate(qids):
            if q in row:
                values[e, s] = row[q]
            else:
                if missing == "error":
                    raise InputError(f"{path}: encounter {enc}, slot {q}: no answer")
                if enc in rows:
                    n_missing_slot += 1
                values[e, s] = questions.questions[s].not_mentioned
    if n_missing_enc or n_missing_slot:
        notes.append(f"{path.name}: {n_missing_enc} missing encounter(s) and {n_missing_slot} missing slot(s) "
                     "answered 'Not mentioned'")
    return Answers(name or path.stem, tuple(wanted), values, questions, tuple(notes))


# -- scoring ---------------------------------------------------------------------------------

def _sets(answers: Answers, parent: str, e: int, *, drop_not_mentioned: bool = False) -> set:
    slots = answers.questions.slots(parent)
    nm = answers.questions.not_mentioned
    return {int(answers.values[e, s]) for s in slots if not (drop_not_mentioned and answers.values[e, s] == nm[s])}


def credit(gold: Answers, run: Answers) -> np.ndarray:
    """Partial credit ``|G ∩ R| / max(|G|, |R|)`` per (encounter, parent): float (n_encounters, n_parents).

    Encounters follow the gold; the run must answer each of them.

    Examples
    --------
    >>> qs = synthetic_questions()
    >>> g = Answers("gold", ("E1",), np.array([[0] + [1, 7, 7, 7, 7, 7] + [0] * 20]), qs)
    >>> r = Answers("run", ("E1",), np.array([[0] + [1, 2, 7, 7, 7, 7] + [0] * 20]), qs)
    >>> float(credit(g, r)[0, qs.parents.index("CQID011")])   # {1, 7} vs {1, 2, 7}
    0.6666666666666666
    """
    _check_pair(gold, run)
    parents = gold.questions.parents
    out = np.empty((len(gold.encounters), len(parents)))
    ridx = [run.encounters.index(e) for e in gold.encounters]
    for p, parent in enumerate(parents):
        for e in range(len(gold.encounters)):
            g = _sets(gold, parent, e)
            r = _sets(run, parent, ridx[e])
            out[e, p] = len(g & r) / max(len(g), len(r))
    return out


def _check_pair(gold, run):
    if gold.questions.qids != run.questions.qids:
        raise ValueError("gold and run use different question sets")
    missing = [e for e in gold.encounters if e not in set(run.encounters)]
    if missing:
        raise InputError(f"run {run.name!r} has no answers for encounter {missing[0]} "
                         f"({len(missing)} encounter(s) missing)")


def official_results(gold: Answers, run: Answers) -> dict:
    """The official scorer's JSON: ``accuracy_<parent>`` ..., ``accuracy_all``, ``number_cvqa_instances``."""
    c = credit(gold, run)
    out = {}
    total_all, n_all = 0.0, 0
    for p, parent in enumerate(gold.questions.parents):
        s = 0.0
        for v in c[:, p]:  # sequential Python-float sums, as the official scorer
            s += float(v)
        out[f"accuracy_{parent}"] = s / len(c)
    for p in range(c.shape[1]):
        for v in c[:, p]:
            total_all += float(v)
            n_all += 1
    out["accuracy_all"] = total_all / n_all
    out["number_cvqa_instances"] = len(gold.encounters)
    return out


def answer_count_difference(gold: Answers, run: Answers, *, parents=MULTI_SLOT_PARENTS,
                            include_not_mentioned: bool = False) -> dict:
    """Table 5: mean over encounters of (# distinct run answers) - (# distinct gold answers), per parent."""
    _check_pair(gold, run)
    ridx = [run.encounters.index(e) for e in gold.encounters]
    out = {}
    for parent in parents:
        if parent not in gold.questions.parents:
            raise ValueError(f"unknown parent question {parent!r}")
        d = [len(_sets(run, parent, ridx[e], drop_not_mentioned=not include_not_mentioned))
             - len(_sets(gold, parent, e, drop_not_mentioned=not include_not_mentioned))
             for e in range(len(gold.encounters))]
        out[parent] = float(np.mean(d))
    return out


def qa_table(gold: Answers, runs) -> "pandas.DataFrame":  # noqa: F821
    """Per-encounter scores of every run as a long table for the resampling engine.

    Columns ``case`` (encounter), ``algorithm`` (run), ``value``, ``strategy``
    ("gold"), ``metric`` (``all`` = mean over parents, or a parent id).
    The mean of ``all`` over encounters is ``accuracy_all``.
    """
    import pandas as pd

    frames = []
    for run in runs:
        c = credit(gold, run)
        cols = {"all": c.mean(axis=1)} | {p: c[:, k] for k, p in enumerate(gold.questions.parents)}
        for metric, v in cols.items():
            frames.append(pd.DataFrame({"case": list(gold.encounters), "algorithm": run.name, "value": v,
                                        "strategy": "gold", "metric": metric}))
    return pd.concat(frames, ignore_index=True)


# -- runs to study ---------------------------------------------------------------------------

def baselines(train: Answers, target: Answers, *, rates=(0.1, 0.25, 0.5), rng=None) -> list[Answers]:
    """Documented baseline runs for ``target``'s encounters (e.g. the validation split).

    - ``train-majority``: every slot's most frequent option in ``train`` (ties: lowest index);
    - ``not-mentioned``: "Not mentioned" everywhere;
    - ``random``: a uniformly random valid option per slot;
    - ``train-prior``: each slot drawn from its option frequencies in ``train``;
    - ``perturbed-<rate>``: ``target``'s gold with each slot replaced, with probability
      ``rate``, by another option drawn uniformly (an oracle with errors: stronger and
      weaker systems at chosen error rates).
    """
    rng = np.random.default_rng(rng)
    qs = train.questions
    n_enc, n_slot = len(target.encounters), len(qs.qids)
    n_opt = qs.n_options
    counts = [np.bincount(train.values[:, s], minlength=n_opt[s]) for s in range(n_slot)]
    majority = np.array([int(np.argmax(c)) for c in counts])
    out = [
        Answers("train-majority", target.encounters, np.tile(majority, (n_enc, 1)), qs),
        Answers("not-mentioned", target.encounters, np.tile(qs.not_mentioned, (n_enc, 1)), qs),
        Answers("random", target.encounters, np.floor(rng.random((n_enc, n_slot)) * n_opt).astype(np.int64), qs),
        Answers("train-prior", target.encounters,
                np.stack([rng.choice(n_opt[s], size=n_enc, p=counts[s] / counts[s].sum()) for s in range(n_slot)],
                         axis=1), qs),
    ]
    for rate in rates:
        v = target.values.copy()
        flip = rng.random(v.shape) < rate
        other = (v + 1 + np.floor(rng.random(v.shape) * (n_opt - 1)).astype(np.int64)) % n_opt
        v[flip] = other[flip]
        out.append(Answers(f"perturbed-{rate:g}", target.encounters, v, qs))
    return out


# Structure of the MEDIQA-MAGIC 2025 closed questions (slot ids and number of options), used
# to generate a synthetic QA challenge with the same shape when the real definitions are absent.
_STRUCTURE = (("CQID010", 1, 4), ("CQID011", 6, 8), ("CQID012", 6, 4), ("CQID015", 1, 7), ("CQID020", 9, 10),
              ("CQID025", 1, 3), ("CQID034", 1, 12), ("CQID035", 1, 3), ("CQID036", 1, 3))


def synthetic_questions() -> QuestionSet:
    """A question set with the real one's shape (9 parents, 27 slots) and generic option names."""
    qs = []
    for parent, n_slots, n_opt in _STRUCTURE:
        for k in range(1, n_slots + 1):
            qs.append(Question(f"{parent}-{k:03d}", tuple(f"option {i}" for i in range(n_opt - 1)) + ("Not mentioned",)))
    return QuestionSet(tuple(qs))


def make_qa_challenge(*, n_encounters: int = 100, n_runs: int = 12, questions: QuestionSet | None = None,
                      rng=None) -> tuple[Answers, list[Answers]]:
    """A synthetic closed-QA challenge: a gold and runs of graded skill.

    The gold answers each single-slot question from a skewed prior (a Dirichlet
    draw per slot); a multi-slot parent gets 1-3 distinct answers in its first
    slots and "Not mentioned" in the rest. A run with skill ``s`` (spread
    between 0.35 and 0.9) keeps each gold answer with probability ``s`` and
    otherwise answers from the prior; it also drops or adds an answer to a
    multi-slot parent with probability ``(1 - s) / 2`` each, so runs over- and
    under-answer (Table 5).
    """
    rng = np.random.default_rng(rng)
    qs = questions or synthetic_questions()
    n_opt = qs.n_options
    nm = qs.not_mentioned
    prior = [rng.dirichlet(np.full(n_opt[s], 0.7)) for s in range(len(qs.qids))]

    def draw(s):
        return int(rng.choice(n_opt[s], p=prior[s]))

    def answer_parent(row, parent, k):
        slots = qs.slots(parent)
        real = [o for o in range(n_opt[slots[0]] - 1)]
        chosen = list(rng.choice(real, size=min(k, len(real)), replace=False)) if len(slots) > 1 else [draw(slots[0])]
        for i, s in enumerate(slots):
            row[s] = chosen[i] if i < len(chosen) else nm[s]

    encounters = tuple(f"ENC{e + 1:05d}" for e in range(n_encounters))
    gold = np.empty((n_encounters, len(qs.qids)), dtype=np.int64)
    for e in range(n_encounters):
        for parent in qs.parents:
            answer_parent(gold[e], parent, int(rng.integers(1, 4)))
    runs = []
    skills = np.linspace(0.35, 0.9, n_runs)
    for r, skill in enumerate(rng.permutation(skills)):
        v = gold.copy()
        for e in range(n_encounters):
            for parent in qs.parents:
                slots = qs.slots(parent)
                if len(slots) == 1:
                    if rng.random() > skill:
                        v[e, slots[0]] = draw(slots[0])
                    continue
                answers = [int(v[e, s]) for s in slots if v[e, s] != nm[s]]
                answers = [a if rng.random() < skill else int(rng.integers(0, n_opt[slots[0]] - 1)) for a in answers]
                if rng.random() < (1 - skill) / 2 and len(answers) > 1:
                    answers.pop()
                if rng.random() < (1 - skill) / 2:
                    answers.append(int(rng.integers(0, n_opt[slots[0]] - 1)))
                answers = list(dict.fromkeys(answers))[: len(slots)]
                for i, s in enumerate(slots):
                    v[e, s] = answers[i] if i < len(answers) else nm[s]
        runs.append(Answers(f"run{r + 1:02d}", encounters, v, qs))
    return Answers("gold", encounters, gold, qs), runs
