"""End to end: the main job on a tiny challenge, its tables checked against direct library calls."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import rank_convergence as job
from robustness.errors import InputError
from robustness.io import load_dermavqa, write_dermavqa
from robustness.overlap import compute_overlap
from robustness.overlap import pixel_pass as ov
from robustness.results.folder import open_results
from robustness.statistics import leaderboard as score_tables
from robustness.statistics import rank_convergence, schemes_from_counts
from robustness.statistics import spread as spread_tables
from robustness.statistics.bootstrap import bootstrap
from robustness.synthetic.challenge import make_challenge
from tests.conftest import TINY_MAIN_ARGS, only_figures

ARGS = TINY_MAIN_ARGS


@pytest.fixture
def tiny(tiny_main):
    """The session's shared main job on a 6-encounter challenge (tests/conftest.py): its data and results folder."""
    return tiny_main


@pytest.mark.slow
def test_tables_match_library(tiny):
    data, out = tiny
    path, meta = open_results(out)
    counts = compute_overlap(load_dermavqa(data), rng=3)
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    direct = score_tables.leaderboard(counts)
    assert list(board.index) == list(direct.index)
    np.testing.assert_array_equal(board.to_numpy(), direct.to_numpy())

    scores = pd.read_csv(out / "scores.csv")
    for column in ("majority_jaccard_micro", "staple_dice_macro", "max_jaccard_macro"):
        strat, metric, average = column.split("_")
        sel = scores[(scores.strategy == strat) & (scores.metric == metric) & (scores.average == average)]
        np.testing.assert_array_equal(sel.set_index("run").loc[board.index, "score"].to_numpy(), board[column].to_numpy())
    assert sorted(scores[(scores.strategy == "majority") & (scores.metric == "jaccard")
                         & (scores.average == "micro")]["rank"]) == [1.0, 2.0, 3.0, 4.0, 5.0]

    sc = schemes_from_counts(counts, unit="image")
    conv = rank_convergence(sc, n_orders=8, rng=np.random.default_rng([3, 1]))
    curves = pd.read_parquet(out / "curves.parquet")
    assert list(curves.columns[:7]) == ["strategy", "metric", "average", "ranking", "order", "n", "n_images"]
    assert set(curves.ranking) == {"aggregate"}  # the default: today's curves, one more column
    pd.testing.assert_frame_equal(curves, conv.to_frame())
    assert set(curves.strategy) == {"rand1", "rand2", "rand3", "majority", "intersection", "union", "staple",
                                    "mean", "max"}
    assert set(curves.metric) == {"jaccard", "dice"} and set(curves.average) == {"micro", "macro"}
    orders = pd.read_csv(out / "orders.csv")
    assert list(orders.columns) == ["order", "position", "unit", "ranking"] and set(orders.ranking) == {"aggregate"}
    pd.testing.assert_frame_equal(orders.drop(columns="ranking"), conv.orders_frame().astype({"unit": object}),
                                  check_dtype=False)

    boot = bootstrap(schemes_from_counts(counts, unit="encounter"), n_resamples=30, rng=np.random.default_rng([3, 2]))
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    exp = boot.intervals(method="percentile")
    got = ci[ci.method == "percentile"].reset_index(drop=True)
    np.testing.assert_array_equal(got[["score", "low", "high"]].to_numpy(), exp[["score", "low", "high"]].to_numpy())

    spread = pd.read_csv(out / "gold_spread.csv")
    t4 = spread_tables.gold_spread(counts)
    np.testing.assert_allclose(spread[(spread.metric == "jaccard") & (spread.variant == "staple")].z_mean, t4.z_mean)

    assert meta["seed"] == 3 and meta["parameters"]["orders"] == 8
    assert meta["versions"]["numpy"] == np.__version__
    assert meta["input"]["fingerprint"] and meta["wall_time_s"] > 0
    assert "leaderboard.csv" in meta["files"] and "figures/fig_02_micro_convergence.png" in meta["files"]
    for name in ("fig_02_micro_convergence", "fig_03_macro_convergence", "fig_04_forest", "fig_05_rank_blobs",
                 "fig_06_kendall_tau"):  # the PDFs beside them, the commands' default: tests/test_figures.py
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
    report = (out / "summary.md").read_text()
    for heading in ("## Leaderboard under the official scheme", "## How fast does the ranking settle",
                    "## How much do the rankings under different golds disagree?",
                    "## Which runs differ? (one significance analysis)",
                    "## How far is this test set's ranking from the ranking on unlimited data?"):
        assert heading in report


