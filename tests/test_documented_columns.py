"""Each public function that documents the columns of the frame it returns returns those columns, in that order.

(Issue "Architecture IV", item 7: docstrings still named a ``system`` column that the code writes as ``run``.) The
documented list is the first ````a, b, c```` span of the docstring's Returns section.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from robustness.overlap import compute_overlap
from robustness.statistics import comparisons, leaderboard
from robustness.statistics.bootstrap import BootstrapResult, bootstrap
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.test_based import PairedTests
from robustness.statistics.uncertainty import ranking_uncertainty
from robustness.synthetic.challenge import make_challenge


def documented(function) -> list[str]:
    """The first ````a, b, c```` list of ``function``'s Returns section (its columns, as documented)."""
    doc = function.__doc__ or ""
    returns = doc[doc.index("Returns"):] if "Returns" in doc else doc
    spans = [s for s in re.findall(r"``([^`]+)``", returns.replace("\n", " ")) if "," in s]
    assert spans, f"{function.__qualname__} documents no column list in its Returns section"
    return [c.strip() for c in re.sub(r"\s+", " ", spans[0]).split(",") if c.strip()]


@pytest.fixture(scope="module")
def counts():
    return compute_overlap(make_challenge(n_encounters=6, n_images=10, n_runs=4, n_teams=2, rng=3), rng=0)


@pytest.fixture(scope="module")
def boot(counts) -> BootstrapResult:
    return bootstrap(schemes_from_counts(counts, unit="encounter"), n_resamples=20, rng=0)


def test_the_overlap_counts_tidy_table(counts):
    assert list(counts.to_frame().columns) == documented(type(counts).to_frame)


def test_the_scores_frame(counts):
    assert list(leaderboard.scores_frame(counts).columns) == documented(leaderboard.scores_frame)
    ranked = leaderboard.scores_frame(counts, ranks=True)
    assert list(ranked.columns) == [*documented(leaderboard.scores_frame), "rank"]


def test_the_bootstrap_tables(boot):
    assert list(boot.intervals().columns) == documented(BootstrapResult.intervals)
    assert list(boot.rank_distribution().columns) == documented(BootstrapResult.rank_distribution)


def test_the_comparisons(counts, boot):
    macro = schemes_from_counts(counts, unit="image")
    macro = macro.select([k for k, n in enumerate(macro.names) if n[2] == "macro"])
    assert list(comparisons.pairwise_tests(macro).columns) == documented(comparisons.pairwise_tests)
    strategy, metric, average = boot.schemes.names[0]
    pairs = comparisons.adjacent_pairs(boot, strategy=strategy, metric=metric, average=average)
    assert list(pairs.columns) == documented(comparisons.adjacent_pairs)
    tests = PairedTests.from_schemes(macro)
    assert list(tests.tests_frame().columns) == documented(PairedTests.tests_frame)


def test_the_distance_to_unlimited_datas_per_run_table(counts):
    _, per_run = ranking_uncertainty(schemes_from_counts(counts, unit="encounter"), n_resamples=4, rng=0)
    doc = ranking_uncertainty.__doc__
    listed = re.search(r"``per_run`` \(at ``m = N``\): ``([^`]+)``", doc.replace("\n", " "))
    assert listed is not None
    named = [c.strip() for c in re.sub(r"\s+", " ", listed.group(1)).split(",")]
    assert list(per_run.columns)[: len(named)] == named
    assert np.isin(["p_best_shared", "p_best_per_team", "p_keep_rank"], per_run.columns).all()
