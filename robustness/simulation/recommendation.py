"""The design study's summaries over replicates and its recommendation: which gold, how many encounters.

The replicates come from :mod:`robustness.simulation.design` (one per setting and run population); here they are
averaged with t intervals over run populations (the unit), the scheme closest to the population ranking is
chosen by the rule (:data:`SIMPLICITY` breaks ties), and the sizes that reach the target are read off.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import pandas as pd
from scipy.stats import t as student

from robustness.overlap.gold import ONE_RANDOM, STRATEGIES, is_random
from robustness.simulation.design import SETTING_COLUMNS, Setting
from robustness.statistics.inference import t_interval, tails
from robustness.statistics.ranks import size_target
from robustness.statistics.verdicts import best_with_ties

__all__ = ["MEASURES", "summarise", "recommend", "needed_by_agreement", "one_random", "at_base", "sizes_by_agreement",
           "choose_scheme", "simplicity", "SIMPLICITY", "at_setting", "measured_size"]


MEASURES = ("tau_same_images", "l1_same_images", "tau_population", "l1_population", "top1_correct",
            "top3_agreement", "convergence_point", "expected_l1_estimate")


@overload
def summarise(design: pd.DataFrame, coverage: None = None) -> pd.DataFrame: ...


@overload
def summarise(design: pd.DataFrame, coverage: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]: ...


def summarise(design: pd.DataFrame,
              coverage: pd.DataFrame | None = None) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Means over replicates with 95% t intervals about runs like these: run populations are the unit.

    Replicates that share a run population are not independent evidence about runs drawn like them, so where
    a setting holds two or more populations the interval is Student's t over the populations' means (P - 1
    degrees of freedom), centred on the mean over replicates; with one population, over its replicates (a claim
    about that population). With one replicate per population (the default) the two coincide.

    Parameters
    ----------
    design : pandas.DataFrame
        :func:`simulate`'s first table, every replicate.
    coverage : pandas.DataFrame, optional
        Its second table.

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, pandas.DataFrame)
        ``design_summary`` (per setting and scheme) and, with ``coverage``, ``coverage_summary`` (per setting,
        metric, averaging, unit and interval method).
    """
    keys = list(SETTING_COLUMNS) + ["strategy", "metric", "average"]
    rows = []
    bounded = {"top1_correct": (0, 1), "top3_agreement": (0, 1), "tau_same_images": (-1, 1), "tau_population": (-1, 1)}
    taus = [c for c in design.columns if c.startswith("tau_jaccard_")]
    measures = list(MEASURES) + taus
    bounded |= dict.fromkeys(taus, (-1, 1))
    for key, d in design.groupby(keys, sort=False):
        row = dict(zip(keys, key), replicates=d.replicate.nunique(), populations=d.population.nunique(),
                   images=float(d.images.mean()))
        for m in measures:
            mean, low, high = _clustered(d, m)
            lo, hi = bounded.get(m, (0, np.inf))  # an interval never leaves the measure's range
            row[m], row[f"{m}_low"], row[f"{m}_high"] = mean, max(low, lo), min(high, hi)
        row["l1_population_new_high"] = _new_population_high(d, "l1_population")
        rows.append(row)
    summary = pd.DataFrame(rows)
    if coverage is None:
        return summary
    ckeys = list(SETTING_COLUMNS) + ["metric", "average", "unit", "method"]
    crow = []
    for key, d in coverage.groupby(ckeys, sort=False):
        mean, low, high = _clustered(d, "coverage")
        crow.append(dict(zip(ckeys, key), coverage=mean, coverage_low=max(low, 0.0), coverage_high=min(high, 1.0),
                         width=float(d.width.mean()), replicates=d.replicate.nunique()))
    return summary, pd.DataFrame(crow)


def _clustered(rows: pd.DataFrame, column: str) -> tuple[float, float, float]:
    """The mean of ``column`` over replicates and its 95% t interval over run populations (see :func:`summarise`)."""
    values = rows[column].to_numpy(dtype=float)
    if rows.population.nunique() < 2 or rows.groupby("population").size().max() == 1:
        return t_interval(values)
    means = _population_means(rows, column)
    _, low, high = t_interval(means)
    centre = float(np.nanmean(values)) if np.isfinite(values).any() else np.nan
    shift = centre - float(means.mean())  # unequal replicates per population: the interval moves with the mean
    return centre, low + shift, high + shift


def _population_means(rows: pd.DataFrame, column: str) -> pd.Series:
    """Each run population's mean of ``column`` over its replicates."""
    return rows.assign(_v=rows[column].to_numpy(dtype=float)).groupby("population")._v.mean()


