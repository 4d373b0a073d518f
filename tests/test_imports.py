"""Start-up: each command's path imports only what it needs (issue 53). Checked on ``sys.modules``, not on timings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from robustness._lazy import lazy_module
from tests.conftest import REPO

#: Libraries the score command's path never uses on 2D masks: figures, statistics beyond the counts, medical images.
NOT_FOR_SCORING = ("matplotlib", "scipy.stats", "scipy.ndimage", "statsmodels", "SimpleITK", "fontTools")


def _loaded(code: str, *, cwd=REPO) -> set[str]:
    """The modules of ``sys.modules`` once ``code`` has run in a fresh interpreter."""
    probe = code + "\nimport json, sys\nprint('MODULES ' + json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True)
    line = [x for x in done.stdout.splitlines() if x.startswith("MODULES ")][-1]
    return set(json.loads(line[len("MODULES "):]))


def test_importing_the_scoring_path_leaves_matplotlib_and_scipy_stats_out():
    loaded = _loaded("import experiments.score\nimport robustness.studies.scoring\nimport robustness.results.folder\n"
                     "import robustness.reporting.publish")
    heavy = [m for m in (*NOT_FOR_SCORING, "pandas", "numba", "pyarrow", "tifffile", "imagecodecs", "PIL", "joblib",
                         "scipy.special") if m in loaded]
    assert not heavy, f"the scoring path imports {heavy} at start-up (make them lazy: robustness._lazy.lazy_module)"


@pytest.mark.slow
def test_the_score_command_never_loads_what_it_does_not_use(tiny_dermavqa, tmp_path):
    """End to end (the pixel pass, the leaderboard, the report): no figure, statistics or medical-image library."""
    code = ("import sys\nfrom experiments import score\n"
            f"assert score.main(['--data', {str(tiny_dermavqa)!r}, '--out', {str(tmp_path / 'out')!r}, '--quiet']) == 0")
    loaded = _loaded(code)
    assert "numba" in loaded and "pandas" in loaded  # what it does use
    assert not [m for m in NOT_FOR_SCORING if m in loaded]


def test_studies_and_reports_import_no_plotting_library():
    """The figures are drawn by publish (figures.make_all) and the PDF only with --pdf: matplotlib comes with them.

    One interpreter imports the four modules; only where it loads matplotlib is each imported alone, to name it.
    """
    modules = ["robustness.studies.rank_convergence", "robustness.studies.table", "robustness.studies.qa",
               "robustness.reporting.report"]
    if "matplotlib" in _loaded("\n".join(f"import {m}" for m in modules)):
        raise AssertionError(f"{[m for m in modules if 'matplotlib' in _loaded(f'import {m}')]} import matplotlib")


def test_the_kernels_package_loads_numba_on_first_use():
    loaded = _loaded("from robustness import _kernels\nassert callable(_kernels.__getattr__)")
    assert "numba" not in loaded and "robustness._kernels.pixels" not in loaded
    assert "numba" in _loaded("from robustness import _kernels\n_kernels.count_run")


def test_a_lazy_module_is_imported_on_first_attribute_read(monkeypatch):
    name = "tests._lazy_probe_not_a_module"
    probe = lazy_module(name)
    assert name not in sys.modules and "not imported yet" in repr(probe)
    with pytest.raises(ModuleNotFoundError):
        probe.anything
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)  # whatever the suite imported before
    colours = lazy_module("colorsys")
    assert "colorsys" not in sys.modules and "not imported yet" in repr(colours)
    assert colours.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0) and "imported" in repr(colours)
    assert lazy_module("sys") is sys  # already imported: the module itself


def test_no_other_distribution_provides_the_robustness_package():
    """This package's distribution is leaderboard-robustness; an extra spelled ``robustness[...]`` would install
    another project of that name from the index (MadryLab's), whose top-level ``robustness`` a command started from
    another folder would import instead of this one."""
    from importlib.metadata import PackageNotFoundError, distribution

    with pytest.raises(PackageNotFoundError):
        distribution("robustness")
    assert distribution("leaderboard-robustness").metadata["Name"] == "leaderboard-robustness"