@pytest.mark.slow
def test_rerun_reuses_cache_and_refuses_other_input(tiny, tmp_path, monkeypatch):
    data, shared = tiny
    out = Path(shutil.copytree(shared, tmp_path / "out"))  # the shared folder stays as the job wrote it
    calls = []
    real = ov._pixel_pass
    monkeypatch.setattr(ov, "_pixel_pass", lambda *a, **k: calls.append(1) or real(*a, **k))
    before = pd.read_csv(out / "leaderboard.csv")
    assert job.main(["--data", str(data), "--out", str(out), "--no-figures"] + ARGS) == 0
    assert calls == []  # counts came from out/cache
    pd.testing.assert_frame_equal(before, pd.read_csv(out / "leaderboard.csv"))

    other = write_dermavqa(make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=1, rng=9), tmp_path / "other")
    with pytest.raises(InputError, match=r"out: output folder holds results of another input; pass `publish\.force`=True"):
        job.main(["--data", str(other), "--out", str(out)] + ARGS)
    assert job.main(["--data", str(other), "--out", str(tmp_path / "o2"), "--no-figures"] + ARGS) == 0


@pytest.mark.slow
def test_interrupted_run_leaves_nothing_trusted(tiny, tmp_path, monkeypatch):
    data, _ = tiny
    out = tmp_path / "out"
    import robustness.studies.common as resampling  # where the study calls the bootstrap

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(resampling, "run_bootstrap", boom)
    with pytest.raises(KeyboardInterrupt):
        job.main(["--data", str(data), "--out", str(out)] + ARGS)
    with pytest.raises(InputError, match="no complete results here"):
        open_results(out)
    monkeypatch.undo()
    assert job.main(["--data", str(data), "--out", str(out), "--no-figures"] + ARGS) == 0  # same input: resumes
    open_results(out)


