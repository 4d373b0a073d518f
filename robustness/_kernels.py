"""numba kernels: plain arrays in, arrays out. No objects, no generators, no pandas.

Every kernel has a slow, obviously correct numpy twin in ``tests/test_kernels.py``.

Bit layout used throughout: a mask of ``n`` pixels (row-major) is packed into
``ceil(n / 64)`` uint64 words; pixel ``p`` is bit ``p % 64`` of word ``p // 64``;
the unused high bits of the last word are zero.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "binarize",
    "pattern_codes",
    "pack_lut",
    "count_run",
    "count_run_words",
]


@intrinsic
def _popcount64(typingctx, x):
    """Hardware population count of a uint64 (LLVM ``ctpop``)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True)
def binarize(values, foreground, background, nonzero):
    """Turn a flat uint8 array into a 0/1 mask in place and count its values, in one pass.

    With ``nonzero`` False, ``values[p] = values[p] == foreground``; with it True,
    ``values[p] = values[p] != background``. Returns ``(n_foreground, n_background)``
    counted on the original values; pixels that were neither number
    ``values.size - n_foreground - n_background``.
    """
    n_fg = 0
    n_bg = 0
    for p in range(values.size):
        v = values[p]
        f = v == foreground
        b = v == background
        n_fg += f
        n_bg += b
        values[p] = (not b) if nonzero else f
    return n_fg, n_bg


@njit(cache=True, nogil=True)
def pattern_codes(masks):
    """Rater pattern of every pixel and the pattern histogram.

    ``masks`` is uint8 0/1 of shape (k, n) with k <= 16. Returns ``codes``
    (uint16, n) with ``codes[p] = sum_j masks[j, p] << j`` and ``hist``
    (int64, 2**k) counting the pixels of every pattern.
    """
    k, n = masks.shape
    codes = np.zeros(n, dtype=np.uint16)
    for j in range(k):
        row = masks[j]
        bit = np.uint16(1 << j)
        for p in range(n):
            if row[p]:
                codes[p] |= bit
    hist = np.zeros(1 << k, dtype=np.int64)
    for p in range(n):
        hist[codes[p]] += 1
    return codes, hist


@njit(cache=True, nogil=True)
def pack_lut(codes, lut):
    """Bit-packed golds from pattern codes through look-up tables.

    ``lut`` is uint8 0/1 of shape (g, 2**k) with g <= 64: gold ``r`` is
    foreground at pixel ``p`` when ``lut[r, codes[p]]``. Returns uint64 words
    of shape (g, ceil(n/64)). Each pattern's golds are gathered into one
    bitmask first, so a pixel in no gold (most of an image) costs one look-up.
    """
    g, n_pat = lut.shape
    n = codes.size
    n_words = (n + 63) // 64
    comb = np.zeros(n_pat, dtype=np.uint64)
    for r in range(g):
        for c in range(n_pat):
            if lut[r, c]:
                comb[c] |= np.uint64(1) << np.uint64(r)
    words = np.zeros((g, n_words), dtype=np.uint64)
    acc = np.zeros(g, dtype=np.uint64)
    for w in range(n_words):
        start = w * 64
        stop = min(start + 64, n)
        any_set = np.uint64(0)
        for p in range(start, stop):
            v = comb[codes[p]]
            if v:
                any_set |= v
                bit = np.uint64(p - start)
                for r in range(g):
                    acc[r] |= ((v >> np.uint64(r)) & np.uint64(1)) << bit
        if any_set:
            for r in range(g):
                words[r, w] = acc[r]
                acc[r] = 0
    return words


# Multiplying a uint64 holding eight 0/1 bytes by this constant gathers byte i's
# bit into bit 56 + i (no two partial products share a bit, so nothing carries).
_GATHER = np.uint64(0x0102040810204080)


@njit(cache=True, nogil=True)
def _pack_bytes8(x):
    """Eight 0/1 bytes (little-endian in a uint64) -> 8 bits, byte i -> bit i."""
    return (x * _GATHER) >> np.uint64(56)


@njit(cache=True, nogil=True)
def count_run_words(run64, tail, gold_words):
    """Kernel of :func:`count_run`: ``run64`` is the run's 0/1 bytes viewed as uint64
    (eight pixels per element, a multiple of 8 elements), ``tail`` the remaining bytes."""
    g, n_words = gold_words.shape
    tp = np.zeros(g, dtype=np.int64)
    size = 0
    n_full = run64.size // 8
    for w in range(n_full):
        acc = np.uint64(0)
        for q in range(8):
            acc |= _pack_bytes8(run64[8 * w + q]) << np.uint64(8 * q)
        if acc == 0:
            continue
        size += _popcount64(acc)
        for r in range(g):
            tp[r] += _popcount64(acc & gold_words[r, w])
    if tail.size:
        acc = np.uint64(0)
        for p in range(tail.size):
            acc |= np.uint64(tail[p]) << np.uint64(p)
        size += _popcount64(acc)
        for r in range(g):
            tp[r] += _popcount64(acc & gold_words[r, n_full])
    return size, tp


def count_run(run, gold_words):
    """Pack one run's mask on the fly and count its overlap with every gold.

    ``run`` is a contiguous uint8 0/1 array of n pixels, ``gold_words`` uint64
    of shape (g, ceil(n/64)) as made by :func:`pack_lut`. Returns ``(size, tp)``:
    the run's number of foreground pixels and, for every gold ``r``, the number
    of pixels in both (int64, g). FP = size - TP, FN = |gold| - TP.
    """
    run = np.ascontiguousarray(run, dtype=np.uint8)
    m = run.size - run.size % 64
    return count_run_words(run[:m].view(np.uint64), run[m:], gold_words)


