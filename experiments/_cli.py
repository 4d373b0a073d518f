"""Shared command-line plumbing: the data options, loading, and one-line errors."""

from __future__ import annotations

import argparse
import sys


def add_data_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input (default: the embedded synthetic challenge)")
    g.add_argument("--data", metavar="PATH",
                   help="challenge folder (dermavqa: reference/ + submissions/; raters: one folder per rater)")
    g.add_argument("--layout", choices=("dermavqa", "raters"), default="dermavqa")
    g.add_argument("--reference", metavar="DIR", help="dermavqa: reference masks folder (instead of --data)")
    g.add_argument("--submissions", metavar="DIR", help="dermavqa: submissions folder (instead of --data)")
    g.add_argument("--gold", metavar="R1,R2,..", help="raters: the gold annotators' folder names")
    g.add_argument("--systems", metavar="R1,R2,..", help="raters: the runs' folder names (default: all others)")
    g.add_argument("--foreground", type=int, help="raters: foreground pixel value (default 255)")
    g.add_argument("--background", type=int, help="raters: background pixel value (default 0)")
    g.add_argument("--binarize", action="store_true", help="read every non-background value as foreground")
    g.add_argument("--strict", action="store_true", help="refuse masks with stray pixel values")
    g.add_argument("--missing", choices=("error", "empty"), default="error",
                   help="a run without a mask for some image: error (default) or score it empty")
    g.add_argument("--skip-mismatched", action="store_true",
                   help="drop images where a run's mask has another shape (default: error)")
    g.add_argument("--synthetic-seed", type=int, default=0, metavar="N",
                   help="seed of the synthetic challenge when no --data is given (default 0)")
    g.add_argument("--synthetic-size", choices=("small", "realistic"), default="small",
                   help="synthetic image sizes: small (fast) or realistic 0.3-12 MP")


def add_scoring_options(g) -> None:
    """``--strategies`` (gold registry) and ``--empty`` (both-empty policy; ``--compat official`` is its alias)."""
    from robustness.empty import EMPTY_POLICIES
    from robustness.gold import resolve

    counted = ",".join(s.name for s in resolve(None, macro_only="drop"))
    over = " and ".join(s.name for s in resolve(None) if s.macro_only)
    g.add_argument("--strategies", metavar="S1,S2,..",
                   help=f"gold strategies (default {counted}); macro adds {over} over annotators "
                        "unless the list names one of them")
    g.add_argument("--empty", choices=tuple(EMPTY_POLICIES), default="one",
                   help="score of a pair where run and reference are both empty (default one; "
                        "official: 0/0 = nan as the official scorer)")
    g.add_argument("--compat", choices=("official",), dest="empty",
                   help="alias of --empty official: reproduce the official scorer exactly, nan included")


def strategies(args):
    """The gold strategies the options ask for, validated by the registry."""
    from robustness.gold import resolve

    return resolve([s for s in args.strategies.split(",") if s] if args.strategies is not None else None)


def load(args):
    """The challenge the options describe (synthetic when no input is given)."""
    from robustness.io import load_dermavqa, load_raters

    common = dict(binarize=args.binarize, missing=args.missing,
                  mismatched="skip" if args.skip_mismatched else "error")
    if args.layout == "raters":
        if args.data is None or args.gold is None:
            raise SystemExit("error: --layout raters needs --data FOLDER and --gold R1,R2,..")
        return load_raters(
            args.data, gold=args.gold.split(","),
            systems=args.systems.split(",") if args.systems else None,
            foreground=255 if args.foreground is None else args.foreground,
            background=0 if args.background is None else args.background,
            strict=args.strict, **common,
        )
    if args.data is None and args.reference is None:
        from robustness.synthetic import make_challenge

        return make_challenge(rng=args.synthetic_seed, size=args.synthetic_size)
    return load_dermavqa(args.data, reference=args.reference, submissions=args.submissions,
                         strict=True, **common)


def run(main, argv=None) -> int:
    """Call ``main(argv)``; bad input becomes ``error: <one line>`` and exit status 2."""
    import warnings

    from robustness.errors import InputError, MaskWarning

    def show(message, category, *rest, **kw):
        if issubclass(category, MaskWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            default_show(message, category, *rest, **kw)

    default_show = warnings.showwarning
    warnings.showwarning = show
    try:
        return main(argv) or 0
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
