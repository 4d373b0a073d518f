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

import sys
import time

from experiments import _cli, _study


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

    value = _cli.number(0.0)(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}")
    return value


def parser():
    integer, number = _cli.integer, _cli.number
    p = _cli.Parser(prog="python -m experiments.design_study", description=__doc__.split("\n\n")[0])
    _cli.add_data_options(p)
    g = p.add_argument_group("the challenge to plan for")
    g.add_argument("--like", metavar="CHALLENGE",
                   help="fit the generator to this challenge (layout options as above; 'synthetic': the embedded "
                        "default challenge, a self-check of the fit); default: the generator's defaults, unfitted")
    p.checks.insert(0, _like_is_the_data)  # before the data options' checks: --like CHALLENGE names the data
    g = p.add_argument_group("the grid (comma-separated; defaults around the base challenge)")
    g.add_argument("--encounters", type=_listed(integer(2, 10_000)), metavar="N1,N2,..",
                   help="test-set sizes (default N/4, N/2, N, 2N)")
    g.add_argument("--annotators", type=_listed(integer(1, 16)), metavar="K1,K2,..",
                   help="annotators per image (default k and k+1)")
    g.add_argument("--agreement", type=_listed(_fraction), metavar="A1,A2,..",
                   help="annotator agreement, 1.0 = annotators equal the truth (default a-0.2, a, 1.0)")
    g.add_argument("--spread", type=_listed(_fraction), metavar="S1,..",
                   help="spread of the runs' true skill (default the base's)")
    g.add_argument("--runs", type=_listed(integer(2, 100)), metavar="R1,..", help="number of runs (default the base's)")
    g.add_argument("--correlation", type=_listed(_fraction), metavar="C1,..",
                   help="within-encounter correlation (default the base's)")
    g.add_argument("--replicates", type=integer(2, 1_000), help="seeded replicates per setting (default 20; --quick 4)")
    g.add_argument("--populations", type=integer(1, 100),
                   help="distinct run populations the replicates cycle through (default 4; --quick 2)")
    g.add_argument("--pool", type=integer(4, 20_000),
                   help="encounters of each population's pool (default 1000; --quick 300)")
    g.add_argument("--orders", type=_cli.orders, help="random orders per test set (default 100; --quick 40)")
    g.add_argument("--bootstrap", type=integer(2, _cli.MAX_RESAMPLES),
                   help="bootstrap resamples per test set (default 300; --quick 150)")
    g.add_argument("--image-mp", type=number(0.0001, 12), metavar="MP",
                   help="simulated image size in megapixels (default: enough for median lesions of 150 pixels; "
                        "75 with --quick)")
    g.add_argument("--target-l1", type=number(0),
                   help="target expected L1 to the population ranking (default: the number of runs, one place each)")
    g.add_argument("--target-top1", type=_fraction, default=0.9,
                   help="target share of replicates with the true best run ranked first (default 0.9)")
    g.add_argument("--quick", action="store_true", help="a small grid that runs in under 5 minutes on 2 cores")
    g.add_argument("--seed", type=integer(0), default=0, help="seed of everything random (default 0)")
    g = p.add_argument_group("execution")
    g.add_argument("--out", type=_cli.output_folder, default="results/design_study", metavar="DIR",
                   help="output folder (default results/design_study)")
    g.add_argument("--force", action="store_true", help="overwrite an output folder holding another grid's results")
    g.add_argument("--n-jobs", type=_cli.jobs, default=1, help="parallel workers (default 1)")
    g.add_argument("--scheduler", type=_cli.scheduler_address, metavar="ADDRESS",
                   help="run on a Dask cluster ('local' starts one)")
    g.add_argument("--no-figures", action="store_true", help="write tables only")
    g.add_argument("--quiet", action="store_true", help="no progress bars, no report on the terminal")
    return p


def _like_is_the_data(args) -> None:
    if args.like is not None and args.like != "synthetic":
        if args.data is not None and args.data != args.like:
            raise ValueError(f"--like {args.like} and --data {args.data} name two challenges; give one")
        args.data = args.like


