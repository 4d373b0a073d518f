"""Documented baseline runs for a closed-QA gold (the real runs are not public)."""

from __future__ import annotations

import numpy as np

from robustness.qa.answers import Answers
from robustness.seeds import SeedLike

__all__ = ["baselines"]


def baselines(train: Answers, target: Answers, *, rates: tuple = (0.1, 0.25, 0.5),
              rng: SeedLike = None) -> list[Answers]:
    """Documented baseline runs for ``target``'s encounters (e.g. the validation split).

    - ``train-majority``: every slot's most frequent option in ``train`` (ties: lowest index);
    - ``not-mentioned``: "Not mentioned" everywhere;
    - ``random``: a uniformly random valid option per slot;
    - ``train-prior``: each slot drawn from its option frequencies in ``train``;
    - ``perturbed-<rate>``: ``target``'s gold with each slot replaced, with probability
      ``rate``, by another option drawn uniformly (an oracle with errors: stronger and
      weaker runs at chosen error rates).

    Parameters
    ----------
    train : Answers
        The training split's gold (the priors).
    target : Answers
        The gold whose encounters the baselines answer.
    rates : tuple of float
        Error rates of the perturbed golds.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of Answers
    """
    rng = np.random.default_rng(rng)
    qs = train.questions
    n_enc, n_slot = len(target.encounters), len(qs.qids)
    n_opt = qs.n_options
    counts = [np.bincount(train.values[:, s], minlength=n_opt[s]) for s in range(n_slot)]
    majority = np.array([int(np.argmax(c)) for c in counts])
    out = [
        Answers("train-majority", target.encounters, np.tile(majority, (n_enc, 1)), qs),
        Answers("not-mentioned", target.encounters, np.tile(qs.not_mentioned, (n_enc, 1)), qs),
        Answers("random", target.encounters, np.floor(rng.random((n_enc, n_slot)) * n_opt).astype(np.int64), qs),
        Answers("train-prior", target.encounters,
                np.stack([rng.choice(n_opt[s], size=n_enc, p=counts[s] / counts[s].sum()) for s in range(n_slot)],
                         axis=1), qs),
    ]
    for rate in rates:
        v = target.values.copy()
        flip = rng.random(v.shape) < rate
        other = (v + 1 + np.floor(rng.random(v.shape) * (n_opt - 1)).astype(np.int64)) % n_opt
        v[flip] = other[flip]
        out.append(Answers(f"perturbed-{rate:g}", target.encounters, v, qs))
    return out
