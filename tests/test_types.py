"""The type checker (Architecture III, item 4; IV): mypy with pyproject.toml's [tool.mypy], in make test.

robustness/, experiments/ and figures/ are free of mypy errors; any new one fails here, with mypy's line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _mypy_on(tmp_path, source: str) -> subprocess.CompletedProcess:
    """mypy on a user's module ``source`` (from the repository, with its configuration); skips without mypy."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    user = tmp_path / "user.py"
    user.write_text(source)
    return subprocess.run([mypy, "--no-pretty", "--no-error-summary", "--show-error-codes", str(user)], cwd=REPO,
                          capture_output=True, text=True)


@pytest.mark.slow  # mypy over the whole library: about 15 CPU-s on a fresh clone (no .mypy_cache)
def test_mypy_finds_no_error_in_the_library():
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run([mypy, "--no-pretty", "--show-error-codes"], cwd=REPO, capture_output=True, text=True)
    errors = [line for line in done.stdout.splitlines() if ": error: " in line]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.slow  # mypy follows the imports of the whole package
def test_a_type_checker_resolves_the_lazy_public_names(tmp_path):
    """``robustness.compute_overlap`` (a lazy name) is the function for mypy, through robustness/__init__.pyi."""
    done = _mypy_on(tmp_path, "import robustness\nfrom robustness.overlap import resolve\n"
                              "reveal_type(robustness.compute_overlap)\nreveal_type(resolve)\n"
                              "reveal_type(robustness.statistics.bootstrap.BootstrapResult)\n")
    revealed = [line.split("Revealed type is ", 1)[1] for line in done.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 3, done.stdout + done.stderr
    assert revealed[0].startswith('"def (challenge: robustness.io.challenge.Challenge')
    assert revealed[1].startswith('"def (') and "Any" != revealed[1].strip('"')
    assert "robustness.statistics.bootstrap.BootstrapResult" in revealed[2]  # a submodule through the stubs


@pytest.mark.slow  # mypy follows the imports of the results package
def test_a_misspelled_claim_fails_the_type_check(tmp_path):
    """A verdict's claim is a ClaimName (issue "Architecture IV", item 2): mypy refuses a claim not declared, where it
    is written and where a report reads it, before anything runs."""
    done = _mypy_on(tmp_path, "from robustness.results.study_result import StudyResult\n"
                              "from robustness.results.verdicts import Verdicts\n"
                              "v = Verdicts()\n"
                              "v.add('pairs_differ', table='pairwise.parquet')\n"
                              "v.add('pairs_dffer', table='pairwise.parquet')\n"
                              "def read(res: StudyResult) -> None:\n"
                              "    res.verdict('units_needed')\n"
                              "    res.verdict('units_neded')\n")
    errors = [line for line in done.stdout.splitlines() if ": error: " in line]
    assert [line.split(":")[1] for line in errors] == ["5", "8"], done.stdout
    assert all("[arg-type]" in line for line in errors), errors


def test_the_claim_type_names_every_declared_claim():
    from typing import get_args

    from robustness.results.claims import CLAIMS, ClaimName

    assert set(get_args(ClaimName)) == set(CLAIMS)
