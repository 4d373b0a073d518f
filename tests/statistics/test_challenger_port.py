"""The ranking options against an independent port of challengeR's ranking code (tests/challenger_port.py),
on 2,000 random tables with their rows in random order, ties, missing scores and absent rows, run and case names
in both cases (``alpha``, ``Beta``), both directions, every tie rule, aggregation and adjustment, and both
collations.

Under ``--preset challenger`` (challengeR's semantics) every answer equals the port's, exactly: the aggregated
values in R's arithmetic (a long-double mean in the table's row order), compared exactly, near-ties within
floating-point error included; per-case ties ``first`` and ``last`` in the order of the case's rows, which
``as.challenge`` sorts by algorithm and case where it completes a task with absent rows; final ties in the runs'
order as R sorts them (``--collation``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from robustness.errors import InputError
from robustness.statistics.case_rankings import check_missing, rank_task, task_scores
from robustness.statistics.multiplicity import adjust
from robustness.statistics.paired import paired_p_values, signed_rank_p
from robustness.statistics.ranking_options import with_preset
from tests import challenger_port as port
from tests.conftest import statsmodels_multipletests

ADJUST = {"none": "none", "holm": "holm", "bonferroni": "bonferroni", "fdr_bh": "BH"}


#: Run and case names whose order differs between code points and R's UTF-8 locale.
RUN_NAMES = ("alpha", "Alpha", "Beta", "beta", "b2", "B10", "gamma", "A1", "a", "Zeta")
CASE_NAMES = ("c1", "C2", "c10", "c9", "D", "d", "e3", "E20")


def random_case(rng, names_rng):
    """One random table and options; ``names_rng`` draws the absent rows, the names and the collation (a stream of
    its own, so that ``rng`` draws the tables and options it drew before they were added)."""
    n_runs, n_cases = int(rng.integers(1, 7)), int(rng.integers(1, 9))
    grid = rng.choice([4, 10])  # quarters are exact in binary; tenths are not (floating-point near-ties)
    values = rng.integers(0, 6, size=(n_runs, n_cases)) / grid
    if rng.random() < 0.4:
        values[rng.random(values.shape) < 0.15] = np.nan
    method = rng.choice(["aggregate", "rank-then-aggregate", "test-based"])
    ties = rng.choice(["min", "average", "max", "first", "last"])
    fun = ["mean", "median", 0.25, "min", "max"][int(rng.integers(0, 5))]
    missing = rng.choice(["drop", "value"])
    fill = float(rng.choice([0.0, 1.0, -1.0]))
    order = rng.permutation(values.size)  # the rows of the file, in random order
    absent = np.zeros(values.shape, dtype=bool)  # (run, case) pairs without a row in the file
    if names_rng.random() < 0.35:
        absent = names_rng.random(values.shape) < 0.2
        absent.flat[int(names_rng.integers(0, absent.size))] = False  # a table keeps one row at least
    names = [str(n) for n in names_rng.choice(RUN_NAMES, n_runs, replace=False)] if names_rng.random() < 0.6 \
        else [f"A{i + 1}" for i in range(n_runs)]
    cases = [str(n) for n in names_rng.choice(CASE_NAMES, n_cases, replace=False)] if names_rng.random() < 0.5 \
        else [f"C{j + 1}" for j in range(n_cases)]
    return dict(values=values, order=order, absent=absent, names=names, cases=cases,
                collation=str(names_rng.choice(["locale", "C"])), method=method, ties=str(ties), fun=fun,
                small=bool(rng.random() < 0.5), missing=str(missing), fill=fill,
                adjust=str(rng.choice(list(ADJUST))), alpha=float(rng.choice([0.05, 0.1, 0.3])))


def rows_of(c):
    """The table's rows (algorithm, case, value or None) in the file's order, absent pairs left out."""
    v, absent = c["values"], c["absent"]
    rows = [None if absent[i, j] else (c["names"][i], c["cases"][j], None if np.isnan(v[i, j]) else float(v[i, j]))
            for i in range(v.shape[0]) for j in range(v.shape[1])]
    return [rows[k] for k in c["order"] if rows[k] is not None]


def key_of(c):
    return port.utf8_key if c["collation"] == "locale" else port.c_key


def ours(c):
    table = pd.DataFrame([(a, k, np.nan if x is None else x) for a, k, x in rows_of(c)],
                         columns=["algorithm", "case", "value"])
    if c["method"] == "rank-then-aggregate":
        missing = "rank-last"  # challengeR's rankThenAggregate always ranks a missing score last
    else:
        missing = "drop" if c["missing"] == "drop" else c["fill"]
    options = with_preset("challenger", ties=c["ties"], lower_better=c["small"], missing=missing,
                          aggregate=c["fun"], adjustment=c["adjust"], alpha=c["alpha"], collation=c["collation"])
    ts = task_scores(table)[0]
    check_missing([ts], [c["method"]], options)  # the refusals before any work
    result = rank_task(ts, c["method"], options)
    return {run: (v, r) for run, v, r in zip(result.runs, result.statistic, result.ranks) if not math.isnan(r)}


def theirs(c):
    key = key_of(c)
    rows = port.as_challenge(rows_of(c), key)
    treat = "na.rm" if c["missing"] == "drop" else c["fill"]
    if c["method"] == "aggregate":
        return port.aggregate_then_rank(rows, c["fun"], c["small"], c["ties"], treat, key=key)
    if c["method"] == "rank-then-aggregate":
        return port.rank_then_aggregate(rows, c["fun"], c["small"], c["ties"], key=key)
    return port.test_then_rank(rows, c["small"], c["ties"], treat, c["alpha"], ADJUST[c["adjust"]], key=key)


def near_tie(values):
    v = sorted(x for x in values if x is not None)
    return any(0 < b - a <= 1e-12 for a, b in zip(v, v[1:]))


def case_order_matters(c):
    """Rank-then-aggregate with first or last ties and a tie within a case: R breaks it in the case's row order."""
    if c["method"] != "rank-then-aggregate" or c["ties"] not in ("first", "last"):
        return False
    for column, gone in zip(c["values"].T, c["absent"].T):
        scored = column[~np.isnan(column) & ~gone]
        if scored.size != np.unique(scored).size:
            return True
    return False


