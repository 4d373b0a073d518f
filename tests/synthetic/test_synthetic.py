"""The embedded synthetic challenge: structure, determinism, agreement levels."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from robustness.overlap import compute_overlap
from robustness.overlap.metrics import micro
from robustness.statistics.spread import agreement
from robustness.synthetic.challenge import SyntheticConfig, make_challenge, true_mask


@pytest.fixture(scope="module")
def default_challenge():
    return make_challenge(rng=0)


@pytest.fixture(scope="module")
def default_counts(default_challenge):
    return compute_overlap(default_challenge, strategies=["majority"], rng=0)


def test_paper_scale_structure(default_challenge):
    ch = default_challenge
    assert ch.n_images == 314 and len(set(ch.encounters)) == 100
    per_enc = np.bincount(ch.encounter_codes())
    assert per_enc.min() >= 1 and per_enc.max() <= 6
    k = ch.annotated.sum(axis=1)
    assert set(k.tolist()) == {3, 4} and (k == 3).mean() > 0.5  # 3, sometimes 4
    assert ch.n_annotators == 4 and ch.n_runs == 40
    teams = set(ch.source.team.values())
    assert 4 <= len(teams) <= 6
    assert all(sum(1 for t in ch.source.team.values() if t == team) >= 1 for team in teams)


def test_deterministic_under_seed():
    a = make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=11)
    b = make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=11)
    c = make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=12)
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()
    for i in (8, 0, 3):  # access order does not matter
        for s in a.runs:
            np.testing.assert_array_equal(a.run_mask(i, s), b.run_mask(i, s))
        for k, m in a.annotator_masks(i).items():
            np.testing.assert_array_equal(m, b.annotator_masks(i)[k])
    assert a.shapes != c.shapes  # another seed, another challenge
    # picklable (workers) and identical after the round trip
    d = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(d.run_mask(4, d.runs[1]), a.run_mask(4, a.runs[1]))


@pytest.mark.slow
def test_agreement_levels_like_the_real_challenge(default_counts):
    a = agreement(default_counts)
    assert 0.58 <= a["run_micro_jaccard_vs_majority_best"] <= 0.68
    assert 0.18 <= a["run_micro_jaccard_vs_majority_worst"] <= 0.32
    assert 0.6 <= a["annotator_pairwise_jaccard_median"] <= 0.7
    # lesions from under 1% to over 40% of the image
    assert a["gold_coverage_p5"] < 0.01 and a["gold_coverage_p95"] > 0.4


@pytest.mark.slow
def test_true_skill_drives_scores(default_challenge, default_counts):
    j = micro(default_counts.strategy_counts("majority"), "jaccard")
    skill = np.array([default_challenge.source.skill[s] for s in default_challenge.runs])
    from scipy.stats import spearmanr

    assert spearmanr(j, skill).statistic > 0.8


def test_truth_and_masks_shapes():
    ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=5)
    for i in range(ch.n_images):
        t = true_mask(ch, i)
        assert t.shape == ch.shapes[i] and t.dtype == bool and t.any()


def test_realistic_sizes_option():
    ch = make_challenge(n_encounters=10, n_images=20, n_runs=2, n_teams=1, size="realistic", rng=0)
    mp = ch.n_pixels / 1e6
    assert mp.min() >= 0.25 and mp.max() <= 13 and np.median(mp) > 0.8


def test_config_validation():
    with pytest.raises(ValueError, match="n_images must be >= n_encounters"):
        SyntheticConfig(n_encounters=10, n_images=5)
    with pytest.raises(ValueError, match="size must be 'small' or 'realistic'"):
        SyntheticConfig(size="huge")
    with pytest.raises(ValueError, match="depth must be >= 1 slice"):
        SyntheticConfig(depth=0)
    with pytest.raises(ValueError, match="spacing must be three positive voxel sizes"):
        SyntheticConfig(depth=4, spacing=(1.0, 0.0, 1.0))


# -- volumes: the same generator in 3D ---------------------------------------------------------------------------

VOLUMES = dict(n_encounters=12, n_images=24, n_runs=6, n_teams=3, depth=10, spacing=(2.5, 0.8, 0.8),
               megapixels=0.004)


@pytest.mark.slow
def test_volumes_have_depth_spacing_and_a_3d_lesion():
    ch = make_challenge(rng=1, **VOLUMES)
    assert all(len(s) == 3 and s[0] == 10 for s in ch.shapes) and ch.spacing(0) == (2.5, 0.8, 0.8)
    again = make_challenge(rng=1, **VOLUMES)
    inside = 0
    for i in range(ch.n_images):
        t = true_mask(ch, i)
        assert t.shape == ch.shapes[i] and np.array_equal(t, true_mask(again, i))
        slices = t.any(axis=(1, 2))
        area = t.sum(axis=(1, 2))[slices]
        assert slices.sum() >= 2
        # an object, not a column: it starts and ends inside the volume, its largest slice wider than its ends
        inside += slices.sum() < 10 and area.max() > max(area[0], area[-1])
    assert inside >= 0.8 * ch.n_images


@pytest.mark.slow
def test_volume_knobs_act_as_in_2d():
    """agreement 1: every annotator draws the truth; the runs' true skill orders their Jaccard with the truth."""
    from scipy.stats import spearmanr

    ch = make_challenge(rng=2, agreement=1.0, **VOLUMES)
    masks = ch.source.generate(3)
    truth = masks[("truth", "truth")]
    for j, name in enumerate(ch.annotators):
        if ch.annotated[3, j]:
            assert np.array_equal(masks[("annotator", name)], truth)
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    j = micro(counts.strategy_counts("majority"), "jaccard")
    skill = [ch.source.skill[r] for r in ch.runs]
    assert spearmanr(j, skill).statistic > 0.7
    # images of one encounter share their lesion: with correlation 1 their sizes differ far less than with 0

    def within(correlation):
        ch = make_challenge(rng=3, encounter_correlation=correlation, **VOLUMES)
        size = np.log([true_mask(ch, i).mean() for i in range(ch.n_images)])
        enc = np.array(ch.encounters)
        return np.mean([np.ptp(size[enc == e]) for e in set(enc) if (enc == e).sum() > 1])

    assert within(1.0) < 0.5 * within(0.0)


@pytest.mark.slow
def test_main_job_on_synthetic_volumes_scores_boundaries_and_the_truth():
    """The generator in 3D through the main job (volumes in the report's words, boundary metrics with the spacing,
    the agreement with the latent truth), and the command line's options that make the embedded challenge 3D."""
    from experiments import _cli, rank_convergence
    from robustness.studies.rank_convergence import RankConvergenceOptions, run

    ch = make_challenge(rng=4, **VOLUMES)
    res = run(ch, RankConvergenceOptions(orders=5, bootstrap=20, outer=4, boundary=("hd95",)))
    assert res.meta["input"]["volumes"] is True
    boards = res.tables["metric_leaderboard.csv"]
    assert set(boards.metric) == {"jaccard", "dice", "hd95"} and (boards[boards.metric == "hd95"].value > 0).all()
    assert len(res.tables["truth.csv"])
    args = rank_convergence.parser().parse_args(["--synthetic-depth", "6", "--synthetic-spacing", "3,0.9,0.9"])
    embedded = _cli.load(args)
    assert embedded.n_images == 314 and set(embedded.spacings) == {(3.0, 0.9, 0.9)}
    assert {s[0] for s in embedded.shapes} == {6}
    assert _cli.data_description(args) == "synthetic (seed 0, size small, 6 slices of 3x0.9x0.9 mm)"
