"""One module per published figure: ``make(results_dir, out_path)`` loads results, plots, saves PNG (PDF if asked).

Figure modules never recompute: they read the tables a study wrote and draw
them through :mod:`robustness.reporting.plotting` (and :mod:`robustness.reporting.rank_plots`).
A module's ``NEEDS`` names the tables it reads; :func:`make_all` draws it only
where the study wrote them (a per-case table study that could not run the
resampling engines has no curves, and its warnings say why). :func:`make_all` draws every figure
of a study's results folder in one call. Tables hold every ranking method's
rows (column ``ranking``); a figure of one method selects its rows with
:func:`for_ranking`, and a per-method figure is saved under :func:`method_path`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

#: The figures of each study, in the order they are drawn.
FIGURES = {
    "rank_convergence": ("fig_02_micro_convergence", "fig_03_macro_convergence", "fig_04_forest",
                         "fig_05_rank_blobs", "fig_06_kendall_tau", "fig_09_significance_map",
                         "fig_10_test_set_size", "fig_11_convergence_auc", "fig_12_ranking_agreement",
                         "fig_16_podium", "fig_17_ranking_heatmap", "fig_18_bootstrap_tau", "fig_19_ranking_methods",
                         "fig_20_dot_box", "fig_21_rank_frequency", "fig_22_rank_blobs_tasks",
                         "fig_24_critical_difference", "fig_25_performance_profile", "fig_30_bayes_signed_rank",
                         "fig_31_iqm_improvement", "fig_32_resolution"),
    "qa_rank_convergence": ("fig_07_qa_convergence", "fig_12_ranking_agreement"),
    "table_rank_convergence": ("fig_08_table_convergence", "fig_12_ranking_agreement", "fig_16_podium",
                               "fig_17_ranking_heatmap", "fig_18_bootstrap_tau", "fig_19_ranking_methods",
                               "fig_20_dot_box", "fig_21_rank_frequency", "fig_22_rank_blobs_tasks",
                               "fig_23_rank_blobs_across_tasks", "fig_24_critical_difference",
                               "fig_25_performance_profile", "fig_26_significance_map_tasks",
                               "fig_27_rank_stability_tasks", "fig_28_task_clusters",
                               "fig_29_bootstrap_tau_density", "fig_30_bayes_signed_rank", "fig_31_iqm_improvement"),
    "design_study": ("fig_13_design_tau", "fig_14_design_size", "fig_15_design_calibration"),
}


def rankings(table) -> list:
    """The ranking methods a table holds, in its order (a table without the column holds the aggregate only)."""
    return list(dict.fromkeys(table.ranking)) if "ranking" in table else ["aggregate"]


def for_ranking(table, ranking: str = "aggregate"):
    """The rows of one ranking method (and, in agreement tables, compared with the same method)."""
    if "ranking" not in table:
        return table
    if "other_ranking" in table:
        table = table[table.other_ranking == ranking]
    return table[table.ranking == ranking]


def method_title(ranking: str, summary, *, x_note: str = "") -> str:
    """A per-method figure's title: the method, its statistic, and which prefixes were recorded."""
    from robustness.statistics.ranking_methods import get_ranking

    method = get_ranking(ranking)
    n = sorted(set(summary.n))
    step = "every prefix" if len(n) < 2 or n[1] - n[0] == 1 else f"prefixes in steps of {n[1] - n[0]} units"
    return f"Ranking: {method.label} ({method.statistic}); {step}{x_note}"


def method_path(out_path, ranking: str) -> Path:
    """Where a per-method figure goes: ``out_path`` for the aggregate, ``out_path_<method>`` for the others."""
    out = Path(out_path)
    return out if ranking == "aggregate" else out.with_name(f"{out.name}_{ranking}")


#: The columns of the tables that hold the user's names (runs, tasks, cases, units), drawn as
#: :func:`robustness.results.escape.figure_text` gives them.
NAME_COLUMNS = ("run", "other", "other_run", "first_run", "last_run", "algorithm", "task", "other_task", "task_a",
                "task_b", "case", "encounter", "image", "rater", "annotator")


def read(results_dir, name: str):
    """A table of a results folder for a figure: its names as a figure draws them.

    :func:`robustness.results.study_result.read_table` reads it; every name of :data:`NAME_COLUMNS` is shortened
    to at most :data:`robustness.results.escape.FIGURE_NAME` characters (the start and end of a longer one around
    an ellipsis) with its direction controls shown as codes. A 300-character run name made an 11,458 x 12,085
    pixel figure (and a 3.9 GB PDF report); the tables and the report keep every name whole.

    Parameters
    ----------
    results_dir : path
    name : str

    Returns
    -------
    pandas.DataFrame
    """
    from robustness.results.escape import figure_text
    from robustness.results.study_result import read_table

    table = read_table(Path(results_dir) / name)
    for column in NAME_COLUMNS:
        if column in table and table[column].dtype.kind in "OUST":
            values = table[column].to_numpy(dtype=object)
            shown = {v: figure_text(v) for v in set(values.tolist()) if isinstance(v, str)}  # each name once
            table[column] = [shown[v] if isinstance(v, str) else v for v in values]
    return table


