"""How a leaderboard is formed from per-case scores: one table of options, and the presets that fill it.

Every command that ranks reads its ranking choices from one :class:`RankingOptions`. The options and their
challengeR names (Wiesenfarth et al., Sci. Rep. 2021; challengeR's ``as.challenge``, ``aggregateThenRank``,
``rankThenAggregate``, ``testThenRank``):

================ ================================= =========================== ===============================
option           values                            this package's default      challengeR (``--preset challenger``)
================ ================================= =========================== ===============================
``ties``         average, min, max, first, last,   average                     min (``ties.method``)
                 random
``lower_better`` True / False                      False (or the metric's)     ``smallBetter``, no default
``missing``      refuse, worst, drop, rank-last,   refuse                      rank-last (``na.treat``: no
                 a number                                                      default; NA ranks last per case)
``aggregate``    mean, median, min, max, a         mean                        ``FUN``, no default (mean here)
                 quantile in (0,1)
``test``         wilcoxon, t                       wilcoxon                    wilcoxon (``test.fun``)
``continuity``   True / False                      False                       True (R's ``wilcox.test``)
``adjustment``   any of statsmodels' (see below)   holm                        none (``p.adjust.method``)
``alpha``        (0, 0.5)                          0.05                        0.05
``semantics``    package, challenger               package                     challenger
``resampling``   weighted, challenger              weighted                    challenger (its ``bootstrap``)
``collation``    C, locale                         C                           locale (R's ``sort``, ``factor``)
================ ================================= =========================== ===============================

``collation``: the order of names wherever challengeR sorts them (its algorithm factor's levels, which ties
``first`` and ``last`` follow; ``tidyr::complete``'s and ``merge``'s order of the cases), under challengeR's
semantics: ``C`` compares code points (R with ``LC_COLLATE=C``: ``Beta`` before ``alpha``); ``locale`` is R's
order in a UTF-8 locale such as en_US.UTF-8 (ICU's root collation, the Unicode collation algorithm: case and accents
weigh less than letters, ``alpha`` before ``Beta``; :mod:`robustness.statistics.collation`).

``resampling``: what a case drawn k times by the bootstrap of a table's leaderboards is.

- ``weighted``: it counts k times in every method (the aggregate's weighted mean, per-case ranks weighted k
  times, the tests' signed-rank statistic with case weights): each resample is a test set of the same size, so
  the rank distribution is about a new test set drawn like this one.
- ``challenger``: challengeR's ``bootstrap`` repeats the case's rows k times under one case id, so
  rank-then-aggregate ranks the k copies together (ranks up to k R, counted k times: about k squared times a
  case drawn once) and the tests pair the distinct drawn cases only (a case drawn k times counts once, so a
  resample holds about 63% of the cases). On challengeR's own example, every run is first in about 95% of its
  test-based resamples of c_worstcase and in 65% of the weighted ones; the aggregate is the same under both.

``semantics``: where the package and challengeR 1.0.5 give different answers to the same options, which one.

- ``package``: ties ``first`` and ``last`` follow the runs' order of appearance; a test-based task with one run
  ranks it first with value 0; under ``missing="drop"`` a test-based pair that shares no scored case is not
  tested (a note).
- ``challenger``: ties ``first`` and ``last`` in the runs' order as R sorts them (challengeR's aggregated table is
  ordered by the algorithm factor's levels: ``collation``); per-case ties in the case's row order, which
  ``as.challenge`` sorts by algorithm and case where it completes a task with absent rows; a test-based task with
  one run has value nan and rank 1 under min, average and random ties, nan under the others (R's ``rankNA2``); a
  test-based pair that shares no scored case is refused (R's ``wilcox.test``: "not enough observations").

The package ties aggregated values within 1e-12 of each other and says so in a note (a mean summed in another
order differs in its last bits). challengeR compares exactly, in R's arithmetic (its mean accumulates in long
double in the table's row order, with a second pass), which numpy's does not reproduce to the last bit; the
``challenger`` semantics compute the table's values as R does and compare them exactly
(:mod:`robustness.statistics.r_arithmetic`), and break per-case ties ``first`` and ``last`` in the case's row
order.

``missing``:

- ``refuse``: a missing score ends the run with one line naming the run, case and task;
- ``worst``: a missing score counts as the worst score any run has on that case (rank-then-aggregate: last on
  the case);
- ``drop``: the missing score is left out (aggregate: the run's statistic is over the cases it has; per-case
  ranks: the run is left out of that case's ranking; tests: the pair is tested on the cases both runs have);
- ``rank-last`` (challengeR's behaviour, its ``rankNA2``): rank-then-aggregate ranks a missing score after the
  largest rank of the scored runs of its case (plus 1 under min and random ties; plus the mean of 1..k, k missing,
  under average; under max and first the missing score stays unranked and the case is left out of that run's
  aggregate, as in R); the other methods refuse the table until a treatment is chosen, as challengeR does;
- a number: the missing score is that value (challengeR's ``na.treat = <value>``).

``adjustment``: every method of ``statsmodels.stats.multitest.multipletests`` by its name (none, holm,
bonferroni, sidak, holm-sidak, simes-hochberg, hommel, fdr_bh, fdr_by, fdr_tsbh, fdr_tsbky; R's hochberg, BH and
BY are simes-hochberg, fdr_bh and fdr_by): :mod:`robustness.statistics.multiplicity`.

Every option holds in every path: a table's leaderboards, their bootstrap, and the resampling engines (curves,
intervals, significance), which recompute a method's statistic where no kernel implements the options
(:func:`robustness.statistics.ranking_methods.prepare`). The one exception is refused when the command line is
parsed: the engines rank thousands of prefixes and resamples against one final ranking, and need a fixed tie
rule (``ties=random`` is for the leaderboards alone, ``--rankings-only``).

This module imports nothing heavy, so command-line options can be parsed and checked before any work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["AGGREGATES", "CONSENSUS", "lower_is_better", "METRIC_DIRECTIONS", "RankingOptions", "PRESETS", "TIE_RULES",
           "MISSING", "TESTS", "ADJUSTMENTS", "R_ADJUSTMENTS", "R_NAMES", "SEMANTICS", "RESAMPLING", "COLLATIONS",
           "parse_aggregate",
           "parse_missing", "with_preset", "CHALLENGER_NAMES"]

TIE_RULES = ("average", "min", "max", "first", "last", "random")
#: Whose answers where the package and challengeR differ (module notes).
SEMANTICS = ("package", "challenger")
#: What a case drawn k times by a leaderboard's bootstrap is (module notes).
RESAMPLING = ("weighted", "challenger")
#: How names are ordered where challengeR sorts them: code points, or R's locale order (module notes).
COLLATIONS = ("C", "locale")
#: How a consensus across tasks orders the runs (:func:`robustness.statistics.consensus.consensus`).
CONSENSUS = ("mean-rank", "median-rank", "euclidean", "borda", "copeland", "pairwise-majority")
MISSING = ("refuse", "worst", "drop", "rank-last")
TESTS = ("wilcoxon", "t")
#: Every p-value adjustment, by statsmodels' name (:mod:`robustness.statistics.multiplicity`).
ADJUSTMENTS = ("none", "holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
               "fdr_tsbh", "fdr_tsbky")
#: R's ``p.adjust`` names (challengeR's ``p.adjust.method``) of the adjustments R has.
R_ADJUSTMENTS = {"none": "none", "holm": "holm", "bonferroni": "bonferroni", "simes-hochberg": "hochberg",
                 "hommel": "hommel", "fdr_bh": "BH", "fdr_by": "BY"}

#: R's ``p.adjust`` names accepted for the statsmodels methods they are (``--adjust BY`` is ``fdr_by``).
R_NAMES = {"hochberg": "simes-hochberg", "BH": "fdr_bh", "fdr": "fdr_bh", "BY": "fdr_by"}

#: The options' names in challengeR, for documents and ``--help``.
CHALLENGER_NAMES = {"ties": "ties.method", "lower_better": "smallBetter", "missing": "na.treat",
                    "aggregate": "FUN", "test": "test.fun", "continuity": "wilcox.test(correct=)",
                    "adjustment": "p.adjust.method", "alpha": "alpha", "semantics": "(challengeR's own)",
                    "resampling": "bootstrap()", "collation": "LC_COLLATE"}


#: The direction of metrics that per-case tables often hold and that are not overlap ratios of the metric table
#: (:data:`robustness.overlap.metrics.METRICS`, whose entries carry their own ``lower_better``): True where
#: smaller is better. Matched on the metric's name, lower case, without ``-``/``_`` and an ``@...`` suffix.
METRIC_DIRECTIONS = {
    "hausdorff": True, "hd": True, "hd95": True, "hausdorff95": True, "assd": True, "asd": True, "masd": True,
    "surfacedistance": True, "meansurfacedistance": True, "rmse": True, "mse": True, "mae": True,
    "absolutevolumedifference": True, "volumeerror": True, "fpr": True, "fnr": True, "error": True,
    "nsd": False, "dice": False, "dsc": False, "jaccard": False, "iou": False, "auc": False, "accuracy": False,
    "f1": False, "sensitivity": False, "specificity": False, "precision": False, "recall": False,
}


def lower_is_better(metric: str | None) -> tuple[bool, bool]:
    """The default direction of a metric: (lower_better, known).

    A metric of the package's registries (the overlap metric table, the boundary, lesion-wise and BraTS metrics
    and every family their parser builds: ``hd<P>``, ``*_surfel``, ``*_pooled``, one direction) takes its entry's
    direction, spelled as registered or in other case; any other name is looked up in
    :data:`METRIC_DIRECTIONS`, the names per-case tables often hold.

    Parameters
    ----------
    metric : str or None
        A metric's name (``hd95``, ``nsd@2``, ``Dice``); None: no metric named.

    Returns
    -------
    (bool, bool)
        Whether smaller is better, and whether the name was recognised (unknown metrics: higher is better).

    Examples
    --------
    >>> lower_is_better("HD95"), lower_is_better("nsd@2"), lower_is_better("mystery")
    ((True, True), (False, True), (False, False))
    >>> lower_is_better("hd95_surfel"), lower_is_better("fn_lesions"), lower_is_better("lesion_f1")
    ((True, True), (True, True), (False, True))
    """
    if metric is None:
        return False, False
    registered = _registered_direction(str(metric))
    if registered is not None:
        return registered, True
    key = str(metric).split("@")[0].lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in METRIC_DIRECTIONS:
        return METRIC_DIRECTIONS[key], True
    return False, False


def _registered_direction(name: str) -> bool | None:
    """A registered metric's direction (None: no registry knows the name)."""
    from robustness.overlap.boundary_names import boundary_metric, is_boundary_metric
    from robustness.overlap.metrics import METRICS

    for spelled in dict.fromkeys((name, name.lower())):
        if spelled in METRICS:
            return bool(METRICS[spelled].lower_better)
        if is_boundary_metric(spelled):
            try:
                return bool(boundary_metric(spelled).lower_better)
            except ValueError:  # a family's name with a value it refuses (hd0, nsd@0)
                return None
    return None


