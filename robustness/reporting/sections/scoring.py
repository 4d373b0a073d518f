"""The scoring commands' reports (``score``, ``qa_score``): what was scored and where the tables are."""

from __future__ import annotations

from robustness.errors import parameter
from robustness.reporting.document import Report
from robustness.reporting.sections.registry import register_section, register_study
from robustness.results.study_result import StudyResult
from robustness.scheme import from_meta, set_by_organiser

register_study("score", "Scores")
register_study("qa_score", "Closed-QA scores")


def _score_input(r: Report, res: StudyResult) -> None:
    """What was scored (segmentation)."""
    inp = res.meta["input"]
    r.paragraph(f"Input: {inp['source']} — {inp['images']} images, {inp['runs']} runs; both-empty pairs score: "
                f"{res.meta['empty_policy']}. Tables: leaderboard.csv, official/<run>.json (the MEDIQA-MAGIC "
                "scorer's JSON format, majority gold).")
    if "primary" in res.meta:  # folders written before the headline scheme existed have none

        p = from_meta(res.meta)
        option = parameter("ScoringOptions", "primary")
        why = (f"the organiser's choice ({option})" if set_by_organiser(res.meta["primary"]) else
               "the official scorer's on this layout" if p.official else
               f"the package's default, not this challenge's decision ({option} names another)")
        r.paragraph(f"leaderboard.csv is sorted by {p.title}: {p.label} ({p.text}; "
                    f"{'lower' if p.lower_better else 'higher'} is better), {why}. Scores only: which runs differ, "
                    "and how far this ranking is from the ranking on unlimited data, is the main job's "
                    "(python -m experiments.rank_convergence).")


def _qa_score_input(r: Report, res: StudyResult) -> None:
    """What was scored (closed QA)."""
    inp = res.meta["input"]
    r.paragraph(f"Input: {inp['source']} — {inp['encounters']} encounters, {inp['runs']} runs. Tables: "
                "leaderboard.csv, official/<run>.json, answer_counts.csv (Table 5, with 95% bootstrap intervals over "
                "encounters).")


register_section("score", _score_input, name="input")
register_section("qa_score", _qa_score_input, name="input")
