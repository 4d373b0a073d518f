"""The calibration study's report (``calibration``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from robustness.reporting.document import Report
from robustness.reporting.sections.design import size_words
from robustness.reporting.sections.registry import register_section, register_study
from robustness.results.study_result import StudyResult
from robustness.simulation.recommendation import measured_size

STUDY = "calibration"
register_study(STUDY, "Calibration: the package's claims against populations of known truth")

#: What each estimator of calibration.csv measures, in words.
MEANINGS = {
    "expected_l1": "the expected L1 between the ranking on m encounters and the population's ranking (the "
                   "empirical-Bayes estimate); relative bias and the coverage of its interval",
    "expected_l1_interval90": "the same estimate's 90% interval (estimate +- 1.645 SE): coverage",
    "expected_l1_plugin": "the plug-in bootstrap's estimate of the same (the test set's ranking taken for the truth)",
    "expected_l1_known_prior": "the same estimate with the prior's variances taken from the population (each "
                               "team its own spread): what the prior's normal form costs when nothing about it "
                               "has to be estimated (a diagnostic; no target)",
    "expected_l1_upper": "the reported upper bound of the distance (the prior-sensitivity band's: the interval, "
                         "extended to the estimate with each team's within-team spread at its lower confidence "
                         "limit, or to the plug-in without teams, widened by the sampling SE): share of test sets "
                         "whose truth lies above it (share_wrong), and share inside the band (coverage)",
    "prior_flag_differ": "the flag 'your teams differ in spread; read the range' (the test that the teams share one "
                         "within-team spread rejects at 5%) in a population whose teams do differ (the same test on "
                         "its scores without noise, p in truth): share of test sets it fires on",
    "prior_flag_silent": "the same flag in a population whose teams share one spread: share of test sets it fires on",
    "units_needed": "the conservative size claim (where the one-sided 95% upper bound of the two priors' estimates "
                    "averaged reaches the size target, one "
                    "place per run with 31 runs or more, else a tenth of a random order's distance): "
                    "share of test sets whose claim reaches the target in truth; median claim over the true need",
    "units_needed_band_mid": "another size-claim rule, measured beside the reported one: where the "
                             "prior-sensitivity band's midpoint falls to the size target",
    "units_needed_band_high": "another: where the band's upper end falls to it",
    "units_needed_shared": "another: the shared prior's estimate's one-sided bound alone (the claim reported before)",
    "score_interval_percentile": "every run's 95% percentile interval: coverage of its population score",
    "score_interval_bca": "the same, BCa",
    "score_interval_studentized": "the same, studentized (bootstrap-t with delta-method standard errors)",
    "pairs_differ_delta": "\"these two runs differ\" (the reports' test: paired t-test with delta-method standard "
                          "errors, Holm over all pairs): share of claims whose direction is wrong in the population",
    "pairs_differ_delta_neighbours": "the same test, Holm over the leaderboard's neighbouring pairs alone",
    "pairs_differ_bootstrap": "the same claims with the bootstrap standard error (Holm over all pairs)",
    "pairs_differ_wilcoxon": "the same, Wilcoxon signed-rank test",
    "gold_statement": "the report's statement about the golds' curves (the fastest gold, or the golds tied with it, "
                      "over resampled test sets): share of test sets where it holds, i.e. the gold with the lowest "
                      "expected area under the curve on a new test set is the one named or among the tied",
    "p_best": "the probability that the observed best is the population's best (the likelihood alone, a flat prior), "
              "against how often it is",
    "p_best_reliability": "p_best's reliability: per bin of the claimed probability, its mean (estimate) and how "
                          "often the observed best is the population's best (share_holding)",
    "p_best_pooled": "the same pooled over every population in three bins; relative_bias is the claim minus the "
                     "share (p_best is the likelihood's alone, a flat prior)",
    "p_best_pooled_shared": "the same for the shared prior's empirical-Bayes posterior",
    "p_best_pooled_per_team": "the same for the per-team prior's empirical-Bayes posterior (the average of the "
                              "two priors was reported before)",
    "best_stays_first": "the plug-in stability index (how often the observed best stays first on resampling), "
                        "against the same",
    "design_size": "the design study's recommended size (runs like the challenge's, on average), run around the "
                   "default challenge: share of run populations it never drew whose own need it reaches; median "
                   "claim over their needs (no target: it is a size for the average over run populations, not for "
                   "each)",
    "design_size_new_population": "the design study's size for one new run population (the upper end of a two-sided "
                                  "95% prediction interval over its run populations, so 97.5% nominal): the same "
                                  "share, against a target of at least 80%",
    "resolution": "the resolution at N (the smallest true difference the paired t-test declares with 80% power, "
                  "for the median neighbouring pair): among pairs whose true difference is at least the claim, the "
                  "share declared at 5% the right way round (power); the claim against the population's resolution",
    "resolution_at": "the same among pairs within 25% above the claim: the power at the claim itself",
    "resolution_interval": "the resolution's 95% interval (the jackknife over units): coverage of the population's",
    "resolve_units": "the units claimed for a true difference (the population's resolution at N), at the upper end of "
                     "the SD's interval: share of test sets whose claim gives the test 80% power in truth; median "
                     "claim over the need",
}


def _overview(r: Report, res: StudyResult) -> None:
    """What was drawn and what each estimator measures."""
    o = res.options
    pops = ", ".join(f"{p['name']} ({p['runs']} runs)" for p in res.meta["input"]["populations"])
    r.paragraph(f"Populations of {o['population']} encounters: {pops}. From each, {o['test_sets']} test sets of "
                f"{o['test_size']} encounters drawn without replacement; on each the main job's estimators run as the "
                f"main job runs them ({o['outer']} outer resamples, {o['bootstrap']} bootstrap resamples, "
                f"{o['confidence']:.0%} intervals); the truth is the population's (its expected L1 from "
                f"{o['truth_draws']} samples of it per size). Monte Carlo standard errors (± 2 SE below) are over test "
                "sets. The official schemes: majority vote, micro and macro Jaccard."
                + (" The rows of population \"design (P populations)\" average each check over the design study's "
                   "run populations, ± 2 SE over those populations: what the estimators do on average over "
                   "challenges drawn like them, where one population's value owes much to its own runs."
                   if sum(p["name"].startswith("design-") for p in res.meta["input"]["populations"]) > 1 else ""))
    r.bullets([f"`{k}`: {v}" for k, v in MEANINGS.items()])


def _targets(r: Report, res: StudyResult) -> None:
    """Every target and whether it is met (verdicts ``target``)."""
    v = res.verdicts[res.verdicts.claim == "target"]
    if not len(v):
        return
    r.heading("Targets")
    counts = v.statement.value_counts()
    judged = len(v) - counts.get("not_applicable", 0)
    r.paragraph(f"{counts.get('met', 0)} of {judged} checks meet their target, {counts.get('not_met', 0)} do not, "
                f"and {counts.get('undecided', 0)} are undecided (the target lies within 2 Monte Carlo SE of the "
                "value: more test sets would tell)."
                + (f" {counts['not_applicable']} relative errors are not judged: their true distance is below "
                   "5 places (a ranking nearly certain at that size), where a relative error says nothing; the "
                   "absolute error is in calibration.csv (estimate and truth)." if counts.get("not_applicable")
                   else ""))
    rows = []
    for row in v.itertuples():
        estimator, column, population, says = json.loads(row.subject)
        value = (f"{row.value:.3f}" + (f" ± {2 * row.se:.3f}" if pd.notna(row.se) else "")) if pd.notna(row.value) \
            else "none"  # e.g. no size to hold
        wanted = (f"<= {row.high:g}" if row.low == -float("inf") else f">= {row.low:g}" if row.high == float("inf")
                  else f"{row.low:g} to {row.high:g}")
        rows.append({"target": says, "population": population, "scheme": row.average, "value": value,
                     "wanted": wanted, "outcome": row.statement.replace("_", " ")})
    r.table(pd.DataFrame(rows), caption="Each check's value (± 2 SE: over test sets; over populations for the design "
            "populations' average) against its target "
            "(calibration.csv).")


def _share(hit: int, n: int) -> str:
    """``hit`` of ``n`` with the share's exact 95% interval (Clopper-Pearson): the populations are a sample."""
    ci = binomtest(hit, n).proportion_ci(0.95)
    return f"{hit} of {n} (95% interval {ci.low:.2f} to {ci.high:.2f} of run populations like these)"


