"""Pixel kernels: mask decoding, bit packing, rater patterns and overlap counts (numba).

Plain arrays in, arrays out: no objects, no generators, no pandas. Every
kernel has a slow, obviously correct numpy twin in ``tests/naive.py``.

Bit layout used throughout: a mask of ``n`` pixels (row-major) is packed into
``ceil(n / 64)`` uint64 words; pixel ``p`` is bit ``p % 64`` of word ``p // 64``;
the unused high bits of the last word are zero.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import config
from numba.extending import intrinsic

__all__ = [
    "binarize",
    "pack_rows",
    "pattern_hist",
    "golds_from_words",
    "count_run",
    "count_run_words",
    "upsample_positive",
    "rater_counts",
    "rater_masks",
    "blob_fields",
]


if getattr(config, "DISABLE_JIT", False):  # pure Python (NUMBA_DISABLE_JIT=1): an intrinsic cannot run outside numba
    def _popcount64(x):
        return int(x).bit_count()
else:
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


# Multiplying a uint64 holding eight 0/1 bytes by this constant gathers byte i's
# bit into bit 56 + i (no two partial products share a bit, so nothing carries).
_GATHER = np.uint64(0x0102040810204080)


@njit(cache=True, nogil=True)
def _pack_bytes8(x):
    """Eight 0/1 bytes (little-endian in a uint64) -> 8 bits, byte i -> bit i."""
    return (x * _GATHER) >> np.uint64(56)


def pack_rows(masks):
    """Bit-pack every row of a (k, n) uint8 0/1 array: uint64 words (k, ceil(n/64)), layout of the module notes.

    Rows whose length is a multiple of 64 (the pixel pass allocates its masks so,
    zero-padded) are packed in place through a uint64 view; others are copied
    into zero-padded rows first.
    """
    masks = np.asarray(masks, dtype=np.uint8)
    k, n = masks.shape
    if n % 64 or not masks.flags.c_contiguous:
        padded = np.zeros((k, -(-n // 64) * 64), dtype=np.uint8)
        padded[:, :n] = masks
        masks = padded
    return _pack_rows64(masks.view(np.uint64))


@njit(cache=True, nogil=True)
def _pack_rows64(masks64):
    """Kernel of :func:`pack_rows`: each row's 0/1 bytes viewed as uint64, eight per word."""
    k, m = masks64.shape
    n_words = m // 8
    out = np.empty((k, n_words), dtype=np.uint64)
    for j in range(k):
        for w in range(n_words):
            acc = np.uint64(0)
            for q in range(8):
                x = masks64[j, 8 * w + q]
                if x:
                    acc |= _pack_bytes8(x) << np.uint64(8 * q)
            out[j, w] = acc
    return out


@njit(cache=True, nogil=True)
def pattern_hist(words, n):
    """Pattern histogram of ``k`` packed masks of ``n`` pixels (int64, 2**k).

    ``words`` is uint64 (k, ceil(n/64)) as made by :func:`pack_rows`; entry ``c``
    counts the pixels whose annotators ``j`` with bit ``j`` of ``c`` set are
    exactly the foreground ones. A word with no foreground in any mask (most of
    an image) costs ``k`` ORs; pattern 0 is what is left of the ``n`` pixels.
    """
    k, n_words = words.shape
    n_pat = 1 << k
    hist = np.zeros(n_pat, dtype=np.int64)
    for w in range(n_words):
        if _any_word(words, w) == 0:
            continue
        for c in range(1, n_pat):
            hist[c] += _popcount64(_pattern_word(words, w, c))
    hist[0] = n - hist[1:].sum()
    return hist


@njit(cache=True, nogil=True, inline="always")
def _any_word(words, w):
    """The pixels of word ``w`` that are foreground in at least one of the masks."""
    any_set = np.uint64(0)
    for j in range(words.shape[0]):
        any_set |= words[j, w]
    return any_set


@njit(cache=True, nogil=True, inline="always")
def _pattern_word(words, w, c):
    """The pixels of word ``w`` whose foreground masks are exactly the bits of ``c`` (``c`` > 0)."""
    p = ~np.uint64(0)
    for j in range(words.shape[0]):
        p &= words[j, w] if (c >> j) & 1 else ~words[j, w]
    return p


