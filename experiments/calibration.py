"""The package checks itself: its claims on test sets drawn from populations of known truth.

    python -m experiments.calibration [--quick] [--like CHALLENGE ...] --out OUT

Draws test sets of N encounters from large synthetic populations (the default challenge's runs, the default design
study's run populations, and with ``--like`` the runs of a challenge fitted to yours), runs the main job's
estimators on each and writes calibration.csv: per estimator, population and official scheme the relative bias,
the coverage of its intervals, the share of size claims that reach their target and the share of "these two
runs differ" claims that are wrong, each with its Monte Carlo standard error. ``--quick`` (a population of 2,000
encounters, smaller resampling) takes about 4 minutes on 2 cores (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study, _types

#: The full study's settings, and --quick's.
FULL = {"population": 10_000, "test_sets": 100, "outer": 200, "bootstrap": 1000, "truth_draws": 1000,
        "design_populations": 8}
QUICK = {"population": 2_000, "test_sets": 100, "outer": 40, "bootstrap": 400, "truth_draws": 300,
         "design_populations": 0}


def parser() -> _cli.Parser:
    """The command's argument parser.

    Returns
    -------
    experiments._cli.Parser
        The data options (for ``--like``), the study's sizes and the execution options.
    """
    integer = _types.integer
    p = _cli.Parser(prog="python -m experiments.calibration", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("populations")
    g.add_argument("--like", metavar="CHALLENGE",
                   help="also a population of runs fitted to this challenge (layout options as above)")
    p.checks.insert(0, _like_is_the_data)
    p.checks.append(_design_check_count)
    g.add_argument("--design-populations", type=integer(0, 20), metavar="P",
                   help="the default design study's first P run populations (default 8; --quick 0)")
    g.add_argument("--no-held-out", action="store_true",
                   help="leave out the three populations the estimators were not tuned on: 'tight' (one team's runs "
                        "nearly tied beside loose teams), 'few' (six runs, no teams) and 'mixed' (two teams whose "
                        "spreads lie ten times apart)")
    g.add_argument("--population", type=integer(200, 100_000), metavar="N",
                   help="encounters per population (default 10000; --quick 2000)")
    g = p.add_argument_group("the design study checked")
    g.add_argument("--design-check", type=integer(0, 100), metavar="K", default=0,
                   help="also run the design study around the default challenge (its --quick form with --quick) and "
                        "hold its sizes against K run populations it never drew (default 0: not run)")
    g.add_argument("--design-check-test-sets", type=integer(2, 1000), metavar="T", default=8,
                   help="test sets of each of those populations per size (default 8)")
    g = p.add_argument_group("test sets")
    g.add_argument("--test-sets", type=integer(2, 10_000), metavar="K",
                   help="test sets per population (default 100)")
    g.add_argument("--test-size", type=integer(2, 10_000), metavar="N",
                   help="encounters per test set (default 100; with --like, the challenge's own number of encounters, "
                        "at least 20)")
    g.add_argument("--outer", type=_types.outer_resamples, metavar="B",
                   help="outer resamples behind each interval of the distance to unlimited data (default 200; "
                        "--quick 40)")
    g.add_argument("--bootstrap", type=integer(2, _types.MAX_RESAMPLES), metavar="B",
                   help="bootstrap resamples behind the score intervals and pairwise tests (default 1000; --quick 400)")
    g.add_argument("--truth-draws", type=integer(2, 100_000), metavar="D",
                   help="samples of the population per size behind the true expected L1 (default 1000; --quick 300)")
    g.add_argument("--margin", type=_types.number(0, 1), default=0.0, metavar="D",
                   help="equivalence margin of the distance to unlimited data (default 0)")
    g.add_argument("--quick", action="store_true", help="a population of 2,000 encounters and smaller resampling: "
                   "about 4 minutes on 2 cores")
    g.add_argument("--seed", type=integer(0), default=0, help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=_types.output_folder, default="results/calibration", metavar="DIR",
                   help="output folder (default results/calibration)")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another study's results")
    g.add_argument("--n-jobs", type=_types.jobs, default=_types.cores(), metavar="N",
                   help="parallel workers for the pixel passes and the test sets (default: the cores this process "
                        "may use, here %(default)s; the numbers do not depend on it)")
    g.add_argument("--quiet", action="store_true", help="no progress lines, no report on the terminal")
    p.checks.append(_sizes_fit)
    return p


def _like_is_the_data(args: argparse.Namespace) -> None:
    """``--like CHALLENGE`` names the data the layout options read."""
    if args.like is not None:
        if args.data is not None and args.data != args.like:
            raise ValueError(f"--like {args.like} and --data {args.data} name two challenges; give one")
        args.data = args.like


def _design_check_count(args: argparse.Namespace) -> None:
    """One run population says nothing about another: the check needs two or more."""
    if args.design_check == 1:
        raise ValueError("--design-check 1: one run population says nothing about how often a size holds; give 2 or "
                         "more (or 0 to leave the check out)")


def _settings(args: argparse.Namespace) -> dict:
    """The study's sizes: --quick's or the full study's, each overridden by its option."""
    base = dict(QUICK if args.quick else FULL)
    for name in base:
        value = getattr(args, name)
        if value is not None:
            base[name] = value
    return base