# -- ranking and resampling ---------------------------------------------------
# Scores are turned into ranks (1 = best, higher score is better). Scores within
# `tol` of their neighbour in sorted order are tied (summation-order noise is
# not a difference); nan scores rank last, tied among themselves.
# method: 0 = average ranks for ties, 1 = min ranks.

SCORE_MICRO_JACCARD = 0
SCORE_MICRO_DICE = 1
SCORE_MEAN = 2


@njit(cache=True, nogil=True)
def _insertion_sort_desc(scores, perm):
    """Sort ``perm`` by ``scores[perm]`` descending, in place; fast when nearly sorted."""
    for i in range(1, perm.size):
        p = perm[i]
        v = scores[p]
        j = i - 1
        while j >= 0 and scores[perm[j]] < v:
            perm[j + 1] = perm[j]
            j -= 1
        perm[j + 1] = p


@njit(cache=True, nogil=True)
def _ranks_from_sorted(scores, perm, ranks, tol, method):
    n = perm.size
    i = 0
    while i < n:
        j = i
        while j + 1 < n and (scores[perm[j]] == scores[perm[j + 1]] or scores[perm[j]] - scores[perm[j + 1]] <= tol):
            j += 1  # (== catches -inf ties, whose difference is nan)
        r = (i + j) / 2.0 + 1.0 if method == 0 else i + 1.0
        for t in range(i, j + 1):
            ranks[perm[t]] = r
        i = j + 1


@njit(cache=True, nogil=True)
def rank_rows(scores, tol, method):
    """Ranks of every row of a 2-D score array (see the block comment for the rules)."""
    m, n = scores.shape
    out = np.empty((m, n), dtype=np.float64)
    work = np.empty(n, dtype=np.float64)
    perm = np.empty(n, dtype=np.int64)
    for i in range(m):
        for k in range(n):
            v = scores[i, k]
            work[k] = v if v == v else -np.inf
            perm[k] = k
        _insertion_sort_desc(work, perm)
        _ranks_from_sorted(work, perm, out[i], tol, method)
    return out


@njit(cache=True, nogil=True)
def kendall_tau_b(x, y):
    """Kendall's tau-b of two equal-length vectors (O(n^2); nan if either is constant)."""
    n = x.size
    concordant = 0.0
    discordant = 0.0
    ties_x = 0.0
    ties_y = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    den = np.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    if den == 0:
        return np.nan
    return (concordant - discordant) / den


@njit(cache=True, nogil=True)
def _score(c0, c1, c2, kind, empty_value):
    if kind == 2:
        return c0 / c1 if c1 != 0 else np.nan
    if kind == 0:
        den = c0 + c1 + c2
        return c0 / den if den != 0 else empty_value
    den = 2 * c0 + c1 + c2
    return 2 * c0 / den if den != 0 else empty_value


@njit(cache=True, nogil=True)
def scores_from_sums(sums, cols, kind, empty_value):
    """Scores (S, R) from summed statistics ``sums`` (M,) through ``cols`` (S, R, 3) and ``kind`` (S,)."""
    n_s, n_r = cols.shape[0], cols.shape[1]
    out = np.empty((n_s, n_r), dtype=np.float64)
    for s in range(n_s):
        for r in range(n_r):
            c = cols[s, r]
            out[s, r] = _score(sums[c[0]], sums[c[1]] if c[1] >= 0 else 0.0,
                               sums[c[2]] if c[2] >= 0 else 0.0, kind[s], empty_value)
    return out


@njit(cache=True, nogil=True)
def l1_curves(x, cols, kind, orders, positions, final_ranks, tol, method, empty_value):
    """L1 rank change to ``final_ranks`` after every prefix of every order.

    ``x`` (U, M) per-unit additive statistics; ``orders`` (K, U) unit
    permutations; ``positions`` (P,) increasing prefix lengths to record.
    One running sum per order, so all prefixes of an order cost one pass.
    Returns float32 (S, K, P).
    """
    n_s, n_r = cols.shape[0], cols.shape[1]
    n_k, n_u = orders.shape
    n_p = positions.size
    m = x.shape[1]
    out = np.empty((n_s, n_k, n_p), dtype=np.float32)
    cum = np.empty(m, dtype=np.float64)
    perm = np.empty((n_s, n_r), dtype=np.int64)
    ranks = np.empty(n_r, dtype=np.float64)
    work = np.empty(n_r, dtype=np.float64)
    for k in range(n_k):
        cum[:] = 0.0
        for s in range(n_s):
            for r in range(n_r):
                perm[s, r] = r
        p = 0
        for n in range(n_u):
            row = x[orders[k, n]]
            for c in range(m):
                cum[c] += row[c]
            if p < n_p and n + 1 == positions[p]:
                for s in range(n_s):
                    for r in range(n_r):
                        cc = cols[s, r]
                        v = _score(cum[cc[0]], cum[cc[1]] if cc[1] >= 0 else 0.0,
                                   cum[cc[2]] if cc[2] >= 0 else 0.0, kind[s], empty_value)
                        work[r] = v if v == v else -np.inf
                    _insertion_sort_desc(work, perm[s])
                    _ranks_from_sorted(work, perm[s], ranks, tol, method)
                    d = 0.0
                    for r in range(n_r):
                        d += abs(ranks[r] - final_ranks[s, r])
                    out[s, k, p] = d
                p += 1
    return out


@njit(cache=True, nogil=True)
def resample_sums(x, idx):
    """``out[b] = sum_j x[idx[b, j]]`` for every resample ``b`` (in draw order)."""
    n_b, n_j = idx.shape
    m = x.shape[1]
    out = np.zeros((n_b, m), dtype=np.float64)
    for b in range(n_b):
        acc = out[b]
        for j in range(n_j):
            row = x[idx[b, j]]
            for c in range(m):
                acc[c] += row[c]
    return out
