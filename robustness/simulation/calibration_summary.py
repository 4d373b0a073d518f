"""calibration.csv's rows: every claim of the test sets of one population, summarised against its truth.

:func:`summarise_population` turns the claims :mod:`robustness.simulation.calibration` collects per test set
into one row per estimator, setting and scheme (shares with their Monte Carlo standard errors over test sets,
relative biases); :func:`averaged` averages them over the design study's run populations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from robustness.simulation.populations import GOLDS
from robustness.statistics.ranks import size_target, target_text
from robustness.statistics.uncertainty import FLAG_ALPHA

if TYPE_CHECKING:
    from robustness.simulation.populations import PopulationTruth

__all__ = ["CALIBRATION_COLUMNS", "CLAIM_RULES", "FLAG_FIRES", "FLAG_SILENT", "MIN_RELATIVE_TRUTH", "P_BEST_BINS",
           "P_BEST_POOLED_BINS", "Z90", "averaged", "pooled_reliability", "relative_error", "cluster_share",
           "size_claim_holds", "summarise_population"]

#: The columns of calibration.csv (``_se``: Monte Carlo standard error over test sets).
CALIBRATION_COLUMNS = ("estimator", "setting", "population", "scheme", "n_test_sets", "estimate", "truth",
                       "relative_bias", "relative_bias_se", "coverage", "coverage_se", "nominal",
                       "share_reaching_target", "share_reaching_target_se", "share_wrong", "share_wrong_se",
                       "share_holding", "share_holding_se", "n_claims", "claim_to_need", "claim_to_need_se", "power",
                       "power_se", "true_need", "largest_size", "share_beyond", "share_reaching_finite")

#: The 90% normal quantile: the distance's 90% interval is its estimate +- Z90 standard errors.
Z90 = 1.6448536269514722


def size_claim_holds(beyond: bool, truth_at_claim: float, target: float) -> bool:
    """Whether a size claim reaches the target in truth.

    A claim "n units reach the target" holds where the true expected L1 at n is at most the target. A claim "more
    than the largest size tried" (``beyond``; ``truth_at_claim`` is the truth at that largest size) always holds:
    where the largest size reaches the target in truth, more units reach it too (the claim is conservative, which
    the median claim over the need measures); where it does not, the need does lie beyond it. Scoring the first
    case as failing (2026-12-03 morning to evening) made conservative claims look like misses; scoring the second
    as failing (before) made right claims look like misses.

    Parameters
    ----------
    beyond : bool
        The claim is "more than the largest size tried".
    truth_at_claim : float
        The true expected L1 at the claimed (or the largest) size.
    target : float
        The target expected L1.

    Returns
    -------
    bool

    Examples
    --------
    >>> size_claim_holds(False, 38.0, 40.0), size_claim_holds(False, 41.0, 40.0)
    (True, False)
    >>> size_claim_holds(True, 52.0, 40.0), size_claim_holds(True, 31.0, 40.0)
    (True, True)
    """
    return bool(beyond) or truth_at_claim <= target


def cluster_share(hits: list, weights: list | None = None) -> tuple[float, float]:
    """A share over test sets (clusters): the ratio estimate and its standard error.

    Parameters
    ----------
    hits : list
        Per test set, its hits (a 0/1 outcome, or a count of hits among ``weights`` claims).
    weights : list, optional
        Per test set, its number of claims (None: one each).

    Returns
    -------
    (share, se) : tuple of float
        nan where there is nothing to share (the SE also with a single test set).
    """
    h = np.asarray(hits, dtype=float)
    if weights is None:
        ok = np.isfinite(h)
        h = h[ok]
        if h.size == 0:
            return np.nan, np.nan
        return float(h.mean()), float(h.std(ddof=1) / np.sqrt(h.size)) if h.size > 1 else np.nan
    w = np.asarray(weights, dtype=float)
    if w.sum() == 0:
        return np.nan, np.nan
    p = h.sum() / w.sum()
    k = h.size
    resid = h - p * w
    se = np.sqrt(k / max(k - 1, 1) * (resid**2).sum()) / w.sum()
    return float(p), float(se)


def relative_error(estimates: list, truths: list) -> tuple[float, float]:
    """Mean relative error over test sets and its standard error.

    Parameters
    ----------
    estimates, truths : list
        Per test set.

    Returns
    -------
    (mean, se) : tuple of float
        Of ``estimate / truth - 1`` over the test sets where it is finite; nan with fewer than two.
    """
    with np.errstate(divide="ignore", invalid="ignore"):  # a truth of 0: no relative error, left out as documented
        rel = np.asarray(estimates, dtype=float) / np.asarray(truths, dtype=float) - 1
    rel = rel[np.isfinite(rel)]
    if rel.size < 2:
        return np.nan, np.nan
    return float(rel.mean()), float(rel.std(ddof=1) / np.sqrt(rel.size))


#: Relative errors are judged only where the true expected L1 is at least this many places (a relative error of a
#: distance near 0, a ranking that is nearly certain, says nothing; the absolute one is in calibration.csv).
MIN_RELATIVE_TRUTH = 5.0


#: Size-claim rules measured beside the reported one (``units_needed``, the one-sided bound of the two priors'
#: estimates averaged): where the prior-sensitivity band's midpoint or its upper end falls to the target (rows
#: ``units_needed_band_mid``, ``units_needed_band_high``); ``flagged``: the band's upper end where the flag fires
#: (the teams' spreads differ, ``spread_p`` below :data:`~robustness.statistics.uncertainty.FLAG_ALPHA`), the
#: reported claim elsewhere; ``adaptive``: the same, and the band's midpoint without a team of two or more runs;
#: ``shared``: the shared prior's estimate's bound alone (the claim reported before).
CLAIM_RULES = ("band_mid", "band_high", "flagged", "adaptive", "shared")


def _needed_rows(row, s, results: list[dict], n_runs: int, nominal: float) -> None:
    """The size claims' rows of one scheme: the reported rule and each of :data:`CLAIM_RULES`."""
    target = size_target(n_runs)
    sets = [("units_needed", [x for r in results for x in r["needed"] if x["scheme"] == s])]
    sets += [(f"units_needed_{rule}", [x for r in results for x in r.get("needed_rules", [])
                                       if x["scheme"] == s and x["rule"] == rule]) for rule in CLAIM_RULES]
    for name, d in sets:
        if not d:
            continue
        holds = [size_claim_holds(x["beyond"], x["truth_at_claim"], target) for x in d]
        share, share_se = cluster_share([float(h) for h in holds])
        need = d[0]["true_need"]
        claims = np.array([x["claim"] for x in d])
        ratio = np.median(claims) / need - 1 if np.isfinite(need) else np.nan
        largest = max((float(x.get("largest", np.nan)) for x in d), default=np.nan)
        row(name, f"expected L1 <= {target_text(target, n_runs)}", s, estimate=float(np.median(claims)),
            truth=need, relative_bias=ratio, share_reaching_target=share, share_reaching_target_se=share_se,
            nominal=nominal, n_claims=len(d), claim_to_need=ratio + 1, true_need=need, largest_size=largest,
            share_beyond=float(np.mean([bool(x["beyond"]) for x in d])),
            share_reaching_finite=float(np.mean([h and not x["beyond"] for h, x in zip(holds, d)])))


