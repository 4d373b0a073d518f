"""The calibration's truth: a population's expected L1 by size, the same numbers on any number of threads."""

from __future__ import annotations

import numpy as np
import pytest

from robustness import _kernels
from robustness.overlap import compute_overlap
from robustness.simulation.populations import GOLDS, encounter_schemes, population_truth
from robustness.synthetic.challenge import make_challenge


@pytest.fixture(scope="module")
def counts():
    ch = make_challenge(n_encounters=16, n_images=24, n_runs=6, n_teams=2, rng=4)
    return compute_overlap(ch, strategies=list(GOLDS), rng=0)


def _truth_by_a_loop(counts, sizes, draws, margin, seed):
    """The slow twin: one size after another, each size's resamples in batches of 100, drawn in that order."""
    rng = np.random.default_rng(seed)
    sch = encounter_schemes(counts)
    theta = sch.scores()
    e = np.empty((len(sch.names), len(sizes)))
    se = np.empty_like(e)
    for k, m in enumerate(sizes):
        per = []
        for start in range(0, draws, 100):
            scores = sch.resample_scores(rng.integers(0, sch.n_units, (min(100, draws - start), int(m))))
            per.append(np.stack([_kernels.margin_l1(theta[s][None], scores[s] - theta[s][None], 1.0, margin)[0]
                                 for s in range(len(sch.names))]))
        l1 = np.concatenate(per, axis=1)
        e[:, k], se[:, k] = l1.mean(axis=1), l1.std(axis=1, ddof=1) / np.sqrt(l1.shape[1])
    return e, se


@pytest.mark.parametrize("draws", [250, 100, 37])
def test_the_truth_is_the_same_on_any_number_of_threads_and_equals_a_loop(counts, draws):
    sizes = np.array([2, 5, 16, 64])
    want = _truth_by_a_loop(counts, sizes, draws, 0.01, 9)
    for n_jobs in (1, 2, 3):
        got = population_truth(counts, sizes=sizes, draws=draws, margin=0.01, rng=9, n_jobs=n_jobs)
        np.testing.assert_array_equal(got.expected_l1, want[0])
        np.testing.assert_array_equal(got.expected_l1_se, want[1])
    assert (want[0][:, 0] > want[0][:, -1]).all()  # the distance falls as the test set grows
