"""The named random streams of every study, defined once (SPEC 7).

A study draws everything from one ``seed``; each part of it draws from its own
stream ``np.random.default_rng([seed, k, *index])``, so adding a part never
shifts another part's numbers, and the same seed gives the same numbers for any
``n_jobs`` and on Dask (each stream is split per batch with ``spawn``).

Resampling studies (the main job, per-case tables, QA):

=============== = ===========================================================================================
stream          k draws
=============== = ===========================================================================================
random_golds    - the annotator of each ``randN`` gold per image (``default_rng(seed)``)
orders          1 the random orders of the convergence curves
bootstrap       2 the bootstrap resamples (the same for every ranking method)
uncertainty     3 the m-out-of-n resamples of the distance to unlimited data (index 1: a boundary headline's)
truth           4 the resamples of the agreement with the latent truth
spread          5 the resamples of Table 4's intervals
answer_counts   7 the resamples of Table 5's intervals (QA)
gold_comparison 8 the resampled test sets (and their orders) behind the comparison of golds' curves
ranks           9 per-case tables: random tie-breaking and the resamples of every task's rank distributions
=============== = ===========================================================================================

The design study (``index``: the population ``p``, the replicate ``r``, the size ``n``, the test set ``j``):

=========================== == =====================================================================================
population                  0  a population of runs (``p``)
pool                        1  the population's pool of images (``p``)
test_set                    2  a replicate's test set (``r``)
random_golds                3  its ``randN`` golds (``r``)
orders                      4  its convergence orders (``r``)
uncertainty                 5  its bootstrap estimate of the distance to unlimited data (``r``)
coverage                    6  its bootstrap intervals, judged for coverage (``r``)
size_test_set               7  the size search's test set of ``n`` encounters (``r, n``)
size_random_golds           8  its ``randN`` golds (``r, n``)
new_population_test_set     9  a test set of a run population the study never drew (``p, j``; the calibration's
                               check of the design study)
new_population_random_golds 10 its ``randN`` golds (``p, j``)
=========================== == =====================================================================================

The calibration study (``python -m experiments.calibration``; ``index``: the population ``p``):

========= = =================================================================
images    0 the population's images (``p``)
truth     1 the samples of the population behind the true expected L1 (``p``)
test_sets 2 the test sets drawn from it, and each one's resampling (``p``)
========= = =================================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["STUDY_STREAMS", "DESIGN_STREAMS", "CALIBRATION_STREAMS", "stream", "SeedLike"]

#: What an ``rng`` argument accepts (SPEC 7): None, a seed, a seed sequence or a Generator.
SeedLike = int | np.integer | Sequence[int] | np.random.SeedSequence | np.random.Generator | None

#: The resampling studies' streams (None: the seed itself).
STUDY_STREAMS: dict[str, int | None] = {"random_golds": None, "orders": 1, "bootstrap": 2, "uncertainty": 3,
                                        "truth": 4, "spread": 5, "answer_counts": 7, "gold_comparison": 8,
                                        "ranks": 9, "metric_agreement": 10,
                                        "label_agreement": 11, "rliable": 12,
                                        "bayes": 13}

#: The design study's streams.
DESIGN_STREAMS: dict[str, int] = {"population": 0, "pool": 1, "test_set": 2, "random_golds": 3, "orders": 4,
                                  "uncertainty": 5, "coverage": 6, "size_test_set": 7, "size_random_golds": 8,
                                  "new_population_test_set": 9, "new_population_random_golds": 10}


#: The calibration study's streams (``[seed, 100, k, p]``: apart from every other study's).
CALIBRATION_STREAMS: dict[str, int] = {"images": 0, "truth": 1, "test_sets": 2}


def stream(seed: int, name: str, *index: int, design: bool = False, calibration: bool = False) -> np.random.Generator:
    """The generator of stream ``name`` of a study seeded with ``seed``.

    Parameters
    ----------
    seed : int
        The study's seed (``--seed``).
    name : str
        A stream of :data:`STUDY_STREAMS` (or of :data:`DESIGN_STREAMS` with ``design=True``).
    *index : int
        The design study's population or replicate.
    design : bool
        Look ``name`` up among the design study's streams.
    calibration : bool
        Look ``name`` up among the calibration study's streams.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> float(stream(0, "orders").random()) == float(np.random.default_rng([0, 1]).random())
    True
    """
    table = CALIBRATION_STREAMS if calibration else DESIGN_STREAMS if design else STUDY_STREAMS
    try:
        k = table[name]
    except KeyError:
        raise ValueError(f"unknown random stream {name!r}; choose from {', '.join(table)}") from None
    prefix = (100,) if calibration else ()
    return np.random.default_rng([seed, *prefix, *(() if k is None else (k,)), *index])
