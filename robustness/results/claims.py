"""The claims of the verdicts table, declared once: what a study writes and a report reads, by name.

:meth:`robustness.results.study_result.Verdicts.add` and
:meth:`robustness.results.study_result.StudyResult.verdict` refuse a name not declared here.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["CLAIMS", "ClaimName", "register_claim", "known_claim"]

#: The claims the package's studies write and its reports read, as a type: mypy checks every name written as a
#: literal at :meth:`~robustness.results.verdicts.Verdicts.add` and
#: :meth:`~robustness.results.study_result.StudyResult.verdict` (a typo fails the type check, before any run).
#: :data:`CLAIMS` holds the same names with their meanings (``tests/test_architecture.py`` checks that they agree); a
#: claim registered later (:func:`register_claim`, a new study's) is checked at run time only.
ClaimName = Literal[
    "actual_distance",
    "annotation_effort",
    "best_is_best",
    "best_stays_first",
    "closest_scheme",
    "convergence_point",
    "curve_auc",
    "distance_band",
    "units_needed_range",
    "encounters_needed",
    "encounters_needed_new_population",
    "encounters_needed_by_population",
    "new_population_bound_left_out",
    "estimate",
    "estimate_ratio",
    "encounters_needed_top1",
    "fastest_convergence",
    "first_place",
    "fit_not_converged",
    "interval_coverage",
    "label_tau",
    "least_gold_agreement",
    "main_job_size",
    "method_agreement",
    "method_agreement_range",
    "metric_tau",
    "neighbours_differ",
    "neighbours_differ_wilcoxon",
    "neighbours_only_differ",
    "one_random_annotator",
    "own_distance_alternative",
    "own_distance_to_truth",
    "paper_converged_but_far_share",
    "paper_converged_share",
    "paper_point_fraction",
    "pool_distance",
    "pairs_differ",
    "pairs_differ_wilcoxon",
    "resolution",
    "twin_resolution",
    "resolve_units",
    "random_gold_spread",
    "recommended_scheme",
    "small_sd_share",
    "target",
    "truth_best",
    "units_needed",
    "unlimited_distance",
    "winner_by_scheme",
]


#: Every claim a study writes into verdicts.csv and a report reads back, declared once: name -> what it claims.
#: :meth:`Verdicts.add` and :meth:`StudyResult.verdict` refuse any other name, so a claim is written and read by
#: this name alone (:func:`register_claim` adds one).
CLAIMS: dict[str, str] = {
    "actual_distance": "design calibration: the population's true expected L1 at a size",
    "annotation_effort": "whether annotating more images or more annotators per image buys more agreement",
    "best_is_best": "the share of test sets on which the population's best run is first",
    "best_stays_first": "whether this test set's leader is the leader with unlimited data",
    "closest_scheme": "the gold scheme whose ranking is closest to the truth's (or the tied ones)",
    "convergence_point": "the test-set size where the mean L1 curve reaches the size target",
    "curve_auc": "the area under a scheme's mean L1 curve",
    "distance_band": "the expected L1 over the priors a test set can estimate, and whether the answer depends on them",
    "units_needed_range": "the size for the target over the priors a test set can estimate (where the "
                          "prior-sensitivity band's ends reach it)",
    "encounters_needed": "the design study's size that reaches the target, per gold scheme",
    "encounters_needed_new_population": "the design study's size for a new run population drawn with the "
                                        "settings (the upper end of a prediction interval over run populations)",
    "encounters_needed_by_population": "that size per run population",
    "new_population_bound_left_out": "the size for a new run population computed from every run population but "
                                     "one, held against the left-out one's own size, in turn",
    "estimate": "design calibration: the main job's estimate of the expected L1 at a size",
    "estimate_ratio": "design calibration: the median ratio of that estimate to the truth",
    "encounters_needed_top1": "the design study's size at which the best run is first with the stated confidence",
    "fastest_convergence": "the gold strategy whose ranking settles fastest (or the tied ones)",
    "first_place": "the runs whose interval includes first place",
    "fit_not_converged": "images whose STAPLE fit did not converge",
    "interval_coverage": "how often an interval held its truth in simulation",
    "label_tau": "agreement between the rankings of two labels (Kendall's tau)",
    "least_gold_agreement": "the pair of gold strategies whose rankings agree least",
    "main_job_size": "the main job's own size answer beside the design study's",
    "method_agreement": "agreement between the rankings of two ranking methods",
    "method_agreement_range": "the range of that agreement over the schemes",
    "metric_tau": "agreement between the rankings of two metrics (Kendall's tau)",
    "neighbours_differ": "neighbouring pairs on the leaderboard that differ significantly",
    "neighbours_differ_wilcoxon": "the same by the paired Wilcoxon test",
    "neighbours_only_differ": "pairs that differ when only neighbouring pairs are tested",
    "one_random_annotator": "what one random annotator as gold costs against the recommended scheme",
    "own_distance_alternative": "a gold's own distance to the truth under another scheme",
    "own_distance_to_truth": "a gold's own distance to the truth, and whether the target is reachable",
    "paper_converged_but_far_share": "design calibration: test sets the paper's rule calls converged though far",
    "paper_converged_share": "design calibration: test sets the paper's rule calls converged",
    "paper_point_fraction": "design calibration: the paper's convergence point as a fraction of the test set",
    "pool_distance": "design calibration: the expected L1 of the pooled estimate",
    "pairs_differ": "pairs of runs that differ significantly (the one significance analysis)",
    "pairs_differ_wilcoxon": "the same by the paired Wilcoxon test",
    "resolution": "the smallest true difference between two runs the test set declares with 80% power, and the "
                  "neighbouring pairs closer than it",
    "twin_resolution": "the design study's resolution at the challenge's size beside the main job's on the real data",
    "resolve_units": "the test-set size at which a given true difference is declared with 80% power",
    "random_gold_spread": "how much the ranking moves with the random annotator chosen as gold",
    "recommended_scheme": "the gold scheme the design study recommends",
    "small_sd_share": "the share of images whose annotators' spread is small",
    "target": "whether a claim met its calibration target",
    "truth_best": "the scheme whose ranking is closest to the synthetic truth",
    "units_needed": "the test-set size that reaches the size target with the stated confidence",
    "unlimited_distance": "the expected L1 between this test set's ranking and unlimited data's",
    "winner_by_scheme": "whether the leader changes with the gold scheme",
}


def register_claim(name: str, meaning: str) -> str:
    """Declare a claim (a new study's verdict); returns its name.

    Parameters
    ----------
    name : str
    meaning : str
        What it claims, in one line.

    Returns
    -------
    str
    """
    CLAIMS[name] = meaning
    return name


def known_claim(claim: str) -> str:
    """``claim``, when declared in :data:`CLAIMS`.

    Parameters
    ----------
    claim : str

    Returns
    -------
    str

    Raises
    ------
    ValueError
        An undeclared claim.
    """
    if claim not in CLAIMS:
        raise ValueError(f"unknown claim {claim!r}: declare it in CLAIMS (register_claim) before writing or reading "
                         "it")
    return claim
