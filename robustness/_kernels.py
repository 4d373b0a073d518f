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
    "popcount_and",
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
def binarize(values, foreground, background):
    """Foreground mask and value census of a flat uint8 array, in one pass.

    Returns ``(mask, n_foreground, n_background)`` where ``mask`` is uint8 0/1
    with ``mask[p] = values[p] == foreground``. Pixels that are neither
    foreground nor background number ``values.size - n_foreground - n_background``.
    """
    n = values.size
    mask = np.empty(n, dtype=np.uint8)
    n_fg = 0
    n_bg = 0
    for p in range(n):
        v = values[p]
        f = v == foreground
        mask[p] = f
        n_fg += f
        n_bg += v == background
    return mask, n_fg, n_bg


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

    ``lut`` is uint8 0/1 of shape (g, 2**k): gold ``r`` is foreground at pixel
    ``p`` when ``lut[r, codes[p]]``. Returns uint64 words of shape (g, ceil(n/64)).
    """
    g = lut.shape[0]
    n = codes.size
    n_words = (n + 63) // 64
    words = np.zeros((g, n_words), dtype=np.uint64)
    for w in range(n_words):
        start = w * 64
        stop = min(start + 64, n)
        for r in range(g):
            table = lut[r]
            acc = np.uint64(0)
            for p in range(start, stop):
                acc |= np.uint64(table[codes[p]]) << np.uint64(p - start)
            words[r, w] = acc
    return words


@njit(cache=True, nogil=True)
def count_run(run, gold_words):
    """Pack one run's mask on the fly and count its overlap with every gold.

    ``run`` is uint8 0/1 of length n, ``gold_words`` uint64 of shape
    (g, ceil(n/64)) as made by :func:`pack_lut`. Returns ``(size, tp)``: the
    number of foreground pixels of the run and, for every gold ``r``, the
    number of pixels in both (int64, g). FP = size - TP, FN = |gold| - TP.
    """
    g, n_words = gold_words.shape
    n = run.size
    tp = np.zeros(g, dtype=np.int64)
    size = 0
    for w in range(n_words):
        start = w * 64
        stop = min(start + 64, n)
        acc = np.uint64(0)
        for p in range(start, stop):
            acc |= np.uint64(run[p]) << np.uint64(p - start)
        if acc == 0:
            continue
        size += _popcount64(acc)
        for r in range(g):
            tp[r] += _popcount64(acc & gold_words[r, w])
    return size, tp


@njit(cache=True, nogil=True)
def popcount_and(a, b):
    """Pairwise overlap of two sets of packed masks: ``out[i, j] = |a_i & b_j|``."""
    na, n_words = a.shape
    nb = b.shape[0]
    out = np.zeros((na, nb), dtype=np.int64)
    for i in range(na):
        for j in range(nb):
            s = 0
            for w in range(n_words):
                s += _popcount64(a[i, w] & b[j, w])
            out[i, j] = s
    return out