def _flag_rows(row, s, d: list[dict], spread_p: float) -> None:
    """The prior flag judged for what it tells: whether the population's teams differ in spread.

    The flag (``spread_p`` below :data:`~robustness.statistics.uncertainty.FLAG_ALPHA`) says "your teams differ in
    spread; read the range". Whether they do is a fact of the population: the same test on its own scores without
    noise (``spread_p``, :class:`~robustness.simulation.populations.PopulationTruth`). ``prior_flag_differ``
    (populations whose teams differ): the share of test sets it fires on, target at least
    :data:`FLAG_FIRES`; ``prior_flag_silent`` (teams sharing one spread): the same share, target at most
    :data:`FLAG_SILENT`. No row without two teams of two or more runs (nothing to compare).
    """
    if not np.isfinite(spread_p):
        return
    fired = [float(np.isfinite(x["spread_p"]) and x["spread_p"] < FLAG_ALPHA) for x in d]
    share, share_se = cluster_share(fired)
    differ = spread_p < FLAG_ALPHA
    setting = (f"the population's teams {'differ in' if differ else 'share one'} spread (p = {spread_p:.3g} on its "
               f"scores); the flag at p < {FLAG_ALPHA:g}")
    row("prior_flag_differ" if differ else "prior_flag_silent", setting, s, share_holding=share,
        share_holding_se=share_se, n_claims=len(d), nominal=FLAG_FIRES if differ else FLAG_SILENT, truth=spread_p)


