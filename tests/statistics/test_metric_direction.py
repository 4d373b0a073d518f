"""Every registered metric ranks in its registry's direction, in every engine, table, figure and sentence.

Issue 48 item 1: sixteen smaller-is-better metrics (hd99, hd95_pooled, the ``*_surfel`` distances, directed HD95,
abs_volume_difference, lesion_hd95, fp/fn lesions and volumes, brats_hd95) were ranked larger-first by the ranking
engine behind ranking.csv and rank_bootstrap.csv while the summary's leaderboard ranked them smallest first.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments._cli import run
from robustness.overlap.boundary_names import BOUNDARY_METRICS, boundary_metric, is_boundary_metric
from robustness.overlap.lesions import LESION_METRICS
from robustness.overlap.metrics import METRICS
from robustness.results.study_result import read_table
from robustness.scheme import lower_is_better as scheme_direction
from robustness.statistics.ranking_options import lower_is_better


def registered_metric_names() -> list[str]:
    """One name of every registered metric and of every family the boundary parser builds."""
    names = list(METRICS) + list(BOUNDARY_METRICS) + list(LESION_METRICS)
    distances = ["hd95", "hd", "assd", "masd", "hd99", "hd100", "nsd@2"]
    names += ["hd99", "hd100", "hd99.5", "hd95_pooled", "hd99_pooled", "nsd@2", "nsd@kidney=1/tumor=2",
              "lesion_nsd@2", "brats_dice", "brats_hd95", "brats_hd95@ped", "brats_dice@met"]
    for base in distances:
        stem, at, rest = base.partition("@")
        names += [f"{stem}_surfel{at}{rest}", f"{stem}_run_to_ref{at}{rest}", f"{stem}_ref_to_run{at}{rest}"]
    return list(dict.fromkeys(names))


def registry_direction(name: str) -> bool:
    return boundary_metric(name).lower_better if is_boundary_metric(name) else METRICS[name].lower_better


def test_the_registry_lists_distances_as_smaller_is_better():
    """The walk's expectations are the registries' own entries, and they say what a reader expects."""
    lower = {n for n in registered_metric_names() if registry_direction(n)}
    for name in ("hd99", "hd100", "hd95_pooled", "hd95_surfel", "hd95_run_to_ref", "abs_volume_difference",
                 "lesion_hd95", "fp_lesions", "fn_lesions", "fp_volume", "fn_volume", "brats_hd95", "assd_surfel"):
        assert name in lower, name
    for name in ("jaccard", "dice", "nsd@2", "nsd_surfel@2", "volume_similarity", "lesion_f1", "pq", "brats_dice",
                 "nsd_run_to_ref@2", "lesion_nsd@2"):
        assert name not in lower, name


@pytest.mark.parametrize("name", registered_metric_names())
def test_the_ranking_engine_takes_every_registered_metrics_direction(name):
    want = registry_direction(name)
    assert lower_is_better(name) == (want, True)
    assert scheme_direction(name) == want
    # a per-case table's metric column may spell it in capitals
    assert lower_is_better(name.upper())[0] == want


def _long_table(names: list[str]) -> pd.DataFrame:
    """Three runs on eight cases per metric: run 'low' has the smallest value on every case, 'high' the largest."""
    rng = np.random.default_rng(7)
    rows = []
    for name in names:
        base = rng.uniform(0.2, 0.3, size=8)
        for run_name, shift in (("low", 0.0), ("mid", 0.2), ("high", 0.4)):
            rows += [{"metric": name, "case": f"c{i}", "algorithm": run_name, "value": v + shift}
                     for i, v in enumerate(base)]
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_every_registered_metric_walks_through_the_table_commands_tables_summary_and_figure(tmp_path):
    """ranking.csv, rank_bootstrap.csv, iqm.csv, the summary's leaderboards and the dot-box figure's run order all
    put the smallest values first exactly where the registry says smaller is better; no warning about an unknown
    metric for a registered name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.table_rank_convergence import main
    from robustness.reporting import rank_plots

    names = registered_metric_names()
    path = tmp_path / "scores.csv"
    _long_table(names).to_csv(path, index=False)
    out = tmp_path / "out"
    code = run(main, ["--table", str(path), "--out", str(out), "--quiet", "--no-figures", "--bootstrap", "20",
                      "--rankings-only"])
    assert code == 0
    ranking = read_table(out / "ranking.csv")
    boot = read_table(out / "rank_bootstrap.csv")
    summary = (out / "summary.md").read_text()
    assert "is not one this package knows" not in summary
    per_case = read_table(out / "per_case.parquet")
    for name in names:
        best, worst = ("low", "high") if registry_direction(name) else ("high", "low")
        r = ranking[(ranking.task == name) & (ranking.ranking == "aggregate")].set_index("run")["rank"]
        assert r[best] == 1 and r[worst] == 3, name
        b = boot[(boot.task == name) & (boot.ranking == "aggregate")].set_index("run")["median_rank"]
        assert b[best] == 1 and b[worst] == 3, name
        fig, ax = plt.subplots()
        rank_plots.dot_box(per_case, rank_plots.run_order(ranking, name), task=name, ax=ax)
        labels = [t.get_text() for t in ax.get_xticklabels()] or [t.get_text() for t in ax.get_yticklabels()]
        plt.close(fig)
        assert labels[0] == best and labels[-1] == worst, (name, labels)


