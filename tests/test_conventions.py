"""The package's conventions, checked on its source: type hints and numpydoc sections on every public function,
the ruff rule set of pyproject.toml, no test that takes long without the ``slow`` mark."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.source import parsed

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "robustness"


def _classes():
    """Every class of the package by name: its base names and its methods."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
                methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
                found[node.name] = (bases, methods)
    return found


#: Classes that follow a protocol of the package structurally, without naming it as a base (a dataclass would read the
#: protocol's properties as field defaults): the protocol documents the members they implement.
FOLLOWS = {"Schemes": ("Rankable",), "SchemesView": ("Rankable",)}


def _documented_in_a_base(cls: str, method: str, classes) -> bool:
    """``method`` overrides a documented method of a base class of the package (the base documents it)."""
    todo, seen = list(classes.get(cls, ((), {}))[0]) + list(FOLLOWS.get(cls, ())), set()
    while todo:
        base = todo.pop()
        if base in seen or base not in classes:
            continue
        seen.add(base)
        bases, methods = classes[base]
        if method in methods and ast.get_docstring(methods[method]):
            return True
        todo += list(bases) + list(FOLLOWS.get(base, ()))
    return False


def public_functions(*, inherited: bool = True):
    """``(where, node)`` of every public function and method of the package's public modules.

    Public: not in a private module or package (``_name``), the function and its class not private, not a dunder.
    With ``inherited=False``, methods that implement a documented method of a base class (e.g. the
    :class:`~robustness.statistics.rankable.Rankable` protocol) are left out: their base documents them.
    """
    classes = _classes()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if any(part.startswith("_") and part != "__init__.py" for part in rel.parts):
            continue
        tree = parsed(path)

        def visit(body, owner=""):
            for node in body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    yield from visit(node.body, f"{owner}{node.name}.")
                elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                    if any(getattr(d, "id", getattr(d, "attr", None)) == "overload" for d in node.decorator_list):
                        continue  # a typing.overload signature: the implementation below is documented
                    if owner and not inherited and _documented_in_a_base(owner.split(".")[-2], node.name, classes):
                        continue
                    yield f"{rel}:{node.lineno} {owner}{node.name}", node

        yield from visit(tree.body)


def _parameters(node):
    args = node.args
    named = [a for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]
    return named + [a for a in (args.vararg, args.kwarg) if a is not None]


def _is_property(node) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" or isinstance(d, ast.Attribute) and d.attr == "setter"
               for d in node.decorator_list)


def _section(doc: str, title: str) -> list[str] | None:
    """The lines of a numpydoc section (``title`` underlined with dashes), or None."""
    lines = doc.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == title and set(lines[i + 1].strip()) == {"-"}:
            body = []
            for rest in lines[i + 2:]:
                if rest.strip() and set(rest.strip()) == {"-"} and body and body[-1].strip():
                    body.pop()  # the next section's title
                    break
                body.append(rest)
            return body
    return None


def test_the_walk_sees_the_public_api():
    found = dict(public_functions())
    assert len(found) > 250
    assert any(w.endswith(" compute_overlap") for w in found) and any(w.endswith(" StudyResult.save") for w in found)


def test_public_functions_have_type_hints():
    missing = []
    for where, node in public_functions():
        unannotated = [a.arg for a in _parameters(node) if a.annotation is None]
        if unannotated or node.returns is None:
            missing.append(f"{where}: " + (f"parameters {unannotated}" if unannotated else "") +
                           (" return" if node.returns is None else ""))
    assert not missing, f"{len(missing)} public functions without type hints:\n" + "\n".join(missing)


