"""Each public function that documents the columns of the frame it returns returns those columns.

(Issue "Architecture IV", item 7: docstrings still named a ``system`` column that the code writes as ``run``.) A
docstring's Returns section documents a frame's columns in one of four ways, each checked in both directions:

- a list (``Columns ````a, b, c````) or a constant (``:data:`RESOLUTION_COLUMNS```): the frame's columns are
  exactly those, in that order;
- a first ````a, b, c```` span, perhaps followed by more names: every name of the span is a column, and every
  column is named somewhere in the Returns or Notes sections;
- "columns below": every column is named in the Notes.

Every public function the library documents this way has an example call here (or a reason in ``ELSEWHERE``), so a
new one cannot go unchecked.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from robustness.overlap import compute_overlap
from robustness.statistics import comparisons, leaderboard
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.uncertainty import ranking_uncertainty
from robustness.synthetic.challenge import make_challenge
from tests.conftest import REPO
from tests.source import parsed

_LISTED = re.compile(r"[Cc]olumns\s+``([^`]+)``")
_CONSTANT = re.compile(r":data:`~?([\w.]*COLUMNS)`")
_SPAN = re.compile(r"``([^`]+)``")


_HEADING = re.compile(r"^(Parameters|Returns|Yields|Raises|Warns|Notes|See Also|Examples|References|Attributes)\n-{3,}\n",
                      re.M)


def _section(doc: str, name: str) -> str:
    """One numpydoc section of a (dedented) docstring, up to the next heading."""
    found = list(_HEADING.finditer(doc))
    for k, m in enumerate(found):
        if m.group(1) == name:
            return doc[m.end(): found[k + 1].start() if k + 1 < len(found) else len(doc)]
    return ""


def _returns(doc: str) -> str:
    """The Returns section of a numpydoc docstring."""
    return _section(doc, "Returns")


def _names(span: str) -> list[str]:
    return [c.strip() for c in re.sub(r"\s+", " ", span).split(",") if c.strip()]


def _form(section: str) -> str | None:
    """How a Returns section documents its frame's columns (None: it does not)."""
    if "DataFrame" not in section:
        return None
    if _LISTED.search(section):
        return "listed"
    if _CONSTANT.search(section):
        return "constant"
    if "columns below" in section:
        return "below"
    if any("," in s for s in _SPAN.findall(section.replace("\n", " "))):
        return "span"
    if len(_identifiers(section)) >= 3:  # names its columns one by one (````z_mean````, ````z_median````, ...)
        return "named"
    return None