def test_bad_input_is_one_line(tmp_path, capsys):
    from experiments._cli import run

    assert run(job.main, ["--data", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path / 'missing'}: challenge folder not found"


@pytest.mark.slow
def test_rerun_removes_the_previous_runs_files_only(tiny, tmp_path):
    data, shared = tiny
    out = Path(shutil.copytree(shared, tmp_path / "out"))  # a run with figures (the shared one, copied)
    assert (out / "figures" / "fig_02_micro_convergence.png").exists()
    (out / "my_notes.txt").write_text("mine")  # not ours: must survive
    assert job.main(["--data", str(data), "--out", str(out), "--no-figures"] + ARGS) == 0
    _, meta = open_results(out)
    assert not (out / "figures" / "fig_02_micro_convergence.png").exists()
    assert not any(f.startswith("figures/") for f in meta["files"])
    assert (out / "my_notes.txt").read_text() == "mine"
    assert (out / "leaderboard.csv").exists()


@pytest.mark.slow
def test_summary_sentences_say_what_the_tables_hold(tiny):
    """The neighbours sentence and the lowest-tau sentence follow pairwise.parquet and kendall_tau.csv."""
    from robustness.reporting.sections.registry import strategy_label

    _, out = tiny
    report = (out / "summary.md").read_text()
    pw = pd.read_parquet(out / "pairwise.parquet")
    for average in ("micro", "macro"):
        d = pw[(pw.strategy == "majority") & (pw.metric == "jaccard") & (pw.average == average) & pw.neighbours]
        k = int(d.significant.sum())
        said = (f"none of the {len(d)} pairs that are neighbours on the leaderboard differ: for all of them" if k == 0
                else f"{k} of the {len(d)} pairs that are neighbours on the leaderboard differ, and for the remaining "
                     f"{len(d) - k} there is no evidence")
        assert f"**majority, {average} Jaccard**" in report and said in report
    kt = pd.read_csv(out / "kendall_tau.csv")
    m = kt[(kt.metric == "jaccard") & (kt.average == "micro") & (kt.ranking == "aggregate")
           & (kt.other_ranking == "aggregate") & (kt.strategy < kt.other)]
    lowest = m.sort_values("tau").iloc[0]
    reached = int((m.tau_low <= lowest.tau_high).sum()) - 1
    assert f"the lowest is between {strategy_label(lowest.strategy)} and {strategy_label(lowest.other)}" in report
    assert (f"overlaps those of {reached} of the other {len(m) - 1} pairs" if reached
            else "lies below those of every other pair") in report


@pytest.mark.slow
def test_distance_to_unlimited_data_is_reported_with_its_interval_and_margin(tiny, tmp_path):
    data, out = tiny
    per_size = pd.read_csv(out / "ranking_uncertainty.csv")
    assert (per_size.low <= per_size.expected_l1).all() and (per_size.expected_l1 <= per_size.high).all()
    assert (per_size.n_resamples == 4).all() and (per_size.margin == 0).all()
    meta = open_results(out)[1]
    assert meta["methods"]["score_interval"] == "studentized" and meta["options"]["outer"] == 4
    report = (out / "summary.md").read_text()
    assert "No equivalence margin (--margin 0)" in report and "one-sided" in report
    wide = tmp_path / "wide"
    assert job.main(["--data", str(data), "--out", str(wide), "--margin", "0.05", "--no-figures"] + ARGS) == 0
    again = pd.read_csv(wide / "ranking_uncertainty.csv")
    assert (again.margin == 0.05).all() and (again.pairs_within_margin >= 0).all()
    assert "pairs of runs within that margin" in (wide / "summary.md").read_text()
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    reported = ci[ci.reported]
    assert set(reported.method) == {"studentized"} and {"percentile", "bca"} <= set(ci.method)


@pytest.mark.slow
def test_rope_adds_the_bayesian_signed_rank_test_on_encounter_means(tiny, tmp_path):
    from robustness.statistics.bayes_signed_rank import bayes_signed_rank

    data, out = tiny
    assert not (out / "bayes_signed_rank.csv").exists()  # only where asked
    with_rope = tmp_path / "rope"
    with only_figures("rank_convergence", "fig_30_bayes_signed_rank"):  # the ROPE's own (tiny_main draws the rest)
        assert job.main(["--data", str(data), "--out", str(with_rope), "--rope", "0.02"] + ARGS) == 0
    t = pd.read_csv(with_rope / "bayes_signed_rank.csv")
    assert len(t) == 4 and (t.tested_on == "unit means").all() and (t.cases == 6).all()  # 5 runs, 6 encounters
    assert (with_rope / "figures" / "fig_30_bayes_signed_rank.png").is_file()
    assert "(ROPE)" in (with_rope / "summary.md").read_text()
    # the first pair recomputed from the per-case scores of the headline: each run's mean over an encounter's images,
    # on the first draws of the seed's "bayes" stream
    from robustness.seeds import stream

    meta = open_results(with_rope)[1]
    gold, metric = meta["primary"]["strategy"], meta["primary"]["metric"]
    per_case = pd.read_parquet(with_rope / "per_case.parquet")
    scores = per_case[(per_case.strategy == gold) & (per_case.metric == metric)]
    means = scores.groupby(["algorithm", "encounter"]).value.mean().unstack()
    first = t.iloc[0]
    want = bayes_signed_rank(means.loc[first.run].to_numpy(), means.loc[first.other].to_numpy(), 0.02,
                             rng=stream(3, "bayes"))
    assert (first.p_better, first.p_rope, first.p_worse) == (want.p_better, want.p_rope, want.p_worse)
