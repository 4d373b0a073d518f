"""Closed-QA scoring: the official partial credit, accuracies, Table 5 and the per-encounter table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.errors import InputError
from robustness.qa.answers import Answers

__all__ = ["credit", "official_results", "answer_count_difference", "qa_table", "MULTI_SLOT_PARENTS"]

MULTI_SLOT_PARENTS = ("CQID011", "CQID012", "CQID020")


def _sets(answers: Answers, parent: str, e: int, *, drop_not_mentioned: bool = False) -> set:
    questions = answers.questions.questions
    return {int(answers.values[e, s]) for s in answers.questions.slots(parent)
            if not (drop_not_mentioned and answers.values[e, s] == questions[s].not_mentioned)}


def credit(gold: Answers, run: Answers) -> np.ndarray:
    """Partial credit ``|G ∩ R| / max(|G|, |R|)`` per (encounter, parent).

    Encounters follow the gold; the run must answer each of them.

    Parameters
    ----------
    gold, run : Answers

    Returns
    -------
    ndarray of float (n_encounters, n_parents)

    Examples
    --------
    >>> from robustness.qa import synthetic_questions
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
    """The official scorer's JSON for one run.

    Parameters
    ----------
    gold, run : Answers

    Returns
    -------
    dict
        ``accuracy_<parent>`` ..., ``accuracy_all``, ``number_cvqa_instances``.
    """
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


def answer_count_difference(gold: Answers, run: Answers, *, parents: tuple = MULTI_SLOT_PARENTS,
                            include_not_mentioned: bool = False, per_encounter: bool = False) -> dict:
    """Table 5: mean over encounters of (# distinct run answers) - (# distinct gold answers), per parent.

    Parameters
    ----------
    gold, run : Answers
    parents : tuple of str
        The parent questions (default: the multi-slot ones).
    include_not_mentioned : bool
        Count "Not mentioned" as an answer.
    per_encounter : bool
        Give the array of per-encounter differences (gold order) instead of their mean.

    Returns
    -------
    dict
        Parent -> the mean difference (or the array).
    """
    _check_pair(gold, run)
    ridx = [run.encounters.index(e) for e in gold.encounters]
    out = {}
    for parent in parents:
        if parent not in gold.questions.parents:
            raise ValueError(f"unknown parent question {parent!r}")
        d = np.array([len(_sets(run, parent, ridx[e], drop_not_mentioned=not include_not_mentioned))
                      - len(_sets(gold, parent, e, drop_not_mentioned=not include_not_mentioned))
                      for e in range(len(gold.encounters))])
        out[parent] = d if per_encounter else float(np.mean(d))
    return out


def qa_table(gold: Answers, runs: list[Answers]) -> pd.DataFrame:
    """Per-encounter scores of every run as a long table for the resampling engine.

    Parameters
    ----------
    gold : Answers
    runs : list of Answers

    Returns
    -------
    pandas.DataFrame
        ``case`` (encounter), ``algorithm`` (run), ``value``, ``strategy`` ("gold"), ``metric`` ("all" = mean
        over parents, or a parent id). The mean of "all" over encounters is the run's accuracy_all.
    """
    frames = []
    for run in runs:
        c = credit(gold, run)
        cols = {"all": c.mean(axis=1)} | {p: c[:, k] for k, p in enumerate(gold.questions.parents)}
        for metric, v in cols.items():
            frames.append(pd.DataFrame({"case": list(gold.encounters), "algorithm": run.name, "value": v,
                                        "strategy": "gold", "metric": metric}))
    return pd.concat(frames, ignore_index=True)