def _reached(measured: pd.DataFrame, needs: pd.Series, claim: float, target: float) -> str:
    """How many new populations a claimed size reaches, and how many lie within 2 Monte Carlo SE of the target there.

    A population whose mean L1 at the claimed size lies within two of its standard errors (over its test sets) of
    the target could fall either side with more test sets.
    """
    at = measured[measured.encounters == measured_size(claim)]
    near = int((np.abs(at.l1_population - target) <= 2 * at.l1_population_se).sum())
    text = _share(int((needs.abs().fillna(np.inf) <= abs(claim)).sum()), len(needs))  # "at most n": n
    return text + (f"; at that size {near} of them lie within two Monte Carlo SE of the target, so more test sets "
                   "could move them either way" if near else "")


def _design_check(r: Report, res: StudyResult) -> None:
    """The design study's sizes held against run populations it never drew (``design_check`` in meta.json)."""
    check = res.meta.get("design_check")
    if not check:
        return
    measured = res.table("calibration_design.csv")
    needs = measured.groupby("population").true_need.first()
    largest, claims, unit = check["largest_size"], check["claims"], check.get("unit", "encounter")
    typical, new = (np.nan if claims[k] is None else float(claims[k]) for k in ("design_size",
                                                                             "design_size_new_population"))
    n, within = len(needs), needs.dropna()
    beyond = n - len(within)
    if not len(within):
        spread = f"more than {largest} {unit}s, every one"
    else:
        first, last = within[within.abs().idxmin()], within[within.abs().idxmax()]  # negative: "at most"
        spread = (f"{size_words(first, largest)} to {size_words(last, largest)} {unit}s"
                  + (f" ({len(within)} of {n}; the others more than {largest})" if beyond else ""))
    low, high = check.get("recommended_interval") or (None, None)
    interval = (f" (95% interval over its run populations: {size_words(low, largest)} to {size_words(high, largest)})"
                if low is not None or high is not None else "")
    r.heading("The design study on run populations it never drew")
    text = (f"The design study around the default challenge ({check['study_populations']} run populations, its size "
            f"search to {largest} {unit}s, {'quick form' if check['design'].get('quick') else 'full form'}) "
            f"recommends {check['strategy']} ({check['average']}) and {size_words(typical, largest)} {unit}s for runs "
            f"like these on average{interval}; for one new run population, {size_words(new, largest)}. To bring their "
            f"expected L1 to their population ranking to {check['target']:g}, {n} run populations it never drew (its "
            f"own population stream, indices beyond its own; {check['test_sets']} test sets of each at every size) "
            f"need {spread}. ")
    if np.isfinite(typical):
        text += f"The recommended size reaches it on {_reached(measured, needs, typical, check['target'])}. "
    if np.isfinite(new):
        text += (f"The size for a new run population reaches it on {_reached(measured, needs, new, check['target'])}; "
                 "its target is at least 80% (the verdict is in the table above).")
    else:
        text += (f"For a new run population the design study cannot name a size within its search (more than "
                 f"{largest}): the range above is what such populations need, and no size is held against the "
                 "80% target.")
    r.paragraph(text)


def _table(r: Report, res: StudyResult) -> None:
    """The calibration table."""
    t = res.table("calibration.csv")
    r.heading("Every estimator")
    cols = ["estimator", "setting", "population", "scheme", "estimate", "truth", "relative_bias", "coverage",
            "share_reaching_target", "share_wrong", "share_holding"]
    r.table(t[cols], floatfmt="{:.3f}", caption="calibration.csv (with the Monte Carlo standard errors in its _se "
            "columns); estimate and truth: means over test sets (for units_needed: the median claim and the true "
            "need; for pairs_differ: claims per test set).", max_rows=200)


register_section(STUDY, _overview)
register_section(STUDY, _targets)
register_section(STUDY, _design_check)
register_section(STUDY, _table)
