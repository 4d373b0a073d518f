"""The report sections of every study, registered per study, and what they share.

A section is a function ``section(report, result)`` that appends headings,
sentences, tables and figures to a :class:`~robustness.reporting.document.Report`
from a :class:`~robustness.results.study_result.StudyResult` loaded from a
results folder: every number comes from a table of the folder, and every
sentence that states a finding reads a row of its verdicts table. A study's
report is its registered sections in order, then the warnings and the list of
files. A new report table is one section function plus one
:func:`register_section` call.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robustness.overlap.gold import get_strategy, is_random

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Section", "SECTIONS", "TITLES", "register_section", "register_study", "sections", "strategy_label", "ci",
           "names", "EXTRA_OUTPUTS", "interval_name", "INTERVAL_NAMES"]


@dataclass(frozen=True)
class Section:
    """One section of a study's report.

    Attributes
    ----------
    name : str
    build : callable
        ``build(report, result)``: appends the section to ``report`` from ``result`` (a loaded
        :class:`~robustness.results.study_result.StudyResult`).
    """

    name: str
    build: Callable


#: Every study's sections, in the order its report shows them.
SECTIONS: dict[str, list[Section]] = {}
#: Every study's report title.
TITLES: dict[str, str] = {}
#: Files a study's report also writes besides summary.md and report.html: study -> ``fn(report) -> {name: text}``.
EXTRA_OUTPUTS: dict[str, Callable] = {}
#: The module that registers each built-in study's sections (imported on first use).
_MODULES = {"rank_convergence": "rank_convergence", "qa_rank_convergence": "qa", "table_rank_convergence": "table",
            "design_study": "design", "score": "scoring", "qa_score": "scoring", "calibration": "calibration"}


def register_study(study: str, title: str, *, extra_outputs: Callable | None = None) -> None:
    """Give ``study`` a report (its title; optionally more files than summary.md and report.html).

    Parameters
    ----------
    study : str
    title : str
    extra_outputs : callable, optional
        ``extra_outputs(report) -> {file name: text}``.
    """
    TITLES[study] = title
    SECTIONS.setdefault(study, [])
    if extra_outputs is not None:
        EXTRA_OUTPUTS[study] = extra_outputs


def register_section(study: str, build: Callable, *, name: str | None = None, before: str | None = None) -> Section:
    """Add a section to ``study``'s report (at the end, or before the section named ``before``).

    Parameters
    ----------
    study : str
    build : callable
        ``build(report, result)``.
    name : str, optional
        Default: the function's name.
    before : str, optional

    Returns
    -------
    Section
    """
    sections(study)  # the built-in sections first
    section = Section(name or build.__name__, build)
    listed = SECTIONS.setdefault(study, [])
    listed[:] = [s for s in listed if s.name != section.name]
    at = next((i for i, s in enumerate(listed) if s.name == before), len(listed))
    listed.insert(at, section)
    return section


def sections(study: str) -> list[Section]:
    """The sections of ``study``'s report, in order (importing the module that registers the built-in ones).

    Parameters
    ----------
    study : str

    Returns
    -------
    list of Section
    """
    if study in _MODULES:
        importlib.import_module(f"robustness.reporting.sections.{_MODULES[study]}")
    if study not in TITLES:
        raise ValueError(f"no report is registered for study {study!r}")
    return SECTIONS[study]


# -- what the sections share ------------------------------------------------------------------------------------

def strategy_label(name: str) -> str:
    """A gold strategy's name in prose, from the registry.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
        The registry's label (an unknown name as it is).
    """
    try:
        return get_strategy(name).label or name
    except ValueError:
        return name


#: Each score interval method in prose.
INTERVAL_NAMES = {"studentized": "studentized bootstrap (bootstrap-t with delta-method standard errors)",
                  "percentile": "percentile bootstrap", "bca": "BCa bootstrap"}


def interval_name(ci_table: pd.DataFrame) -> str:
    """The score interval(s) of bootstrap_ci.csv's reported rows, in prose.

    Parameters
    ----------
    ci_table : pandas.DataFrame
        Reported rows of bootstrap_ci.csv.

    Returns
    -------
    str
    """
    methods = list(dict.fromkeys(ci_table.method))
    if set(methods) == {"studentized", "percentile"}:
        # a run whose standard error is 0 (equal to the gold on every unit) has no t statistic: its percentile
        names = list(ci_table["run"]) if "run" in ci_table else list(ci_table.index)
        runs = list(dict.fromkeys(str(n) for n, m in zip(names, ci_table.method) if m == "percentile"))
        return (f"{INTERVAL_NAMES['studentized']}; percentile bootstrap for {', '.join(runs)} (its standard error "
                "is 0 on the test set or a resample, so no t statistic exists)")
    return " / ".join(INTERVAL_NAMES.get(m, m) for m in methods)


def ci(value: float, low: float, high: float, fmt: str = "{:.3f}") -> str:
    """A number with its 95% interval in prose.

    Parameters
    ----------
    value, low, high : float
    fmt : str
        How each number is printed.

    Returns
    -------
    str
        E.g. ``0.620 (95% CI 0.601 to 0.640)``; ``not estimable`` for a missing value, the value alone when its
        interval is missing (``0.620 (no interval)``), one number when the interval is a point.
    """

    def missing(x) -> bool:
        return x is None or (isinstance(x, float) and math.isnan(x))

    if missing(value):
        return "not estimable"
    if missing(low) or missing(high):
        return f"{fmt.format(value)} (no interval)"
    if fmt.format(low) == fmt.format(high) == fmt.format(value):
        return f"{fmt.format(value)} (95% CI: {fmt.format(value)} at both ends)"
    return f"{fmt.format(value)} (95% CI {fmt.format(low)} to {fmt.format(high)})"


def names(items: Iterable[str]) -> str:
    """Strategies in prose.

    Parameters
    ----------
    items : iterable of str
        Strategy names.

    Returns
    -------
    str
        ``a``, ``a and b``, ``a, b and c`` (their labels; the random single-annotator golds as one item).
    """
    items = list(items)
    drawn = [i for i in items if is_random(i)]
    items = [strategy_label(i) for i in items if not is_random(i)]
    if drawn:  # a random annotator is a draw, not a choice: one entry, however many draws
        items.append("one random annotator" + (f" ({len(drawn)} draws)" if len(drawn) > 1 else ""))
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
