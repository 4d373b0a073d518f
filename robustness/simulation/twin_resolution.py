"""The design study's resolution: the smallest true difference its simulated test sets declare, over replicates.

Every replicate's test set gives each scheme the median (and upper quartile) of its neighbouring pairs' per-unit
SDs of paired differences (``design.csv``, columns ``pair_sd`` and ``pair_sd_q75``,
:mod:`robustness.statistics.resolution`). :func:`resolution_from_replicates` turns them into the main job's table
(:data:`robustness.statistics.resolution.RESOLUTION_COLUMNS`), with the spread over replicates (each its own test
set, and its own run population unless populations are shared) as the interval: the resolution a new test set like
the simulated ones would show. :func:`compare_resolutions` puts it beside the main job's on the real challenge.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robustness.statistics.resolution import ALPHA, POWER, RESOLUTION_COLUMNS, detectable_difference

__all__ = ["resolution_from_replicates", "compare_resolutions"]


def resolution_from_replicates(design: pd.DataFrame, *, at: pd.Series, test_units: int, unit: str,
                               alpha: float = ALPHA, power: float = POWER) -> pd.DataFrame:
    """The twin's resolution per scheme and grid size at one setting, with its 95% range over replicates.

    Parameters
    ----------
    design : pandas.DataFrame
        ``design.csv`` (rows with ``pair_sd``).
    at : pandas.Series of bool
        The rows of the setting (:func:`robustness.simulation.recommendation.at_setting`).
    test_units : int
        The challenge's own size.
    unit : str
        What a unit is.
    alpha, power : float

    Returns
    -------
    pandas.DataFrame
        :data:`~robustness.statistics.resolution.RESOLUTION_COLUMNS`: ``pair_sd`` the median over replicates of
        their median SDs, ``pair_sd_low``/``pair_sd_high`` the 2.5% and 97.5% quantiles over replicates,
        ``pair_sd_q75`` the median of their upper quartiles, ``pairs`` the neighbouring pairs of one test set,
        and the resolutions at those SDs (``resolution_holm`` at Holm's first level).
    """
    rows = design[at & design.pair_sd.notna()] if "pair_sd" in design else design.iloc[:0]
    out = []
    for (strategy, metric, average, n), g in rows.groupby(["strategy", "metric", "average", "encounters"],
                                                          sort=True):
        sd = g.pair_sd.to_numpy(dtype=np.float64)
        med, low, high = float(np.median(sd)), float(np.quantile(sd, 0.025)), float(np.quantile(sd, 0.975))
        q75 = float(np.median(g.pair_sd_q75.to_numpy(dtype=np.float64)))
        pairs = int(g.runs.iloc[0]) - 1
        d = detectable_difference(np.array([med, low, high, q75]), int(n), alpha=alpha, power=power)
        holm = alpha / max(pairs, 1)
        out.append({"strategy": strategy, "metric": metric, "average": average,
                    "scheme": f"{strategy}:{metric}:{average}", "unit": unit, "units": int(n),
                    "test_units": int(test_units), "power": power, "alpha": alpha, "pairs": pairs, "pair_sd": med,
                    "pair_sd_low": low, "pair_sd_high": high, "pair_sd_q75": q75, "resolution": d[0],
                    "resolution_low": d[1], "resolution_high": d[2], "resolution_q75": d[3], "alpha_holm": holm,
                    "resolution_holm": float(detectable_difference(med, int(n), alpha=holm, power=power))})
    return pd.DataFrame(out, columns=list(RESOLUTION_COLUMNS))


def compare_resolutions(twin: pd.DataFrame, main: pd.DataFrame | None, *, strategy: str, metric: str,
                        average: str) -> dict | None:
    """The twin's resolution at the challenge's size beside the main job's on the real challenge.

    Parameters
    ----------
    twin : pandas.DataFrame
        :func:`resolution_from_replicates`'s table.
    main : pandas.DataFrame or None
        The main job's resolution.csv rows on the real challenge.
    strategy, metric, average : str
        The scheme compared.

    Returns
    -------
    dict or None
        ``twin``, ``twin_low``, ``twin_high``, ``main``, ``main_low``, ``main_high`` (at the test set's size; the
        twin's at the grid size nearest it), ``units`` and ``statement`` (``overlap`` or ``apart``); None where
        either is missing.
    """
    def pick(table):
        if table is None or table.empty:
            return None
        t = table[(table.strategy == strategy) & (table.metric == metric) & (table.average == average)]
        if t.empty:
            return None
        n = int(t.test_units.iloc[0])
        return t.iloc[int(np.argmin(np.abs(t.units.to_numpy() - n)))]

    a, b = pick(twin), pick(main)
    if a is None or b is None:
        return None
    overlap = a.resolution_low <= b.resolution_high and b.resolution_low <= a.resolution_high
    return {"twin": float(a.resolution), "twin_low": float(a.resolution_low), "twin_high": float(a.resolution_high),
            "twin_units": int(a.units), "main": float(b.resolution), "main_low": float(b.resolution_low),
            "main_high": float(b.resolution_high), "units": int(b.units),
            "statement": "overlap" if overlap else "apart"}