#: The formats a figure can be saved in (``ROBUSTNESS_FIGURE_FORMATS``, e.g. ``png,pdf``, chooses among them).
FORMATS = ("png", "pdf")

#: The formats every figure is saved in unless ``ROBUSTNESS_FIGURE_FORMATS`` says otherwise: the PNG alone. A PDF
#: copy is drawn a second time by another renderer and embeds its fonts (a third of the main job's figure time,
#: issue 53); it is written where asked (``ROBUSTNESS_FIGURE_FORMATS=png,pdf``).
DEFAULT_FORMATS = ("png",)


def formats() -> tuple[str, ...]:
    """The figure formats: :data:`DEFAULT_FORMATS`, or those ``ROBUSTNESS_FIGURE_FORMATS`` names (comma-separated).

    Returns
    -------
    tuple of str

    Raises
    ------
    ValueError
        The variable names no format, or one that is not in :data:`FORMATS` (the commands check it before any
        work).
    """
    text = os.environ.get("ROBUSTNESS_FIGURE_FORMATS")
    if text is None:
        return DEFAULT_FORMATS
    chosen = tuple(dict.fromkeys(v.strip().lower() for v in text.split(",") if v.strip()))
    if not chosen or any(v not in FORMATS for v in chosen):
        raise ValueError(f"ROBUSTNESS_FIGURE_FORMATS={text!r}: expected some of {', '.join(FORMATS)}, "
                         "comma-separated")
    return chosen


def dpi() -> float | None:
    """The PNG resolution: None (the house style's 300 dpi), or ``ROBUSTNESS_FIGURE_DPI`` (a number from 10 to 1200).

    The test suite draws its figures at 50 dpi (``tests/conftest.py``): every figure is still drawn, laid out and
    encoded, at a fraction of the cost of rasterising it at 300.

    Returns
    -------
    float or None

    Raises
    ------
    ValueError
        The variable is not such a number (the commands check it before any work).
    """
    text = os.environ.get("ROBUSTNESS_FIGURE_DPI")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 10 <= value <= 1200:
        raise ValueError(f"ROBUSTNESS_FIGURE_DPI={text!r}: expected a resolution from 10 to 1200 dots per inch")
    return value


def save(fig, out_path) -> list[Path]:
    """Save ``fig`` as ``out_path`` in every format of :func:`formats` (default .png); close it.

    The PNG is drawn once: the figure is rendered (its layout included) at the PNG's resolution, and the picture
    is cut to the tight box around everything drawn (the house style's ``savefig.bbox: tight`` and padding),
    where ``savefig`` would draw it twice, once to measure that box and once more to save. Where the box reaches
    past the figure's edge (a label drawn outside it), cutting would clip it: that figure is saved by
    ``savefig``, whose tight box grows the picture instead. A PDF copy, where asked, is drawn by ``savefig``.
    """
    import matplotlib.pyplot as plt

    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    resolution = dpi()
    options = {} if resolution is None else {"dpi": resolution}  # none: the house style's savefig.dpi
    for suffix in (f".{f}" for f in formats()):
        p = out.with_suffix(suffix)
        if suffix != ".png" or not _png_drawn_once(fig, p, resolution):
            fig.savefig(p, **options)
        paths.append(p)
    plt.close(fig)
    return paths


