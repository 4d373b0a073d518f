"""The design study: which gold strategy and averaging, and how many test encounters, for a challenge like mine.

    python -m experiments.design_study [--quick] [--like CHALLENGE | --like synthetic] [--out results/design_study]

Simulates challenges whose truth is known (the synthetic generator, fitted to
a real challenge with ``--like``) over a grid of settings (test-set size,
annotators per image, annotator agreement, spread of run quality, number of
runs, within-encounter correlation) and seeded replicates, and measures how
far every scheme's ranking is from the truth: on the same images and against
the runs' population ranking. Writes design.csv, design_summary.csv,
coverage.csv, recommendation.md, report.html and figures. Replicates are
written as they finish (OUT/cache/design/), so an interrupted grid resumes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from experiments import _cli, _study, _types

if TYPE_CHECKING:
    from robustness.studies.design_base import DesignBase, DesignStudyOptions


def _listed(convert):
    """An ``argparse`` type: a comma-separated list, each item checked by ``convert`` (an ``_cli`` type)."""
    import argparse

    def parse(text):
        items = [convert(v.strip()) for v in text.split(",") if v.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"must list at least one value, got {text!r}")
        return sorted(set(items))

    parse.__name__ = "list"
    return parse


def _fraction(text):
    """An ``argparse`` type: a number in [0, 1]."""
    import argparse

    value = _types.number(0.0)(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}")
    return value


def parser() -> _cli.Parser:
    """The command's argument parser.

    Returns
    -------
    experiments._cli.Parser
        The parser of ``python -m experiments.design_study``: the data options, the grid, the targets and the
        execution options.
    """
    integer, number = _types.integer, _types.number
    p = _cli.Parser(prog="python -m experiments.design_study", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("the challenge to plan for")
    g.add_argument("--like", metavar="CHALLENGE",
                   help="plan for this challenge (layout options as above): a twin made of its own images, "
                        "fitted to its annotators and runs (--twin); 'synthetic': the embedded default challenge "
                        "with the generator fitted to it, a self-check of the fit; default: the generator's "
                        "defaults, unfitted")
    g.add_argument("--twin", choices=("images", "generator"), default="images",
                   help="with --like CHALLENGE: the twin is made of the challenge's own images, its truths the "
                        "gold annotators' majority vote and its raters fitted image by image (default), or is the "
                        "synthetic generator fitted to the challenge's statistics (the earlier twin)")
    p.checks.insert(0, _like_is_the_data)  # before the data options' checks: --like CHALLENGE names the data
    g = p.add_argument_group("the grid (comma-separated; defaults around the base challenge)")
    g.add_argument("--encounters", type=_listed(integer(2, 10_000)), metavar="N1,N2,..",
                   help="test-set sizes (default N/4, N/2, N, 2N)")
    g.add_argument("--annotators", type=_listed(integer(1, 16)), metavar="K1,K2,..",
                   help="annotators per image (default k and k+1)")
    g.add_argument("--agreement", type=_listed(_fraction), metavar="A1,A2,..",
                   help="annotator agreement, 1.0 = annotators equal the truth (default a-0.2, a, 1.0; --quick a, 1.0)")
    g.add_argument("--spread", type=_listed(_fraction), metavar="S1,..",
                   help="spread of the runs' true skill (default the base's)")
    g.add_argument("--n-runs", type=_listed(integer(2, 100)), metavar="R1,..",
                   help="numbers of runs (default the base's; --runs names the runs to read, as in every command)")
    g.add_argument("--correlation", type=_listed(_fraction), metavar="C1,..",
                   help="within-encounter correlation (default the base's)")
    g.add_argument("--replicates", type=integer(2, 1_000), help="seeded replicates per setting (default 20; --quick 4)")
    g.add_argument("--populations", type=integer(1, 100),
                   help="distinct run populations the replicates cycle through (default: one per replicate, so "
                        "that every interval is about runs drawn like the challenge's; fewer: intervals over the "
                        "populations' means)")
    g.add_argument("--pool", type=integer(4, 1_000_000),
                   help="independent images that first score each run population (doubled until the pool ranks the "
                        "runs within L1 2 of unlimited data, at most 8 times; default 25000; --quick 12000)")
    g.add_argument("--max-encounters", type=integer(4, 100_000), metavar="N",
                   help="the size search's cap: test sets twice as large are simulated until the recommended scheme "
                        "meets the target at 95%% confidence, or this size (default 32 N, 400 to 6400; --quick "
                        "4 N, 200 to 400)")
    g.add_argument("--orders", type=_types.orders, help="random orders per test set (default 100; --quick 40)")
    g.add_argument("--bootstrap", type=integer(2, _types.MAX_RESAMPLES),
                   help="bootstrap resamples per test set (default 300; --quick 150)")
    g.add_argument("--image-mp", type=number(0.0001, 12), metavar="MP",
                   help="simulated image size in megapixels (default: enough for median objects of 150 pixels; "
                        "75 with --quick)")
    g.add_argument("--boundary", metavar="M1,M2,..", type=_types.boundary_list, default=(),
                   help="boundary metrics (nsd@<tolerance>, hd95, assd, hd) and lesion-wise ones (lesion_dice, "
                        "lesion_jaccard, lesion_hd95, lesion_nsd@<tolerance>, lesion_f1, lesion_precision, "
                        "lesion_recall, pq, sq, fp_lesions, fn_lesions, fp_volume, fn_volume) ranked beside macro "
                        "Jaccard on every "
                        "simulated test set: how far the metric moves the ranking (default none)")
    g.add_argument("--target", "--target-l1", type=number(0), dest="target_l1", metavar="L1",
                   help="target expected L1 to the population ranking (default: one place per run, or a tenth of a "
                        "random order's distance where that is smaller: with fewer than 31 runs)")
    g.add_argument("--target-top1", type=_fraction, default=0.9,
                   help="target share of replicates with the true best run ranked first (default 0.9)")
    g.add_argument("--quick", action="store_true", help="a small grid (4 replicates, each its own run population): "
                                                           "under 3 minutes on 2 cores")
    g.add_argument("--seed", type=integer(0), default=0, help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=_types.output_folder, default="results/design_study", metavar="DIR",
                   help="output folder (default results/design_study)")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another grid's results, "
                                                           "and plan with a fitted twin outside fit.csv's tolerances")
    g.add_argument("--n-jobs", type=_types.jobs, default=_types.cores(),
                   help="parallel workers (default: every core this process may use, %(default)s here; the "
                        "numbers do not depend on it)")
    g.add_argument("--scheduler", type=_types.scheduler_address, metavar="ADDRESS",
                   help="run on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
    g.add_argument("--quiet", action="store_true", help="no progress bars, no report on the terminal")
    return p


def _like_is_the_data(args) -> None:
    if args.like is not None and args.like != "synthetic":
        if args.data is not None and args.data != args.like:
            raise ValueError(f"--like {args.like} and --data {args.data} name two challenges; give one")
        args.data = args.like


def options_from(args: argparse.Namespace) -> DesignStudyOptions:
    """The study's options from the parsed command line."""
    from robustness.studies.design_base import DesignStudyOptions

    def listed(values):
        return None if values is None else tuple(values)

    return DesignStudyOptions(
        encounters=listed(args.encounters), annotators=listed(args.annotators), agreement=listed(args.agreement),
        spread=listed(args.spread), runs=listed(args.n_runs), correlation=listed(args.correlation),
        replicates=args.replicates, populations=args.populations, pool=args.pool, orders=args.orders,
        bootstrap=args.bootstrap, image_mp=args.image_mp, target_l1=args.target_l1, target_top1=args.target_top1,
        max_encounters=args.max_encounters,
        quick=args.quick, seed=args.seed, boundary=tuple(args.boundary),
        twin="generator" if (args.like or args.data) in (None, "synthetic") else args.twin)


