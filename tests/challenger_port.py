"""An independent port of challengeR's ranking code (R/rankNA2.R, Aggregate.R, Rank.aggregated.list.R,
rankingMethods.R, testBased.R; challengeR at commit beb3b67), written from its R source for the tests only.

It follows R step by step on plain Python lists (numpy only for R's long double), with no code from the
package: R's ``rank`` with its six
``ties.method`` rules, ``rankNA2`` (missing values after the others, and left missing under ``max`` and
``first``), ``Aggregate`` with ``na.treat`` (``"na.rm"``, a number, a function), ``wilcox.test(paired=TRUE,
exact=FALSE, correct=TRUE)`` as R computes it, and ``p.adjust`` ("none", "holm", "bonferroni", "BH").
Comparisons are exact, as in R. ``random`` ties take a ``random.Random``.

Names are sorted as R sorts them (``sort``, ``factor``'s levels): ``key=c_key`` (``LC_COLLATE=C``: code points)
or ``key=utf8_key`` (an English UTF-8 locale, for names of ASCII letters and digits only: letters compared without
their case first, digits before letters, then lower case before upper case at the first difference, as R with ICU
sorts them). ``as_challenge`` completes a task with absent rows as challengeR's ``as.challenge`` does with
``tidyr::complete``: every (algorithm, case) pair, missing ones NA, rows sorted by algorithm, then case.
"""

from __future__ import annotations

import math
import random

import numpy as np

NA = None


def c_key(name):
    """R's order under ``LC_COLLATE=C``."""
    return name


def utf8_key(name):
    """R's order in an English UTF-8 locale, for names of ASCII letters and digits (module notes)."""
    assert name.isascii() and name.isalnum(), name
    return name.lower(), [c.isupper() for c in name]


def as_challenge(rows, key=c_key):
    """challengeR's ``as.challenge`` on one task's rows (algo, case, value): completed and sorted where a pair is
    absent, else as given."""
    algos = sorted({a for a, _, _ in rows}, key=key)
    cases = sorted({c for _, c, _ in rows}, key=key)
    have = {(a, c): v for a, c, v in rows}
    if len(have) == len(algos) * len(cases):
        return list(rows)
    return [(a, c, have.get((a, c))) for a in algos for c in cases]


def r_rank(x, ties, rnd=None):
    """R's ``rank(x, ties.method=ties, na.last="keep")`` on a list with None for NA."""
    idx = [i for i, v in enumerate(x) if v is not None]
    out = [None] * len(x)
    for i in idx:
        less = sum(1 for j in idx if x[j] < x[i])
        equal = [j for j in idx if x[j] == x[i]]
        if ties == "average":
            out[i] = less + (len(equal) + 1) / 2
        elif ties == "min":
            out[i] = less + 1.0
        elif ties == "max":
            out[i] = float(less + len(equal))
        elif ties == "first":
            out[i] = float(less + 1 + sum(1 for j in equal if j < i))
        elif ties == "last":
            out[i] = float(less + len(equal) - sum(1 for j in equal if j < i))
    if ties == "random":
        done = set()
        for i in idx:
            if i in done:
                continue
            less = sum(1 for j in idx if x[j] < x[i])
            equal = [j for j in idx if x[j] == x[i]]
            slots = list(range(less + 1, less + 1 + len(equal)))
            rnd.shuffle(slots)
            for j, s in zip(equal, slots):
                out[j] = float(s)
                done.add(j)
    return out


def rank_na2(x, ties, small_better, rnd=None):
    """challengeR's ``rankNA2``."""
    signed = [None if v is None else (v if small_better else -v) for v in x]
    r = r_rank(signed, ties, rnd)
    if any(v is None for v in x):
        scored = [v for v in r if v is not None]
        maxrank = 0 if not scored else max(scored)
        k = sum(1 for v in x if v is None)
        for i, v in enumerate(x):
            if v is None:
                if ties in ("min", "random"):
                    r[i] = maxrank + 1
                elif ties == "average":
                    r[i] = maxrank + sum(range(1, k + 1)) / k
    return r