def _png_drawn_once(fig, path: Path, resolution: float | None) -> bool:
    """Render ``fig`` once and write its tight box as a PNG (:func:`save`); False (nothing written) if it cannot.

    The box is that of the pixels drawn (every pixel that is not the figure's background), padded by the style's
    ``savefig.pad_inches``. It cannot where the figure's canvas is not Agg's, the style asks for no tight box or
    for a background other than the figure's, or the drawing reaches the figure's edge (a label past it: cutting
    would clip it, where savefig's tight box grows the picture).
    """
    import matplotlib as mpl
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgba
    from matplotlib.image import imsave

    rc = mpl.rcParams
    plain = (isinstance(fig.canvas, FigureCanvasAgg) and rc["savefig.bbox"] == "tight" and not rc["savefig.transparent"]
             and str(rc["savefig.facecolor"]) == "auto" and str(rc["savefig.edgecolor"]) == "auto")
    pad = rc["savefig.pad_inches"]
    if not plain or not isinstance(pad, (int, float)):
        return False
    dots = float(fig.dpi if rc["savefig.dpi"] == "figure" else rc["savefig.dpi"]) if resolution is None else resolution
    fig.set_dpi(dots)
    fig.canvas.draw()  # the layout engine runs here, at the PNG's resolution, as in savefig
    picture = np.asarray(fig.canvas.buffer_rgba())  # (rows from the top, columns, RGBA)
    background = np.round(np.asarray(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    ink = (picture != background).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if (rows.size == 0 or rows[0] == 0 or cols[0] == 0 or rows[-1] == ink.shape[0] - 1
            or cols[-1] == ink.shape[1] - 1):
        return False  # nothing drawn, or a drawing cut by the figure's edge: savefig's tight box grows the picture
    margin = int(round(pad * dots))
    top, left = max(rows[0] - margin, 0), max(cols[0] - margin, 0)
    imsave(path, picture[top:rows[-1] + 1 + margin, left:cols[-1] + 1 + margin], format="png", dpi=dots)
    return True


#: The study's metadata while :func:`make_all` draws its figures (meta.json is written after them).
_DRAWING: list = []


def meta(results_dir) -> dict | None:
    """A results folder's meta.json (None where there is none; a symlink is not followed).

    While a study draws its figures (before its meta.json is written) the study's own metadata, as :func:`make_all`
    was given it: a figure that says the tie rule or the distances' unit says the study's, not a default.
    """
    path = Path(results_dir) / "meta.json"
    if _DRAWING and _DRAWING[-1][0] == Path(results_dir) and not os.path.lexists(path):
        return _DRAWING[-1][1]
    if not path.is_file() or path.is_symlink():
        return None
    from robustness.results.transaction import read_meta

    return read_meta(path)


def distance_unit(results_dir) -> str | None:
    """The unit of the images' distances: ``mm`` where they had a spacing, ``pixels`` for plain images, None unknown.

    The main job records ``distance_unit`` in meta.json's input where its images carry a voxel spacing (medical
    images, the synthetic volumes); its other images are measured in pixels. A per-case table's values have the
    units its authors used: None.
    """
    found = meta(results_dir) or {}
    unit = (found.get("input") or {}).get("distance_unit")
    if unit is not None:
        return str(unit)
    return "pixels" if found.get("study") == "rank_convergence" else None


def task_unit(results_dir, task: str) -> str:
    """The unit of a leaderboard's scores (``mm`` for the main job's ``majority / hd95`` on volumes), or ``""``.

    Parameters
    ----------
    results_dir : path
    task : str
        A leaderboard's name (the main job's ``<gold> / <metric>``).

    Returns
    -------
    str
    """
    from robustness.scheme import metric_unit

    return metric_unit(str(task).rsplit(" / ", 1)[-1], distance_unit(results_dir))


def value_label(results_dir, task: str, base: str = "score") -> str:
    """A per-case score axis's label: ``score``, or ``hd95 (mm)`` where the task's metric has a unit.

    Parameters
    ----------
    results_dir : path
    task : str
        A leaderboard's name (the main job's ``<gold> / <metric>``).
    base : str

    Returns
    -------
    str
    """
    unit = task_unit(results_dir, task)
    return f"{str(task).rsplit(' / ', 1)[-1]} ({unit})" if unit else base


def unit_word(results_dir, unit: str) -> str:
    """A resampling unit in the data's words: ``image`` where each encounter of images.csv holds one image."""
    path = Path(results_dir) / "images.csv"
    if unit != "encounter" or not path.is_file() or path.is_symlink():
        return unit
    from robustness.results.study_result import read_table

    images = read_table(path)  # the names as written: two long names shortened alike are still two
    return "image" if "encounter" in images and images.encounter.is_unique else unit


def headline(results_dir, primary=None, strategies=()):
    """The headline scheme a figure shows (:class:`robustness.scheme.Scheme`).

    ``primary`` when given (the study's own, passed by :func:`make_all`), else the one the folder's meta.json
    records (a rebuilt figure), else the default scheme of ``strategies`` (the golds in the figure's table).
    """
    from robustness.scheme import default_scheme, from_meta

    if primary is not None:
        return primary
    found = meta(results_dir)
    if found is not None:
        return from_meta(found)
    return default_scheme(list(dict.fromkeys(strategies)))


def base_rows(results_dir, table):
    """Rows of ``table`` at the base setting the design study reported (its ``design_base.json``), and that setting."""
    import json

    from robustness.files import MAX_META_BYTES, read_inside
    from robustness.simulation.recommendation import at_base

    base = json.loads(read_inside(results_dir, "design_base.json", limit=MAX_META_BYTES, what="design base"))
    return at_base(table, base), base


def _has_rows(path: Path) -> bool:
    """Whether a table a figure needs was written and holds a row (a CSV of its header alone has none)."""
    if not path.exists():
        return False
    if path.suffix != ".csv" or path.is_symlink() or not path.is_file():
        return True  # parquet and the rest: their figure reads them
    with path.open("rb") as f:
        return len(f.read(1 << 16).splitlines()) > 1 or f.read(1) != b""


def make_all(results_dir, *, study: str = "rank_convergence", primary=None, meta: dict | None = None,
             n_jobs: int = 1) -> list[Path]:
    """Every figure of a study's results folder, into ``results_dir/figures``; returns the files.

    ``primary``: the study's headline scheme (:class:`robustness.scheme.Scheme`), for the figures that show it
    (those whose ``make`` takes ``primary``); ``meta``: the study's metadata, which the figures read where the
    folder has no meta.json yet (:func:`meta`; a study draws its figures before it writes meta.json); ``n_jobs``:
    processes drawing figures side by side (:func:`robustness.parallel.run_batches`; each figure is drawn by one
    of them, whole, so the files are those of one process).
    """
    from robustness.parallel import run_batches
    from robustness.progress import stage

    if study not in FIGURES:
        raise ValueError(f"study must be one of {', '.join(FIGURES)}; got {study!r}")
    results_dir = Path(results_dir)
    todo = [name for name in FIGURES[study] if _needed(results_dir, name)]
    order = drawing_order(todo)
    batches = ((results_dir, name, primary, meta) for name in order)
    drawing = run_batches(_draw, batches, n_jobs=n_jobs, prefer="processes", fresh=True)  # forked now: they
    done = {}  # know every registration made since start-up
    for k, (name, result) in enumerate(zip(order, drawing)):
        stage(f"drawing the figures: {k + 1}/{len(todo)} figures ({name})", printed=False)
        done[name] = result
    paths: list[Path] = []
    for name in todo:  # files and notes in the study's order, whatever order they were drawn in
        drawn, said = done[name]
        paths += drawn
        _notes(name, said)
    return paths


#: The figures slowest to draw (0.6 to 1.5 s each on the default challenge, measured one by one), drawn first when
#: processes share the figures, so that no core is left alone with a slow one at the end.
SLOW_FIRST = ("fig_16_podium", "fig_20_dot_box", "fig_09_significance_map", "fig_24_critical_difference",
              "fig_02_micro_convergence", "fig_17_ranking_heatmap")


def drawing_order(names: list[str]) -> list[str]:
    """The order to draw ``names`` in: one other figure first, then :data:`SLOW_FIRST`, then the rest.

    The first figure is drawn before the worker processes are forked (:func:`robustness.parallel.run_batches`),
    so that they start with matplotlib loaded: a figure not among the slow ones, while the other core waits.

    Examples
    --------
    >>> drawing_order(["fig_02_micro_convergence", "fig_03_macro_convergence", "fig_16_podium"])
    ['fig_03_macro_convergence', 'fig_16_podium', 'fig_02_micro_convergence']
    """
    slow = [n for n in SLOW_FIRST if n in names]
    rest = [n for n in names if n not in slow]
    return rest[:1] + slow + rest[1:]


def _needed(results_dir: Path, name: str) -> bool:
    """Whether figure ``name`` has the tables it needs in ``results_dir`` (its module's ``NEEDS``)."""
    import importlib

    module = importlib.import_module(f"figures.{name}")
    return all(_has_rows(results_dir / need) for need in getattr(module, "NEEDS", ()))


def _draw(results_dir: Path, name: str, primary, meta: dict | None) -> tuple[list[Path], list[str]]:
    """Draw figure ``name`` (in this process or a worker): its files and matplotlib's warnings, as text."""
    import importlib
    import inspect
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    module = importlib.import_module(f"figures.{name}")
    extra = {"primary": primary} if "primary" in inspect.signature(module.make).parameters else {}
    _DRAWING.append((results_dir, meta))
    try:
        with warnings.catch_warnings(record=True) as caught:  # matplotlib's warnings become one-line notes
            warnings.simplefilter("always")
            paths = module.make(results_dir, results_dir / "figures" / name, **extra)
    finally:
        _DRAWING.pop()
    return paths, list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))


def _notes(name: str, said: list[str]) -> None:
    """Warn, once each, what drawing figure ``name`` warned (as notes of the study)."""
    import warnings

    from robustness.errors import NoteWarning, shown

    for text in said:
        warnings.warn(f"figure {name}: {shown(text, 300)}", NoteWarning, stacklevel=3)
