"""docs/organiser-walkthrough.md runs: its commands (with fewer resamples) and the sentences it marks *checked*.

The main job and the design study on BU-BIL dataset 1 also check that the two reports agree on the gold (the checks
of tests/experiments/test_decision.py's ``_agree``) and that the design study's size overlaps the main job's
estimator on the same images (its ``main_job_size`` verdict), from another folder than the repository.
"""

from __future__ import annotations

import json
import re
import shlex

import pandas as pd
import pytest

from experiments import _cli
from experiments import design_study as design_job
from experiments import rank_convergence as main_job
from tests.conftest import REPO, shared_data
from tests.experiments.test_decision import _agree

#: The page's main job and design study on real data take about 30 CPU-seconds (the module's fixture).
pytestmark = pytest.mark.slow

DOC = REPO / "docs" / "organiser-walkthrough.md"
#: Appended to the page's commands: fewer resamples (the options given last win), nothing else changed.
FAST = {"rank_convergence": ["--orders", "10", "--bootstrap", "200", "--outer", "20", "--no-figures", "--quiet"],
        "design_study": ["--annotators", "3", "--orders", "4", "--bootstrap", "10", "--pool", "4000", "--replicates", "2",
                         "--no-figures", "--quiet"]}


def _commands() -> dict[str, list[str]]:
    """The page's ``sh`` blocks: module name -> arguments, the shared data folder put in."""
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.S)
    out = {}
    for block in blocks:
        words = shlex.split(block.replace("$ROBUSTNESS_SHARED_DATA", str(shared_data())))
        assert words[:2] == ["python", "-m"], block
        out[words[2].removeprefix("experiments.")] = words[3:]
    return out


def test_the_page_holds_the_two_commands():
    commands = _commands()
    assert set(commands) == {"rank_convergence", "design_study"}
    main, design = commands["rank_convergence"], commands["design_study"]
    assert main[main.index("--primary") + 1] == "staple:dice:macro"
    data = ("--data", "--like")
    assert main[main.index("--data") + 1] == design[design.index("--like") + 1]
    same = [w for w in main if w not in data]
    assert all(w in design or w in ("--primary", "staple:dice:macro", "--out", "results/walkthrough/main")
               for w in same)


@pytest.fixture(scope="module")
def walked(bubil, tmp_path_factory):
    """Both commands as the page gives them, run from a fresh folder (its results paths are relative)."""
    import os

    folder = tmp_path_factory.mktemp("walk")
    commands = _commands()
    here = os.getcwd()
    os.chdir(folder)
    try:
        assert main_job.main(commands["rank_convergence"] + FAST["rank_convergence"]) == 0
        assert design_job.main(commands["design_study"] + FAST["design_study"]) == 0
    finally:
        os.chdir(here)
    return folder / "results" / "walkthrough"


def test_the_main_summary_answers_how_many_images_in_one_bullet(walked):
    """The page's "How many images" bullet: the resolution with its interval and the close neighbouring pairs."""
    main = walked / "main"
    summary = (main / "summary.md").read_text()
    bullet = next(x for x in summary.splitlines() if x.startswith("- **How many images**"))
    v = pd.read_csv(main / "verdicts.csv", keep_default_na=False, na_values=[""])
    r = v[(v.claim == "resolution") & (v.strategy == "staple") & (v.average == "macro")].iloc[0]
    assert f"resolves a true difference of {r.value:.3g} in Dice between neighbouring runs (95% CI {r.low:.3g} to " \
           f"{r.high:.3g}" in bullet
    assert f"{int(r['count'])} of the {int(r['total'])} neighbouring pairs lie closer than that" in bullet
    assert len(bullet.split()) <= 120


def test_the_headline_is_the_organisers_and_nobody_is_official(walked):
    main = walked / "main"
    meta = json.loads((main / "meta.json").read_text())
    assert meta["primary"].items() >= {"strategy": "staple", "metric": "dice", "average": "macro", "official": False,
                                       "set_by": "organiser"}.items()
    summary = (main / "summary.md").read_text()
    assert "## Leaderboard under the headline scheme (STAPLE, macro Dice)" in summary
    assert "official" not in summary.lower() and "official" not in (main / "report.html").read_text().lower()
    assert "a random order of the 6 runs lies 11.7 away" in summary


def test_shared_authors_and_what_moves_the_winner_are_said(walked):
    main = walked / "main"
    summary = (main / "summary.md").read_text()
    for run, annotator in (("Person1_ImageJ", "Person1_Amira"), ("Person3_ImageJ", "Person3_Amira")):
        assert f"run '{run}' and annotator '{annotator}' of the gold share the name part" in summary
    v = pd.read_csv(main / "verdicts.csv", keep_default_na=False, na_values=[""])
    moved = v[(v.claim == "winner_by_scheme") & (v.strategy == "intersection") & (v.average == "macro")]
    assert moved.statement.tolist() == ["moves"]
    assert json.loads(moved.subject.iloc[0]) == ["Person1_ImageJ", "Person4_Amira"]
    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    assert "**What moves the first place**" in conclude and "Person1_ImageJ is first in 100% of resamples" in conclude
    # the summary prints the design study's command, as the page runs it (without --primary, --out)
    printed = re.search(r"`python -m experiments\.design_study ([^`]*)`", conclude).group(1).split()
    page = _commands()["design_study"]
    assert printed == page[:page.index("--out")]  # from meta.json's input.reading, the page's own command


