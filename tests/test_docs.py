"""The documentation site builds with Sphinx, warnings as errors (``make docs``; issue "Architecture IV", item 10).

Built from a copy of docs/ (the build generates the API pages and copies the notebooks into its source folder),
without running the notebooks: tests/test_notebooks.py runs them, and ``make docs`` runs them again as it builds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.slow  # about 30 CPU-s: every module's page from its docstrings
def test_the_site_builds_without_a_warning(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (pip install -e '.[docs]')")
    pytest.importorskip("myst_nb", reason="myst-nb is not installed (pip install -e '.[docs]')")
    source = tmp_path / "docs"
    shutil.copytree(REPO / "docs", source, ignore=shutil.ignore_patterns("_build", "api", "notebooks",
                                                                          "jupyter_execute"))
    env = dict(os.environ, ROBUSTNESS_DOCS_REPO=str(REPO), ROBUSTNESS_DOCS_EXECUTE="off")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(source),
                           str(tmp_path / "html")], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    html = tmp_path / "html"
    assert (html / "index.html").is_file() and (html / "api.html").is_file()
    page = (html / "api" / "robustness.statistics.uncertainty.html").read_text()
    assert "ranking_uncertainty" in page and "Parameters" in page  # numpydoc's sections, from the docstring
    assert (html / "notebooks" / "01_synthetic_walkthrough.html").is_file()
    assert (html / "main-job.html").is_file()  # a MyST page


def test_a_notebook_whose_data_is_absent_becomes_a_page_saying_so(tmp_path):
    """The contents name the BU-BIL notebook whatever the machine: where its data is not found the build writes a
    page saying so (a missing page would be a warning, and `make docs` fails on warnings); where it is, the
    notebook itself."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_conf", REPO / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    written = conf._notebooks(tmp_path / "absent", data=tmp_path / "no-data")
    assert written == ["01_synthetic_walkthrough.ipynb", "02_bubil_case_study.md"]
    page = (tmp_path / "absent" / "02_bubil_case_study.md").read_text()
    assert page.startswith("# BU-BIL case study") and "did not find" in page and "notebooks/02_bubil_case_study" in page
    present = tmp_path / "data"
    (present / "bu-bil" / "dataset1").mkdir(parents=True)
    assert conf._notebooks(tmp_path / "present", data=present) == ["01_synthetic_walkthrough.ipynb",
                                                                     "02_bubil_case_study.ipynb"]
    toctree = (REPO / "docs" / "index.md").read_text()
    assert "notebooks/02_bubil_case_study" in toctree  # one name, either page


@pytest.mark.slow  # reads the shared main job's folder (tiny_main), which the first of its readers pays for
def test_the_main_job_page_lists_each_tables_columns_as_written(tiny_main):
    """Every row of docs/main-job.md's file table that spells out a file's columns (```a, b, c```) names exactly the
    columns, in order, of that file in a results folder (it said ``system`` long after the column became ``run``)."""
    import re

    import pandas as pd
    import pyarrow.parquet as pq

    _, out = tiny_main
    rows = re.findall(r"^\| `([\w.]+)` \|[^|\n]*?`(\w+(?:, \w+)+)`", (REPO / "docs" / "main-job.md").read_text(), re.M)
    assert len(rows) >= 3
    for name, listed in rows:
        path = out / name
        columns = pq.read_schema(path).names if name.endswith(".parquet") else list(pd.read_csv(path, nrows=0).columns)
        assert columns == listed.split(", "), name
