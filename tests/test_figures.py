"""Figure modules and plotting functions, checked on their artists (lines, labels, legends), not pixels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from robustness.reporting import plotting  # noqa: E402
from tests.conftest import only_figures  # noqa: E402


@pytest.fixture
def summary():
    rows = []
    for strat in ("majority", "staple", "rand1"):
        for metric in ("jaccard", "dice"):
            for n in range(1, 11):
                m = 20.0 / n + (strat == "rand1")
                rows.append(dict(strategy=strat, metric=metric, average="micro", n=n, n_images=n, mean=m,
                                 low=m - 1, median=m, high=m + 1))
    return pd.DataFrame(rows)


def test_convergence_artists(summary):
    example = summary.rename(columns={"mean": "l1"}).assign(order=0)
    ax = plotting.convergence(summary, metric="jaccard", average="micro", example=example, band="majority")
    labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    # STAPLE's curve equals majority's here: it is drawn dashed and said so, not lost under it
    assert labels == ["majority", "STAPLE (= majority)", "rand1"]
    assert ax.get_lines()[2].get_linestyle() != ax.get_lines()[0].get_linestyle()
    assert len(ax.get_lines()) == 6  # mean + example order per strategy
    assert len(ax.collections) == 1  # one band: the official scheme's
    assert ax.get_xlabel() == "test images (n)" and ax.get_ylabel().startswith("L1 rank change")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == labels
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 20.0 / np.arange(1, 11))
    assert ax.get_lines()[0].get_color() == "#0072B2"
    plt.close("all")


def test_convergence_into_given_axes_leaves_the_legend_to_the_caller(summary):
    """Axes given: no legend on them (the caller's figure holds it); legend= still works, with a warning."""
    fig, ax = plt.subplots()
    plotting.convergence(summary, metric="jaccard", average="micro", ax=ax)
    assert ax.get_legend() is None
    with pytest.warns(DeprecationWarning, match=r"convergence\(\): legend= is deprecated"):
        plotting.convergence(summary, metric="dice", average="micro", ax=ax, legend=True)
    assert [t.get_text() for t in ax.get_legend().get_texts()][:1] == ["majority"]
    with pytest.raises(TypeError, match="unexpected keyword argument 'legends'"):
        plotting.convergence(summary, metric="dice", average="micro", ax=ax, legends=True)
    plt.close(fig)


def test_a_tables_own_metric_is_titled_as_the_table_spells_it(summary):
    """A per-case table's metric (nDSC, metric_value) keeps its case; the package's own metrics read as prose."""
    for metric, title in (("nDSC", "nDSC, micro"), ("metric_value", "metric_value, micro"), ("jaccard", "Jaccard, micro")):
        ax = plotting.convergence(summary.assign(metric=metric), metric=metric, average="micro")
        assert ax.get_title() == title
    plt.close("all")


def test_convergence_figure_micro_is_one_panel_and_macro_has_both_metrics(summary):
    """Micro Dice ranks as micro Jaccard (2J / (1 + J) of the same counts): one panel, and the figure says so."""
    fig = plotting.convergence_figure(summary, average="micro", official="majority")
    assert [a.get_title() for a in fig.axes] == ["Jaccard, micro"]
    assert any("micro Dice ranks identically" in t.get_text() for t in fig.axes[0].texts)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "majority", "STAPLE (= majority)", "rand1", "mean over orders", "one single order",
        "90% of orders (majority)"]
    plt.close(fig)
    fig = plotting.convergence_figure(summary.assign(average="macro"), average="macro", official="majority")
    assert [a.get_title() for a in fig.axes] == ["Jaccard, macro", "Dice, macro"]
    plt.close(fig)


def test_gold_colours_are_distinct_and_majority_is_not_hidden_by_staple():
    from matplotlib.colors import to_hex

    from robustness.overlap.gold import STRATEGIES, is_random

    chosen = {n: s.style for n, s in STRATEGIES.items() if s.default and not is_random(n)}
    colours = [to_hex(st["color"]) for st in chosen.values()]
    assert len(set(colours)) == len(colours)  # one colour per gold
    assert chosen["staple"]["linestyle"] != chosen["majority"].get("linestyle", "-")  # dashed over solid