def test_the_twin_is_checked_and_the_two_answers_are_read_together(walked):
    # the gold statements agree; the size for majority, micro Jaccard is the main job's estimator on the same
    # images (the design study runs it: the main summary here is about the headline, STAPLE macro Dice)
    _agree(walked / "main", walked / "design")
    v = pd.read_csv(walked / "design" / "verdicts.csv", keep_default_na=False, na_values=[""])
    assert v[v.claim == "main_job_size"].statement.tolist() == ["overlap"]
    fit = pd.read_csv(walked / "design" / "fit.csv").set_index("statistic")
    checked = fit[fit.within.notna()]
    assert checked.within.astype(str).eq("True").all()
    assert fit.loc[fit.index.str.startswith("expected L1 to unlimited data"), "within"].astype(str).tolist() == ["True"]
    # the twin made of the images fits without --force: its runs as separable as the real ones, its distance to
    # unlimited data at the challenge's size within a factor 1.5 of the main job's estimate
    sep = fit.loc["runs' separability (median |z| of paired differences, micro Jaccard)"]
    assert str(sep.within) == "True" and 1 / 1.5 <= sep.fitted / sep.target <= 1.5
    far = fit.loc["expected L1 to unlimited data at the challenge's size (majority, micro Jaccard)"]
    assert str(far.within) == "True" and 1 / 1.5 <= far.fitted / far.target <= 1.5
    # the twin's objects are the real ones: their size is checked (within 10%) and holds
    assert fit.loc[fit.index.str.startswith("gold object size"), "within"].astype(str).tolist() == ["True"]
    assert fit.loc[fit.index.str.startswith("gold object size"), "tolerance"].tolist() == ["within a factor 1.1"]
    recommendation = (walked / "design" / "recommendation.md").read_text()
    bullet = next(x for x in recommendation.splitlines() if x.startswith("- **The main job on the real challenge**"))
    assert "for majority, micro Jaccard: L1 <= 1.17 (a tenth of a random order's distance) needs" in bullet
    assert "the intervals overlap" in bullet
    # the resolution: the twin's beside the main job's on the real images, and on BU-BIL dataset 1 they agree
    resolution = next(x for x in recommendation.splitlines() if x.startswith("- **Resolution**"))
    twin = pd.read_csv(walked / "design" / "resolution.csv")
    twin = twin[(twin.strategy == "majority") & (twin.average == "micro") & (twin.units == 35)].iloc[0]
    real = pd.read_csv(walked / "design" / "main_job_resolution.csv")
    real = real[(real.average == "micro") & (real.units == 35)].iloc[0]
    assert f"declares a true difference of {twin.resolution:.3g}" in resolution
    assert f"the main job on the real 35 images: {real.resolution:.3g}" in resolution
    assert "the intervals overlap, so the two agree" in resolution
    assert twin.resolution_low <= real.resolution_high and real.resolution_low <= twin.resolution_high
    main_answer = pd.read_csv(walked / "design" / "main_job_answer.csv")
    assert set(main_answer.average) == {"micro", "macro"}
    assert re.search(r"\*\*Use [^*]+ \((micro|macro)\)\*\*", recommendation)
    assert re.search(r"with (about \d+|at most \d+|more than \d+) images \(95% interval over replicates: |no test-set "
                     r"size reaches "
                     r"an expected L1 <= 1\.17 \(a tenth of a random order's distance; ", recommendation)
    assert (pd.read_csv(walked / "design" / "design.csv").pool_l1 <= 2).all()
    # the structure copied, the statistics close to the challenge's
    assert fit.loc[["images", "runs", "annotators per image (min)"], "fitted"].tolist() == [35, 6, 3]
    for statistic, tolerance in (("annotator pairwise Jaccard (median)", 0.03),
                                 ("run micro Jaccard vs majority (best)", 0.03),
                                 ("run micro Jaccard vs majority (median)", 0.03),
                                 ("run micro Jaccard vs majority (worst)", 0.07)):  # the worst of 6 runs is noisy
        row = fit.loc[statistic]
        assert abs(row.fitted - row.target) < tolerance, statistic


def test_a_covering_foreground_is_refused_as_the_page_says(bubil, tmp_path, capsys):
    args = _commands()["rank_convergence"]
    for option in ("--foreground", "--background"):
        i = args.index(option)
        args = args[:i] + args[i + 2:]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    assert _cli.run(main_job.main, args + ["--quiet"]) == 2
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith("error: "))
    assert "the foreground (value 255) covers more than half of the image in 105 of 105 annotator masks" in line
    assert "did you mean --foreground 0 --background 255?" in line


