"""The scoring commands' reports (``score``, ``qa_score``): what was scored and where the tables are."""

from __future__ import annotations

from robustness.reporting.document import Report
from robustness.reporting.sections.registry import register_section, register_study
from robustness.reporting.study_result import StudyResult

register_study("score", "Scores")
register_study("qa_score", "Closed-QA scores")


def _score_input(r: Report, res: StudyResult) -> None:
    """What was scored (segmentation)."""
    inp = res.meta["input"]
    r.paragraph(f"Input: {inp['source']} — {inp['images']} images, {inp['runs']} runs; both-empty pairs score: "
                f"{res.meta['empty_policy']}. Tables: leaderboard.csv, official/<run>.json.")


def _qa_score_input(r: Report, res: StudyResult) -> None:
    """What was scored (closed QA)."""
    inp = res.meta["input"]
    r.paragraph(f"Input: {inp['source']} — {inp['encounters']} encounters, {inp['runs']} runs. Tables: "
                "leaderboard.csv, official/<run>.json, answer_counts.csv (Table 5, with 95% bootstrap intervals over "
                "encounters).")


register_section("score", _score_input, name="input")
register_section("qa_score", _qa_score_input, name="input")