def base_challenge(args, say):
    """The base generator parameters, and the fit table when --like is given."""
    from robustness.simulation.synthetic import SyntheticConfig

    if args.like is None and args.data is None:
        return SyntheticConfig(), None
    from robustness.overlap import compute_overlap
    from robustness.simulation.calibrate import challenge_stats, fit

    if args.like == "synthetic" or (args.like is None and args.data == "synthetic"):
        from robustness.simulation.synthetic import make_challenge

        challenge = make_challenge(rng=args.synthetic_seed)
    else:
        args.data = args.like or args.data
        challenge = _cli.load(args)
    say(f"fitting the generator to {args.like or args.data} ({challenge.n_images} images, {challenge.n_runs} runs)")
    target = challenge_stats(compute_overlap(challenge, strategies=["majority"], rng=0))
    config, comparison = fit(target, seed=args.seed, megapixels=image_megapixels(args, target["coverage_median"]))
    return config, comparison


def image_megapixels(args, median_coverage: float) -> float:
    """The simulated images' size: --image-mp, else enough for median lesions of 150 pixels (75 with --quick)."""
    import numpy as np

    return args.image_mp or float(np.clip((75 if args.quick else 150) / (median_coverage * 1e6), 0.0006, 0.004))


def grid(args, base):
    """The grid's lists, from the options or around ``base``."""
    import numpy as np

    n = base.n_encounters
    k = base.min_annotators
    a = base.agreement
    quick = args.quick
    sizes = args.encounters or sorted({max(5, int(round(n * f))) for f in (0.25, 0.5, 1, 2)})
    annotators = args.annotators or [k, min(k + 1, 16)]
    agreement = args.agreement or sorted({float(np.clip(round(a - 0.2, 3), 0, 1)), round(a, 3), 1.0})
    spread = args.spread or [round(base.skill_range[1] - base.skill_range[0], 4)]
    runs = args.runs or [base.n_runs]
    correlation = args.correlation or [round(base.encounter_correlation, 4)]
    replicates = args.replicates or (4 if quick else 20)
    populations = min(replicates, args.populations or (2 if quick else 4))
    return dict(sizes=sizes, annotators=annotators, agreement=agreement, spread=spread, runs=runs,
                correlation=correlation, replicates=replicates, populations=populations)


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    started = time.time()
    import hashlib
    import json
    from dataclasses import asdict

    import numpy as np
    import pandas as pd

    from experiments import _design_report
    from robustness.parallel import parallel_backend, progress_bar, run_batches
    from robustness.reporting.results import ResultsDir, atomic_write, versions
    from robustness.simulation.design import DesignOptions, Setting, recommend, summarise

    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))
    base, fit_table = base_challenge(args, say)
    g = grid(args, base)
    megapixels = image_megapixels(args, float(np.sqrt(base.coverage_range[0] * base.coverage_range[1])))
    options = DesignOptions(pool_encounters=args.pool or (300 if args.quick else 1000),
                            n_orders=args.orders or (40 if args.quick else 100),
                            n_resamples=args.bootstrap or (150 if args.quick else 300), megapixels=megapixels)
    settings = [Setting(annotators=k, agreement=float(g["agreement"][0]), spread=s, runs=r, correlation=c)
                for k in g["annotators"] for s in g["spread"] for r in g["runs"] for c in g["correlation"]]
    payload = json.dumps({"base": asdict(base), "grid": g, "options": options.fingerprint(), "seed": args.seed},
                         sort_keys=True, default=str)
    fingerprint = hashlib.sha256(payload.encode()).hexdigest()
    out = ResultsDir(args.out, fingerprint=fingerprint, force=args.force)
    parts = out.path / "cache" / "design" / fingerprint[:16]
    parts.mkdir(parents=True, exist_ok=True)
    say(f"{len(settings)} setting(s) x {len(g['agreement'])} agreement level(s) x {len(g['sizes'])} size(s) x "
        f"{g['replicates']} replicates -> {out.path}")

    # the populations' pools (shared by every setting with the same runs), then the replicates
    pool_keys = sorted({(s.spread, s.runs, s.correlation) for s in settings})
    jobs = [(key, p) for key in pool_keys for p in range(g["populations"])]
    pools = {}
    todo = []
    for key, p in jobs:
        path = parts / f"pool-{key[0]:g}-{key[1]}-{key[2]:g}-p{p}.json"
        if path.exists():
            data = json.loads(path.read_text())
            pools[(key, p)] = {tuple(k.split("|")): np.array(v) for k, v in data.items()}
        else:
            todo.append((key, p, path))
    with parallel_backend(args.scheduler, n_workers=max(args.n_jobs, 1)):
        n_jobs = max(args.n_jobs, 2) if args.scheduler else args.n_jobs
        batches = [(base, Setting(settings[0].annotators, settings[0].agreement, key[0], key[1], key[2]), g["sizes"],
                    p, args.seed, options) for key, p, _ in todo]
        bar = progress_bar(_study.progress(args), len(batches), "population pools", unit="pool")
        for (key, p, path), scores in zip(todo, run_batches(_pool, batches, n_jobs=n_jobs, progress=bar)):
            pools[(key, p)] = scores
            atomic_write(path, lambda f, s=scores: f.write(json.dumps(
                {"|".join(k): v.tolist() for k, v in s.items()}).encode()))
        replicate_jobs = [(s, r) for s in settings for r in range(g["replicates"])]
        done = {(s.key, r): parts / f"{s.key}-r{r}.parquet" for s, r in replicate_jobs}
        todo = [(s, r) for s, r in replicate_jobs if not (done[(s.key, r)].exists()
                                                          and done[(s.key, r)].with_suffix(".coverage.parquet").exists())]
        if len(todo) < len(replicate_jobs):
            say(f"resuming: {len(replicate_jobs) - len(todo)} of {len(replicate_jobs)} replicates already done")
        batches = [(base, s, g["agreement"], g["sizes"], r, r % g["populations"],
                    pools[((s.spread, s.runs, s.correlation), r % g["populations"])], args.seed, options)
                   for s, r in todo]
        bar = progress_bar(_study.progress(args), len(batches), "replicates", unit="replicate")
        for (s, r), (rows, cov) in zip(todo, run_batches(_replicate, batches, n_jobs=n_jobs, progress=bar)):
            for frame, path in ((rows, done[(s.key, r)]), (cov, done[(s.key, r)].with_suffix(".coverage.parquet"))):
                atomic_write(path, lambda f, frame=frame: frame.to_parquet(f, index=False))
    design = pd.concat([pd.read_parquet(done[(s.key, r)]) for s, r in replicate_jobs], ignore_index=True)
    coverage = pd.concat([pd.read_parquet(done[(s.key, r)].with_suffix(".coverage.parquet"))
                          for s, r in replicate_jobs], ignore_index=True)
    summary, coverage_summary = summarise(design, coverage)
    out.write_csv("design.csv", design, index=False)
    out.write_csv("coverage.csv", coverage, index=False)
    out.write_csv("design_summary.csv", summary, index=False)
    out.write_csv("coverage_summary.csv", coverage_summary, index=False)
    if fit_table is not None:
        out.write_csv("fit.csv", fit_table, index=False)
    base_setting = Setting(annotators=base.min_annotators if base.min_annotators in g["annotators"] else
                           g["annotators"][0],
                           agreement=min(g["agreement"], key=lambda a: abs(a - base.agreement)),
                           spread=g["spread"][0], runs=g["runs"][0], correlation=g["correlation"][0])
    size = min(g["sizes"], key=lambda n: abs(n - base.n_encounters))
    out.write_json("design_base.json", asdict(base_setting) | {"size": size, "target_l1": args.target_l1
                                                               if args.target_l1 is not None else base_setting.runs})
    target_l1 = args.target_l1 if args.target_l1 is not None else float(base_setting.runs)
    rec = recommend(design, summary, coverage_summary, base=base_setting, size=size, target_top1=args.target_top1,
                    target_l1=target_l1, pool_encounters=options.pool_encounters)
    out.write_csv("recommendation_sizes.csv", rec["sizes"], index=False)
    report = _design_report.report(rec, summary, g, base, base_setting, fit_table, options, args)
    out.write_text("recommendation.md", _design_report.recommendation_markdown(report))
    _study.finish(out, args, study="design_study", argv=argv, started=started, report=report, meta={
        "input": {"like": args.like or args.data, "base": asdict(base), "fingerprint": fingerprint},
        "grid": g, "options": asdict(options), "versions": versions()})
    if not args.quiet:
        print(_design_report.recommendation_markdown(report))
        print(f"wrote {out.path}/ in {time.time() - started:.1f} s")
    return 0


def _pool(base, setting, sizes, population, seed, options):
    from robustness.simulation.design import population_scores

    return population_scores(base, setting, sizes, population, seed=seed, options=options)


def _replicate(base, setting, agreements, sizes, replicate, population_index, population, seed, options):
    from robustness.simulation.design import simulate

    return simulate(base, setting, agreements, sizes, replicate, population_index=population_index,
                    population=population, seed=seed, options=options)


if __name__ == "__main__":
    sys.exit(_cli.run(main))
