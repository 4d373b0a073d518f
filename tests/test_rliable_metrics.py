"""The interquartile mean, the probability of improvement and performance profiles against rliable itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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