def test_public_functions_have_numpydoc_parameters_and_returns():
    """Every public function has a docstring; one with parameters documents each of them under "Parameters", and
    one that returns something says what under "Returns" (or "Yields")."""
    problems = []
    for where, node in public_functions(inherited=False):
        doc = ast.get_docstring(node)
        if not doc:
            problems.append(f"{where}: no docstring")
            continue
        params = [a.arg for a in _parameters(node)]
        if params and not _is_property(node):
            section = _section(doc, "Parameters")
            if section is None:
                problems.append(f"{where}: no Parameters section")
            else:
                entries = " ".join(line.split(" : ")[0] for line in section
                                   if line.strip() and not line.startswith((" ", "\t")))
                named = set(re.findall(r"\*{0,2}(\w+)", entries))
                absent = [p for p in params if p not in named]
                if absent:
                    problems.append(f"{where}: Parameters does not document {absent}")
        returns = node.returns
        nothing = returns is None or isinstance(returns, ast.Constant) and returns.value is None
        if not nothing and not _is_property(node) and _section(doc, "Returns") is None \
                and _section(doc, "Yields") is None:
            problems.append(f"{where}: no Returns section")
    assert not problems, f"{len(problems)} docstrings:\n" + "\n".join(problems)


def test_ruff_passes_with_the_projects_rule_set():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run([ruff, "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_markers_are_declared_and_enforced():
    """Declared here; the slow marker's limit is enforced by tests/timing.py (tested in test_suite_speed.py)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in config["addopts"]
    slow = next(m for m in config["markers"] if m.startswith("slow:"))
    # the marker says the limit tests/timing.py enforces by default, in the same unit (CPU seconds)
    limit = re.search(r'ROBUSTNESS_SLOW_LIMIT", "([0-9.]+)"', (REPO / "tests" / "timing.py").read_text()).group(1)
    assert f"fails an unmarked test over {limit} CPU-seconds" in slow, (slow, limit)


def test_no_function_over_complexity_20():
    """The rule set holds the complexity check (ruff's C901 at 20), so test_ruff_passes_... enforces it."""
    import tomllib

    lint = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "C901" in lint["select"] and lint["mccabe"]["max-complexity"] <= 20


#: Modules still over 500 lines, each with the ceiling it may not pass (Architecture III, item 5: the list may only
#: shrink; a module split below 500 lines leaves it, and a new module over 500 lines fails).
LONG_MODULES: dict[str, int] = {}


def test_no_module_over_500_lines_beyond_the_shrinking_list():
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines())
             for folder in ("robustness", "experiments", "figures") for p in (REPO / folder).rglob("*.py")}
    over = {name: n for name, n in sizes.items() if n > 500}
    grown = {name: n for name, n in over.items() if n > LONG_MODULES.get(name, 500)}
    assert not grown, f"modules over their ceiling (500 lines, or LONG_MODULES'): {grown}"
    stale = sorted(name for name in LONG_MODULES if sizes.get(name, 0) <= 500)
    assert not stale, f"now at or under 500 lines: drop them from LONG_MODULES: {stale}"


# -- imports a reader and a type checker can follow ----------------------------------------------------------------

#: The library's modules that import inside functions, and why; every other module imports at its top.
LAZY_IMPORTS = {
    "robustness/overlap/gold.py": "loaded by the commands' parsers: --help imports no numpy",
    "robustness/overlap/patterns.py": "loaded by the commands' parsers: --help imports no numpy",
    "robustness/statistics/ranking_methods.py": "loaded by the commands' parsers: --help imports no numpy",
    "robustness/statistics/ranking_options.py": "loaded by the commands' parsers: --help imports no numpy",
    "robustness/parallel.py": "Dask is optional; each backend's own process pool",
}


def _function_level_imports(path: Path) -> list[int]:
    tree = parsed(path)
    top = {id(m) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.If, ast.Try))
           for m in ast.walk(n)}
    return sorted(n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in top)


def test_the_library_imports_at_the_top_of_its_modules():
    found = {str(p.relative_to(REPO)): _function_level_imports(p) for p in (REPO / "robustness").rglob("*.py")}
    inside = {name: lines for name, lines in found.items() if lines and name not in LAZY_IMPORTS}
    assert not inside, f"imports inside functions (move them to the module's top, or list the module in " \
                       f"LAZY_IMPORTS with the reason): {inside}"
    stale = [name for name in LAZY_IMPORTS if not found.get(name)]
    assert not stale, f"no import inside a function any more: drop them from LAZY_IMPORTS: {stale}"


