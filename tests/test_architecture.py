"""One table per concept: a new metric is one table entry, a new gold strategy one registration, the empty policy one
object; each goes end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from robustness.overlap import compute_overlap, gold, metrics
from robustness.parallel import batch_generators
from robustness.statistics.bootstrap import bootstrap
from robustness.statistics.convergence import rank_convergence
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.leaderboard import scores_frame
from robustness.synthetic.challenge import make_challenge
from tests.conftest import METHOD_FIGURES, TINY_MAIN_OPTIONS, only_figures
from tests.source import parsed


@pytest.fixture(scope="module")
def counts():
    return compute_overlap(make_challenge(n_encounters=6, n_images=11, n_runs=5, n_teams=2, rng=12), rng=0)


@pytest.fixture
def precision(monkeypatch):
    """Precision TP / (TP + FP), added by one table entry (and removed after the test)."""
    monkeypatch.setitem(metrics.METRICS, "precision", metrics.Metric("precision", (1, 0, 0), (1, 1, 0)))
    return metrics.METRICS["precision"]


def direct_precision(c, average):
    """Precision with numpy alone: micro pools counts, macro averages per image (a run with no pixel scores 1)."""
    c = np.asarray(c, dtype=float)
    if average == "micro":
        tp, fp = c[..., 0].sum(axis=-1), c[..., 1].sum(axis=-1)
        return np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
    tp, fp = c[..., 0], c[..., 1]
    return np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0).mean(axis=-1)


def test_a_new_metric_is_one_table_entry(counts, precision):
    # scores: micro and macro, every strategy, in the tidy table too
    table = scores_frame(counts)
    assert "precision" in set(table.metric)
    for strat in ("majority", "staple", "rand2"):
        c = counts.strategy_counts(strat)
        for average in ("micro", "macro"):
            got = table[(table.strategy == strat) & (table.metric == "precision") & (table.average == average)]
            np.testing.assert_allclose(got.score.to_numpy(), direct_precision(c, average), rtol=1e-15)
    # curves: the L1 of every prefix equals ranks recomputed from numpy scores with scipy's rankdata
    sc = schemes_from_counts(counts, metrics=["jaccard", "precision"])
    conv = rank_convergence(sc, n_orders=3, rng=4)
    s = sc.index("majority", "precision", "micro")
    c = counts.strategy_counts("majority")
    final = rankdata(-direct_precision(c, "micro"))
    for k, order in enumerate(conv.orders):
        for p, n in enumerate(conv.positions):
            r = rankdata(-np.round(direct_precision(c[:, order[:n]], "micro"), 12))
            assert conv.l1[s, k, p] == np.abs(r - final).sum()
    # bootstrap intervals: the same resamples, re-scored with numpy, give the same distribution and interval
    boot = bootstrap(sc, n_resamples=20, batch_size=20, rng=9)
    idx = batch_generators(9, 1)[0].integers(0, sc.n_units, (20, sc.n_units))
    s = sc.index("union", "precision", "macro")
    per_image = np.where(counts.strategy_counts("union")[..., :2].sum(-1) > 0,
                         counts.strategy_counts("union")[..., 0] / np.maximum(
                             counts.strategy_counts("union")[..., :2].sum(-1), 1), 1.0)
    dist = np.stack([per_image[:, i].mean(axis=1) for i in idx])  # (B, R)
    np.testing.assert_allclose(boot.distribution[s], dist, rtol=1e-12)
    ci = boot.intervals()
    row = ci[(ci.strategy == "union") & (ci.metric == "precision") & (ci.average == "macro")]
    np.testing.assert_allclose(row.low.to_numpy(), np.quantile(dist, 0.025, axis=0), rtol=1e-12)
    np.testing.assert_allclose(row.high.to_numpy(), np.quantile(dist, 0.975, axis=0), rtol=1e-12)


def test_unknown_metric_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"metric must be one of jaccard, dice; got 'f1'"):
        metrics.pair_score([[1, 0, 0]], "f1")
    with pytest.raises(ValueError, match="denominator"):
        metrics.Metric("nothing", (1, 0, 0), (0, 0, 0))


@pytest.fixture
def at_least_two(monkeypatch):
    """A look-up-table gold strategy, registered in one place (and removed after the test)."""
    strategy = gold.GoldStrategy("atleast2", "lut", build=lambda k: gold.pattern_bits(k).sum(axis=1) >= 2,
                                 style=dict(color="#000000", linestyle=":"), label="at least two")
    monkeypatch.setitem(gold.STRATEGIES, "atleast2", strategy)
    return strategy


@pytest.mark.slow
def test_a_new_gold_strategy_is_one_registration(at_least_two, tmp_path):
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa

    ch = make_challenge(n_encounters=5, n_images=9, n_runs=4, n_teams=2, rng=3)
    data = write_dermavqa(ch, tmp_path / "challenge")
    out = tmp_path / "out"
    # one job: the strategy's lambda cannot be pickled to a worker process (a registration for --n-jobs > 1 is a
    # module-level function)
    assert job.main(["--data", str(data), "--out", str(out), "--strategies", "majority,atleast2", "--orders", "4",
                     "--bootstrap", "10", "--outer", "4", "--quiet", "--n-jobs", "1"]) == 0
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    # the counts against "at least two annotators", straight from the masks
    tp = fp = fn = 0
    for i in range(ch.n_images):
        g = np.sum([m for m in ch.annotator_masks(i).values()], axis=0) >= 2
        run = ch.run_mask(i, board.index[0])
        tp, fp, fn = tp + (run & g).sum(), fp + (run & ~g).sum(), fn + (~run & g).sum()
    assert board.loc[board.index[0], "atleast2_jaccard_micro"] == tp / (tp + fp + fn)
    assert {"atleast2_dice_macro", "max_jaccard_macro"} <= set(board.columns)
    curves = pd.read_parquet(out / "curves.parquet")
    assert set(curves.strategy) == {"majority", "atleast2", "mean", "max"}
    assert "atleast2" in set(pd.read_csv(out / "kendall_tau.csv").strategy)
    assert (out / "figures" / "fig_02_micro_convergence.png").exists()


def test_registry_drives_the_plot_style(at_least_two):
    from robustness.reporting.plotting import strategy_style

    assert strategy_style("atleast2") == dict(color="#000000", linestyle=":", label="at least two")
    assert strategy_style("rand7")["label"] == "rand7"  # any randN is parsed once, by the registry
    assert gold.resolve(["rand1", "atleast2"])[-1].name == "max"  # macro adds mean and max by default
    with pytest.raises(ValueError, match=r"unknown gold strategy 'majorty'; choose from rand1..randN, majority"):
        gold.resolve(["majorty"])


def test_one_empty_policy_object(counts):
    official = metrics.empty_policy("official")
    assert official.propagates and not metrics.empty_policy("ignore").propagates
    assert metrics.empty_policy(official) is official
    with pytest.raises(ValueError, match="empty must be one of one, zero, ignore, official"):
        metrics.empty_policy("skip")
    a = schemes_from_counts(counts, empty="official")
    b = schemes_from_counts(counts, empty=official)
    np.testing.assert_array_equal(a.scores(), b.scores())


def test_compat_official_is_an_alias_of_empty_official():
    from experiments.rank_convergence import parser

    assert parser().parse_args(["--compat", "official"]).empty == "official"
    assert parser().parse_args(["--empty", "zero"]).empty == "zero"
    assert parser().parse_args([]).empty == "one"


# -- the hand-off (issue: "Architecture II") ---------------------------------------------------------------------

def _modules():
    """Every module of the package: its dotted name, its file and whether it is a package's __init__."""
    import robustness

    root = Path(robustness.__file__).parent
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if is_package else parts), path, is_package


