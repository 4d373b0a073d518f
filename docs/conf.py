"""Sphinx configuration of the documentation site (``make docs``: docs/_build/html/index.html).

The pages are the Markdown files of this folder (MyST), the API reference is generated from the numpydoc
docstrings of the library (autosummary), and the notebooks are executed as the site is built (myst-nb; the BU-BIL
case study only where the shared data is found, as in the tests). Warnings are errors (``-W`` in the Makefile).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = Path(os.environ.get("ROBUSTNESS_DOCS_REPO", HERE.parent))  # the tests build a copy of docs/ elsewhere
sys.path.insert(0, str(REPO))

project = "robustness"
author = "the robustness developers"
copyright = "2026, the robustness developers"  # noqa: A001 (Sphinx's name)
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "README.md"]
root_doc = "index"

# the API reference: one page per module, from the docstrings (numpydoc sections)
templates_path = ["_templates"]  # a module's page: its docstring, its members, its submodules
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True,
                           "ignore-module-all": True}  # a package's lazy names are documented in their modules
autodoc_typehints = "none"  # numpydoc's Parameters section says the types
autodoc_use_type_comments = False  # the package annotates; reading each function's source for "# type:" comments
# cost the test's build about 3 of its 40 CPU-s (2026-12-07, fifth session)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# the pages: MyST Markdown (headings get anchors, for the pages' links to sections of one another)
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# the notebooks: executed as the site is built (ROBUSTNESS_DOCS_EXECUTE=off builds without running them)
nb_execution_mode = os.environ.get("ROBUSTNESS_DOCS_EXECUTE", "force")
nb_execution_timeout = 900
nb_execution_raise_on_error = True

html_theme = "pydata_sphinx_theme"
html_title = "robustness"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2, "header_links_before_dropdown": 2}


#: What the site says in place of a notebook whose real data the build did not find.
_NO_DATA = """# {title}

This case study runs on the real BU-BIL multi-rater masks, which this build of the site did not find (the folder
`../shared/data` beside the repository, or `ROBUSTNESS_SHARED_DATA`). Its notebook is
`notebooks/{name}` in the repository; build the site where the data is (`make docs`) to read it here, executed.
"""


def _notebooks(target: Path = HERE / "notebooks", data: Path | None = None) -> list[str]:
    """The notebooks into the site's source (docs/notebooks, not kept in git); returns the pages written.

    A notebook that needs the real data, where the data is not found, becomes a page saying so (the contents
    name it either way, so the build has no missing page to warn about).
    """
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    data = data or Path(os.environ.get("ROBUSTNESS_SHARED_DATA", REPO.parent / "shared" / "data"))
    written = []
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        if "bubil" in notebook.name and not (data / "bu-bil" / "dataset1").is_dir():
            print(f"docs: {notebook.name} not executed: the BU-BIL data is not at {data} (ROBUSTNESS_SHARED_DATA)")
            page = target / notebook.with_suffix(".md").name
            page.write_text(_NO_DATA.format(title="BU-BIL case study (needs the real data)", name=notebook.name))
            written.append(page.name)
            continue
        shutil.copy2(notebook, target / notebook.name)
        written.append(notebook.name)
    return written


def _one_docstring_template() -> None:
    """One jinja2 environment for numpydoc's docstring template, made once per process (one build).

    numpydoc 1.11 makes a new environment, and so compiles its template again, for every docstring it formats
    (twice an object: about a fifth of the build's CPU, measured with cProfile). The template and its loader
    (numpydoc's folder, through the builder's loader) are the same for every docstring of a build; a second
    build in the same process would reuse the first one's environment (Sphinx's command makes one build).
    """
    from numpydoc import docscrape_sphinx

    made: dict = {}
    environment = docscrape_sphinx.SandboxedEnvironment

    def once(loader):
        if "env" not in made:
            made["env"] = environment(loader=loader)
        return made["env"]

    docscrape_sphinx.SandboxedEnvironment = once


def setup(app):
    """Sphinx's hook: the notebooks are copied when a build starts (importing this file does nothing)."""
    app.connect("builder-inited", lambda _app: _notebooks())
    app.connect("builder-inited", lambda _app: _one_docstring_template())
