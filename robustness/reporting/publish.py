"""Publishing a study: its tables, figures, report and ``meta.json`` in a results folder, as the commands do.

:func:`publish` is the one way a :class:`~robustness.results.study_result.StudyResult` becomes a results
folder; every command calls it after parsing its options and running its study, and the Python API calls it
directly (docs/python-api.md), so both write the same folder. The folder is staged and replaced only when it is
complete (:class:`~robustness.results.folder.ResultsDir`): ``meta.json`` is written last, and a failure
leaves the earlier results in place.

The library draws no figure itself and imports no application code: the figures are drawn by a drawer given as
``figures``, or else by the one the installed application declares as an entry point of the group
:data:`FIGURE_GROUP` (the repository's ``figures`` package: ``figures = "figures:make_all"`` in pyproject.toml).
The commands pass theirs explicitly.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from typing import Any

from robustness.errors import deprecated_keywords
from robustness.progress import stage
from robustness.reporting.report import build, outputs
from robustness.results.folder import ResultsDir, versions
from robustness.results.study_result import StudyResult
from robustness.scheme import from_meta

__all__ = ["FIGURE_GROUP", "figure_drawer", "publish", "Provenance"]

#: The entry-point group where an application declares its figure drawer (see :func:`figure_drawer`).
FIGURE_GROUP = "robustness.figures"


def figure_drawer() -> Callable[..., list]:
    """The figure drawer the installed application declares (entry point ``figures`` of :data:`FIGURE_GROUP`).

    A drawer is called as ``draw(folder, study=..., primary=..., meta=..., n_jobs=...)`` and returns the paths of
    the figures it wrote (the repository's ``figures.make_all``).

    Returns
    -------
    callable

    Raises
    ------
    LookupError
        No installed package declares one (the package was not installed with ``pip install -e .``, or its
        figures are not part of it): pass the drawer as :func:`publish`'s ``figures``, or ``figures=False``.
    """
    found = [e for e in entry_points(group=FIGURE_GROUP) if e.name == "figures"]
    if not found:
        raise LookupError(f"no figure drawer is installed (entry point 'figures' of group {FIGURE_GROUP!r}): "
                          "pass the drawer as figures= or figures=False")
    return found[0].load()


@dataclass(frozen=True)
class Provenance:
    """How the results were made, as ``meta.json`` records it (:func:`publish`).

    Attributes
    ----------
    command : str, optional
        The command line that ran the study, for ``meta.json`` and the report (default: the study's command
        without options).
    parameters : dict
        The command's options as given (reports never read them).
    seed : int, optional
    started : float, optional
        ``time.time()`` when the work started (``meta.json``'s ``wall_time_s``; default: when publishing starts).
    meta : dict
        More fields for ``meta.json`` (they win over the study's).
    fingerprint : str, optional
        The input's identity, which opens a results folder given as a path (default:
        ``result.meta["input"]["fingerprint"]``).
    """

    command: str | None = None
    parameters: dict = field(default_factory=dict)
    seed: int | None = None
    started: float | None = None
    meta: dict = field(default_factory=dict)
    fingerprint: str | None = None


def publish(result: StudyResult, out: ResultsDir | str | os.PathLike, *,
            figures: bool | Callable[..., list] = True, force: bool = False, provenance: Provenance = Provenance(),
            pdf: bool = False, n_jobs: int = 1, spell: Callable[[str], str] | None = None, **deprecated: Any) -> str:
    """Save ``result``'s tables into ``out``, draw its figures, build its report and finish the folder.

    Parameters
    ----------
    result : StudyResult
    out : ResultsDir or path
        The results folder (a path: opened with ``provenance.fingerprint`` and ``force``,
        :class:`~robustness.results.folder.ResultsDir`).
    figures : bool or callable
        Draw the study's figures: True with the installed drawer (:func:`figure_drawer`, looked up before anything
        is written), or with the drawer given; False draws none.
    force : bool
        Overwrite a folder holding another input's results, when ``out`` is a path.
    provenance : Provenance
        How the results were made (the command, its options, the seed, the start, more meta.json fields, the
        input's fingerprint).
    pdf : bool
        Also ``report.pdf``, the report as a printable document (:mod:`robustness.reporting.pdf`).
    n_jobs : int
        Processes drawing the figures side by side (the files do not depend on it).
    spell : callable, optional
        How the report names the library's parameters (a command: its options,
        :func:`robustness.reporting.report.build`); meta.json keeps the library's names.
    **deprecated
        ``fingerprint``, ``command``, ``parameters``, ``seed``, ``started``, ``meta`` (deprecated: pass them in
        ``provenance``) and ``draw`` (deprecated: pass the drawer as ``figures``).

    Returns
    -------
    str
        The report as Markdown.
    """
    legacy = deprecated_keywords("publish", deprecated, (*_PROVENANCE, "draw"), "provenance=Provenance(...) and "
                                                                                "figures=drawer")
    draw = legacy.pop("draw", None) or (figures if callable(figures) else None)
    provenance = replace(provenance, **{k: v for k, v in legacy.items() if v is not None})
    command, seed, started, fingerprint = (provenance.command, provenance.seed, provenance.started,
                                           provenance.fingerprint)
    if figures and draw is None:
        draw = figure_drawer()  # before any write: a missing drawer leaves the folder as it was
    if not isinstance(out, ResultsDir):
        if fingerprint is None:
            fingerprint = result.meta.get("input", {}).get("fingerprint")
        if fingerprint is None:
            raise ValueError(f"{result.study}: the study's meta holds no input fingerprint: give fingerprint=")
        out = ResultsDir(out, fingerprint=str(fingerprint), force=force)
    started = time.time() if started is None else started
    stage("writing the tables", printed=False)
    result.save(out, n_jobs=n_jobs)
    if figures and draw is not None:
        stage("drawing the figures", printed=False)

        primary = from_meta(result.meta) if "primary" in result.meta else None
        out.written.extend(str(p.relative_to(out.staging))
                           for p in draw(out.staging, study=result.study, primary=primary,
                                             meta=dict(result.meta, study=result.study), n_jobs=n_jobs))
    full: dict[str, Any] = {"study": result.study, "command": command or f"python -m experiments.{result.study}",
                            "parameters": provenance.parameters, "seed": seed, **result.meta, **provenance.meta,
                            "versions": versions()}
    full["warnings"] = list(full.get("warnings", []))
    stage("writing the report", printed=False)
    report = build(out.staging, meta=full, spell=spell)
    for name, text in outputs(report, out.staging, result.study, pdf=pdf).items():
        if isinstance(text, bytes):
            out.write_bytes(name, text)
        else:
            out.write_text(name, text)
    out.finish(dict(full, wall_time_s=round(time.time() - started, 2)))
    return report.to_markdown()


_PROVENANCE = ("fingerprint", "command", "parameters", "seed", "started", "meta")  # publish's keywords before it
