"""The commands' option types: each parses one option's text or refuses it with the reason (``argparse`` types).

A type raises ``argparse.ArgumentTypeError`` (or ``ValueError``) with one line naming what is wrong; the parser
(:class:`experiments._cli.Parser`) prints it as ``error: ...`` with exit status 2 before any work. Bounds are
stated in ``--help``. Nothing here imports numpy: ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

#: Upper bounds of the size options, checked when parsed and stated in --help. Memory and time grow with each:
#: rank convergence keeps an L1 curve per order (schemes x units float32: about 45 MB per 1,000 orders on the
#: default 314-image challenge), the bootstrap a statistic per resample (schemes x runs); intervals over orders
#: and resamples have long stopped moving at these counts (the defaults are 200 and 1,000).
MAX_ORDERS = 10_000


MAX_RESAMPLES = 20_000


#: --outer: each outer resample re-estimates the distance to unlimited data (a posterior per scheme, about 40 ms on
#: the default challenge); its standard deviation has long stopped moving at this count (the default is 200).
MAX_OUTER = 5_000


#: --step and --test-step: any step at or above the number of units is refused after loading; this bound keeps the
#: value a machine integer.
MAX_STEP = 1_000_000


#: Worker processes per CPU: beyond a few per core, forked workers only add memory (each holds a copy of the
#: process) and start-up time; --n-jobs is at most this many times os.cpu_count().
JOBS_PER_CPU = 4


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else ``os.cpu_count()``).

    The default ``--n-jobs`` of the resampling studies: the main job uses the cores it is given (issue 53); the
    numbers are the same for any ``--n-jobs``.
    """
    import os

    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # no affinity on this system (macOS, Windows)
        return os.cpu_count() or 1


def max_jobs() -> int:
    """The largest --n-jobs: :data:`JOBS_PER_CPU` x ``os.cpu_count()`` (8 on a 2-core machine)."""
    import os

    return JOBS_PER_CPU * (os.cpu_count() or 1)


def _type(name, convert, maximum=None):
    convert.__name__ = name
    convert.maximum = maximum
    return convert