def test_forest_blobs_heatmap_artists():
    ci = pd.DataFrame(dict(strategy="majority", metric="jaccard", average="micro", run=["a", "b", "c"],
                           score=[0.5, 0.7, 0.6], low=[0.4, 0.6, 0.5], high=[0.6, 0.8, 0.7], confidence_level=0.95,
                           method="percentile", unit="encounter", n_resamples=1000))
    ax = plotting.forest(ci, strategy="majority")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "c", "b"]  # best on top
    # the axis says which interval it shows
    assert ax.get_xlabel() == "micro Jaccard\n(95% CI: percentile bootstrap, 1000 resamples of encounters)"
    plt.close("all")
    # an interval that does not hold its estimate (few or skewed resamples) is drawn where it lies, not refused
    # (matplotlib's errorbar raised on the negative lengths: `--bootstrap 2` ended in a traceback)
    ax = plotting.forest(ci.assign(low=[0.52, 0.6, 0.45], high=[0.58, 0.8, 0.55]), strategy="majority")
    segments = sorted((s[0][0], s[1][0], s[0][1]) for s in ax.collections[0].get_segments())
    assert segments == [(0.45, 0.55, 1.0), (0.52, 0.58, 0.0), (0.6, 0.8, 2.0)]  # (low, high, row): a, c, b rows
    assert sorted(map(tuple, ax.lines[-1].get_xydata())) == [(0.5, 0.0), (0.6, 1.0), (0.7, 2.0)]
    plt.close("all")
    dist = pd.DataFrame(dict(strategy="majority", metric="jaccard", average="micro", run=["a", "a", "b"],
                             rank=[1, 2, 2], share=[0.7, 0.3, 1.0], full_rank=[1.0, 1.0, 2.0]))
    ax = plotting.rank_blobs(dist, strategy="majority")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    offsets = ax.collections[0].get_offsets()
    assert offsets.tolist() == [[1, 1], [1, 2], [2, 2]]
    plt.close("all")
    m = pd.DataFrame([[1.0, 0.8], [0.8, 1.0]], index=["majority", "staple"], columns=["majority", "staple"])
    ax = plotting.tau_heatmap(m, title="t")
    assert sorted(t.get_text() for t in ax.texts) == ["0.80", "0.80", "1.00", "1.00"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["majority", "STAPLE"]
    plt.close("all")
    ax = plotting.tau_heatmap(m, low=m - 0.3, high=m.clip(upper=1.0), title="t")  # below the diagonal: intervals
    assert sorted(t.get_text() for t in ax.texts) == ["0.50\n0.80", "0.80", "1.00", "1.00"]
    plt.close("all")


@pytest.mark.slow
def test_figure_modules_on_results(tmp_path, monkeypatch):
    """The figure modules read a results folder and draw the expected artists."""
    from experiments import rank_convergence as job
    from figures import fig_02_micro_convergence, fig_03_macro_convergence
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    data = write_dermavqa(make_challenge(n_encounters=4, n_images=7, n_runs=4, n_teams=2, rng=1), tmp_path / "c")
    out = tmp_path / "out"
    assert job.main(["--data", str(data), "--out", str(out), "--orders", "4", "--bootstrap", "10", "--outer", "4",
                     "--quiet", "--no-figures"]) == 0  # the tables: the test draws its two figures itself
    captured = {}
    real_save = __import__("figures").save

    def spy(fig, path):
        captured[path.name] = fig
        return real_save(fig, path)

    import figures

    monkeypatch.setenv("ROBUSTNESS_FIGURE_FORMATS", "png,pdf")  # PDF copies where asked (the default is PNG only)
    figures.save = spy
    try:
        paths = fig_02_micro_convergence.make(out, tmp_path / "f2")
        fig_03_macro_convergence.make(out, tmp_path / "f3")
    finally:
        figures.save = real_save
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    f2, f3 = captured["f2"], captured["f3"]
    labels2 = [t.get_text() for t in f2.legends[0].get_texts()]
    labels3 = [t.get_text() for t in f3.legends[0].get_texts()]
    names2 = [label.split(" (")[0] for label in labels2]
    names3 = [label.split(" (")[0] for label in labels3]
    assert names2[:7] == ["rand1", "rand2", "rand3", "majority", "intersection", "union", "STAPLE"]
    assert names3[:9] == names2[:7] + ["mean over annotators", "max over annotators"]
    assert labels2[7:] == ["mean over orders", "one single order", "90% of orders (majority)"]
    # a strategy marked "(= other)" really has the other's mean curve, and only then
    summ = pd.read_csv(out / "curves_summary.csv")
    label_of = {plotting.strategy_style(s)["label"]: s for s in summ.strategy.unique()}

    def curve(label, metric="jaccard", average="micro"):
        sel = summ[(summ.strategy == label_of[label]) & (summ.metric == metric) & (summ.average == average)]
        return sel.sort_values("n")["mean"].to_numpy()

    top = max(curve(label.split(" (")[0]).max() for label in labels2[:7])
    for label in labels2[:7]:
        if " (= " in label:
            name, other = label[:-1].split(" (= ")
            np.testing.assert_array_equal(curve(name), curve(other))
        elif " (≈ " in label:
            name, other = label[:-1].split(" (≈ ")
            assert 0 < np.abs(curve(name) - curve(other)).max() <= 0.01 * top
        else:
            earlier = [x.split(" (")[0] for x in labels2[:labels2.index(label)]]
            assert all(np.abs(curve(label) - curve(e)).max() > 0.01 * top for e in earlier)
    assert [a.get_title() for a in f3.axes] == ["Jaccard, macro", "Dice, macro"]
    assert len(f2.axes[0].get_lines()) == 2 * 7  # mean + example order per strategy


def test_figure_formats_from_the_environment(monkeypatch, tmp_path):
    from experiments import _cli
    from experiments import rank_convergence as job
    from figures import DEFAULT_FORMATS, FORMATS, formats

    monkeypatch.delenv("ROBUSTNESS_FIGURE_FORMATS", raising=False)
    assert formats() == DEFAULT_FORMATS == ("png",)  # PDF copies only where asked (issue 53)
    assert FORMATS == ("png", "pdf")
    monkeypatch.setenv("ROBUSTNESS_FIGURE_FORMATS", " PDF, png,pdf ")
    assert formats() == ("pdf", "png")
    monkeypatch.setenv("ROBUSTNESS_FIGURE_FORMATS", "png,jpg")
    out = tmp_path / "out"
    assert _cli.run(job.main, ["--out", str(out), "--quiet"]) == 2  # refused before any work
    assert not out.exists()


def test_figure_resolution_from_the_environment(monkeypatch, tmp_path):
    """The house style's 300 dpi unless ROBUSTNESS_FIGURE_DPI says otherwise (the suite's 50); a bad value is
    refused before any work."""
    from PIL import Image

    from experiments import _cli
    from experiments import rank_convergence as job
    from figures import dpi, save

    sizes = {}
    for value in (None, "100"):
        if value is None:
            monkeypatch.delenv("ROBUSTNESS_FIGURE_DPI", raising=False)
        else:
            monkeypatch.setenv("ROBUSTNESS_FIGURE_DPI", value)
        with plotting.style():
            fig, ax = plt.subplots(figsize=(2.0, 1.0))
            ax.plot([0, 1], [0, 1])
            (path,) = save(fig, tmp_path / f"fig_{value}")
        with Image.open(path) as im:
            sizes[value] = im.size
    assert dpi() == 100.0
    assert 2.9 < sizes[None][0] / sizes["100"][0] < 3.1 and 2.8 < sizes[None][1] / sizes["100"][1] < 3.2
    for bad in ("fast", "0", "5000", "nan"):
        monkeypatch.setenv("ROBUSTNESS_FIGURE_DPI", bad)
        with pytest.raises(ValueError, match="ROBUSTNESS_FIGURE_DPI"):
            dpi()
    out = tmp_path / "out"
    assert _cli.run(job.main, ["--out", str(out), "--quiet"]) == 2  # refused before any work
    assert not out.exists()


def test_a_png_is_drawn_once_and_cut_to_what_is_drawn(tmp_path):
    """The PNG is one render cut to the pixels drawn plus the padding; a label past the edge goes to savefig."""
    from PIL import Image

    from figures import save

    with plotting.style():
        fig, ax = plt.subplots(figsize=(3.0, 2.0), layout="constrained")
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("a label")
        draws = []
        real = fig.canvas.draw
        fig.canvas.draw = lambda: draws.append(1) or real()
        (path,) = save(fig, tmp_path / "inside")
    assert len(draws) == 1  # one render, no second one to measure the box
    picture = np.asarray(Image.open(path).convert("RGB")).astype(int)
    ink = (picture != 255).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    margin = round(0.02 * 50)  # the style's pad_inches at the suite's 50 dpi
    assert (rows[0], cols[0]) == (margin, margin)
    assert (picture.shape[0] - 1 - rows[-1], picture.shape[1] - 1 - cols[-1]) == (margin, margin)
    with plotting.style():
        fig, ax = plt.subplots(figsize=(3.0, 2.0))
        ax.plot([0, 1], [0, 1])
        fig.text(0.9, 0.5, "a label past the right edge of the figure")
        (path,) = save(fig, tmp_path / "outside")
    assert Image.open(path).size[0] > 3.0 * 50  # savefig's tight box grew the picture: nothing clipped


@pytest.mark.slow
def test_figures_drawn_in_processes_are_those_drawn_in_one(tmp_path):
    """make_all with two processes writes the same files, byte for byte and listed in the same order, as with one.

    Seven figures, four of them drawn first when processes share them (figures.SLOW_FIRST) and three others, so that
    the order they are drawn in differs from the order they are listed in.
    """
    from experiments import rank_convergence as job
    from figures import make_all
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    data = write_dermavqa(make_challenge(n_encounters=4, n_images=7, n_runs=4, n_teams=2, rng=1), tmp_path / "c")
    out = tmp_path / "out"
    job.main(["--data", str(data), "--out", str(out), "--orders", "4", "--bootstrap", "10", "--outer", "4", "--quiet",
              "--no-figures", "--n-jobs", "1"])
    with only_figures("rank_convergence", "fig_02_micro_convergence", "fig_04_forest", "fig_05_rank_blobs",
                      "fig_06_kendall_tau", "fig_09_significance_map", "fig_16_podium", "fig_20_dot_box"):
        one = make_all(out, n_jobs=1)
        drawn = {p: p.read_bytes() for p in one}
        for p in one:  # the second call writes every file again, or it is missing below
            p.unlink()
        two = make_all(out, n_jobs=2)
    assert one == two and len(one) > 5 and all(drawn.values())
    assert [p.name for p in two if p.read_bytes() != drawn[p]] == []  # the paths name the figures, not what is drawn
