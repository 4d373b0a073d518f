"""Shared command-line plumbing: the parser convention, option checks, the data options, loading, warnings.

Every command refuses a bad option before any work or any write with one line
``error: <what is wrong>`` on stderr and exit status 2 (the same as bad input
data). Whatever a loader skipped, repaired or guessed is printed as
``warning: ...`` lines and returned so that the studies list it in
``summary.md`` and ``meta.json``.
"""

from __future__ import annotations

import argparse
import math
import sys

# -- the parser -------------------------------------------------------------------------------------------------

class _Help(argparse.HelpFormatter):
    """Appends ``(default X)`` to every option whose help does not already state its default."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default {action.default})".strip()


class Parser(argparse.ArgumentParser):
    """``argparse`` with the package's convention: one line ``error: ...``, exit status 2.

    ``checks`` are callables ``check(args)`` run after parsing; they raise
    ``ValueError`` (or :class:`~robustness.errors.InputError`) with the message.
    """

    def __init__(self, *args, **kw):
        kw.setdefault("formatter_class", _Help)
        super().__init__(*args, **kw)
        self.checks: list = []

    def error(self, message):
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(2)

    def parse_args(self, args=None, namespace=None):
        ns = super().parse_args(args, namespace)
        for check in self.checks:
            try:
                check(ns)
            except ValueError as exc:
                self.error(str(exc))
        return ns


def _type(name, convert):
    convert.__name__ = name
    return convert


def integer(minimum: int = 0, maximum: int | None = None):
    """An ``argparse`` type: an integer in ``minimum..maximum``."""
    want = f"an integer >= {minimum}" if maximum is None else f"an integer in {minimum}..{maximum}"

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}")
        return value

    return _type("integer", convert)


def number(minimum: float = 0.0):
    """An ``argparse`` type: a finite number >= ``minimum``."""

    def convert(text):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= minimum):
            raise argparse.ArgumentTypeError(f"must be a number >= {minimum:g}, got {text!r}")
        return value

    return _type("number", convert)


def strategy_list(text):
    """An ``argparse`` type: a comma-separated list of gold strategies the registry knows (kept as text)."""
    from robustness.overlap.gold import resolve

    try:
        resolve([s for s in text.split(",") if s])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def output_folder(text):
    """An ``argparse`` type: a folder that exists or can be created (checked without creating anything)."""
    from robustness.reporting.results import check_output_folder

    try:
        check_output_folder(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def existing_file(text):
    """An ``argparse`` type: a file that exists."""
    import os

    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"{text}: file not found")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text}: is a folder, not a file")
    return text


def scheduler_address(text):
    """An ``argparse`` type: ``local`` (dask installed) or the address of a Dask scheduler that answers now."""
    import importlib.util
    import socket

    if importlib.util.find_spec("distributed") is None:
        raise argparse.ArgumentTypeError("Dask is not installed (pip install 'dask[distributed]')")
    if text == "local":
        return text
    rest = text.split("://", 1)[1] if "://" in text else text
    if "://" in text and not text.startswith(("tcp://", "tls://")):
        return text  # other transports (ucx, inproc): Dask itself says when they fail
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text}: expected HOST:PORT, tcp://HOST:PORT or 'local'")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=3).close()
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"no Dask scheduler answers at {text} ({exc.strerror or type(exc).__name__})") from None
    return text


# -- data options -----------------------------------------------------------------------------------------------

def add_data_options(p: Parser) -> None:
    g = p.add_argument_group("input (default: the embedded synthetic challenge)")
    g.add_argument("--data", metavar="PATH",
                   help="challenge folder (dermavqa: reference/ + submissions/; raters: one folder per rater)")
    g.add_argument("--layout", choices=("dermavqa", "raters"), default="dermavqa", help="folder layout")
    g.add_argument("--reference", metavar="DIR", help="dermavqa: reference masks folder (instead of --data)")
    g.add_argument("--submissions", metavar="DIR", help="dermavqa: submissions folder (instead of --data)")
    g.add_argument("--gold", metavar="R1,R2,..", help="raters: the gold annotators' folder names")
    g.add_argument("--systems", metavar="R1,R2,..", help="raters: the runs' folder names (default: all others)")
    g.add_argument("--foreground", type=integer(0, 255), metavar="V",
                   help="raters: foreground pixel value (default 255)")
    g.add_argument("--background", type=integer(0, 255), metavar="V",
                   help="raters: background pixel value (default 0)")
    g.add_argument("--binarize", action="store_true", help="read every non-background value as foreground")
    g.add_argument("--threshold", type=integer(0, 255), metavar="T",
                   help="raters: foreground is every value >= T (<= T when the foreground value is below the "
                        "background value); for anti-aliased masks")
    g.add_argument("--strict", action="store_true", help="refuse masks with stray pixel values")
    g.add_argument("--missing", choices=("error", "empty"), default="error",
                   help="a run without a mask for some image: error (default) or score it empty")
    g.add_argument("--skip-mismatched", action="store_true",
                   help="drop images where a run's mask has another shape (default: error)")
    g.add_argument("--skip-empty-folders", action="store_true",
                   help="drop a run or annotator folder that holds no mask, with a warning (default: error)")
    g.add_argument("--synthetic-seed", type=integer(0), default=0, metavar="N",
                   help="seed of the synthetic challenge when no --data is given (default 0)")
    g.add_argument("--synthetic-size", choices=("small", "realistic"), default="small",
                   help="synthetic image sizes: small (fast) or realistic 0.3-12 MP")
    p.checks.append(_check_data_options)


def values(args) -> tuple[int, int]:
    """The raters layout's (foreground, background) values: the options, else 255 on 0."""
    return (255 if args.foreground is None else args.foreground, 0 if args.background is None else args.background)