def _new_population_high(rows: pd.DataFrame, column: str, confidence: float = 0.95) -> float:
    """The upper end of a ``confidence`` two-sided prediction interval of ``column`` for a new run population.

    The populations' means (each over its replicates; with one replicate per population, one test set each, whose
    noise the bound then includes) are taken as a sample of run populations drawn with the setting; a new one's
    mean lies below ``mean + t(P - 1) * sd * sqrt(1 + 1/P)`` with that confidence (normal populations). nan with
    fewer than two populations: one population says nothing about another.
    """
    means = _population_means(rows, column).dropna().to_numpy()
    if means.size < 2:
        return np.nan
    t = student.ppf(tails(confidence)[1], means.size - 1)
    return float(means.mean() + t * means.std(ddof=1) * np.sqrt(1 + 1 / means.size))


def _left_out_bound(rows: pd.DataFrame, population: int, target: float) -> float:
    """The size for a new run population (:func:`_new_population_high`) from every population but ``population``.

    Held against the left-out population's own size, it checks the prediction bound on a run population it did not
    see (nan with fewer than two others, as the bound itself; minus the first size, or nan beyond the grid, as
    :func:`_interpolate_size`).
    """
    others = rows[rows.population != population]
    if others.population.nunique() < 2:
        return np.nan
    sizes = np.sort(others.encounters.unique())
    high = [_new_population_high(others[others.encounters == n], "l1_population") for n in sizes]
    return _interpolate_size(sizes, high, target)


def measured_size(claim: float) -> int:
    """The test-set size a claimed size is measured at: its absolute value rounded up.

    A test set holds whole units; a negative size is "at most" its absolute value.

    Parameters
    ----------
    claim : float

    Returns
    -------
    int

    Examples
    --------
    >>> measured_size(321.36), measured_size(-25.0), measured_size(400.0)
    (322, 25, 400)
    """
    return int(np.ceil(abs(claim) - 1e-9))


def _interpolate_size(sizes, values, target):
    """The size at which ``values`` (decreasing with size, mostly) first falls to ``target``.

    Log-linear interpolation between grid points; nan when it never does; minus the first size when it
    already does there (the size needed is at most that).
    """
    sizes, values = np.asarray(sizes, dtype=float), np.asarray(values, dtype=float)
    below = np.flatnonzero(values <= target)
    if not below.size:
        return np.nan
    i = below[0]
    if i == 0:
        return -sizes[0]
    t = (values[i - 1] - target) / (values[i - 1] - values[i])
    return float(np.exp(np.log(sizes[i - 1]) + t * (np.log(sizes[i]) - np.log(sizes[i - 1]))))


#: The rule that picks one scheme among the tied ones: the simplest gold to state and to reproduce first
#: (majority before STAPLE before the others, in registry order); of its averagings, the one closer to the
#: population ranking on average (micro and macro are equally simple to state).
SIMPLICITY = ("majority", "staple")


def simplicity(strategy: str, average: str, mean_l1: float = 0.0) -> tuple:
    """The sort key of :data:`SIMPLICITY`'s rule (smaller: chosen first).

    Parameters
    ----------
    strategy, average : str
    mean_l1 : float
        The scheme's mean L1 to the population ranking (decides between the averagings of one gold).

    Returns
    -------
    tuple
    """
    order = list(SIMPLICITY) + [n for n in STRATEGIES if n not in SIMPLICITY]
    return (order.index(strategy) if strategy in order else len(order), mean_l1, average != "micro")


def at_setting(frame: pd.DataFrame, base: Setting) -> pd.Series:
    """Rows of ``frame`` (design or summary rows) at the setting ``base``, any size.

    Parameters
    ----------
    frame : pandas.DataFrame
    base : Setting

    Returns
    -------
    pandas.Series of bool
    """
    return ((frame.annotators == base.annotators) & np.isclose(frame.agreement, base.agreement)
            & np.isclose(frame.spread, base.spread) & (frame.runs == base.runs)
            & np.isclose(frame.correlation, base.correlation))


