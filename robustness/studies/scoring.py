"""The official scores of every run of a segmentation challenge (the ``score`` command)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robustness import seeds
from robustness.errors import options_with, parameter, summarise_notes
from robustness.overlap.checks import input_checks
from robustness.overlap.gold import resolve
from robustness.overlap.pixel_pass import OverlapOptions, compute_overlap
from robustness.results.study_result import StudyResult, Verdicts
from robustness.scheme import default_scheme
from robustness.statistics import leaderboard as score_tables

if TYPE_CHECKING:
    from robustness.io.challenge import Challenge
    from robustness.scheme import Scheme

__all__ = ["score", "ScoringOptions"]


@dataclass(frozen=True)
class ScoringOptions:
    """What :func:`score` scores.

    Attributes
    ----------
    strategies : tuple of str, optional
        Gold strategies (default: the registry's defaults).
    empty : str
        The both-empty policy (``official``: the official scorer's 0/0 = nan).
    seed : int
        Seed of the ``randN`` golds.
    primary : Scheme, optional
        The headline scheme, whose column sorts the leaderboard (default: :func:`robustness.scheme.default_scheme`
        of the strategies); recorded in meta.json.
    """

    strategies: tuple[str, ...] | None = None
    empty: str = "one"
    seed: int = 0
    primary: Scheme | None = None


def score(challenge: Challenge, options: ScoringOptions = ScoringOptions(), *, n_jobs: int = 1,
          cache_dir: Path | None = None, progress: bool = False, notes: Iterable[str] = (),
          source: str = "the challenge", **deprecated: Any) -> StudyResult:
    """Every run's score under every gold strategy, metric and averaging, and the official scorer's JSON per run.

    Parameters
    ----------
    challenge : Challenge
    options : ScoringOptions
    n_jobs : int
    cache_dir : path, optional
    progress : bool
    notes : iterable of str
        Warnings of the layers above.
    source : str
        The input in prose, for the report.
    **deprecated
        ``strategies``, ``empty``, ``seed``, ``primary``: the options one by one (deprecated: pass
        :class:`ScoringOptions`).

    Returns
    -------
    StudyResult
        ``leaderboard.csv`` and ``official/<run>.json`` (when the majority gold is scored).
    """
    options = options_with("score", options, deprecated)
    strategies, empty, seed, primary = options.strategies, options.empty, options.seed, options.primary
    chosen = resolve(None if strategies is None else list(strategies))
    set_by = "organiser" if primary is not None else "default"
    primary = primary or default_scheme([s.name for s in chosen])
    if primary.strategy not in [s.name for s in chosen]:  # refused before the pixel pass
        raise ValueError(f"{parameter('ScoringOptions', 'primary')} {primary.text}: its gold strategy "
                         f"{primary.strategy!r} is not among the strategies scored")
    over = [s.name for s in chosen if s.macro_only]
    counts = compute_overlap(challenge, strategies=[s.name for s in chosen if not s.macro_only],
                             n_jobs=n_jobs, cache_dir=cache_dir, progress=progress,
                             rng=seeds.stream(seed, "random_golds"),
                             boundary=(primary.metric,) if primary.boundary else (),
                             options=OverlapOptions(leave_one_out=False))
    found = input_checks(challenge, counts)
    files = {}
    if "majority" in counts.strategies:
        for run in counts.runs:
            files[f"official/{run.replace('/', '__')}.json"] = json.dumps(
                score_tables.official_results(counts, run, empty=empty), indent=4)
    board = score_tables.leaderboard(counts, empty=empty, annotators=over, primary=primary,
                                     boundary=(primary.metric,) if primary.boundary else ())
    return StudyResult("score", tables={"leaderboard.csv": board}, verdicts=Verdicts().frame(), files=files, meta={
        "empty_policy": empty, "primary": primary.to_meta() | {"set_by": set_by},
        "input": {"source": source, "fingerprint": counts.fingerprint, "images": challenge.n_images,
                                         "runs": challenge.n_runs},
        "warnings": list(notes) + list(challenge.notes) + summarise_notes(counts.notes) + found, "checks": found})