def _imports(name, path, is_package, known):
    """The package's modules ``name`` imports, anywhere in the file (module level, inside functions, and the
    ``if TYPE_CHECKING:`` imports of annotations: a reader and a type checker follow those too)."""
    import ast

    tree = parsed(path)
    base = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "robustness":
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                module = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "robustness":
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{module}.{alias.name}"
                yield sub if sub in known else module


def test_the_import_graph_has_no_cycle():
    """Walk every import of every module, including the ones inside functions and the type-only ones, and fail on
    any cycle."""
    modules = {name: (path, pkg) for name, path, pkg in _modules()}
    graph = {name: {m for m in _imports(name, path, pkg, modules) if m in modules and m != name}
             for name, (path, pkg) in modules.items()}
    # Tarjan's strongly connected components
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for v in graph:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    assert len(graph) > 40 and sum(map(len, graph.values())) > 100  # the walk saw the package
    assert not cycles, f"import cycles: {cycles}"


def test_reports_and_statistics_import_no_study():
    """The report reads a results folder and meta.json's named fields; the statistics are below the studies: neither
    imports a study module (the shared pieces of the size answers live in statistics/size_answers.py)."""
    modules = {name: (path, pkg) for name, path, pkg in _modules()}
    found = {name: sorted(m for m in _imports(name, path, pkg, modules) if m.startswith("robustness.studies"))
             for name, (path, pkg) in modules.items()
             if name.startswith(("robustness.reporting", "robustness.statistics"))}
    assert len(found) > 20  # the walk saw them
    assert not {k: v for k, v in found.items() if v}