#: The named aggregates (besides a quantile level): challengeR's ``FUN`` takes any function; these are the ones
#: leaderboards use (``min``: a run's worst case when higher is better; ``max``: its best).
AGGREGATES = ("mean", "median", "min", "max")


def parse_aggregate(value: str | float) -> str | float:
    """``'mean'``, ``'median'``, ``'min'``, ``'max'`` or a quantile level in (0, 1) (``'0.25'`` -> 0.25).

    Parameters
    ----------
    value : str or float

    Returns
    -------
    str or float

    Examples
    --------
    >>> parse_aggregate("median"), parse_aggregate("0.1")
    ('median', 0.1)
    """
    if isinstance(value, str) and value.strip() in AGGREGATES:
        return value.strip()
    try:
        q = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"aggregate must be {', '.join(AGGREGATES)} or a quantile level in (0, 1), got {value!r}") \
            from None
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile level must lie in (0, 1), got {value!r}")
    return q


def parse_missing(value: str | float) -> str | float:
    """``refuse|worst|drop|rank-last`` or a finite number that replaces every missing score.

    Parameters
    ----------
    value : str or float

    Returns
    -------
    str or float

    Examples
    --------
    >>> parse_missing("drop"), parse_missing("0")
    ('drop', 0.0)
    """
    if isinstance(value, str) and value.strip() in MISSING:
        return value.strip()
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"missing must be one of {', '.join(MISSING)} or a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"missing must be a finite number, got {value!r}")
    return v