def _sizes_fit(args: argparse.Namespace) -> None:
    """A test set must be smaller than its population."""
    s = _settings(args)
    if args.test_size is not None and args.test_size >= s["population"]:
        raise ValueError(f"--test-size {args.test_size} must be smaller than the population ({s['population']} "
                         "encounters)")


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 once the results are written; a bad option or input ends in ``error: ...`` and status 2 (through
        :func:`experiments._cli.run`).
    """
    args = parser().parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        import hashlib
        import json

        from robustness.results.folder import ResultsDir
        from robustness.simulation.calibration import CalibrationOptions
        from robustness.simulation.populations import default_populations, held_out_populations
        from robustness.simulation.worlds import record
        from robustness.studies import calibration

        say = _study.say(args)
        s = _settings(args)
        populations = default_populations(s["design_populations"], seed=args.seed)
        if not args.no_held_out:
            populations += held_out_populations(seed=args.seed)
        notes: list[str] = []
        test_size = args.test_size or 100
        if args.like is not None:
            challenge = _cli.load(args)
            if args.test_size is None:  # test sets of the challenge's own size
                test_size = max(20, len(set(challenge.encounters)))
            like, notes = calibration.like_population(challenge, seed=args.seed, quick=args.quick, name=args.like,
                                                      say=say, warn=_cli.say)
            populations.append(like)
        options = CalibrationOptions(population=s["population"], test_sets=s["test_sets"], test_size=test_size,
                                     truth_draws=s["truth_draws"], outer=s["outer"], bootstrap=s["bootstrap"],
                                     seed=args.seed)
        check = None
        if args.design_check:
            from robustness.studies.design_base import DesignStudyOptions
            from robustness.studies.design_check import DesignCheckOptions

            check = DesignCheckOptions(populations=args.design_check, test_sets=args.design_check_test_sets,
                                       design=DesignStudyOptions(quick=args.quick, seed=args.seed))
        asked = {"design_check": repr(check)} if check is not None else {}  # folders without it keep their key
        key = hashlib.sha256(json.dumps({"options": repr(options), "margin": args.margin, **asked,
                                         "populations": [(p.name, record(p.config), p.runs.runs) for p in populations]},
                                        sort_keys=True, default=str).encode()).hexdigest()
        out = ResultsDir(args.out, fingerprint=key, force=args.force)
        result = calibration.run(populations, options, margin=args.margin, cache_dir=out.path / "cache",
                                 n_jobs=args.n_jobs, progress=_study.progress(args), say=say, notes=notes)
        if check is not None:
            from robustness.studies.design_check import check_design

            checked = check_design(check, cache_dir=out.path / "cache" / "design-check", n_jobs=args.n_jobs,
                                   progress=_study.progress(args), say=say)
            result = calibration.with_design_check(result, checked)
        text = _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(_study.conclusions(text, out.path))
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
