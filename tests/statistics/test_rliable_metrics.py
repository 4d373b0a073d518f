"""The interquartile mean, the probability of improvement and performance profiles against rliable itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustness.statistics.rliable_metrics import (
    bootstrap_improvement,
    bootstrap_iqm,
    iqm,
    performance_profile,
    probability_of_improvement,
)


@pytest.mark.parametrize("seed", range(20))
def test_equal_to_rliable_on_random_scores(seed):
    pytest.importorskip("rliable", reason="rliable is a test extra (pip install -e '.[test]')")
    from rliable import metrics  # rliable.library (its bootstrap, through arch) does not import with pandas 3

    rng = np.random.default_rng(seed)
    n_x, n_y = int(rng.integers(2, 40)), int(rng.integers(2, 40))
    x, y = rng.integers(0, 6, n_x) / 5, rng.integers(0, 6, n_y) / 5  # ties
    assert float(iqm(x)) == pytest.approx(metrics.aggregate_iqm(x[:, None]), rel=1e-12)
    assert probability_of_improvement(x, y) == pytest.approx(metrics.probability_of_improvement(x[:, None],
                                                                                                   y[:, None]))
    taus = np.linspace(0, 1, 11)  # rliable's score distribution: the share of scores above tau, by hand here
    np.testing.assert_allclose(performance_profile(x[None, :], taus)[0], [np.mean(x > t) for t in taus])


def test_by_hand_and_intervals():
    assert float(iqm(np.array([0.0, 1, 2, 3, 4, 100, 5, 6]))) == 3.5  # 0 and 100 cut, mean of 1..6
    assert probability_of_improvement(np.array([1.0, 2.0]), np.array([1.0, 0.0])) == 0.875  # (0.5+1+1+1)/4
    rng = np.random.default_rng(0)
    value, low, high = bootstrap_iqm(rng.random((3, 50)), 400, np.random.default_rng(1))
    assert ((low <= value) & (value <= high)).all()
    p, lo, hi = bootstrap_improvement(rng.random(40) + 0.5, rng.random(40), 400, np.random.default_rng(2))
    assert lo <= p <= hi and lo > 0.5  # a run half a point better: its improvement is established


def test_the_table_command_writes_and_reports_them(tmp_path):
    from experiments._cli import run
    from experiments.table_rank_convergence import main
    from robustness.results.study_result import read_table

    rng = np.random.default_rng(4)
    rows = [(f"c{j}", f"r{r}", float(rng.random() + 0.4 * r)) for j in range(30) for r in range(3)]
    pd.DataFrame(rows, columns=["case", "algorithm", "value"]).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    assert run(main, ["--table", str(tmp_path / "t.csv"), "--out", str(out), "--quiet", "--no-figures",
                      "--rankings-only", "--bootstrap", "50"]) == 0
    got = read_table(out / "iqm.csv").set_index("run").iqm
    for r in range(3):
        assert got[f"r{r}"] == pytest.approx(float(iqm(np.array([v for _, a, v in rows if a == f"r{r}"]))))
    better = read_table(out / "improvement.csv")
    assert better.run.tolist() == ["r2", "r1"] and better.other.tolist() == ["r1", "r0"]  # down the leaderboard
    assert "Interquartile mean and probability of improvement" in (out / "summary.md").read_text()


def test_grouped_cases_resample_whole_units():
    """Five identical cases per unit: resampling cases pretends to five times the information, resampling units
    does not (the interval about sqrt(5) = 2.2 times wider), and the point value is the same."""
    from robustness.statistics.rliable_metrics import bootstrap_improvement, bootstrap_iqm

    rng = np.random.default_rng(8)
    unit_values = rng.normal(0.7, 0.1, 40)
    x = np.repeat(unit_values, 5)
    units = np.repeat(np.arange(40), 5)
    v0, lo0, hi0 = bootstrap_iqm(x[None, :], 2000, np.random.default_rng(1))
    v1, lo1, hi1 = bootstrap_iqm(x[None, :], 2000, np.random.default_rng(1), units=units)
    assert v0 == v1 and 1.7 < (hi1 - lo1)[0] / (hi0 - lo0)[0] < 2.8
    y = np.repeat(rng.normal(0.68, 0.1, 40), 5)
    p0, a0, b0 = bootstrap_improvement(x, y, 2000, np.random.default_rng(2))
    p1, a1, b1 = bootstrap_improvement(x, y, 2000, np.random.default_rng(2), units_x=units, units_y=units)
    assert p0 == p1 and 1.7 < (b1 - a1) / (b0 - a0) < 2.8


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=30), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_clustered_resamples_lay_each_rows_units_end_to_end(units, n_resamples, seed):
    """A resample of whole units holds each drawn unit's cases, in the order drawn (the obvious concatenation)."""
    from robustness.statistics.inference import members
    from robustness.statistics.rliable_metrics import _resampled

    labels = np.array(units)
    got = _resampled(labels.size, labels, n_resamples, np.random.default_rng(seed))
    _, where = members(labels)
    drawn = np.random.default_rng(seed).integers(0, len(where), size=(n_resamples, len(where)))
    want = [np.concatenate([where[k] for k in row]) for row in drawn]
    assert len(got) == n_resamples
    assert all(g.dtype == w.dtype and g.tolist() == w.tolist() for g, w in zip(got, want))