def integer(minimum: int = 0, maximum: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type: an integer in ``minimum..maximum`` (the bound is stated in --help)."""
    want = f"an integer >= {minimum}" if maximum is None else f"an integer in {minimum}..{maximum}"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # also a string of more than 4300 digits
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            shown = text if len(text) <= 40 else text[:20] + f"... ({len(text)} characters)"
            raise argparse.ArgumentTypeError(f"must be {want}, got {shown!r}")
        return value

    return _type("integer", convert, maximum)


def jobs(text: str) -> int:
    """An ``argparse`` type: a number of worker processes, 1..:func:`max_jobs`."""
    return integer(1, max_jobs())(text)


def orders(text: str) -> int:
    """An ``argparse`` type: a number of random orders, 1..:data:`MAX_ORDERS`."""
    return integer(1, MAX_ORDERS)(text)


def resamples(text: str) -> int:
    """An ``argparse`` type: a number of bootstrap resamples, 1..:data:`MAX_RESAMPLES`."""
    return integer(1, MAX_RESAMPLES)(text)


def outer_resamples(text: str) -> int:
    """An ``argparse`` type: a number of outer resamples, 2..:data:`MAX_OUTER`."""
    return integer(2, MAX_OUTER)(text)


def step(text: str) -> int:
    """An ``argparse`` type: a step between recorded prefixes, 1..:data:`MAX_STEP`."""
    return integer(1, MAX_STEP)(text)


def number(minimum: float = 0.0, maximum: float | None = None) -> Callable[[str], float]:
    """An ``argparse`` type: a finite number in ``minimum..maximum``."""
    want = f"a number >= {minimum:g}" if maximum is None else f"a number in {minimum:g}..{maximum:g}"

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= minimum and (maximum is None or value <= maximum)):
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}")
        return value

    return _type("number", convert, maximum)


def positive() -> Callable[[str], float]:
    """An ``argparse`` type: a finite number above 0."""

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
        return value

    return _type("positive", convert)


def _items(text: str, what: str) -> list[str]:
    """A comma-separated list's items; an empty one (two commas, one at an end) is refused, not dropped."""
    items = text.split(",")
    if not any(item.strip() for item in items):
        return []  # nothing given: the caller says so
    if any(not item.strip() for item in items):
        raise argparse.ArgumentTypeError(f"an empty {what} in {text!r} (two commas, or one at an end)")
    return items


def strategy_list(text: str) -> str:
    """An ``argparse`` type: a comma-separated list of gold strategies the registry knows (kept as text).

    At least one of them must have pixel counts (``mean`` and ``max`` alone leave no gold to count against).
    """
    from robustness.overlap.gold import resolve

    try:
        chosen = resolve(_items(text, "gold strategy"), macro_only="keep")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if all(s.macro_only for s in chosen):
        raise argparse.ArgumentTypeError(
            f"{', '.join(s.name for s in chosen)} average each run's scores over the annotators per image (macro "
            "only): add a gold with pixel counts, e.g. majority,mean")
    return text


def output_folder(text: str) -> str:
    """An ``argparse`` type: a folder that exists or can be created (checked without creating anything)."""
    from robustness.results.folder import check_output_folder

    try:
        check_output_folder(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def existing_file(text: str) -> str:
    """An ``argparse`` type: a regular file that exists.

    A FIFO or a device is refused (it would block or never end), said as what it is, never as 'not found'.
    """
    from robustness.errors import InputError
    from robustness.files import open_regular

    try:
        open_regular(text).close()
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def scheduler_address(text: str) -> str:
    """An ``argparse`` type: ``local`` (dask installed) or the TCP address of a Dask scheduler.

    The scheduler must greet within :data:`robustness.parallel.SCHEDULER_TIMEOUT` seconds; other transports are
    refused.
    """
    import importlib.util

    from robustness.parallel import SCHEDULER_TIMEOUT, check_scheduler

    if importlib.util.find_spec("distributed") is None:
        raise argparse.ArgumentTypeError("Dask is not installed (pip install 'dask[distributed]')")
    if text == "local":
        return text
    try:
        check_scheduler(text, timeout=SCHEDULER_TIMEOUT)
    except ValueError as exc:  # InputError included
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def spacing_list(text: str) -> tuple[float, float, float]:
    """``--synthetic-spacing``: three positive voxel sizes, z,y,x."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or not all(v > 0 and math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected three positive voxel sizes z,y,x in mm such as 2.5,0.8,0.8; "
                                         f"got {text!r}")
    return values


def empty_distance(text: str) -> str | float:
    """``--empty-distance``: ``diagonal`` or a finite distance >= 0.

    ``nan`` and ``inf`` (the library's other conventions) would leave a run's mean undefined or infinite: a
    leaderboard cannot rank by them.
    """
    from robustness.overlap.boundary import MAX_EMPTY_DISTANCE, conventions

    try:
        value = conventions(empty_distance=text)["empty_distance"]
    except ValueError as exc:
        if "at most" in str(exc):
            raise argparse.ArgumentTypeError(f"expected diagonal or a distance from 0 to at most "
                                             f"{MAX_EMPTY_DISTANCE:g}, got {text[:60]!r}") from None
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value != "diagonal" and (isinstance(value, str) or not math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected diagonal or a finite distance >= 0, got {text!r}: nan and inf "
                                         "leave a run's mean undefined or infinite, so no leaderboard ranks by them")
    return value


def lesion_size(text: str) -> str:
    """``--min-lesion-size``: a whole number of voxels (``8``, ``8voxels``) or a volume (``2.5mm3``), spelled out."""
    from robustness.overlap.lesions import lesion_size as parse

    try:
        amount, unit = parse(text)
    except ValueError as exc:
        # argparse names the option: "min_lesion_size must be X" reads "expected X", "min_lesion_size: X" reads "X"
        said = str(exc).replace("min_lesion_size must be ", "expected ", 1).replace("min_lesion_size: ", "", 1)
        raise argparse.ArgumentTypeError(said) from None
    return f"{amount:g} {unit}"


def boundary_list(text: str) -> tuple[str, ...]:
    """``--boundary``: boundary metric names (``nsd@2,hd95,assd``), each known, none twice."""
    from robustness.overlap.boundary import boundary_metric

    try:  # one spelling per metric: nsd@2.0 is nsd@2
        names = tuple(boundary_metric(v.strip()).name for v in _items(text, "boundary metric"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not names or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"expected distinct boundary metrics such as nsd@2,hd95,assd; got {text!r}")
    return names


def scheme_text(text: str) -> str:
    """``--primary``: ``STRATEGY:METRIC:AVERAGING`` naming registered entries.

    Checked here, built by :func:`primary_scheme` once the layout is known.
    """
    from robustness.scheme import Scheme

    try:
        return Scheme.parse(text).text
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def label_list(text: str) -> str | tuple[int, ...]:
    """``--labels``: ``all`` or distinct whole numbers >= 1, comma-separated."""
    if text == "all":
        return text
    try:
        labels = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'all' or labels such as 1,2; got {text!r}") from None
    if not labels or min(labels) < 1 or len(set(labels)) != len(labels):
        raise argparse.ArgumentTypeError(f"labels must be distinct whole numbers >= 1 (0 is the background), "
                                         f"got {text!r}")
    return labels


def region_item(text: str) -> tuple[str, tuple[int, ...]]:
    """``--regions``: one ``NAME=L1,L2,..`` (a name of letters, digits, ``_`` or ``-``; distinct labels >= 1)."""
    name, sep, values = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise argparse.ArgumentTypeError(f"expected NAME=L1,L2,.. such as WT=1,2,4; got {text!r}")
    try:
        labels = tuple(int(v) for v in values.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=L1,L2,.. such as WT=1,2,4; got {text!r}") from None
    if not labels or min(labels) < 1 or len(set(labels)) != len(labels):
        raise argparse.ArgumentTypeError(f"region {name}: labels must be distinct whole numbers >= 1 (0 is the "
                                         f"background), got {values!r}")
    return name, labels


def shown_number(value: int) -> str:
    """A whole number for a message, its digits counted when it is very long."""
    text = str(value)
    return text if len(text) <= 20 else f"{text[:12]}... ({len(text)} digits)"