def completed_order_matters(c):
    """As :func:`case_order_matters`, in a task R completed (absent rows): R's rows sorted by algorithm."""
    return case_order_matters(c) and c["absent"].any()


def collation_matters(c):
    """First or last ties between runs whose order differs between code points and R's UTF-8 locale."""
    names = c["names"]
    return c["ties"] in ("first", "last") and sorted(names) != sorted(names, key=port.utf8_key)


def agrees(c, got, want):
    """Every run challengeR ranks has our rank and value; a run it leaves unranked (NA) is unranked here too."""
    want = {run: v for run, v in want.items() if v[1] is not None}
    if sorted(got) != sorted(want):
        return False
    n = len(want)
    for run, (value, rnk) in want.items():
        if got[run][1] != rnk:
            return False
        mine = got[run][0] / max(n - 1, 1) if c["method"] == "test-based" else got[run][0]
        if not (mine == value or (value is None and math.isnan(mine))):  # exactly
            return False
    return True


@pytest.mark.slow
def test_preset_equals_the_port_on_2000_random_tables():
    rng, names_rng = np.random.default_rng(20261201), np.random.default_rng(20261206)
    compared = refused = near = apart = completed = collated = 0
    for _ in range(2000):
        c = random_case(rng, names_rng)
        try:
            want = theirs(c)
        except ValueError as error:  # R stops: no pair of scores to test, or no per-case rank left
            assert "not enough" in str(error) or "no rows to aggregate" in str(error)
            with pytest.raises(InputError, match="share no scored case|no rows to aggregate"):
                ours(c)
            refused += 1
            continue
        got = ours(c)
        near += near_tie([x for x, _ in want.values()])
        apart += case_order_matters(c)
        completed += completed_order_matters(c)
        collated += collation_matters(c)
        assert agrees(c, got, want), (c, got, want)
        compared += 1
    # the counts fail if the generator stops producing the cases that tell the semantics apart: near-ties of the
    # aggregated values, refusals, per-case ties broken in the rows' order (of completed tasks too), first and
    # last ties between names the two collations order differently
    assert compared + refused == 2000 and near >= 5 and refused >= 2 and apart >= 50 and completed >= 15 \
        and collated >= 100, (compared, near, refused, apart, completed, collated)
    print(f"compared {compared} (near-ties {near}, per-case row order {apart}, of completed tasks {completed}, "
          f"first/last ties between names the collations order differently {collated}), refused {refused}")