def test_the_hand_off_lies_below_studies_and_reports():
    """Studies hand a StudyResult to the reports through robustness.results: no study imports reporting (the arrow
    runs one way), and robustness.results imports neither a study nor a report."""
    modules = {name: (path, pkg) for name, path, pkg in _modules()}
    found = {name: sorted(m for m in _imports(name, path, pkg, modules)
                          if m.startswith("robustness.reporting")
                          or (name.startswith("robustness.results") and m.startswith("robustness.studies")))
             for name, (path, pkg) in modules.items() if name.startswith(("robustness.studies", "robustness.results"))}
    assert len(found) > 8
    assert not {k: v for k, v in found.items() if v}


def test_generators_depend_on_inputs_only():
    """robustness.synthetic (the generators) imports only the input layer, the seeds, the kernels and itself: a
    generator is an input, below every engine that uses it."""
    modules = {name: (path, pkg) for name, path, pkg in _modules()}
    allowed = ("robustness.synthetic", "robustness.io", "robustness.seeds", "robustness._kernels", "robustness.errors",
               "robustness.files", "robustness._lazy")
    found = {name: sorted(m for m in _imports(name, path, pkg, modules)
                          if m.startswith("robustness") and not m.startswith(allowed) and m != "robustness")
             for name, (path, pkg) in modules.items() if name.startswith("robustness.synthetic")}
    assert len(found) >= 4
    assert not {k: v for k, v in found.items() if v}


def test_no_report_or_figure_reads_the_command_line():
    """What a report needs from the options is a named field of meta.json (the headline scheme, the size target, how
    the input was read), never the command line's namespace (``parameters``, argparse's names), which the commands
    keep for the record only."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "robustness" / "reporting").rglob("*.py")) + sorted((root / "figures").glob("*.py"))
    files = [f for f in files if f.name != "publish.py"]  # the one writer of the record, never a reader
    assert len(files) > 20
    for path in files:
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Constant) and node.value == "parameters":
                raise AssertionError(f"{path.relative_to(root)}:{node.lineno} reads meta.json's 'parameters'")


def test_no_module_imports_another_modules_private_names():
    import ast

    for name, path, _ in _modules():
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("robustness"):
                if node.module.startswith(("robustness._kernels", "robustness._lazy")):
                    continue  # the private kernel package and the lazy exports are shared by design
                private = [a.name for a in node.names
                           if a.name.startswith("_") and a.name not in ("__version__", "_kernels", "_lazy")]
                assert not private, f"{name} imports private {private} from {node.module}"


def _weighted_median(values, weights=None, *, options=None, lower_better=False, rng=None):
    """The median of each run's per-case scores, every case counted as often as it was drawn (a registered
    method's ``case_statistic``: any weights shape, higher is better)."""
    if weights is not None and np.ndim(weights) == 2:
        return np.stack([_weighted_median(values, w, lower_better=lower_better) for w in weights])
    weights = np.ones(values.shape[1]) if weights is None else np.asarray(weights)
    out = np.full(values.shape[0], np.nan)
    for r, v in enumerate(values):
        keep = ~np.isnan(v) & (weights > 0)
        if keep.any():
            out[r] = np.median(np.repeat(v[keep], weights[keep].astype(int)))
    return -out if lower_better else out


