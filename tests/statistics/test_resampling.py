"""Rank convergence and bootstrap: slow references, scipy.stats.bootstrap, n_jobs and Dask, memory."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest
from scipy.stats import rankdata

from robustness import _kernels
from robustness.overlap import compute_overlap, metrics
from robustness.parallel import parallel_backend
from robustness.statistics import (
    ConvergenceOptions,
    bootstrap_interval,
    pairwise_tests,
    per_case_table,
    rank_convergence,
    schemes_from_counts,
    schemes_from_table,
)
from robustness.statistics.bootstrap import bootstrap
from robustness.synthetic.challenge import make_challenge
from tests.conftest import only_figures


@pytest.fixture(scope="module")
def small_counts():
    ch = make_challenge(n_encounters=8, n_images=15, n_runs=6, n_teams=2, rng=4)
    return compute_overlap(ch, rng=0)


def reference_score(oc, strategy, metric, average, images):
    """Score every run on a subset of images with the metrics module (the slow, obvious way)."""
    if strategy in ("mean", "max"):
        return metrics.macro_over_annotators(oc.annotator_counts[:, :, images], oc.annotator_valid[:, images],
                                             metric, how=strategy)
    c = oc.strategy_counts(strategy)[:, images]
    return metrics.micro(c, metric) if average == "micro" else metrics.macro(c, metric)


def reference_l1(oc, conv):
    """Loop over orders and prefixes; scipy.stats.rankdata per prefix."""
    units = conv.schemes.units
    out = np.empty(conv.l1.shape)
    for s, (strat, metric, average) in enumerate(conv.schemes.names):
        final = rankdata(-np.round(reference_score(oc, strat, metric, average, np.arange(oc.n_images)), 10))
        for k, order in enumerate(conv.orders):
            for p, n in enumerate(conv.positions):
                chosen = [units[u] for u in order[:n]]
                images = np.flatnonzero(np.isin(oc.images if units[0] in oc.images else oc.encounters, chosen))
                r = rankdata(-np.round(reference_score(oc, strat, metric, average, images), 10))
                out[s, k, p] = np.abs(r - final).sum()
    return out


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["image", "encounter"])
def test_convergence_matches_slow_reference(small_counts, unit):
    sc = schemes_from_counts(small_counts, unit=unit)
    conv = rank_convergence(sc, n_orders=6, rng=1)
    np.testing.assert_array_equal(conv.l1, reference_l1(small_counts, conv))
    assert (conv.l1[:, :, -1] == 0).all()  # L1 = 0 on the whole set, by construction
    if unit == "encounter":
        assert conv.n_images[:, -1].tolist() == [small_counts.n_images] * 6


def test_micro_jaccard_and_dice_curves_coincide(small_counts):
    conv = rank_convergence(schemes_from_counts(small_counts), n_orders=20, rng=3)
    for strat in small_counts.strategies:
        j = conv.schemes.index(strat, "jaccard", "micro")
        d = conv.schemes.index(strat, "dice", "micro")
        np.testing.assert_array_equal(conv.l1[j], conv.l1[d])


def test_same_seed_same_numbers_any_n_jobs(small_counts):
    sc = schemes_from_counts(small_counts)
    a = rank_convergence(sc, n_orders=30, options=ConvergenceOptions(batch_size=7), rng=5)
    b = rank_convergence(sc, n_orders=30, options=ConvergenceOptions(batch_size=7), rng=5, n_jobs=2)
    c = rank_convergence(sc, n_orders=30, options=ConvergenceOptions(batch_size=7), rng=6)
    np.testing.assert_array_equal(a.orders, b.orders)
    np.testing.assert_array_equal(a.l1, b.l1)
    assert not np.array_equal(a.orders, c.orders)
    ba = bootstrap(sc, n_resamples=50, batch_size=9, rng=2)
    bb = bootstrap(sc, n_resamples=50, batch_size=9, rng=2, n_jobs=2)
    for name in ("distribution", "ranks", "tau", "wins"):
        np.testing.assert_array_equal(getattr(ba, name), getattr(bb, name))


@pytest.mark.slow
def test_identical_on_a_dask_local_cluster(small_counts):
    pytest.importorskip("dask.distributed")
    sc = schemes_from_counts(small_counts)
    local = rank_convergence(sc, n_orders=12, options=ConvergenceOptions(batch_size=4), rng=8)
    boot = bootstrap(sc, n_resamples=24, batch_size=8, rng=8)
    ch = make_challenge(n_encounters=8, n_images=15, n_runs=6, n_teams=2, rng=4)
    with parallel_backend("local", n_workers=2) as client:
        assert client is not None
        remote = rank_convergence(sc, n_orders=12, options=ConvergenceOptions(batch_size=4), rng=8, n_jobs=2)
        rboot = bootstrap(sc, n_resamples=24, batch_size=8, rng=8, n_jobs=2)
        rcounts = compute_overlap(ch, rng=0, n_jobs=2)  # the pixel pass, on the Dask workers
        assert client.run(lambda: 1)  # the cluster is up and answering
    np.testing.assert_array_equal(local.l1, remote.l1)
    np.testing.assert_array_equal(boot.distribution, rboot.distribution)
    np.testing.assert_array_equal(rcounts.counts, small_counts.counts)
    np.testing.assert_array_equal(rcounts.annotator_counts, small_counts.annotator_counts)


def test_positions_step_and_tables(small_counts):
    sc = schemes_from_counts(small_counts)
    conv = rank_convergence(sc, n_orders=3, options=ConvergenceOptions(step=4), rng=0)
    assert conv.positions.tolist() == [4, 8, 12, 15]
    df = conv.to_frame()
    assert list(df.columns) == ["strategy", "metric", "average", "ranking", "order", "n", "n_images", "l1"]
    assert len(df) == len(sc.names) * 3 * 4
    row = df[(df.strategy == "union") & (df.metric == "dice") & (df.average == "macro") & (df.order == 2) & (df.n == 8)]
    assert row.l1.item() == conv.l1[sc.index("union", "dice", "macro"), 2, 1]
    orders = conv.orders_frame()
    assert len(orders) == 3 * 15 and sorted(orders[orders.order == 1].unit) == sorted(sc.units)
    summ = conv.summary()
    assert (summ.low <= summ["mean"] + 1e-9).all() and (summ["mean"] <= summ.high + 1e-9).all()
    pts = conv.convergence_points()
    assert (pts.convergence_n >= pts.median_n).all() and (pts.convergence_n <= 15).all()


def test_convergence_point_definition():
    # a hand-made curve: 4 orders, L1 over 5 prefixes
    from robustness.statistics import Convergence

    l1 = np.array([[[3, 1, 0, 0, 0], [2, 2, 2, 0, 0], [1, 0, 1, 0, 0], [0, 0, 0, 0, 0]]], dtype=np.float32)
    conv = Convergence(schemes=None, orders=np.zeros((4, 5), int), positions=np.arange(1, 6), n_images=None,
                       l1=l1, final_ranks=None, ties="average", tol=0)
    assert conv.order_convergence().tolist() == [[3, 4, 4, 1]]
    assert conv.order_convergence(tolerance=1).tolist() == [[2, 4, 1, 1]]


def test_memory_bounded_for_large_k(small_counts):
    sc = schemes_from_counts(small_counts)
    rank_convergence(sc, n_orders=2, rng=0)  # compile outside the measurement

    def peak(k):
        tracemalloc.start()
        conv = rank_convergence(sc, n_orders=k, options=ConvergenceOptions(batch_size=50), rng=0)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p, conv.l1.nbytes + conv.orders.nbytes

    p1, out1 = peak(200)
    p2, out2 = peak(2000)
    # growth is the result itself (and its batches before concatenation), nothing like K x N x runs
    assert p2 - p1 < 2.5 * (out2 - out1)
    assert p2 < 3 * out2 + 2**20  # the peak is a small multiple of the (float32) result


# -- bootstrap against scipy --------------------------------------------------------------

def test_bootstrap_interval_matches_scipy(small_counts):
    from scipy.stats import bootstrap as sp_bootstrap

    c = small_counts.strategy_counts("majority")[2].astype(float)  # (images, 3) of one run
    tp, fp, fn = c.T

    def stat(tp, fp, fn, axis=-1):
        t = tp.sum(axis=axis)
        return t / (t + fp.sum(axis=axis) + fn.sum(axis=axis))

    n, b = c.shape[0], 2000
    idx = np.random.default_rng(3).integers(0, n, (b, n))  # scipy's paired draw for this rng
    sums = _kernels.resample_sums(np.ascontiguousarray(c), idx)
    dist = sums[:, 0] / sums.sum(axis=1)
    jack = np.array([stat(np.delete(tp, j), np.delete(fp, j), np.delete(fn, j)) for j in range(n)])
    for method in ("percentile", "bca"):
        ref = sp_bootstrap((tp, fp, fn), stat, paired=True, vectorized=True, n_resamples=b, method=method,
                           rng=np.random.default_rng(3))
        np.testing.assert_array_equal(np.sort(ref.bootstrap_distribution), np.sort(dist))
        low, high = bootstrap_interval(stat(tp, fp, fn), dist, jack, method=method)
        assert low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
        assert high == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_bootstrap_resums_counts(small_counts):
    sc = schemes_from_counts(small_counts, unit="encounter")
    res = bootstrap(sc, n_resamples=40, batch_size=40, rng=11)
    # redo resample 7 by hand: the same child generator, micro Jaccard from re-summed counts
    child = np.random.default_rng(11).spawn(1)[0]
    idx = child.integers(0, sc.n_units, (40, sc.n_units))[7]
    enc = np.asarray(small_counts.encounters)
    images = np.concatenate([np.flatnonzero(enc == sc.units[u]) for u in idx])
    s = sc.index("staple", "jaccard", "micro")
    c = small_counts.strategy_counts("staple")[:, images]
    np.testing.assert_array_equal(res.distribution[s, 7], metrics.micro(c, "jaccard"))
    assert res.ranks.shape == (len(sc.names), 40, len(sc.runs))
    assert np.all((res.tau <= 1) & (res.tau >= -1))
    assert ((res.wins + res.wins.transpose(0, 2, 1)) <= 1 + 1e-12).all()  # i beats j and j beats i exclude each other
    assert np.all(np.diagonal(res.wins, axis1=1, axis2=2) == 0)
    ci = res.intervals(method="bca")
    assert (ci.low <= ci.high).all()
    dist = res.rank_distribution()
    np.testing.assert_allclose(dist.groupby(["strategy", "metric", "average", "run"]).share.sum(), 1.0)


def test_challenger_table_roundtrip(small_counts):
    table = per_case_table(small_counts)
    assert {"case", "algorithm", "value", "strategy", "metric"} <= set(table.columns)
    a = schemes_from_counts(small_counts, averages=("macro",))
    b = schemes_from_table(table)
    assert [n[:2] for n in a.names] == [n[:2] for n in b.names]
    np.testing.assert_allclose(a.scores(), b.scores(), rtol=1e-12)
    ca = rank_convergence(a, n_orders=5, rng=2)
    cb = rank_convergence(b, n_orders=5, rng=2)
    np.testing.assert_array_equal(ca.l1, cb.l1)
    # grouped by encounter through a unit column
    e = schemes_from_table(table, unit_column="encounter")
    assert e.n_units == len(set(small_counts.encounters))
    from robustness.errors import InputError

    with pytest.raises(InputError, match="no value for algorithm"):
        schemes_from_table(table.iloc[1:])
    with pytest.raises(InputError, match="per-case table has no column 'value'"):
        schemes_from_table(table.rename(columns={"value": "score"}))


def test_pairwise_tests_find_a_clear_winner():
    import pandas as pd

    rng = np.random.default_rng(0)
    base = rng.random(40)
    rows = []
    for alg, v in (("strong", np.clip(base + 0.2, 0, 1)), ("weak", base), ("weak_twin", base.copy())):
        rows += [{"case": f"c{i}", "algorithm": alg, "value": x} for i, x in enumerate(v)]
    sc = schemes_from_table(pd.DataFrame(rows))
    pt = pairwise_tests(sc)
    better = {(r.run, r.other) for r in pt.itertuples() if r.better}
    assert better == {("strong", "weak"), ("strong", "weak_twin")}
    assert (pt.p_adjusted >= pt.p - 1e-15).all()


@pytest.mark.slow
def test_table_command_matches_library(small_counts, tmp_path, capsys):
    import pandas as pd

    from experiments import table_rank_convergence as job

    table = per_case_table(small_counts)
    table.to_csv(tmp_path / "scores.csv", index=False)
    out = tmp_path / "out"
    with only_figures("table_rank_convergence", "fig_08_table_convergence"):  # the one it reads
        assert job.main(["--table", str(tmp_path / "scores.csv"), "--unit", "encounter", "--orders", "6",
                         "--bootstrap", "20", "--outer", "4", "--out", str(out), "--quiet"]) == 0
    sc = schemes_from_table(table, unit_column="encounter")
    conv = rank_convergence(sc, n_orders=6, rng=np.random.default_rng([0, 1]))
    pd.testing.assert_frame_equal(pd.read_parquet(out / "curves.parquet"), conv.to_frame())
    assert (out / "figures" / "fig_08_table_convergence.png").exists()
    # a missing table: one error line and status 2 from main() itself, as every refusal after the options are parsed
    capsys.readouterr()  # the run above's warnings
    assert job.main(["--table", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(r"nope\.csv: file not found", err[0])


def test_encounters_of_one_image_are_images():
    """Where every encounter holds one image (the per-rater layout), the encounter unit is the image: the same
    resampling units, the same statistics, and the name reports use."""
    ch = make_challenge(n_encounters=6, n_images=6, n_runs=3, n_teams=2, rng=1)
    oc = compute_overlap(ch, rng=0)
    assert len(set(oc.encounters)) == oc.n_images
    by_enc, by_img = schemes_from_counts(oc, unit="encounter"), schemes_from_counts(oc, unit="image")
    assert by_enc.unit == "image" and by_enc.units == by_img.units
    np.testing.assert_array_equal(by_enc.x, by_img.x)
    grouped = schemes_from_counts(compute_overlap(make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=2,
                                                                 rng=1), rng=0), unit="encounter")
    assert grouped.unit == "encounter" and grouped.n_units == 4


def test_the_convergence_keywords_of_before_still_work_with_a_deprecation_warning(small_counts):
    """``step=``, ``ties=`` ... one by one (before ConvergenceOptions): the same curves, with a DeprecationWarning;
    a name never taken is still a TypeError, and the test-set AUC refuses what it cannot use."""
    from robustness.statistics.convergence import auc_over_test_sets

    sc = schemes_from_counts(small_counts)
    new = rank_convergence(sc, n_orders=4, options=ConvergenceOptions(step=3, batch_size=2), rng=1)
    with pytest.warns(DeprecationWarning, match=r"rank_convergence\(\): step=, batch_size= are deprecated"):
        old = rank_convergence(sc, n_orders=4, step=3, batch_size=2, rng=1)
    np.testing.assert_array_equal(old.l1, new.l1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'orders'"):
        rank_convergence(sc, orders=4)
    with pytest.raises(ValueError, match="positions and batch_size are rank_convergence's"):
        auc_over_test_sets(sc, n_resamples=2, options=ConvergenceOptions(positions=[1, 2]))
