"""Shared input handling of the QA studies: definitions, gold, runs, baselines."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from experiments._cli import Parser

DEFINITIONS = "closedquestions_definitions_imageclef2025.json"


def add_qa_options(p: Parser, *, required: bool) -> None:
    from experiments._cli import renamed
    from experiments._types import existing_file

    g = p.add_argument_group("input" + ("" if required else " (default: a synthetic QA challenge)"))
    g.add_argument("--gold", required=required, type=existing_file, metavar="GOLD.json", help="gold answers")
    g.add_argument("--submissions", metavar="DIR",
                   help="folder of run answer files, one <run>.json per run" + (" (required)" if required else ""))
    renamed(g, "--runs", "--submissions", "submissions", metavar="DIR")
    if required:  # checked after parsing: its earlier name --runs gives it too
        p.checks.append(_submissions_given)
    g.add_argument("--definitions", type=existing_file, metavar="DEFS.json",
                   help=f"question definitions (default: {DEFINITIONS} next to the gold file)")
    g.add_argument("--missing-answers", dest="missing", choices=("error", "not_mentioned"), default="error",
                   help="a run missing encounters or slots: error (default) or answer 'Not mentioned' there")
    renamed(g, "--missing", "--missing-answers", "missing", choices=("error", "not_mentioned"))
    if not required:
        g.add_argument("--baselines", type=existing_file, metavar="TRAIN.json",
                       help="add baseline runs built from this (training) gold: train-majority, not-mentioned, "
                            "random, train-prior, perturbed gold at 10/25/50%% error")


def _submissions_given(args: argparse.Namespace) -> None:
    if not args.submissions:
        raise ValueError("the following arguments are required: --submissions")


def load(args, *, rng=0):
    """(gold, runs, description). Synthetic when no --gold is given. Prints what the loaders noted."""
    from experiments._cli import check_study, say
    from robustness.studies.qa import notes

    gold, runs, source = _load(args, rng=rng)
    check_study(args, n_units=len(gold.encounters), unit="encounters", n_runs=len(runs))
    say(notes(gold, runs))
    return gold, runs, source


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
    if args.submissions:
        folder = Path(args.submissions)
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
        hint = " or --baselines TRAIN.json" if hasattr(args, "baselines") else ""
        raise InputError(f"no runs to score: pass --submissions DIR{hint}")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise InputError(f"duplicate run names: {sorted({n for n in names if names.count(n) > 1})}")
    return gold, runs, str(gold_path)