def base(args: argparse.Namespace, options: DesignStudyOptions) -> DesignBase:
    """The study's base from the command line: the generator's defaults, or the challenge --like (--data) names.

    Reading the challenge is the command's (its data options); the checks, the fit and the main job's own answer
    are the study's (:func:`robustness.studies.design_base.prepare`).
    """
    from robustness.studies.design_base import prepare
    from robustness.synthetic.challenge import SyntheticConfig, make_challenge

    like = args.like or args.data
    if like is None:
        return prepare(None, options, config=SyntheticConfig(**_cli.synthetic_shape(args)))
    challenge = make_challenge(rng=args.synthetic_seed, **_cli.synthetic_shape(args)) if like == "synthetic" \
        else _cli.load(args)
    return prepare(challenge, options, name=like, force=args.force, say=_study.say(args), warn=_cli.say,
                   refused_fit=Path(args.out) / "refused" / "fit.csv")


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
        from dataclasses import asdict

        from robustness.results.folder import ResultsDir
        from robustness.studies import design

        say = _study.say(args)
        options = options_from(args)
        prepared = base(args, options)
        grid = design.make_grid(prepared.config, options)
        key = design.fingerprint(prepared.config, grid, options.simulation(prepared.config), options.seed)
        out = ResultsDir(args.out, fingerprint=key, force=args.force)
        say(f"{len(grid.settings())} setting(s) x {len(grid.agreement)} agreement level(s) x {len(grid.sizes)} "
            f"size(s) x {grid.replicates} replicates -> {out.path}")
        with _study.execution(args) as n_jobs:
            result = design.run(prepared, options, cache_dir=out.path / "cache" / "design", n_jobs=n_jobs,
                                progress=_study.progress(args), say=say)
        _cli.say(result.warnings[len(prepared.warnings):])
        like = args.like or args.data
        # the challenge as read (its files, raters and foreground values): what `rank_convergence --design` checks
        result.meta["input"].update(like=like if like in (None, "synthetic") else os.path.abspath(like),
                                    challenge=prepared.fingerprint)
        _study.finish(out, result, args, argv=argv, started=started, meta={"grid": grid.as_dict(),
                                                                          "options": asdict(options)})
        if not args.quiet:
            print(_study.conclusions((out.path / "recommendation.md").read_text(), out.path,
                                     section="Recommendation"))
            print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