def choose_scheme(design: pd.DataFrame, *, base: Setting, size: int) -> dict:
    """The scheme to recommend at ``base`` and ``size``: the closest to the population ranking, by the rule.

    The candidates are every scheme but the random single-annotator golds. The closest (mean L1 to the
    population ranking over replicates) and the candidates tied with it (Student's t interval of the mean paired
    difference over replicates, Bonferroni; :func:`robustness.statistics.verdicts.best_with_ties`) are found: the
    claim is about the expected distance, not about every single test set; the simplest of them by
    :func:`simplicity` is chosen. The random golds are one scheme, "one random annotator": per averaging the
    mean over the draws and replicates, with the spread of the draws' means.

    Parameters
    ----------
    design : pandas.DataFrame
    base : Setting
    size : int

    Returns
    -------
    dict
        ``verdict`` (Verdict over the candidates' names ``"strategy (average)"``), ``chosen`` (strategy,
        average), ``random`` (DataFrame: average, l1_population and its 95% t interval over replicates of the
        draws' mean, spread_low, spread_high, draws).
    """
    here = design[at_setting(design, base) & (design.encounters == size)]
    random = here.strategy.map(is_random)
    cand = here[~random]
    schemes = list(dict.fromkeys(zip(cand.strategy, cand.average)))
    wide = cand.pivot_table(index=["strategy", "average"], columns="replicate", values="l1_population").loc[schemes]
    verdict = best_with_ties(wide.to_numpy(), [f"{s} ({a})" for s, a in schemes], higher_is_better=False,
                             interval="t")
    tied = [(s, a) for s, a in (t.rstrip(")").split(" (", 1) for t in verdict.tied)]
    means = wide.mean(axis=1)
    chosen = min(tied, key=lambda sa: simplicity(sa[0], sa[1], float(means.loc[sa])))
    rows = []
    for average, d in here[random].groupby("average", sort=False):
        per_replicate = d.groupby(["replicate", "population"]).l1_population.mean().reset_index()
        mean, low, high = _clustered(per_replicate, "l1_population")  # about runs like these (summarise)
        low = max(low, 0.0)  # an L1 is never negative
        draws = d.groupby("strategy").l1_population.mean()
        rows.append({"average": average, "l1_population": mean, "l1_population_low": low,
                     "l1_population_high": high, "spread_low": float(draws.min()), "spread_high": float(draws.max()),
                     "draws": int(draws.size)})
    return {"verdict": verdict, "chosen": chosen, "random": pd.DataFrame(rows)}