@njit(cache=True, nogil=True)
def golds_from_words(words, lut, n):
    """Bit-packed golds from ``k`` packed masks of ``n`` pixels through look-up tables over their patterns.

    ``lut`` is uint8 0/1 of shape (g, 2**k): gold ``r`` is foreground at the
    pixels whose pattern ``c`` has ``lut[r, c]``. Returns uint64 (g, ceil(n/64));
    the bits past ``n`` are zero. Per word, every pattern's pixels are one
    AND over the masks, and each gold is the OR of its patterns' words.
    """
    n_words = words.shape[1]
    g, n_pat = lut.shape
    out = np.zeros((g, n_words), dtype=np.uint64)
    ones = ~np.uint64(0)
    tail = n - 64 * (n_words - 1)
    last = ones if tail == 64 else (np.uint64(1) << np.uint64(tail)) - np.uint64(1)
    for w in range(n_words):
        any_set = _any_word(words, w)
        p0 = ~any_set & (last if w == n_words - 1 else ones)
        if p0:
            for r in range(g):
                if lut[r, 0]:
                    out[r, w] |= p0
        if any_set == 0:
            continue
        for c in range(1, n_pat):
            p = _pattern_word(words, w, c)
            if p:
                for r in range(g):
                    if lut[r, c]:
                        out[r, w] |= p
    return out


@njit(cache=True, nogil=True)
def count_run_words(run64, tail, gold_words):
    """Kernel of :func:`count_run`.

    ``run64`` is the run's 0/1 bytes viewed as uint64 (eight pixels per element, a multiple of 8 elements),
    ``tail`` the remaining bytes.
    """
    g, n_words = gold_words.shape
    tp = np.zeros(g, dtype=np.int64)
    size = 0
    n_full = run64.size // 8
    for w in range(n_full):
        acc = np.uint64(0)
        for q in range(8):
            x = run64[8 * w + q]
            if x:
                acc |= _pack_bytes8(x) << np.uint64(8 * q)
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
    of shape (g, ceil(n/64)) as made by :func:`golds_from_words`. Returns ``(size, tp)``:
    the run's number of foreground pixels and, for every gold ``r``, the number
    of pixels in both (int64, g). FP = size - TP, FN = |gold| - TP.
    """
    run = np.ascontiguousarray(run, dtype=np.uint8)
    m = run.size - run.size % 64
    return count_run_words(run[:m].view(np.uint64), run[m:], gold_words)


@njit(cache=True, nogil=True, inline="always")
def _positive_at(coarse, y, x, sy, sx):
    """Pixel (y, x) of the bilinear interpolation of ``coarse`` (steps ``sy``, ``sx`` between pixels) is > 0."""
    ch, cw = coarse.shape
    fy = y * sy
    y0 = min(int(fy), ch - 2)
    ty = fy - y0
    fx = x * sx
    x0 = min(int(fx), cw - 2)
    tx = fx - x0
    top = coarse[y0, x0] * (1 - tx) + coarse[y0, x0 + 1] * tx
    bot = coarse[y0 + 1, x0] * (1 - tx) + coarse[y0 + 1, x0 + 1] * tx
    return top * (1 - ty) + bot * ty > 0.0


#: A cell whose four corners all lie in (SURE_POSITIVE, inf) interpolates to > 0 everywhere inside it: each
#: weight is at least 2**-53, so no product underflows (see :func:`_cell_signs`).
SURE_POSITIVE = 1e-200


@njit(cache=True, nogil=True)
def _cell_signs(coarse):
    """Per coarse cell: 1 where every pixel inside interpolates to > 0, -1 where none does, 0 to compute each.

    Exact, not approximate: inside a cell the bilinear value is a sum of corners times weights in [2**-53, 1]
    (``1 - t`` with ``t`` in [0, 1)) and [0, 1); four finite corners above :data:`SURE_POSITIVE` give a positive
    sum, four corners at or below 0 a sum at or below 0 (an infinite or nan corner is left to the pixel). The
    clipped last row and column of pixels (``t`` may reach 1 there) are always computed (:func:`_axis_cells`).
    """
    ch, cw = coarse.shape
    out = np.zeros((ch - 1, cw - 1), dtype=np.int8)
    for y in range(ch - 1):
        for x in range(cw - 1):
            a, b, c, d = coarse[y, x], coarse[y, x + 1], coarse[y + 1, x], coarse[y + 1, x + 1]
            if (SURE_POSITIVE < a < np.inf and SURE_POSITIVE < b < np.inf and SURE_POSITIVE < c < np.inf
                    and SURE_POSITIVE < d < np.inf):
                out[y, x] = 1
            elif a <= 0.0 and b <= 0.0 and c <= 0.0 and d <= 0.0:
                out[y, x] = -1
    return out


@njit(cache=True, nogil=True)
def _axis_cells(n, c):
    """The coarse cell of each of ``n`` pixels along an axis of ``c`` coarse points, -1 where it is clipped.

    With one coarse point every pixel is clipped: no cell decides, each pixel is interpolated as before.
    """
    s = (c - 1) / max(n - 1, 1)
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        i = int(k * s)  # as _positive_at computes it
        out[k] = i if i <= c - 2 else -1
    return out


@njit(cache=True, nogil=True, inline="always")
def _sign_at(signs, rows, cols, y, x):
    """The cell sign of pixel (y, x): 0 (compute it) on a clipped row or column."""
    r, c = rows[y], cols[x]
    return 0 if r < 0 or c < 0 else signs[r, c]


@njit(cache=True, nogil=True)
def upsample_positive(coarse, h, w):
    """Bilinear interpolation of a coarse field to (h, w), thresholded at > 0.

    Pixels in a cell whose corners decide the sign (:func:`_cell_signs`) take it; the others are interpolated.
    """
    ch, cw = coarse.shape
    out = np.empty((h, w), dtype=np.bool_)
    _upsample_into(coarse, out, (_axis_cells(h, ch), _axis_cells(w, cw)))
    return out


@njit(cache=True, nogil=True, inline="always")
def _upsample_into(coarse, out, cells):
    """:func:`upsample_positive` of ``coarse`` written into ``out`` (h, w); ``cells``: its axes' :func:`_axis_cells`."""
    ch, cw = coarse.shape
    h, w = out.shape
    sy = (ch - 1) / max(h - 1, 1)
    sx = (cw - 1) / max(w - 1, 1)
    rows, cols = cells
    signs = _cell_signs(coarse)
    for y in range(h):
        for x in range(w):
            s = _sign_at(signs, rows, cols, y, x)
            out[y, x] = s > 0 if s != 0 else _positive_at(coarse, y, x, sy, sx)


