"""A 3D multi-rater, multi-label NIfTI challenge through the loader, the pixel pass and the main job."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from robustness.errors import InputError
from robustness.io import load_raters
from robustness.overlap import OverlapOptions, compute_overlap
from robustness.synthetic.volumes import VolumeConfig, write_volume_challenge

sitk = pytest.importorskip("SimpleITK")
REPO = Path(__file__).resolve().parents[2]
CONFIG = VolumeConfig(n_volumes=4, shape=(8, 24, 28), spacing=(3.0, 0.8, 0.7), labels=2, n_annotators=3, n_runs=5)
GOLD = ["ann1", "ann2", "ann3"]


@pytest.fixture(scope="module")
def volumes(tmp_path_factory):
    root = tmp_path_factory.mktemp("vol") / "challenge"
    info = write_volume_challenge(root, CONFIG, rng=4)
    return root, info


def _labels(path):
    return sitk.GetArrayFromImage(sitk.ReadImage(str(path)))


def test_overlap_counts_equal_a_plain_numpy_recount(volumes):
    """Every run against the majority of the three annotators and against each annotator, per volume and label,
    recounted from the files with SimpleITK and numpy alone."""
    root, info = volumes
    ch = load_raters(root, gold=GOLD, labels=[1, 2])
    assert ch.n_images == 8 and ch.images[:2] == ("case001.label1", "case001.label2")
    assert ch.encounters[:2] == ("case001", "case001") and ch.shapes[0] == (8, 24, 28)
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    maj = counts.strategies.index("majority")
    for i, image in enumerate(ch.images):
        volume, label = image.rsplit(".label", 1)
        annotators = [_labels(root / a / f"{volume}.nii.gz") == int(label) for a in GOLD]
        majority = np.sum(annotators, axis=0) >= 2
        for r, run in enumerate(ch.runs):
            m = _labels(root / run / f"{volume}.nii.gz") == int(label)
            for gold, got in ((majority, counts.counts[maj, r, i]),
                              *((a, counts.annotator_counts[j, r, i]) for j, a in enumerate(annotators))):
                want = [np.sum(m & gold), np.sum(m & ~gold), np.sum(~m & gold)]
                assert got.tolist() == want, (image, run)


def test_regions_are_unions_of_labels_scored_like_labels(volumes, tmp_path, capsys):
    """BraTS- and KiTS-style regions: each region's mask is the union of its label values, recounted from the files;
    a one-label region is that label; bad region options are refused in one line before any work."""
    from experiments import rank_convergence as job
    from experiments._cli import run as cli_run

    root, _ = volumes
    ch = load_raters(root, gold=GOLD, labels={"both": (1, 2), "one": (1,)})
    assert ch.n_images == 8 and ch.images[:2] == ("case001.both", "case001.one")
    assert ch.encounters[:2] == ("case001", "case001")
    counts = compute_overlap(ch, strategies=["majority"], rng=0)
    single = compute_overlap(load_raters(root, gold=GOLD, labels=[1]), strategies=["majority"], rng=0)
    maj = counts.strategies.index("majority")
    for i, image in enumerate(ch.images):
        volume, region = image.rsplit(".", 1)
        values = (1, 2) if region == "both" else (1,)
        annotators = [np.isin(_labels(root / a / f"{volume}.nii.gz"), values) for a in GOLD]
        majority = np.sum(annotators, axis=0) >= 2
        for r, run in enumerate(ch.runs):
            m = np.isin(_labels(root / run / f"{volume}.nii.gz"), values)
            want = [np.sum(m & majority), np.sum(m & ~majority), np.sum(~m & majority)]
            assert counts.counts[maj, r, i].tolist() == want, (image, run)
    np.testing.assert_array_equal(counts.counts[maj][:, 1::2], single.counts[single.strategies.index("majority")])
    for argv, message in ((["--regions", "WT=1,2", "WT=1"], "a region is named twice"),
                          (["--regions", "WT=0,1"], "labels must be distinct whole numbers >= 1"),
                          (["--regions", "W T=1"], "expected NAME=L1,L2"),
                          (["--regions", "WT=1", "--labels", "1"], "--labels and --regions")):
        code = cli_run(job.main, ["--data", str(root), "--layout", "raters", "--gold", ",".join(GOLD), "--out",
                                  str(tmp_path / "o")] + argv)
        err = capsys.readouterr().err.strip()
        assert code == 2 and "\n" not in err and message in err, err
        assert not (tmp_path / "o").exists()


def _hand_nsd(a, b, spacing, tol):
    """NSD by brute force: face-border voxels (outside the array is background), every pairwise distance."""
    def border(mask):
        padded = np.pad(mask, 1)
        inner = np.ones_like(mask)
        for axis in range(3):
            for shift in (-1, 1):
                inner &= np.roll(padded, shift, axis=axis)[1:-1, 1:-1, 1:-1]
        return np.argwhere(mask & ~inner) * np.asarray(spacing)

    pa, pb = border(a), border(b)
    d = np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1))
    return ((d.min(1) <= tol).sum() + (d.min(0) <= tol).sum()) / (len(pa) + len(pb))


@pytest.mark.slow
def test_kits_regions_with_a_tolerance_each_equal_a_hand_computation(volumes, tmp_path, capsys):
    """KiTS23 style: regions as unions of labels, each scored by the NSD at its own tolerance
    (nsd@kidney=1.033/tumor=1.15), equal to a brute-force NSD of the region's masks at that tolerance; a label
    without a tolerance, or a tolerance without a label, is refused in one line before any work."""
    from experiments import rank_convergence as job
    from experiments._cli import run as cli_run

    root, _ = volumes
    ch = load_raters(root, gold=GOLD, labels={"kidney": (1, 2), "tumor": (2,)})
    metric = "nsd@kidney=1.033/tumor=1.15"
    counts = compute_overlap(ch, strategies=["majority"], rng=0, boundary=(metric,))
    maj = counts.strategies.index("majority")
    tolerances = {"kidney": 1.033, "tumor": 1.15}
    spacing = ch.spacing(0)
    checked = 0
    for i, image in enumerate(ch.images):
        volume, region = image.rsplit(".", 1)
        values = (1, 2) if region == "kidney" else (2,)
        annotators = [np.isin(_labels(root / a / f"{volume}.nii.gz"), values) for a in GOLD]
        majority = np.sum(annotators, axis=0) >= 2
        for r, run in enumerate(ch.runs):
            m = np.isin(_labels(root / run / f"{volume}.nii.gz"), values)
            if m.any() and majority.any():
                want = _hand_nsd(m, majority, spacing, tolerances[region])
                assert counts.boundary[maj, r, i, 0] == pytest.approx(want, abs=1e-12), (image, run)
                checked += 1
    assert checked >= 30
    # the two tolerances differ on these volumes' spacing: scoring the tumour at the kidney's tolerance changes it
    one = compute_overlap(ch, strategies=["majority"], rng=0, boundary=("nsd@1.033",))
    tumour = [i for i, name in enumerate(ch.images) if name.endswith(".tumor")]
    kidney = [i for i, name in enumerate(ch.images) if name.endswith(".kidney")]
    np.testing.assert_array_equal(one.boundary[maj][:, kidney], counts.boundary[maj][:, kidney])
    assert not np.array_equal(one.boundary[maj][:, tumour], counts.boundary[maj][:, tumour])
    base = ["--data", str(root), "--layout", "raters", "--gold", ",".join(GOLD), "--out", str(tmp_path / "o")]
    for argv, message in (
            (["--regions", "kidney=1,2", "tumor=2", "--boundary", "nsd@kidney=1.033"], "no tolerance for tumor"),
            (["--regions", "kidney=1,2", "--boundary", metric], "tumor not scored"),
            (["--boundary", metric], "score the labels with --regions or --labels"),
            (["--labels", "1,2", "--boundary", metric], "no tolerance for 1, 2"),
            (["--labels", "all", "--boundary", "nsd@1=1/3=2"], "no tolerance for 2; 3 not scored")):
        code = cli_run(job.main, base + argv)
        errors = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("warning: ")]
        assert code == 2 and len(errors) == 1 and message in errors[0], (argv, errors)
        assert not (tmp_path / "o").exists()


def test_labels_all_reads_the_gold_labels_and_says_so(volumes):
    root, _ = volumes
    ch = load_raters(root, gold=GOLD, labels="all")
    assert ch.n_images == 8 and any("labels found in the gold annotators' masks: 1, 2" in n for n in ch.notes)
    with pytest.raises(InputError, match=r"`load_raters\.labels` must list distinct labels >= 1"):
        load_raters(root, gold=GOLD, labels=[1, 1])


def test_a_run_on_another_grid_is_refused_in_one_line(volumes, tmp_path):
    root, _ = volumes
    bad = tmp_path / "challenge"
    for rater in os.listdir(root):
        (bad / rater).mkdir(parents=True)
        for f in os.listdir(root / rater):
            (bad / rater / f).symlink_to(root / rater / f)
    target = bad / "run3" / "case002.nii.gz"
    target.unlink()
    img = sitk.ReadImage(str(root / "run3" / "case002.nii.gz"))
    img.SetSpacing((0.7, 0.8, 2.0))  # x, y, z
    sitk.WriteImage(img, str(target))
    with pytest.raises(InputError) as err:
        load_raters(bad, gold=GOLD, labels=[1, 2])
    text = str(err.value)
    assert text.startswith(f"{target}: voxel spacing 0.7 x 0.8 x 2, but its reference ") and "\n" not in text


@pytest.mark.slow
def test_main_job_from_another_folder_and_bad_options(volumes, tmp_path):
    root, _ = volumes
    env = dict(os.environ, PYTHONPATH=str(REPO))
    base = [sys.executable, "-m", "experiments.rank_convergence", "--data", str(root), "--layout", "raters",
            "--gold", ",".join(GOLD), "--orders", "8", "--bootstrap", "30", "--outer", "4", "--no-figures", "--quiet"]
    out = tmp_path / "out"
    proc = subprocess.run(base + ["--labels", "1,2", "--boundary", "nsd@2,hd95,assd", "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert sorted(board.index) == [f"run{r}" for r in range(1, 6)]
    images = pd.read_csv(out / "images.csv")
    assert len(images) == 8
    agreement = pd.read_csv(out / "metric_agreement.csv")
    assert len(agreement) == 10 and (agreement.tau_low <= agreement.tau).all() and (agreement.tau <= 1).all()
    summary = (out / "summary.md").read_text()
    assert "## Does the metric change the ranking?" in summary and "**hd95** (lower is better)" in summary
    assert "With 4 encounters for 5 runs it can also miss" in summary
    assert ("8 label masks per run (4 volumes x 2 labels 1, 2; the bootstrap resamples volumes with all their "
            "labels)") in summary
    _check_label_tables(root, out, summary)
    # "What to conclude" says what the boundary metrics and the labels do to the order and the first place, each
    # from its verdict (tau with its interval, runs that move) and the rank intervals
    from robustness.scheme import metric_label

    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    verdicts = pd.read_csv(out / "verdicts.csv", keep_default_na=False, na_values=[""])
    for v in verdicts[(verdicts.claim == "metric_tau") & (verdicts.metric != "jaccard")].itertuples():
        assert (f"under {metric_label(v.metric)} {v.count:.0f} of {v.total:.0f} runs take another place (Kendall's "
                f"tau {v.value:.2f}") in conclude
    labels = verdicts[verdicts.claim == "label_tau"]
    differ = int((labels.statement == "differ").sum())
    assert f"Between labels: {differ} of {len(labels)} pairs of labels order the runs differently" in conclude
    leader = pd.read_csv(out / "leaderboard.csv").run.iloc[0]
    assert f"{leader} stays first" in conclude or f"{leader}'s 95% rank interval" in conclude \
        or f"{leader} not excluded" in conclude
    # every metric's ranking through the convergence engine; macro Jaccard's equals the main curves' (same orders)
    metric_points = pd.read_csv(out / "metric_convergence.csv")
    assert set(metric_points.metric) == {"jaccard", "dice", "nsd@2", "hd95", "assd"}
    main = pd.read_csv(out / "convergence.csv")
    main = main[(main.strategy == "majority") & (main.metric == "jaccard") & (main.average == "macro")]
    cols = ["ranking", "tolerance", "convergence_n", "convergence_n_low", "convergence_n_high", "auc", "auc_low",
            "auc_high"]
    mine = metric_points[metric_points.metric == "jaccard"][cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, main[cols].reset_index(drop=True))
    assert "How fast each metric's ranking settles on its own full-set ranking" in summary
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    for extra, message in ((["--labels", "0,1"], "labels must be distinct whole numbers >= 1"),
                           (["--labels", "1,2", "--foreground", "1"], "--labels reads each label's voxels"),
                           (["--labels", "x"], "expected 'all' or labels such as 1,2"),
                           (["--labels", "1,2", "--boundary", "nsd@0"], "the NSD's tolerance must be positive"),
                           (["--labels", "1,2", "--boundary", "hd9x"], "unknown boundary metric 'hd9x'"),
                           (["--labels", "1,2", "--boundary", "hd101"], "the percentile must lie in (0, 100]")):
        proc = subprocess.run(base + extra + ["--out", str(out)], cwd=tmp_path, env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert len([line for line in proc.stderr.splitlines() if line.startswith("error")]) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # earlier results kept


def _check_label_tables(root, out, summary):
    """The label dimension: each label's official macro Jaccard equals numpy on the files, through the
    leaderboards, the bootstrap scores and the convergence points; tau between labels; the report's section."""
    want = {}
    for label in (1, 2):
        for run in [f"run{r}" for r in range(1, 6)]:
            scores = []
            for volume in ("case001", "case002", "case003", "case004"):
                gold = np.sum([_labels(root / a / f"{volume}.nii.gz") == label for a in GOLD], axis=0) >= 2
                m = _labels(root / run / f"{volume}.nii.gz") == label
                union = np.sum(m | gold)
                scores.append(np.sum(m & gold) / union if union else 1.0)
            want[(label, run)] = np.mean(scores)
    boards = pd.read_csv(out / "label_leaderboard.csv")
    jac = boards[boards.metric == "jaccard"].set_index(["label", "run"])
    assert set(boards.metric) == {"jaccard", "dice", "nsd@2", "hd95", "assd"}
    for key, value in want.items():
        assert jac.loc[key, "value"] == pytest.approx(value, rel=1e-12)
        assert jac.loc[key, "value_low"] <= value <= jac.loc[key, "value_high"]
    scores = pd.read_csv(out / "label_scores.csv")
    macro = scores[(scores.strategy == "majority") & (scores.average == "macro")].set_index(["label", "run"])
    for key, value in want.items():
        assert macro.loc[key, "score"] == pytest.approx(value, rel=1e-12)
    assert set(scores.strategy) >= {"majority", "staple", "intersection", "union", "mean", "max"}
    points = pd.read_csv(out / "label_convergence.csv")
    assert set(points.label) == {1, 2} and (points.n_units == 4).all() and (points.convergence_n <= 4).all()
    agree = pd.read_csv(out / "label_agreement.csv")
    assert len(agree) == 5 and (agree.label_a == 1).all() and (agree.label_b == 2).all()
    row = agree[agree.metric == "jaccard"].iloc[0]
    ranks = jac["rank"].unstack(0)
    assert row.tau == pytest.approx(kendalltau(ranks[1], ranks[2]).statistic, abs=1e-12)
    assert row.tau_low <= row.tau <= row.tau_high
    assert "## Does the label change the ranking?" in summary
    assert "**label 1 and label 2**: Kendall's tau between their macro Jaccard rankings" in summary
    assert "covered the population tau in 36% of test sets, against 89% on 30 units and 100% on 100; python -m " \
           "robustness.simulation.metric_tau --labels" in summary  # 4 volumes for 5 runs: the interval can miss


