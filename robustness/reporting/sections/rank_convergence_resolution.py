"""The main job's report, its planning answers: the resolution in score differences, and the one size bullet.

:func:`size_bullet` is "What to conclude"'s one answer on the test set's size (the resolution at N, the units for the
organiser's difference, the rank distance's estimate and bound; the design study's twin beside them where given);
:func:`resolution_section` the section that backs it (resolution.csv, resolve.csv, fig_32).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.common import group_word, size_target_of, target_words
from robustness.reporting.sections.rank_convergence_agreement import bootstrap_units, headline
from robustness.reporting.sections.registry import strategy_label
from robustness.results.meta import MainJobMeta
from robustness.results.study_result import StudyResult
from robustness.statistics.ranks import format_target
from robustness.statistics.resolution import ALPHA, POWER

__all__ = ["unit_word", "size_bullet", "resolution_section", "pairs_text", "number"]

#: How the resolution's claims held on simulated populations of known truth (docs/calibration.md, "The resolution on
#: the quick study's populations": ``python -m experiments.calibration --quick`` at seeds 0 and 7, four populations
#: each, micro and macro, 100 test sets of 100 encounters).
RESOLUTION_CALIBRATION = ("How often these claims hold was measured on simulated populations of known truth (python "
                          "-m experiments.calibration; docs/calibration.md). With test sets of 100 units, pairs at "
                          "least the claimed resolution apart were declared the right way round in 84% to 99% of "
                          "cases and pairs at the claim itself (within 25% above it) in 79% to 91%, against the 80% "
                          "claimed; the claim lay from 6% below to 2% above the population's own resolution (on "
                          "average over test sets), its 95% interval covered that in 90% to 100% of test sets, and "
                          "the units claimed for a difference (there the population's resolution) gave the test at "
                          "least 80% power in 91% to 100% of them. With 35 units the micro claims ran low and the "
                          "interval covered 82% to 100%; in a twin of a real dataset whose runs' per-unit SDs lie far "
                          "apart, pairs at the claim were declared in 60% of cases (the resolution is the median "
                          "neighbouring pair's; resolution_q75 gives the harder quarter).")


def unit_word(res: StudyResult) -> str:
    """What one resampling unit is, in the data's words.

    The bootstrap's unit, or image (volume) where each encounter holds one.

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    str
    """
    unit = bootstrap_units(res)[0]
    m = MainJobMeta.of(res)
    if unit == "encounter" and m.encounters == m.images:
        return "volume" if m.volumes else "image"
    return unit


def number(x: float) -> str:
    """A score difference in prose: three significant digits (``0.0213``, ``1.46``), nan as 'not estimable'.

    Parameters
    ----------
    x : float

    Returns
    -------
    str
    """
    return f"{x:.3g}" if np.isfinite(x) else "not estimable"


def pairs_text(subject: list, *, limit: int = 6) -> str:
    """Pairs flattened as (upper, lower, upper, lower, ...) in prose: ``A and B; C and D`` (and how many more).

    Parameters
    ----------
    subject : list of str
        A ``resolution`` verdict's subject.
    limit : int
        The most pairs named.

    Returns
    -------
    str
    """
    pairs = [f"{a} and {b}" for a, b in zip(subject[::2], subject[1::2])]
    more = f" and {len(pairs) - limit} more" if len(pairs) > limit else ""
    return "; ".join(pairs[:limit]) + more


def _resolution(v: dict) -> dict:
    """A resolution row's difference and interval in prose (:func:`number`)."""
    return dict(resolution=number(v["value"]), lowest=number(v["low"]), highest=number(v["high"]))


def _size_claim(nd: dict, unit: str) -> str:
    """The rank target's size: the estimate and the conservative bound, in a few words."""
    if nd["statement"] == "beyond":
        point = phrase("units_needed", "estimate", nd) if np.isfinite(nd["value"]) else ""
        return phrase("units_needed", "beyond", nd, unit=unit, estimate=point)
    return phrase("units_needed", "already" if nd["statement"] == "already" else "found", nd, unit=unit)


def size_bullet(res: StudyResult, *, design: str = "") -> str | None:
    """"What to conclude"'s one answer on the test set's size (at most 120 words; the sections below hold the rest).

    Parameters
    ----------
    res : StudyResult
        The main job's results (verdicts ``resolution``, ``unlimited_distance``, ``units_needed``; ``resolve_units``
        where a difference was asked for).
    design : str
        The design study's twin beside it (one sentence, or empty).

    Returns
    -------
    str or None
        None where the folder holds no resolution (written before it) and no distance.
    """
    p = headline(res)
    unit = unit_word(res)
    key = dict(strategy=p.strategy, metric=p.metric, average=p.average)
    parts = []
    rv = res.verdict("resolution", **key)
    if rv:
        v = rv[0]
        close = phrase("resolution", "closer" if v["total"] else "no_pairs", v)
        parts.append(phrase("resolution", "bullet", v, n_units=MainJobMeta.of(res).bootstrap_units, unit=unit,
                            metric_label=p.metric_label, alpha=ALPHA, power=POWER, close=close, **_resolution(v)))
    need = res.verdict("resolve_units", **key)
    if need:
        n = need[0]
        parts.append(phrase("resolve_units", "bullet_beyond" if n["statement"] == "beyond" else "bullet", n,
                            unit=unit))
    dist, nd = res.verdict("unlimited_distance", **key), res.verdict("units_needed", **key)
    if dist and nd:
        parts.append(phrase("unlimited_distance", "bullet", dist[0],
                            target=target_words(size_target_of(res), MainJobMeta.of(res).runs),
                            size=_size_claim(nd[0], unit), flag=_flag_clause(res, key, unit)))
    if not parts:
        return None
    return phrase("units_needed", "bullet", unit=unit, scheme=p.label,
                  parts=" ".join(parts) + (f" {design}" if design else ""))


