"""What every study's command line shares: the study options, the execution context, and the finish.

Nothing below this layer sees ``args``: the options become a study's frozen
options object (:mod:`robustness.studies`), the study returns a
:class:`~robustness.results.study_result.StudyResult`, and :func:`finish` saves
it, draws its figures, builds its report from the folder and writes ``meta.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from typing import TYPE_CHECKING, Any

from robustness.statistics.ranking_methods import TEST_STEP
from robustness.statistics.ranking_options import ADJUSTMENTS, TIE_RULES

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import TypeVar

    from experiments._cli import Parser
    from robustness.results.folder import ResultsDir
    from robustness.results.study_result import StudyResult

    T = TypeVar("T")


def _rankings(text: str) -> tuple:
    """``--ranking``: the registry's methods as given, validated before any work.

    The studies add the aggregate (:func:`resampling_options`).
    """
    from robustness.statistics.ranking_methods import parse_rankings

    try:
        return parse_rankings(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_study_options(p: Parser, *, out: str, unit: str = "units", test_unit: str | None = None,
                      engine_ranking: bool = True) -> None:
    """The resampling and execution options every study shares (checked when parsed: see ``_cli.Parser``).

    ``engine_ranking``: also the ranking options the resampling engines implement (``--ties``, ``--adjust``,
    ``--alpha``); the per-case table command has the full set instead (:func:`add_ranking_options`).
    """
    from experiments._types import (
        cores,
        integer,
        jobs,
        number,
        orders,
        outer_resamples,
        output_folder,
        resamples,
        scheduler_address,
        step,
    )
    from robustness.statistics.ranking_methods import RANKING_METHODS

    g = p.add_argument_group("study")
    g.add_argument("--orders", type=orders, default=200, metavar="N", help=f"random orders of {unit} (default 200)")
    g.add_argument("--step", type=step, default=1, metavar="N",
                   help="record every step-th prefix (default 1: all)")
    g.add_argument("--bootstrap", type=resamples, default=1000, metavar="B", help="bootstrap resamples (default 1000)")
    g.add_argument("--ranking", type=_rankings, default=("aggregate",), metavar="M1,M2,..",
                   help="ranking methods, several at once: " + "; ".join(
                       f"{m.name}: {m.description}".replace("%", "%%") for m in RANKING_METHODS.values())
                   + " (default aggregate; aggregate is always computed: the significance analysis and the "
                   "distance to unlimited data use it)")
    g.add_argument("--test-step", type=step, default=TEST_STEP, metavar="N",
                   help=f"test-based curves record every N-th prefix of {test_unit or unit} (default {TEST_STEP}): "
                        "every recorded prefix reruns all paired tests (measured on the default synthetic "
                        "challenge: 4 to 5 ms per recorded prefix and order, about 15 s of CPU at 200 orders and "
                        "step 5; "
                        "the main job with all three methods stays under 2 minutes)")
    g.add_argument("--tolerance", type=number(0), default=0.0, metavar="L1",
                   help="L1 at or below this counts as converged (default 0)")
    g.add_argument("--target", type=number(0), metavar="L1",
                   help="the size answers' target expected L1 to the ranking on unlimited data (default: one place "
                        "per run, or a tenth of a random order's distance where that is smaller: with fewer than "
                        "31 runs)")
    g.add_argument("--outer", type=outer_resamples, default=200, metavar="B",
                   help="outer resamples of the test set behind the interval of the distance to unlimited data "
                        "(default 200)")
    g.add_argument("--margin", type=number(0, 1), default=0.0, metavar="D",
                   help="runs whose population scores differ by at most D count as tied in the distance to "
                        "unlimited data (default 0: equal scores only; in the score's units)")
    g.add_argument("--run-groups", choices=("auto", "none"), default="auto",
                   help="the runs' groups (teams) in the prior of that estimate: 'auto' reads them from the run "
                        "names (team3-run2 is in team3), 'none' takes every run alone (default auto)")
    g.add_argument("--seed", type=integer(0), default=0, metavar="N", help="seed of everything random (default 0)")
    if engine_ranking:
        g.add_argument("--ties", choices=TIE_RULES, default="average",
                       help="tie rule of every ranking [challengeR: ties.method] (default average; random only "
                            "for the per-case table's leaderboards alone)")
        p.checks.append(fixed_ties)
        g.add_argument("--adjust", choices=ADJUSTMENTS, default="holm", dest="adjustment",
                       help="adjustment of the test-based ranking's p-values [p.adjust.method] (default holm)")
        g.add_argument("--alpha", type=number(1e-9, 0.499999), default=0.05, metavar="A",
                       help="level of the test-based ranking (default 0.05)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=output_folder, default=out, metavar="DIR", help=f"output folder (default {out})")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another input's results")
    g.add_argument("--n-jobs", type=jobs, default=cores(), metavar="N",
                   help="parallel workers: processes or threads for the pixel pass, the resampling and the figures "
                        "(default: the cores this process may use, here %(default)s; the numbers do not depend on "
                        "it)")
    g.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                   help="run on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true",
                   help="write tables only (figures are PNG; ROBUSTNESS_FIGURE_FORMATS=png,pdf adds PDF copies)")
    p.checks.append(_check_figure_formats)
    g.add_argument("--pdf", action="store_true",
                   help="also report.pdf: the report as a printable A4 document (figures included)")
    g.add_argument("--all-curves", action="store_true",
                   help="write every order's curve to curves.parquet (default: all up to 5 million rows)")
    g.add_argument("--quiet", action="store_true",
                   help="no progress (bars on a terminal, a status line every 10 s otherwise) and no conclusions on "
                        "the terminal; warnings and errors are still printed")


def add_rope_option(g) -> None:
    """``--rope``: the Bayesian signed-rank test down each per-case leaderboard (its half-width, no default)."""
    from experiments._types import positive

    g.add_argument("--rope", type=positive(), metavar="R",
                   help="also the Bayesian signed-rank test with a region of practical equivalence [-R, R] in the "
                        "score's units, between neighbours down each per-case leaderboard (Benavoli et al. 2017, "
                        "as baycomp): bayes_signed_rank.csv, a figure and a report section. One R for every "
                        "leaderboard: where their metrics have other units, rank them apart (--only-task)")


def _check_figure_formats(args: argparse.Namespace) -> None:
    """ROBUSTNESS_FIGURE_FORMATS and ROBUSTNESS_FIGURE_DPI, checked before any work."""
    if not args.no_figures:
        from figures import dpi, formats

        formats()
        dpi()


def fixed_ties(args: argparse.Namespace) -> None:
    """Random ties hold for a per-case table's leaderboards alone: curves and intervals need one final ranking."""
    if getattr(args, "ties", None) == "random" and not getattr(args, "rankings_only", False):
        only = " (the per-case table command ranks with them under --rankings-only)" \
            if not hasattr(args, "rankings_only") else \
            "; add --rankings-only for the leaderboards, consensus and bootstrap rank distributions alone"
        raise ValueError("--ties random: the curves and intervals compare thousands of prefixes and resamples with "
                         f"one final ranking and need a fixed tie rule (average, min, max or first){only}")


