"""The notebooks run from top to bottom (so they cannot rot)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, shared_data


def run_notebook(name, cwd=None):
    import nbformat
    from nbclient import NotebookClient

    path = REPO / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd or path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    return nb


@pytest.mark.slow
def test_synthetic_walkthrough():
    nb = run_notebook("01_synthetic_walkthrough.ipynb")
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "rand1" in text


@pytest.mark.slow
def test_bubil_case_study(monkeypatch, tmp_path):
    """Run from an unrelated working folder: the notebook finds ../shared/data above the package itself."""
    data = shared_data() / "bu-bil" / "dataset1"
    if not data.is_dir():
        pytest.skip(f"real BU-BIL data not found at {data} (set ROBUSTNESS_SHARED_DATA)")
    if shared_data() != REPO.parent / "shared" / "data":
        monkeypatch.setenv("ROBUSTNESS_SHARED_DATA", str(shared_data()))
    else:
        monkeypatch.delenv("ROBUSTNESS_SHARED_DATA", raising=False)
    nb = run_notebook("02_bubil_case_study.ipynb", cwd=tmp_path)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "case-insensitively" in text and "value(s) {24}" in text
    assert "run 'Person2_ImageJ' is identical to annotator 'Person2_Amira'" in text