@pytest.fixture(scope="module")
def median_job(tmp_path_factory):
    """The main job on a small challenge with a toy ranking method, median-then-rank, added by one registration."""
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa
    from robustness.statistics import ranking_methods

    method = ranking_methods.register_ranking(ranking_methods.RankingMethod(
        "median-then-rank", "median-then-rank", "median score", 1, True,
        "the median of the per-case scores, then rank; macro only", _weighted_median, metric_units=True))
    tmp = tmp_path_factory.mktemp("median")
    ch = make_challenge(n_encounters=6, n_images=10, n_runs=4, n_teams=2, rng=5)
    data = write_dermavqa(ch, tmp / "challenge")
    out = tmp / "out"
    try:
        with only_figures("rank_convergence", *METHOD_FIGURES["rank_convergence"]):  # those that draw each method
            assert job.main(["--data", str(data), "--out", str(out), "--ranking", "aggregate,median-then-rank",
                             "--orders", "6", "--bootstrap", "20", "--outer", "4", "--test-step", "2", "--quiet"]) == 0
        yield ch, out, method
    finally:
        ranking_methods.RANKING_METHODS.pop("median-then-rank", None)


@pytest.mark.slow
def test_a_new_ranking_method_is_one_registration(median_job):
    """The toy method goes through every engine, table, method figure and the report; its numbers equal numpy's."""
    from robustness.statistics.count_schemes import schemes_from_counts

    ch, out, method = median_job
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    rows = ci[(ci.ranking == "median-then-rank") & (ci.method == "percentile")]
    assert set(rows.average) == {"macro"} and set(rows.statistic) == {"median score"}
    # the full-set statistic: the median over images of each run's per-image Jaccard against majority
    counts = compute_overlap(ch, rng=0)
    sc = schemes_from_counts(counts, unit="encounter")
    per_case = sc.per_case[sc.index("majority", "jaccard", "macro")]
    got = rows[(rows.strategy == "majority") & (rows.metric == "jaccard")].set_index("run").score
    np.testing.assert_array_equal(got.loc[list(sc.runs)].to_numpy(), np.median(per_case, axis=1))
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert "majority_jaccard_macro_median-then-rank" in board
    curves = pd.read_parquet(out / "curves.parquet", filters=[("ranking", "==", "median-then-rank")])
    assert len(curves) and curves.groupby(["strategy", "metric", "order"]).l1.last().eq(0).all()
    assert (out / "figures" / "fig_03_macro_convergence_median-then-rank.png").exists()
    assert "median-then-rank" in set(pd.read_csv(out / "kendall_tau.csv").other_ranking)
    summary = (out / "summary.md").read_text()
    assert "**median-then-rank** ranks the runs by their median score" in summary
    assert "first under median-then-rank:" in summary


@pytest.mark.slow
def test_a_new_ranking_method_ranks_a_per_case_table_too(median_job):
    """The same registration ranks a table's leaderboards and their bootstrap (no second dispatch)."""
    from robustness.statistics.case_rankings import bootstrap_task_ranks, rank_task, task_scores
    from robustness.statistics.ranking_options import RankingOptions

    table = pd.DataFrame({"case": np.repeat(["c1", "c2", "c3"], 3), "algorithm": ["A", "B", "C"] * 3,
                          "value": [0.9, 0.1, 0.5, 0.2, 0.4, 0.5, 0.8, 0.3, 0.1], "metric": "hd95"})
    ts = task_scores(table, by=("metric",))[0]  # HD95: smaller is better
    ranked = rank_task(ts, "median-then-rank")
    np.testing.assert_array_equal(ranked.statistic, [0.8, 0.3, 0.5])  # the medians, as given
    assert ranked.ranks.tolist() == [3.0, 1.0, 2.0]
    boots = bootstrap_task_ranks(ts, "median-then-rank", RankingOptions(ties="min"), n_resamples=50, rng=3)
    assert boots.shape == (50, 3) and set(np.unique(boots)) <= {1.0, 2.0, 3.0}


