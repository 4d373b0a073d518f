"""Shared fixtures: the real data folder (skipped with a reason where absent) and small challenges."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import time
import types
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]

# Comparisons with outside libraries that cannot be installed beside the package (each script says how to run it).
collect_ignore_glob = ["outside/*"]

# The suite draws every figure as PNG only: the PDFs' font embedding doubles a figure's cost, and the two tests
# that check the PDFs ask for them (ROBUSTNESS_FIGURE_FORMATS=png,pdf; the commands write PNG only unless asked).
os.environ.setdefault("ROBUSTNESS_FIGURE_FORMATS", "png")
# ... at 50 dpi (figures.dpi): every figure is drawn, laid out and encoded, without rasterising it at 300 dpi (a
# third of a small main job's time); tests/test_figures.py draws one at the default resolution.
os.environ.setdefault("ROBUSTNESS_FIGURE_DPI", "50")

# Property tests draw the same examples on every run (a red CI must be reproducible, not a draw of the day):
# HYPOTHESIS_PROFILE=explore draws new ones, to look for cases the fixed draws miss (docs/development.md).
from hypothesis import settings as _hypothesis  # noqa: E402

_hypothesis.register_profile("fixed", derandomize=True)
_hypothesis.register_profile("explore", derandomize=False)
_hypothesis.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


@contextlib.contextmanager
def statsmodels_multipletests():
    """statsmodels' ``multipletests``, without the full garbage collection its Holm branch runs on every call.

    Its ``import gc; gc.collect()`` costs about 0.1 s a call in the suite's process (its many objects), 2.3 CPU-s
    over 20 calls in one test, and changes no number: inside the block ``gc.collect`` does nothing (call only
    statsmodels there). Yields the function.
    """
    import gc

    from statsmodels.stats.multitest import multipletests

    collect = gc.collect
    gc.collect = types.SimpleNamespace(collect=lambda *args: 0).collect
    try:
        yield multipletests
    finally:
        gc.collect = collect


def shared_data() -> Path:
    """../shared/data, or $ROBUSTNESS_SHARED_DATA."""
    env = os.environ.get("ROBUSTNESS_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def bubil() -> Path:
    path = shared_data() / "bu-bil" / "dataset1"
    if not path.is_dir():
        pytest.skip(f"real BU-BIL data not found at {path} (set ROBUSTNESS_SHARED_DATA)")
    return path


@pytest.fixture(scope="session")
def dermavqa() -> Path:
    path = shared_data() / "dermavqa"
    if not path.is_dir():
        pytest.skip(f"real DermaVQA-DAS files not found at {path} (set ROBUSTNESS_SHARED_DATA)")
    return path


def tree_digest(folder: Path) -> str:
    """Hash of every file's name, bytes and mtime under a folder (to prove we never write to inputs)."""
    h = hashlib.sha256()
    for p in sorted(Path(folder).rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file():
            h.update(p.read_bytes())
            h.update(str(p.stat().st_mtime_ns).encode())
    return h.hexdigest()


def write_tiff(path: Path, array) -> Path:
    import tifffile

    path.parent.mkdir(parents=True, exist_ok=True)
    tifffile.imwrite(path, np.asarray(array))
    return path


def write_png(path: Path, array) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.asarray(array)).save(path)
    return path


@pytest.fixture
def tiny_dermavqa(tmp_path) -> Path:
    """A 3-image challenge in the official layout: 3 or 4 annotators, 2 runs, 0/1 uint8 TIFFs."""
    rng = np.random.default_rng(7)
    root = tmp_path / "challenge"
    images = ["IMG_ENC00001_00001", "IMG_ENC00001_00002", "IMG_ENC00002_00001"]
    shapes = [(5, 6), (4, 4), (7, 3)]
    annotators = [("ann0", "ann1", "ann2"), ("ann0", "ann1", "ann2", "ann3"), ("ann1", "ann2", "ann3")]
    for im, shape, anns in zip(images, shapes, annotators):
        for a in anns:
            write_tiff(root / "reference" / f"{im}_mask_{a}.tiff", (rng.random(shape) < 0.5).astype(np.uint8))
        for run in ("runA", "runB"):
            write_tiff(root / "submissions" / run / f"{im}_mask_{run}.tiff",
                       (rng.random(shape) < 0.4).astype(np.uint8))
    return root