def add_ranking_options(p: Parser) -> None:
    """The ranking options (:mod:`robustness.statistics.ranking_options`), each beside its challengeR name."""
    from experiments._cli import renamed
    from experiments._types import number
    from robustness.statistics.ranking_options import (
        ADJUSTMENTS,
        COLLATIONS,
        PRESETS,
        R_NAMES,
        RESAMPLING,
        TESTS,
        TIE_RULES,
        parse_aggregate,
        parse_missing,
    )

    def checked(parse):
        def convert(text):
            try:
                return parse(text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        convert.__name__ = parse.__name__
        return convert

    g = p.add_argument_group("ranking (docs/ranking-options.md; challengeR's names in brackets)")
    g.add_argument("--preset", choices=tuple(PRESETS), default="package",
                   help="package: this package's defaults; challenger: challengeR's (ties min, missing scores "
                        "ranked last per case, continuity correction, no adjustment, R's arithmetic and tie "
                        "order, its bootstrap). Options given beside it win")
    g.add_argument("--ties", choices=TIE_RULES, help="tie rule [ties.method] (package: average)")
    d = g.add_mutually_exclusive_group()
    d.add_argument("--lower-better", dest="lower_better", action="store_const", const=True,
                   help="smaller scores are better, e.g. distances [smallBetter = TRUE] (default: higher is better)")
    d.add_argument("--higher-better", dest="lower_better", action="store_const", const=False,
                   help="larger scores are better [smallBetter = FALSE]")
    g.add_argument("--missing-scores", dest="missing", type=checked(parse_missing), metavar="HOW",
                   help="missing scores: refuse, worst, drop, rank-last or a number [na.treat] (package: refuse)")
    renamed(g, "--missing", "--missing-scores", "missing", type=checked(parse_missing), metavar="HOW")
    g.add_argument("--aggregate", type=checked(parse_aggregate), metavar="HOW",
                   help="mean, median, min, max or a quantile level in (0, 1) [FUN] (package: mean)")
    g.add_argument("--test", choices=TESTS, help="the test-based ranking's paired test [test.fun] (wilcoxon)")
    g.add_argument("--continuity", action=argparse.BooleanOptionalAction, default=None,
                   help="Wilcoxon with R's continuity correction [wilcox.test(correct=)] (package: off; "
                        "challenger: on)")
    g.add_argument("--adjust", choices=(*ADJUSTMENTS, *R_NAMES), dest="adjustment",
                   help="adjustment of the test-based ranking's p-values [p.adjust.method; R's names hochberg, BH, "
                        "BY are accepted] (package: holm)")
    g.add_argument("--alpha", type=number(1e-9, 0.499999), metavar="A",
                   help="level of the test-based ranking [alpha] (0.05)")
    g.add_argument("--resampling", choices=RESAMPLING,
                   help="what a case drawn k times by the leaderboards' bootstrap is: weighted (counts k times; "
                        "package) or challenger (k copies of one case, as challengeR's bootstrap: "
                        "docs/ranking-options.md)")
    g.add_argument("--collation", choices=COLLATIONS,
                   help="how names are sorted where challengeR sorts them (first/last ties, a task's absent rows "
                        "filled, bootstrap resamples): C (code points, R with LC_COLLATE=C) or locale (R in a UTF-8 "
                        "locale such as en_US.UTF-8; the default under --preset challenger)")


def ranking_options(args: argparse.Namespace):
    """The :class:`~robustness.statistics.ranking_options.RankingOptions` of the command line.

    The preset's options, then those given explicitly.
    """
    from robustness.statistics.ranking_options import with_preset

    return with_preset(args.preset, ties=args.ties, lower_better=args.lower_better, missing=args.missing,
                       aggregate=args.aggregate, test=args.test, continuity=args.continuity,
                       adjustment=args.adjustment, alpha=args.alpha, resampling=args.resampling,
                       collation=args.collation)


def progress(args: argparse.Namespace) -> bool:
    """Progress without --quiet: bars on a terminal, status lines elsewhere (:mod:`robustness.progress`)."""
    return not args.quiet


def feedback(args: argparse.Namespace):
    """The command's status lines (at least every 10 s off a terminal) unless --quiet: a context manager."""
    from robustness.progress import feedback as status

    return status(not getattr(args, "quiet", False))


@contextlib.contextmanager
def execution(args: argparse.Namespace) -> Iterator[int]:
    """The parallel backend the options ask for (local joblib or Dask); yields the ``n_jobs`` to use."""
    from robustness.parallel import parallel_backend

    with parallel_backend(args.scheduler, n_workers=max(args.n_jobs, 1)):
        yield max(args.n_jobs, 2) if args.scheduler else args.n_jobs


def resampling_options(args: argparse.Namespace, cls: Callable[..., T], **extra: Any) -> T:
    """The study's options object from the parsed command line (``cls``: a study's options dataclass)."""
    from robustness.statistics.ranking_methods import DEFAULT_RANKING

    ranking = tuple(dict.fromkeys(DEFAULT_RANKING + tuple(args.ranking)))  # always computed: the significance
    chosen = {k: getattr(args, k) for k in ("ties", "alpha", "adjustment") if getattr(args, k, None) is not None}
    return cls(**{"orders": args.orders, "step": args.step, "bootstrap": args.bootstrap, "ranking": ranking,
                  "test_step": args.test_step, "tolerance": args.tolerance, "target": args.target, "seed": args.seed,
                  "all_curves": args.all_curves, "outer": args.outer, "margin": args.margin,
                  "run_groups": args.run_groups, **chosen, **extra})


def say(args: argparse.Namespace) -> Callable[..., None]:
    """Print progress lines on stderr unless ``--quiet``; each names the stage the status line reports."""
    if getattr(args, "quiet", False):
        return lambda *a: None

    def said(*a) -> None:
        from robustness.progress import stage

        print(*a, file=sys.stderr)
        stage(" ".join(map(str, a)))

    return said


def finish(out: ResultsDir, result: StudyResult, args: argparse.Namespace, *, argv: list[str] | None,
           started: float, meta: dict | None = None) -> str:
    """Publish ``result`` into ``out`` (:func:`robustness.reporting.publish.publish`) with the command line.

    The scoring commands draw no figures (they have no ``--no-figures``).

    Returns the report as Markdown (printed by the commands unless ``--quiet``).
    """
    from experiments._options import for_command_line
    from robustness.reporting.publish import Provenance, publish

    figures: bool | Callable = False
    if not getattr(args, "no_figures", True):
        from figures import make_all  # the application's drawer, handed to the library

        figures = make_all
    command = f"python -m experiments.{result.study} " + " ".join(argv if argv is not None else sys.argv[1:])
    made = Provenance(command=command, parameters=vars(args), seed=getattr(args, "seed", None), started=started,
                      meta=meta or {})
    return publish(result, out, figures=figures, provenance=made, pdf=getattr(args, "pdf", False),
                   n_jobs=max(getattr(args, "n_jobs", 1), 1), spell=for_command_line)


def conclusions(markdown: str, folder, *, section: str = "What to conclude") -> str:
    """What the terminal gets: the report's ``section`` (its bullets) and where the whole report is.

    Parameters
    ----------
    markdown : str
        The report as Markdown.
    folder : path
        The results folder.
    section : str
        The heading of the section printed (the whole report when it has none).

    Returns
    -------
    str
    """
    from pathlib import Path

    head = f"## {section}\n"
    if head in markdown:
        part = head + "\n" + markdown.split(head, 1)[1].split("\n## ", 1)[0].strip("\n")
    else:
        part = markdown.strip("\n")
    folder = Path(folder)
    names = [n for n in ("summary.md", "recommendation.md", "report.html") if (folder / n).exists()]
    return part + "\n\nThe whole report: " + (", ".join(str(folder / n) for n in names) or f"{folder}/")


def design_answer(folder: str, *, data: str | None, out: str, strategies: Iterable[str]) -> dict:
    """The size answers of a design study on the challenge ``data`` (``--design DIR``), for the main summary.

    Read before any work: DIR must be a complete design-study folder run ``--like`` the same folder as
    ``--data``, outside ``--out``, with the majority gold among ``strategies``; its numbers must be numbers (one
    line and exit status 2 otherwise). The challenge as read is compared later (:func:`check_design_input`).

    Parameters
    ----------
    folder : str
        The design study's results folder.
    data : str or None
        The main job's ``--data``.
    out : str
        The main job's ``--out``.
    strategies : iterable of str
        The main job's gold strategies.

    Returns
    -------
    dict
        ``folder``, ``twin`` (its size for majority, micro Jaccard: a recommendation_sizes.csv row), ``target``,
        ``differs`` (what the twin assumes differently, from its fit.csv), ``unit``, ``challenge`` (the
        fingerprint of the challenge it read), ``fit_failed`` (the statistics its twin failed, planned with
        --force: then nothing is compared) and ``resolution`` (the twin's at the challenge's size, or None).
    """
    from robustness.errors import InputError
    from robustness.reporting.sections.design_twin import failed_fit
    from robustness.results.meta import DesignMeta
    from robustness.results.study_result import StudyResult
    from robustness.statistics.ranks import size_target
    from robustness.studies.design import differing_assumptions, unit_name

    _check_design_folder(folder, data=data, out=out, strategies=strategies)
    res = StudyResult.load(folder)
    if res.study != "design_study":
        raise InputError(f"{folder}: --design names a design study's results folder; this one holds "
                         f"{res.study or 'no study'}")
    meta = DesignMeta.of(res)  # every field it reads, checked once
    read = _design_challenge(folder, meta, str(data))  # data: checked above
    target = size_target(meta.runs, meta.target_l1)
    if not (math.isfinite(target) and target > 0):
        raise InputError(f"{folder}: its target L1 {target:g} is not a positive number")
    try:
        row = _twin_size(folder, res)
        differs = differing_assumptions(res.table("fit.csv") if res.has("fit.csv") else None)
        failed = failed_fit(res)
        resolution = _twin_resolution(folder, res)
    except InputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # its tables, not its meta.json
        raise InputError(f"{folder}: damaged design-study folder ({type(exc).__name__}: {exc}); run the design "
                         "study again") from None
    return {"folder": str(folder), "twin": row, "differs": differs, "unit": unit_name(meta.base), "target": target,
            "challenge": read, "fit_failed": failed, "resolution": resolution}


def _check_design_folder(folder: str, *, data: str | None, out: str, strategies: Iterable[str]) -> None:
    """``--design DIR``'s options, before the folder is read: a folder, with ``--data``, apart from ``--out``."""
    from robustness.errors import InputError
    from robustness.scheme import DEFAULT

    if not folder:
        raise InputError("--design: empty folder name")
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: --design names a design study's results folder; this is "
                         + ("not a folder" if os.path.exists(folder) else "not there"))
    if data is None:
        raise InputError(f"{folder}: --design compares a design study with this job on the same challenge: give "
                         "--data (the folder the design study read with --like)")
    here, there = os.path.realpath(out), os.path.realpath(folder)
    if here == there or here.startswith(there + os.sep) or there.startswith(here + os.sep):
        raise InputError(f"{out}: --out and --design {folder} overlap; write the results elsewhere")
    if DEFAULT.strategy not in strategies:
        raise InputError(f"--design compares sizes under {DEFAULT.strategy}, {DEFAULT.average} "
                         f"{DEFAULT.metric}: keep {DEFAULT.strategy} in --strategies")


