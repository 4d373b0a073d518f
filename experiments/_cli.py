"""Shared command-line plumbing: the parser convention, option checks, the data options, loading, warnings.

Every command refuses a bad option before any work or any write with one line
``error: <what is wrong>`` on stderr and exit status 2 (the same as bad input
data). Whatever a loader skipped, repaired or guessed is printed as
``warning: ...`` lines and returned so that the studies list it in
``summary.md`` and ``meta.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from experiments._options import data_tokens, for_command_line, synthetic_tokens
from experiments._types import (
    MAX_ORDERS,
    MAX_RESAMPLES,
    MAX_STEP,
    existing_file,
    integer,
    jobs,
    label_list,
    max_jobs,
    orders,
    region_item,
    resamples,
    scheme_text,
    shown_number,
    spacing_list,
    step,
    strategy_list,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from robustness.io.challenge import Challenge
    from robustness.overlap.gold import GoldStrategy
    from robustness.scheme import Scheme

# -- the parser -------------------------------------------------------------------------------------------------


class _Help(argparse.HelpFormatter):
    """Appends ``(default X)`` and ``(at most N)`` to the options' help.

    ``(default X)`` goes to every option whose help does not already state its default, ``(at most N)`` to every
    option whose type has an upper bound.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        top = getattr(action.type, "maximum", None)
        if top is not None and "at most" not in text:
            text = f"{text} (at most {top:,})".strip()
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default {action.default})".strip()