@pytest.mark.parametrize("seed", range(40))
def test_signed_rank_p_equals_scipy_and_the_port(seed):
    from scipy.stats import wilcoxon

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, size=int(rng.integers(1, 15))) / 4
    y = rng.integers(0, 5, size=x.size) / 4
    d = x - y
    for correct in (False, True):
        mine = signed_rank_p(d, continuity=correct)
        r = port.wilcox_p(list(x), list(y), "greater", correct)
        if (d != 0).sum() == 0:
            assert mine == 1.0 and (r == 1.0 or math.isnan(r))
            continue
        s = wilcoxon(d, alternative="greater", correction=correct, method="approx", zero_method="wilcox").pvalue
        assert mine == pytest.approx(s, rel=1e-12, abs=1e-15)
        assert mine == pytest.approx(r, rel=1e-12, abs=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_equals_statsmodels_and_the_port(method):
    rng = np.random.default_rng(7)
    with statsmodels_multipletests() as multipletests:
        for _ in range(20):
            p = rng.random(int(rng.integers(1, 30))) ** 3
            p[rng.random(p.size) < 0.2] = p[0]  # ties
            np.testing.assert_allclose(adjust(p, method), multipletests(p, method=method)[1], rtol=1e-12)
            np.testing.assert_allclose(adjust(p, method), port.p_adjust(list(p), ADJUST[method]), rtol=1e-12)


def test_random_ties_draw_every_order_of_a_tie():
    """``ties='random'``: tied runs take the tied places in a random order (each order about equally often)."""
    from robustness.statistics.ranks import rank

    draws = rank(np.tile([0.5, 0.9, 0.5, 0.5, 0.1], (3000, 1)), ties="random", rng=1)
    assert (draws[:, 1] == 1).all() and (draws[:, 4] == 5).all()
    assert sorted(set(map(tuple, draws[:, [0, 2, 3]].astype(int)))) == sorted(
        {(2, 3, 4), (2, 4, 3), (3, 2, 4), (3, 4, 2), (4, 2, 3), (4, 3, 2)})
    share = (draws[:, 0] == 2).mean()
    assert abs(share - 1 / 3) < 4 * math.sqrt(1 / 3 * 2 / 3 / 3000)
    # a missing score: after the scored runs, tied with the other missing (challengeR's rankNA2)
    assert rank([np.nan, 0.2, np.nan], ties="random", rng=0).tolist() == [2.0, 1.0, 2.0]


@pytest.mark.parametrize("seed", range(30))
def test_weighted_p_values_equal_the_tests_on_repeated_cases(seed):
    """The vectorised tests of the bootstrap against the plain per-pair tests on each resample's repeated cases."""
    rng = np.random.default_rng(seed)
    n_r, n_c = int(rng.integers(2, 5)), int(rng.integers(1, 9))
    values = rng.integers(0, 5, size=(n_r, n_c)) / 4
    values[rng.random(values.shape) < 0.1] = np.nan
    weights = rng.integers(0, 3, size=(6, n_c))
    for test in ("wilcoxon", "t"):
        for continuity in (False, True):
            for lower in (False, True):
                got = paired_p_values(values, weights, test=test, continuity=continuity, lower_better=lower)
                for b, w in enumerate(weights):
                    want = paired_p_values(np.repeat(values, w, axis=1), test=test, continuity=continuity,
                                           lower_better=lower)
                    np.testing.assert_allclose(got[b], want, rtol=1e-12, atol=1e-15)
