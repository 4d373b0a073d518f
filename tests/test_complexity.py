"""The complexity ratchet (Architecture IV, item 6): branches, statements, arguments and cyclomatic complexity.

ruff's C901 (mccabe, at most 20) holds everywhere. On top of it this test measures every function of the package,
the commands and the figures by radon's cyclomatic complexity (which also counts boolean operators and
comprehensions' conditions) and by pylint's rules as ruff implements them: branches (PLR0912, at most 12),
statements (PLR0915, at most 50) and arguments (PLR0913, at most 8; limits in pyproject.toml). The functions
over a limit today are listed in ``complexity_ratchet.json`` with their measure; the list only shrinks:

- a function not in the list may not go over a limit;
- a listed function's cyclomatic complexity may not grow;
- a listed function back under its limit must leave the list (the test says which lines to delete).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.source import parsed

REPO = Path(__file__).resolve().parents[1]
RATCHET = Path(__file__).with_name("complexity_ratchet.json")
FOLDERS = ("robustness", "experiments", "figures")
CC_LIMIT = 20
RULES = ("PLR0912", "PLR0913", "PLR0915")


def _sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (REPO / folder).rglob("*.py"))


def cyclomatic() -> dict[str, int]:
    """``path::qualified name`` -> radon's cyclomatic complexity, for every block over :data:`CC_LIMIT`."""
    radon = pytest.importorskip("radon.complexity", reason="radon is not installed (pip install -e '.[test]')")
    out = {}
    for path in _sources():
        for block in radon.cc_visit(path.read_text()):
            name = f"{block.classname}.{block.name}" if getattr(block, "classname", None) else block.name
            if block.complexity > CC_LIMIT:
                out[f"{path.relative_to(REPO)}::{name}"] = block.complexity
    return out


def _function_at(tree: ast.Module, line: int) -> str:
    """The qualified name of the function defined at ``line``."""
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if child.lineno == line and not isinstance(child, ast.ClassDef):
                    return name
                found = walk(child, name + ".")
                if found:
                    return found
        return None

    return walk(tree, "") or f"line {line}"


def pylint_rules() -> set[str]:
    """``path::qualified name::rule`` for every function over a branch, statement or argument limit."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    done = subprocess.run([ruff, "check", "--select", ",".join(RULES), "--output-format", "json", "--exit-zero",
                           *FOLDERS], cwd=REPO, capture_output=True, text=True, check=True)
    out = set()
    for hit in json.loads(done.stdout):
        rel = str(Path(hit["filename"]).resolve().relative_to(REPO))
        tree = parsed(REPO / rel)
        out.add(f"{rel}::{_function_at(tree, hit['location']['row'])}::{hit['code']}")
    return out


def test_complexity_only_shrinks():
    listed = json.loads(RATCHET.read_text())
    cc, rules = cyclomatic(), pylint_rules()
    new_cc = {k: v for k, v in cc.items() if k not in listed["cyclomatic"]}
    grown = {k: (listed["cyclomatic"][k], v) for k, v in cc.items() if k in listed["cyclomatic"]
             and v > listed["cyclomatic"][k]}
    new_rules = sorted(rules - set(listed["rules"]))
    assert not new_cc, f"functions over cyclomatic complexity {CC_LIMIT} (radon): {new_cc}; split them"
    assert not grown, f"listed functions whose complexity grew (listed, now): {grown}"
    assert not new_rules, f"functions over a branch, statement or argument limit: {new_rules}; split them"
    gone = sorted(set(listed["cyclomatic"]) - set(cc)) + sorted(set(listed["rules"]) - rules)
    assert not gone, f"under the limit now: delete them from {RATCHET.name} (the list only shrinks): {gone}"
    lower = {k: (v, cc[k]) for k, v in listed["cyclomatic"].items() if k in cc and cc[k] < v}
    assert not lower, f"complexity fell (listed, now): write the new values into {RATCHET.name}: {lower}"


if __name__ == "__main__":  # python -m tests.test_complexity: print today's list (to start it, never to grow it)
    print(json.dumps({"cyclomatic": dict(sorted(cyclomatic().items())), "rules": sorted(pylint_rules())},
                     indent=1))