class _Renamed(argparse.Action):
    """An option's earlier name: it does what the new name does, and says so on stderr when given."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str, **kw: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"warning: {option_string} is deprecated: use {self.new} (it takes the same values)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def renamed(group: Any, old: str, new: str, dest: str, **kw: Any) -> None:
    """Keep ``old`` as a deprecated name of the option ``new`` (same ``dest``, type and choices; a warning when used).

    Parameters
    ----------
    group : argparse parser or argument group
    old, new : str
        The option strings (``--systems``, ``--runs``).
    dest : str
        The new option's destination.
    **kw
        The new option's ``type``, ``choices`` and ``metavar``.
    """
    group.add_argument(old, dest=dest, action=_Renamed, new=new, default=argparse.SUPPRESS,
                       help=f"deprecated name of {new}", **kw)


class Parser(argparse.ArgumentParser):
    """``argparse`` with the package's convention: one line ``error: ...``, exit status 2.

    ``checks`` are callables ``check(args)`` run after parsing; they raise
    ``ValueError`` (or :class:`~robustness.errors.InputError`) with the message.
    """

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("formatter_class", _Help)
        super().__init__(*args, **kw)
        self.checks: list = []

    def error(self, message: str) -> NoReturn:
        from robustness.errors import MAX_LINE, one_line

        sys.stderr.write(f"error: {one_line(for_command_line(message), MAX_LINE - 7)}\n")
        raise SystemExit(2)

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        ns = super().parse_args(args, namespace)
        for check in self.checks + [self._out_outside_inputs]:
            try:
                check(ns)
            except ValueError as exc:
                self.error(str(exc))
        return ns

    def _out_outside_inputs(self, ns: argparse.Namespace) -> None:
        """``--out`` may not be, or lie inside, an input folder, nor be the folder holding an input file.

        The results folder is written, replaced and cleaned up, an input folder never is.
        """
        out = getattr(ns, "out", None)
        if out is None:
            return
        files = {a.dest for a in self._actions if a.type is existing_file} | {"table"}
        where = os.path.realpath(out)
        for dest in ("data", "like", "reference", "submissions", *sorted(files)):
            value = getattr(ns, dest, None)
            if not isinstance(value, str) or value == "synthetic" or dest == "gold" and hasattr(ns, "layout"):
                continue  # --gold names raters in the segmentation commands
            option = "--" + dest.replace("_", "-")
            if dest in files:
                if where == os.path.realpath(os.path.dirname(os.path.abspath(value))):
                    raise ValueError(f"--out {out} is the folder holding {option} {value}: results go to a folder "
                                     "of their own; choose another --out")
                continue
            inside = os.path.realpath(value)
            if where == inside or where.startswith(inside.rstrip(os.sep) + os.sep):
                raise ValueError(f"--out {out} lies inside the input folder {option} {value}: nothing is ever "
                                 "written into an input; choose another --out")


for _type, _maximum in ((jobs, max_jobs()), (orders, MAX_ORDERS), (resamples, MAX_RESAMPLES), (step, MAX_STEP)):
    setattr(_type, "maximum", _maximum)  # stated in --help


# -- data options -----------------------------------------------------------------------------------------------

def add_data_options(p: Parser) -> None:
    g = p.add_argument_group("input (default: the embedded synthetic challenge)")
    g.add_argument("--data", metavar="PATH",
                   help="challenge folder (dermavqa: reference/ + submissions/; raters: one folder per rater)")
    g.add_argument("--layout", choices=("dermavqa", "raters"), default="dermavqa", help="folder layout")
    g.add_argument("--reference", metavar="DIR", help="dermavqa: reference masks folder (instead of --data)")
    g.add_argument("--submissions", metavar="DIR", help="dermavqa: submissions folder (instead of --data)")
    g.add_argument("--gold", metavar="R1,R2,..", help="raters: the gold annotators' folder names")
    g.add_argument("--runs", metavar="R1,R2,..", help="raters: the runs' folder names (default: all others)")
    renamed(g, "--systems", "--runs", "runs", metavar="R1,R2,..")
    g.add_argument("--foreground", type=integer(0, 255), metavar="V",
                   help="raters: foreground pixel value (default: 1 where the gold's masks hold only 0 and 1, "
                        "else 255)")
    g.add_argument("--background", type=integer(0, 255), metavar="V",
                   help="raters: background pixel value (default 0; 255 when --foreground is 0)")
    g.add_argument("--binarize", action="store_true", help="read every non-background value as foreground")
    g.add_argument("--threshold", type=integer(0, 255), metavar="T",
                   help="raters: foreground is every value >= T (<= T when the foreground value is below the "
                        "background value); for anti-aliased masks")
    g.add_argument("--strict", action="store_true", help="refuse masks with stray pixel values")
    g.add_argument("--labels", metavar="L1,L2,..|all", type=label_list,
                   help="raters: multi-label masks (NIfTI, NRRD, MetaImage): score each label as its own mask, one "
                        "image per file and label, resampled together (all: every label the gold masks hold)")
    g.add_argument("--regions", metavar="NAME=L1,L2", nargs="+", type=region_item,
                   help="raters: label regions of multi-label masks, each the union of label values, scored like "
                        "labels (BraTS: WT=1,2,4 TC=1,4 ET=4; KiTS: kidney=1,2,3 masses=2,3 tumor=2)")
    g.add_argument("--missing-masks", dest="missing", choices=("error", "empty"), default="error",
                   help="a run without a mask for some image: error (default) or score it empty")
    renamed(g, "--missing", "--missing-masks", "missing", choices=("error", "empty"))
    g.add_argument("--skip-mismatched", action="store_true",
                   help="drop images where a run's mask has another shape (default: error)")
    g.add_argument("--skip-empty-folders", action="store_true",
                   help="drop a run or annotator folder that holds no mask, with a warning (default: error)")
    g.add_argument("--synthetic-seed", type=integer(0), default=0, metavar="N",
                   help="seed of the synthetic challenge when no --data is given (default 0)")
    g.add_argument("--synthetic-size", choices=("small", "realistic"), default="small",
                   help="synthetic image sizes: small (fast) or realistic 0.3-12 MP")
    g.add_argument("--synthetic-depth", type=integer(1), default=None, metavar="SLICES",
                   help="a 3D synthetic challenge: volumes of this many slices (the size is per slice; at most "
                        "4,096 small or 44 realistic slices: a volume holds at most 2**29 voxels)")
    g.add_argument("--synthetic-spacing", type=spacing_list, default=None, metavar="Z,Y,X",
                   help="the 3D synthetic challenge's voxel size in mm along z, y, x, each 0.001 to 1000 "
                        "(default 1,1,1)")
    p.checks.append(_check_data_options)


def synthetic_shape(args: argparse.Namespace) -> dict:
    """The synthetic challenge's size options as :class:`~robustness.synthetic.challenge.SyntheticConfig` fields."""
    out = {"size": args.synthetic_size}
    if args.synthetic_depth is not None:
        out.update(depth=args.synthetic_depth, spacing=args.synthetic_spacing or (1.0, 1.0, 1.0))
    return out


