"""Closed-ended visual QA (DermaVQA-DAS / MEDIQA-MAGIC 2025): official partial-credit scoring and Table 5.

Modules: :mod:`.answers` (definitions and answer files), :mod:`.scoring`
(official partial credit, Table 5), :mod:`.baselines`, :mod:`.synthetic`.

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

from robustness.qa.answers import Answers, Question, QuestionSet, load_answers, load_definitions
from robustness.qa.baselines import baselines
from robustness.qa.scoring import MULTI_SLOT_PARENTS, answer_count_difference, credit, official_results, qa_table
from robustness.qa.synthetic import make_qa_challenge, synthetic_questions

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