def test_lazy_names_are_the_stubs_and_resolve():
    """Each lazy package's public names are its __init__.pyi's (lazy_loader reads the stub; static tools read it
    too), and every name the stub imports resolves on the package to the object its module defines."""
    import ast
    import importlib

    stubs = sorted((REPO / "robustness").rglob("__init__.pyi"))
    assert len(stubs) >= 10
    for path in stubs:
        package = ".".join(path.parent.relative_to(REPO).parts)
        module = importlib.import_module(package)
        named, offered = {}, set()
        for node in parsed(path).body:
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1, f"{path}: lazy_loader reads relative imports only (from .module import x)"
                for alias in node.names:
                    assert alias.asname == alias.name, f"{path}: {alias.name} re-exported as {alias.asname}"
                    if node.module:
                        named[alias.name] = f"{package}.{node.module}"
                    else:
                        offered.add(alias.name)
        assert named or offered, path
        assert set(module.__all__) - {"__version__"} == set(named) | offered, package
        for name, source in named.items():  # the package's name is its module's object, not a stand-in
            assert getattr(module, name) is getattr(importlib.import_module(source), name), f"{package}.{name}"
        for name in offered:
            assert getattr(module, name) is importlib.import_module(f"{package}.{name}"), f"{package}.{name}"


# -- one name pattern for registries -----------------------------------------------------------------------------

#: Every registry: a module-level dict NAME, and ``register_<kind>`` in the same module adds to it.
REGISTRIES = {
    "robustness.overlap.metrics": ("METRICS", "register_metric"),
    "robustness.overlap.gold": ("STRATEGIES", "register_strategy"),
    "robustness.overlap.empty": ("EMPTY_POLICIES", "register_empty_policy"),
    "robustness.overlap.boundary_names": ("BOUNDARY_METRICS", "register_boundary_metric"),
    "robustness.statistics.ranking_methods": ("RANKING_METHODS", "register_ranking"),
    "robustness.results.study_result": ("TABLES", "register_table"),
    "robustness.results.claims": ("CLAIMS", "register_claim"),
    "robustness.reporting.sections.registry": ("SECTIONS", "register_section"),
}


def test_every_registry_is_a_dict_its_register_function_fills():
    import importlib

    from robustness.reporting.sections.registry import sections

    sections("rank_convergence")  # the built-in report sections register when their module is first asked for
    for module_name, (table, register) in REGISTRIES.items():
        module = importlib.import_module(module_name)
        registry, add = getattr(module, table), getattr(module, register)
        assert isinstance(registry, dict) and registry and callable(add), module_name
    for module_name in ("robustness.overlap.metrics", "robustness.overlap.gold", "robustness.overlap.empty",
                        "robustness.overlap.boundary_names", "robustness.statistics.ranking_methods"):
        module = importlib.import_module(module_name)
        table, register = REGISTRIES[module_name]
        registry = getattr(module, table)
        name, entry = next(iter(registry.items()))
        assert getattr(module, register)(entry) is entry and registry[name] is entry  # registering again: the same
        with pytest.raises(TypeError):
            getattr(module, register)("not an entry")


def test_the_earlier_gold_registration_name_warns():
    from robustness.overlap.gold import STRATEGIES, register

    with pytest.deprecated_call(match="register_strategy"):
        assert register(STRATEGIES["union"]) is STRATEGIES["union"]


# -- gold and metric names live in their registries and the defaults ----------------------------------------------

#: Gold and metric names a module still writes as string literals (docstrings aside), outside the registries
#: (overlap/gold.py, overlap/metrics.py, overlap/boundary.py) and the defaults (scheme.py): a ceiling per module
#: that only shrinks. Most are the official scorer's and the paper's own definitions (the official leaderboard's
#: majority Jaccard and Dice, Table 4's majority and STAPLE), the rest default arguments to move to scheme.DEFAULT.
LITERAL_NAMES = {
    "robustness/statistics/spread.py": 9,
    "robustness/statistics/leaderboard.py": 8, "robustness/simulation/populations.py": 7,
    "robustness/statistics/ranking_options.py": 6,
    "robustness/simulation/twin.py": 4, "robustness/overlap/counts.py": 3, "robustness/reporting/plotting.py": 3,
    "robustness/reporting/sections/rank_convergence_agreement.py": 1, "robustness/simulation/recommendation.py": 3,
    "robustness/studies/rank_convergence.py": 2, "robustness/reporting/sections/design.py": 2,
    "robustness/studies/rank_convergence_verdicts.py": 1,
    "robustness/synthetic/case_tables.py": 2, "robustness/overlap/staple.py": 1,
    "robustness/studies/scoring.py": 1,
}
_NAMES = {"majority", "intersection", "union", "staple", "rand1", "rand2", "rand3", "jaccard", "dice", "hd95", "assd",
          "hd", "nsd"}