def add_primary_option(g) -> None:
    """``--primary STRATEGY:METRIC:AVERAGING``: the organiser's headline scheme."""
    g.add_argument("--primary", metavar="STRATEGY:METRIC:AVERAGING", type=scheme_text,
                   help="the headline scheme the leaderboard, the verdicts and the conclusions are about, e.g. "
                        "staple:dice:macro or majority:hd95:macro (a boundary metric: macro only, smallest first; "
                        "default majority:jaccard:micro, called official only on the dermavqa layout, whose scorer "
                        "ranks by it)")


def primary_scheme(args: argparse.Namespace, strategies) -> Scheme:
    """The headline scheme of the options: ``--primary``, else the default of the strategies.

    Official only where the layout's own scorer ranks by it (the dermavqa layout and the synthetic challenge written
    in it).
    """
    from robustness.scheme import DEFAULT, Scheme, default_scheme

    official = getattr(args, "layout", None) == "dermavqa"
    if getattr(args, "primary", None):
        return Scheme.parse(args.primary, official=official and args.primary == DEFAULT.text)
    return default_scheme(strategies, official=official)


def check_label_tolerances(metrics: Iterable[str], args: argparse.Namespace, found=None) -> None:
    """Refuse an NSD with a tolerance per label (``nsd@kidney=1.033/..``) whose labels are not the ones scored.

    Before any reading the labels are ``--regions``' names or ``--labels``' values; ``found`` (the loaded
    challenge's labels) checks ``--labels all``. Every label scored needs a tolerance, and every tolerance a label
    (a misspelt region would otherwise go unused). Raises ValueError.
    """
    from robustness.overlap.boundary import boundary_metric, is_boundary_metric

    regions, labels = getattr(args, "regions", None), getattr(args, "labels", None)
    for name in metrics:
        if not is_boundary_metric(name):
            continue
        metric = boundary_metric(name)
        if not metric.tolerances:
            continue
        if found is not None:
            scored = sorted({str(v) for v in found}, key=str)
        elif regions:
            scored = [str(n) for n, _ in regions]
        elif labels is None:
            raise ValueError(f"{metric.name} gives a tolerance per label: score the labels with --regions or "
                             "--labels (--layout raters)")
        elif isinstance(labels, str):
            continue  # --labels all: checked once the labels are found
        else:
            scored = [str(v) for v in labels]
        given = [n for n, _ in metric.tolerances]
        missing, unused = [n for n in scored if n not in given], [n for n in given if n not in scored]
        if missing or unused:
            raise ValueError(f"{metric.name}: " + "; ".join(
                ([f"no tolerance for {', '.join(missing)}"] if missing else [])
                + ([f"{', '.join(unused)} not scored"] if unused else []))
                + f" (the labels scored: {', '.join(scored)})")


def _check_synthetic_volume(args: argparse.Namespace) -> None:
    """``--synthetic-depth`` within the voxel bound for the slice size, ``--synthetic-spacing`` within its range."""
    if args.synthetic_depth is None and args.synthetic_spacing is None:
        return  # nothing to check: the generator (numba, scipy) stays unloaded where --data is read
    from robustness.synthetic.challenge import MAX_SPACING, MIN_SPACING, max_depth
    if args.synthetic_depth is not None and args.synthetic_depth > max_depth(args.synthetic_size):
        raise ValueError(f"--synthetic-depth {shown_number(args.synthetic_depth)}: at most "
                         f"{max_depth(args.synthetic_size)} slices of --synthetic-size {args.synthetic_size} (a volume "
                         "holds at most 2**29 voxels)")
    if args.synthetic_spacing is not None and not all(MIN_SPACING <= v <= MAX_SPACING
                                                      for v in args.synthetic_spacing):
        raise ValueError(f"--synthetic-spacing {','.join(f'{v:g}' for v in args.synthetic_spacing)}: each voxel "
                         f"size must lie from {MIN_SPACING:g} to {MAX_SPACING:g} mm")


