"""The design study's grid, run resumably: every population's pool and every replicate is kept as it finishes.

:func:`run_grid` simulates every setting of a grid in seeded replicates
(:func:`robustness.simulation.design.simulate`), each replicate scored against
the population ranking of its run population (:func:`~robustness.simulation.design.population_scores`,
one pool per population, shared by the settings with the same runs). Each part is
written atomically under ``cache_dir`` as soon as it is done, so an interrupted
grid resumes where it stopped. A part that cannot be read back (a damaged or
truncated file, another format) is computed again, with a note; it is never
trusted and never stops the grid. Results do not depend on ``n_jobs``: every part
draws from its own named streams (:mod:`robustness.seeds`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from robustness.files import atomic_write, remove_stale_temporaries
from robustness.parallel import progress_bar, run_batches
from robustness.simulation.design import (
    DesignOptions,
    NewPopulations,
    Setting,
    population_scores,
    simulate,
    simulate_new_population,
    simulate_size,
)
from robustness.simulation.worlds import RunPopulation, World

__all__ = ["Grid", "GridRun", "run_grid", "run_size", "run_new_populations"]


@dataclass(frozen=True)
class Grid:
    """The settings of a design study.

    Attributes
    ----------
    sizes : list of int
        Test-set sizes in encounters (nested within a replicate).
    annotators, agreement, spread, runs, correlation : list
        The values of each setting's dimensions.
    replicates : int
    populations : int
        Run populations the replicates cycle through.
    """

    sizes: list
    annotators: list
    agreement: list
    spread: list
    runs: list
    correlation: list
    replicates: int
    populations: int

    def settings(self) -> list[Setting]:
        """Every setting except the agreement levels and sizes, which each replicate runs in turn.

        Returns
        -------
        list of Setting
            Each at the grid's first agreement level.
        """
        return [Setting(annotators=k, agreement=float(self.agreement[0]), spread=s, runs=r, correlation=c)
                for k in self.annotators for s in self.spread for r in self.runs for c in self.correlation]

    def as_dict(self) -> dict:
        """The grid as plain lists (meta.json, the report).

        Returns
        -------
        dict
        """
        return {"sizes": list(self.sizes), "annotators": list(self.annotators), "agreement": list(self.agreement),
                "spread": list(self.spread), "runs": list(self.runs), "correlation": list(self.correlation),
                "replicates": self.replicates, "populations": self.populations}


@dataclass(frozen=True)
class GridRun:
    """What every part of one design study's simulations shares: its world, grid, options, seed and cache folder."""

    base: World
    grid: Grid
    options: DesignOptions
    seed: int
    cache_dir: Path


def _population_of(pools: dict, setting: Setting, replicate: int, populations: int) -> RunPopulation:
    """The run population replicate ``replicate`` scores: ``replicate % populations``, with the setting's runs."""
    number = replicate % populations
    return RunPopulation(number, pools[((setting.spread, setting.runs, setting.correlation), number)])


def _read_pool(path: Path, notes: list):
    try:
        data = json.loads(path.read_bytes())
        return {tuple(k.split("|")): np.array(v, dtype=np.float64) for k, v in data.items()}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        notes.append(f"{path}: damaged design-study cache ({type(exc).__name__}); computed again")
        return None


def _read_parts(paths: list, notes: list):
    """The parquet tables of one cached part, or None when one is missing or cannot be read (noted: not trusted)."""
    if not all(p.exists() for p in paths):
        return None
    try:
        return [pd.read_parquet(p) for p in paths]
    except Exception as exc:  # any reader error: the part is not trusted
        notes.append(f"{paths[0]}: damaged design-study cache ({type(exc).__name__}); computed again")
        return None


def _read_replicate(path: Path, notes: list):
    found = _read_parts([path, path.with_suffix(".coverage.parquet")], notes)
    return None if found is None else tuple(found)


def _pool(base, setting, sizes, population, seed, options):
    return population_scores(base, setting, sizes, population, seed=seed, options=options)


def _replicate(base, setting, agreements, sizes, replicate, keywords):
    """One batch of the grid: :func:`simulate` with its keyword arguments (population, seed, options) as one dict."""
    return simulate(base, setting, agreements, sizes, replicate, **keywords)


def _size_replicate(base, setting, size, replicate, keywords):
    """One batch of the size search: :func:`simulate_size` with its keyword arguments as one dict."""
    return simulate_size(base, setting, size, replicate, **keywords)


