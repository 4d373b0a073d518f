"""Each finding's prose, declared beside its claim: the sentences a report states for the verdicts rows.

A study writes its findings as rows of the verdicts table (:mod:`robustness.results.verdicts`), each under a claim
of :data:`robustness.results.claims.ClaimName`; a report phrases them. The phrasing lives here, one template per
claim and form (a row's outcome, such as ``tied``, or a sentence that gathers rows), in the order a reader meets
them, so the words of every finding can be read, reviewed and changed in one place, and a section only chooses the
form and supplies the fields. A template's fields are a verdict row's (``value``, ``low``, ``high``, ``count``,
``total``, ``subject``...) and the words the section computes (``scheme``, a list of names); :func:`phrase` fills one
and refuses a form or field it does not have. ``tests/reporting/test_findings.py`` checks that every template
names a declared claim and fills from a verdict row and its declared words.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from robustness.results.claims import ClaimName

__all__ = ["PROSE", "phrase", "fields_of"]

#: How a probability of first place was found to hold on simulated populations (docs/calibration.md, "p_best from
#: the likelihood alone": the full study's twelve populations at the quick size, seeds 0 and 7, by
#: tests/outside/p_best_priors.py with 300 test sets each and by experiments.calibration with 100; p_best pooled over
#: populations, by bin of the claim).
_P_BEST_CALIBRATION = ("the likelihood's probability, without a prior; pooled over twelve simulated populations at "
                       "two seeds its claims came true within 0.08 of the claim in 11 of 12 bins in each of two "
                       "measurements, and micro claims below 0.5 at worst 0.10 less often than claimed, where the "
                       "empirical-Bayes posteriors' claims below 0.5 came true up to 0.26 more often: "
                       "docs/calibration.md")

#: claim -> form -> template (:meth:`str.format` over a verdict row's fields and the section's words).
PROSE: dict[ClaimName, dict[str, str]] = {
    "pairs_differ": {
        "headline": "**Which runs are separable** ({scheme}): {count} of {total} pairs of runs differ (paired "
                    "t-test, Holm, 5%), {neighbours}",
        "qa": "Paired bootstrap of accuracy differences over encounters, two-sided, Holm over all {total} pairs: "
              "{count} pairs differ; of the {neighbours} neighbouring pairs {neighbours_differ} differ and for {rest} "
              "there is no evidence of a difference{same}.",
        "paragraph": "**{gold}, {average} {metric_label}**: {count} of {total} pairs of runs differ (Holm over all "
                     "{total} pairs); {neighbours} there is no evidence of a difference (which is not evidence that "
                     "they are equal).",
    },
    "neighbours_differ": {
        "none": "none of the {total} pairs that are neighbours on the leaderboard differ: for all of them",
        "some": "{count} of the {total} pairs that are neighbours on the leaderboard differ, and for the remaining "
                "{rest}",
    },
    "neighbours_only_differ": {
        "alone": " Holm over the {total} neighbouring pairs alone (a smaller family) finds {count} of them.",
    },
    "pairs_differ_wilcoxon": {
        "check": " The rank-based check (Wilcoxon signed-rank test on per-{unit} scores, Holm over all pairs) finds "
                 "{count} of {total} pairs and {neighbours} neighbouring pairs.",
    },
    "unlimited_distance": {
        "sentence": "Against unlimited data (empirical-Bayes estimate, interval over resampled test sets): expected L1 "
                    "{value:.1f} ({level:.0%} interval {low:.1f} to {high:.1f}; {per_run:.2f} places per run; "
                    "{baseline}) at the test set's {count} {unit}s{best}; {target} needs {needed} "
                    "(ranking_uncertainty.csv, test_set_size.csv).",
        "bullet": "Ranks: L1 {value:.1f} ({low:.1f} to {high:.1f}) to the ranking on unlimited data; {target} needs "
                  "{size}{flag}.",
    },
    "fastest_convergence": {
        "fastest": "**{average}**: {gold} settles fastest on this test set's own ranking (self-consistency, not "
                   "closeness to the truth), AUC {auc}: its paired differences in AUC with every other strategy are "
                   "below zero {over} (Bonferroni-adjusted {level:.1%} intervals).{spread}",
        "tied": "**{average}**: no strategy settles fastest: {golds} are tied: their paired AUC differences with "
                "{gold} (the lowest {lowest}; AUC on this test set's orders {auc}) have Bonferroni-adjusted "
                "{level:.1%} intervals {over} that include zero.{spread}",
    },
    "random_gold_spread": {
        "auc": " One random annotator (a draw, not a candidate): AUC {low:.1f} to {high:.1f} over its {count} draws.",
        "tau_to_truth": " One random annotator (a draw, not a candidate): tau {low:.3f} to {high:.3f} over its "
                        "{count} draws.",
    },
    "best_is_best": {
        "clause": "; the observed best is the population's best with probability {value:.2f}",
        "tied": "**First place**: {leaders} tie for first on this test set (equal scores), so none of them is named "
                "the winner; the probability that one of them is the runs' best on unlimited data is "
                "{value:.2f} (rank_keep.csv; " + _P_BEST_CALIBRATION + ").",
        "best": "**First place**: the observed best, {subject[0]}, is the runs' best on unlimited data with "
                "probability {value:.2f} (rank_keep.csv; " + _P_BEST_CALIBRATION + ").",
    },
    "winner_by_scheme": {
        "moves": "under {scheme} {subject[0]} is first in {value:.0%} of resamples and {lead} in {low:.1%} (rank "
                 "{count} of {total} on this test set)",
        "moves_bullet": "**What moves the first place**: {lead} is first under {headline}, but {moves}{more}.",
        "may_move_too": " Under {schemes}, another run is first on this test set, without confidence (tied).",
        "may_move_bullet": "**What moves the first place**: nothing with confidence. Under {schemes}, another run "
                           "than {lead} is first on this test set, but {lead} is also first in at least 2.5% of "
                           "resamples there (tied).",
        "stays_bullet": "**What moves the first place**: none of the {tried} other schemes tried (another fixed "
                        "gold, the other averaging, another overlap metric): {lead} is first under each of them on "
                        "this test set.",
        "decides": " The headline is the organiser's decision; this is how much it decides (rank_distribution.csv, "
                   "bootstrap over the same resampled test sets for every scheme).",
    },
    "truth_best": {
        "section_best": "**{average}**: **{gold}** agrees best with the truth, tau {interval}; its paired differences "
                        "with every other strategy exclude zero.{spread}",
        "section_tied": "**{average}**: no single best: {golds} are tied (paired bootstrap differences in tau with "
                        "{gold}, tau {interval}, include zero).{spread}",
        "best": "**Which gold**: against the latent truth on this test set ({average} {metric_label}) {gold} agrees "
                "best; one random annotator is a draw, not a choice. Which gold and how many {unit}s a new "
                "challenge needs: {design}.",
        "tied": "**Which gold**: against the latent truth on this test set ({average} {metric_label}) {golds} are "
                "tied; one random annotator is a draw, not a choice. Which gold and how many {unit}s a new "
                "challenge needs: {design}.",
        "unknown": "**Which gold**: this test set cannot say which gold ranks closer to the truth ({why}, and the "
                   "convergence curves measure how soon a subset agrees with this test set's own ranking, not "
                   "accuracy). The design study answers it by simulating challenges like this one: {design}",
    },
    # how many units: the resolution in score differences and the rank target's size (the main job)
    "units_needed": {
        "bullet": "**How many {unit}s** ({scheme}): {parts}",
        "beyond": "more than {count} {unit}s, the largest size tried{estimate}",
        "estimate": " (the estimate: about {value:.0f})",
        "already": "at most {high:.0f} {unit}s",
        "found": "about {value:.0f} {unit}s, at least {high:.0f} to claim it",
    },
    "resolution": {
        "bullet": "with its {n_units} {unit}s this test set resolves a true difference of {resolution} in "
                  "{metric_label} between neighbouring runs ({level:.0%} CI {lowest} to {highest}; paired t-test at "
                  "{alpha:.0%}, {power:.0%} power); {close}.",
        "closer": "{count} of the {total} neighbouring pairs lie closer than that",
        "no_pairs": "there are no neighbouring pairs",
        "paragraph": "**{gold}, {average} {metric_label}**: resolution {resolution} ({level:.0%} CI {lowest} to "
                     "{highest}) at N = {n_units} {unit}s. ",
        "unsettled": "{count} of the {total} neighbouring pairs differ by less than that on this test set ({pairs}): "
                     "a true difference of that size is missed in more than {missed:.0%} of test sets like this "
                     "one, so these places are the ones this test set cannot be expected to settle",
        "declared_anyway": " ({declared} of the pairs are declared different here all the same).",
        "not_evidence": "; not declaring them different is not evidence that they are equal.",
        "settled": "None of the {total} neighbouring pairs differ by less than that on this test set.",
    },
    "resolve_units": {
        "bullet_beyond": "A difference of {subject[0]} needs more than the largest size searched.",
        "bullet": "A difference of {subject[0]} needs about {value:.0f} {unit}s, {high:.0f} to claim it.",
        "beyond": " A true difference of {subject[0]} needs more than the largest size searched.",
        "found": " A true difference of {subject[0]} is declared with {power:.0%} power at about {value:.0f} {unit}s "
                 "({low:.0f} to {high:.0f} over the SD's interval; claim {high:.0f}: resolve.csv).",
    },
    "units_needed_range": {
        "flag": " (the {group}s' spreads differ: claim {claim}, the range's upper end)",
        "same": " Over the priors a test set can estimate, the size is {lowest} {unit}s too (units_needed_range).",
        "between": " Over the priors a test set can estimate (the band's two ends), the size lies between {lowest} and "
                   "{highest} {unit}s (units_needed_range).",
        "flagged": "For the size, claim the range's upper end too, {highest} {unit}s, rather than the two priors' "
                   "bound (on simulated populations with a team tighter than the noise this reached the target where "
                   "that bound fell short). ",
    },
    "distance_band": {
        "per_team": "each {group} its own, for the upper end the smallest spread the test set allows (97.5% lower "
                    "limit)",
        "plugin": "the plug-in, which takes the observed scores for the population's (no {group} of two or more runs)",
        "span": "{low:.1f} to {high:.1f} at {count} {unit}s",
        "sentence": " Allowing for the prior, which the test set estimates (one within-{group} spread shared by the "
                    "{group}s, or {other}), the interval is {spans} (distance_band).",
        "flag": " **Your {group}s differ in spread: read the range, not the estimate.** The test that the {group}s "
                "share one within-{group} spread rejects it (p = {p_value:.3f} on {total} {unit}s). This is about "
                "your runs, not about this test set's estimate: the estimate shares one spread among the {group}s, "
                "and where a {group}'s runs lie closer together than the others' it tends to run low at larger sizes "
                "(the other prior's estimate differs by {gap:.0%} at {count} {unit}s). The range's upper end, "
                "{high:.1f} there, allows for it; more runs per {group} or more {unit}s settle it. ",
    },
    # how the rankings under golds, metrics and labels agree (the main job)
    "least_gold_agreement": {
        "paragraph": "Kendall's tau between the rankings under two golds ({average} {metric_label}); the lowest is "
                     "between {gold} and {other}, tau {interval} (both rankings recomputed on {unit} resamples, "
                     "percentile intervals){tied}. Every pair with its interval: kendall_tau.csv.",
        "overlapping": "; its interval overlaps those of {count} of the other {total} pairs, so these are not told "
                       "apart from it",
        "apart": "; its interval lies below those of every other pair",
    },
    "metric_tau": {
        "conclusion": "under {metric} {count} of {total} runs take another place (Kendall's tau {interval}: {how})"
                      "{first}",
        "conclusions": "Against macro {metric_label} ({gold}): {said}.",
        "same_order": "the same order on every resample",
        "orders_differ": "the orders differ with confidence",
        "tied_order": "tied with the headline's order",
        "paragraph": "**{metric}** ({direction}): Kendall's tau with macro {metric_label}'s ranking {tau}.",
        # the tau of a metric_tau or label_tau row, and what it means by the row's statement
        "tau": "{interval}; {count} of {total} runs take another rank than {what} on this test set; {meaning}",
        "agree": "the two rankings are the same on every resampled test set",
        "differ": "the two rankings differ on at least 97.5% of resampled test sets",
        "tied": "its interval reaches 1, so full agreement on a new test set is not excluded (tied)",
    },
    "label_tau": {
        "moved": "{subject[0]} vs {subject[1]} ({count} of {total} runs move)",
        "conclusion": "Between labels: {differ} of {pairs} pairs of labels order the runs differently with "
                      "confidence{which} (label_tau).",
        "paragraph": "**label {label} and label {other}**: Kendall's tau between their macro {metric_label} rankings "
                     "{tau}.",
    },
    "fit_not_converged": {
        "paragraph": "{gold} did not converge within its iteration cap on {count} image(s): see images.csv.",
    },
    "small_sd_share": {
        "paragraph": "Trust the pooled-SD z of the leave-one-annotator-out rows. The mean of per-image z ({name}'s "
                     "Table 4) is dominated by images where the annotators happen to agree almost exactly: the 10% "
                     "of images with the smallest SD supply {value:.0%} of the sum (median over runs), and an SD "
                     "over {panel} annotators has {dof} degrees of freedom. Scoring annotators against a STAPLE "
                     "consensus that contains them shrinks their own spread, so that variant overstates how far "
                     "runs are from human agreement. All variants: gold_spread.csv.",
    },
    # ranking methods, the per-case table and closed QA
    "method_agreement": {
        "bullet": "{method} vs {other}: Kendall's tau {tau}",
    },
    "first_place": {
        "one": "first under {method}: {subject[0]}",
        "tied": "first under {method}: {tied} runs tied ({runs}{more})",
    },
    "method_agreement_range": {
        "paragraph": "Across the {count} golds ({average} {metric}), tau between two methods ranges from {low:.2f} to "
                     "{high:.2f} (every pair with its interval: the figure below and the agreement table).",
    },
    "convergence_point": {
        "reached": "L1 <= {tolerance} at n = {value:.0f} ({low:.0f}-{high:.0f})",
        "only_at_n": "L1 <= {tolerance} only at n = N",
        "points": "Convergence points (95% of orders, with their 95% intervals over orders): {points}; area under the "
                  "mean L1 curve {auc}. Paired t-test (delta-method SE), Holm: {pairs} of {total} pairs differ; of "
                  "{neighbours} neighbouring pairs {neighbours_differ} differ, the rest: no evidence of a difference.",
        "qa": "The ranking on the first n encounters is within L1 <= {target} of the ranking on all {count} ({rule}) "
              "from n = {value:.0f} in 95% of orders (95% CI over orders {low:.0f}-{high:.0f}); {exact}; area under "
              "the mean L1 curve {auc} (Monte Carlo over orders). This compares subsets with this test set, not with "
              "unlimited data.",
        "exact": "exactly equal from n = {value:.0f}",
        "exact_only_at_n": "exactly equal only at the whole test set, where L1 = 0 by construction",
    },
    # the design study's recommendation (recommendation.md)
    "one_random_annotator": {
        "average": "{average}: L1 {interval}, the {count} draws' means {first:.1f} to {last:.1f}",
        "bullet": "**One random annotator** as the gold (a draw, not a choice an organiser can adopt; reported as one "
                  "scheme): {averages}.",
    },
    "closest_scheme": {
        "best": "**Use {scheme}**: its L1 to the runs' population ranking is smaller than every other scheme's in "
                "paired comparisons over replicates (Bonferroni-adjusted {level:.1%} intervals).",
        "tied": "**Use {scheme}**: tied with it for the ranking closest to the runs' population ranking: {others} "
                "(the t intervals of their mean paired differences over replicates, Bonferroni-adjusted, include "
                "zero); among tied schemes the rule picks the simplest gold to state and reproduce (majority before "
                "STAPLE before the others) and, of its averagings, the one closer on average.",
    },
    "own_distance_to_truth": {
        "unreachable": "**Test-set size**: no test-set size reaches an expected L1 <= {target} ({per_run}) with "
                       "{scheme}: its own distance to the truth is {interval} (L1 between its ranking and the "
                       "truth's on the same {count} {unit}s).",
    },
    "recommended_scheme": {
        "size": "**Test-set size**: the expected L1 to the runs' population ranking falls to {target} ({per_run}) "
                "with {about} {unit}s (95% interval over replicates: {lowest} to {conservative}); ",
        "at_least": "at least {conservative} {unit}s meet it with 95% confidence.",
        "needed": "{conservative} {unit}s are needed to meet it with 95% confidence.",
    },
    "encounters_needed_new_population": {
        "size": " For a new run population drawn with these settings (the upper end of a 95% prediction interval "
                "over the {total} run populations simulated): {size} {unit}s.",
    },
    "new_population_bound_left_out": {
        "held": " Computed from all the run populations but one, in turn, that bound reached the left-out "
                "population's own size in {count} of {total}.",
        "short": " Computed from all the run populations but one, in turn, that bound reached the left-out "
                 "population's own size in {count} of {total}: it may fall short on a new run population (the "
                 "populations' own sizes are below).",
    },
    "encounters_needed_by_population": {
        "bullet": "**Which runs take part matters**: per run population (runs drawn like this challenge's, {reps} test "
                  "set{plural} each; recommendation_populations.csv) the size for L1 <= {target} {sizes} (median "
                  "{median}; {count} of {total} populations found{beyond}).",
        "same": "is {low_size} {unit}s in every population where the search found one",
        "range": "ranges from {low_size} to {high_size} {unit}s",
        "beyond": "; {rest} beyond the search",
    },
    "own_distance_alternative": {
        "setting": "{count} annotators of agreement {agreement:g}: {value:.1f}",
        "sentence": " Its own distance with other annotators (at {total} {unit}s): {settings}.",
    },
    "estimate": {
        "calibrated": "**Is the package's estimate calibrated?** The main job estimates how far the test set's "
                      "ranking is from the ranking the same gold would give on unlimited data. Where that is the "
                      "truth (annotators equal to the truth), at {size} {unit}s under majority micro Jaccard it "
                      "estimates {estimate:.1f} against an actual {actual:.1f} (median ratio per replicate "
                      "{ratio:.2f}); {pool}",
        "pool_far": "the population ranking's own distance to unlimited data is at most {pool:g} (L1 between its "
                    "pool's two halves, halved).",
        "pool_sharp": "the population ranking is sharp: its pool's two halves rank the runs identically.",
        "gold_bias": "With annotators of agreement {agreement:g} the actual distance to the runs' true population "
                     "ranking is {actual:.1f} against the estimate's {estimate:.1f}: the estimate sees the test-set "
                     "sampling, not the gold's own bias (the L1 to the truth on the same images, "
                     "design_summary.csv, measures that bias).",
    },
    "paper_converged_share": {
        "optimistic": "**How optimistic is the convergence curve** (the MEDIQA-MAGIC 2025 overview's Figures 2 and "
                      "3)? It 'converged' (L1 to the test set's own ranking within {runs} in 95% of orders) before "
                      "the whole test set in {converged:.0%} of replicates, at {point:.0%} of the images on average, "
                      "while the test set's ranking was farther than {runs} from the population's in {far:.0%} of "
                      "replicates.",
    },
    "interval_coverage": {
        "warning": "**Warning: the twin's intervals {may}too narrow.** The runs' bootstrap intervals cover their "
                   "population scores in fewer than {threshold:.0%} of simulated test sets of {n} {unit}s (nominal "
                   "95%): {said}",
        "unsure": "; each CI still includes 95% (more {replicates} tell).",
        "overstate": ". On a challenge like this one, intervals and the claims resting on them overstate their "
                     "confidence.",
        "method": "{method}: {value:.1%} (95% CI {low:.1%} to {high:.1%})",
        "bullet": "**Bootstrap interval coverage** of the runs' population scores (nominal 95%, micro Jaccard against "
                  "the truth, {count} {unit}s{correlation}): {methods}.",
    },
    "main_job_size": {
        "compared": "{scheme}: L1 <= {target}{rule} needs {estimate} {unit}s by the main job's empirical-Bayes "
                    "estimate from the challenge's own {unit}s (90% interval {real}), {design} by the design study's "
                    "twin (95% interval over replicates)",
        "not_compared": ": not compared, because the twin failed its fit (fit.csv).",
        "overlap": ": the intervals overlap, so the two answers agree within their uncertainty.",
        "disagree": ": the intervals do not overlap, so the two answers disagree",
        "differs": "; the twin differs from the challenge in {differs}.",
        "unmodelled": "; the fit shows no statistic more than 20% apart: the difference lies in what the generator "
                      "does not model.",
    },
    "twin_resolution": {
        "compared": "**Resolution** ({scheme}; resolution.csv): a test set of {count} {unit}s like this challenge's "
                    "declares a true difference of {value:.3g} between neighbouring runs with 80% power (95% range "
                    "over replicates {low:.3g} to {high:.3g}); the main job on the real {n:.0f} {unit}s: {main:.3g} "
                    "(95% CI {main_low:.3g} to {main_high:.3g}, main_job_resolution.csv)",
        "not_compared": ": not compared, because the twin failed its fit.",
        "overlap": ": the intervals overlap, so the two agree within their uncertainty.",
        "disagree": ": the intervals do not overlap: the twin's runs move together from unit to unit otherwise than "
                    "the real ones (fit.csv's separability row says how far).",
    },
    "encounters_needed_top1": {
        "bullet": "The population's best run is ranked first in {share:.0%} of replicates with {about} {unit}s (95% "
                  "interval over replicates: {lowest} to {highest}).",
    },
    "encounters_needed": {
        "official": "Under {gold}, {average} (the main job's default headline scheme) the same target needs {about} "
                    "{unit}s (95% interval {lowest} to {highest}).",
    },
    "annotation_effort": {
        "setting": "{count} annotators on {units:.0f} {unit}s: L1 {interval}",
        "bullet": "**More annotators or more {unit}s**, at the same annotation effort ({unit}s x annotators): "
                  "{settings}.",
        "tied": "**More annotators or more {unit}s**, at the same annotation effort ({unit}s x annotators): "
                "{settings}: tied (the intervals overlap).",
    },
}


def fields_of(claim: ClaimName, form: str) -> set[str]:
    """The fields a template fills (each by its name before any index or attribute: ``subject[0]`` is ``subject``).

    Parameters
    ----------
    claim : ClaimName
    form : str

    Returns
    -------
    set of str
    """
    parsed = string.Formatter().parse(PROSE[claim][form])
    return {name.split("[")[0].split(".")[0] for _, name, _, _ in parsed if name}


def phrase(claim: ClaimName, form: str, row: Mapping[str, object] | None = None, /, **words: object) -> str:
    """A finding in words: the template of ``claim`` and ``form`` filled from a verdicts row and the section's words.

    Parameters
    ----------
    claim : ClaimName
    form : str
        A form :data:`PROSE` declares for the claim.
    row : mapping, optional
        A verdicts row (:meth:`robustness.results.study_result.StudyResult.verdict`).
    **words
        The fields the section computes; they take precedence over the row's.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A form the claim does not declare, or a field neither the row nor the words hold.

    Examples
    --------
    >>> print(phrase("best_is_best", "best", {"subject": ("run-a",), "value": 0.912})[:83])
    **First place**: the observed best, run-a, is the runs' best on unlimited data with
    """
    forms = PROSE[claim]
    if form not in forms:
        raise KeyError(f"claim {claim!r} has no form {form!r} (it has {', '.join(forms)})")
    values = {**(row or {}), **words}
    missing = fields_of(claim, form) - set(values)
    if missing:
        raise KeyError(f"{claim} ({form}) needs {', '.join(sorted(missing))}")
    return forms[form].format_map(values)