def test_the_main_summary_says_whether_the_design_study_agrees(walked, tmp_path, capsys):
    """``--design DIR``: the main summary puts the twin's size beside its own, for the same scheme and target."""
    args = _commands()["rank_convergence"]
    args[args.index("--out") + 1] = str(tmp_path / "with")
    assert main_job.main(args + FAST["rank_convergence"] + ["--design", str(walked / "design")]) == 0
    summary = (tmp_path / "with" / "summary.md").read_text()
    own = pd.read_csv(tmp_path / "with" / "test_set_size.csv")
    own = own[(own.strategy == "majority") & (own.metric == "jaccard") & (own.average == "micro")].iloc[0]
    said = next(x for x in summary.splitlines() if "The design study's twin" in x)
    assert f"The design study's twin ({walked / 'design'}; majority, micro Jaccard): resolution " in said
    # the two resolutions at the challenge's size, and whether their intervals overlap, as the tables hold them
    twin = pd.read_csv(walked / "design" / "resolution.csv")
    twin = twin[(twin.strategy == "majority") & (twin.average == "micro") & (twin.units == twin.test_units)].iloc[0]
    mine = pd.read_csv(tmp_path / "with" / "resolution.csv")
    mine = mine[(mine.strategy == "majority") & (mine.average == "micro") & (mine.units == mine.test_units)].iloc[0]
    assert f"resolution {twin.resolution:.3g} ({twin.resolution_low:.3g} to {twin.resolution_high:.3g}) against " \
           f"this job's {mine.resolution:.3g}" in said
    overlap = twin.resolution_low <= mine.resolution_high and mine.resolution_low <= twin.resolution_high
    assert ("they agree" if overlap else "they differ") in said
    assert "L1 <= 1.17 needs " in said and ("it agrees" in said or "it differs" in said)
    assert len(next(x for x in summary.splitlines() if x.startswith("- **How many")).split()) <= 120
    del own
    # refused before any work: another study's folder, a design study of another challenge
    other = ["--out", str(tmp_path / "no"), "--quiet"]
    assert _cli.run(main_job.main, args[:args.index("--out")] + other + ["--design", str(walked / "main")]) == 2
    assert "--design names a design study's results folder" in capsys.readouterr().err
    assert _cli.run(main_job.main, other + ["--design", str(walked / "design")]) == 2
    assert "give --data (the folder the design study read with --like)" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_a_design_study_of_another_reading_or_a_damaged_one_is_refused(walked, tmp_path, capsys):
    """--design is checked before any work: the challenge as the design study read it (raters, foreground values,
    files), a folder that overlaps --out, the majority gold kept, and every number it holds."""
    import shutil

    design = walked / "design"
    args = _commands()["rank_convergence"]
    i = args.index("--out")
    base, out = args[:i] + args[i + 2:], tmp_path / "out"

    def refused(extra, message, folder=design):
        code = _cli.run(main_job.main, base + ["--out", str(out), "--quiet", "--design", str(folder)] + extra)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and err[-1].startswith("error: ") and message in err[-1], err
        assert "Traceback" not in "\n".join(err) and not (out / "meta.json").exists()

    runs = base[base.index("--runs") + 1]
    refused(["--runs", runs.replace("Person1_ImageJ", "Person2_ImageJ")], "read this folder otherwise")
    refused(["--strategies", "staple,union"], "keep majority in --strategies")
    code = _cli.run(main_job.main, base + ["--out", str(design / "inside"), "--quiet", "--design", str(design)])
    assert code == 2 and "overlap" in capsys.readouterr().err
    refused([], "not there", folder=tmp_path / "nowhere")
    damaged = tmp_path / "damaged"
    shutil.copytree(design, damaged)
    meta = json.loads((damaged / "meta.json").read_text())
    meta["input"] = ["not", "a", "dict"]
    (damaged / "meta.json").write_text(json.dumps(meta))
    refused([], "not run --like a folder of masks", folder=damaged)
    meta["input"] = {"like": meta_like(design), "challenge": None}
    (damaged / "meta.json").write_text(json.dumps(meta))
    refused([], "does not record the challenge it read", folder=damaged)
    sizes = pd.read_csv(design / "recommendation_sizes.csv")
    sizes.loc[(sizes.strategy == "majority") & (sizes.average == "micro"), "largest_size"] = -1
    meta["input"] = json.loads((design / "meta.json").read_text())["input"]
    (damaged / "meta.json").write_text(json.dumps(meta))
    sizes.to_csv(damaged / "recommendation_sizes.csv", index=False)
    refused([], "is not a size with its interval", folder=damaged)


def meta_like(folder):
    return json.loads((folder / "meta.json").read_text())["input"]["like"]
