"""The main job: how robust the leaderboard is to the gold standard and to the test-set size.

    python -m experiments.rank_convergence [--data CHALLENGE] [--out results/rank_convergence]

Reproduces the MEDIQA-MAGIC 2025 overview's robustness analysis (Figures 2
and 3: L1 rank change as test images are added in random order; Table 4:
standard deviations from the annotators' spread) with many orders and bands,
bootstrap confidence intervals, rank stability and pairwise comparisons, under
one or more ranking methods (``--ranking``), and writes tidy tables, figures
(PNG; PDF copies with ``ROBUSTNESS_FIGURE_FORMATS=png,pdf``), ``summary.md``
and ``meta.json``. Without ``--data`` it studies the embedded synthetic challenge.
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import _cli, _study, _types


def parser() -> argparse.ArgumentParser:
    """The command's options (checked when parsed: one line ``error: ...`` and exit status 2)."""
    p = _cli.Parser(prog="python -m experiments.rank_convergence",
                    description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("scoring")
    _cli.add_scoring_options(g)
    g.add_argument("--unit", choices=("image", "encounter"), default="image",
                   help="unit added one by one in the random orders (default image, as in the paper)")
    g.add_argument("--bootstrap-unit", choices=("image", "encounter"), default="encounter",
                   help="unit resampled by the bootstrap (default encounter: its images are not independent)")
    g.add_argument("--boundary", metavar="M1,M2,..", type=_types.boundary_list, default=(),
                   help="boundary metrics per image with the voxel spacing (nsd@<tolerance> or one per label "
                        "nsd@kidney=1.033/tumor=1.15, hd95, hd<P>, assd, masd, hd, volume_similarity, "
                        "abs_volume_difference) and "
                        "lesion-wise ones (lesion_dice, lesion_jaccard, lesion_hd95, lesion_hd95_pooled, "
                        "lesion_nsd@<tolerance>, "
                        "lesion_f1, lesion_precision, lesion_recall, pq, sq, fp_lesions, fn_lesions, fp_volume, "
                        "fn_volume; BraTS 2023's brats_dice, brats_hd95; docs/volumes.md), "
                        "ranked beside the overlap metrics under the headline gold: does the metric change the "
                        "ranking? (default none)")
    g.add_argument("--empty-distance", metavar="diagonal|NUMBER", type=_types.empty_distance,
                   default="diagonal",
                   help="boundary metrics: the distance between an empty and a non-empty mask (default diagonal, the "
                        "image's largest distance between two voxel centres; or a number such as BraTS's 373.13; "
                        "MetricsReloaded's nan and DeepMind's inf are the library's, no leaderboard ranks by them)")
    g.add_argument("--one-slice", choices=("2d", "3d"), default="2d",
                   help="boundary metrics on a volume of one slice (1 x H x W): 2d scores the image it is (default; "
                        "SimpleITK, seg-metrics), 3d a slab whose every voxel is border (MetricsReloaded, MONAI)")
    g.add_argument("--border", choices=("face", "full"), default="face",
                   help="boundary metrics: border voxels have a background neighbour across a face (default; "
                        "MetricsReloaded) or across a face, an edge or a corner (full; seg-metrics)")
    g.add_argument("--min-lesion-size", metavar="N|Vmm3", type=_types.lesion_size,
                   help="lesion-wise metrics (lesion_*, pq, sq): connected components smaller than N voxels (or V "
                        "mm^3, e.g. 10mm3) are not lesions in either mask, neither matched nor counted (default 0: "
                        "every component counts, as panoptica; brats_* keep BraTS's own thresholds)")
    _cli.add_primary_option(g)
    _study.add_rope_option(g)
    g.add_argument("--resolve", type=_types.positive(), metavar="D",
                   help="a true difference in the headline metric's units (e.g. 0.02 Jaccard): the number of "
                        "units at which the paired test declares it with 80%% power, per scheme of that metric "
                        "(resolve.csv and the report's size bullet; the resolution at every size is always in "
                        "resolution.csv)")
    g.add_argument("--design", metavar="DIR",
                   help="a design study's results folder on this challenge (--like the same --data): the summary "
                        "then puts the twin's size answer beside this job's and says whether they agree")
    _study.add_study_options(p, out="results/rank_convergence", unit="images",
                             test_unit="the bootstrap unit (the tests' unit; default encounters)")
    return p


def main(argv=None) -> int:
    """Run the command on ``argv`` (default: the command line); returns the exit status."""
    p = parser()
    args = p.parse_args(argv)
    with _study.feedback(args):
        started = time.time()
        from robustness.errors import InputError
        from robustness.results.folder import ResultsDir
        from robustness.statistics.ranks import check_target
        from robustness.studies.rank_convergence import RankConvergenceOptions, run

        golds = tuple(s.name for s in _cli.strategies(args))
        try:
            options = _study.resampling_options(
                args, RankConvergenceOptions, strategies=golds, empty=args.empty, unit=args.unit,
                bootstrap_unit=args.bootstrap_unit, boundary=args.boundary, primary=_cli.primary_scheme(args, golds),
                rope=args.rope, resolve=args.resolve, empty_distance=args.empty_distance, one_slice=args.one_slice,
                border=args.border, min_lesion_size=args.min_lesion_size or "0 voxels")
            primary = options.primary
            assert primary is not None  # primary_scheme gives one
            _cli.check_label_tolerances(options.boundary + (primary.metric,), args)
        except ValueError as exc:  # an option that contradicts another (e.g. --primary's gold not among --strategies)
            p.error(str(exc))
        say = _study.say(args)
        design = (None if args.design is None else
                  _study.design_answer(args.design, data=args.data, out=args.out, strategies=golds))
        challenge = _cli.load(args)
        check_target(options.target, challenge.n_runs)
        labels = getattr(challenge.source, "labels", None)
        if labels is not None:
            try:
                _cli.check_label_tolerances(options.boundary + (primary.metric,), args, found=labels)
            except ValueError as exc:
                raise InputError(f"{args.data}: {exc}") from None
        if design is not None:
            _study.check_design_input(design, challenge)
        out = ResultsDir(args.out, fingerprint=challenge.fingerprint(), force=args.force)
        say(f"{challenge.n_images} images, {challenge.n_runs} runs, {challenge.n_annotators} annotators -> {out.path}")
        with _study.execution(args) as n_jobs:
            result = run(challenge, options, n_jobs=n_jobs, cache_dir=out.path / "cache",
                         progress=_study.progress(args), source=_cli.source(args))
        _cli.say(result.meta["checks"] + result.meta["study_notes"])  # the loader's notes were printed as read
        result.meta["input"].update(data=_cli.data_description(args), reading=_cli.reading(args))
        result.meta["primary"]["set_by"] = "organiser" if args.primary else "default"  # the command resolves it
        if design is not None:
            result.meta["design_answer"] = design
        text = _study.finish(out, result, args, argv=argv, started=started)
        if not args.quiet:
            print(_study.conclusions(text, out.path))
            print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
        return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
