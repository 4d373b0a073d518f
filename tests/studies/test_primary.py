"""The organiser's headline scheme (``--primary STRATEGY:METRIC:AVERAGING``): one value every table, verdict, section and
figure of the main job reads; "official" only on the layout whose scorer ranks by it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments import _cli
from experiments import rank_convergence as main_job
from robustness.scheme import DEFAULT, Scheme, default_scheme, from_meta
from tests.conftest import only_figures

FAST = ["--orders", "6", "--bootstrap", "40", "--outer", "4", "--quiet"]


# -- the value --------------------------------------------------------------------------------------------------

def test_scheme_parses_and_names_itself():
    s = Scheme.parse("staple:dice:macro")
    assert s.key == ("staple", "dice", "macro") and s.text == "staple:dice:macro"
    assert s.label == "STAPLE, macro Dice" and not s.official and s.title == "the headline scheme"
    assert s.averages == ("micro", "macro") and s.with_average("micro") == ("staple", "dice", "micro")
    assert Scheme.parse("max:jaccard:macro").averages == ("macro",)  # over annotators: per image only
    assert DEFAULT.key == ("majority", "jaccard", "micro") and not DEFAULT.official
    assert Scheme("majority", "jaccard", "micro", official=True).title == "the official scheme"


@pytest.mark.parametrize("text, message", [
    ("majority:jaccard", "expected STRATEGY:METRIC:AVERAGING"),
    ("majority::micro", "expected STRATEGY:METRIC:AVERAGING"),
    ("nobody:jaccard:micro", "unknown gold strategy 'nobody'"),
    ("rand2:jaccard:micro", "a draw, not a headline scheme"),
    ("majority:recall:micro", "unknown metric 'recall'"),
    ("majority:hd95:micro", "boundary metric: it scores each image on its own, so it exists only macro"),
    ("mean:hd95:macro", "has none"),
    ("majority:nsd@0:macro", "tolerance must be positive"),
    ("majority:hd9x:macro", "unknown metric 'hd9x'"),
    ("majority:jaccard:median", "averaging must be one of micro, macro"),
    ("mean:dice:micro", "exists only macro"),
])
def test_scheme_refuses_what_no_registry_holds(text, message):
    with pytest.raises(ValueError, match=message):
        Scheme.parse(text)


def test_a_newly_registered_metric_can_be_the_headline(monkeypatch):
    from robustness.overlap import metrics

    monkeypatch.setitem(metrics.METRICS, "precision", metrics.Metric("precision", (1, 0, 0), (1, 1, 0)))
    assert Scheme.parse("union:precision:micro").label == "union, micro Precision"
    monkeypatch.setitem(metrics.METRICS, "fdr", metrics.Metric("fdr", (0, 1, 0), (1, 1, 0), lower_better=True))
    assert Scheme.parse("union:fdr:micro").lower_better  # smallest first, with its own sign
    s = Scheme.parse("staple:hd95:macro")
    assert s.lower_better and s.boundary and s.averages == ("macro",) and s.label == "STAPLE, macro hd95"
    assert not Scheme.parse("majority:nsd@2:macro").lower_better
    assert Scheme.parse("majority:nsd@2.0:macro").metric == "nsd@2"  # one spelling per tolerance


def test_default_scheme_follows_the_strategies_and_old_folders_read_as_written():
    assert default_scheme(["rand1", "union", "majority"]).key == DEFAULT.key
    assert default_scheme(["rand1", "union"]).key == ("union", "jaccard", "micro")  # a draw is never the default
    assert default_scheme(["max"]).key == ("max", "jaccard", "macro")
    assert default_scheme(["majority"], official=True).official
    assert not default_scheme(["union"], official=True).official  # only the scorer's own gold is official
    old = from_meta({"official": "union"})  # a folder written before meta.json named the scheme
    assert old.key == ("union", "jaccard", "micro")
    new = from_meta({"primary": Scheme.parse("staple:dice:macro").to_meta()})
    assert new.key == ("staple", "dice", "macro") and not new.official


def test_bad_primary_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    for argv, message in ((["--primary", "staple:dice"], "--primary: expected STRATEGY:METRIC:AVERAGING"),
                          (["--primary", "staple:dice:macro", "--strategies", "majority,union"],
                           "gold strategy 'staple' is not among the strategies chosen")):
        assert _cli.run(main_job.main, argv + ["--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and message in err[0]
        assert not out.exists()


# -- the main job on a per-rater challenge ----------------------------------------------------------------------

def _raters(root):
    from robustness.synthetic.challenge import make_challenge
    from tests.conftest import write_png

    ch = make_challenge(n_encounters=12, n_images=12, max_images_per_encounter=1, n_annotators=3, min_annotators=3,
                        n_runs=5, n_teams=2, rng=8)
    for i in range(ch.n_images):
        for name, mask in ch.annotator_masks(i).items():
            write_png(root / name / f"case{i:02d}.png", np.where(mask, 255, 0).astype(np.uint8))
        for run in ch.runs:
            write_png(root / run / f"case{i:02d}.png", np.where(ch.run_mask(i, run), 255, 0).astype(np.uint8))
    return root


@pytest.fixture(scope="module")
def organiser(tmp_path_factory):
    """One per-rater challenge run twice: with the package's default scheme and with the organiser's own."""
    root = tmp_path_factory.mktemp("primary")
    data = _raters(root / "c")
    common = ["--data", str(data), "--layout", "raters", "--gold", "ann0,ann1,ann2", *FAST]
    chosen, default = root / "chosen", root / "default"
    # the figures whose titles and captions name the headline scheme (the report's captions are read below)
    with only_figures("rank_convergence", "fig_02_micro_convergence", "fig_04_forest", "fig_06_kendall_tau",
                      "fig_09_significance_map", "fig_11_convergence_auc", "fig_16_podium"):
        assert main_job.main([*common, "--primary", "staple:dice:macro", "--out", str(chosen)]) == 0
    assert main_job.main([*common, "--no-figures", "--out", str(default)]) == 0
    return chosen, default


@pytest.mark.slow
def test_the_chosen_scheme_is_what_every_headline_names(organiser):
    out, _ = organiser
    meta = json.loads((out / "meta.json").read_text())
    assert meta["primary"]["strategy"] == "staple" and meta["primary"]["metric"] == "dice"
    assert meta["primary"]["average"] == "macro" and meta["primary"]["set_by"] == "organiser"
    assert meta["primary"]["official"] is False and "official" not in meta

    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert board.index[0] == board.staple_dice_macro.idxmax()  # sorted by the headline column
    assert list(board.staple_dice_macro) == sorted(board.staple_dice_macro, reverse=True)

    v = pd.read_csv(out / "verdicts.csv", keep_default_na=False)
    for claim in ("pairs_differ", "neighbours_differ", "best_is_best", "unlimited_distance", "units_needed"):
        rows = v[v.claim == claim]
        assert len(rows) and set(rows.strategy) == {"staple"} and set(rows.metric) == {"dice"}, claim
        assert "macro" in set(rows.average), claim
    scored = v[(v.metric != "") & (v.claim != "winner_by_scheme")]  # that claim compares with the other schemes
    assert set(scored.metric) == {"dice"}  # no claim falls back to Jaccard
    other = v[v.claim == "winner_by_scheme"]
    assert len(other) and not ((other.strategy == "staple") & (other.metric == "dice")
                               & (other.average == "macro")).any()

    summary = (out / "summary.md").read_text()
    assert "## Leaderboard under the headline scheme (STAPLE, macro Dice)" in summary
    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    assert "**Which runs are separable** (STAPLE, macro Dice)" in conclude
    assert "the organiser's choice (--primary)" in summary
    # the leaderboard's rows follow the headline column
    rows = [line for line in summary.split("## Leaderboard under", 1)[1].splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| run | rank | staple dice macro |")
    assert rows[1].split("|")[1].strip() == board.index[0]


@pytest.mark.slow
def test_no_report_calls_a_scheme_official_off_the_mediqa_layout(organiser):
    for out in organiser:
        for name in ("summary.md", "report.html"):
            text = (out / name).read_text().lower()
            assert "official" not in text, (out.name, name)
    _, default = organiser
    meta = json.loads((default / "meta.json").read_text())
    assert meta["primary"]["set_by"] == "default" and meta["primary"]["strategy"] == "majority"
    summary = (default / "summary.md").read_text()
    assert "the package's default, not this challenge's decision" in summary
    assert "## Leaderboard under the headline scheme (majority, micro Jaccard)" in summary


@pytest.mark.slow
def test_figures_show_the_headline_scheme(organiser, monkeypatch):
    import figures
    from figures import fig_04_forest, fig_09_significance_map

    out, _ = organiser
    drawn = []
    monkeypatch.setattr(figures, "save", lambda fig, path: drawn.append(fig) or [path])
    fig_04_forest.make(out, out / "figures" / "x")
    titles = [ax.get_title() for ax in drawn[0].axes]
    assert titles == ["STAPLE, micro Dice", "STAPLE, macro Dice (headline)"]
    assert all("Dice" in ax.get_xlabel() for ax in drawn[0].axes)
    fig_09_significance_map.make(out, out / "figures" / "y")
    assert len(drawn) == 2
    from figures import fig_06_kendall_tau, fig_11_convergence_auc

    fig_06_kendall_tau.make(out, out / "figures" / "z")  # the metric from meta.json, as a rebuilt figure
    assert [ax.get_title() for ax in drawn[2].axes if ax.get_title()] == ["Dice, micro", "Dice, macro"]
    fig_11_convergence_auc.make(out, out / "figures" / "w")
    assert [ax.get_title() for ax in drawn[3].axes] == ["Dice, micro", "Dice, macro"]
    import matplotlib.pyplot as plt

    for fig in drawn:
        plt.close(fig)


# -- what moves the first place ---------------------------------------------------------------------------------

def _dist(rows):
    """A rank_distribution.csv from (strategy, metric, average, run, full_rank, {rank: share})."""
    out = []
    for strategy, metric, average, run, full, shares in rows:
        out += [dict(strategy=strategy, metric=metric, average=average, ranking="aggregate", run=run, rank=k,
                     share=p, full_rank=full) for k, p in shares.items()]
    return pd.DataFrame(out)


def test_winner_by_scheme_moves_only_with_confidence():
    from robustness.results.study_result import Verdicts
    from robustness.studies.rank_convergence_verdicts import winner_verdicts

    dist = _dist([
        ("majority", "jaccard", "micro", "A", 1, {1: 0.9, 2: 0.1}), ("majority", "jaccard", "micro", "B", 2,
                                                                    {1: 0.1, 2: 0.9}),
        # union: B first, A first in 1% of resamples (< 2.5%): moves
        ("union", "jaccard", "micro", "A", 2, {1: 0.01, 2: 0.99}), ("union", "jaccard", "micro", "B", 1,
                                                                   {1: 0.99, 2: 0.01}),
        # staple: B first on this test set, A first in 30% of resamples: may move (tied)
        ("staple", "jaccard", "micro", "A", 2, {1: 0.3, 2: 0.7}), ("staple", "jaccard", "micro", "B", 1,
                                                                  {1: 0.7, 2: 0.3}),
        # macro: the same winner
        ("majority", "jaccard", "macro", "A", 1, {1: 0.8, 2: 0.2}), ("majority", "jaccard", "macro", "B", 2,
                                                                    {1: 0.2, 2: 0.8}),
        # differs in two respects from the headline, and a draw: not compared
        ("union", "dice", "macro", "B", 1, {1: 1.0}), ("union", "dice", "macro", "A", 2, {2: 1.0}),
        ("rand1", "jaccard", "micro", "B", 1, {1: 1.0}), ("rand1", "jaccard", "micro", "A", 2, {2: 1.0}),
    ])
    v = Verdicts()
    winner_verdicts(v, dist, DEFAULT)
    got = {(r.strategy, r.average): r for r in v.rows}
    assert set(got) == {("union", "micro"), ("staple", "micro"), ("majority", "macro")}
    assert got["union", "micro"].statement == "moves" and got["union", "micro"].subject == ("B", "A")
    assert got["union", "micro"].value == 0.99 and got["union", "micro"].low == 0.01
    assert got["union", "micro"].count == 2  # A's rank under union
    assert got["staple", "micro"].statement == "may move"
    assert got["majority", "macro"].statement == "same"
    frame = v.frame()  # the table writes the subject as a JSON list
    assert json.loads(frame[(frame.strategy == "union") & (frame.average == "micro")].subject.iloc[0]) == ["B", "A"]


@pytest.mark.slow
def test_shared_authors_are_flagged_in_the_report(tmp_path):
    from robustness.overlap.checks import shared_authors
    from robustness.synthetic.challenge import make_challenge
    from tests.conftest import write_png

    found = shared_authors(["Person1_Amira", "Person2_Amira"], ["Person1_ImageJ", "Person2", "person2-x"])
    assert len(found) == 2 and "'Person1_ImageJ'" in found[0] and "'Person1_Amira'" in found[0]
    assert "'person2-x'" in found[1] and "'Person2_Amira'" in found[1]  # case-insensitive; "Person2" has no part
    assert shared_authors(["ann0", "ann1"], ["team1-run1"]) == []

    ch = make_challenge(n_encounters=6, n_images=6, max_images_per_encounter=1, n_annotators=3, min_annotators=3,
                        n_runs=3, n_teams=1, rng=2)
    names = {"ann0": "lab1_a", "ann1": "lab2_a", "ann2": "lab3_a"}
    runs = dict(zip(ch.runs, ("lab2_b", "other_b", "third")))
    data = tmp_path / "c"
    for i in range(ch.n_images):
        for name, mask in ch.annotator_masks(i).items():
            write_png(data / names[name] / f"case{i}.png", np.where(mask, 255, 0).astype(np.uint8))
        for run in ch.runs:
            write_png(data / runs[run] / f"case{i}.png", np.where(ch.run_mask(i, run), 255, 0).astype(np.uint8))
    out = tmp_path / "out"
    assert main_job.main(["--data", str(data), "--layout", "raters", "--gold", "lab1_a,lab2_a,lab3_a", *FAST,
                          "--no-figures", "--out", str(out)]) == 0
    meta = json.loads((out / "meta.json").read_text())
    flagged = [w for w in meta["warnings"] if "share the name part" in w]
    assert len(flagged) == 1 and "'lab2_b'" in flagged[0] and "'lab2_a'" in flagged[0]
    summary = (out / "summary.md").read_text()
    assert "share the name part" in summary
    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    assert "**What moves the first place**" in conclude


def test_the_score_command_sorts_by_the_headline_and_records_it(tmp_path, capsys):
    from experiments import score

    data = _raters(tmp_path / "c")
    common = ["--data", str(data), "--layout", "raters", "--gold", "ann0,ann1,ann2"]
    assert _cli.run(score.main, [*common, "--primary", "staple:dice:macro", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[0] == "staple_dice_macro"  # the headline column first on the terminal
    board = pd.read_csv(tmp_path / "s" / "leaderboard.csv")
    assert board.staple_dice_macro.is_monotonic_decreasing and not board.majority_jaccard_micro.is_monotonic_decreasing
    meta = json.loads((tmp_path / "s" / "meta.json").read_text())
    assert meta["primary"]["label"] == "STAPLE, macro Dice" and not meta["primary"]["official"]
    summary = (tmp_path / "s" / "summary.md").read_text()
    assert "sorted by the headline scheme: STAPLE, macro Dice" in summary and "official scheme" not in summary
    bad = tmp_path / "bad"
    code = _cli.run(score.main, [*common, "--primary", "union:dice:macro", "--strategies", "majority,staple",
                                 "--out", str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not bad.exists() and err[-1].startswith("error:") and "'union' is not among" in err[-1]


@pytest.mark.parametrize("text", ["Majority:jaccard:micro", "majority:JACCARD:micro", " majority:jaccard:micro",
                                  "majority: jaccard:micro"])
def test_primary_is_spelled_as_the_registries_spell_it(text):
    with pytest.raises(ValueError, match="names are lower case, without spaces"):
        Scheme.parse(text)


# -- the size target ----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_with_few_runs_the_size_target_is_a_tenth_of_a_random_order(organiser, tmp_path):
    from robustness.statistics.ranks import random_l1

    _, default = organiser  # 5 runs: one place per run (5) would be 62% of a random order's expected L1 (8)
    tenth = 0.1 * random_l1(5)
    meta = json.loads((default / "meta.json").read_text())
    assert meta["target"] == {"l1": pytest.approx(tenth), "rule": "a tenth of a random order's distance",
                              "set_by": "default"}
    assert np.allclose(pd.read_csv(default / "test_set_size.csv").tolerance, tenth)
    assert np.isclose(pd.read_csv(default / "convergence.csv").tolerance, tenth).any()
    v = pd.read_csv(default / "verdicts.csv", keep_default_na=False)
    assert set(v[v.claim == "units_needed"].subject) == {json.dumps([f"{tenth:g}"])}
    summary = (default / "summary.md").read_text()
    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    assert "an expected L1 of at most 0.80 (a tenth of a random order's distance) needs" in conclude
    # why the target is not one place per run: said once, beside the distance (the size bullet stays short)
    distance = summary.split("## How far is this test set's ranking", 1)[1].split("\n## ", 1)[0]
    assert "With 5 runs one place per run would be" in distance and "so the target is a tenth of it" in distance
    assert "one place per run needs" not in summary

    data = default.parent / "c"
    out = tmp_path / "target"
    assert main_job.main(["--data", str(data), "--layout", "raters", "--gold", "ann0,ann1,ann2", *FAST,
                          "--no-figures", "--target", "3", "--out", str(out)]) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["target"] == {"l1": 3.0, "rule": "set by the organiser", "set_by": "organiser"}
    assert set(pd.read_csv(out / "test_set_size.csv").tolerance) == {3.0}
    assert "an expected L1 of at most 3 (set by the organiser) needs" in (out / "summary.md").read_text()


@pytest.mark.parametrize("value", ["-1", "nan", "x", "0", "1e308", "800.5"])
def test_a_bad_target_is_refused_before_any_work(value, tmp_path, capsys):
    out = tmp_path / "out"  # the embedded challenge has 40 runs: no L1 exceeds 800
    assert _cli.run(main_job.main, ["--target", value, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and "--target" in err[-1] and not out.exists()


# -- a headline where smaller is better ---------------------------------------------------------------------------

def test_a_lower_is_better_scheme_is_stored_negated_and_shown_with_its_own_sign(monkeypatch):
    """The engines rank "higher is better": a smaller-is-better metric is stored negated (sign -1) and every score
    they give back is the metric's own; the twin is the same values scored higher-is-better by hand."""
    from robustness.overlap import metrics
    from robustness.overlap.metrics import macro, micro
    from robustness.overlap.pixel_pass import compute_overlap
    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.comparisons import pairwise_comparisons
    from robustness.statistics.count_schemes import schemes_from_counts
    from robustness.statistics.ranks import rank
    from robustness.statistics.table_schemes import per_case_frames
    from robustness.synthetic.challenge import make_challenge

    monkeypatch.setitem(metrics.METRICS, "fdr", metrics.Metric("fdr", (0, 1, 0), (1, 1, 0), lower_better=True))
    counts = compute_overlap(make_challenge(n_encounters=10, n_images=14, n_runs=5, n_teams=2, rng=3),
                             strategies=["majority"], rng=0)
    values = np.random.default_rng(5).gamma(2.0, 3.0, (5, counts.n_images))  # a distance per run and image
    up = schemes_from_counts(counts, unit="encounter", metrics=["fdr"], annotators=[],
                             extra=[(("majority", "dist", "macro"), values, True)])
    assert list(up.sign_of) == [-1.0, -1.0, -1.0]
    fdr = micro(counts.strategy_counts("majority"), "fdr")
    assert np.allclose(-up.scores()[0], fdr, rtol=1e-12)  # stored negated
    assert np.allclose(-up.scores()[2], values.mean(axis=1), rtol=1e-12)
    boot = bootstrap(up, n_resamples=50, rng=1)
    ci = boot.intervals(method="percentile")
    for k, (strat, metric, average) in enumerate(up.names):
        rows = ci[(ci.metric == metric) & (ci.average == average)]
        truth = (values.mean(axis=1) if metric == "dist" else fdr if average == "micro" else
                 macro(counts.strategy_counts("majority"), "fdr"))
        assert np.allclose(rows.score, truth, rtol=1e-12) and (rows.low <= rows.score + 1e-12).all()
        assert (rows.score <= rows.high + 1e-12).all()
        assert list(rows["rank"]) == list(rank(truth, lower_better=True))  # smallest first
    frame = next(f for f in per_case_frames(up, counts) if f.metric.iloc[0] == "dist")
    assert np.array_equal(frame.value.to_numpy(), values.reshape(-1))  # the metric's own values
    pairs = pairwise_comparisons(boot)
    pairs = pairs[pairs.metric == "dist"]
    assert (pairs["diff"] <= 0).all() and (pairs.diff_low <= pairs.diff_high).all()  # the better run: smaller
    # the same values negated by hand and scored higher-is-better: the same ranks and p-values
    down = schemes_from_counts(counts, unit="encounter", metrics=[], annotators=[],
                               extra=[(("majority", "dist", "macro"), -values, False)])
    other = pairwise_comparisons(bootstrap(down, n_resamples=50, rng=1))
    assert np.array_equal(other["rank"], pairs["rank"]) and np.allclose(other.p_delta, pairs.p_delta)
    assert np.allclose(other["diff"], -pairs["diff"])