def _flag_clause(res: StudyResult, key: dict, unit: str) -> str:
    """Where the teams' spreads differ (the prior flag), the size to claim instead: the range's upper end."""
    band = res.verdict("distance_band", **key)
    rng = res.verdict("units_needed_range", **key)
    if not band or band[0]["statement"] != "prior_sensitive" or not rng:
        return ""
    v = rng[0]
    high = f"more than {v['count']}" if v["statement"] == "beyond" else f"{v['high']:.0f}"
    return phrase("units_needed_range", "flag", v, group=group_word(res), claim=high)


def _declared(res: StudyResult, key: dict, subject: list) -> int:
    """How many of the pairs (flattened: upper, lower, ...) the significance analysis declares different."""
    if not res.has("pairwise.parquet"):
        return 0
    p = res.table("pairwise.parquet")
    p = p[(p.strategy == key["strategy"]) & (p.metric == key["metric"]) & (p.average == key["average"])]
    named = set(zip(subject[::2], subject[1::2]))
    return int(sum(bool(r.significant) for r in p.itertuples() if (r.run, r.other) in named))


def resolution_section(r: Report, res: StudyResult) -> None:
    """How small a difference the test set resolves (resolution.csv, resolve.csv, fig_32).

    Parameters
    ----------
    r : Report
    res : StudyResult
        The main job's results folder.
    """
    if not res.has("resolution.csv"):
        return
    table = res.table("resolution.csv")
    p = headline(res)
    unit = unit_word(res)
    n_units = MainJobMeta.of(res).bootstrap_units
    r.heading("How small a difference can this test set resolve?")
    r.paragraph(
        f"A size in rank places depends on how close next year's runs will be; a size in score differences depends "
        f"on how much two runs' scores move together from {unit} to {unit}, which this test set shows. The "
        f"**resolution** at n {unit}s is the smallest true difference between two runs that the significance "
        f"analysis's test (paired two-sided t-test, delta-method standard error over {unit}s, Student's t with n - 1 "
        f"degrees of freedom) declares at {ALPHA:.0%} with {POWER:.0%} power, from the noncentral t distribution: "
        f"detectable difference = noncentrality x SD / sqrt(n). The SD is the per-{unit} standard deviation of the "
        "paired differences of the leaderboard's neighbouring runs, summarised by its median over those pairs "
        "(the upper quartile gives the harder quarter: resolution_q75); its 95% interval is the median SD's "
        f"jackknife over {unit}s on the log scale (a bootstrap percentile interval of an SD is too narrow where a "
        "few large objects dominate). The level is per pair: Holm's first step over the neighbouring pairs tests "
        "at 5% / (pairs), and resolution_holm is the difference declared with that power even there. The sizes "
        f"other than N assume the same per-{unit} SD (a new test set drawn like this one). " + RESOLUTION_CALIBRATION)
    at_n = table[(table.units == table.test_units) & (table.metric == p.metric)]
    rows = [{"gold": strategy_label(t.strategy), "average": t.average,
             "resolution at N": f"{number(t.resolution)} ({number(t.resolution_low)} to {number(t.resolution_high)})",
             "upper quartile": number(t.resolution_q75), "Holm, first step": number(t.resolution_holm),
             "per-unit SD": number(t.pair_sd)} for t in at_n.itertuples()]
    if rows:
        r.table(pd.DataFrame(rows), caption=(
            f"{p.metric_label} at the test set's N = {n_units} {unit}s: the resolution with its 95% interval (the "
            f"jackknife over {unit}s), for the upper quartile of the neighbouring pairs' SDs, and at Holm's first "
            "level over the neighbouring pairs; every scheme and size: resolution.csv."))
    for average in p.averages:
        key = dict(strategy=p.strategy, metric=p.metric, average=average)
        rv = res.verdict("resolution", **key)
        if not rv:
            continue
        v = rv[0]
        text = phrase("resolution", "paragraph", v, gold=p.strategy_label, metric_label=p.metric_label, n_units=n_units,
                      unit=unit, **_resolution(v))
        if v["count"]:
            declared = _declared(res, key, v["subject"])
            text += (phrase("resolution", "unsettled", v, pairs=pairs_text(v["subject"]), missed=1 - POWER)
                     + (phrase("resolution", "declared_anyway", declared=declared) if declared else
                        phrase("resolution", "not_evidence")))
        else:
            text += phrase("resolution", "settled", v)
        need = res.verdict("resolve_units", **key)
        if need:
            n = need[0]
            text += phrase("resolve_units", "beyond" if n["statement"] == "beyond" else "found", n, unit=unit,
                           power=POWER)
        r.paragraph(text)
    target = format_target(size_target_of(res))
    r.figure("figures/fig_32_resolution.png",
             f"The smallest true difference in {p.metric_label} that a test set of n {unit}s declares with "
             f"{POWER:.0%} power (paired t-test, {ALPHA:.0%}), against n, for {p.gold_title} ({p.average}): the "
             "median neighbouring pair (line, with the 95% interval of its SD as a band), the upper quartile "
             f"(dashed) and Holm's first level (dotted); the vertical line marks this test set's N. (The rank "
             f"target L1 <= {target} is in the next section.)")