def _loop_profile(values, taus, n_resamples, rng, confidence=0.95, units=None):
    """The band resample by resample (the obvious twin of the counted one)."""
    from robustness.statistics.rliable_metrics import _resampled, performance_profile

    boot = np.stack([performance_profile(values[:, d], taus)
                     for d in _resampled(values.shape[1], units, n_resamples, rng)])
    tail = (1 - confidence) / 2
    return np.quantile(boot, [tail, 1 - tail], axis=0)


def _loop_improvement(x, y, n_resamples, rng, confidence=0.95, units_x=None, units_y=None):
    from robustness.statistics.rliable_metrics import _resampled, probability_of_improvement

    bx, by = _resampled(x.size, units_x, n_resamples, rng), _resampled(y.size, units_y, n_resamples, rng)
    boot = np.array([probability_of_improvement(x[i], y[j]) for i, j in zip(bx, by)])
    tail = (1 - confidence) / 2
    return np.quantile(boot, [tail, 1 - tail])


@pytest.mark.parametrize("seed", range(6))
def test_counted_resamples_equal_the_loop_to_the_last_bit(seed):
    """The bands count each resample's cases instead of copying them: the same numbers, bit for bit (ties, units of
    unequal sizes, more resamples than one chunk)."""
    from robustness.statistics.rliable_metrics import bootstrap_improvement, bootstrap_profile

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    values = np.round(rng.normal(0.6, 0.2, (3, n)), int(rng.integers(1, 3)))  # rounded: ties
    units = np.sort(rng.integers(0, max(2, n // 3), n)) if seed % 2 else None
    taus = np.linspace(values.min(), values.max(), 7)
    b = int(rng.integers(2, 600))
    _, low, high = bootstrap_profile(values, taus, b, np.random.default_rng(seed + 10), units=units)
    want = _loop_profile(values, taus, b, np.random.default_rng(seed + 10), units=units)
    assert np.array_equal(low, want[0]) and np.array_equal(high, want[1])
    y = np.round(rng.normal(0.55, 0.2, n + 3), 1)
    units_y = np.sort(rng.integers(0, max(2, (n + 3) // 2), n + 3)) if seed % 2 else None
    _, p_low, p_high = bootstrap_improvement(values[0], y, b, np.random.default_rng(seed + 20), units_x=units,
                                             units_y=units_y)
    assert [p_low, p_high] == list(_loop_improvement(values[0], y, b, np.random.default_rng(seed + 20),
                                                     units_x=units, units_y=units_y))


def test_counted_resamples_by_hand():
    """x = [1, 2], y = [2]: P(X > Y) is 0 + 0.5 / 2 on the sample; a resample drawing x's 2 twice gives 0.5, x's 1
    twice 0: the band spans 0 to 0.5."""
    from robustness.statistics.rliable_metrics import _multiplicities, bootstrap_improvement

    assert _multiplicities(3, [np.array([0, 0, 2]), np.array([1])]).tolist() == [[2, 0, 1], [0, 1, 0]]
    p, low, high = bootstrap_improvement(np.array([1.0, 2.0]), np.array([2.0]), 400, np.random.default_rng(0),
                                         confidence=0.99)
    assert p == 0.25 and low == 0.0 and high == 0.5


@pytest.mark.parametrize("seed", range(6))
def test_the_iqm_band_equals_the_loop_to_the_last_bit(seed):
    """Resamples of one size are sorted and averaged side by side: each equals its own iqm, bit for bit (units of
    unequal sizes give resamples of many sizes)."""
    from robustness.statistics.rliable_metrics import _resampled, bootstrap_iqm, iqm

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 80))
    values = rng.normal(0.6, 0.2, (2, n))
    units = np.sort(rng.integers(0, max(2, n // 3), n)) if seed % 2 else None
    b = int(rng.integers(2, 700))
    _, low, high = bootstrap_iqm(values, b, np.random.default_rng(seed), units=units)
    boot = np.stack([iqm(values[:, d]) for d in _resampled(n, units, b, np.random.default_rng(seed))])
    tail = (1 - 0.95) / 2  # the function's own tails (0.025 and 0.975 to the last bit)
    want = np.quantile(boot, [tail, 1 - tail], axis=0)
    assert np.array_equal(low, want[0]) and np.array_equal(high, want[1])