@pytest.mark.slow
def test_the_report_rebuilds_from_the_folder_alone(median_job, monkeypatch):
    """`python -m experiments.report` writes the same summary.md and report.html as the job did."""
    from experiments import report

    _, out, _ = median_job
    before = {name: (out / name).read_bytes() for name in ("summary.md", "report.html", "meta.json")}
    for name in ("summary.md", "report.html"):  # each one the rebuild must write (meta.json: it must leave alone)
        (out / name).write_text("stale")
    assert report.main([str(out), "--quiet"]) == 0
    for name, data in before.items():
        assert (out / name).read_bytes() == data, name


@pytest.mark.slow
def test_a_new_report_table_is_one_section_and_one_registration(median_job, tmp_path):
    """A section that shows the stability of every gold is one function and one registration; the rebuilt report
    holds it, read from the folder."""
    import shutil

    from experiments import report
    from robustness.reporting.sections import registry

    _, out, _ = median_job
    folder = tmp_path / "copy"
    shutil.copytree(out, folder)

    def stability(r, res):
        t = res.table("stability.csv")
        r.heading("Rank stability per gold")
        r.table(t[t.ranking == "aggregate"][["strategy", "average", "tau_median", "tau_low", "tau_high"]])

    before = list(registry.SECTIONS["rank_convergence"])
    try:
        registry.register_section("rank_convergence", stability, before="truth")
        assert report.main([str(folder), "--quiet"]) == 0
    finally:
        registry.SECTIONS["rank_convergence"][:] = before
    summary = (folder / "summary.md").read_text()
    assert "## Rank stability per gold" in summary
    stab = pd.read_csv(out / "stability.csv")
    first = stab[stab.ranking == "aggregate"].iloc[0]
    assert f"| {first.strategy} | {first.average} | {first.tau_median:.4f} |" in summary
    assert summary.index("## Rank stability per gold") < summary.index("## Which gold recovers the true ranking?")


@pytest.mark.slow
def test_the_python_api_writes_the_commands_folder(tiny_main, tmp_path):
    """docs/python-api.md's two calls (run, publish) give the folder the command gives (the session's tiny main
    job, conftest's ``tiny_main``): every table byte for byte, the same figures and report files (meta.json differs
    in the command line and the wall time only)."""
    from robustness import load_dermavqa, publish
    from robustness.studies.rank_convergence import RankConvergenceOptions, run

    data, cmd = tiny_main
    result = run(load_dermavqa(data), RankConvergenceOptions(**TINY_MAIN_OPTIONS))  # the command's own options
    publish(result, tmp_path / "api")
    folders = {"api": tmp_path / "api", "cmd": cmd}

    def files(folder):
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                      if p.is_file() and "cache" not in p.relative_to(folder).parts)

    assert files(folders["api"]) == files(folders["cmd"])
    tables = [f for f in files(folders["cmd"]) if f.endswith((".csv", ".parquet"))]
    assert len(tables) > 20
    for name in tables:
        assert (folders["api"] / name).read_bytes() == (folders["cmd"] / name).read_bytes(), name
    meta = {k: json.loads((folder / "meta.json").read_text()) for k, folder in folders.items()}
    differ = {k for k in meta["cmd"] if meta["cmd"][k] != meta["api"].get(k)}
    assert differ <= {"command", "parameters", "seed", "wall_time_s", "input", "primary", "options", "pixel_pass_s"}, \
        {k: (meta["cmd"][k], meta["api"].get(k)) for k in differ}
    changed = {k for k in meta["cmd"]["options"] if meta["cmd"]["options"][k] != meta["api"]["options"][k]}
    assert changed <= {"primary", "strategies"}, changed  # None (the defaults) in the API; the command resolves them


