"""The organiser's decision: one verdict across the main summary and the design study, reports that say it first,
wording that fits the data, and a report page a reader can navigate.

- the main summary opens with "What to conclude" (at most six bullets, each read from verdicts.csv) and puts the
  warnings before the leaderboard;
- the main summary and the design study agree on the gold (the default challenge here; BU-BIL dataset 1 in
  tests/experiments/test_walkthrough.py, which runs docs/organiser-walkthrough.md, where the design study also
  compares its size with the main job's estimator on the same images, ``main_job_size``). Their sizes are not
  compared on the default challenge: at a test's two replicates the design study's interval runs from "at most 50"
  to "more than the largest size searched", which overlaps any size (measured with --max-encounters 200: the
  main job's 283 to 730 encounters against the design study's at most 50 to more than 200), so the check could not
  fail; six replicates with --max-encounters 800 give 292 to more than 400, the largest size that search reached
  (90 CPU-s, beyond a test's budget);
- the design study refuses a misread input's failed fit (the swapped foreground of BU-BIL) and says why;
- random single-annotator golds are one scheme, never separate candidates in a tie list;
- Table 4's text is right for any number of annotators, the paper is quoted only on its data, coinciding golds
  are said;
- report.html: a table of contents, unique anchors, links to the folder's files, nothing external, integer counts.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from experiments import _cli
from experiments import design_study as design_job
from experiments import rank_convergence as main_job

BUBIL_GOLD = "Person1_Amira,Person2_Amira,Person3_Amira"
BUBIL_RUNS = "Person1_ImageJ,Person3_ImageJ,Person4_Amira,Person4_ImageJ,Person5_Amira,Person5_ImageJ"
MAIN_FAST = ["--orders", "10", "--bootstrap", "100", "--outer", "20", "--quiet", "--no-figures"]
DESIGN_FAST = ["--replicates", "3", "--orders", "4", "--bootstrap", "10", "--quiet", "--no-figures"]


def _verdicts(folder, claim, **key):
    v = pd.read_csv(folder / "verdicts.csv", keep_default_na=False, na_values=[""])
    v = v[v.claim == claim]
    for k, value in key.items():
        v = v[v[k] == value]
    return [r | {"subject": json.loads(r["subject"])} for r in v.to_dict("records")]


def _agree(main, design):
    """The two reports' gold statements agree (see the module notes)."""
    rec = _verdicts(design, "recommended_scheme")[0]
    summary = (main / "summary.md").read_text()
    conclusions = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    # gold: where the main job knows a truth, the recommended gold is among those it finds tied against it; where it
    # does not, it names no gold and points to the design study instead
    truth = _verdicts(main, "truth_best", metric="jaccard", average=rec["average"])
    if truth:
        assert rec["strategy"] in truth[0]["subject"]
    else:
        assert "cannot say which gold" in conclusions and "experiments.design_study" in conclusions
    assert "fastest" not in conclusions and "rand1" not in conclusions


@pytest.mark.slow
def test_main_summary_and_design_study_agree_on_the_default_challenge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main_job.main(["--out", "main", *MAIN_FAST]) == 0
    # no size search beyond the grid (--max-encounters 100): the sizes are not compared here (module notes)
    assert design_job.main(["--encounters", "50,100", "--annotators", "3", "--agreement", "0.6", "--pool", "2000",
                            "--max-encounters", "100", "--populations", "1", "--out", "design", *DESIGN_FAST,
                            "--replicates", "2"]) == 0
    _agree(tmp_path / "main", tmp_path / "design")
    assert (pd.read_csv(tmp_path / "design" / "design.csv").pool_l1 <= 2).all()


