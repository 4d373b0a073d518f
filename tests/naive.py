"""Slow, obviously correct numpy twins of every numba kernel in ``robustness._kernels``, in one place.

Each ``twin_<kernel>`` computes what the kernel of the same name computes, by
the plainest route (Python loops, scipy). ``tests/kernels/test_kernels.py`` compares
every kernel with its twin on random inputs (hypothesis) and on the hand-made
cases of :func:`tiny_cases`, which the suite also runs with numba's JIT
disabled (``NUMBA_DISABLE_JIT=1``) so that the kernels' Python source is
exercised and seen by coverage: ``python -m tests.naive`` runs them.
"""

from __future__ import annotations

import numpy as np

# -- pixel kernels ------------------------------------------------------------------------------


def twin_binarize(values, fg, bg, nonzero):
    """(0/1 mask, number of foreground values, number of background values)."""
    mask = (values != bg) if nonzero else (values == fg)
    return mask.astype(np.uint8), int((values == fg).sum()), int((values == bg).sum())


def twin_pattern_codes(masks):
    """Rater pattern of every pixel (bit j = annotator j) and the pattern histogram."""
    k = masks.shape[0]
    codes = np.zeros(masks.shape[1], dtype=np.int64)
    for j in range(k):
        codes += masks[j].astype(np.int64) * 2**j
    return codes, np.array([(codes == p).sum() for p in range(2**k)])


