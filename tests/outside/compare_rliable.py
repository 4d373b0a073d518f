"""rliable's interquartile mean and probability of improvement with their intervals, against rliable itself (not
part of the suite: rliable.library does not import under pandas 3).

Two steps, two environments::

    python -m venv /tmp/rlenv && /tmp/rlenv/bin/pip install rliable "pandas<3"
    /tmp/rlenv/bin/python tests/outside/compare_rliable.py reference /tmp/rliable.npz
    .venv/bin/python tests/outside/compare_rliable.py compare /tmp/rliable.npz

12 random leaderboards of 10 to 79 cases; rliable's ``get_interval_estimates`` (20,000 stratified bootstrap
resamples, 95% percentile intervals) for the IQM of one run and the probability that it improves on another,
against :func:`robustness.statistics.rliable_metrics.bootstrap_iqm` and ``bootstrap_improvement`` with as many
resamples of their own stream: the point values must be equal, the intervals' ends equal within Monte Carlo error
(printed as a share of the interval's width).
"""

from __future__ import annotations

import sys

import numpy as np

N, REPS = 12, 20_000


def reference(path: str) -> None:
    from rliable import library as rly
    from rliable import metrics

    rng = np.random.default_rng(11)
    out = {}
    for k in range(N):
        n = int(rng.integers(10, 80))
        x = np.round(rng.beta(5, 2, n), 3)
        y = np.round(np.clip(x - rng.normal(0.03, 0.08, n), 0, 1), 3)
        est, ci = rly.get_interval_estimates({"x": x[:, None]}, lambda s: np.array([metrics.aggregate_iqm(s)]),
                                             reps=REPS, random_state=np.random.RandomState(k))
        out[f"x{k}"], out[f"y{k}"], out[f"iqm{k}"] = x, y, np.r_[est["x"][0], ci["x"][:, 0]]
        est, ci = rly.get_interval_estimates({"p": (x[:, None], y[:, None])}, metrics.probability_of_improvement,
                                             reps=REPS, random_state=np.random.RandomState(100 + k))
        out[f"poi{k}"] = np.r_[np.ravel(est["p"])[0], np.ravel(ci["p"])]
    np.savez(path, **out)


def compare(path: str) -> None:
    from robustness.statistics.rliable_metrics import bootstrap_improvement, bootstrap_iqm

    ref = np.load(path)
    point, ends = 0.0, 0.0
    for k in range(N):
        x, y, r, q = ref[f"x{k}"], ref[f"y{k}"], ref[f"iqm{k}"], ref[f"poi{k}"]
        value, low, high = bootstrap_iqm(x[None, :], REPS, np.random.default_rng(k))
        p, p_low, p_high = bootstrap_improvement(x, y, REPS, np.random.default_rng(100 + k))
        point = max(point, abs(value[0] - r[0]), abs(p - q[0]))
        ends = max(ends, abs(low[0] - r[1]) / (r[2] - r[1]), abs(high[0] - r[2]) / (r[2] - r[1]),
                   abs(p_low - q[1]) / (q[2] - q[1]), abs(p_high - q[2]) / (q[2] - q[1]))
    print(f"largest point difference {point:.2g}; largest interval-end difference {ends:.1%} of the width")


if __name__ == "__main__":
    {"reference": reference, "compare": compare}[sys.argv[1]](sys.argv[2])