def r_mean(v):
    """R's ``mean`` of doubles (summary.c): a long-double sum in order, divided by n, plus the mean of the
    residuals summed the same way, rounded once to double."""
    ld = np.longdouble
    s = ld(0.0)
    for x in v:
        s += ld(x)
    s /= ld(len(v))
    if math.isfinite(float(s)):
        t = ld(0.0)
        for x in v:
            t += ld(x) - s
        s += t / ld(len(v))
    return float(s)


def r_median(v):
    """R's ``median.default``: the middle value, or ``mean`` of the two middle ones."""
    s = sorted(v)
    n = len(s)
    half = (n + 1) // 2
    return s[half - 1] if n % 2 else r_mean(s[half - 1:half + 1])


def r_quantile(v, q):
    """R's type-7 ``quantile.default``: ``(1 - h) * x[lo] + h * x[hi]`` unless ``h`` is 0 or they are equal."""
    s = sorted(v)
    index = 1 + (len(s) - 1) * q
    lo, hi = math.floor(index), math.ceil(index)
    qs = s[lo - 1]
    if index > lo and s[hi - 1] != qs:
        h = index - lo
        qs = (1 - h) * qs + h * s[hi - 1]
    return qs


def apply_fun(fun, v):
    if fun == "mean":
        return r_mean(v)
    if fun == "median":
        return r_median(v)
    if fun == "min":
        return min(v)
    if fun == "max":
        return max(v)
    return r_quantile(v, fun)


def na_treat(rows, treat):
    """``rows``: list of (algo, case, value); the rows after challengeR's na.treat."""
    if treat == "na.rm":
        return [r for r in rows if r[2] is not None]
    if callable(treat):
        return [(a, c, treat() if v is None else v) for a, c, v in rows]
    return [(a, c, float(treat) if v is None else v) for a, c, v in rows]


def algorithms_of(rows):
    out = []
    for a, _, _ in rows:
        if a not in out:
            out.append(a)
    return out


def aggregate_then_rank(rows, fun, small_better, ties="min", treat=NA, rnd=None, key=c_key):
    """challengeR's ``aggregateThenRank``: {algo: (aggregate, rank)}."""
    if any(v is None for _, _, v in rows):
        if treat is NA:
            raise ValueError('argument "na.treat" is missing, with no default')
        rows = na_treat(rows, treat)
    algos = sorted(algorithms_of(rows), key=key)  # R's aggregate(by=) orders groups by their sorted levels
    agg = [apply_fun(fun, [v for a2, _, v in rows if a2 == a]) for a in algos]
    ranks = rank_na2(agg, ties, small_better, rnd)
    return {a: (agg[i], ranks[i]) for i, a in enumerate(algos)}


def rank_then_aggregate(rows, fun, small_better, ties="min", rnd=None, key=c_key):
    """challengeR's ``rankThenAggregate``: per-case rankNA2, aggregate with na.rm, rankNA2 (small is better)."""
    cases = []
    for _, c, _ in rows:
        if c not in cases:
            cases.append(c)
    ranked = []
    for c in cases:
        piece = [r for r in rows if r[1] == c]
        rk = rank_na2([v for _, _, v in piece], ties, small_better, rnd)
        ranked += [(a, c, rk[i]) for i, (a, _, _) in enumerate(piece)]
    ranked = [r for r in ranked if r[2] is not None]
    if not ranked:
        raise ValueError("no rows to aggregate")  # R's aggregate.data.frame on no row
    algos = sorted(algorithms_of(ranked), key=key)
    agg = [apply_fun(fun, [v for a2, _, v in ranked if a2 == a]) for a in algos]
    ranks = rank_na2(agg, ties, True, rnd)
    return {a: (agg[i], ranks[i]) for i, a in enumerate(algos)}