#: The prior flag's targets per population: it fires on at least this share of test sets where the population's
#: teams differ in spread, and on at most :data:`FLAG_SILENT` where they share one (the test's 5% level with room
#: for its Monte Carlo error).
FLAG_FIRES = 0.5
FLAG_SILENT = 0.10


def pooled_reliability(best: list[dict], n_populations: int, *, test_sets: int) -> list[dict]:
    """p_best's reliability pooled over every population, in :data:`P_BEST_POOLED_BINS`, for each prior's p_best.

    Rows ``p_best_pooled`` (the reported p_best, both priors averaged), ``p_best_pooled_shared`` and
    ``p_best_pooled_per_team``, population ``pooled (P populations)``: per bin the mean claim (``estimate``) and
    the share of test sets whose observed best is the population's (``share_holding``, with its Monte Carlo SE
    over test sets); ``relative_bias`` is their difference (claim minus share, not relative: the name keeps the
    column), its SE the share's.

    Parameters
    ----------
    best : list of dict
        Every test set's best run per scheme (``scheme``, ``p_best``, ``p_best_shared``, ``p_best_per_team``,
        ``is_best``).
    n_populations : int
    test_sets : int
        Test sets per population.

    Returns
    -------
    list of dict
        Nothing with fewer than two populations (each population's own rows say it).
    """
    out: list[dict] = []
    if n_populations < 2:
        return out
    population = f"pooled ({n_populations} populations)"
    for name, key in (("p_best_pooled", "p_best"), ("p_best_pooled_shared", "p_best_shared"),
                      ("p_best_pooled_per_team", "p_best_per_team")):
        for average in ("micro", "macro"):
            d = [x for x in best if x["scheme"].endswith(average) and key in x]
            if not d:
                continue
            claimed = np.array([x[key] for x in d])
            is_best = np.array([float(x["is_best"]) for x in d])
            for label, mean, share, share_se, count in _binned(claimed, is_best, P_BEST_POOLED_BINS):
                r: dict[str, Any] = dict.fromkeys(CALIBRATION_COLUMNS, np.nan)
                r.update(estimator=name, setting=label, population=population, scheme=f"every scheme {average}",
                         n_test_sets=n_populations * test_sets, estimate=mean, truth=share, share_holding=share,
                         share_holding_se=share_se, n_claims=count, relative_bias=mean - share,
                         relative_bias_se=share_se)
                out.append(r)
    return out


#: The bins of the pooled reliability (the issue's three: unlikely, likely, nearly sure).
P_BEST_POOLED_BINS = (0.0, 0.5, 0.8, 1.0)