@pytest.mark.slow
def test_boundary_metrics_of_the_pixel_pass_equal_direct_recomputation(volumes):
    """The pass's boundary metrics against the majority gold and against each annotator equal boundary_scores on
    masks built with numpy from the files, and SimpleITK's Hausdorff filter gives the same Hausdorff distance."""
    from robustness.overlap.boundary import boundary_scores

    root, info = volumes
    ch = load_raters(root, gold=GOLD, labels=[1, 2])
    metrics = ("nsd@1.5", "hd95", "assd", "hd")
    counts = compute_overlap(ch, strategies=["majority", "rand1"], rng=0, boundary=metrics)
    maj, rand = counts.strategies.index("majority"), counts.strategies.index("rand1")
    spacing = ch.spacing(0)
    assert np.allclose(spacing, CONFIG.spacing, rtol=1e-6)  # NIfTI keeps float32 spacings
    for i, image in enumerate(ch.images):
        volume, label = image.rsplit(".label", 1)
        annotators = [_labels(root / a / f"{volume}.nii.gz") == int(label) for a in GOLD]
        majority = np.sum(annotators, axis=0) >= 2
        chosen = annotators[counts.rand_choice[0, i]]
        for r, run in enumerate(ch.runs):
            m = _labels(root / run / f"{volume}.nii.gz") == int(label)
            want = boundary_scores(m, majority, metrics, spacing, empty="official")
            np.testing.assert_allclose(counts.boundary[maj, r, i], want, rtol=1e-12, equal_nan=True)
            np.testing.assert_allclose(counts.boundary[rand, r, i],
                                       boundary_scores(m, chosen, metrics, spacing, empty="official"),
                                       rtol=1e-12, equal_nan=True)
            if m.any() and majority.any():
                images = []
                for mask in (m, majority):
                    img = sitk.GetImageFromArray(np.pad(mask, 1).astype(np.uint8))
                    img.SetSpacing(tuple(float(s) for s in spacing[::-1]))
                    images.append(sitk.BinaryContour(img, fullyConnected=False))
                hd = sitk.HausdorffDistanceImageFilter()
                hd.Execute(*images)
                assert abs(counts.boundary[maj, r, i, 3] - hd.GetHausdorffDistance()) <= 1e-6