def test_every_claim_is_declared_once_and_read_by_that_name():
    """Each claim a study writes (``Verdicts.add``) or a report reads (``StudyResult.verdict``) by a literal name is
    in CLAIMS; both refuse any other name at run time too."""
    import ast

    from robustness.results.claims import CLAIMS
    from robustness.results.study_result import StudyResult, Verdicts

    root = Path(__file__).resolve().parents[1]
    used = set()
    for path in [*(root / "robustness").rglob("*.py"), *(root / "figures").glob("*.py")]:
        for node in ast.walk(parsed(path)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            first = node.args[0]
            writes = node.func.attr == "add" and any(k.arg == "table" for k in node.keywords)
            if (writes or node.func.attr == "verdict") and isinstance(first, ast.Constant):
                used.add(first.value)
                assert first.value in CLAIMS, f"{path.relative_to(root)}:{node.lineno}: claim {first.value!r}"
    assert len(used) >= 30
    with pytest.raises(ValueError, match="unknown claim 'pairs_diff'"):
        Verdicts().add("pairs_diff", table="pairwise.parquet")
    with pytest.raises(ValueError, match="unknown claim"):
        StudyResult("rank_convergence", verdicts=Verdicts().frame()).verdict("winner")


def test_figures_read_tables_one_way():
    """Every figure reads a results table through figures.read (names stay text, as written); the one exception is
    fig_02's partial read of curves.parquet (one order of a file that can hold millions of rows)."""
    root = Path(__file__).resolve().parents[1] / "figures"
    direct = {p.name for p in root.glob("fig_*.py") if "pd.read_csv(" in p.read_text()
              or "pd.read_parquet(" in p.read_text()}
    assert direct == {"fig_02_micro_convergence.py"}, direct
    assert "filters=" in (root / "fig_02_micro_convergence.py").read_text()


def test_the_library_imports_no_application_code():
    """Nothing under robustness/ imports the figures or the commands (issue "Architecture IV", item 1), at a module's
    top or inside a function: publish() draws with the drawer it is handed, or the one installed as an entry point."""
    import ast

    root = Path(__file__).resolve().parents[1]
    found = []
    for path in (root / "robustness").rglob("*.py"):
        for node in ast.walk(parsed(path)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(root)}:{node.lineno} {n}" for n in names
                      if n.split(".")[0] in ("figures", "experiments")]
    assert not found, found


def test_publish_finds_the_installed_drawer_or_refuses_before_writing(tmp_path, monkeypatch):
    import importlib

    from figures import make_all
    from robustness.results.study_result import StudyResult

    module = importlib.import_module("robustness.reporting.publish")  # the package exports the function by this name

    assert module.figure_drawer() is make_all  # pyproject.toml's entry point, installed by `make`
    monkeypatch.setattr(module, "entry_points", lambda group: [])
    result = StudyResult("rank_convergence", meta={"input": {"fingerprint": "x"}})
    with pytest.raises(LookupError, match="no figure drawer is installed"):
        module.publish(result, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_figures_draw_from_the_folder_and_never_compute():
    """Figures and their plotting modules take their numbers from the tables a study wrote (issue "Architecture IV",
    item 1): no figure imports another study's code, a report section or a statistic. fig_14's sizes by agreement
    are the design study's sizes_by_agreement.csv, the critical-difference diagram's bars the table study's
    cd_groups.csv. What they may import from the statistics: how a target is written (and a random order's L1, a
    closed form), the ranking methods' names, and the design study's choice of rows (the base setting; the random
    golds merged into one scheme, as every design table shows them)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    allowed = {"robustness.statistics.ranks": {"format_target", "random_l1", "target_rule"},
               "robustness.statistics.ranking_methods": {"get_ranking", "RANKING_METHODS"},
               "robustness.simulation.recommendation": {"one_random", "at_base"}}
    watched = ("robustness.statistics", "robustness.simulation", "robustness.studies", "robustness.reporting.sections")
    files = [*sorted((root / "figures").glob("*.py")),
             *(root / "robustness" / "reporting" / f"{m}.py" for m in ("plotting", "rank_plots", "design_plots",
                                                                      "inference_plots", "task_plots"))]
    found = []
    for path in files:
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith(watched):
                extra = {a.name for a in node.names} - allowed.get(node.module, set())
                found += [f"{path.relative_to(root)}:{node.lineno} {node.module}: {sorted(extra)}"] if extra else []
            elif isinstance(node, ast.Import):
                found += [f"{path.relative_to(root)}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith(watched)]
    assert not found, found
    figures_importing_figures = [p.name for p in (root / "figures").glob("fig_*.py")
                                 if "from figures.fig_" in p.read_text() or "import fig_13" in p.read_text()]
    assert figures_importing_figures == [], figures_importing_figures
