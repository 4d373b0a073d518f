"""Statistics: from overlap counts (or per-case scores) to rankings and how far they can be trusted.

- :mod:`.schemes`: :class:`Schemes`, every leaderboard score as a ratio of sums over test units;
- :mod:`.ranks`: ranks with an explicit tie rule, L1, Kendall's tau; :mod:`.multiplicity`: adjusted p-values;
- :mod:`.ranking_methods` (the registry and the :class:`Rankable` protocol the engines rank; each method's
  exact statistic in :mod:`.task_statistics`), :mod:`.test_based` (the engines' paired tests),
  :mod:`.paired` (the Wilcoxon and t-tests), :mod:`.case_rankings` and :mod:`.consensus` (per-case tables);
- :mod:`.convergence` (the paper's curves over many orders), :mod:`.bootstrap` (resampled units),
  :mod:`.uncertainty` (distance to unlimited data), :mod:`.comparisons` (the significance analysis,
  agreement between rankings);
- :mod:`.spread` (the annotators' own spread, Table 4), :mod:`.truth` (synthetic truth),
  :mod:`.leaderboard` (score tables, the official JSON), :mod:`.verdicts` (leaders and ties).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