@pytest.mark.slow
def test_a_boundary_headline_ranks_smallest_first_everywhere(organiser, tmp_path):
    _, default = organiser
    data = default.parent / "c"
    out = tmp_path / "hd"
    with only_figures("rank_convergence", "fig_04_forest", "fig_09_significance_map"):  # their direction; a caption
        assert main_job.main(["--data", str(data), "--layout", "raters", "--gold", "ann0,ann1,ann2", *FAST,
                              "--primary", "majority:hd95:macro", "--out", str(out)]) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["primary"]["metric"] == "hd95" and meta["primary"]["lower_better"] is True
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert board.majority_hd95_macro.is_monotonic_increasing  # the smallest distance first
    ci = pd.read_csv(out / "bootstrap_ci.csv")
    ci = ci[(ci.strategy == "majority") & (ci.metric == "hd95")].set_index("run")
    assert np.allclose(ci.score, board.majority_hd95_macro.reindex(ci.index), rtol=1e-12)
    assert (ci.low <= ci.score).all() and (ci.score <= ci.high).all() and (ci.score > 0).all()
    assert ci["rank"].idxmin() == board.index[0]
    per_case = pd.read_parquet(out / "per_case.parquet")
    assert (per_case[per_case.metric == "hd95"].value >= 0).all()
    v = pd.read_csv(out / "verdicts.csv", keep_default_na=False)
    for claim in ("pairs_differ", "best_is_best", "unlimited_distance", "units_needed"):
        rows = v[v.claim == claim]
        assert set(rows.metric) == {"hd95"} and set(rows.average) == {"macro"}, claim
    summary = (out / "summary.md").read_text()
    assert "## Leaderboard under the headline scheme (majority, macro hd95)" in summary
    assert "(majority:hd95:macro; lower is better)" in summary and "ranked lower first" not in summary
    assert "scores significantly lower (better)" in summary
    # choosing it changes no other scheme's numbers (its distance to unlimited data draws from its own stream)
    for name in ("test_set_size.csv", "ranking_uncertainty.csv", "bootstrap_ci.csv", "rank_keep.csv"):
        a, b = pd.read_csv(default / name), pd.read_csv(out / name)
        pd.testing.assert_frame_equal(a, b[b.metric != "hd95"].reset_index(drop=True), check_exact=True)