def pnorm_upper(z):
    if z == math.inf:
        return 0.0
    if z == -math.inf:
        return 1.0
    return 0.5 * math.erfc(z / math.sqrt(2))


def wilcox_p(x, y, alternative, correct=True):
    """R's ``wilcox.test(x, y, alternative, exact=FALSE, paired=TRUE, correct)$p.value``."""
    d = [a - b for a, b in zip(x, y)]
    d = [v for v in d if v != 0]
    n = len(d)
    absd = [abs(v) for v in d]
    r = r_rank(absd, "average")
    stat = sum(r[i] for i in range(n) if d[i] > 0)
    counts = {}
    for v in r:
        counts[v] = counts.get(v, 0) + 1
    z = stat - n * (n + 1) / 4
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in counts.values()) / 48)
    corr = (0.5 if alternative == "greater" else -0.5) if correct else 0.0
    if sigma == 0:
        num = z - corr
        if num == 0:
            return math.nan
        zz = math.inf if num > 0 else -math.inf
    else:
        zz = (z - corr) / sigma
    return pnorm_upper(zz) if alternative == "greater" else 1 - pnorm_upper(zz)


def p_adjust(p, method):
    """R's ``p.adjust`` (NA kept out, as R's ``n = length(p[!is.na(p)])``)."""
    idx = [i for i, v in enumerate(p) if not (v is None or math.isnan(v))]
    m = len(idx)
    out = list(p)
    if method == "none" or m == 0:
        return out
    vals = [p[i] for i in idx]
    order = sorted(range(m), key=lambda k: vals[k])
    adj = [0.0] * m
    if method == "bonferroni":
        adj = [min(1.0, v * m) for v in vals]
    elif method == "holm":
        running = 0.0
        for step, k in enumerate(order):
            running = max(running, (m - step) * vals[k])
            adj[k] = min(1.0, running)
    elif method == "BH":
        running = 1.0
        for step in range(m - 1, -1, -1):
            k = order[step]
            running = min(running, vals[k] * m / (step + 1))
            adj[k] = min(1.0, running)
    for j, i in enumerate(idx):
        out[i] = adj[j]
    return out


def test_then_rank(rows, small_better, ties="min", treat=NA, alpha=0.05, p_adjust_method="none", rnd=None,
                   correct=True, key=c_key):
    """challengeR's ``testThenRank``: {algo: (prop_significance, rank)}."""
    if any(v is None for _, _, v in rows):
        if treat is NA:
            raise ValueError('argument "na.treat" is missing, with no default')
        rows = na_treat(rows, treat)
    algos = sorted(algorithms_of(rows), key=key)  # reshape2::acast orders the decision matrix by the levels
    if len(algos) <= 1:  # decision(): NA; rankNA2 ranks a lone NA 1 under min, average, random, NA otherwise
        return {a: (None, rank_na2([None], ties, False, rnd)[0]) for a in algos}
    alternative = "less" if small_better else "greater"
    pairs = [(a, b) for b in algos for a in algos if a != b]
    pvals = []
    for a, b in pairs:
        da = {c: v for a2, c, v in rows if a2 == a}
        db = {c: v for a2, c, v in rows if a2 == b}
        common = [c for c in db if c in da]
        if not common:
            raise ValueError("not enough (non-missing) 'x' observations")  # R's wilcox.test on no pair
        pvals.append(wilcox_p([da[c] for c in common], [db[c] for c in common], alternative, correct))
    adj = p_adjust(pvals, p_adjust_method)
    wins = {a: 0 for a in algos}
    for (a, _), q in zip(pairs, adj):
        if q is not None and not math.isnan(q) and q <= alpha:
            wins[a] += 1
    props = [wins[a] / (len(algos) - 1) for a in algos]
    ranks = rank_na2(props, ties, False, rnd)
    return {a: (props[i], ranks[i]) for i, a in enumerate(algos)}


def new_random(seed):
    return random.Random(seed)
