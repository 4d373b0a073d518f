"""Closed-QA question definitions and answer files: reading and checking them (one-line errors)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from robustness.errors import InputError, parameter
from robustness.files import open_regular

__all__ = ["Question", "QuestionSet", "Answers", "load_definitions", "load_answers"]


@dataclass(frozen=True)
class Question:
    """One slot question."""

    qid: str
    options: tuple
    question: str = ""
    type: str = ""

    @property
    def parent(self) -> str:
        """The parent question's id: ``qid`` up to its first ``-`` (``CQID010`` for ``CQID010-001``)."""
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
        """Every slot's question id, in definition order."""
        return tuple(q.qid for q in self.questions)

    @property
    def parents(self) -> tuple:
        """The parent question ids, in first-seen order."""
        return tuple(dict.fromkeys(q.parent for q in self.questions))

    def slots(self, parent: str) -> list[int]:
        """Positions of a parent's slots in :attr:`qids`.

        Parameters
        ----------
        parent : str
            A parent question id (one of :attr:`parents`).

        Returns
        -------
        list of int
            The positions, in definition order (empty for an unknown parent).
        """
        return list(self._positions.get(parent, ()))

    @functools.cached_property
    def _positions(self) -> dict[str, list[int]]:
        """Every parent's slot positions, found once (scoring asks for them per encounter and parent)."""
        out: dict[str, list[int]] = {}
        for i, q in enumerate(self.questions):
            out.setdefault(q.parent, []).append(i)
        return out

    @property
    def n_options(self) -> np.ndarray:
        """Number of options of every slot (int), in definition order."""
        return np.array([len(q.options) for q in self.questions])

    @property
    def not_mentioned(self) -> np.ndarray:
        """Index of every slot's "Not mentioned" option (its last one), in definition order."""
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
        """The official JSON form.

        Returns
        -------
        list of dict
            One record per encounter: ``{"encounter_id": encounter, qid: option index, ...}``.
        """
        return [{"encounter_id": e, **{q: int(v) for q, v in zip(self.questions.qids, row)}}
                for e, row in zip(self.encounters, self.values)]

    def write(self, path: str | os.PathLike) -> None:
        """Write the answers as the official JSON file (:meth:`to_records`).

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (replaced when it exists).
        """
        Path(path).write_text(json.dumps(self.to_records(), indent=1))


