"""A synthetic closed-QA challenge with the real question set's shape."""

from __future__ import annotations

import numpy as np

from robustness.qa.answers import Answers, Question, QuestionSet
from robustness.seeds import SeedLike

__all__ = ["synthetic_questions", "make_qa_challenge"]


# Structure of the MEDIQA-MAGIC 2025 closed questions (slot ids and number of options), used
# to generate a synthetic QA challenge with the same shape when the real definitions are absent.
_STRUCTURE = (("CQID010", 1, 4), ("CQID011", 6, 8), ("CQID012", 6, 4), ("CQID015", 1, 7), ("CQID020", 9, 10),
              ("CQID025", 1, 3), ("CQID034", 1, 12), ("CQID035", 1, 3), ("CQID036", 1, 3))


def synthetic_questions() -> QuestionSet:
    """A question set with the real one's shape (9 parents, 27 slots) and generic option names.

    Returns
    -------
    QuestionSet
    """
    qs = []
    for parent, n_slots, n_opt in _STRUCTURE:
        for k in range(1, n_slots + 1):
            options = tuple(f"option {i}" for i in range(n_opt - 1)) + ("Not mentioned",)
            qs.append(Question(f"{parent}-{k:03d}", options))
    return QuestionSet(tuple(qs))


def make_qa_challenge(*, n_encounters: int = 100, n_runs: int = 12, questions: QuestionSet | None = None,
                      rng: SeedLike = None) -> tuple[Answers, list[Answers]]:
    """A synthetic closed-QA challenge: a gold and runs of graded skill.

    The gold answers each single-slot question from a skewed prior (a Dirichlet
    draw per slot); a multi-slot parent gets 1-3 distinct answers in its first
    slots and "Not mentioned" in the rest. A run with skill ``s`` (spread
    between 0.35 and 0.9) keeps each gold answer with probability ``s`` and
    otherwise answers from the prior; it also drops or adds an answer to a
    multi-slot parent with probability ``(1 - s) / 2`` each, so runs over- and
    under-answer (Table 5).

    Parameters
    ----------
    n_encounters, n_runs : int
    questions : QuestionSet, optional
        Default: :func:`synthetic_questions`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (gold, runs) : Answers, list of Answers
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