@pytest.mark.slow
def test_a_smaller_is_better_headline_agrees_in_every_table_of_the_main_job(tmp_path):
    """The issue's command shape: --boundary hd95_surfel --primary majority:hd95_surfel:macro on 3D volumes. The
    summary's leaderboard, leaderboard.csv, ranking.csv, rank_bootstrap.csv, rank_frequency.csv, case_ranks.csv and
    metric_leaderboard.csv agree on the order (smallest first); no warning sends the reader to an option the job
    does not have."""
    from experiments import rank_convergence as job
    from robustness.synthetic.volumes import VolumeConfig, write_volume_challenge

    root = tmp_path / "challenge"
    write_volume_challenge(root, VolumeConfig(n_volumes=6, shape=(8, 24, 28), spacing=(3.0, 0.8, 0.7), labels=1,
                                              n_annotators=3, n_runs=4), rng=4)
    out = tmp_path / "out"
    boundary = "hd95_surfel,hd99,fn_volume"
    code = run(job.main, ["--data", str(root), "--layout", "raters", "--gold", "ann1,ann2,ann3", "--boundary",
                          boundary, "--primary", "majority:hd95_surfel:macro", "--orders", "5", "--bootstrap", "20",
                          "--outer", "20", "--out", str(out), "--quiet", "--no-figures"])
    assert code == 0
    board = read_table(out / "leaderboard.csv")
    means = board.set_index("run")["majority_hd95_surfel_macro"]
    order = list(means.sort_values().index)  # smallest first
    assert order[0] != list(means.sort_values(ascending=False).index)[0]
    ranking = read_table(out / "ranking.csv")
    ranked = ranking[ranking.ranking == "aggregate"].sort_values("rank")
    assert list(ranked.run) == order
    boot = read_table(out / "rank_bootstrap.csv")
    boot = boot[boot.ranking == "aggregate"].set_index("run")
    assert boot.loc[order[0], "rank"] == 1 and boot.loc[order[-1], "rank"] == len(order)
    assert boot.loc[order, "median_rank"].is_monotonic_increasing
    summary = (out / "summary.md").read_text()
    table = summary[summary.index("## Leaderboard under the headline scheme"):]
    first_row = next(line for line in table.splitlines() if line.startswith("| ") and "| 1 |" in line)
    assert first_row.startswith(f"| {order[0]} |")
    assert "is not one this package knows" not in summary and "--lower-better" not in summary
    metric_board = read_table(out / "metric_leaderboard.csv")
    for metric in boundary.split(","):
        m = metric_board[metric_board.metric == metric].sort_values("value")
        assert m.lower_better.all(), metric
        assert m["rank"].is_monotonic_increasing, metric
