"""The Bayesian signed-rank test against baycomp itself (not part of the suite: baycomp cannot be installed beside
this package, its wheel ships a top-level ``tests`` package).

Two steps, two environments::

    python -m venv /tmp/bcenv && /tmp/bcenv/bin/pip install baycomp
    /tmp/bcenv/bin/python tests/outside/compare_baycomp.py reference /tmp/baycomp.npz
    .venv/bin/python tests/outside/compare_baycomp.py compare /tmp/baycomp.npz

The first draws 60 random paired samples (3 to 79 cases, scores rounded to 1-3 decimals so that Walsh averages fall
on the rope's ends), and keeps baycomp's posterior samples (``SignedRankTest``, 5,000 samples, its seed ``k``) and
its probabilities. The second recomputes every sample's three thetas with
:func:`robustness.statistics.bayes_signed_rank.signed_rank_thetas` on the same Dirichlet weights (NumPy's
``RandomState(k).dirichlet``, as baycomp draws them) and the probabilities from them.
"""

from __future__ import annotations

import sys

import numpy as np

N = 60


def reference(path: str) -> None:
    from baycomp.multiple import SignedRankTest

    rng = np.random.default_rng(2026)
    out = {}
    for k in range(N):
        n = int(rng.integers(3, 80))
        run = np.round(rng.random(n), int(rng.integers(1, 4)))
        other = np.round(run - rng.normal(rng.normal(0, 0.03), 0.05, n), int(rng.integers(1, 4)))
        rope = float(rng.choice([0.005, 0.01, 0.02, 0.05]))
        out[f"run{k}"], out[f"other{k}"], out[f"rope{k}"] = run, other, rope
        out[f"sample{k}"] = SignedRankTest(other, run, rope, nsamples=5000, random_state=k).sample
        out[f"probs{k}"] = np.array(SignedRankTest.probs(other, run, rope, nsamples=5000, random_state=k))
    np.savez(path, **out)


def compare(path: str) -> None:
    from robustness.statistics.bayes_signed_rank import signed_rank_thetas

    ref = np.load(path)
    worst, same = 0.0, 0
    for k in range(N):
        run, other, rope = ref[f"run{k}"], ref[f"other{k}"], float(ref[f"rope{k}"])
        w = np.random.RandomState(k).dirichlet(np.r_[0.5, np.ones(run.size)], 5000)
        theta = signed_rank_thetas(np.r_[0.0, run - other], rope, w)[:, ::-1]  # baycomp's left, rope, right
        worst = max(worst, float(np.abs(theta - ref[f"sample{k}"]).max()))
        same += np.array_equal(np.bincount(np.argmax(theta, axis=1), minlength=3) / 5000, ref[f"probs{k}"])
    print(f"largest |theta - baycomp's| {worst:.2g}; probabilities identical in {same} of {N}")


if __name__ == "__main__":
    {"reference": reference, "compare": compare}[sys.argv[1]](sys.argv[2])