def _check_data_options(args) -> None:
    if args.layout == "raters" and (args.data is None or args.gold is None):
        raise ValueError("--layout raters needs --data FOLDER and --gold R1,R2,..")
    if args.binarize and args.threshold is not None:
        raise ValueError("--binarize and --threshold are two ways to read grey masks: give one of them")
    fg, bg = values(args)
    if args.layout == "raters" and fg == bg:
        raise ValueError(f"--foreground and --background are both {fg}")
    if args.layout == "dermavqa" and (args.foreground is not None or args.background is not None
                                      or args.threshold is not None):
        raise ValueError("--foreground, --background and --threshold apply to --layout raters; the dermavqa "
                         "layout's foreground is the value 1 (--binarize reads values > 0)")


def add_scoring_options(g) -> None:
    """``--strategies`` (gold registry) and ``--empty`` (both-empty policy; ``--compat official`` is its alias)."""
    from robustness.overlap.empty import EMPTY_POLICIES
    from robustness.overlap.gold import resolve

    counted = ",".join(s.name for s in resolve(None, macro_only="drop"))
    over = " and ".join(s.name for s in resolve(None) if s.macro_only)
    g.add_argument("--strategies", metavar="S1,S2,..", type=strategy_list,
                   help=f"gold strategies (default {counted}); macro adds {over} over annotators "
                        "unless the list names one of them")
    g.add_argument("--empty", choices=tuple(EMPTY_POLICIES), default="one",
                   help="score of a pair where run and reference are both empty (default one; "
                        "official: 0/0 = nan as the official scorer)")
    g.add_argument("--compat", choices=("official",), dest="empty",
                   help="alias of --empty official: reproduce the official scorer exactly, nan included")


def strategies(args):
    """The gold strategies the options ask for, validated by the registry."""
    from robustness.overlap.gold import resolve

    return resolve([s for s in args.strategies.split(",") if s] if args.strategies is not None else None)


def check_study(args, *, n_units: int, unit: str, n_runs: int) -> None:
    """What a resampling study needs of its input: two runs to rank, and a ``--step`` that leaves at least two
    recorded prefix lengths (else every curve is one point at L1 = 0). Scoring commands (no ``--step``) pass."""
    from robustness.errors import InputError

    step = getattr(args, "step", None)
    if step is None:
        return
    if n_runs < 2:
        raise InputError(f"the input has {n_runs} run(s): a ranking needs at least 2")
    if step >= n_units:
        raise InputError(f"--step {step} leaves fewer than 2 recorded prefixes of the {n_units} {unit}: "
                         f"use a step below {n_units}")


def load(args):
    """The challenge the options describe (synthetic when no input is given); prints the loader's notes."""
    from robustness.io import load_dermavqa, load_raters

    common = dict(binarize=args.binarize, missing=args.missing,
                  mismatched="skip" if args.skip_mismatched else "error",
                  empty_folders="skip" if args.skip_empty_folders else "error")
    if args.layout == "raters":
        fg, bg = values(args)
        challenge = load_raters(args.data, gold=args.gold.split(","),
                                runs=args.systems.split(",") if args.systems else None, foreground=fg,
                                background=bg, threshold=args.threshold, strict=args.strict, **common)
    elif args.data is None and args.reference is None:
        from robustness.simulation.synthetic import make_challenge

        challenge = make_challenge(rng=args.synthetic_seed, size=args.synthetic_size)
    else:
        challenge = load_dermavqa(args.data, reference=args.reference, submissions=args.submissions,
                                  strict=True, **common)
    unit = getattr(args, "unit", "image")
    n_units = challenge.n_images if unit == "image" else len(set(challenge.encounters))
    check_study(args, n_units=n_units, unit=f"{unit}s", n_runs=challenge.n_runs)
    say(challenge.notes)
    return challenge


# -- warnings ---------------------------------------------------------------------------------------------------

def say(notes) -> None:
    """Print notes as ``warning: ...`` lines on stderr (even with --quiet: they are about the results)."""
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)


def input_warnings(args, challenge, counts) -> list[str]:
    """Everything the loader and the pixel pass noted about the input, plus the checks on the counts.

    Returns the list for ``summary.md`` and ``meta.json``; prints the checks' findings (the loader's and
    decoder's notes were printed when they happened).
    """
    from robustness.errors import summarise_notes
    from robustness.overlap.checks import (
        duplicate_raters,
        empty_annotators,
        foreground_coverage,
        outlier_annotators,
        unconverged_fits,
    )

    found = unconverged_fits(counts) + empty_annotators(counts) + outlier_annotators(counts) + duplicate_raters(counts)
    if args.layout == "raters" and args.data is not None:
        fg, bg = values(args)
        found += foreground_coverage(counts, foreground=fg, background=bg, threshold=args.threshold)
    say(found)
    return list(challenge.notes) + summarise_notes(counts.notes) + found


def run(main, argv=None) -> int:
    """Call ``main(argv)``; bad input becomes ``error: <one line>`` and exit status 2.

    ``argv=None`` (the command line) also freezes the garbage collector's objects when ``main`` returns.
    """
    import warnings

    from robustness.errors import InputError, NoteWarning

    def show(message, category, *rest, **kw):
        if issubclass(category, NoteWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            default_show(message, category, *rest, **kw)

    default_show = warnings.showwarning
    warnings.showwarning = show
    try:
        code = main(argv) or 0
        if argv is None:  # a command about to exit: its objects are freed with the process; freezing them spares
            import gc  # the interpreter's final collections over numba's object graphs (0.3 s of every command)

            gc.freeze()
        return code
    except SystemExit as exc:  # the parser's one-line errors (and --help)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = default_show
