"""Shared input handling of the QA studies: definitions, gold, runs, baselines."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFINITIONS = "closedquestions_definitions_imageclef2025.json"


def add_qa_options(p: argparse.ArgumentParser, *, required: bool) -> None:
    from experiments._cli import existing_file

    g = p.add_argument_group("input" + ("" if required else " (default: a synthetic QA challenge)"))
    g.add_argument("--gold", required=required, type=existing_file, metavar="GOLD.json", help="gold answers")
    g.add_argument("--runs", required=required, metavar="DIR",
                   help="folder of run answer files, one <run>.json per run")
    g.add_argument("--definitions", type=existing_file, metavar="DEFS.json",
                   help=f"question definitions (default: {DEFINITIONS} next to the gold file)")
    g.add_argument("--missing", choices=("error", "not_mentioned"), default="error",
                   help="a run missing encounters or slots: error (default) or answer 'Not mentioned' there")
    if not required:
        g.add_argument("--baselines", type=existing_file, metavar="TRAIN.json",
                       help="add baseline runs built from this (training) gold: train-majority, not-mentioned, "
                            "random, train-prior, perturbed gold at 10/25/50%% error")


def load(args, *, rng=0):
    """(gold, runs, description). Synthetic when no --gold is given. Prints what the loaders noted."""
    from experiments._cli import check_study, say

    gold, runs, source = _load(args, rng=rng)
    check_study(args, n_units=len(gold.encounters), unit="encounters", n_runs=len(runs))
    say(notes(gold, runs))
    return gold, runs, source


def notes(gold, runs) -> list[str]:
    """What reading the answer files noted (cut encounter ids, ignored encounters, filled slots)."""
    return [n for a in [gold, *runs] for n in a.notes]


def _load(args, *, rng=0):
    from robustness.errors import InputError
    from robustness.qa import baselines, load_answers, load_definitions, make_qa_challenge

    if args.gold is None:
        gold, runs = make_qa_challenge(rng=rng)
        return gold, runs, f"synthetic QA challenge (seed {rng})"
    gold_path = Path(args.gold)
    if not gold_path.is_file():
        raise InputError(f"{gold_path}: gold answers file not found")
    defs = Path(args.definitions) if args.definitions else gold_path.with_name(DEFINITIONS)
    if not defs.exists():
        raise InputError(f"{defs}: question definitions not found next to the gold file (pass --definitions)")
    qs = load_definitions(defs)
    gold = load_answers(gold_path, qs, name="gold")
    runs = []
    if args.runs:
        folder = Path(args.runs)
        if not folder.is_dir():
            raise InputError(f"{folder}: runs folder not found")
        files = sorted(folder.glob("*.json"))
        if not files:
            raise InputError(f"{folder}: no <run>.json answer files found")
        runs += [load_answers(f, qs, encounters=gold.encounters, missing=args.missing) for f in files]
    if getattr(args, "baselines", None):
        train = load_answers(args.baselines, qs, name="train")
        runs += baselines(train, gold, rng=rng)
    if not runs:
        raise InputError("no runs to score: pass --runs DIR" + (" or --baselines TRAIN.json" if hasattr(args, "baselines") else ""))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise InputError(f"duplicate run names: {sorted({n for n in names if names.count(n) > 1})}")
    return gold, runs, str(gold_path)


def fingerprint(gold, runs) -> str:
    import hashlib

    h = hashlib.sha256()
    for a in [gold, *runs]:
        h.update(a.name.encode())
        h.update("|".join(a.encounters).encode())
        h.update(a.values.tobytes())
    return h.hexdigest()


def leaderboard(gold, runs):
    """Official results of every run: a frame (one row per run, best accuracy_all first) and the dicts."""
    import pandas as pd

    from robustness.qa import official_results

    res = {r.name: official_results(gold, r) for r in runs}
    board = pd.DataFrame(res).T.drop(columns="number_cvqa_instances")
    board.index.name = "run"
    return board.sort_values("accuracy_all", ascending=False, kind="stable"), res


def answer_counts(gold, runs, *, n_resamples: int = 1000, rng=0):
    """Table 5, with and without 'Not mentioned': each mean with its percentile bootstrap interval over encounters."""
    import numpy as np
    import pandas as pd

    from robustness.qa import answer_count_difference
    from robustness.statistics.inference import mean_interval

    rows = []
    for r in runs:
        for include in (False, True):
            d = answer_count_difference(gold, r, include_not_mentioned=include, per_encounter=True)
            row = {"run": r.name, "include_not_mentioned": include}
            for parent, values in d.items():
                low, high = mean_interval(values, n_resamples=n_resamples, rng=np.random.default_rng([rng, 7]))
                row |= {parent: float(values.mean()), f"{parent}_low": low, f"{parent}_high": high}
            rows.append(row)
    return pd.DataFrame(rows)
