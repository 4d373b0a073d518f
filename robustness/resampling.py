"""The resampling study in one namespace: per-unit statistics, rank convergence, bootstrap, comparisons.

The work lives in modules named after what they hold; this module gathers
their public names so that a study imports one place:

- :mod:`robustness.schemes`: :class:`Schemes` (per-unit additive statistics),
  :func:`schemes_from_counts`, :func:`schemes_from_table`, :func:`per_case_table`;
- :mod:`robustness.convergence`: :func:`rank_convergence`, :class:`Convergence`;
- :mod:`robustness.bootstrap`: :func:`bootstrap`, :class:`BootstrapResult`,
  :func:`bootstrap_interval`;
- :mod:`robustness.comparisons`: :func:`pairwise_tests`, :func:`adjacent_pairs`,
  :func:`strategy_agreement`, :func:`ranking_agreement`;
- :mod:`robustness.ranking_methods`: :func:`prepare` (what the engines rank under
  a ranking method);
- :mod:`robustness.parallel`: :func:`parallel_backend` (Dask).
"""

from __future__ import annotations

from .bootstrap import BootstrapResult, bootstrap, bootstrap_interval
from .comparisons import adjacent_pairs, pairwise_tests, ranking_agreement, strategy_agreement
from .convergence import Convergence, rank_convergence
from .parallel import parallel_backend
from .ranking_methods import prepare
from .schemes import Schemes, per_case_table, schemes_from_counts, schemes_from_table

__all__ = [
    "Schemes", "schemes_from_counts", "schemes_from_table", "per_case_table", "Convergence", "rank_convergence",
    "BootstrapResult", "bootstrap", "bootstrap_interval", "pairwise_tests", "parallel_backend",
    "strategy_agreement", "adjacent_pairs", "ranking_agreement", "prepare",
]