def recommend(design: pd.DataFrame, summary: pd.DataFrame, coverage_summary: pd.DataFrame, *, base: Setting,
              size: int, target_top1: float = 0.9, target_l1: float | None = None) -> dict:
    """Plain answers for a challenge like ``base`` with ``size`` test encounters, each with its uncertainty.

    Parameters
    ----------
    design, summary, coverage_summary : pandas.DataFrame
        :func:`simulate`'s (and :func:`simulate_size`'s) rows and :func:`summarise`'s tables.
    base : Setting
        The challenge's own setting.
    size : int
        Its test-set size (a size of the grid).
    target_top1 : float
        The share of replicates with the true best run first to aim for.
    target_l1 : float, optional
        The L1 to the population ranking to aim for (default: :func:`robustness.statistics.ranks.size_target`).

    Returns
    -------
    dict
        The entries below.

    Notes
    -----
    - ``scheme``, ``chosen``, ``random``: :func:`choose_scheme`;
    - ``sizes``: per scheme (not the random golds), the test-set size at which the mean L1 to the population
      ranking falls to the target (and the sizes where the lower and upper ends of its 95% interval over
      replicates do: ``optimistic`` and ``conservative``), and the size at which the population's best run is
      ranked first in ``target_top1`` of replicates; ``largest_size``;
    - ``per_population``: the chosen scheme's size per run population (means over that population's
      replicates): how much the answer depends on which runs take part; beside it
      ``encounters_for_l1_others_bound``, the size for a new run population computed from the other populations
      alone (the left-out check of that bound);
    - ``reach``: the chosen scheme's own distance to the truth (L1 to the truth's ranking on the same images, at
      the largest size) and whether it alone exceeds the target (no size reaches it);
    - ``annotators``: the L1 to the population at equal annotation effort with one annotator more
      (fewer encounters) or fewer;
    - ``calibration`` (majority, micro): the package's estimate of the distance to unlimited
      data against the actual distance to the population ranking, per agreement level (like for like
      at agreement 1, where every gold is the truth), and how often the paper's curve "converged"
      while the test set's ranking was still farther than the tolerance from the population's;
    - ``coverage``: bootstrap interval coverage by unit and method at ``size``.
    """
    choice = choose_scheme(design, base=base, size=size)
    n_runs = base.runs
    target = size_target(n_runs, target_l1)
    ss = summary[at_setting(summary, base)]
    sizes = []
    for (strat, average), d in ss.groupby(["strategy", "average"], sort=False):
        if is_random(strat):
            continue
        d = d.sort_values("encounters")
        sizes.append({"strategy": strat, "average": average,
                      "encounters_for_l1": _interpolate_size(d.encounters, d.l1_population, target),
                      "encounters_for_l1_optimistic": _interpolate_size(d.encounters, d.l1_population_low, target),
                      "encounters_for_l1_conservative": _interpolate_size(d.encounters, d.l1_population_high, target),
                      "encounters_for_l1_new_population": _interpolate_size(d.encounters, d.l1_population_new_high,
                                                                            target),
                      "encounters_for_top1": _interpolate_size(d.encounters, -d.top1_correct, -target_top1),
                      "encounters_for_top1_optimistic": _interpolate_size(d.encounters, -d.top1_correct_high,
                                                                          -target_top1),
                      "encounters_for_top1_conservative": _interpolate_size(d.encounters, -d.top1_correct_low,
                                                                            -target_top1),
                      "largest_size": int(d.encounters.max())})
    strat, average = choice["chosen"]
    mine = design[at_setting(design, base) & (design.strategy == strat) & (design.average == average)]
    per_population = []
    for p, d in mine.groupby("population"):
        means = d.groupby("encounters").l1_population.mean()
        per_population.append({"population": int(p), "replicates": int(d.replicate.nunique()),
                               "encounters_for_l1": _interpolate_size(means.index, means.to_numpy(), target),
                               "encounters_for_l1_others_bound": _left_out_bound(mine, p, target)})
    last = ss[(ss.strategy == strat) & (ss.average == average)].sort_values("encounters").iloc[-1]
    reach: dict[str, Any] = {
        "own_distance": float(last.l1_same_images), "own_distance_low": float(last.l1_same_images_low),
        "own_distance_high": float(last.l1_same_images_high), "encounters": int(last.encounters),
        "unreachable": bool(last.l1_same_images_low > target)}
    # what more or better annotators would give: the same scheme's own distance at the grid's other settings
    other = summary[(summary.strategy == strat) & (summary.average == average) & np.isclose(summary.spread, base.spread)
                    & (summary.runs == base.runs) & np.isclose(summary.correlation, base.correlation)]
    top = other[other.encounters == other.encounters.max()]
    reach["alternatives"] = [{"annotators": int(x.annotators), "agreement": float(x.agreement),
                              "own_distance": float(x.l1_same_images), "encounters": int(x.encounters)}
                             for x in top.itertuples()
                             if not (x.annotators == base.annotators and np.isclose(x.agreement, base.agreement))]
    # more annotators or more images, at equal annotation effort (encounters x annotators)
    effort = []
    for k in sorted(summary.annotators.unique()):
        d = summary[at_setting(summary, Setting(int(k), base.agreement, base.spread, base.runs, base.correlation))]
        for (s_, a_), g in d.groupby(["strategy", "average"], sort=False):
            if is_random(s_):
                continue
            g = g.sort_values("encounters")
            n = size * base.annotators / k
            x, y = np.log(g.encounters.to_numpy(float)), g.l1_population.to_numpy()
            lo, hi = g.l1_population_low.to_numpy(), g.l1_population_high.to_numpy()
            if not x[0] <= np.log(n) <= x[-1]:
                continue
            effort.append({"strategy": s_, "average": a_, "annotators": int(k), "encounters": n,
                           "l1_population": float(np.interp(np.log(n), x, y)),
                           "l1_population_low": float(np.interp(np.log(n), x, lo)),
                           "l1_population_high": float(np.interp(np.log(n), x, hi))})
    # calibration of the package's estimate and optimism of the paper's curve, by agreement and size. The
    # estimate is of the distance to the scheme's *own* population ranking; with agreement 1 every gold
    # is the truth, so there (and only there) the population truth ranking is that ranking: like for like.
    cal = []
    same = (design.annotators == base.annotators) & np.isclose(design.spread, base.spread) & \
        (design.runs == base.runs) & np.isclose(design.correlation, base.correlation) & \
        (design.strategy == "majority") & (design.average == "micro") & design.expected_l1_estimate.notna()
    for (agreement, n_enc), d in design[same].groupby(["agreement", "encounters"]):
        ratio = d.expected_l1_estimate / d.l1_population.where(d.l1_population > 0)
        cal.append({"agreement": float(agreement), "encounters": int(n_enc), "pool_l1": float(d.pool_l1.max()),
                    "expected_l1_estimate": float(d.expected_l1_estimate.mean()),
                    "l1_population": float(d.l1_population.mean()), "ratio_median": float(ratio.median()),
                    "paper_converged_share": float(d.convergence_reached.mean()),
                    "paper_converged_but_far_share": float((d.convergence_reached
                                                           & (d.l1_population > n_runs)).mean()),
                    "paper_point_fraction": float((d.convergence_point / d.images).mean())})
    cov = coverage_summary[(coverage_summary.annotators == base.annotators)
                           & np.isclose(coverage_summary.agreement, base.agreement)
                           & np.isclose(coverage_summary.correlation, base.correlation)
                           & (coverage_summary.encounters == size)]
    return {"scheme": choice["verdict"], "chosen": choice["chosen"], "random": choice["random"],
            "sizes": pd.DataFrame(sizes), "per_population": pd.DataFrame(per_population), "reach": reach,
            "annotators": pd.DataFrame(effort), "calibration": pd.DataFrame(cal), "coverage": cov,
            "n_runs": n_runs, "target_l1": target, "size": size}


