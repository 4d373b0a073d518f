"""Leaderboards under several metrics and their agreement: directions, both-empty policy, the resampled unit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import kendalltau

from robustness.statistics.metric_agreement import PerImageValues, boundary_values, metric_agreement, metric_values
from robustness.synthetic.challenge import make_challenge


def test_lower_is_better_metrics_rank_the_smallest_first_and_tau_matches_scipy():
    # 3 runs, 4 images; hd95 orders the runs as jaccard does (small distance = good), assd reverses two of them
    jaccard = np.array([[0.9, 0.8, 0.9, 0.8], [0.5, 0.6, 0.5, 0.6], [0.7, 0.7, 0.7, 0.7]])
    hd95 = np.array([[1.0, 2.0, 1.0, 2.0], [9.0, 8.0, 9.0, 8.0], [5.0, 5.0, 5.0, 5.0]])
    assd = np.array([[0.5, 0.5, 0.5, 0.5], [0.2, 0.2, 0.2, 0.2], [0.9, 0.9, 0.9, 0.9]])
    values = np.stack([jaccard, hd95, assd])
    boards, agree = metric_agreement(PerImageValues(values, np.array([False, True, True]), ["jaccard", "hd95", "assd"],
                                     ["a", "b", "c"], np.array(["e1", "e1", "e2", "e2"])), n_resamples=200, rng=0)
    ranks = boards.pivot(index="run", columns="metric", values="rank")
    assert ranks["jaccard"].tolist() == [1.0, 3.0, 2.0] == ranks["hd95"].tolist()
    assert ranks["assd"].tolist() == [2.0, 1.0, 3.0]
    pair = agree.set_index(["metric_a", "metric_b"])
    assert pair.loc[("jaccard", "hd95"), "tau"] == 1.0
    want = kendalltau(ranks["jaccard"], ranks["assd"]).statistic
    assert pair.loc[("jaccard", "assd"), "tau"] == pytest.approx(want, abs=1e-12)
    # every image keeps its runs' order, so every resample of the two encounters ranks the same way
    assert (agree.tau_low == agree.tau).all() and (agree.tau_high == agree.tau).all()
    # the values' intervals come from resampled means of whole encounters
    b = boards.set_index(["metric", "run"])
    assert b.loc[("hd95", "a"), "value"] == 1.5 and b.loc[("hd95", "a"), "value_low"] >= 1.0


def test_encounters_are_resampled_whole_and_the_seed_decides():
    rng = np.random.default_rng(3)
    values = rng.random((2, 4, 6))
    clusters = np.array([0, 0, 1, 1, 2, 2])
    args = (values, np.array([False, True]), ["m1", "m2"], list("abcd"), clusters)
    one = metric_agreement(PerImageValues(*args), n_resamples=300, rng=7)[1]
    two = metric_agreement(PerImageValues(*args), n_resamples=300, rng=7)[1]
    assert one.equals(two)
    # the positional form of before PerImageValues: the same numbers, with a DeprecationWarning
    with pytest.warns(DeprecationWarning, match=r"metric_agreement\(values, lower_better, metrics, runs, clusters\)"):
        old = metric_agreement(*args, n_resamples=300, rng=7)[1]
    assert old.equals(one)
    with pytest.raises(TypeError, match="takes one PerImageValues"):
        metric_agreement(PerImageValues(*args), args[1])
    # the two images of every encounter lie symmetrically about the run's level: every encounter's mean is that
    # level, so resampling whole encounters never moves a mean (resampling images would)
    level = np.array([0.9, 0.7, 0.5, 0.3])
    swing = rng.random((2, 4, 3))
    paired = level[None, :, None] + np.stack([swing, -swing], axis=-1).reshape(2, 4, 6)
    boards, agree = metric_agreement(PerImageValues(paired, np.array([False, False]), ["m1", "m2"], list("abcd"), clusters),
                                     n_resamples=400, rng=1)
    np.testing.assert_allclose(boards.value_low, boards.value, rtol=1e-12)
    np.testing.assert_allclose(boards.value_high, boards.value, rtol=1e-12)
    assert agree.tau_low.iloc[0] == 1.0


def test_both_empty_pairs_follow_the_policy():
    ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=0)
    from robustness.overlap import compute_overlap

    counts = compute_overlap(ch, strategies=["majority"], rng=0, boundary=("nsd@2", "hd95"))
    b, c = counts.boundary.copy(), counts.counts.copy()
    b[0, 0, 1] = np.nan  # pretend run 0 and the gold are both empty on image 1: nan, and no voxel counted
    c[0, 0, 1] = 0
    nan_convention = replace(counts, boundary=b)  # nan where voxels were counted: empty_distance='nan'
    assert np.isnan(boundary_values(nan_convention, "majority", "hd95", empty="one")[0, 1])
    counts = replace(counts, boundary=b, counts=c)
    one = boundary_values(counts, "majority", "hd95", empty="one")
    zero = boundary_values(counts, "majority", "hd95", empty="zero")
    ignore = boundary_values(counts, "majority", "nsd@2", empty="ignore")
    assert one[0, 1] == 0.0 and zero[0, 1] == counts.boundary_worst[1] and np.isnan(ignore[0, 1])
    assert boundary_values(counts, "majority", "nsd@2", empty="one")[0, 1] == 1.0
    assert boundary_values(counts, "majority", "nsd@2", empty="zero")[0, 1] == 0.0
    values, lower = metric_values(counts, "majority", ["jaccard", "hd95"], empty="ignore")
    assert lower.tolist() == [False, True] and values.shape == (2, 2, 4)
    boards, _ = metric_agreement(PerImageValues(values, lower, ["jaccard", "hd95"], counts.runs, np.asarray(counts.encounters)),
                                 empty="ignore", n_resamples=50, rng=0)
    kept = np.delete(values[1, 0], 1).mean()  # the both-empty image is left out of run 0's mean
    assert boards.set_index(["metric", "run"]).loc[("hd95", counts.runs[0]), "value"] == pytest.approx(kept)
    with pytest.raises(ValueError, match="no boundary metric 'assd' was computed"):
        boundary_values(counts, "majority", "assd")


def test_coverage_simulation_knows_its_population_taus():
    """The simulation's truth: the population taus of its settings, worked out from their means by hand."""
    from robustness.simulation.metric_tau import SETTINGS, tau_interval_coverage

    # one swap among 5 runs: 9 of 10 pairs concordant, tau = (9 - 1) / 10; 10 runs with two swaps and a near-tie
    # kept in order: 43 of 45 pairs concordant, tau = 41 / 45
    want = [1.0, 0.8, 0.8, 41 / 45]
    for setting, tau in zip(SETTINGS, want):
        for labels in (False, True):
            r = tau_interval_coverage(setting, 40, n_test_sets=5, n_resamples=50, labels=labels, rng=0)
            assert r["population_tau"] == pytest.approx(tau, abs=1e-12)
            assert 0.0 <= r["coverage"] <= 1.0 and r["mean_width"] >= 0.0