def averaged(rows: list[dict], names: list[str]) -> list[dict]:
    """Rows averaged over several populations (the design study's run populations), named ``design (P populations)``.

    Each value is the mean of the populations' values, its ``_se`` their standard deviation over ``sqrt(P)``: the
    populations are the sample (what an estimator does on average over challenges drawn like them, where one
    population's value owes much to its own runs).

    Parameters
    ----------
    rows : list of dict
        calibration.csv's rows of every population.
    names : list of str
        The populations averaged (fewer than two: nothing).

    Returns
    -------
    list of dict
        The averaged rows; a row that fewer than two of the populations have is not averaged.
    """
    if len(names) < 2:
        return []
    table = pd.DataFrame(rows)
    table = table[table.population.isin(names)]
    out = []
    for (estimator, setting, scheme), g in table.groupby(["estimator", "setting", "scheme"], sort=False):
        if len(g) < 2:  # a row only one population has (a p_best bin no other population's claims fall in)
            continue
        r: dict[str, Any] = dict.fromkeys(CALIBRATION_COLUMNS, np.nan)
        r.update(estimator=estimator, setting=setting, scheme=scheme, population=f"design ({len(g)} populations)",
                 n_test_sets=int(g.n_test_sets.sum()), nominal=g.nominal.iloc[0])
        if g.n_claims.notna().all():
            r["n_claims"] = float(g.n_claims.sum())
        for column in ("estimate", "truth", "relative_bias", "coverage", "share_reaching_target", "share_wrong",
                       "share_holding", "share_reaching_finite", "claim_to_need"):
            values = g[column].to_numpy(np.float64)
            if np.all(np.isfinite(values)):
                r[column] = float(values.mean())
                if f"{column}_se" in r:
                    r[f"{column}_se"] = float(values.std(ddof=1) / np.sqrt(values.size))
        out.append(r)
    return out


def summarise_population(results: list[dict], truth: PopulationTruth, population: str, *, confidence: float,
                         test_size: int, n_runs: int) -> list[dict]:
    """calibration.csv's rows of one population.

    Parameters
    ----------
    results : list of dict
        Every test set's claims (:func:`robustness.simulation.calibration.calibrate` collects them).
    truth : PopulationTruth
    population : str
        Its name in the rows.
    confidence : float
        The nominal level of the intervals.
    test_size : int
        Encounters per test set (N).
    n_runs : int

    Returns
    -------
    list of dict
        One row per estimator, setting and scheme (:data:`CALIBRATION_COLUMNS`).
    """
    k = len(results)
    nominal = confidence
    out = []

    def row(estimator, setting, s, **values):
        """One row; ``s`` a scheme's index in the truth, or the scheme's name."""
        base = dict.fromkeys(CALIBRATION_COLUMNS, np.nan)
        base.update(estimator=estimator, setting=setting, population=population, n_test_sets=k,
                    scheme=s if isinstance(s, str) else " ".join(truth.schemes[s]))
        base.update(values)
        out.append(base)

    _gold_rows(row, results)
    for s in range(len(truth.schemes)):
        for factor in (1, 8):
            _distance_rows(row, s, [x for r in results for x in r["distance"] if x["scheme"] == s
                                    and x["factor"] == factor], f"m = {factor} N ({factor * test_size} encounters)",
                           nominal)
        spread_p = float(truth.spread_p[s]) if len(truth.spread_p) else np.nan
        _flag_rows(row, s, [x for r in results for x in r["distance"] if x["scheme"] == s and x["factor"] == 1],
                   spread_p)
        _needed_rows(row, s, results, n_runs, nominal)
        _interval_and_pair_rows(row, s, results, nominal)
        d = [x for r in results for x in r["best"] if x["scheme"] == s]
        _best_rows(row, s, d)
        _reliability_rows(row, s, d)
        _resolution_rows(row, s, [x for r in results for x in r.get("resolution", []) if x["scheme"] == s],
                         test_size)
    return out


def _gold_rows(row, results: list[dict]) -> None:
    """The gold statement's rows: does the fastest gold (or a gold tied with it) hold, per averaging."""
    for average in ("micro", "macro"):
        d = [x for r in results for x in r.get("golds", []) if x["average"] == average]
        if d:
            share, share_se = cluster_share([float(x["holds"]) for x in d])
            row("gold_statement", "the fastest gold, or the golds tied with it",
                f"{', '.join(GOLDS)} jaccard {average}", estimate=float(np.mean([x["claims_best"] for x in d])),
                share_holding=share, share_holding_se=share_se, n_claims=len(d))