@dataclass(frozen=True)
class RankingOptions:
    """The ranking choices (module notes: values, defaults, challengeR's names).

    Attributes
    ----------
    ties : str
    lower_better : bool or None
        None: the metric's own direction (higher is better for overlap scores).
    missing : str or float
    aggregate : str or float
    test : str
    continuity : bool
    adjustment : str
    alpha : float
    semantics : str
        ``package`` or ``challenger`` (module notes).
    resampling : str
        ``weighted`` or ``challenger`` (module notes).
    collation : str
        ``C`` or ``locale`` (module notes).
    """

    ties: str = "average"
    lower_better: bool | None = None
    missing: str | float = "refuse"
    aggregate: str | float = "mean"
    test: str = "wilcoxon"
    continuity: bool = False
    adjustment: str = "holm"
    alpha: float = 0.05
    semantics: str = "package"
    resampling: str = "weighted"
    collation: str = "C"

    def __post_init__(self):
        """Check every option (one line naming the option and its allowed values)."""
        if self.ties not in TIE_RULES:
            raise ValueError(f"ties must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")
        object.__setattr__(self, "missing", parse_missing(self.missing))
        object.__setattr__(self, "aggregate", parse_aggregate(self.aggregate))
        if self.test not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}, got {self.test!r}")
        object.__setattr__(self, "adjustment", R_NAMES.get(self.adjustment, self.adjustment))
        if self.adjustment not in ADJUSTMENTS:
            raise ValueError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}, got {self.adjustment!r}")
        if not 0.0 < float(self.alpha) < 0.5:
            raise ValueError(f"alpha must lie in (0, 0.5), got {self.alpha!r}: at 0.5 or more a one-sided test "
                             "finds each run of a tied pair better than the other")
        if self.resampling not in RESAMPLING:
            raise ValueError(f"resampling must be one of {', '.join(RESAMPLING)}, got {self.resampling!r}")
        if self.collation not in COLLATIONS:
            raise ValueError(f"collation must be one of {', '.join(COLLATIONS)}, got {self.collation!r}")
        if self.semantics not in SEMANTICS:
            raise ValueError(f"semantics must be one of {', '.join(SEMANTICS)}, got {self.semantics!r}")
        if self.lower_better not in (None, True, False):
            raise ValueError(f"lower_better must be True, False or None, got {self.lower_better!r}")

    def describe(self) -> str:
        """The options in one line, for reports.

        Returns
        -------
        str
        """
        direction = {None: "the metric's direction", True: "lower is better", False: "higher is better"}
        agg = self.aggregate if isinstance(self.aggregate, str) else f"{self.aggregate:g}-quantile"
        return (f"ties {self.ties}; {direction[self.lower_better]}; missing scores: {self.missing}; aggregate: "
                f"{agg}; test: {self.test}{' with continuity correction' if self.continuity else ''}, "
                f"adjustment {self.adjustment}, alpha {self.alpha:g}"
                + (f"; challengeR's semantics (R's arithmetic, first/last ties in R's order of the names, "
                   f"{'locale' if self.collation == 'locale' else 'code-point'} collation, NA and refusals as R)"
                   if self.semantics == "challenger" else "")
                + ("; challengeR's bootstrap (a case drawn k times is k copies of one case)"
                   if self.resampling == "challenger" else ""))


#: The presets: the package's own defaults, and challengeR's.
PRESETS = {
    "package": RankingOptions(),
    "challenger": RankingOptions(ties="min", missing="rank-last", continuity=True, adjustment="none",
                                 semantics="challenger", resampling="challenger", collation="locale"),
}


def with_preset(preset: str = "package", **given: object) -> RankingOptions:
    """A preset's options with the options given explicitly beside it (those win).

    Parameters
    ----------
    preset : {'package', 'challenger'}
    **given
        Options given explicitly (None: not given).

    Returns
    -------
    RankingOptions

    Examples
    --------
    >>> with_preset("challenger", ties="average").ties
    'average'
    >>> with_preset("challenger").adjustment
    'none'
    """
    try:
        base = PRESETS[preset]
    except KeyError:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}") from None
    names = {f.name for f in fields(RankingOptions)}
    unknown = set(given) - names
    if unknown:
        raise ValueError(f"unknown ranking option(s): {', '.join(sorted(unknown))}")
    chosen: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    return replace(base, **chosen)