@pytest.mark.parametrize("empty", ["one", "ignore"])
def test_masked_leaderboards_equal_the_subsets_alone(empty):
    """A label's leaderboard (masks) equals metric_agreement on that label's images alone: every encounter holds
    one image of each label, so both draw the same encounters from the same seed."""
    rng = np.random.default_rng(5)
    n_enc, n_lab = 7, 2
    values = rng.random((1, 4, n_enc * n_lab))
    values[0, 1, 3] = np.nan  # a both-empty pair left out under 'ignore'
    clusters = np.repeat(np.arange(n_enc), n_lab)
    labels = np.tile([1, 2], n_enc)
    masks = np.stack([labels == 1, labels == 2])
    both = np.repeat(values, 2, axis=0)
    boards, agree = metric_agreement(PerImageValues(both, np.array([False, False]), ["1", "2"], list("abcd"), clusters),
                                     empty=empty, masks=masks, n_resamples=200, rng=11)
    for k, label in enumerate((1, 2)):
        idx = labels == label
        alone, _ = metric_agreement(PerImageValues(values[:, :, idx], np.array([False]), [str(label)], list("abcd"),
                                    clusters[idx]), empty=empty, n_resamples=200, rng=11)
        got = boards[boards.metric == str(label)].reset_index(drop=True)
        cols = ["value", "value_low", "value_high", "rank", "rank_low", "rank_high"]
        np.testing.assert_allclose(got[cols].to_numpy(float), alone[cols].to_numpy(float), rtol=1e-12)
    ranks = boards.pivot(index="run", columns="metric", values="rank")
    assert agree.tau.iloc[0] == pytest.approx(kendalltau(ranks["1"], ranks["2"]).statistic, abs=1e-12)


def test_schemes_from_values_score_the_mean_over_images():
    """Macro schemes of per-image values: the mean over images, nan pairs left out under 'ignore', and the
    resampling unit grouping an encounter's images."""
    from robustness.overlap import compute_overlap
    from robustness.statistics.count_schemes import schemes_from_values

    ch = make_challenge(n_encounters=3, n_images=6, n_runs=3, n_teams=1, rng=1)
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    values = np.random.default_rng(0).random((2, 3, 6))
    values[1, 0, 2] = np.nan
    names = [("majority", "a", "macro"), ("majority", "b", "macro")]
    sch = schemes_from_values(values, names, counts, unit="encounter", empty="ignore")
    assert sch.unit == "encounter" and sch.n_units == 3 and sch.names == names
    np.testing.assert_allclose(sch.scores(), np.nanmean(values, axis=-1), rtol=1e-12)
    by_image = schemes_from_values(values, names, counts, unit="image", empty="ignore")
    assert by_image.n_units == 6
    np.testing.assert_allclose(by_image.scores(), sch.scores(), rtol=1e-12)