@njit(cache=True, nogil=True)
def _count_positive(f, truth, rows, cols, sy, sx):
    """The pixels of ``truth``'s shape where the upsampled ``f`` is > 0, and how many of them are in ``truth``."""
    h, w = truth.shape
    signs = _cell_signs(f)
    size = 0
    tp = 0
    for y in range(h):
        for x in range(w):
            s = _sign_at(signs, rows, cols, y, x)
            if s > 0 or s == 0 and _positive_at(f, y, x, sy, sx):
                size += 1
                tp += truth[y, x]
    return size, tp


@njit(cache=True, nogil=True)
def _rater_field(fields, keep, false_blobs, level, amp, noise, r, f):
    """Fill ``f`` (ch, cw) with rater ``r``'s coarse field ``(max(kept fields) + level) + amp * noise``.

    The arguments are :func:`rater_counts`'s; False where the rater keeps no field (nothing drawn; ``f`` left at
    -inf).
    """
    extra_start, n_extra = false_blobs
    rows_of_noise, noise_of = noise
    n_b = keep.shape[1]
    ch, cw = f.shape
    used = 0
    f[:, :] = -np.inf
    for b in range(n_b + n_extra[r]):
        k = b if b < n_b else n_b + extra_start[r] + b - n_b
        if b < n_b and not keep[r, b]:
            continue
        used += 1
        for y in range(ch):
            for x in range(cw):
                if fields[k, y, x] > f[y, x]:
                    f[y, x] = fields[k, y, x]
    if used == 0:
        return False
    z = rows_of_noise[noise_of[r]]
    for y in range(ch):
        for x in range(cw):
            f[y, x] = (f[y, x] + level[r]) + amp[r] * z[y, x]
    return True


@njit(cache=True, nogil=True)
def rater_counts(fields, keep, false_blobs, level, amp, noise, empty, truth):
    """TP, FP, FN against ``truth`` of raters drawn as ``max(kept fields) + level + amp * noise > 0``, upsampled.

    ``fields`` (F, ch, cw): the lesion's ``B`` blob fields, then the false blobs; ``keep`` (R, B) which lesion
    blobs each rater keeps; ``false_blobs = (extra_start, n_extra)``: rater ``r`` adds false blobs
    ``B + extra_start[r]`` .. ``+ n_extra[r]``; ``level``, ``amp`` (R,); ``noise = (rows, noise_of)``: rows
    (K, ch, cw) and each rater's row (R,); ``empty`` (R,) draws nothing; ``truth`` (h, w) bool. The mask is
    :func:`upsample_positive` of the coarse field, as the generator draws it, and is never made: returns int64
    (R, 3).
    """
    n_r = keep.shape[0]
    ch, cw = fields.shape[1], fields.shape[2]
    h, w = truth.shape
    n_t = 0
    for y in range(h):
        for x in range(w):
            n_t += truth[y, x]
    out = np.zeros((n_r, 3), dtype=np.int64)
    f = np.empty((ch, cw))
    sy = (ch - 1) / max(h - 1, 1)
    sx = (cw - 1) / max(w - 1, 1)
    rows, cols = _axis_cells(h, ch), _axis_cells(w, cw)
    for r in range(n_r):
        if empty[r] or not _rater_field(fields, keep, false_blobs, level, amp, noise, r, f):
            out[r, 2] = n_t
            continue
        size, tp = _count_positive(f, truth, rows, cols, sy, sx)
        out[r, 0] = tp
        out[r, 1] = size - tp
        out[r, 2] = n_t - tp
    return out