def _check_data_options(args: argparse.Namespace) -> None:
    _check_synthetic_volume(args)
    if args.synthetic_spacing is not None and args.synthetic_depth is None:
        raise ValueError("--synthetic-spacing sets the voxels of a 3D synthetic challenge: give --synthetic-depth")
    if args.synthetic_depth is not None and (args.data is not None or getattr(args, "reference", None) is not None):
        raise ValueError("--synthetic-depth makes the embedded synthetic challenge 3D: it does not apply to --data")
    if args.layout == "raters" and (args.data is None or args.gold is None):
        raise ValueError("--layout raters needs --data FOLDER and --gold R1,R2,..")
    if args.binarize and args.threshold is not None:
        raise ValueError("--binarize and --threshold are two ways to read grey masks: give one of them")
    if args.layout == "raters" and args.foreground is not None and args.foreground == args.background:
        raise ValueError(f"--foreground and --background are both {args.foreground}")
    _check_label_options(args)
    if args.layout == "dermavqa" and (args.foreground is not None or args.background is not None
                                      or args.threshold is not None):
        raise ValueError("--foreground, --background and --threshold apply to --layout raters; the dermavqa "
                         "layout's foreground is the value 1 (--binarize reads values > 0)")


def _check_label_options(args: argparse.Namespace) -> None:
    """``--labels`` or ``--regions`` (one of them, each region named once): multi-label rater folders only."""
    labels = getattr(args, "labels", None)
    regions = getattr(args, "regions", None)
    if regions is not None:
        names = [n for n, _ in regions]
        if len(set(names)) != len(names):
            raise ValueError(f"--regions: a region is named twice ({', '.join(names)})")
        if labels is not None:
            raise ValueError("--labels and --regions both choose what each file's labels score: give one of them")
        labels = dict(regions)
    which = "--regions" if regions is not None else "--labels"
    if labels is not None and args.layout != "raters":
        raise ValueError(f"{which} applies to --layout raters (one folder per rater of multi-label masks)")
    if labels is not None and (args.foreground is not None or args.background is not None
                                    or args.threshold is not None or args.binarize):
        raise ValueError(f"{which} reads each label's voxels as its mask: --foreground, --background, --threshold "
                         "and --binarize do not apply")


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


def strategies(args: argparse.Namespace) -> list[GoldStrategy]:
    """The gold strategies the options ask for, validated by the registry."""
    from robustness.overlap.gold import resolve

    return resolve(args.strategies.split(",") if args.strategies is not None else None)  # checked: strategy_list


def check_study(args: argparse.Namespace, *, n_units: int, unit: str, n_runs: int) -> None:
    """What a resampling study needs of its input: two runs to rank, and a ``--step`` that leaves two prefixes.

    The ``--step`` must leave at least two recorded prefix lengths (else every curve is one point at L1 = 0).
    Scoring commands (no ``--step``) pass.
    """
    from robustness.errors import InputError

    step = getattr(args, "step", None)
    if step is None:
        return
    if n_runs < 2:
        raise InputError(f"the input has {n_runs} run(s): a ranking needs at least 2")
    if step >= n_units:
        raise InputError(f"--step {step} leaves fewer than 2 recorded prefixes of the {n_units} {unit}: "
                         f"use a step below {n_units}")


def load(args: argparse.Namespace) -> Challenge:
    """The challenge the options describe (synthetic when no input is given); prints the loader's notes."""
    from robustness.io import RaterOptions, load_dermavqa, load_raters

    common = dict(binarize=args.binarize, missing=args.missing,
                  mismatched="skip" if args.skip_mismatched else "error",
                  empty_folders="skip" if args.skip_empty_folders else "error")
    if args.layout == "raters":
        challenge = load_raters(args.data, gold=args.gold.split(","),
                                runs=args.runs.split(",") if args.runs else None, foreground=args.foreground,
                                background=args.background,
                                labels=dict(args.regions) if getattr(args, "regions", None) else
                                getattr(args, "labels", None),
                                options=RaterOptions(threshold=args.threshold, strict=args.strict, **common))
    elif args.data is None and args.reference is None:
        from robustness.synthetic.challenge import make_challenge

        challenge = make_challenge(rng=args.synthetic_seed, **synthetic_shape(args))
    else:
        challenge = load_dermavqa(args.data, reference=args.reference, submissions=args.submissions,
                                  strict=True, **common)
    unit = getattr(args, "unit", "image")
    n_units = challenge.n_images if unit == "image" else len(set(challenge.encounters))
    check_study(args, n_units=n_units, unit=f"{unit}s", n_runs=challenge.n_runs)
    say(challenge.notes)
    return challenge


