"""One table per concept: a new metric is one table entry, a new gold strategy one registration, the empty policy one
object; each goes end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from robustness.overlap import compute_overlap, gold, metrics
from robustness.parallel import batch_generators
from robustness.simulation.synthetic import make_challenge
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.leaderboard import scores_frame
from robustness.statistics.schemes import schemes_from_counts


@pytest.fixture(scope="module")
def counts():
    return compute_overlap(make_challenge(n_encounters=6, n_images=11, n_runs=5, n_teams=2, rng=12), rng=0)


@pytest.fixture
def precision(monkeypatch):
    """Precision TP / (TP + FP), added by one table entry (and removed after the test)."""
    monkeypatch.setitem(metrics.METRICS, "precision", metrics.Metric("precision", (1, 0, 0), (1, 1, 0)))
    return metrics.METRICS["precision"]


def direct_precision(c, average):
    """Precision with numpy alone: micro pools counts, macro averages per image (a run with no pixel scores 1)."""
    c = np.asarray(c, dtype=float)
    if average == "micro":
        tp, fp = c[..., 0].sum(axis=-1), c[..., 1].sum(axis=-1)
        return np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
    tp, fp = c[..., 0], c[..., 1]
    return np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0).mean(axis=-1)


def test_a_new_metric_is_one_table_entry(counts, precision):
    # scores: micro and macro, every strategy, in the tidy table too
    table = scores_frame(counts)
    assert "precision" in set(table.metric)
    for strat in ("majority", "staple", "rand2"):
        c = counts.strategy_counts(strat)
        for average in ("micro", "macro"):
            got = table[(table.strategy == strat) & (table.metric == "precision") & (table.average == average)]
            np.testing.assert_allclose(got.score.to_numpy(), direct_precision(c, average), rtol=1e-15)
    # curves: the L1 of every prefix equals ranks recomputed from numpy scores with scipy's rankdata
    sc = schemes_from_counts(counts, metrics=["jaccard", "precision"])
    conv = rank_convergence(sc, n_orders=3, rng=4)
    s = sc.index("majority", "precision", "micro")
    c = counts.strategy_counts("majority")
    final = rankdata(-direct_precision(c, "micro"))
    for k, order in enumerate(conv.orders):
        for p, n in enumerate(conv.positions):
            r = rankdata(-np.round(direct_precision(c[:, order[:n]], "micro"), 12))
            assert conv.l1[s, k, p] == np.abs(r - final).sum()
    # bootstrap intervals: the same resamples, re-scored with numpy, give the same distribution and interval
    boot = bootstrap(sc, n_resamples=20, batch_size=20, rng=9)
    idx = batch_generators(9, 1)[0].integers(0, sc.n_units, (20, sc.n_units))
    s = sc.index("union", "precision", "macro")
    per_image = np.where(counts.strategy_counts("union")[..., :2].sum(-1) > 0,
                         counts.strategy_counts("union")[..., 0] / np.maximum(
                             counts.strategy_counts("union")[..., :2].sum(-1), 1), 1.0)
    dist = np.stack([per_image[:, i].mean(axis=1) for i in idx])  # (B, R)
    np.testing.assert_allclose(boot.distribution[s], dist, rtol=1e-12)
    ci = boot.intervals()
    row = ci[(ci.strategy == "union") & (ci.metric == "precision") & (ci.average == "macro")]
    np.testing.assert_allclose(row.low.to_numpy(), np.quantile(dist, 0.025, axis=0), rtol=1e-12)
    np.testing.assert_allclose(row.high.to_numpy(), np.quantile(dist, 0.975, axis=0), rtol=1e-12)


def test_unknown_metric_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"metric must be one of jaccard, dice; got 'f1'"):
        metrics.pair_score([[1, 0, 0]], "f1")
    with pytest.raises(ValueError, match="denominator"):
        metrics.Metric("nothing", (1, 0, 0), (0, 0, 0))


@pytest.fixture
def at_least_two(monkeypatch):
    """A look-up-table gold strategy, registered in one place (and removed after the test)."""
    strategy = gold.GoldStrategy("atleast2", "lut", build=lambda k: gold.pattern_bits(k).sum(axis=1) >= 2,
                                 style=dict(color="#000000", linestyle=":"), label="at least two")
    monkeypatch.setitem(gold.STRATEGIES, "atleast2", strategy)
    return strategy


def test_a_new_gold_strategy_is_one_registration(at_least_two, tmp_path):
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa

    ch = make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=3)
    data = write_dermavqa(ch, tmp_path / "challenge")
    out = tmp_path / "out"
    assert job.main(["--data", str(data), "--out", str(out), "--strategies", "majority,atleast2", "--orders", "4",
                     "--bootstrap", "10", "--quiet"]) == 0
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    # the counts against "at least two annotators", straight from the masks
    tp = fp = fn = 0
    for i in range(ch.n_images):
        g = np.sum([m for m in ch.annotator_masks(i).values()], axis=0) >= 2
        run = ch.run_mask(i, board.index[0])
        tp, fp, fn = tp + (run & g).sum(), fp + (run & ~g).sum(), fn + (~run & g).sum()
    assert board.loc[board.index[0], "atleast2_jaccard_micro"] == tp / (tp + fp + fn)
    assert {"atleast2_dice_macro", "max_jaccard_macro"} <= set(board.columns)
    curves = pd.read_parquet(out / "curves.parquet")
    assert set(curves.strategy) == {"majority", "atleast2", "mean", "max"}
    assert "atleast2" in set(pd.read_csv(out / "kendall_tau.csv").strategy)
    assert (out / "figures" / "fig_02_micro_convergence.png").exists()


def test_registry_drives_the_plot_style(at_least_two):
    from robustness.reporting.plotting import strategy_style

    assert strategy_style("atleast2") == dict(color="#000000", linestyle=":", label="at least two")
    assert strategy_style("rand7")["label"] == "rand7"  # any randN is parsed once, by the registry
    assert gold.resolve(["rand1", "atleast2"])[-1].name == "max"  # macro adds mean and max by default
    with pytest.raises(ValueError, match=r"unknown gold strategy 'majorty'; choose from rand1..randN, majority"):
        gold.resolve(["majorty"])


def test_one_empty_policy_object(counts):
    official = metrics.empty_policy("official")
    assert official.propagates and not metrics.empty_policy("ignore").propagates
    assert metrics.empty_policy(official) is official
    with pytest.raises(ValueError, match="empty must be one of one, zero, ignore, official"):
        metrics.empty_policy("skip")
    a = schemes_from_counts(counts, empty="official")
    b = schemes_from_counts(counts, empty=official)
    np.testing.assert_array_equal(a.scores(), b.scores())


def test_compat_official_is_an_alias_of_empty_official():
    from experiments.rank_convergence import parser

    assert parser().parse_args(["--compat", "official"]).empty == "official"
    assert parser().parse_args(["--empty", "zero"]).empty == "zero"
    assert parser().parse_args([]).empty == "one"