def _design_challenge(folder: str, meta, data: str) -> str:
    """The fingerprint of the challenge the design study read; it must have been run ``--like`` ``data``."""
    from robustness.errors import InputError

    if meta.like is None or meta.like == "synthetic" or not os.path.isabs(meta.like):
        raise InputError(f"{folder}: a design study not run --like a folder of masks ({meta.like!r}); run it again "
                         "with --like the --data of this job")
    if os.path.realpath(meta.like) != os.path.realpath(data):
        raise InputError(f"{folder}: a design study of {meta.like}, not of {data} (--design needs one run --like "
                         "this --data)")
    if meta.challenge is None:
        raise InputError(f"{folder}: the design study does not record the challenge it read (written before "
                         "--design existed): run it again")
    return meta.challenge


def _twin_size(folder: str, res) -> dict:
    """The twin's size for the default scheme: recommendation_sizes.csv's row, checked to be a size and interval."""
    from robustness.errors import InputError
    from robustness.scheme import DEFAULT

    sizes = res.table("recommendation_sizes.csv")
    twin = sizes[(sizes.strategy == DEFAULT.strategy) & (sizes.average == DEFAULT.average)]
    if len(twin) != 1:
        raise InputError(f"{folder}: recommendation_sizes.csv holds {len(twin)} rows for {DEFAULT.strategy}, "
                         f"{DEFAULT.average}, not one")
    columns = ("encounters_for_l1", "encounters_for_l1_optimistic", "encounters_for_l1_conservative", "largest_size")
    size = {c: float(twin[c].iloc[0]) for c in columns}
    ends = [abs(size[c]) for c in columns[1:3] if math.isfinite(size[c])]
    if not (math.isfinite(size["largest_size"]) and size["largest_size"] >= 1 and all(ends)
            and (len(ends) < 2 or ends[0] <= ends[1]) and not size["encounters_for_l1"] == math.inf):
        raise InputError(f"{folder}: recommendation_sizes.csv's {DEFAULT.strategy}, {DEFAULT.average} row is not a "
                         "size with its interval")
    return {"strategy": DEFAULT.strategy, "average": DEFAULT.average} | size