@njit(cache=True, nogil=True)
def rater_masks(fields, keep, false_blobs, level, amp, noise, empty, shape):
    """The masks of :func:`rater_counts`'s raters at ``shape`` (h, w): bool (R, h, w), all False where none drawn.

    Each mask is :func:`upsample_positive` of the rater's coarse field, as the generator draws it one by one.
    """
    n_r = keep.shape[0]
    ch, cw = fields.shape[1], fields.shape[2]
    h, w = shape
    out = np.zeros((n_r, h, w), dtype=np.bool_)
    f = np.empty((ch, cw))
    cells = (_axis_cells(h, ch), _axis_cells(w, cw))
    for r in range(n_r):
        if not empty[r] and _rater_field(fields, keep, false_blobs, level, amp, noise, r, f):
            _upsample_into(f, out[r], cells)
    return out


@njit(cache=True, nogil=True)
def blob_fields(grid, area, cy, cx, aspect, angle, amps, phases):
    """Blob fields ``1 - d / R(theta)`` of ``n`` blobs on a grid ``(ys, xs)``: float64 (n, len(ys), len(xs)).

    Blob ``b`` has centre (``cy[b]``, ``cx[b]``), area ``area[b]`` (radius
    ``r = sqrt(area / pi)``), an anisotropy ``aspect[b]`` along the direction
    ``angle[b]``, and a wavy radius ``R(theta) = r (1 + sum_m amps[b, m-2] cos(m theta + phases[b, m-2]))``
    for the harmonics ``m = 2, 3, ...``. ``d`` is the anisotropic distance to the
    centre: ``u = (dy cos a + dx sin a) sqrt(aspect)``, ``v = (-dy sin a + dx cos a) / sqrt(aspect)``,
    ``d = hypot(u, v)``, ``theta = atan2(v, u)``; the field is 1 at the centre,
    0 on the boundary, negative outside (``R`` floored at 1e-9).
    """
    ys, xs = grid
    n = area.size
    n_h = amps.shape[1]
    n_x = xs.size
    out = np.empty((n, ys.size, n_x), dtype=np.float64)
    # one grid row at a time, each step over the whole row (loops the compiler turns into vector instructions);
    # every point sees the same operations in the same order as one point at a time would
    d, c1, s1 = np.empty(n_x), np.empty(n_x), np.empty(n_x)
    ck, sk, wave = np.empty(n_x), np.empty(n_x), np.empty(n_x)
    for b in range(n):
        r = np.sqrt(area[b] / np.pi)
        ca, sa = np.cos(angle[b]), np.sin(angle[b])
        sq = np.sqrt(aspect[b])
        cph = np.cos(phases[b])
        sph = np.sin(phases[b])
        for i in range(ys.size):
            dy = ys[i] - cy[b]
            for j in range(n_x):
                dx = xs[j] - cx[b]
                u = (dy * ca + dx * sa) * sq
                v = (-dy * sa + dx * ca) / sq
                dj = np.sqrt(u * u + v * v)
                d[j] = dj
                c1[j] = ck[j] = u / dj if dj > 0 else 1.0
                s1[j] = sk[j] = v / dj if dj > 0 else 0.0
                wave[j] = 0.0
            for m in range(n_h):
                a, cp, sp = amps[b, m], cph[m], sph[m]
                for j in range(n_x):
                    c, s = ck[j], sk[j]
                    ck[j], sk[j] = c * c1[j] - s * s1[j], s * c1[j] + c * s1[j]  # cos, sin of (m + 2) theta
                    wave[j] += a * (ck[j] * cp - sk[j] * sp)
            row = out[b, i]
            for j in range(n_x):
                row[j] = 1.0 - d[j] / max(r * (1.0 + wave[j]), 1e-9)
    return out