def run_size(study: GridRun, setting: Setting, size: int, *, pools: dict, strategies: list | None = None,
             n_jobs: int = 1, progress: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """The grid's ``replicates`` test sets of ``size`` encounters at one setting (the size search beyond the grid).

    Resumable: each test set is kept under ``study.cache_dir`` as it finishes.

    Parameters
    ----------
    study : GridRun
        Replicate ``r`` scores population ``r % study.grid.populations``.
    setting : Setting
    size : int
    pools : dict
        :func:`run_grid`'s population scores, by ``(spread, runs, correlation)`` and population.
    strategies : list of str, optional
    n_jobs : int
    progress : bool

    Returns
    -------
    (rows, notes) : DataFrame, list of str
    """
    parts = Path(study.cache_dir)
    parts.mkdir(parents=True, exist_ok=True)
    path_of = {r: parts / f"size-{setting.key}-n{size}-r{r}.parquet" for r in range(study.grid.replicates)}
    return _resumed(_size_replicate, path_of, lambda r: (study.base, setting, size, r, dict(
        population=_population_of(pools, setting, r, study.grid.populations), seed=study.seed,
        options=study.options, strategies=strategies)),
                    what=f"test sets of {size}", unit="replicate", n_jobs=n_jobs, progress=progress)


def _resumed(fn: Callable[..., pd.DataFrame], path_of: dict, batch_of: Callable[[Any], tuple], *, what: str,
             unit: str, n_jobs: int, progress: bool) -> tuple[pd.DataFrame, list[str]]:
    """Every part of ``path_of`` (in its order): read where kept, else ``fn(*batch_of(key))``, kept as it finishes.

    A part that cannot be read back is computed again, with a note. Returns the parts concatenated and the notes.
    """
    notes: list[str] = []
    done = {}
    for k, path in path_of.items():
        found = _read_parts([path], notes)
        if found is not None:
            done[k] = found[0]
    todo = [k for k in path_of if k not in done]
    bar = progress_bar(progress, len(todo), what, unit=unit)
    for k, rows in zip(todo, run_batches(fn, [batch_of(k) for k in todo], n_jobs=n_jobs, progress=bar)):
        atomic_write(path_of[k], partial(_write_parquet, rows))
        done[k] = rows
    return pd.concat([done[k] for k in path_of], ignore_index=True), notes


def _new_population_set(base, plan: NewPopulations, seed, options, test_set, population_index, pool):
    return simulate_new_population(base, plan, test_set, population=RunPopulation(population_index, pool), seed=seed,
                                   options=options)


def run_new_populations(base: World, grid: Grid, plan: NewPopulations, *, options: DesignOptions, seed: int,
                        cache_dir: Path | str, n_jobs: int = 1,
                        progress: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """Test sets of run populations a design study never drew: their own distances to their population ranking.

    Each population ``p`` of ``plan`` gets its pool as the study's populations do (:func:`run_grid`'s, at
    ``grid``'s sizes) and ``plan.test_sets`` test sets, test set ``j`` of the largest size from the streams
    ``new_population_*`` ``(p, j)`` and the smaller sizes its first encounters
    (:func:`~robustness.simulation.design.simulate_new_population`). Resumable like :func:`run_size`.

    Parameters
    ----------
    base : SyntheticConfig
    grid : Grid
        The study's grid (its sizes set the populations' pools as they set the study's).
    plan : NewPopulations
    options : DesignOptions
    seed : int
    cache_dir : path
    n_jobs : int
    progress : bool

    Returns
    -------
    (rows, notes) : DataFrame, list of str
        :func:`~robustness.simulation.design.simulate_new_population`'s rows (``replicate`` is the test set
        ``j``).
    """
    parts = Path(cache_dir)
    parts.mkdir(parents=True, exist_ok=True)
    pools, notes = _population_pools(base, grid, parts, seed, options, n_jobs=n_jobs, progress=progress,
                                     populations=plan.populations)
    setting = plan.setting
    key = (setting.spread, setting.runs, setting.correlation)
    sizes = "-".join(str(int(n)) for n in sorted(plan.sizes))
    path_of = {(p, j): parts / f"new-{setting.key}-p{p}-t{j}-n{sizes}.parquet"
               for p in plan.populations for j in range(plan.test_sets)}
    rows, more = _resumed(_new_population_set, path_of, lambda job: (base, plan, seed, options, job[1], job[0],
                                                                     pools[(key, job[0])]),
                          what="new run populations' test sets", unit="test set", n_jobs=n_jobs, progress=progress)
    return rows, notes + more


def _write_parquet(frame: pd.DataFrame, f) -> None:
    frame.to_parquet(f, index=False)


def _write_pool(scores: dict, f) -> None:
    f.write(json.dumps({"|".join(k): v.tolist() for k, v in scores.items()}).encode())


def _population_pools(base: World, grid: Grid, parts: Path, seed: int, options: DesignOptions, *, n_jobs: int,
                      progress: bool, populations: Iterable[int] | None = None) -> tuple[dict, list[str]]:
    """The population pools of every ``(spread, runs, correlation)`` of ``grid`` and population, and notes.

    The grid's populations, or ``populations``. Read from ``parts`` where kept, computed (and kept) otherwise; what
    happened to a damaged part goes to the notes.
    """
    settings = grid.settings()
    notes: list[str] = []
    pools: dict = {}
    todo: list[tuple[tuple[float, int, float], int, Path]] = []
    for key in sorted({(s.spread, s.runs, s.correlation) for s in settings}):
        for p in (range(grid.populations) if populations is None else populations):
            path = parts / f"pool-{key[0]:g}-{key[1]}-{key[2]:g}-p{p}.json"
            found = _read_pool(path, notes)
            if found is None:
                todo.append((key, p, path))
            else:
                pools[(key, p)] = found
    batches = [(base, Setting(settings[0].annotators, settings[0].agreement, key[0], key[1], key[2]), grid.sizes,
                p, seed, options) for key, p, _ in todo]
    bar = progress_bar(progress, len(batches), "population pools", unit="pool")
    for (key, p, path), scores in zip(todo, run_batches(_pool, batches, n_jobs=n_jobs, progress=bar)):
        pools[(key, p)] = scores
        atomic_write(path, partial(_write_pool, scores))
    return pools, notes


def run_grid(base: World, grid: Grid, options: DesignOptions, *, seed: int, cache_dir: Path | str,
             n_jobs: int = 1, progress: bool = False,
             say: Callable | None = None) -> tuple[pd.DataFrame, pd.DataFrame, list[str], dict]:
    """Every replicate of every setting of ``grid`` around the generator parameters ``base``.

    Parameters
    ----------
    base : SyntheticConfig
    grid : Grid
    options : DesignOptions
    seed : int
    cache_dir : path
        Where the parts are kept (one folder per grid and seed is the caller's choice).
    n_jobs : int
    progress : bool
    say : callable, optional
        Prints progress lines.

    Returns
    -------
    (design, coverage, notes, pools) : DataFrame, DataFrame, list of str, dict
        ``simulate``'s rows of every replicate, what happened to the cache (parts computed again), and the
        population scores by ``(spread, runs, correlation)`` and population (:func:`run_size` takes them).
    """

    def quiet(*lines: str) -> None:
        return None

    say = say or quiet
    parts = Path(cache_dir)
    parts.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(parts)
    settings = grid.settings()
    pools, notes = _population_pools(base, grid, parts, seed, options, n_jobs=n_jobs, progress=progress)
    jobs = [(s, r) for s in settings for r in range(grid.replicates)]
    path_of = {(s.key, r): parts / f"{s.key}-r{r}.parquet" for s, r in jobs}
    done: dict = {}
    for s, r in jobs:
        found = _read_replicate(path_of[(s.key, r)], notes)
        if found is not None:
            done[(s.key, r)] = found
    pending = [(s, r) for s, r in jobs if (s.key, r) not in done]
    if len(pending) < len(jobs):
        say(f"resuming: {len(jobs) - len(pending)} of {len(jobs)} replicates already done")
    replicates = [(base, s, grid.agreement, grid.sizes, r, dict(
        population=_population_of(pools, s, r, grid.populations), seed=seed, options=options)) for s, r in pending]
    bar = progress_bar(progress, len(replicates), "replicates", unit="replicate")
    for (s, r), (rows, cov) in zip(pending, run_batches(_replicate, replicates, n_jobs=n_jobs, progress=bar)):
        path = path_of[(s.key, r)]
        for frame, target in ((cov, path.with_suffix(".coverage.parquet")), (rows, path)):
            atomic_write(target, partial(_write_parquet, frame))
        done[(s.key, r)] = (rows, cov)
    design = pd.concat([done[(s.key, r)][0] for s, r in jobs], ignore_index=True)
    coverage = pd.concat([done[(s.key, r)][1] for s, r in jobs], ignore_index=True)
    return design, coverage, notes, pools