def _distance_rows(row, s, d: list[dict], setting: str, nominal: float) -> None:
    """The distance to unlimited data at one size (scheme ``s``): estimate, 90% interval, band, other estimates.

    The estimate with its interval's coverage, the 90% interval's, the band's upper end (truth above it) and the
    plug-in and known-prior estimates' biases.
    """
    est, tr = [x["estimate"] for x in d], [x["truth"] for x in d]
    bias, bias_se = relative_error(est, tr)
    cov, cov_se = cluster_share([float(x["low"] <= x["truth"] <= x["high"]) for x in d])
    row("expected_l1", setting, s, estimate=float(np.mean(est)), truth=float(np.mean(tr)),
        relative_bias=bias, relative_bias_se=bias_se, coverage=cov, coverage_se=cov_se, nominal=nominal)
    cov, cov_se = cluster_share([float(abs(x["estimate"] - x["truth"]) <= Z90 * x["se"]) for x in d])
    row("expected_l1_interval90", setting, s, coverage=cov, coverage_se=cov_se, nominal=0.90)
    above, above_se = cluster_share([float(x["truth"] > x["band_high"]) for x in d])
    inside, inside_se = cluster_share([float(x["band_low"] <= x["truth"] <= x["band_high"]) for x in d])
    row("expected_l1_upper", setting, s, estimate=float(np.mean([x["band_high"] for x in d])),
        truth=float(np.mean(tr)), share_wrong=above, share_wrong_se=above_se, coverage=inside,
        coverage_se=inside_se, nominal=nominal)
    for name, key in (("expected_l1_plugin", "plugin"), ("expected_l1_known_prior", "known_prior")):
        values = [x[key] for x in d]
        bias, bias_se = relative_error(values, tr)
        row(name, setting, s, estimate=float(np.mean(values)), truth=float(np.mean(tr)), relative_bias=bias,
            relative_bias_se=bias_se)


def _interval_and_pair_rows(row, s, results: list[dict], nominal: float) -> None:
    """The score intervals' coverage per method and the pairwise tests' wrong claims per test and family."""
    _interval_rows(row, s, results, nominal)
    _pair_rows(row, s, results)


def _interval_rows(row, s, results: list[dict], nominal: float) -> None:
    """The score intervals' coverage per method (scheme ``s``)."""
    for method in ("percentile", "bca", "studentized"):
        d = [x for r in results for x in r["scores"] if x["scheme"] == s and x["method"] == method]
        cov, cov_se = cluster_share([x["covered"] for x in d], [x["n"] for x in d])
        row(f"score_interval_{method}", "every run's score", s, coverage=cov, coverage_se=cov_se, nominal=nominal,
            n_claims=int(sum(x["n"] for x in d)))


def _pair_rows(row, s, results: list[dict]) -> None:
    """The pairwise tests' share of wrong-sign claims per test and family (scheme ``s``)."""
    for test in ("bootstrap", "delta", "wilcoxon"):
        for family in ("all pairs", "neighbours"):
            d = [x for r in results for x in r["pairs"] if x["scheme"] == s and x["test"] == test
                 and x["family"] == family]
            if not d:
                continue
            wrong, wrong_se = cluster_share([x["wrong"] for x in d], [x["claims"] for x in d])
            name = f"pairs_differ_{test}" + ("_neighbours" if family == "neighbours" else "")
            row(name, f"Holm over {family}", s, share_wrong=wrong, share_wrong_se=wrong_se,
                n_claims=int(sum(x["claims"] for x in d)), estimate=float(np.mean([x["claims"] for x in d])))


