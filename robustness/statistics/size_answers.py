"""Size answers side by side, and the test-set unit's name.

The main job's estimate on a challenge's own units and the design study's twin, each an interval of test-set
sizes.

Neutral ground for the design study (which computes them) and the reports (which state them): nothing here
imports a study or a report.
"""

from __future__ import annotations

import math

import numpy as np

from robustness.scheme import DEFAULT

__all__ = ["MIN_COVERAGE", "answers_overlap", "compare_answers", "comparison_fields", "short_coverage",
           "size_range", "unit_name"]


#: Below this simulated coverage of the nominal 95% bootstrap interval the twin's intervals are a warning.
MIN_COVERAGE = 0.90


def short_coverage(rows: list[dict], unit: str) -> tuple[list[dict], str, bool]:
    """The bootstrap intervals whose simulated coverage falls below :data:`MIN_COVERAGE`, in prose.

    Parameters
    ----------
    rows : list of dict
        One per interval method: ``method``, ``unit`` (the unit it resamples), ``coverage`` with its 95% CI
        ``low`` and ``high``, optionally ``average``.
    unit : str
        The challenge's test-set unit: where it is not the encounter (one image or volume per encounter) the
        encounter rows repeat the image rows and are left out.

    Returns
    -------
    low : list of dict
        The rows below the threshold.
    said : str
        Each with its coverage and CI, e.g. ``percentile over images (micro) 87.5% (95% CI 62.1% to 100.0%)``.
    unsure : bool
        Every such CI still reaches 95%.
    """
    low = [r for r in rows if r["coverage"] < MIN_COVERAGE]
    if unit != "encounter" and any(r["unit"] != "encounter" for r in low):
        low = [r for r in low if r["unit"] != "encounter"]
    said = "; ".join(f"{r['method']} over {r['unit'] if unit == 'encounter' else unit}s"
                     + (f" ({r['average']})" if r.get("average") else "")
                     + f" {r['coverage']:.1%} (95% CI {r['low']:.1%} to {r['high']:.1%})" for r in low)
    return low, said, all(r["high"] >= 0.95 for r in low)


def unit_name(base: object) -> str:
    """The test-set unit's name: ``encounter``, ``volume`` or ``image``.

    ``encounter`` when encounters hold several images, else ``volume`` for a 3D challenge and ``image`` for a 2D one.

    Parameters
    ----------
    base : SyntheticConfig or dict
        The base generator parameters (a dict as meta.json records them).

    Returns
    -------
    str
    """
    get = base.get if isinstance(base, dict) else lambda k, d=None: getattr(base, k, d)
    if (get("n_images", 2) or 2) > (get("n_encounters", 1) or 1):
        return "encounter"
    return "volume" if get("depth") is not None else "image"


def size_range(value: float, low: float, high: float, *, beyond: bool = False, already: bool = False,
               smallest: float = 0.0, largest: float = math.inf) -> tuple[float, float, float]:
    """A size answer as (estimate, low, high) with its open ends made explicit.

    ``beyond``: more than ``largest`` (the high end is infinite); ``already``: at most ``smallest`` (the low end);
    nan ends become the range's ends.

    Parameters
    ----------
    value, low, high : float
        The estimate and its interval (nan where open).
    beyond, already : bool
        The answer lies above the largest size tried, or at or below the smallest.
    smallest, largest : float
        The sizes tried at either end.

    Returns
    -------
    tuple of float
        ``(estimate, low, high)``, ``high`` infinite when open above.
    """
    lo = smallest if already or not np.isfinite(low) or low < 0 else low  # negative: at most -low (its first size)
    hi = math.inf if beyond or not np.isfinite(high) else high
    return value, lo, hi


def answers_overlap(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Whether two size intervals (estimate, low, high) share a size.

    Parameters
    ----------
    a, b : tuple of float
        As :func:`size_range` returns them.

    Returns
    -------
    bool
    """
    return max(a[1], b[1]) <= min(a[2], b[2])


def compare_answers(rec: dict) -> dict | None:
    """The design study's size for majority, micro Jaccard beside the main job's on the real challenge.

    Parameters
    ----------
    rec : dict
        The recommendation, with ``main_answer`` (the main job's estimate on the real data) where it was computed.

    Returns
    -------
    dict or None
        ``real`` and ``design`` ranges (:func:`size_range`), ``overlap``, the largest sizes tried and the twin's
        interval ends as written; None without a main answer.
    """
    main, sizes = rec.get("main_answer"), rec["sizes"]
    if main is None:
        return None
    mine = main[(main.strategy == DEFAULT.strategy) & (main.average == DEFAULT.average)]
    twin = sizes[(sizes.strategy == DEFAULT.strategy) & (sizes.average == DEFAULT.average)]
    if mine.empty or twin.empty:
        return None
    m, t = mine.iloc[0], twin.iloc[0]
    real = size_range(float(m.units_needed_point), float(m.units_needed_low), float(m.units_needed),
                      beyond=bool(m.beyond), already=bool(m.already), largest=float(m.largest_size))
    design = size_range(float(t.encounters_for_l1), float(t.encounters_for_l1_optimistic),
                        float(t.encounters_for_l1_conservative), largest=float(t.largest_size))
    return {"real": real, "design": design, "overlap": answers_overlap(real, design), "largest": float(m.largest_size),
            "design_ends": (float(t.encounters_for_l1_optimistic), float(t.encounters_for_l1_conservative)),
            "design_largest": float(t.largest_size)}


def comparison_fields(c: dict) -> dict:
    """:func:`compare_answers`'s result as the fields of a ``main_job_size`` verdict.

    Parameters
    ----------
    c : dict
        As :func:`compare_answers` returns it.

    Returns
    -------
    dict
        ``statement`` (``overlap`` or ``apart``), the main job's ``value``, ``low`` and ``high``, ``count`` (the
        largest size it tried) and ``subject``: the twin's two interval ends as the design study writes them
        (negative: at most) and the largest size it simulated.
    """
    value, low, high = c["real"]
    return {"statement": "overlap" if c["overlap"] else "apart", "value": value, "low": low, "high": high,
            "count": int(c["largest"]), "subject": [*c["design_ends"], c["design_largest"]]}
