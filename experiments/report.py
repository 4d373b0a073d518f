"""Rebuild a study's report from its results folder alone (no recomputation).

    python -m experiments.report RESULTS_DIR

Reads the folder's tables, verdicts and meta.json, applies the study's
registered report sections, and writes summary.md and report.html (and the
design study's recommendation.md, and report.pdf where the study wrote one with
--pdf) in place, atomically, under the folder's lock.
"""

from __future__ import annotations

import argparse
import sys

from experiments import _cli


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
    p = _cli.Parser(prog="python -m experiments.report", description=__doc__.split("\n\n")[0])
    p.add_argument("results", metavar="RESULTS_DIR", help="a complete results folder written by any study")
    p.add_argument("--quiet", action="store_true", help="do not print the conclusions")
    return p


def main(argv=None) -> int:
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    args = parser().parse_args(argv)
    from experiments._options import for_command_line
    from robustness.reporting.report import write

    written = write(args.results, spell=for_command_line)
    if not args.quiet:
        from experiments._study import conclusions

        names = {p.name: p for p in written}
        if "recommendation.md" in names:  # the design study's report opens with its recommendation
            print(conclusions(names["recommendation.md"].read_text(), args.results, section="Recommendation"))
        elif "summary.md" in names:
            print(conclusions(names["summary.md"].read_text(), args.results))
        print("rewrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