def _twin_resolution(folder: str, res) -> dict | None:
    """The twin's resolution at the size nearest the challenge's, for the default scheme (None: not there)."""
    from robustness.errors import InputError
    from robustness.scheme import DEFAULT

    if not res.has("resolution.csv"):
        return None
    t = res.table("resolution.csv")
    t = t[(t.strategy == DEFAULT.strategy) & (t.metric == DEFAULT.metric) & (t.average == DEFAULT.average)]
    if not len(t):
        return None
    at = t.iloc[int((t.units - t.test_units).abs().to_numpy().argmin())]
    resolution = {k: float(at[k]) for k in ("resolution", "resolution_low", "resolution_high", "units")}
    if not all(math.isfinite(v) for v in resolution.values()):
        raise InputError(f"{folder}: resolution.csv's {DEFAULT.strategy}, {DEFAULT.average} row is not a number with "
                         "its interval")
    return resolution


def check_design_input(design: dict, challenge) -> None:
    """Refuse a design study that read the challenge otherwise (other raters, runs or foreground values).

    Parameters
    ----------
    design : dict
        :func:`design_answer`'s.
    challenge : Challenge
        The challenge this job read.
    """
    from robustness.errors import InputError

    if design["challenge"] != challenge.fingerprint():
        raise InputError(f"{design['folder']}: the design study read this folder otherwise (other gold or runs, "
                         "other foreground values or files changed since): run it with this job's data options")