# -- warnings ---------------------------------------------------------------------------------------------------

def say(notes: Iterable[str]) -> None:
    """Print notes as ``warning: ...`` lines on stderr (even with --quiet: they are about the results), in options."""
    from robustness.errors import MAX_LINE, one_line

    for note in notes:
        print(f"warning: {one_line(for_command_line(note), MAX_LINE - 9)}", file=sys.stderr)


def source(args: argparse.Namespace) -> str:
    """The input in prose, for reports."""
    return args.data or "the embedded synthetic challenge"


def reading(args: argparse.Namespace) -> dict:
    """How the input was read, as meta.json's ``input.reading`` records it for the reports.

    Named fields, not the command line's namespace: ``layout`` (``dermavqa``, ``raters``), ``folder`` (None for the
    embedded synthetic challenge, which is written in the dermavqa layout, and for ``--reference``/``--submissions``),
    ``data_options``, the data options given as the design study's ``--like`` takes them
    (:func:`experiments._options.data_tokens`), and ``synthetic`` (the embedded challenge's shape options, as the
    design study takes them; None where the challenge was read from files).
    """
    synthetic = args.data is None and not (getattr(args, "reference", None) or getattr(args, "submissions", None))
    return {"layout": args.layout, "folder": args.data, "data_options": data_tokens(args),
            "synthetic": synthetic_tokens(args) if synthetic else None}


def data_description(args: argparse.Namespace) -> str:
    """The input in meta.json: the folder, or the synthetic challenge's seed and size."""
    depth = "" if args.synthetic_depth is None else (
        f", {args.synthetic_depth} slices of {'x'.join(f'{v:g}' for v in args.synthetic_spacing or (1, 1, 1))} mm")
    return args.data or f"synthetic (seed {args.synthetic_seed}, size {args.synthetic_size}{depth})"


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt lies in ``exc``'s chain of causes.

    Numba's dispatcher wraps one raised while it unpickles a cached kernel in a SystemError.
    """
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def _interrupted(argv: list[str] | None) -> int:
    """Ctrl-C: ``interrupted``, status 130; a command exits at once (a second interrupt while joining threads).

    Results are written whole or not at all, so nothing is left to clean up.
    """
    print("interrupted", file=sys.stderr)
    if argv is None:
        sys.stderr.flush()
        os._exit(130)
    return 130


def run(main: Callable[[list[str] | None], int | None], argv: list[str] | None = None) -> int:
    """Call ``main(argv)``; bad input becomes ``error: <one line>`` and exit status 2.

    ``argv=None`` (the command line) also freezes the garbage collector's objects when ``main`` returns.
    """
    import warnings

    from robustness.errors import MAX_LINE, InputError, NoteWarning, one_line

    def show(message, category, *rest, **kw):
        if issubclass(category, NoteWarning):
            print(f"warning: {one_line(for_command_line(str(message)), MAX_LINE - 9)}", file=sys.stderr)
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
        print(f"error: {one_line(for_command_line(str(exc)), MAX_LINE - 7)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _interrupted(argv)
    except SystemError as exc:  # Ctrl-C inside a numba call (loading a cached kernel) comes back wrapped
        if not _caused_by_interrupt(exc):
            raise
        return _interrupted(argv)
    except OSError as exc:  # a full disk or quota while writing (figures, parquet...): one line, not a traceback
        from robustness.files import NO_SPACE

        if exc.errno not in NO_SPACE:
            raise
        import os

        print(f"error: {exc.filename + ': ' if exc.filename else ''}cannot write the results: "
              f"{os.strerror(exc.errno).lower()}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = default_show
