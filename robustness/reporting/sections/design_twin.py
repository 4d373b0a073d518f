"""The design study's report, its twin: the fit table, a failed fit said first, the resolution beside the main job's.

The sections and bullets of :mod:`robustness.reporting.sections.design` that speak of the twin itself (a
design study's ``fit.csv``, meta.json's ``fit``, and the verdict ``twin_resolution``).
"""

from __future__ import annotations

from robustness.errors import parameter
from robustness.reporting.document import Report
from robustness.reporting.findings import phrase
from robustness.reporting.sections.registry import strategy_label
from robustness.results.meta import DesignMeta
from robustness.results.study_result import StudyResult
from robustness.scheme import DEFAULT, metric_label
from robustness.simulation.twin import fit_failures
from robustness.statistics.size_answers import unit_name

__all__ = ["fit_section", "failed_fit", "failed_fit_bullets", "resolution_bullet"]


def _unit(res: StudyResult) -> str:
    """The test-set unit in the data's words (the design study's base)."""
    return unit_name(DesignMeta.of(res).base)


def fit_section(r: Report, res: StudyResult) -> None:
    """The real challenge beside its twin (with ``--like``): fit.csv, with what the twin is made of.

    Parameters
    ----------
    r : Report
        The report the section is written into.
    res : StudyResult
        The design study's results folder.
    """
    if not res.has("fit.csv"):
        return
    images = DesignMeta.of(res).base.get("world") == "image twin"
    r.heading("The challenge and its twin")
    if images:
        r.paragraph("The twin is made of the challenge's own images (robustness.synthetic.image_twin): each image's "
                    "truth is its gold annotators' majority vote, and the simulated annotators and runs are fitted "
                    "image by image to the real ones' false positives and negatives near the truth, with the "
                    "annotators' and the run effects' scales fitted to their agreement and separability "
                    "(robustness.simulation.image_fit). Its statistics, measured on the challenge's images with "
                    "twin masks, beside the challenge's: the objects are the real ones, so their size is checked "
                    "within 10%.")
    else:
        r.paragraph(f"The generator was fitted to the challenge given as {parameter('prepare', 'challenge')} (its "
                    "agreement, run skill range and bias, within-encounter correlation, object sizes; see "
                    "robustness.simulation.twin); its statistics beside the challenge's.")
    r.paragraph("The runs' separability (how far apart their scores are against their noise) and the main job's "
                "distance to unlimited data at the challenge's size are checked too: they decide the size answer. "
                "A row 'not checked' is not a pass; 'copied' is structure set, not fitted; 'set' a parameter of the "
                "twin (fitted or measured), not a check.")
    table = res.table("fit.csv").copy()
    if _unit(res) != "encounter":  # one image per encounter: the encounters are the images
        table = table[~table.statistic.isin(["encounters", "images per encounter",
                                             "within-encounter ICC of per-image Jaccard"])]
    table["within"] = [_within(w) for w in table.within]
    r.table(table, floatfmt="{:.3f}")


def _within(value) -> str:
    """A fit row's verdict in words: yes, no, or not checked (an empty cell)."""
    text = str(value).strip().lower()
    return {"true": "yes", "false": "no"}.get(text, "not checked")


def failed_fit(res: StudyResult) -> list[str]:
    """The statistics a design study's twin failed (planned with ``--force``); empty where its fit passed.

    Parameters
    ----------
    res : StudyResult
        A design study's results (meta.json's ``fit``; folders written before it: their fit.csv).

    Returns
    -------
    list of str
    """
    fit = res.meta.get("fit")
    if isinstance(fit, dict) and isinstance(fit.get("failed"), list):
        return [str(x) for x in fit["failed"]]
    if res.has("fit.csv"):
        return fit_failures(res.table("fit.csv"))
    return []


def failed_fit_bullets(res: StudyResult) -> list[str]:
    """The first bullet where the twin failed its fit: every answer below is about a challenge unlike this one.

    Parameters
    ----------
    res : StudyResult

    Returns
    -------
    list of str
        One bullet, or none where the fit passed.
    """
    failed = failed_fit(res)
    if not failed:
        return []
    return [f"**The twin failed its fit** (planned anyway with {parameter('prepare', 'force')}=True): "
            f"{'; '.join(failed)} (fit.csv). Every answer below is about a simulated challenge unlike this one; none "
            "is compared with the main job's."]


def resolution_bullet(res: StudyResult, unit: str) -> str | None:
    """The twin's resolution at the challenge's size beside the main job's on the real data (``twin_resolution``).

    Parameters
    ----------
    res : StudyResult
    unit : str
        The test-set unit.

    Returns
    -------
    str or None
        None without the verdict.
    """
    found = res.verdict("twin_resolution")
    if not found:
        return None
    v = found[0]
    main, main_low, main_high, n = (float(x) for x in v["subject"])
    said = phrase("twin_resolution", "compared", v, unit=unit, n=n, main=main, main_low=main_low, main_high=main_high,
                  scheme=f"{strategy_label(DEFAULT.strategy)}, {DEFAULT.average} {metric_label(DEFAULT.metric)}")
    if v["statement"] == "not_compared":
        return said + phrase("twin_resolution", "not_compared")
    if v["statement"] == "overlap":
        return said + phrase("twin_resolution", "overlap")
    return said + phrase("twin_resolution", "disagree")