def twin_pack(bits01):
    """Pixel p -> bit p % 64 of word p // 64, by explicit arithmetic."""
    n = bits01.size
    words = []
    for w in range((n + 63) // 64):
        chunk = bits01[w * 64:(w + 1) * 64]
        words.append(sum(int(b) << i for i, b in enumerate(chunk)))
    return np.array(words, dtype=np.uint64)


def twin_pack_rows(masks):
    """Every row packed by :func:`twin_pack`."""
    return np.stack([twin_pack(row) for row in masks])


def twin_pattern_hist(masks):
    """The pattern histogram, pixel by pixel (from the unpacked masks)."""
    return twin_pattern_codes(masks)[1]


def twin_golds_from_words(masks, lut):
    """Gold ``r`` at pixel p is ``lut[r, pattern of p]``, packed by :func:`twin_pack`."""
    codes, _ = twin_pattern_codes(masks)
    return np.stack([twin_pack(lut[r][codes]) for r in range(lut.shape[0])])


def twin_count_run(run, golds01):
    """(foreground pixels of the run, its overlap with every gold)."""
    return int(run.sum()), np.array([int((run.astype(bool) & g.astype(bool)).sum()) for g in golds01])


def twin_upsample(coarse, h, w):
    """Bilinear interpolation of a coarse field to (h, w), thresholded at > 0, pixel by pixel."""
    ch, cw = coarse.shape
    ys = np.arange(h) * ((ch - 1) / max(h - 1, 1))  # grid positions, same arithmetic as documented
    xs = np.arange(w) * ((cw - 1) / max(w - 1, 1))
    out = np.empty((h, w), bool)
    for y, fy in enumerate(ys):
        for x, fx in enumerate(xs):
            y0, x0 = min(int(fy), ch - 2), min(int(fx), cw - 2)
            ty, tx = fy - y0, fx - x0
            v = (coarse[y0, x0] * (1 - tx) + coarse[y0, x0 + 1] * tx) * (1 - ty) + \
                (coarse[y0 + 1, x0] * (1 - tx) + coarse[y0 + 1, x0 + 1] * tx) * ty
            out[y, x] = v > 0
    return out


def twin_rater_masks(fields, keep, false_blobs, level, amp, noise, empty, shape):
    """Each rater's mask made whole: the max over its fields, plus level and noise, upsampled (R, h, w)."""
    (extra_start, n_extra), (rows, noise_of) = false_blobs, noise
    n_b = keep.shape[1]
    out = np.zeros((keep.shape[0], *shape), bool)
    for r in range(keep.shape[0]):
        chosen = [fields[b] for b in range(n_b) if keep[r, b]]
        chosen += [fields[n_b + extra_start[r] + j] for j in range(n_extra[r])]
        if not empty[r] and chosen:
            out[r] = twin_upsample((np.max(chosen, axis=0) + level[r]) + amp[r] * rows[noise_of[r]], *shape)
    return out


def twin_rater_counts(fields, keep, false_blobs, level, amp, noise, empty, truth):
    """Each rater's mask made whole (:func:`twin_rater_masks`), then counted against ``truth``."""
    masks = twin_rater_masks(fields, keep, false_blobs, level, amp, noise, empty, truth.shape)
    out = [[np.sum(mask & truth), np.sum(mask & ~truth), np.sum(~mask & truth)] for mask in masks]
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def twin_blob_fields(grid, area, cy, cx, aspect, angle, amps, phases):
    """The blob fields of the module notes, with arctan2 and cos of every harmonic (numpy, whole arrays)."""
    ys, xs = np.asarray(grid[0])[:, None], np.asarray(grid[1])[None, :]
    harm = np.arange(2, 2 + amps.shape[1])
    r = np.sqrt(area / np.pi)[:, None, None]
    dy, dx = ys[None] - cy[:, None, None], xs[None] - cx[:, None, None]
    ca, sa = np.cos(angle)[:, None, None], np.sin(angle)[:, None, None]
    sq = np.sqrt(aspect)[:, None, None]
    u = (dy * ca + dx * sa) * sq
    v = (-dy * sa + dx * ca) / sq
    theta = np.arctan2(v, u)
    wave = (amps[:, :, None, None] * np.cos(harm[None, :, None, None] * theta[:, None] + phases[:, :, None, None]))
    return 1.0 - np.hypot(u, v) / np.maximum(r * (1.0 + wave.sum(axis=1)), 1e-9)


# -- ranking kernels ----------------------------------------------------------------------------


def twin_rank_rows(scores, tol, method):
    """Ranks per row: 1 = highest; neighbours within ``tol`` in sorted order tie; nan last.

    ``method``: 0 average, 1 min, 2 max, 3 first (tied runs in the order of their index), 4 last (in the
    reverse order, but nan scores in the order of their index).
    """
    scores = np.asarray(scores, dtype=float)
    out = np.empty(scores.shape)
    for i, row in enumerate(scores):
        vals = [(-np.inf if np.isnan(v) else v, k) for k, v in enumerate(row)]
        vals.sort(key=lambda t: -t[0])  # stable: equal scores keep their order
        groups, current = [], [vals[0]]
        for prev, cur in zip(vals, vals[1:]):
            if prev[0] == cur[0] or prev[0] - cur[0] <= tol:
                current.append(cur)
            else:
                groups.append(current)
                current = [cur]
        groups.append(current)
        start = 1
        for g in groups:
            if method == 3 or (method == 4 and g[0][0] == -np.inf):
                for pos, k in enumerate(sorted(k for _, k in g)):
                    out[i, k] = start + pos
            elif method == 4:
                for pos, k in enumerate(sorted((k for _, k in g), reverse=True)):
                    out[i, k] = start + pos
            else:
                r = {0: start + (len(g) - 1) / 2, 1: start, 2: start + len(g) - 1}[method]
                for _, k in g:
                    out[i, k] = r
            start += len(g)
    return out


def twin_kendall_tau_b(x, y):
    """Kendall's tau-b (scipy.stats.kendalltau)."""
    from scipy.stats import kendalltau

    return kendalltau(x, y).statistic


def twin_scores_from_sums(sums, weights):
    """``num . sums[cols] / den . sums[cols]`` per scheme and run, ``empty`` where the denominator is 0."""
    cols, num, den, empty = weights
    n_s, n_r = cols.shape[:2]
    out = np.empty((n_s, n_r))
    for s in range(n_s):
        for r in range(n_r):
            v = [sums[c] for c in cols[s, r]]
            n = sum(w * x for w, x in zip(num[s], v) if w != 0)
            d = sum(w * x for w, x in zip(den[s], v) if w != 0)
            out[s, r] = n / d if d != 0 else empty[s]
    return out


def twin_resample_sums(x, idx):
    """``out[b] = sum_j x[idx[b, j]]``, added in draw order."""
    out = np.zeros((idx.shape[0], x.shape[1]))
    for b in range(idx.shape[0]):
        for j in idx[b]:
            out[b] += x[j]
    return out


def twin_l1_curves(x, weights, orders, positions, final_ranks, tol, method):
    """L1 to ``final_ranks`` after each recorded prefix of each order: sum, score, rank, compare."""
    out = np.empty((weights[0].shape[0], orders.shape[0], positions.size), dtype=np.float32)
    for k, order in enumerate(orders):
        for p, n in enumerate(positions):
            sums = twin_resample_sums(x, order[None, :n])[0]
            ranks = twin_rank_rows(twin_scores_from_sums(sums, weights), tol, method)
            out[:, k, p] = np.abs(ranks - final_ranks).sum(axis=1)
    return out


# -- test-based ranking kernels ------------------------------------------------------------------


def twin_signed_rank_z(w, order, positive, new_group, length):
    """Rebuild each pair's differences from the sorted units (``|d|`` = its tie group's number, with its sign),
    repeat every unit by its weight, and ask ``scipy.stats.wilcoxon`` (asymptotic, one-sided) for z."""
    from scipy.stats import wilcoxon

    n_s, n_p = length.shape
    out = np.zeros((n_s, n_p))
    for s in range(n_s):
        for p in range(n_p):
            k = length[s, p]
            magnitude = np.cumsum(new_group[s, p, :k]).astype(float)
            d = np.repeat(np.where(positive[s, p, :k] > 0, magnitude, -magnitude), w[order[s, p, :k]].astype(int))
            if d.size:
                out[s, p] = wilcoxon(d, alternative="greater", method="asymptotic").zstatistic
    return out


def twin_runs_beaten(w, tests):
    """Both one-sided p-values of every pair from z, Holm over all of them (robustness.statistics.multiplicity.adjust), and
    per run the number of adjusted p-values below alpha it wins."""
    from scipy.stats import norm

    from robustness.statistics.multiplicity import adjust

    order, positive, new_group, length, pair_i, pair_j, n_runs, alpha, holm = tests
    z = twin_signed_rank_z(w, order, positive, new_group, length)
    out = np.zeros((length.shape[0], n_runs))
    for s in range(length.shape[0]):
        p = np.concatenate([norm.sf(z[s]), norm.sf(-z[s])])
        winner = np.concatenate([pair_i, pair_j])
        adjusted = adjust(p, "holm") if holm else p
        for k in np.flatnonzero(adjusted < alpha):
            out[s, winner[k]] += 1
    return out


def twin_beaten_l1_curves(tests, orders, positions, final_ranks, tol, method):
    """For every order and recorded prefix: weights 1 on the prefix's units, runs beaten, ranks, L1."""
    out = np.empty((tests[3].shape[0], orders.shape[0], positions.size), dtype=np.float32)
    for k, o in enumerate(orders):
        for p, n in enumerate(positions):
            w = np.zeros(orders.shape[1])
            w[o[:n]] = 1.0
            wins = twin_runs_beaten(w, tests)
            out[:, k, p] = np.abs(twin_rank_rows(wins, tol, method) - final_ranks).sum(axis=1)
    return out


def twin_beaten_resamples(tests, idx):
    """Runs beaten on every resample: a unit drawn c times weighs c."""
    n_units = tests[0].shape[2]
    return np.stack([twin_runs_beaten(np.bincount(i, minlength=n_units).astype(float), tests) for i in idx], axis=1)


# -- hand-made cases, run jitted and with NUMBA_DISABLE_JIT=1 --------------------------------------


# -- distance to unlimited data ---------------------------------------------------------------------


def twin_margin_l1(draws, noise, scale, margin):
    """For every draw d and noise f: average ranks of ``draws[d] + scale * noise[f]`` (scipy.stats.rankdata, 1 =
    best); each run's distance to the range of ranks it may take when population scores within ``margin`` tie."""
    from scipy.stats import rankdata

    draws, noise = np.asarray(draws, float), np.asarray(noise, float)
    out = np.empty((draws.shape[0], noise.shape[0]))
    for d, theta in enumerate(draws):
        gap = theta[None, :] - theta[:, None]  # gap[i, j] = theta_j - theta_i
        above = (gap > margin).sum(axis=1)
        near = (np.abs(gap) <= margin).sum(axis=1) - 1
        lo, hi = 1.0 + above, 1.0 + above + near
        for f, z in enumerate(noise):
            r = rankdata(-(theta + scale * z), method="average")
            out[d, f] = (np.maximum(lo - r, 0) + np.maximum(r - hi, 0)).sum()
    return out


# -- boundary metrics -------------------------------------------------------------------------------------------


def twin_surface_of(mask, planar):
    """Foreground voxels with a background face neighbour, from the zero-padded mask shifted six (or four) ways."""
    m = np.asarray(mask, bool)
    p = np.pad(m, 1)
    inner = (slice(1, -1),) * 3
    edge = np.zeros_like(m)
    for axis in (1, 2) if planar else (0, 1, 2):
        for step in (-1, 1):
            edge |= ~np.roll(p, step, axis=axis)[inner]
    return m & edge


def twin_squared_edt(sources, spacing):
    """Squared distance from every voxel to every source voxel, the smallest (brute force; inf without sources)."""
    src = np.argwhere(sources) * np.asarray(spacing, float)
    allv = np.argwhere(np.ones(sources.shape, bool)) * np.asarray(spacing, float)
    if not len(src):
        return np.full(sources.shape, np.inf)
    d2 = ((allv[:, None, :] - src[None, :, :]) ** 2).sum(axis=-1).min(axis=1)
    return d2.reshape(sources.shape)


def twin_surface_distances(a, b, spacing, planar):
    """Every border voxel's distance to the other border, by all pairwise distances (scipy's cdist)."""
    from scipy.spatial.distance import cdist

    sa = np.argwhere(twin_surface_of(a, planar)) * np.asarray(spacing, float)
    sb = np.argwhere(twin_surface_of(b, planar)) * np.asarray(spacing, float)
    if not len(sa) or not len(sb):
        return np.full(len(sa), np.inf), np.full(len(sb), np.inf)
    d = cdist(sa, sb)
    return d.min(axis=1), d.min(axis=0)


def twin_mask_box(a):
    """The foreground's smallest box (z0, z1, y0, y1, x0, x1), ends exclusive, from every foreground coordinate."""
    where = np.argwhere(np.asarray(a, bool))
    if not len(where):
        return None
    lo, hi = where.min(axis=0), where.max(axis=0) + 1
    return tuple(int(v) for pair in zip(lo, hi) for v in pair)


def twin_label_sizes(labels, n):
    """Voxels of each label 1..n, one count per label."""
    return np.array([np.count_nonzero(labels == k) for k in range(1, n + 1)], dtype=np.int64)


def twin_union_box(boxes):
    """The smallest (lo, hi) holding every box: the smallest start and the largest end on each axis, in a loop."""
    found = [b for b in boxes if b is not None]
    if not found:
        return None
    lo = [min(b[2 * k] for b in found) for k in range(3)]
    hi = [max(b[2 * k + 1] for b in found) for k in range(3)]
    return np.array(lo), np.array(hi)


def twin_distances_at(sources, index_sets, spacing):
    """The distance to the nearest source voxel at each flat index of each set (brute force; inf without sources)."""
    full = np.sqrt(twin_squared_edt(sources, spacing)).reshape(-1)
    return [full[np.asarray(idx, dtype=np.int64)] for idx in index_sets]


# -- the image twin's band ----------------------------------------------------------------------------------------


def twin_threshold_band(flat, dist, crop_shape, spacing, displacement):
    """(bits, clipped): the field by scipy's linear interpolation of the lattice (clamped to its edges), at every
    band voxel's physical position."""
    from scipy.ndimage import map_coordinates

    lattice, lattice_step, offset, scale, bound = displacement
    zyx = np.array(np.unravel_index(np.asarray(flat), tuple(int(v) for v in crop_shape)), dtype=np.float64)
    coords = zyx * (np.asarray(spacing, np.float64) / np.asarray(lattice_step, np.float64))[:, None]
    for a in range(3):
        coords[a] = np.clip(coords[a], 0, lattice.shape[a] - 1)
    field = map_coordinates(np.asarray(lattice, np.float64), coords, order=1, mode="nearest")
    delta = offset + scale * field
    clipped = int(((delta > bound) | (delta < -bound)).sum())
    delta = np.clip(delta, -bound, bound)
    return (np.asarray(dist) < delta).astype(np.uint8), clipped


def tiny_cases() -> int:
    """Every kernel on tiny hand-made inputs, checked against its twin and against numbers worked out by hand.

    Returns the number of kernels checked; raises AssertionError on a difference.
    """
    from robustness import _kernels

    checked = 0
    # pixels: three annotators on a 3x3 image, patterns spelled out
    a0 = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]], np.uint8)
    a1 = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], np.uint8)
    a2 = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], np.uint8)
    masks = np.stack([a0.ravel(), a1.ravel(), a2.ravel()])
    words = _kernels.pack_rows(masks)
    assert words[:, 0].tolist() == [0b000010011, 0b000110001, 0b100000011] == twin_pack_rows(masks)[:, 0].tolist()
    checked += 1
    hist = _kernels.pattern_hist(words, 9)  # patterns 7 5 0 / 0 3 2 / 0 0 4
    assert hist.tolist() == [4, 0, 1, 1, 1, 1, 0, 1] == twin_pattern_hist(masks).tolist()
    checked += 1
    majority = np.array([0, 0, 0, 1, 0, 1, 1, 1], np.uint8)  # >= 2 of 3
    gold = _kernels.golds_from_words(words, majority[None, :], 9)
    assert int(gold[0, 0]) == 0b000010011 == int(twin_golds_from_words(masks, majority[None, :])[0, 0])  # pixels 0, 1, 4
    background = _kernels.golds_from_words(words, np.array([[1, 0, 0, 0, 0, 0, 0, 0]], np.uint8), 9)
    assert int(background[0, 0]) == 0b011001100  # pattern 0: pixels 2, 3, 6, 7 and no bit past the 9th
    checked += 1
    run = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]], np.uint8).ravel()
    size, tp = _kernels.count_run(run, gold)
    codes, _ = twin_pattern_codes(masks)
    assert (size, tp.tolist()) == (3, [2]) == (twin_count_run(run, majority[codes][None])[0], [2])
    long_run = np.zeros(130, np.uint8)
    long_run[[0, 63, 64, 127, 128, 129]] = 1  # two full words and a tail of 2
    w = _kernels.pack_rows(long_run[None])
    assert w.shape == (1, 3) and int(w[0, 2]) == 0b11
    assert _kernels.count_run(long_run, w)[1].tolist() == [6]
    checked += 3  # pack_rows' kernel, count_run and count_run_words
    values = np.array([0, 1, 255, 7, 1], np.uint8)
    inplace = values.copy()
    n_fg, n_bg = _kernels.binarize(inplace, np.uint8(1), np.uint8(0), False)
    em, efg, ebg = twin_binarize(values, 1, 0, False)
    assert inplace.tolist() == em.tolist() == [0, 1, 0, 0, 1] and (n_fg, n_bg) == (efg, ebg) == (2, 1)
    checked += 1
    coarse = np.array([[-1.0, 1.0], [-1.0, 1.0]])
    up = _kernels.upsample_positive(coarse, 3, 5)
    assert up.tolist() == twin_upsample(coarse, 3, 5).tolist() == [[False, False, False, True, True]] * 3
    checked += 1
    # a round blob of radius 2 at the centre of a 5x5 grid: 1 at the centre, 0 on the circle, 0.5 half way
    grid = (np.arange(5.0), np.arange(5.0))
    f = _kernels.blob_fields(grid, np.array([4 * np.pi]), np.array([2.0]), np.array([2.0]), np.array([1.0]),
                             np.array([0.0]), np.zeros((1, 4)), np.zeros((1, 4)))
    assert f[0, 2, 2] == 1.0 and f[0, 2, 0] == 0.0 and f[0, 2, 1] == 0.5 and f[0, 0, 2] == 0.0
    t = twin_blob_fields(grid, np.array([4 * np.pi]), np.array([2.0]), np.array([2.0]), np.array([1.0]),
                         np.array([0.0]), np.zeros((1, 4)), np.zeros((1, 4)))
    assert np.abs(f - t).max() < 1e-12
    checked += 1

    # ranking: 3 runs, one micro-Jaccard scheme and one macro mean over 3 units
    scores = np.array([[0.5, np.nan, 0.7, 0.5]])
    for method in (0, 1):
        assert _kernels.rank_rows(scores, 1e-12, method).tolist() == twin_rank_rows(scores, 1e-12, method).tolist()
    assert _kernels.rank_rows(scores, 1e-12, 0).tolist() == [[2.5, 4.0, 1.0, 2.5]]
    checked += 1
    x1, y1 = np.array([1.0, 2.0, 3.0, 3.0]), np.array([1.0, 3.0, 2.0, 4.0])
    assert abs(_kernels.kendall_tau_b(x1, y1) - twin_kendall_tau_b(x1, y1)) < 1e-12
    checked += 1
    # per-unit statistics: columns 0-8 are (tp, fp, fn) of runs 0-2, column 9 the per-unit score sum
    # of run 0, column 10 the number of images
    x = np.array([[2, 1, 1, 0, 2, 2, 1, 0, 0, 0.5, 1],
                  [1, 0, 1, 1, 0, 1, 0, 0, 2, 1.0, 1],
                  [0, 0, 0, 3, 1, 0, 2, 2, 0, 0.0, 1]], dtype=np.float64)
    cols = np.array([[[0, 1, 2], [3, 4, 5], [6, 7, 8]], [[9, 10, 10], [9, 10, 10], [9, 10, 10]]])
    num = np.array([[1.0, 0, 0], [1.0, 0, 0]])
    den = np.array([[1.0, 1, 1], [0, 1.0, 0]])
    empty = np.array([1.0, np.nan])
    sums = x.sum(axis=0)
    weights = (cols, num, den, empty)
    got = _kernels.scores_from_sums(sums, weights)
    assert got.tolist() == twin_scores_from_sums(sums, weights).tolist()
    assert got[0].tolist() == [3 / 6, 4 / 10, 3 / 7] and got[1, 0] == 0.5
    checked += 1
    idx = np.array([[0, 0, 2], [1, 2, 1]])
    assert _kernels.resample_sums(x, idx).tolist() == twin_resample_sums(x, idx).tolist()
    checked += 1
    orders = np.array([[0, 1, 2], [2, 1, 0]])
    positions = np.array([1, 2, 3])
    final = twin_rank_rows(got, 1e-12, 0)
    curves = _kernels.l1_curves(x, weights, orders, positions, final, 1e-12, 0)
    twin = twin_l1_curves(x, weights, orders, positions, final, 1e-12, 0)
    assert curves.tolist() == twin.tolist() and (curves[:, :, -1] == 0).all()
    checked += 1

    # test-based: 3 runs on 4 units, pairs (0, 1), (0, 2), (1, 2), their units sorted by |d| by hand
    # d01 = [1, 1, 1, 1]: one tie group, all positive: T+ = 10, n = 4, z = (10 - 5) / sqrt((180 - 60 / 2) / 24) = 2
    # d02 = [2, -1, 3, 0]: unit 3 dropped (zero); |d| order 1, 0, 2; T+ = 2 + 3 = 5, z = (5 - 3) / sqrt(84 / 24)
    # d12 = [1, -2, 2, -1]: groups {0, 3} (midrank 1.5) and {1, 2} (midrank 3.5), one positive in each: T+ = 5 = mean
    order = np.array([[[0, 1, 2, 3], [1, 0, 2, 0], [0, 3, 1, 2]]], dtype=np.int32)
    positive = np.array([[[1, 1, 1, 1], [0, 1, 1, 0], [1, 0, 0, 1]]], dtype=np.float64)
    new_group = np.array([[[1, 0, 0, 0], [1, 1, 1, 1], [1, 0, 1, 0]]], dtype=np.bool_)
    length = np.array([[4, 3, 4]], dtype=np.int64)
    pair_i, pair_j = np.array([0, 0, 1]), np.array([1, 2, 2])
    ones = np.ones(4)
    z = _kernels.signed_rank_z(ones, order, positive, new_group, length)
    assert z[0, 0] == 2.0 and abs(z[0, 1] - 2 / np.sqrt(3.5)) < 1e-15 and z[0, 2] == 0.0
    assert np.allclose(z, twin_signed_rank_z(ones, order, positive, new_group, length), rtol=1e-13, atol=1e-14)
    checked += 1
    tests = (order, positive, new_group, length, pair_i, pair_j, 3, 0.05, False)
    holm = (*tests[:-1], True)
    # p(run 0 > run 1) = Phi(-2) = 0.023: below 5% unadjusted, above Holm's first threshold 0.05 / 6
    assert _kernels.runs_beaten(ones, tests).tolist() == [[1.0, 0.0, 0.0]]
    assert _kernels.runs_beaten(ones, holm).tolist() == [[0.0, 0.0, 0.0]]
    assert _kernels.runs_beaten(ones, holm).tolist() == twin_runs_beaten(ones, holm).tolist()
    checked += 1
    orders = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    final = np.array([[1.0, 2.5, 2.5]])
    got = _kernels.beaten_l1_curves(tests, orders, np.array([2, 4]), final, 1e-12, 0)
    assert got.tolist() == twin_beaten_l1_curves(tests, orders, np.array([2, 4]), final, 1e-12, 0).tolist()
    assert got[0, :, -1].tolist() == [0.0, 0.0]
    checked += 1
    idx = np.array([[0, 0, 2, 3], [1, 1, 1, 1]])
    got = _kernels.beaten_resamples(tests, idx)
    assert got.tolist() == twin_beaten_resamples(tests, idx).tolist()
    checked += 1

    # boundary metrics: a 2x2x2 cube in a 3x4x4 array (every voxel on the border; the top plane touches the
    # array's edge, which counts as background) and one voxel; spacing (z, y, x) = (3, 1, 0.5)
    cube = np.zeros((3, 4, 4), np.bool_)
    cube[1:3, 1:3, 1:3] = True
    assert _kernels.surface_of(cube, False).sum() == 8 == twin_surface_of(cube, False).sum()
    plane = np.ones((1, 3, 3), np.bool_)
    assert _kernels.surface_of(plane, True).tolist() == [[[True, True, True], [True, False, True], [True, True, True]]]
    assert twin_surface_of(plane, True).tolist() == _kernels.surface_of(plane, True).tolist()
    checked += 1
    dot = np.zeros((3, 4, 4), np.bool_)
    dot[0, 0, 0] = True
    sp = np.array([3.0, 1.0, 0.5])
    d2 = _kernels.squared_edt(dot, sp)
    assert d2[2, 3, 3] == 36.0 + 9.0 + 2.25 and d2[0, 0, 2] == 1.0 and d2[1, 0, 0] == 9.0
    assert np.array_equal(d2, twin_squared_edt(dot, sp))
    checked += 1
    corners = np.zeros((3, 4, 4), np.bool_)
    corners[2, 3, 3] = corners[1, 0, 0] = True  # read at two voxels only: their C order, the same numbers
    assert _kernels.squared_edt_at(dot, sp, corners).tolist() == [9.0, 36.0 + 9.0 + 2.25]
    checked += 1
    labels = np.array([[[0, 2, 2], [1, 0, 3]], [[0, 0, 3], [1, 1, 0]]], dtype=np.int32)
    assert _kernels.label_sizes(labels, 4).tolist() == [3, 2, 2, 0] == twin_label_sizes(labels, 4).tolist()
    checked += 1
    d_ab, d_ba = _kernels.surface_distances(cube, dot, sp, False)
    t_ab, t_ba = twin_surface_distances(cube, dot, sp, False)
    assert np.allclose(np.sort(d_ab), np.sort(t_ab), rtol=1e-14) and d_ba.tolist() == [np.sqrt(9 + 1 + 0.25)]
    checked += 1
    # the image twin's band: a 1 x 3 x 3 crop, a lattice of 2 x 2 points 2 mm apart (voxels 1 mm): the field at
    # voxel (y, x) is the bilinear blend, by hand
    lattice = np.array([[[0.0, 1.0], [2.0, 3.0]]])
    flat = np.arange(9, dtype=np.int64)
    dist = np.full(9, 0.9, np.float32)
    bits = np.empty(9, np.uint8)
    clipped = _kernels.threshold_band(flat, dist, np.array([1, 3, 3]), np.array([1.0, 1.0, 1.0]),
                                      (lattice, np.array([1.0, 2.0, 2.0]), 0.0, 1.0, 2.5), bits, np.zeros(0, np.int64))
    # field: row 0: 0, 0.5, 1; row 1: 1, 1.5, 2; row 2: 2, 2.5, 3 (clipped to 2.5 twice); drawn where field > 0.9
    assert bits.tolist() == [0, 0, 1, 1, 1, 1, 1, 1, 1] and clipped == 1
    t_bits, t_clipped = twin_threshold_band(flat, dist, (1, 3, 3), (1.0, 1.0, 1.0),
                                            (lattice, (1.0, 2.0, 2.0), 0.0, 1.0, 2.5))
    assert t_bits.tolist() == bits.tolist() and t_clipped == clipped
    checked += 1
    # the distance to unlimited data at two sizes at once: runs 1 and 2 lie 0.02 apart; the noise lifts run 2 by
    # 0.1 at scale 1 (it overtakes run 1: each one place off) and by 0.01 at scale 0.1 (the order holds)
    theta = np.array([[0.9, 0.5, 0.48, 0.1]])
    lift = np.array([[0.0, 0.0, 0.1, 0.0]])
    both = _kernels.margin_l1_sizes(theta, lift, np.array([1.0, 0.1]), 0.0)
    assert both.tolist() == [[[2.0]], [[0.0]]]
    assert both.tolist() == [twin_margin_l1(theta, lift, s, 0.0).tolist() for s in (1.0, 0.1)]
    checked += 1
    return checked


if __name__ == "__main__":
    import warnings

    from numba.core import config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # uint64 products wrap on purpose (byte gathering)
        n = tiny_cases()
    print(f"{n} kernels agree with their twins (jit {'disabled' if config.DISABLE_JIT else 'enabled'})")