def test_surface_element_metrics_of_the_pixel_pass_equal_deepminds_on_the_volumes(volumes):
    """KiTS23's surface Dice (NSD on surface elements at 1.1498 mm) and the element HD95 of every run against the
    majority of the NIfTI volumes' annotators, per label, equal DeepMind's surface-distance on masks built from the
    files with numpy."""
    import warnings

    sd = pytest.importorskip("surface_distance", reason="DeepMind's surface-distance (pip install surface-distance)")
    root, _ = volumes
    ch = load_raters(root, gold=GOLD, labels=[1, 2])
    counts = compute_overlap(ch, strategies=["majority"], rng=0, boundary=("nsd_surfel@1.1498", "hd95_surfel"))
    maj = counts.strategies.index("majority")
    spacing = tuple(float(v) for v in ch.spacing(0))
    checked = 0
    for i, image in enumerate(ch.images):
        volume, label = image.rsplit(".label", 1)
        annotators = [_labels(root / a / f"{volume}.nii.gz") == int(label) for a in GOLD]
        majority = np.sum(annotators, axis=0) >= 2
        for r, run in enumerate(ch.runs):
            m = _labels(root / run / f"{volume}.nii.gz") == int(label)
            if not (m.any() and majority.any()):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                dist = sd.compute_surface_distances(majority, m, spacing)
            want = [sd.compute_surface_dice_at_tolerance(dist, 1.1498), sd.compute_robust_hausdorff(dist, 95)]
            np.testing.assert_allclose(counts.boundary[maj, r, i], want, rtol=1e-12, atol=1e-12)
            checked += 1
    assert checked >= 30


