"""The hand-off between a study and everything that shows its results: tables, verdicts and metadata in a folder.

A study (:mod:`robustness.studies`) returns a :class:`StudyResult`: its tables by
registered name (:data:`TABLES`), a verdicts table with one row per claim a report
makes (:data:`VERDICT_COLUMNS`; every finding a report states is read from a row,
which names the table that backs it) and its metadata (options, input, warnings).
:meth:`StudyResult.save` writes them into a results folder;
:meth:`StudyResult.load` reads a folder back, and figures (``figures/``) and
report sections (:mod:`robustness.reporting.sections`) read nothing else, so a
report can be rebuilt without recomputing (``python -m experiments.report``).

Tables are read back exactly as they were written: floats are written in their
shortest round-tripping form, which pandas' parser reads back to the same float
(tested on random floats over 600 decades), and text columns stay text (a run
named ``1`` or ``NA`` is not a number or a missing value).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robustness._lazy import lazy_module
from robustness.errors import InputError, shown
from robustness.files import MAX_TABLE_BYTES, read_inside
from robustness.results.claims import ClaimName, known_claim
from robustness.results.escape import csv_unquote
from robustness.results.folder import open_results
from robustness.results.verdicts import VERDICT_COLUMNS, Verdicts

if TYPE_CHECKING:

    import pandas as pd
    import pyarrow.parquet as pq

    from robustness.results.folder import ResultsDir
else:
    pd = lazy_module("pandas")
    pq = lazy_module("pyarrow.parquet")

__all__ = ["TableSpec", "TABLES", "register_table", "StudyResult", "Verdicts", "VERDICT_COLUMNS", "read_table",
           "VERDICTS"]

VERDICTS = "verdicts.csv"


@dataclass(frozen=True)
class TableSpec:
    """A table a study may write.

    Attributes
    ----------
    name : str
        Its file name in the results folder (``.csv`` or ``.parquet``).
    holds : str
        What it holds, one line (the report's list of files).
    index : bool
        Written with its index as the first column (the wide leaderboard: one row per run).
    """

    name: str
    holds: str
    index: bool = False


#: Every table a study may write, by file name: one registration per table.
TABLES: dict[str, TableSpec] = {}


def register_table(name: str, holds: str, *, index: bool = False) -> TableSpec:
    """Register (or replace) a table; returns its :class:`TableSpec`.

    Parameters
    ----------
    name : str
        File name in the results folder, ending in ``.csv`` or ``.parquet``.
    holds : str
        What it holds, for the report's list of files.
    index : bool
        Write the frame's index as its first column.

    Returns
    -------
    TableSpec
    """
    if not name.endswith((".csv", ".parquet")):
        raise ValueError(f"a table is a .csv or .parquet file, got {name!r}")
    TABLES[name] = TableSpec(name, holds, index)
    return TABLES[name]


for _name, _holds, _index in (
    ("leaderboard.csv", "one row per run, a column per strategy_metric_average", True),
    ("scores.csv", "every score and rank, tidy", False),
    ("orders.csv", "the random orders of units", False),
    ("curves.parquet", "L1 of every order at every prefix", False),
    ("curves_summary.csv", "mean L1 and the 90% band of orders per prefix", False),
    ("convergence.csv", "convergence points with intervals over orders; AUC with its Monte Carlo interval", False),
    ("strategy_comparison.csv", "paired AUC differences between strategies (intervals over orders and over "
     "resampled test sets)", False),
    ("bootstrap_ci.csv", "every score with studentized (reported), percentile and BCa 95% intervals", False),
    ("rank_distribution.csv", "share of resamples in which each run takes each rank", False),
    ("stability.csv", "Kendall's tau between the full-set ranking and the resamples'", False),
    ("pairwise.parquet", "the significance analysis: every pair of runs, delta-method t-test, bootstrap and "
     "Wilcoxon, Holm", False),
    ("ranking_uncertainty.csv", "expected L1 to the ranking on unlimited data, by test-set size, with intervals",
     False),
    ("rank_keep.csv", "per run: posterior probability of being the population's best; plug-in stability of its rank",
     False),
    ("test_set_size.csv", "units needed for an expected L1 within the size target (meta.json's target; estimate and "
                          "interval)", False),
    ("resolution.csv", "the smallest true difference between two runs a test set of n units declares with 80% power "
                       "(paired t-test, 5%), by scheme and size, with intervals", False),
    ("main_job_resolution.csv", "the main job's resolution on the real challenge, beside the design study's twin's",
     False),
    ("resolve.csv", "the units at which a given true difference is declared with 80% power, by scheme", False),
    ("kendall_tau.csv", "agreement between the rankings under different golds and ranking methods, with bootstrap "
                        "intervals", False),
    ("gold_spread.csv", "Table 4: standard deviations from the annotators' spread, all variants", False),
    ("images.csv", "per image: annotators, pixels, STAPLE diagnostics", False),
    ("metric_leaderboard.csv", "the headline gold's leaderboard under every per-image metric (overlap and boundary, "
                               "each in its direction) with bootstrap intervals of values and ranks", False),
    ("metric_agreement.csv", "Kendall's tau between the rankings under every pair of metrics, with bootstrap "
                             "intervals", False),
    ("metric_convergence.csv", "each per-image metric's convergence points under the headline gold (units until L1 "
                               "stays within the tolerance), per ranking method", False),
    ("label_scores.csv", "multi-label input: every gold's Jaccard scores on each label's images alone, per ranking "
                         "method, with bootstrap intervals", False),
    ("label_convergence.csv", "multi-label input: each label's convergence points (units until L1 stays within the "
                              "tolerance)", False),
    ("label_leaderboard.csv", "multi-label input: the headline gold's leaderboard on each label under every per-image "
                              "metric, with bootstrap intervals of values and ranks", False),
    ("label_agreement.csv", "multi-label input: Kendall's tau between every two labels' rankings, with bootstrap "
                            "intervals", False),
    ("per_case.parquet", "per-case scores (challengeR long format)", False),
    ("truth.csv", "synthetic data: agreement of each scheme with the ranking against the latent truth", False),
    ("answer_counts.csv", "Table 5 with bootstrap intervals", False),
    ("agreement.csv", "Kendall's tau between the schemes' and ranking methods' rankings, with bootstrap intervals",
     False),
    ("design.csv", "the design study: one row per setting, replicate and scheme", False),
    ("design_summary.csv", "the design study: means over replicates with 95% intervals", False),
    ("coverage.csv", "bootstrap interval coverage per setting, replicate, unit and method", False),
    ("coverage_summary.csv", "bootstrap interval coverage: means over replicates with 95% intervals", False),
    ("fit.csv", "the real challenge's statistics beside its fitted synthetic twin's", False),
    ("main_job_answer.csv", "the main job's own test-set size answer on the real challenge (its estimator on the "
                            "challenge's units), beside the design study's", False),
    ("recommendation_sizes.csv", "test-set sizes needed per scheme for the targets", False),
    ("sizes_by_agreement.csv", "the design study at its base setting: per scheme and annotator agreement, the test-set "
                               "size at which the mean L1 falls to the target, with its 95% interval", False),
    ("recommendation_populations.csv", "the recommended scheme's test-set size needed per run population", False),
    ("recommendation_random.csv", "the random single-annotator golds as one scheme: L1 to the population ranking "
                                  "and the spread of the draws", False),
    ("calibration.csv", "the calibration study: every estimator's bias, coverage or error rate against the truth",
     False),
    ("calibration_truth.csv", "the calibration study: each population's true expected L1 by test-set size", False),
    ("calibration_distances.csv", "the calibration study: every test set's distance estimate beside its truth",
     False),
    ("calibration_claims.csv", "the calibration study: every test set's size claim under each rule, scored against "
                               "the truth", False),
    ("calibration_design.csv", "the calibration study's check of the design study: each run population it never "
                               "drew, its expected L1 at every size measured and its own need", False),
    ("ranking.csv", "every task's leaderboard under every ranking method: value and rank of each run", False),
    ("consensus.csv", "the consensus ranking across the tasks of each strategy and metric, under every ranking "
                      "method", False),
    ("significance.csv", "per leaderboard and ordered pair of runs: the test-based ranking's one-sided paired test, "
                         "its adjusted p-value and whether the run is significantly better (the significance map)",
     False),
    ("task_distances.csv", "per consensus and ranking method, every pair of tasks: the symmetric-difference distance "
                           "and Kendall's tau between their rankings (the dendrogram and network of tasks)", False),
    ("bayes_signed_rank.csv", "per leaderboard: the Bayesian signed-rank test with a rope between each run and the "
                              "next one down (probabilities better, equivalent, worse; the decision)", False),
    ("top.csv", "per leaderboard and ranking method: the runs in the first K places, K the option top (more where "
                "runs tie at the cut)", False),
    ("iqm.csv", "per leaderboard and run: the interquartile mean over its cases with a 95% bootstrap interval",
     False),
    ("improvement.csv", "per leaderboard: the probability that each run beats the next one down on a case, with a "
                        "95% bootstrap interval", False),
    ("performance_profile.csv", "per leaderboard, run and threshold: the share of the run's cases better than the "
                                "threshold, with a 95% bootstrap band", False),
    ("friedman.csv", "per leaderboard: Friedman's test over the cases every run has and Nemenyi's critical "
                     "difference of mean ranks", False),
    ("nemenyi.csv", "per leaderboard and pair of runs: mean ranks, their difference and Nemenyi's p-value", False),
    ("cd_groups.csv", "per leaderboard: the critical-difference diagram's bars, each joining the runs (by mean "
                      "rank) whose mean ranks lie within Nemenyi's critical difference of each other", False),
    ("case_ranks.csv", "per task and run: on how many cases the run takes each rank (per-case ranking)", False),
    ("podium.parquet", "per task, case and run: the score and its per-case rank, ties broken at random (challengeR's "
                       "podium)", False),
    ("rank_bootstrap.csv", "per task, method and run: bootstrap median rank and 95% rank interval", False),
    ("rank_frequency.csv", "per task, method and run: share of bootstrap resamples at each rank", False),
    ("rank_bootstrap_tau.csv", "per task and method: Kendall's tau between the ranking and each resample's",
     False),
    (VERDICTS, "one row per finding the report states, with its value, interval and the table behind it", False),
):
    register_table(_name, _holds, index=_index)

#: Columns that hold names, whatever they look like (a run called ``1`` or ``NA`` stays that text).
_TEXT = {"run", "system", "other", "next", "task", "absent", "first_run", "last_run",
         "strategy", "other_strategy", "strategy_a", "strategy_b", "metric",
         "average", "ranking", "other_ranking", "unit", "statistic", "method", "image", "encounter", "case",
         "algorithm", "claim", "statement", "subject", "table", "consensus", "variant", "statistic_name", "scheme"}


#: Columns renamed since earlier versions wrote them: a folder they wrote reads with today's names.
RENAMED_COLUMNS = {"system": "run"}

#: The most columns a table of a results folder may have: the widest a study writes is the leaderboard (a column per
#: gold, metric and averaging: tens); a planted header of 300,000 columns took 76 s and 1.1 GB to refuse.
MAX_TABLE_COLUMNS = 4096


def _check_columns(path: Path, n: int) -> None:
    if n > MAX_TABLE_COLUMNS:
        raise InputError(f"{path}: damaged table ({n} columns, more than the {MAX_TABLE_COLUMNS} a study writes)")


def read_table(path: Path | str, *, index: bool = False, data: bytes | None = None) -> pd.DataFrame:
    """A table of a results folder, exactly as it was written (see the module notes).

    Parameters
    ----------
    path : path
        A ``.csv`` or ``.parquet`` file.
    index : bool
        The first CSV column is the index.
    data : bytes, optional
        The file's bytes, already read (:func:`robustness.files.read_inside`); ``path`` then only names it.

    Returns
    -------
    pandas.DataFrame
    """
    path = Path(path)
    source = (lambda: io.BytesIO(data)) if data is not None else (lambda: path)
    if path.suffix == ".parquet":
        if data is not None:
            _check_columns(path, pq.ParquetFile(source()).metadata.num_columns)
        return _current_names(pd.read_parquet(source()))
    if data is not None:
        _check_columns(path, data[:data.find(b"\n") if b"\n" in data else len(data)].count(b",") + 1)
    header = pd.read_csv(source(), nrows=0).columns
    frame = pd.read_csv(source(), dtype={c: str for c in header if c in _TEXT}, keep_default_na=False, na_values=[""],
                        index_col=0 if index else None)
    if index:
        frame.index = frame.index.astype(str)
    return _current_names(csv_unquote(frame))


def _current_names(frame: pd.DataFrame) -> pd.DataFrame:
    """A table with today's column names (:data:`RENAMED_COLUMNS`), also as the index's name."""
    old = {a: b for a, b in RENAMED_COLUMNS.items() if a in frame.columns and b not in frame.columns}
    if old:
        frame = frame.rename(columns=old)
    if frame.index.name in RENAMED_COLUMNS and RENAMED_COLUMNS[frame.index.name] not in frame.columns:
        frame.index.name = RENAMED_COLUMNS[frame.index.name]
    return frame


class _Tables(Mapping):
    """The tables of a results folder, each read on first use."""

    def __init__(self, folder: Path, names: Iterable[str]):
        self.folder = folder
        self.names = [n for n in names if n.endswith((".csv", ".parquet"))]
        self.cache: dict[str, Any] = {}

    def __getitem__(self, name: str):
        if name not in self.names:
            raise KeyError(f"{self.folder}: the results hold no table {name!r}")
        if name not in self.cache:
            spec = TABLES.get(Path(name).name)
            data = read_inside(self.folder, name, limit=MAX_TABLE_BYTES, what="table")
            try:
                self.cache[name] = read_table(self.folder / name, index=bool(spec and spec.index), data=data)
            except Exception as exc:  # any parser's error means the same: not the table the package wrote
                raise InputError(f"{self.folder / name}: damaged table ({type(exc).__name__}: "
                                 f"{shown((str(exc).splitlines() or [''])[0], 200)})") from None
        return self.cache[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def _equal(value, wanted) -> bool:
    """``value == wanted`` as a pandas column compares with a scalar: a missing value (None, nan, NA) equals nothing."""
    if value is None or wanted is None or value is pd.NA or wanted is pd.NA:
        return False
    try:
        return bool(value == wanted)
    except (TypeError, ValueError):
        return False


@dataclass
class StudyResult:
    """A study's results: tables by name, the verdicts, the metadata (see the module notes).

    Attributes
    ----------
    study : str
        Which study (``rank_convergence``, ``table_rank_convergence``, ``qa_rank_convergence``, ``design_study``,
        ``score``, ``qa_score``): it selects the figures and the report sections.
    tables : mapping
        File name -> a DataFrame, or a callable returning an iterable of DataFrames of the same columns (a table
        written as it comes, e.g. ``curves.parquet``: bounded memory).
    verdicts : pandas.DataFrame
        One row per claim (:data:`VERDICT_COLUMNS`). :meth:`verdict` reads it once: to change the verdicts, assign
        a new table (an edit in place is not seen).
    meta : dict
        What the study knows about itself: ``options`` (its options as a dict), ``input`` (what it read),
        ``warnings`` (what the loaders skipped, repaired or guessed, and the checks' findings) and
        study-specific entries. Saved as ``meta.json`` with the command line's entries.
    files : dict
        Other files (relative name -> text), e.g. the official scorer's JSON per run.
    folder : Path or None
        Where it was loaded from.
    """

    study: str
    tables: Mapping = field(default_factory=dict)
    verdicts: Any = None
    meta: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    folder: Path | None = None

    @property
    def options(self) -> dict:
        """The study's options (as saved)."""
        return self.meta.get("options", {})

    @property
    def warnings(self) -> list:
        """What the loaders and checks noted, one line each."""
        return list(self.meta.get("warnings", []))

    def table(self, name: str) -> pd.DataFrame:
        """Table ``name`` (a streamed table is read back from the folder).

        Parameters
        ----------
        name : str
            Its file name.

        Returns
        -------
        pandas.DataFrame
        """
        value = self.tables[name]
        if callable(value):
            if self.folder is None:
                raise ValueError(f"{name} is written as it is computed; read it from the saved folder")
            return read_table(self.folder / name)
        return value

    def has(self, name: str) -> bool:
        """Whether the study wrote table ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        bool
        """
        return name in self.tables

    def verdict(self, claim: ClaimName, **where: Any) -> list[dict]:
        """The verdict rows of ``claim`` whose columns equal ``where`` (``subject`` decoded to a list).

        Parameters
        ----------
        claim : str
        **where
            Column values to match, e.g. ``average="micro"``.

        Returns
        -------
        list of dict
        """
        name = known_claim(claim)
        v = self.verdicts
        missing = [column for column in where if column not in v.columns]
        if missing:
            raise KeyError(missing[0])
        read = self.__dict__.get("_by_claim")  # not a field: not compared, not in asdict()
        if read is None or read[0] is not v or read[1] != v.shape:
            groups: dict[str, list[dict]] = {}
            for record in v.to_dict("records"):
                groups.setdefault(record["claim"], []).append(record)
            read = self.__dict__["_by_claim"] = (v, v.shape, groups)  # read once: a report asks hundreds of questions
        out = []
        for record in read[2].get(name, ()):
            if not all(_equal(record[column], value) for column, value in where.items()):
                continue
            row = dict(record)
            row["subject"] = json.loads(row["subject"])
            for key in ("count", "total"):
                row[key] = None if row[key] is None or (isinstance(row[key], float) and math.isnan(row[key])) \
                    else int(row[key])
            out.append(row)
        return out

    # -- the folder ------------------------------------------------------------------------------------------------
    def save(self, out: ResultsDir, *, n_jobs: int = 1) -> None:
        """Write the tables, the verdicts and the other files into a results folder being written.

        Parameters
        ----------
        out : ResultsDir
            The folder (:class:`~robustness.results.folder.ResultsDir`): everything goes into its staging
            folder; figures, the report and ``meta.json`` follow (:func:`robustness.reporting.finish.finish`).
        n_jobs : int
            Above 1, the tables computed as they are written (``curves.parquet``...) are written by a process of
            their own (:mod:`robustness.background`) beside the others; the files are the same.
        """
        unknown = [name for name in self.tables if Path(name).name not in TABLES]
        if unknown:
            raise ValueError(f"table {unknown[0]!r} is not registered "
                             "(robustness.results.study_result.register_table)")
        out.write_tables(self.tables, index=lambda name: TABLES[Path(name).name].index, n_jobs=n_jobs)
        out.write_csv(VERDICTS, self.verdicts, index=False)
        for name, text in self.files.items():
            out.write_text(name, text)

    @classmethod
    def load(cls, folder: Path | str, *, meta: dict | None = None) -> StudyResult:
        """The results in ``folder``, tables read on first use.

        Parameters
        ----------
        folder : path
            A complete results folder (its ``meta.json`` is read), or one being written when ``meta`` is given.
        meta : dict, optional
            The metadata, when ``meta.json`` is not written yet (a study building its own report).

        Returns
        -------
        StudyResult
        """
        folder = Path(folder)
        if meta is None:
            folder, meta = open_results(folder)
            names = meta.get("files", [])
        else:
            names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
                           and not any(part.startswith(".") for part in p.relative_to(folder).parts))
        tables = _Tables(folder, names)
        verdicts = tables[VERDICTS] if VERDICTS in tables else Verdicts().frame()
        return cls(study=meta.get("study", ""), tables=tables, verdicts=verdicts, meta=meta, folder=folder)