_HOMES = {"robustness/overlap/gold.py", "robustness/overlap/metrics.py", "robustness/overlap/boundary.py",
          "robustness/overlap/boundary_names.py",
          "robustness/scheme.py"}


def _literal_names(path: Path, names=_NAMES) -> int:
    """How many string literals of ``names`` the module writes, docstrings aside."""
    tree = parsed(path)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return sum(isinstance(n, ast.Constant) and n.value in names and id(n) not in docs for n in ast.walk(tree))


def test_gold_and_metric_names_are_not_spelled_out_beyond_the_shrinking_list():
    found = {str(p.relative_to(REPO)): _literal_names(p) for p in (REPO / "robustness").rglob("*.py")
             if str(p.relative_to(REPO)) not in _HOMES and p.name != "__init__.py"}
    grown = {name: n for name, n in found.items() if n > LITERAL_NAMES.get(name, 0)}
    assert not grown, f"gold or metric names written out (use the registries or scheme.DEFAULT): {grown}"
    stale = {name: n for name, n in LITERAL_NAMES.items() if found.get(name, 0) < n}
    assert not stale, f"fewer literal names now: lower LITERAL_NAMES to {stale} -> {found}"


# -- ranking method names live in their registry ----------------------------------------------------------------

#: Ranking method names a module still writes as string literals (docstrings aside), outside the registry
#: (statistics/ranking_methods.py), in the library, the commands and the figures: a ceiling per module that only
#: shrinks (issue "Architecture IV", item 5). Each method owns its special cases (its registry entry's
#: ``summarises_cases``, ``task_notes`` and ``challenger`` form); what is left names the default method.
METHOD_LITERALS = {
    "robustness/reporting/rank_plots.py": 1, "robustness/reporting/sections/common.py": 2,
    "robustness/reporting/sections/rank_convergence_agreement.py": 1,
    "robustness/reporting/sections/rank_convergence_uncertainty.py": 2, "robustness/reporting/sections/rankings.py": 1,
    "robustness/results/verdicts.py": 1, "robustness/simulation/rank_intervals.py": 1,
    "robustness/statistics/case_rankings.py": 3,
    "robustness/statistics/ranking_options.py": 2, "robustness/statistics/schemes.py": 2,
    "robustness/statistics/table_schemes.py": 1, "robustness/statistics/task_statistics.py": 2,
    "robustness/statistics/test_based.py": 1, "robustness/studies/common.py": 1, "robustness/studies/rank_convergence.py": 4,
    "robustness/studies/rank_convergence_verdicts.py": 2,
    "robustness/studies/table.py": 1, "robustness/studies/table_comparisons.py": 1, "experiments/_study.py": 1,
    "figures/__init__.py": 3, "figures/fig_02_micro_convergence.py": 2, "figures/fig_07_qa_convergence.py": 1,
    "figures/fig_08_table_convergence.py": 1,
}
_METHODS = {"aggregate", "rank-then-aggregate", "test-based"}


def _method_literals(path: Path) -> int:
    return _literal_names(path, _METHODS)


def test_ranking_method_names_are_not_spelled_out_beyond_the_shrinking_list():
    found = {str(p.relative_to(REPO)): _method_literals(p) for folder in ("robustness", "experiments", "figures")
             for p in (REPO / folder).rglob("*.py") if p.name != "ranking_methods.py"}
    grown = {name: n for name, n in found.items() if n > METHOD_LITERALS.get(name, 0)}
    assert not grown, f"ranking method names written out (use the registry, DEFAULT_RANKING): {grown}"
    stale = {name: n for name, n in METHOD_LITERALS.items() if found.get(name, 0) < n}
    assert not stale, f"fewer literal method names now: lower METHOD_LITERALS to {stale} -> {found}"