@pytest.mark.slow
def test_boundary_conventions_reach_the_pixel_pass_the_options_and_the_report(tmp_path, capsys):
    """--border, --one-slice and --empty-distance: the pass's metrics equal boundary_scores under the same
    conventions on one-slice volumes read from the files; the report says how one-slice volumes and borders were
    scored; a convention no leaderboard can rank by is refused in one line before any work."""
    import json

    from experiments import rank_convergence as job
    from experiments._cli import run as cli_run
    from robustness.overlap.boundary import boundary_scores

    root = tmp_path / "flat"
    write_volume_challenge(root, VolumeConfig(n_volumes=4, shape=(8, 30, 32), spacing=(3.0, 0.8, 0.7), labels=2,
                                              n_annotators=3, n_runs=4), rng=5)
    for path in root.glob("*/*.nii.gz"):  # keep the middle slice: volumes of one slice, as converted 2D data
        image = sitk.ReadImage(str(path))
        sitk.WriteImage(image[:, :, 4:5], str(path))
    ch = load_raters(root, gold=GOLD, labels=[1])
    metrics = ("hd95", "assd", "hd95_surfel")
    for chosen in ({"border": "full", "one_slice": "2d", "empty_distance": 373.13},
                   {"border": "face", "one_slice": "3d", "empty_distance": "diagonal"}):
        counts = compute_overlap(ch, strategies=["majority"], rng=0, boundary=metrics,
                                 options=OverlapOptions(boundary_conventions=chosen))
        maj = counts.strategies.index("majority")
        for i, image in enumerate(ch.images):
            volume = image.rsplit(".label", 1)[0]
            majority = np.sum([_labels(root / a / f"{volume}.nii.gz") == 1 for a in GOLD], axis=0) >= 2
            for r, run in enumerate(ch.runs):
                m = _labels(root / run / f"{volume}.nii.gz") == 1
                want = boundary_scores(m, majority, metrics, ch.spacing(i), empty="official", conventions=chosen)
                np.testing.assert_allclose(counts.boundary[maj, r, i], want, rtol=1e-12, equal_nan=True)
        default = compute_overlap(ch, strategies=["majority"], rng=0, boundary=metrics)
        assert np.isfinite(counts.boundary[maj]).sum() >= 24  # the slices hold objects
        assert not np.allclose(counts.boundary[maj, ..., 1], default.boundary[maj, ..., 1], equal_nan=True)
    out = tmp_path / "out"
    base = ["--data", str(root), "--layout", "raters", "--gold", ",".join(GOLD), "--labels", "1"]
    code = cli_run(job.main, base + ["--boundary", "hd95,nsd_surfel@1", "--border", "full", "--empty-distance",
                                     "373.13", "--orders", "10", "--bootstrap", "50", "--outer", "10", "--quiet",
                                     "--no-figures", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    options = json.loads((out / "meta.json").read_text())["options"]
    assert (options["border"], options["empty_distance"], options["one_slice"]) == ("full", 373.13, "2d")
    summary = (out / "summary.md").read_text()
    assert "4 of 4 images are volumes of one slice (1 x H x W)" in summary
    assert "distances 373.13 (--empty-distance)" in summary and "--border full" in summary
    assert "weight surface elements by their area" in summary
    for argv, message in ((["--empty-distance", "nan"], "no leaderboard ranks by them"),
                          (["--empty-distance", "-2"], "empty_distance must be >= 0"),
                          (["--border", "26"], "invalid choice: '26'")):
        code = cli_run(job.main, base + ["--boundary", "hd95", "--out", str(tmp_path / "refused")] + argv)
        err = capsys.readouterr().err.strip()
        assert code == 2 and "\n" not in err and message in err, (argv, err)
        assert not (tmp_path / "refused").exists()


@pytest.mark.slow
def test_design_study_makes_a_3d_twin_of_the_real_volumes(volumes, tmp_path):
    """The default twin of a 3D challenge is made of its own volumes: the truths are the real majority's in 3D (with
    the voxel spacing), a boundary metric is ranked beside Jaccard on every simulated test set, and the report says
    what a simulated volume is."""
    from experiments import design_study
    from experiments._cli import run

    root, _ = volumes
    out = tmp_path / "design"
    code = run(design_study.main, ["--quick", "--like", str(root), "--layout", "raters", "--gold", ",".join(GOLD),
                                   "--labels", "1,2", "--encounters", "2,4", "--annotators", "3", "--replicates", "2",
                                   "--populations", "1", "--orders", "10", "--bootstrap", "50", "--boundary", "hd95",
                                   "--pool", "40", "--max-encounters", "4", "--no-figures", "--quiet", "--force",
                                   "--n-jobs", "1", "--out", str(out)])
    assert code == 0
    fit = pd.read_csv(out / "fit.csv").set_index("statistic")
    assert fit.loc["slices per volume", "target"] == 8 and fit.loc["slices per volume", "fitted"] == 8
    size = fit.loc["gold object size in pixels (median over images)"]
    assert size.tolerance.startswith("within a factor")
    design = pd.read_csv(out / "design.csv")
    grid = design[design.stage == "grid"]
    macro = grid[(grid.strategy == "majority") & (grid.average == "macro")]
    assert macro.tau_jaccard_hd95.between(-1, 1).all()
    summary = (out / "summary.md").read_text()
    assert "the challenge's own volumes (resampled with replacement beyond its size)" in summary


@pytest.mark.slow
def test_design_study_fits_a_3d_twin_from_another_folder(volumes, tmp_path):
    """--twin generator on the NIfTI challenge (3 gold raters, 5 runs, 2 labels) fits a twin that simulates volumes of the
    challenge's slices and physical size, ranks the runs by a boundary metric beside Jaccard on every simulated
    test set, and writes a recommendation."""
    import json

    root, _ = volumes
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = tmp_path / "design"
    proc = subprocess.run([sys.executable, "-m", "experiments.design_study", "--quick", "--like", str(root),
                           "--twin", "generator",
                           "--layout", "raters", "--gold", ",".join(GOLD), "--labels", "1,2", "--encounters", "2,4",
                           "--annotators", "3", "--agreement", "0.8", "--replicates", "2", "--populations", "1",
                           "--pool", "40", "--orders", "10", "--bootstrap", "50", "--boundary", "hd95",
                           "--no-figures", "--quiet", "--n-jobs", "1", "--out", str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    fit = pd.read_csv(out / "fit.csv").set_index("statistic")
    assert fit.loc["slices per volume", "target"] == 8 and fit.loc["slices per volume", "fitted"] == 8
    assert fit.loc["images", "fitted"] == 8 and fit.loc["encounters", "fitted"] == 4
    # the lesion sizes are rescaled for volumes: the twin's median coverage lands near the challenge's
    cov = fit.loc["majority coverage (median)"]
    assert abs(np.log(cov.fitted / cov.target)) < np.log(1.5)
    # fewer, larger voxels: the simulated volumes keep the challenge's physical size (28 x 24 voxels of 0.7 x 0.8)
    meta = json.loads((out / "meta.json").read_text())
    base, mp = meta["input"]["base"], meta["simulation"]["megapixels"]
    z, y, x = base["spacing"]
    grow = np.sqrt(base["megapixels"] / mp)
    assert z == pytest.approx(3.0, rel=1e-6) and y * x * grow**2 * mp * 1e6 == pytest.approx(0.8 * 0.7 * 24 * 28,
                                                                                           rel=1e-5)
    summary = (out / "summary.md").read_text()
    assert f"simulated volumes of 8 slices of about {mp * 1e6:.0f} pixels each (voxels {x * grow:.3g} x " \
           f"{y * grow:.3g} x 3 mm, x y z)" in summary
    design = pd.read_csv(out / "design.csv")
    design = design[design.stage == "grid"]  # the size search ranks by Jaccard alone
    macro = design[(design.strategy == "majority") & (design.average == "macro")]
    micro = design[design.average == "micro"]
    assert macro.tau_jaccard_hd95.between(-1, 1).all() and micro.tau_jaccard_hd95.isna().all()
    assert "## Does the metric change the ranking? (simulated)" in summary and "| encounters | hd95 |" in summary
    assert (out / "recommendation.md").exists() and "Recommendation" in summary
