"""Summarise a challenge: images, annotators per image, runs, coverage and agreement levels.

    python -m experiments.synthetic_summary [--seed 0] [--size small|realistic]

Without ``--data`` it describes the embedded synthetic challenge; with
``--data`` any challenge the loaders read.
"""

from __future__ import annotations

import argparse
import sys

from experiments import _cli, _types


def parser() -> argparse.ArgumentParser:
    """The command's argument parser.

    Returns
    -------
    argparse.ArgumentParser
        The parser of ``python -m experiments.synthetic_summary`` (an :class:`experiments._cli.Parser`): the data
        options and ``--n-jobs``.
    """
    p = _cli.Parser(prog="python -m experiments.synthetic_summary",
                    description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    p.add_argument("--n-jobs", type=_types.jobs, default=1, metavar="N",
                   help="worker processes for the pixel pass")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 once the summary is printed; a bad option or input ends in ``error: ...`` and status 2 (through
        :func:`experiments._cli.run`).
    """
    args = parser().parse_args(argv)
    from robustness.overlap import compute_overlap
    from robustness.overlap.checks import input_warnings
    from robustness.statistics.spread import agreement

    ch = _cli.load(args)
    d = ch.describe()
    oc = compute_overlap(ch, strategies=["majority"], n_jobs=args.n_jobs, rng=0)
    a = agreement(oc)
    print(f"images                 {d['images']} in {d['encounters']} encounters")
    print(f"annotators             {d['annotators']} in all; per image: "
          + ", ".join(f"{k} on {v} images" for k, v in d["annotators_per_image"].items()))
    print(f"runs                   {d['runs']}")
    print(f"image size             median {d['megapixels_median']:.3f} MP")
    print(f"majority coverage      median {a['gold_coverage_median']:.1%} "
          f"(5%-95%: {a['gold_coverage_p5']:.1%} - {a['gold_coverage_p95']:.1%}), "
          f"{a['empty_gold_images']} empty")
    print(f"annotator pairwise J   median {a['annotator_pairwise_jaccard_median']:.3f} "
          f"(10%-90%: {a['annotator_pairwise_jaccard_p10']:.3f} - {a['annotator_pairwise_jaccard_p90']:.3f})")
    print(f"run micro J vs majority best {a['run_micro_jaccard_vs_majority_best']:.3f}, "
          f"median {a['run_micro_jaccard_vs_majority_median']:.3f}, "
          f"worst {a['run_micro_jaccard_vs_majority_worst']:.3f}")
    print(f"within-encounter ICC   {a['run_jaccard_icc_median']:.3f} (per-image Jaccard of each run vs majority; "
          "one-way ANOVA ICC(1) over encounters, median over runs)")
    input_warnings(ch, oc, warn=_cli.say)  # the loader's notes were printed as it read; these are the checks'
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main))
