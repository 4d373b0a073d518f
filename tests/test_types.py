"""The type checker on robustness/ (Architecture III, item 4): mypy with pyproject.toml's [tool.mypy], in make test.

No error beyond tests/mypy_baseline.txt, the errors of the modules not yet typed through, each as ``path: [code]
message`` (line numbers left out so that edits above an error do not move it); an error fixed must leave the
baseline too, so it only shrinks. Regenerate it with ``python -m tests.test_types`` after fixing errors.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "mypy_baseline.txt"
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def current_errors() -> Counter:
    """mypy's errors on robustness/ as ``path: [code] message``, counted."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run([mypy, "--no-error-summary", "--no-pretty", "--show-error-codes"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    found = Counter()
    for line in done.stdout.splitlines():
        m = _ERROR.match(line)
        if m:
            found[f"{m['path']}: [{m['code']}] {m['message']}"] += 1
    return found


def baseline() -> Counter:
    return Counter(line for line in BASELINE.read_text().splitlines() if line.strip())


def test_mypy_finds_no_error_beyond_the_shrinking_baseline():
    found, known = current_errors(), baseline()
    new = found - known
    assert not new, f"{sum(new.values())} new type error(s):\n" + "\n".join(sorted(new))
    fixed = known - found
    assert not fixed, ("fixed, so drop from tests/mypy_baseline.txt (python -m tests.test_types):\n"
                       + "\n".join(sorted(fixed)))


if __name__ == "__main__":
    errors = current_errors()
    BASELINE.write_text("".join(f"{e}\n" for e in sorted(errors.elements())))
    print(f"{sum(errors.values())} errors in {len({e.split(':')[0] for e in errors})} files -> {BASELINE}")
