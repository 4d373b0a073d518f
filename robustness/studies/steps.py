"""A study as a list of declared steps: what each needs, what it makes and which tables it writes.

A step is a function whose parameters name what it needs: the study's inputs, values made by earlier steps, or
``tables`` (every table written so far). It returns a dict of the values it makes and the tables it writes (names
ending in ``.csv`` or ``.parquet``, each registered in :data:`robustness.results.study_result.TABLES`).
:func:`check_steps` checks a list without running it (every need met by an input or an earlier step, nothing made
twice, every table registered); :func:`run_steps` runs the list in its order. A step marked ``background`` runs
beside the steps that follow it (:mod:`robustness.background`); its outputs are collected where a later step
needs them, or at the end.

Examples
--------
>>> def double(x):
...     return {"y": 2 * x}
>>> values, tables = run_steps([Step(double, makes=("y",))], {"x": 3})
>>> values["y"], tables
(6, {})
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from robustness import background
from robustness.progress import stage
from robustness.results.study_result import TABLES

__all__ = ["Step", "check_steps", "run_steps", "TABLES_SO_FAR"]

#: The need that stands for every table written by the earlier steps.
TABLES_SO_FAR = "tables"


def is_table(name: str) -> bool:
    """Whether an output name is a table file (``.csv`` or ``.parquet``).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    return name.endswith((".csv", ".parquet"))


@dataclass(frozen=True)
class Step:
    """One step of a study.

    Attributes
    ----------
    fn : callable
        The work; its parameters are the names of what it needs, and it returns a dict of what it makes and writes.
    makes : tuple of str
        The values it makes (every one is returned).
    writes : tuple of str
        The tables it may write (a conditional table may be absent from the returned dict).
    status : str, optional
        The status line's subject while it runs (a background step: while the study waits for it).
    background : bool
        Run beside the following steps (in a forked process when the study has two cores). Its inputs must not
        change after it starts, it may not need ``tables``, and it may not be handed a random generator (a forked
        copy would not advance this process's stream): otherwise its numbers would depend on ``n_jobs``.
    when : str, optional
        Run only where this value (an input or an earlier step's) is not None; otherwise every value it makes is
        None and it writes nothing.
    """

    fn: Callable[..., dict[str, Any]]
    makes: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    status: str | None = None
    background: bool = False
    when: str | None = None

    @property
    def name(self) -> str:
        """The step's name: its function's, without a leading underscore."""
        return self.fn.__name__.lstrip("_")

    @property
    def needs(self) -> tuple[str, ...]:
        """What the step needs: its function's parameter names."""
        return tuple(inspect.signature(self.fn).parameters)

    @property
    def requires(self) -> tuple[str, ...]:
        """What must be known before the step runs: its needs, and the value its ``when`` names."""
        return self.needs + ((self.when,) if self.when else ())


def check_steps(steps: Sequence[Step], given: Iterable[str], *, registered: Iterable[str] | None = None) -> None:
    """Check a list of steps without running it.

    Parameters
    ----------
    steps : sequence of Step
    given : iterable of str
        The names of the study's inputs.
    registered : iterable of str, optional
        The table names a step may write (default :data:`robustness.results.study_result.TABLES`).

    Raises
    ------
    ValueError
        A step needs what neither an input nor an earlier step makes; a value or a table is made twice; a step's
        ``writes`` holds a name that is not a registered table, or its ``makes`` one that is a table; a background
        step needs ``tables``.
    """
    tables = set(TABLES if registered is None else registered)
    known, written = set(given) | {TABLES_SO_FAR}, set[str]()
    for step in steps:
        missing = [n for n in step.requires if n not in known]
        if missing:
            raise ValueError(f"step {step.name!r} needs {missing}, which neither an input nor an earlier step makes")
        twice = sorted((set(step.makes) & known) | (set(step.writes) & written))
        if twice:
            raise ValueError(f"step {step.name!r} makes {twice} again")
        if step.background and TABLES_SO_FAR in step.needs:
            raise ValueError(f"step {step.name!r} runs in the background and needs `tables`: what it would see "
                             "would depend on n_jobs (a forked copy at its start, or every table at its collection)")
        wrong = [n for n in step.writes if n not in tables] + [n for n in step.makes if is_table(n)]
        if wrong:
            raise ValueError(f"step {step.name!r}: {wrong} must be registered tables in `writes` "
                             "(robustness.results.study_result.register_table) and values in `makes`")
        known |= set(step.makes)
        written |= set(step.writes)


def run_steps(steps: Sequence[Step], given: Mapping[str, Any], *, n_jobs: int = 1) -> tuple[dict, dict]:
    """Run a study's steps in order.

    Parameters
    ----------
    steps : sequence of Step
    given : mapping
        The study's inputs, by name.
    n_jobs : int
        The study's cores: above 1, a background step runs in a forked process beside the following ones.

    Returns
    -------
    (values, tables) : dict, dict
        The inputs and every value made; every table written, in the order written.

    Raises
    ------
    ValueError
        The list does not check (:func:`check_steps`), a step returned other than it declared, or a background
        step is handed a random generator.
    """
    check_steps(steps, given)
    values, tables = dict(given), dict[str, Any]()
    pending: dict[int, tuple[Step, background.Background]] = {}

    def collect(needs: Iterable[str]) -> None:
        for key, (step, job) in list(pending.items()):
            if TABLES_SO_FAR in needs or set(needs) & set(step.makes):
                del pending[key]
                if step.status is not None:
                    stage(step.status, printed=False)
                _take(step, job.result(), values, tables)

    for k, step in enumerate(steps):
        collect(step.requires)
        if step.when is not None and values[step.when] is None:
            values.update(dict.fromkeys(step.makes))
            continue
        if step.status is not None and not step.background:
            stage(step.status, printed=False)
        args = {n: tables if n == TABLES_SO_FAR else values[n] for n in step.needs}
        if step.background:
            if any(isinstance(v, np.random.Generator) for v in args.values()):
                raise ValueError(f"step {step.name!r} runs in the background with a random generator: a forked "
                                 "copy would not advance this process's stream, so the numbers would depend on n_jobs")
            pending[k] = (step, background.start(functools.partial(step.fn, **args), n_jobs=n_jobs))
        else:
            _take(step, step.fn(**args), values, tables)
    collect([TABLES_SO_FAR])
    return values, tables


def _take(step: Step, out: dict[str, Any], values: dict, tables: dict) -> None:
    """Put a step's returned values and tables in their places, refusing any it did not declare."""
    made = {n for n in out if not is_table(n)}
    extra = sorted((made - set(step.makes)) | {n for n in out if is_table(n) and n not in step.writes})
    if extra or made != set(step.makes):
        raise ValueError(f"step {step.name!r} returned {sorted(out)}; it declares makes={list(step.makes)}, "
                         f"writes={list(step.writes)}")
    for name, value in out.items():
        (tables if is_table(name) else values)[name] = value