def needed_by_agreement(summary: pd.DataFrame, *, target: float) -> pd.DataFrame:
    """Per strategy, averaging and agreement level, the encounters at which the mean L1 falls to ``target``.

    The L1 is to the population ranking.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`summarise`'s table of one setting.
    target : float

    Returns
    -------
    pandas.DataFrame
        ``strategy, average, agreement, needed`` and where the lower and upper ends of its 95% interval over
        replicates do (``needed_low``, ``needed_high``); nan beyond the sizes simulated for it (``largest``: the
        grid's, or the size search's for the schemes it simulated).
    """
    rows = []
    for (strat, average, agreement), d in summary.groupby(["strategy", "average", "agreement"], sort=False):
        d = d.sort_values("encounters")
        size = {c: abs(_interpolate_size(d.encounters, d[f"l1_population{c}"], target)) for c in ("", "_low", "_high")}
        rows.append({"strategy": strat, "average": average, "agreement": agreement, "needed": size[""],
                     "needed_low": size["_low"], "needed_high": size["_high"], "largest": int(d.encounters.max())})
    return pd.DataFrame(rows)


def one_random(summary: pd.DataFrame) -> pd.DataFrame:
    """``design_summary.csv`` with the random single-annotator golds as one scheme (a draw, not a choice).

    Their rows become one per setting, size and averaging (strategy :data:`~robustness.overlap.gold.ONE_RANDOM`):
    each measure the mean over the draws, its interval from the lowest lower end to the highest upper end.

    Parameters
    ----------
    summary : DataFrame

    Returns
    -------
    DataFrame
    """
    drawn = summary.strategy.map(is_random).astype(bool)
    if not drawn.any():
        return summary
    keys = [c for c in ("encounters", "annotators", "agreement", "spread", "runs", "correlation", "metric",
                        "average") if c in summary]
    d = summary[drawn]
    low = [c for c in d.columns if c.endswith("_low")]
    high = [c for c in d.columns if c.endswith("_high")]
    numeric = [c for c in d.columns if c not in keys and c != "strategy" and d[c].dtype.kind in "fiu"]
    agg = {c: "min" if c in low else "max" if c in high else "mean" for c in numeric}
    merged = d.groupby(keys, sort=False, dropna=False).agg(agg).reset_index().assign(strategy=ONE_RANDOM)
    return pd.concat([merged[summary.columns], summary[~drawn]], ignore_index=True)


def at_base(table: pd.DataFrame, base: dict) -> pd.DataFrame:
    """The rows of ``table`` at a base setting: every column of ``base`` the table has, equal to its value.

    Parameters
    ----------
    table : DataFrame
    base : dict
        Setting column -> value (``design_base.json``; keys the table lacks are not compared).

    Returns
    -------
    DataFrame
        Equal within :func:`numpy.isclose`'s tolerance (the values went through a CSV).
    """
    keep = np.ones(len(table), dtype=bool)
    for column, value in base.items():
        if column in table:
            keep &= np.isclose(table[column].astype(float), float(value))
    return table[keep]


def sizes_by_agreement(summary: pd.DataFrame, base: dict, *, target: float) -> pd.DataFrame:
    """``sizes_by_agreement.csv``: :func:`needed_by_agreement` at the base setting, for every agreement level.

    The random single-annotator golds count as one scheme (:func:`one_random`), as the figures show them.

    Parameters
    ----------
    summary : DataFrame
        ``design_summary.csv``.
    base : dict
        The base setting (its ``agreement`` is left out: every level is kept).
    target : float
        The L1 target.

    Returns
    -------
    DataFrame
    """
    shown = one_random(summary)
    return needed_by_agreement(at_base(shown, {k: v for k, v in base.items() if k != "agreement"}), target=target)