def _read_json(path: Path):
    """The JSON value of a file, or a one-line InputError.

    The error says what is wrong: missing, a folder, a FIFO or a device, not UTF-8, invalid, too deep, an
    integer of more digits than Python converts.
    """
    path = Path(path)
    try:
        with open_regular(path) as f:
            raw = f.read()
    except InputError as exc:
        if str(exc).endswith(": is a folder, not a file"):
            raise InputError(f"{path}: is a folder, not a JSON file") from None
        raise
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (invalid byte at offset {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to be an answer or definitions file") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise InputError(f"{path}: not a usable JSON file ({str(exc).split(';')[0]})") from None


def load_definitions(path: str | os.PathLike) -> QuestionSet:
    """Read ``closedquestions_definitions_imageclef2025.json`` (or a file of the same shape).

    Parameters
    ----------
    path : str or os.PathLike
        A JSON list of definitions, each with a ``qid`` (``CQIDnnn-mmm``) and its ``options_en``.

    Returns
    -------
    QuestionSet
        The slot questions in file order.

    Raises
    ------
    InputError
        One line naming the file: not a JSON list, a definition without ``qid`` or ``options_en``, a malformed
        question id or option list, a question defined twice.
    """
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list) or not data:
        raise InputError(f"{path}: expected a non-empty JSON list of question definitions")
    questions = []
    for k, item in enumerate(data):
        if not isinstance(item, dict) or "qid" not in item or "options_en" not in item:
            raise InputError(f"{path}: definition #{k} has no 'qid' or 'options_en'")
        qid, options = item["qid"], item["options_en"]
        if not isinstance(qid, str) or "-" not in qid:
            raise InputError(f"{path}: question id {qid!r} is not of the form CQIDnnn-mmm")
        if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
            raise InputError(f"{path}: question {qid}: 'options_en' must be a non-empty list of strings")
        questions.append(Question(qid, tuple(options), str(item.get("question_en", "")),
                                  str(item.get("question_type_en", ""))))
    qids = [q.qid for q in questions]
    if len(set(qids)) != len(qids):
        dup = next(q for q in qids if qids.count(q) > 1)
        raise InputError(f"{path}: question {dup} is defined twice")
    return QuestionSet(tuple(questions))


def load_answers(path: str | os.PathLike, questions: QuestionSet, *, name: str | None = None,
                 encounters: Iterable[str] | None = None, missing: str = "error") -> Answers:
    """Read and check one answer file.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON list of records, each with an ``encounter_id`` and an option index per slot question id.
    questions : QuestionSet
        The question definitions the answers refer to.
    name : str, optional
        Run name (default: the file's stem).
    encounters : sequence of str, optional
        The encounters that must be answered (a run is checked against the
        gold's encounters); extra encounters are dropped with a note.
    missing : {'error', 'not_mentioned'}
        A missing encounter or slot: error (default), or answer "Not
        mentioned" there and say how many.

    Returns
    -------
    Answers
        One row per encounter (in ``encounters`` order, else file order; ids cut at the first ``-`` as the
        official scorer does), with the notes on what was cut, ignored or filled in.

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
    notes = []
    rows, cut = _answer_rows(path, data, questions)
    if cut:
        notes.append(f"{path.name}: {len(cut)} encounter id(s) cut at the first '-' as the official scorer does, "
                     f"e.g. {cut[0]} -> {cut[0].split('-')[0]}")
    wanted = list(rows) if encounters is None else list(encounters)
    if not wanted:
        raise InputError(f"{path}: no answer records (an empty list): nothing to score")
    extra = [e for e in rows if e not in set(wanted)]
    if extra:
        notes.append(f"{path.name}: {len(extra)} encounter(s) not in the reference ignored, e.g. {extra[0]}")
    values, n_missing_enc, n_missing_slot = _answer_matrix(path, rows, wanted, questions, missing)
    if n_missing_enc or n_missing_slot:
        notes.append(f"{path.name}: {n_missing_enc} missing encounter(s) and {n_missing_slot} missing slot(s) "
                     "answered 'Not mentioned'")
    return Answers(name or path.stem, tuple(wanted), values, questions, tuple(notes))


def _answer_matrix(path: Path, rows: dict[str, dict], wanted: list, questions: QuestionSet,
                   missing: str) -> tuple[np.ndarray, int, int]:
    """The answers of the ``wanted`` encounters, slot by slot (encounters x questions), and what was missing.

    Returns the matrix and how many encounters and slots were missing (answered 'Not mentioned' with
    ``missing='not_mentioned'``; refused otherwise).
    """
    qids = questions.qids
    values = np.empty((len(wanted), len(qids)), dtype=np.int64)
    n_missing_enc = n_missing_slot = 0
    for e, enc in enumerate(wanted):
        row = rows.get(enc)
        if row is None:
            if missing == "error":
                raise InputError(f"{path}: encounter {enc} is missing ({parameter('load_answers', 'missing')}="
                                 "'not_mentioned' answers it 'Not mentioned' everywhere)")
            n_missing_enc += 1
            row = {}
        for s, q in enumerate(qids):
            if q in row:
                values[e, s] = row[q]
                continue
            if missing == "error":
                raise InputError(f"{path}: encounter {enc}, slot {q}: no answer "
                                 f"({parameter('load_answers', 'missing')}='not_mentioned' answers 'Not mentioned' "
                                 "there)")
            n_missing_slot += enc in rows
            values[e, s] = questions.questions[s].not_mentioned
    return values, n_missing_enc, n_missing_slot


def _answer_rows(path: Path, data: list, questions: QuestionSet) -> tuple[dict[str, dict], list]:
    """Every record's answers by encounter (ids cut at the first ``-``), checked; and the ids that were cut."""
    pos = {q: i for i, q in enumerate(questions.qids)}
    n_opt = questions.n_options
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
    return rows, cut