def _best_rows(row, s, d: list[dict]) -> None:
    """p_best and the plug-in's stays-first share against how often the observed best is the population's."""
    actual = float(np.mean([x["is_best"] for x in d]))
    for name, key in (("p_best", "p_best"), ("best_stays_first", "stays")):
        claimed = [x[key] for x in d]
        diff = np.asarray(claimed) - np.asarray([x["is_best"] for x in d])
        row(name, "the observed best is the population's best", s, estimate=float(np.mean(claimed)),
            truth=actual, relative_bias=float(diff.mean() / actual) if actual else np.nan,
            relative_bias_se=float(diff.std(ddof=1) / np.sqrt(diff.size) / actual) if actual else np.nan)


def _resolution_rows(row, s, d: list[dict], test_size: int) -> None:
    """The resolution's claims (:func:`robustness.simulation.calibration._resolution_claims`), scheme ``s``."""
    if not d:
        return
    setting = f"m = 1 N ({test_size} encounters); paired t-test, 5%, 80% power"
    truth = float(d[0]["truth"])
    claimed = np.array([x["claimed"] for x in d])
    power, power_se = cluster_share([x["declared"] for x in d], [x["eligible"] for x in d])
    bias, bias_se = relative_error(claimed.tolist(), [truth] * len(d))
    row("resolution", setting + "; pairs whose true difference is at least the claim", s,
        estimate=float(np.median(claimed)), truth=truth, relative_bias=bias, relative_bias_se=bias_se, power=power,
        power_se=power_se, nominal=0.80, n_claims=int(sum(x["eligible"] for x in d)))
    power, power_se = cluster_share([x["declared_at"] for x in d], [x["eligible_at"] for x in d])
    row("resolution_at", setting + "; pairs within 25% above the claim", s, power=power, power_se=power_se,
        nominal=0.80, n_claims=int(sum(x["eligible_at"] for x in d)))
    cov, cov_se = cluster_share([float(x["low"] <= truth <= x["high"]) for x in d])
    row("resolution_interval", setting, s, coverage=cov, coverage_se=cov_se, nominal=0.95, truth=truth)
    claims = np.array([x["claim_units"] for x in d], dtype=float)
    need = float(d[0]["need_units"])
    if np.isfinite(need):
        share, share_se = cluster_share([float(c >= need) for c in claims])
        ratio = float(np.median(claims) / need)
        row("resolve_units", f"a true difference of {truth:.3g} (the population's resolution at N)", s,
            estimate=float(np.median(claims)), truth=need, share_reaching_target=share,
            share_reaching_target_se=share_se, relative_bias=ratio - 1, claim_to_need=ratio, nominal=0.80,
            n_claims=len(d))


#: The bins of claimed p_best whose actual share calibration.csv reports (``p_best_reliability`` rows).
P_BEST_BINS = (0.0, 0.5, 0.8, 0.95, 1.0)


def _reliability_rows(row, s, d: list[dict]) -> None:
    """p_best's reliability: per bin of the claimed probability, how often the observed best is the population's.

    A calibrated probability has the actual share (``share_holding``) near the bin's mean claim (``estimate``).
    """
    claimed = np.array([x["p_best"] for x in d])
    is_best = np.array([float(x["is_best"]) for x in d])
    for label, mean, share, share_se, count in _binned(claimed, is_best, P_BEST_BINS):
        row("p_best_reliability", label, s, estimate=mean, truth=share, share_holding=share,
            share_holding_se=share_se, n_claims=count)


def _binned(claimed: np.ndarray, is_best: np.ndarray, edges: tuple):
    """Per bin of the claimed p_best that holds a claim: label, mean claim, actual share, its SE, count.

    Bins are ``[lo, hi)`` between ``edges``, the last closed; the share is of the bin's test sets whose observed
    best is the population's, its SE over test sets.
    """
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (claimed >= lo) & ((claimed < hi) | (hi == edges[-1]))
        if inside.any():
            share, share_se = cluster_share(is_best[inside].tolist())
            yield (f"claimed p_best in [{lo:g}, {hi:g}{']' if hi == edges[-1] else ')'}",
                   float(claimed[inside].mean()), share, share_se, int(inside.sum()))