@pytest.mark.slow
def test_the_design_study_refuses_a_misread_challenge(bubil, tmp_path, capsys):
    """BU-BIL without its foreground options: the values detected (255 on 0) make the foreground cover most of
    every annotator mask, which is refused before any fit (exit 2, nothing written); named values are scored as
    read, and the failed fit is then the refusal, naming the statistics."""
    out = tmp_path / "design"
    code = _cli.run(design_job.main, ["--quick", "--like", str(bubil / "ExpertsAnnotations"), "--layout", "raters",
                                      "--gold", BUBIL_GOLD, "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    line = next(x for x in err.splitlines() if x.startswith("error: "))
    assert str(bubil / "ExpertsAnnotations") in line and "did you mean --foreground 0 --background 255?" in line
    assert "fitting the generator" not in err and "Traceback" not in err
    # named values are read as named; the generator's twin cannot be fitted to the inverted masks (runs at Jaccard
    # 0.99), and its refusal names the statistics (the twin made of the images reproduces whatever is read: the
    # warnings above are the guard there)
    code = _cli.run(design_job.main, ["--quick", "--like", str(bubil / "ExpertsAnnotations"), "--layout", "raters",
                                      "--gold", BUBIL_GOLD, "--foreground", "255", "--background", "0",
                                      "--twin", "generator", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and not (out / "meta.json").exists()
    assert "did you mean --foreground 0 --background 255?" in err
    assert "run 'Person2_ImageJ' is identical to annotator 'Person2_Amira'" in err
    line = next(x for x in err.splitlines() if x.startswith("error: "))
    assert "is not like this challenge" in line and "in its fitted twin" in line
    assert "--force" in line and str(out / "refused" / "fit.csv") in line


@pytest.mark.slow
def test_what_to_conclude_opens_the_summary_and_warnings_come_before_the_leaderboard(tmp_path):
    """A run that is a copy of an annotator (a warning that changes the reading) is said before any table."""
    import shutil

    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    data = write_dermavqa(make_challenge(n_encounters=8, n_images=16, n_runs=5, n_teams=2, rng=2), tmp_path / "c")
    for mask in (data / "reference").glob("*_mask_ann1.tiff"):  # team1-run1 hands in ann1's masks
        shutil.copy(mask, data / "submissions" / "team1-run1" / mask.name.replace("_ann1", "_team1-run1"))
    out = tmp_path / "out"
    assert main_job.main(["--data", str(data), "--out", str(out), *MAIN_FAST]) == 0
    summary = (out / "summary.md").read_text()
    headings = re.findall(r"^## (.+)$", summary, flags=re.M)
    assert headings[0] == "What to conclude"
    block = summary.split("## What to conclude\n\n", 1)[1].split("\n\n", 1)[0]
    bullets = [x for x in block.splitlines() if x.startswith("- ")]
    assert 3 <= len(bullets) <= 6
    assert headings[1] == "Warnings" and "run 'team1-run1' is identical to annotator 'ann1'" in summary
    assert headings.index("Warnings") < headings.index(next(h for h in headings if h.startswith("Leaderboard")))
    assert "**Read the warnings first**" in summary.split("## Warnings", 1)[0]
    # each bullet's numbers come from verdicts.csv
    pairs = _verdicts(out, "pairs_differ", strategy="majority", metric="jaccard", average="micro")[0]
    assert f"{pairs['count']:.0f} of {pairs['total']:.0f} pairs of runs differ" in block
    d = _verdicts(out, "unlimited_distance", strategy="majority", metric="jaccard", average="micro")[0]
    assert f"Ranks: L1 {d['value']:.1f} ({d['low']:.1f} to {d['high']:.1f}) to the ranking on unlimited data" in block
    r = _verdicts(out, "resolution", strategy="majority", metric="jaccard", average="micro")[0]
    assert f"resolves a true difference of {r['value']:.3g}" in block
    assert "rand1" not in block and "rand2" not in block


def test_random_golds_are_one_item_in_every_tie_list():
    from robustness.reporting.sections.registry import names

    assert names(["majority", "rand1", "staple", "rand3"]) == "majority, STAPLE and one random annotator (2 draws)"
    assert names(["rand2"]) == "one random annotator"


@pytest.mark.slow
def test_two_annotators_table4_and_coinciding_golds_are_said(tmp_path):
    """With two annotators leave-one-out is undefined (said, no best/worst labels), the golds that coincide are
    named, the degrees of freedom are not those of three annotators, and the paper is not quoted on other data."""
    from robustness.synthetic.challenge import make_challenge
    from tests.conftest import write_png

    ch = make_challenge(n_encounters=10, n_images=10, max_images_per_encounter=1, n_annotators=2, min_annotators=2,
                        n_runs=4, n_teams=2, rng=4)
    data = tmp_path / "c"  # the one-folder-per-rater layout
    for i in range(ch.n_images):
        for name, mask in ch.annotator_masks(i).items():
            write_png(data / name / f"case{i:02d}.png", np.where(mask, 255, 0).astype(np.uint8))
        for run in ch.runs:
            write_png(data / run / f"case{i:02d}.png", np.where(ch.run_mask(i, run), 255, 0).astype(np.uint8))
    out = tmp_path / "out"
    assert main_job.main(["--data", str(data), "--layout", "raters", "--gold", "ann0,ann1", "--out", str(out),
                          *MAIN_FAST]) == 0
    summary = (out / "summary.md").read_text()
    table4 = summary.split("## Distance from the annotators' spread", 1)[1].split("\n## ", 1)[0]
    assert "leaving one out leaves a single annotator" in table4 and "best:" not in table4 and "worst:" not in table4
    assert "2 degrees of freedom" not in summary and "The paper reports" not in summary
    assert "Golds that coincide on this input" in summary and "majority = " in summary


@pytest.mark.slow
def test_report_html_is_navigable_and_self_contained(tiny_main):
    _, out = tiny_main  # the session's main job with its figures (tests/conftest.py)
    page = (out / "report.html").read_text()
    ids = re.findall(r'<h[23] id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) and len(ids) >= 5  # every section an anchor, each once
    toc = re.search(r'<nav class="toc">(.+?)</nav>', page).group(1)
    assert set(re.findall(r'href="#([^"]+)"', toc)) <= set(ids) and len(re.findall(r"<li>", toc)) >= 5
    links = set(re.findall(r'<a href="([^"#][^"]*)"', page))
    assert {"leaderboard.csv", "verdicts.csv", "meta.json"} <= links
    assert all((out / link).is_file() for link in links)  # every link resolves inside the folder
    assert "figures/fig_04_forest.png" in links
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing external
    # whole-number columns print as integers (the Files table's rows and columns)
    files = page.split('id="files"', 1)[1]
    first_row = re.search(r"<tbody><tr>(.+?)</tr>", files).group(1)
    cells = re.findall(r"<td>(.*?)</td>", first_row)
    assert re.fullmatch(r"\d+", cells[1]) and re.fullmatch(r"\d+", cells[2])


def test_integer_columns_are_formatted_as_integers():
    from robustness.reporting.document import md_table

    text = md_table(pd.DataFrame({"n": [35.0, 70.0], "score": [0.5, 0.25], "mixed": [1.0, np.nan]}))
    assert "| 35 | 0.5000 | 1 |" in text and "| 70 | 0.2500 |  |" in text