def as_a_terminal_job() -> None:
    """Child set-up (``preexec_fn``): a new process group, and Ctrl-C handled as in a terminal's foreground job.

    A shell that starts a job in the background (``make test &``, a CI runner) has it ignore SIGINT, and the
    child would inherit that: Python then installs no KeyboardInterrupt handler at all.
    """
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_workers(proc, timeout: float = 120.0) -> None:
    """Wait until the process ``proc`` has a child (the workers it forked), it has ended, or ``timeout`` s passed."""
    children = f"/proc/{proc.pid}/task/{proc.pid}/children"
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        with open(children) as f:
            if f.read().split():
                return
        time.sleep(0.05)


#: The shared main job's resampling options (:func:`tiny_main`), as the Python API takes them
#: (``RankConvergenceOptions``) and, below, as the command line does; a test running the job again passes the same.
TINY_MAIN_OPTIONS = {"orders": 8, "bootstrap": 30, "outer": 4, "seed": 3}
TINY_MAIN_ARGS = [*(w for k, v in TINY_MAIN_OPTIONS.items() for w in (f"--{k}", str(v))), "--quiet"]


@pytest.fixture(scope="session")
def tiny_main(tmp_path_factory) -> tuple[Path, Path]:
    """The main job, figures included, on a 6-encounter challenge of 5 runs in 2 teams: (its data, its results).

    One run for the session, shared by the tests that read a whole results folder (tables, summary, report,
    figures). They only read it: a test that runs the job again into a folder copies it first
    (``shutil.copytree``), so the next test finds the folder as this run wrote it.
    """
    from experiments import rank_convergence as job
    from robustness.io import write_dermavqa
    from robustness.synthetic.challenge import make_challenge

    root = tmp_path_factory.mktemp("tiny_main")
    data = write_dermavqa(make_challenge(n_encounters=6, n_images=12, n_runs=5, n_teams=2, rng=5), root / "challenge")
    out = root / "out"
    assert job.main(["--data", str(data), "--out", str(out), *TINY_MAIN_ARGS]) == 0  # PNG only (above)
    return data, out


@contextlib.contextmanager
def only_figures(study: str, *names: str):
    """Within the block, ``study`` draws only ``names`` of its figures (the ones the test reads), in its own order.

    Each figure costs 0.4 to 1.3 CPU-s even at the suite's 50 dpi, and most tests that run a study read one or two
    of them; the whole set is drawn by the runs that check it (:func:`tiny_main`, the table study's hostile-name
    and three-task tests). A name the study does not draw fails here, so a renamed figure is not silently skipped.
    The registry is patched before any worker is forked, so processes drawing figures see the same list.
    """
    import figures

    unknown = set(names) - set(figures.FIGURES[study])
    assert not unknown, f"{study} draws no figure {sorted(unknown)}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(figures.FIGURES, study, tuple(n for n in figures.FIGURES[study] if n in names))
        yield


#: The figures that draw each ranking method (a file per method, or the methods side by side): the studies with
#: several ranking methods draw these (tests/statistics/test_ranking_methods.py, tests/test_architecture.py);
#: tiny_main and the three-task table test draw every figure.
METHOD_FIGURES = {
    "rank_convergence": ("fig_02_micro_convergence", "fig_03_macro_convergence", "fig_04_forest", "fig_05_rank_blobs",
                         "fig_06_kendall_tau", "fig_11_convergence_auc", "fig_12_ranking_agreement",
                         "fig_19_ranking_methods"),
    "table_rank_convergence": ("fig_08_table_convergence", "fig_12_ranking_agreement", "fig_19_ranking_methods",
                               "fig_29_bootstrap_tau_density"),
}


def spread_challenge():
    """Two 4x4 images, three annotators, one run (the hand-made Table 4 case).

    i1: two annotators draw the 2x2 lesion, one a 3x3 square, the run one pixel; i2: everyone draws the
    lesion. STAPLE of i1 is the 2x2 lesion, so the annotators' Jaccard with it is [1, 1, 4/9] and the
    run's 1/4; i2 has no annotator spread.
    """
    from robustness.io.arrays import from_arrays

    z = np.zeros((4, 4), int)
    lesion = z.copy()
    lesion[1:3, 1:3] = 1
    big = z.copy()
    big[0:3, 0:3] = 1
    small = z.copy()
    small[1, 1] = 1
    ann = {"i1": {"ann0": lesion, "ann1": lesion, "ann2": big}, "i2": {"ann0": lesion, "ann1": lesion, "ann2": lesion}}
    return from_arrays(ann, {"r": {"i1": small, "i2": lesion}})