def _documented_functions() -> dict[str, str]:
    """Qualified name -> form, for every public function and method that documents its frame's columns."""
    found = {}
    for path in sorted((REPO / "robustness").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        tree = parsed(path)
        functions = [(None, f) for f in tree.body if isinstance(f, ast.FunctionDef)] + [
            (c.name, f) for c in tree.body if isinstance(c, ast.ClassDef) and not c.name.startswith("_")
            for f in c.body if isinstance(f, ast.FunctionDef)]
        for owner, f in functions:
            form = _form(_returns(ast.get_docstring(f) or ""))
            if form and not f.name.startswith("_"):
                found[".".join(x for x in (module, owner, f.name) if x)] = form
    return found


def _resolve(qualname: str):
    parts = qualname.split("#")[0].split(".")
    for k in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for name in parts[k:]:
            obj = getattr(obj, name)
        return obj
    raise LookupError(qualname)


def _identifiers(text: str) -> set[str]:
    """The names ``text`` writes as code (````a````, ````a, b````, ````a/b````), constants apart."""
    names = {n.strip() for span in _SPAN.findall(text.replace("\n", " ")) for n in re.split(r"[,/]", span)}
    return {n for n in names if re.fullmatch(r"[a-z_][a-z0-9_]*", n)}


def _part(section: str, part: str) -> str:
    """Where a Returns section documents several frames (``(a, b) : DataFrames``), the text about frame ``part``."""
    returned = re.findall(r"\w+", section.split(":", 1)[0])
    text = section.split(f"``{part}``", 1)[1]
    for other in returned:
        if other != part:
            text = text.split(f"``{other}``", 1)[0]
    return text


def check_columns(function, frame: pd.DataFrame, part: str | None = None, symbols: set = frozenset()) -> None:
    """Assert that ``frame`` (``part``, of several) has the columns ``function``'s docstring documents (module
    notes)."""
    doc = inspect.getdoc(function) or ""
    form = _form(_returns(doc))
    section = _returns(doc) if part is None else _part(_returns(doc), part)
    assert form, f"{function.__qualname__} documents no columns"
    columns = list(frame.columns)
    if form == "listed":
        assert columns == _names(_LISTED.search(section).group(1)), (function.__qualname__, columns)
        return
    if form == "constant":
        name = _CONSTANT.search(section).group(1)
        module, _, attr = name.rpartition(".")
        value = getattr(importlib.import_module(module or function.__module__), attr)
        assert columns == list(value), (function.__qualname__, columns, list(value))
        return
    named = _identifiers(section + (_section(doc, "Notes") if form == "below" else "")) - set(symbols)
    unnamed = [c for c in columns if c not in named]
    assert not unnamed, f"{function.__qualname__} returns columns its docstring does not name: {unnamed}"
    missing = sorted(named - set(columns) - set(inspect.signature(function).parameters))  # a parameter named
    assert not missing, f"{function.__qualname__} documents columns it does not return: {missing}"


# -- small inputs -------------------------------------------------------------------------------------------

def _metric_agreement(c):
    from robustness.statistics.metric_agreement import PerImageValues, metric_agreement

    rng = np.random.default_rng(0)
    values = rng.random((2, 3, 8))  # (metric, run, image)
    return metric_agreement(PerImageValues(values, np.array([False, True]), ["dice", "hd95"], ["a", "b", "c"], np.arange(8)),
                            n_resamples=20, rng=0)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    from robustness.qa import make_qa_challenge
    from robustness.statistics.case_rankings import task_scores
    from robustness.statistics.convergence import rank_convergence

    counts = compute_overlap(make_challenge(n_encounters=6, n_images=10, n_runs=4, n_teams=2, rng=3), rng=0)
    schemes = schemes_from_counts(counts, unit="encounter")
    macro = schemes_from_counts(counts, unit="image")
    macro = macro.select([k for k, n in enumerate(macro.names) if n[2] == "macro"])
    rng = np.random.default_rng(5)
    table = pd.DataFrame([{"task": task, "case": f"c{k}", "algorithm": run, "value": float(rng.random())}
                          for task in ("T1", "T2") for run in ("a", "b", "c") for k in range(12)])
    table_path = tmp_path_factory.mktemp("table") / "t.csv"
    table.assign(unit=table.case.str[:2], strategy="majority", metric="dice").to_csv(table_path, index=False)
    return SimpleNamespace(table_path=table_path, qa=make_qa_challenge(n_encounters=6, n_runs=3, rng=0),
                           counts=counts, schemes=schemes, macro=macro, boot=bootstrap(schemes, n_resamples=20, rng=0),
                           conv=rank_convergence(schemes, n_orders=5, rng=0),
                           per_size=ranking_uncertainty(schemes, n_resamples=4, rng=0)[0],
                           tasks=task_scores(table, by=["task"]))


def _verdicts(c):
    from robustness.results.verdicts import Verdicts

    v = Verdicts()
    v.add("pairs_differ", table="pairwise.parquet", strategy="majority", metric="jaccard", average="micro",
          count=3, total=6)
    return v.frame()


def _resolution(c):
    from robustness.statistics.resolution import resolution_table

    return resolution_table(c.schemes, sizes=[6, 24])


def _replicates(c):
    from robustness.simulation.twin_resolution import resolution_from_replicates

    rng = np.random.default_rng(0)
    design = pd.DataFrame([{"strategy": "majority", "metric": "jaccard", "average": average, "encounters": n,
                            "pair_sd": float(rng.uniform(0.05, 0.1)), "pair_sd_q75": 0.12, "runs": 5}
                           for average in ("micro", "macro") for n in (20, 40) for _ in range(3)])
    return resolution_from_replicates(design, at=pd.Series(True, index=design.index), test_units=30,
                                      unit="encounter")


def _needed(c):
    from robustness.simulation.recommendation import needed_by_agreement

    summary = pd.DataFrame(dict(strategy="majority", average="micro", agreement=0.6, encounters=[50, 100, 200],
                                l1_population=[80.0, 40.0, 20.0], l1_population_low=[60.0, 30.0, 10.0],
                                l1_population_high=[100.0, 60.0, 45.0]))
    return needed_by_agreement(summary, target=40.0)


def _over_test_sets(c):
    from robustness.statistics.convergence import compare_over_test_sets

    auc = np.random.default_rng(0).random((len(c.schemes.names), 8))
    return compare_over_test_sets(auc, c.schemes.names)


def _ranked(c):
    from robustness.statistics.case_rankings import rank_task

    return rank_task(c.tasks[0], "aggregate").frame()


def _consensus(c):
    from robustness.statistics.case_rankings import rank_tasks
    from robustness.statistics.consensus import consensus

    return consensus(rank_tasks(c.tasks)[0])


def _podium(c):
    from robustness.statistics.ranking_options import RankingOptions
    from robustness.studies.table_comparisons import podium_table

    return podium_table(c.tasks, RankingOptions(), np.random.default_rng(0))


def _per_case(c):
    from robustness.statistics.table_schemes import per_case_table

    return per_case_table(c.counts)


def _paired_tests(c):
    from robustness.statistics.test_based import PairedTests

    return PairedTests.from_schemes(c.macro).tests_frame()


def _units_needed(c):
    from robustness.statistics.uncertainty import units_needed

    return units_needed(c.per_size, tolerance=4.0)


def _resolve_table(c):
    from robustness.statistics.resolution import resolve_table

    return resolve_table(_resolution(c), 0.05)


def _adjacent(c):
    strategy, metric, average = c.boot.schemes.names[0]
    return comparisons.adjacent_pairs(c.boot, strategy=strategy, metric=metric, average=average)


EXAMPLES = {
    "robustness.overlap.counts.OverlapCounts.to_frame": lambda c: c.counts.to_frame(),
    "robustness.results.verdicts.Verdicts.frame": _verdicts,
    "robustness.simulation.recommendation.needed_by_agreement": _needed,
    "robustness.simulation.twin_resolution.resolution_from_replicates": _replicates,
    "robustness.statistics.bootstrap.BootstrapResult.intervals": lambda c: c.boot.intervals(),
    "robustness.statistics.bootstrap.BootstrapResult.rank_distribution": lambda c: c.boot.rank_distribution(),
    "robustness.statistics.bootstrap.BootstrapResult.stability": lambda c: c.boot.stability(),
    "robustness.statistics.case_rankings.RankedTask.frame": _ranked,
    "robustness.statistics.comparisons.pairwise_comparisons": lambda c: comparisons.pairwise_comparisons(c.boot),
    "robustness.statistics.comparisons.pairwise_tests": lambda c: comparisons.pairwise_tests(c.macro),
    "robustness.statistics.comparisons.strategy_agreement": lambda c: comparisons.strategy_agreement(c.schemes),
    "robustness.statistics.comparisons.ranking_agreement": lambda c: comparisons.ranking_agreement([c.boot]),
    "robustness.statistics.comparisons.adjacent_pairs": _adjacent,
    "robustness.statistics.consensus.consensus": _consensus,
    "robustness.statistics.convergence.compare_over_test_sets": _over_test_sets,
    "robustness.statistics.convergence.Convergence.to_frame": lambda c: c.conv.to_frame(),
    "robustness.statistics.convergence.Convergence.orders_frame": lambda c: c.conv.orders_frame(),
    "robustness.statistics.convergence.Convergence.summary": lambda c: c.conv.summary(),
    "robustness.statistics.convergence.Convergence.convergence_points": lambda c: c.conv.convergence_points(),
    "robustness.statistics.convergence.Convergence.compare_strategies": lambda c: c.conv.compare_strategies(),
    "robustness.statistics.leaderboard.scores_frame": lambda c: leaderboard.scores_frame(c.counts, ranks=True),
    "robustness.statistics.resolution.resolution_table": _resolution,
    "robustness.statistics.resolution.resolve_table": _resolve_table,
    "robustness.statistics.schemes.Schemes.labels_frame": lambda c: c.schemes.labels_frame(),
    "robustness.statistics.table_schemes.per_case_table": _per_case,
    "robustness.statistics.test_based.PairedTests.tests_frame": _paired_tests,
    "robustness.statistics.uncertainty.ranking_uncertainty#per_size": lambda c: c.per_size,
    "robustness.statistics.metric_agreement.metric_agreement#boards": lambda c: _metric_agreement(c)[0],
    "robustness.statistics.metric_agreement.metric_agreement#agreement": lambda c: _metric_agreement(c)[1],
    "robustness.statistics.spread.gold_spread": lambda c: __import__(
        "robustness.statistics.spread", fromlist=["x"]).gold_spread(c.counts, n_resamples=20, rng=0),
    "robustness.io.case_table.read_case_table": lambda c: __import__(
        "robustness.io.case_table", fromlist=["x"]).read_case_table(c.table_path, task_column="task",
                                                                    unit_column="unit")[0],
    "robustness.qa.scoring.qa_table": lambda c: __import__("robustness.qa.scoring", fromlist=["x"]).qa_table(*c.qa),
    "robustness.simulation.rank_intervals.rank_interval_coverage": lambda c: __import__(
        "robustness.simulation.rank_intervals", fromlist=["x"]).rank_interval_coverage(
        spreads=(0.3,), sizes=(10,), n_populations=2, n_test_sets=2, n_resamples=20, truth_cases=2000),
    "robustness.statistics.uncertainty.units_needed": _units_needed,
    "robustness.studies.table_comparisons.podium_table": _podium,
}

#: Names a docstring writes as code that are not columns (symbols of its formulas), per function.
NOT_COLUMNS = {"robustness.statistics.spread.gold_spread": {"z_i", "sigma_i", "mu_i", "score_i", "sigma"}}

#: Functions whose docstrings match a form above but are checked elsewhere or do not list columns, with why.
ELSEWHERE = {
    "robustness.simulation.calibration.calibrate": "a whole calibration study; tests/statistics/test_population.py "
                                                   "builds calibration.csv from CALIBRATION_COLUMNS",
    "robustness.simulation.grid.run_grid": "its span names a dictionary's key (spread, runs, correlation), not columns",
    "robustness.simulation.twin.fit": "a whole fit of the generator (tests/simulation/test_twin*.py read fit.csv's "
                                      "statistic, target and fitted columns)",
    "robustness.simulation.image_fit.fit_image_twin": "a whole fit of the image twin (tests/synthetic/"
                                                      "test_image_twin.py and the walkthrough read fit.csv)",
    "robustness.simulation.recommendation.summarise": "names the frames it returns (design_summary, "
                                                      "coverage_summary), not their columns",
    "robustness.simulation.recommendation.choose_scheme": "returns a dict; its random entry's columns in prose",
    "robustness.studies.qa.answer_counts": "one column per parent question and its _low/_high, named by pattern; "
                                           "tests/qa/test_qa.py reads answer_counts.csv",
}


def test_every_function_that_documents_its_columns_is_checked():
    found = _documented_functions()
    assert len(found) > 20, f"the scan finds too few documented frames: {found}"
    examples = {name.partition("#")[0] for name in EXAMPLES}
    assert set(found) - examples - set(ELSEWHERE) == set(), "give these an example call in EXAMPLES"
    assert examples | set(ELSEWHERE) <= set(found), "these no longer document columns: drop them"


@pytest.mark.parametrize("qualname", sorted(EXAMPLES))
def test_the_documented_columns_are_the_returned_ones(ctx, qualname):
    frame = EXAMPLES[qualname](ctx)
    assert len(frame), f"{qualname}: the example returns no rows"
    name, _, part = qualname.partition("#")  # a function returning several frames: the one named after #
    check_columns(_resolve(qualname), frame, part or None, NOT_COLUMNS.get(name, set()))


def test_the_check_fails_on_a_wrong_docstring():
    """A documented column the frame lacks, or a column the docstring does not name, fails the check."""
    def listed():
        """Returns
        -------
        pandas.DataFrame
            Columns ``run, system``.
        """

    def spanned():
        """Returns
        -------
        pandas.DataFrame
            ``run, score`` and ``rank``.
        """

    frame = pd.DataFrame({"run": ["a"], "score": [1.0], "rank": [1]})
    with pytest.raises(AssertionError):
        check_columns(listed, frame)
    check_columns(spanned, frame)
    with pytest.raises(AssertionError, match="does not name"):
        check_columns(spanned, frame.assign(extra=0))
    with pytest.raises(AssertionError, match="does not return"):
        check_columns(spanned, frame.drop(columns="score"))
    with pytest.raises(AssertionError, match="does not return"):  # a later span is a column too
        check_columns(spanned, frame.drop(columns="rank"))

    def raises():
        """Returns
        -------
        pandas.DataFrame
            ``run, score``.

        Raises
        ------
        ValueError
            A ``system`` column.
        """

    with pytest.raises(AssertionError, match="does not name"):  # named in Raises is not documented as a column
        check_columns(raises, frame.drop(columns="rank").assign(system=0))

    def below():
        """Returns
        -------
        pandas.DataFrame
            The columns below.

        Notes
        -----
        ``run`` and ``score``; ``rank``.
        """

    check_columns(below, frame)
    with pytest.raises(AssertionError, match="does not return"):  # both directions in the Notes too
        check_columns(below, frame[["run"]])


def test_the_distance_to_unlimited_datas_per_run_table(ctx):
    _, per_run = ranking_uncertainty(ctx.schemes, n_resamples=4, rng=0)
    doc = ranking_uncertainty.__doc__
    listed = re.search(r"``per_run`` \(at ``m = N``\): ``([^`]+)``", doc.replace("\n", " "))
    assert listed is not None
    named = _names(listed.group(1))
    assert list(per_run.columns)[: len(named)] == named
    assert np.isin(["p_best_shared", "p_best_per_team", "p_keep_rank"], per_run.columns).all()
