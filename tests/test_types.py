"""The type checker on robustness/ (Architecture III, item 4): mypy with pyproject.toml's [tool.mypy], in make test.

robustness/ is free of mypy errors; any new one fails here, with mypy's line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_library():
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run([mypy, "--no-pretty", "--show-error-codes"], cwd=REPO, capture_output=True, text=True)
    errors = [line for line in done.stdout.splitlines() if ": error: " in line]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stdout[-3000:] + done.stderr[-3000:]