def test_a_python_callers_headline_is_said_to_be_the_organisers(tmp_path):
    """The library records who chose the headline (not only the commands): a Python caller's ``primary`` is the
    organiser's choice in meta.json and in the report, no primary is the package's default, and a folder written
    before this version (``set_by`` "--primary") still reads as the organiser's."""
    from robustness import publish
    from robustness.scheme import set_by_organiser
    from robustness.studies.scoring import ScoringOptions, score
    from robustness.synthetic.challenge import make_challenge

    challenge = make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=2, rng=2)
    chosen = score(challenge, ScoringOptions(primary=Scheme("staple", "dice", "macro")))
    assert chosen.meta["primary"]["set_by"] == "organiser"
    summary = publish(chosen, tmp_path / "chosen", figures=False)
    assert "the organiser's choice (`ScoringOptions.primary`)" in summary and "package's default" not in summary
    assert score(challenge).meta["primary"]["set_by"] == "default"
    # the options one by one, as before ScoringOptions: accepted with a DeprecationWarning, the same result
    with pytest.warns(DeprecationWarning, match=r"score\(\): primary= is deprecated; pass options=ScoringOptions"):
        again = score(challenge, primary=Scheme("staple", "dice", "macro"))
    assert again.tables["leaderboard.csv"].equals(chosen.tables["leaderboard.csv"])
    assert set_by_organiser({"set_by": "--primary"}) and set_by_organiser({"set_by": "--target"})
    assert not set_by_organiser({"set_by": "default"}) and not set_by_organiser({})
