"""The main job's report, its planning answers: the resolution in score differences, and the one size bullet.

:func:`size_bullet` is "What to conclude"'s one answer on the test set's size (the resolution at N, the units for the
organiser's difference, the rank distance's estimate and bound; the design study's twin beside them where given);
:func:`resolution_section` the section that backs it (resolution.csv, resolve.csv, fig_32).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.reporting.document import Report
from robustness.reporting.sections.common import group_word, size_target_of, target_words
from robustness.reporting.sections.rank_convergence_agreement import bootstrap_units, headline
from robustness.reporting.sections.registry import strategy_label
from robustness.results.meta import MainJobMeta
from robustness.results.study_result import StudyResult
from robustness.statistics.ranks import format_target
from robustness.statistics.resolution import ALPHA, POWER

__all__ = ["unit_word", "size_bullet", "resolution_section", "pairs_text", "number"]


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


def _size_claim(nd: dict, unit: str) -> str:
    """The rank target's size: the estimate and the conservative bound, in a few words."""
    if nd["statement"] == "beyond":
        point = f" (the estimate: about {nd['value']:.0f})" if np.isfinite(nd["value"]) else ""
        return f"more than {nd['count']} {unit}s, the largest size tried{point}"
    if nd["statement"] == "already":
        return f"at most {nd['high']:.0f} {unit}s"
    return f"about {nd['value']:.0f} {unit}s, at least {nd['high']:.0f} to claim it"


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
    key = dict(strategy=p.gold, metric=p.metric, average=p.average)
    parts = []
    rv = res.verdict("resolution", **key)
    if rv:
        v = rv[0]
        close = (f"{v['count']} of the {v['total']} neighbouring pairs lie closer than that" if v["total"] else
                 "there are no neighbouring pairs")
        n_units = MainJobMeta.of(res).bootstrap_units
        parts.append(f"with its {n_units} {unit}s this test set resolves a true difference of "
                     f"{number(v['value'])} in {p.metric_label} between neighbouring runs ({v['level']:.0%} CI "
                     f"{number(v['low'])} to {number(v['high'])}; paired t-test at {ALPHA:.0%}, {POWER:.0%} power); "
                     f"{close}.")
    need = res.verdict("resolve_units", **key)
    if need:
        n = need[0]
        d = n["subject"][0]
        parts.append(f"A difference of {d} needs more than the largest size searched." if n["statement"] == "beyond"
                     else f"A difference of {d} needs about {n['value']:.0f} {unit}s, {n['high']:.0f} to claim it.")
    dist, nd = res.verdict("unlimited_distance", **key), res.verdict("units_needed", **key)
    if dist and nd:
        d = dist[0]
        parts.append(f"Ranks: L1 {d['value']:.1f} ({d['low']:.1f} to {d['high']:.1f}) to the ranking on unlimited "
                     f"data; {target_words(size_target_of(res), MainJobMeta.of(res).runs)} needs "
                     f"{_size_claim(nd[0], unit)}" + _flag_clause(res, key, unit) + ".")
    if not parts:
        return None
    return f"**How many {unit}s** ({p.label}): " + " ".join(parts) + (f" {design}" if design else "")


def _flag_clause(res: StudyResult, key: dict, unit: str) -> str:
    """Where the teams' spreads differ (the prior flag), the size to claim instead: the range's upper end."""
    band = res.verdict("distance_band", **key)
    rng = res.verdict("units_needed_range", **key)
    if not band or band[0]["statement"] != "prior_sensitive" or not rng:
        return ""
    v = rng[0]
    high = f"more than {v['count']}" if v["statement"] == "beyond" else f"{v['high']:.0f}"
    return f" (the {group_word(res)}s' spreads differ: claim {high}, the range's upper end)"


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
        f"other than N assume the same per-{unit} SD (a new test set drawn like this one). How often these claims "
        "hold is measured by simulation (python -m experiments.calibration, estimator resolution; "
        "docs/calibration.md).")
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
        key = dict(strategy=p.gold, metric=p.metric, average=average)
        rv = res.verdict("resolution", **key)
        if not rv:
            continue
        v = rv[0]
        text = (f"**{p.gold_label}, {average} {p.metric_label}**: resolution {number(v['value'])} "
                f"({v['level']:.0%} CI {number(v['low'])} to {number(v['high'])}) at N = {n_units} {unit}s. ")
        if v["count"]:
            declared = _declared(res, key, v["subject"])
            text += (f"{v['count']} of the {v['total']} neighbouring pairs differ by less than that on this test set "
                     f"({pairs_text(v['subject'])}): a true difference of that size is missed in more than "
                     f"{1 - POWER:.0%} of test sets like this one, so these places are the ones this test set cannot "
                     "be expected to settle"
                     + (f" ({declared} of the pairs are declared different here all the same)." if declared else
                        "; not declaring them different is not evidence that they are equal."))
        else:
            text += f"None of the {v['total']} neighbouring pairs differ by less than that on this test set."
        need = res.verdict("resolve_units", **key)
        if need:
            n = need[0]
            text += (f" A true difference of {n['subject'][0]} needs more than the largest size searched."
                     if n["statement"] == "beyond" else
                     f" A true difference of {n['subject'][0]} is declared with {POWER:.0%} power at about "
                     f"{n['value']:.0f} {unit}s ({n['low']:.0f} to {n['high']:.0f} over the SD's interval; claim "
                     f"{n['high']:.0f}: resolve.csv).")
        r.paragraph(text)
    target = format_target(size_target_of(res))
    r.figure("figures/fig_32_resolution.png",
             f"The smallest true difference in {p.metric_label} that a test set of n {unit}s declares with "
             f"{POWER:.0%} power (paired t-test, {ALPHA:.0%}), against n, for {p.gold_title} ({p.average}): the "
             "median neighbouring pair (line, with the 95% interval of its SD as a band), the upper quartile "
             f"(dashed) and Holm's first level (dotted); the vertical line marks this test set's N. (The rank "
             f"target L1 <= {target} is in the next section.)")
