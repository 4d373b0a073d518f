"""The design study held against run populations it never drew (the calibration's check of its sizes).

The design study answers "how many encounters" twice: for runs like the challenge's on average (its
recommendation, ``recommended_scheme``) and for one new run population drawn with the same settings (the upper end
of a 95% prediction interval over its run populations, ``encounters_needed_new_population``). Its own check holds
each of its populations against the bound from the others. Here the study runs as an organiser runs it; then run
populations it never drew (its ``population`` stream beyond its own indices: drawn exactly like its own) are
measured, each over test sets of its own at every size the study simulated and at the sizes it claimed (nested:
the first encounters of each test set of the largest size, as in the study's grid). A
population's expected L1 to its population ranking is the mean over its test sets at each size, made
non-increasing in the size (isotonic regression weighted by test sets: more units never move a ranking away from
its population's in expectation, so a rise is test-set noise); its need is where that curve falls to the study's
target (log-linear between the sizes measured; none beyond the largest; "at most" the smallest where the curve
starts below it), and a claimed size reaches the target on
the population where the need is at most the claim.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression
from scipy.stats import binomtest

from robustness.errors import parameter
from robustness.results.claims import ClaimName
from robustness.results.study_result import StudyResult
from robustness.simulation import worlds
from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS
from robustness.simulation.design import NewPopulations, Setting
from robustness.simulation.grid import run_new_populations
from robustness.simulation.recommendation import measured_size
from robustness.statistics.uncertainty import crossing
from robustness.studies import design
from robustness.studies.design_base import DesignStudyOptions
from robustness.synthetic.challenge import SyntheticConfig

__all__ = ["CLAIMS", "DesignCheck", "DesignCheckOptions", "check_design", "calibration_rows"]

#: The design study's two size claims checked, by the verdict that states each.
CLAIMS: dict[str, ClaimName] = {"design_size": "recommended_scheme",
                                 "design_size_new_population": "encounters_needed_new_population"}


def _quick_design() -> DesignStudyOptions:
    return DesignStudyOptions(quick=True)


@dataclass(frozen=True)
class DesignCheckOptions:
    """How the design study is checked.

    Attributes
    ----------
    populations : int
        New run populations measured (at least 2).
    test_sets : int
        Test sets of each new population per size (at least 2): its expected L1 is their mean.
    design : DesignStudyOptions
        The design study checked (default: its ``--quick`` form around the default challenge).
    """

    populations: int = 8
    test_sets: int = 8
    design: DesignStudyOptions = field(default_factory=_quick_design)

    def __post_init__(self) -> None:
        """Check the counts."""
        for name in ("populations", "test_sets"):
            if int(getattr(self, name)) < 2:
                raise ValueError(f"{name} must be >= 2, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class DesignCheck:
    """The design study's claims and the new run populations' truth.

    Attributes
    ----------
    study : StudyResult
        The design study as it ran.
    strategy, average : str
        Its recommended scheme (Jaccard).
    target : float
        Its size target (expected L1 to the population ranking).
    largest : int
        The largest size it simulated.
    claims : dict
        :data:`CLAIMS`' names to the claimed size in encounters (nan: "more than ``largest``"; negative: "at most"
        the size's absolute value, the grid's smallest).
    measured : pandas.DataFrame
        Per new population and size: ``population``, ``encounters``, ``l1_population`` (the mean over its test
        sets), ``l1_population_se``, ``test_sets``, ``l1_population_fit`` (the means made non-increasing) and the
        population's ``true_need`` (nan beyond ``largest``; negative, as the design study's sizes, where the curve
        is at the target already at the smallest size: at most that size).
    notes : list of str
        What happened to the new populations' cache (parts computed again).
    """

    study: StudyResult
    strategy: str
    average: str
    target: float
    largest: int
    claims: dict
    measured: pd.DataFrame
    notes: list = field(default_factory=list)


def _claims(study: StudyResult) -> tuple[str, str, dict]:
    """The recommended scheme and the two claimed sizes."""
    (chosen,) = study.verdict("recommended_scheme")
    claims = {}
    for name, claim in CLAIMS.items():
        found = study.verdict(claim)
        ok = found and found[0].get("statement") != "undefined"
        claims[name] = float(found[0]["value"]) if ok else np.nan
    return str(chosen["strategy"]), str(chosen["average"]), claims


def check_design(options: DesignCheckOptions = DesignCheckOptions(), *, base: worlds.World | None = None,
                 cache_dir: Path | str, n_jobs: int = 1, progress: bool = False,
                 say: Callable[..., Any] | None = None) -> DesignCheck:
    """Run the design study, then measure its claims on run populations it never drew.

    Parameters
    ----------
    options : DesignCheckOptions
    base : SyntheticConfig, optional
        The challenge planned for (default: the embedded synthetic challenge).
    cache_dir : path
        The design study's cache and the new populations' (both resume).
    n_jobs : int
    progress : bool
    say : callable, optional

    Returns
    -------
    DesignCheck
    """
    say = say or (lambda *a: None)
    base = base if base is not None else SyntheticConfig()
    grid = design.make_grid(base, options.design)
    if grid.populations < 2:  # refused before any work: one population gives no size for a new one
        raise ValueError(f"the design study checked needs two or more run populations (its size for a new run "
                         f"population), got {grid.populations}: raise {parameter('DesignStudyOptions', 'populations')}"
                         f" and {parameter('DesignStudyOptions', 'replicates')}")
    say("the design study checked on run populations it never drew: the study itself")
    study = design.run(base, options.design, cache_dir=Path(cache_dir) / "design", n_jobs=n_jobs, progress=progress,
                       say=say)
    strategy, average, claims = _claims(study)
    record = json.loads(study.files["design_base.json"])
    setting = Setting(**{k: record[k] for k in ("annotators", "agreement", "spread", "runs", "correlation")})
    table = study.table("design.csv")
    simulated = sorted({int(n) for n in table.encounters})
    largest = max(simulated)
    sizes = sorted(set(simulated) | {measured_size(c) for c in claims.values() if np.isfinite(c)})
    own = int(study.meta["grid"]["populations"])
    new = range(own, own + options.populations)
    golds = design.counted_golds(strategy)
    say(f"{options.populations} new run populations (indices {own} to {own + options.populations - 1}), "
        f"{options.test_sets} test sets of each of {len(sizes)} sizes")
    plan = NewPopulations(setting, tuple(sizes), tuple(new), options.test_sets, tuple(golds))
    # the new populations' cache is the study's (its fingerprint: the base, the grid, the options and the seed) and
    # the golds': another seed or another study never reads these pools and test sets
    key = hashlib.sha256(json.dumps([study.meta["input"]["fingerprint"], golds]).encode()).hexdigest()[:16]
    rows, notes = run_new_populations(base, grid, plan, options=options.design.simulation(base),
                                      seed=options.design.seed, cache_dir=Path(cache_dir) / "new-populations" / key,
                                      n_jobs=n_jobs, progress=progress)
    mine = rows[(rows.strategy == strategy) & (rows.average == average)]
    measured = (mine.groupby(["population", "encounters"]).l1_population
                .agg(l1_population="mean", l1_population_se=lambda v: v.std(ddof=1) / np.sqrt(len(v)),
                     test_sets="size").reset_index())
    target = float(record["target_l1"])
    measured = measured.sort_values(["population", "encounters"], ignore_index=True)
    fits, needs = [], {}
    for p, d in measured.groupby("population", sort=False):
        fit = isotonic_regression(d.l1_population.to_numpy(), weights=d.test_sets.to_numpy(float),
                                  increasing=False).x
        need, beyond, already = crossing(d.encounters.to_numpy(float), fit, target)
        fits.append(fit)
        needs[p] = np.nan if beyond else -need if already else need  # negative: at most the smallest size
    measured["l1_population_fit"] = np.concatenate(fits)
    measured["true_need"] = measured.population.map(needs)
    return DesignCheck(study, strategy, average, target, largest, claims, measured, notes)


def calibration_rows(check: DesignCheck) -> list[dict]:
    """calibration.csv's rows of the check: one per claim.

    ``estimate`` is the claimed size (nan: "more than ``largest_size``"), ``truth`` and ``true_need`` the new
    populations' median need (nan where half or more lie beyond ``largest_size``; a need "at most the smallest size"
    counts as that size), ``share_reaching_target`` the share of new populations whose need is at most the claimed
    size (nan for a claim "more than the largest size": there is no size to hold; it is conservative wherever a need
    lies beyond it too), ``share_reaching_target_se`` half the wider side of the share's exact (Clopper-Pearson)
    95% interval over populations, so that the target's verdict is "undecided" wherever that interval holds the
    target (a Wald error is 0 at 8 of 8, where the interval runs from 0.63), ``share_beyond`` (for a claim "more
    than the largest size") the share of new populations whose need lies within it, ``claim_to_need`` the median
    over populations of the claim over the need (nan where half or more lie beyond the largest size), ``n_claims``
    the new populations, ``n_test_sets`` their test sets (each measured at every size, nested).

    Parameters
    ----------
    check : DesignCheck

    Returns
    -------
    list of dict
    """
    needs = check.measured.groupby("population").true_need.first().abs()  # "at most n" as n
    n = len(needs)
    need = needs.fillna(np.inf).to_numpy()  # beyond the largest size: more than any claim
    median_need = float(np.median(need)) if n else np.nan
    median_need = median_need if np.isfinite(median_need) else np.nan
    out = []
    for name, claim in check.claims.items():
        r: dict[str, Any] = dict.fromkeys(CALIBRATION_COLUMNS, np.nan)
        r.update(estimator=name, setting=f"target L1 <= {check.target:g}", population=f"new run populations ({n})",
                 scheme=f"{check.strategy} jaccard {check.average}",
                 n_test_sets=n * int(check.measured.test_sets.max()),
                 n_claims=n, estimate=claim, truth=median_need, true_need=median_need, largest_size=check.largest)
        if np.isfinite(claim):
            reached = need <= abs(claim)
            share = float(reached.mean())
            # a population beyond the largest size: its ratio is below claim / largest, so a median is known only
            # while fewer than half lie beyond
            ratio = float(np.median(abs(claim) / need)) if 2 * needs.isna().sum() < n \
                else np.nan
            ci = binomtest(int(reached.sum()), n).proportion_ci(0.95)
            r.update(share_reaching_target=share, share_reaching_target_se=max(share - ci.low, ci.high - share) / 2,
                     claim_to_need=ratio, relative_bias=ratio - 1)
        else:
            r.update(share_beyond=float(needs.notna().mean()))
        out.append(r)
    return out
