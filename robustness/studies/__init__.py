"""Studies: each one a library function ``run(inputs, options, n_jobs=...) -> StudyResult``.

- :mod:`.rank_convergence`: the main job (segmentation: golds, averaging, test-set size), its options
  (:mod:`.rank_convergence_options`) and its metric and label analyses (:mod:`.rank_convergence_metrics`);
- :mod:`.table`: the same study on any pipeline's per-case scores;
- :mod:`.qa`: closed-ended QA (official scores, Table 5, the same study per encounter);
- :mod:`.scoring`: the official scores of a segmentation challenge;
- :mod:`.design`: the design study (which gold and how many encounters, by simulation with a known truth);
- :mod:`.design_base`: what it plans for (its options, and the generator fitted to a named challenge);
- :mod:`.calibration`: the package's claims held against populations of known truth;
- :mod:`.common`: what the resampling studies share (options, the resampling step, tables), and
  :mod:`.resampling_verdicts` the verdicts they state on them.

A study returns a :class:`~robustness.results.study_result.StudyResult`; the
command line (``experiments/``) saves it, draws its figures and builds its report
from the folder.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)  # the names: __init__.pyi
