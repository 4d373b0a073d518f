"""Every numba kernel against its slow, obviously correct numpy twin (tests/naive.py): random inputs and hand-made
cases, jitted and once with numba's JIT disabled."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robustness import _kernels
from tests.conftest import REPO
from tests.naive import (
    tiny_cases,
    twin_beaten_l1_curves,
    twin_beaten_resamples,
    twin_binarize,
    twin_blob_fields,
    twin_count_run,
    twin_golds_from_words,
    twin_l1_curves,
    twin_margin_l1,
    twin_pack_rows,
    twin_pattern_codes,
    twin_pattern_hist,
    twin_rank_rows,
    twin_rater_counts,
    twin_rater_masks,
    twin_resample_sums,
    twin_runs_beaten,
    twin_scores_from_sums,
    twin_signed_rank_z,
    twin_upsample,
)

masks_strategy = st.integers(1, 5).flatmap(
    lambda k: st.integers(1, 300).flatmap(
        lambda n: arrays(np.uint8, (k, n), elements=st.integers(0, 1))))


@settings(max_examples=60, deadline=None)
@given(arrays(np.uint8, st.integers(0, 500), elements=st.integers(0, 255)), st.integers(0, 255), st.integers(0, 255),
       st.booleans())
def test_binarize_matches_twin(values, fg, bg, nonzero):
    em, enf, enb = twin_binarize(values, fg, bg, nonzero)
    inplace = values.copy()
    nf, nb = _kernels.binarize(inplace, np.uint8(fg), np.uint8(bg), nonzero)
    np.testing.assert_array_equal(inplace, em)
    assert (nf, nb) == (enf, enb)


@settings(max_examples=60, deadline=None)
@given(masks_strategy)
def test_pack_rows_and_pattern_hist_match_twins(masks):
    k, n = masks.shape
    words = _kernels.pack_rows(masks)
    np.testing.assert_array_equal(words, twin_pack_rows(masks))
    np.testing.assert_array_equal(_kernels.pattern_hist(words, n), twin_pattern_hist(masks))


@settings(max_examples=60, deadline=None)
@given(masks_strategy, st.data())
def test_golds_and_count_match_twins(masks, data):
    k, n = masks.shape
    g = data.draw(st.integers(1, 6))
    lut = data.draw(arrays(np.uint8, (g, 2**k), elements=st.integers(0, 1)))
    words = _kernels.golds_from_words(_kernels.pack_rows(masks), lut, n)
    np.testing.assert_array_equal(words, twin_golds_from_words(masks, lut))  # no bit past n either
    golds = np.stack([lut[r][twin_pattern_codes(masks)[0]] for r in range(g)])  # (g, n) 0/1 gold masks
    run = data.draw(arrays(np.uint8, n, elements=st.integers(0, 1)))
    size, tp = _kernels.count_run(run, words)
    esize, etp = twin_count_run(run, golds)
    assert size == esize
    np.testing.assert_array_equal(tp, etp)


def test_hand_made_3x3():
    # three annotators on a 3x3 image, patterns spelled out: 7 5 0 / 0 3 2 / 0 0 4
    a0 = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]], np.uint8)
    a1 = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], np.uint8)
    a2 = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], np.uint8)
    words = _kernels.pack_rows(np.stack([a0.ravel(), a1.ravel(), a2.ravel()]))
    assert _kernels.pattern_hist(words, 9).tolist() == [4, 0, 1, 1, 1, 1, 0, 1]
    majority = np.array([0, 0, 0, 1, 0, 1, 1, 1], np.uint8)  # >= 2 of 3
    gold = _kernels.golds_from_words(words, majority[None, :], 9)
    assert int(gold[0, 0]) == 0b000010011  # pixels 0, 1, 4
    run = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]], np.uint8).ravel()
    size, tp = _kernels.count_run(run, gold)
    assert size == 3 and tp.tolist() == [2]


def test_count_run_word_boundaries():
    # 130 pixels: two full words and a tail of 2
    n = 130
    run = np.zeros(n, np.uint8)
    run[[0, 63, 64, 127, 128, 129]] = 1
    words = _kernels.pack_rows(run[None])  # one annotator equal to the run
    assert words.shape == (1, 3) and int(words[0, 2]) == 0b11
    assert _kernels.pattern_hist(words, n).tolist() == [124, 6]
    everything = _kernels.golds_from_words(words, np.array([[1, 1]], np.uint8), n)
    assert int(everything[0, 2]) == 0b11 and int(everything[0, 0]) == 2**64 - 1  # nothing past pixel 129
    assert _kernels.count_run(run, words)[1].tolist() == [6]


#: Corner values where a cell's sign could be misjudged: zeros of both signs, subnormals, values at and around
#: the kernel's sure-positive bound, infinities and nan.
_EDGE_VALUES = st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e-200, 2e-200, -1e-200, np.inf, -np.inf,
                                np.nan, 1e300])


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
              elements=st.one_of(st.floats(-1, 1, allow_nan=False), _EDGE_VALUES)),
       st.integers(1, 20), st.integers(1, 20))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the twin multiplies inf by 0 as the kernel does
def test_upsample_matches_twin(coarse, h, w):
    # one coarse row or column included: the twin's formula indexes row -1 there, as the kernel does
    np.testing.assert_array_equal(_kernels.upsample_positive(coarse, h, w), twin_upsample(coarse, h, w))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_upsample_decides_whole_cells_only_where_the_corners_do():
    """A cell of four tiny positive corners, one of four zeros, one with an infinite corner (inf * 0 is nan), and
    the clipped last column: each pixel as interpolated one by one."""
    coarse = np.array([[1e-300, 1e-300, 0.0, -0.0, np.inf],
                       [1e-300, 1e-300, 0.0, 0.0, 1.0],
                       [3e-200, 3e-200, -1.0, 2.0, -np.inf]])
    for h, w in ((3, 5), (7, 13), (11, 41), (5, 9)):
        np.testing.assert_array_equal(_kernels.upsample_positive(coarse, h, w), twin_upsample(coarse, h, w))


def test_upsample_hand_made():
    coarse = np.array([[-1.0, 1.0], [-1.0, 1.0]])
    out = _kernels.upsample_positive(coarse, 3, 5)
    # columns at x = 0, .25, .5, .75, 1 of the coarse grid: field -1, -.5, 0, .5, 1
    assert out.tolist() == [[False, False, False, True, True]] * 3


@st.composite
def _raters_case(draw):
    """Random inputs of ``rater_counts``: lesion and false-blob fields, raters' choices, noise, a truth mask."""
    n_b, n_x, n_r = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 5))
    ch, cw, h, w = draw(st.integers(2, 6)), draw(st.integers(2, 6)), draw(st.integers(1, 12)), draw(st.integers(1, 12))
    k = draw(st.integers(1, 3))
    floats = st.floats(-1, 1, allow_nan=False, width=32)
    fields = draw(arrays(np.float64, (n_b + n_x, ch, cw), elements=floats))
    starts = [draw(st.integers(0, n_x)) for _ in range(n_r)]
    counts = [draw(st.integers(0, n_x - a)) for a in starts]
    return (fields, draw(arrays(np.bool_, (n_r, n_b))), (np.array(starts, dtype=np.int64),
                                                          np.array(counts, dtype=np.int64)),
            draw(arrays(np.float64, n_r, elements=floats)), draw(arrays(np.float64, n_r, elements=floats)),
            (draw(arrays(np.float64, (k, ch, cw), elements=floats)),
             np.array([draw(st.integers(0, k - 1)) for _ in range(n_r)], dtype=np.int64)),
            draw(arrays(np.bool_, n_r)), draw(arrays(np.bool_, (h, w))))


@settings(max_examples=80, deadline=None)
@given(_raters_case())
def test_rater_counts_matches_twin(case):
    np.testing.assert_array_equal(_kernels.rater_counts(*case), twin_rater_counts(*case))


@settings(max_examples=80, deadline=None)
@given(_raters_case())
def test_rater_masks_matches_twin(case):
    *args, truth = case
    np.testing.assert_array_equal(_kernels.rater_masks(*args, truth.shape), twin_rater_masks(*args, truth.shape))


def test_rater_counts_hand_made():
    """One lesion blob (left half positive), one false blob (right column); rater 0 keeps the lesion, rater 1 adds
    the false blob, rater 2 draws nothing, rater 3 misses the lesion and adds nothing (an empty mask)."""
    lesion = np.array([[1.0, -1.0], [1.0, -1.0]])
    false = np.array([[-1.0, 1.0], [-1.0, 1.0]])
    truth = np.array([[True, False], [True, False]])
    out = _kernels.rater_counts(np.stack([lesion, false]), np.array([[True], [True], [True], [False]]),
                                (np.zeros(4, np.int64), np.array([0, 1, 0, 0])), np.zeros(4), np.zeros(4),
                                (np.zeros((1, 2, 2)), np.zeros(4, np.int64)), np.array([False, False, True, False]),
                                truth)
    assert out.tolist() == [[2, 0, 0], [2, 2, 0], [0, 0, 2], [0, 0, 2]]


def test_rater_masks_hand_made():
    """The four raters of the counts' hand-made test: the lesion's left column, then both columns, then two empty
    masks. Then two raters keeping one field lying wholly below zero: at level 0 an all-False mask, raised above
    zero by a level of 1 an all-True one."""
    lesion = np.array([[1.0, -1.0], [1.0, -1.0]])
    false = np.array([[-1.0, 1.0], [-1.0, 1.0]])
    args = (np.stack([lesion, false]), np.array([[True], [True], [True], [False]]),
            (np.zeros(4, np.int64), np.array([0, 1, 0, 0])), np.zeros(4), np.zeros(4),
            (np.zeros((1, 2, 2)), np.zeros(4, np.int64)), np.array([False, False, True, False]))
    left, both, none = [[True, False]] * 2, [[True, True]] * 2, [[False, False]] * 2
    assert _kernels.rater_masks(*args, (2, 2)).tolist() == [left, both, none, none]
    below = (np.full((1, 2, 2), -0.5), np.array([[True], [True]]), (np.zeros(2, np.int64), np.zeros(2, np.int64)),
             np.array([0.0, 1.0]), np.zeros(2), (np.zeros((1, 2, 2)), np.zeros(2, np.int64)), np.zeros(2, bool))
    assert _kernels.rater_masks(*below, (3, 3)).tolist() == [[[False] * 3] * 3, [[True] * 3] * 3]


# -- ranking kernels --------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 12)),
              elements=st.one_of(st.integers(0, 5).map(lambda v: v / 5), st.just(np.nan))),
       st.sampled_from([0.0, 1e-12, 0.25]), st.sampled_from([0, 1, 2, 3, 4]))
def test_rank_rows_matches_twin(scores, tol, method):
    np.testing.assert_array_equal(_kernels.rank_rows(scores, tol, method), twin_rank_rows(scores, tol, method))


def test_rank_rows_tie_rules_hand_made():
    # 0.9 ties with the other 0.9 (runs 0 and 2); nan ranks last
    scores = np.array([[0.9, 0.5, 0.9, np.nan, 0.1]])
    expected = {0: [1.5, 3, 1.5, 5, 4], 1: [1, 3, 1, 5, 4], 2: [2, 3, 2, 5, 4], 3: [1, 3, 2, 5, 4], 4: [2, 3, 1, 5, 4]}
    for code, ranks in expected.items():
        assert _kernels.rank_rows(scores, 1e-12, code)[0].tolist() == ranks
        assert twin_rank_rows(scores, 1e-12, code)[0].tolist() == ranks
    # 'first' follows the index even where the sort put the later run first (0.9 + 1e-13 ties 0.9)
    assert _kernels.rank_rows(np.array([[0.9, 0.9 + 1e-13]]), 1e-12, 3)[0].tolist() == [1, 2]
    # 'last' reverses the tied runs' order, but nan scores keep theirs (R's rank puts missing values last in order)
    nan_pair = np.array([[np.nan, 0.4, np.nan, 0.4]])
    assert _kernels.rank_rows(nan_pair, 1e-12, 4)[0].tolist() == [3, 2, 4, 1]
    assert twin_rank_rows(nan_pair, 1e-12, 4)[0].tolist() == [3, 2, 4, 1]


def statistics(data, n_units, n_runs, n_schemes):
    """Random per-unit statistics and scheme weights: micro-like (tp, fp, fn) and macro-like (sum, count)."""
    m = 3 * n_runs + n_runs + 1
    x = data.draw(arrays(np.float64, (n_units, m), elements=st.integers(0, 6).map(float)))
    x[:, -1] = 1.0  # the count column of macro schemes
    cols, num, den, empty = [], [], [], []
    for s in range(n_schemes):
        if data.draw(st.booleans()):
            cols.append([[3 * r, 3 * r + 1, 3 * r + 2] for r in range(n_runs)])
            metric = data.draw(st.sampled_from([((1, 0, 0), (1, 1, 1)), ((2, 0, 0), (2, 1, 1)), ((1, 0, 0), (1, 1, 0))]))
            num.append(metric[0])
            den.append(metric[1])
            empty.append(data.draw(st.sampled_from([1.0, 0.0, np.nan])))
        else:
            cols.append([[3 * n_runs + r, m - 1, m - 1] for r in range(n_runs)])
            num.append((1, 0, 0))
            den.append((0, 1, 0))
            empty.append(np.nan)
    return (x, np.array(cols, dtype=np.int64), np.array(num, dtype=float), np.array(den, dtype=float),
            np.array(empty))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_scores_sums_and_curves_match_twins(data):
    n_units, n_runs, n_schemes = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3))
    x, cols, num, den, empty = statistics(data, n_units, n_runs, n_schemes)
    weights = (cols, num, den, empty)
    sums = x.sum(axis=0)
    scores = _kernels.scores_from_sums(sums, weights)
    np.testing.assert_array_equal(scores, twin_scores_from_sums(sums, weights))
    idx = data.draw(arrays(np.int64, (3, n_units), elements=st.integers(0, n_units - 1)))
    np.testing.assert_array_equal(_kernels.resample_sums(x, idx), twin_resample_sums(x, idx))
    orders = np.stack([np.random.default_rng(k).permutation(n_units) for k in range(2)])
    positions = np.unique(data.draw(st.lists(st.integers(1, n_units), min_size=1, max_size=4)))
    method = data.draw(st.sampled_from([0, 1]))
    final = twin_rank_rows(scores, 1e-12, method)
    np.testing.assert_array_equal(
        _kernels.l1_curves(x, weights, orders, positions, final, 1e-12, method),
        twin_l1_curves(x, weights, orders, positions, final, 1e-12, method))


@pytest.mark.parametrize("method", [0, 1, 2])
def test_curves_with_tied_and_untied_prefixes_hand_made(method):
    """A curve whose first prefix ties every run (or two runs' nan scores) and whose second ties none.

    Three runs scored ``s / c`` (columns ``s_r, c_r``). Unit A gives every run 1/1, unit B gives 1/1, 0/1 and
    1/2: after both, 1, 0.5, 0.75, no tie (ranks 1, 3, 2, the final ranks). Tied at 1 after A alone: average ranks
    2 (L1 1 + 1 + 0), min ranks 1 (0 + 2 + 1), max ranks 3 (2 + 0 + 1). With unit A giving runs 1 and 2 nothing
    (0/0: nan, ranked last, tied), ranks 1, 2.5, 2.5 (average), 1, 2, 2 (min), 1, 3, 3 (max): L1 1 each.
    """
    cols = np.array([[[0, 1, 1], [2, 3, 3], [4, 5, 5]]], dtype=np.int64)
    weights = (cols, np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]), np.array([np.nan]))
    b = [1.0, 1.0, 0.0, 1.0, 0.5, 1.0]
    orders = np.array([[0, 1], [1, 0]], dtype=np.int64)
    positions = np.array([1, 2], dtype=np.int64)
    final = np.array([[1.0, 3.0, 2.0]])
    for a, first in (([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2.0, 3.0, 3.0][method]),
                     ([1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1.0)):
        x = np.array([a, b])
        assert twin_rank_rows(_kernels.scores_from_sums(x.sum(axis=0), weights), 1e-12, method).tolist() == \
            final.tolist()
        got = _kernels.l1_curves(x, weights, orders, positions, final, 1e-12, method)
        assert got.tolist() == [[[first, 0.0], [0.0, 0.0]]]
        assert got.tolist() == twin_l1_curves(x, weights, orders, positions, final, 1e-12, method).tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(2, 9), st.integers(2, 9), st.data())
def test_blob_fields_match_twin(n, ny, nx, data):
    def draw(shape, lo, hi):
        return data.draw(arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False)))

    ys, xs = np.linspace(0, ny - 1, ny), np.linspace(0, nx - 1, nx)
    args = (draw(n, 1.0, 50.0), draw(n, -2.0, ny + 2.0), draw(n, -2.0, nx + 2.0), draw(n, 0.5, 2.0),
            draw(n, 0.0, 3.2), draw((n, 4), -0.2, 0.2), draw((n, 4), 0.0, 6.3))
    # equal to rounding: the kernel's angle-addition recurrence against cos(m * atan2(v, u) + phase)
    np.testing.assert_allclose(_kernels.blob_fields((ys, xs), *args), twin_blob_fields((ys, xs), *args),
                               rtol=1e-9, atol=1e-9)


def _blob_fields_point_by_point(ys, xs, area, cy, cx, aspect, angle, amps, phases):
    """The kernel's arithmetic one point at a time in Python floats (IEEE doubles, the same operations in the same
    order): the row-at-a-time kernel must equal it bit for bit, not just to rounding. The blobs' cos and sin come
    from ``math`` here and from numba's ``np.cos`` there, the same libm without Intel's SVML (with SVML, numba may
    vectorise the phases' cos to within an ulp, and this test would fail on the constants, not the kernel)."""
    out = np.empty((area.size, ys.size, xs.size))
    for b in range(area.size):
        r, ca, sa, sq = math.sqrt(area[b] / math.pi), math.cos(angle[b]), math.sin(angle[b]), math.sqrt(aspect[b])
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                dy, dx = y - cy[b], x - cx[b]
                u, v = (dy * ca + dx * sa) * sq, (-dy * sa + dx * ca) / sq
                d = math.sqrt(u * u + v * v)
                c1, s1 = (u / d, v / d) if d > 0 else (1.0, 0.0)
                ck, sk, wave = c1, s1, 0.0
                for m in range(amps.shape[1]):
                    ck, sk = ck * c1 - sk * s1, sk * c1 + ck * s1
                    wave += amps[b, m] * (ck * math.cos(phases[b, m]) - sk * math.sin(phases[b, m]))
                out[b, i, j] = 1.0 - d / max(r * (1.0 + wave), 1e-9)
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 7), st.integers(1, 11), st.integers(0, 5), st.data())
def test_blob_fields_equal_the_point_by_point_arithmetic_bit_for_bit(n, ny, nx, n_h, data):
    def draw(shape, lo, hi):
        return data.draw(arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False)))

    ys, xs = np.linspace(0, ny - 1, ny), np.linspace(0, nx - 1, nx)
    args = [draw(n, 0.0, 50.0), draw(n, -2.0, ny + 2.0), draw(n, -2.0, nx + 2.0), draw(n, 0.5, 2.0),
            draw(n, 0.0, 3.2), draw((n, n_h), -0.3, 0.3), draw((n, n_h), 0.0, 6.3)]
    args[1][0], args[2][0] = ys[data.draw(st.integers(0, ny - 1))], xs[data.draw(st.integers(0, nx - 1))]  # d = 0
    got, want = _kernels.blob_fields((ys, xs), *args), _blob_fields_point_by_point(ys, xs, *args)
    assert got.view(np.int64).tolist() == want.view(np.int64).tolist()


# -- test-based ranking kernels ---------------------------------------------------------------------

def paired_inputs(data):
    """Random sorted-unit arrays of the test-based kernels: S schemes, R runs, U units, with ties and drops."""
    n_s, n_r, n_u = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5)), data.draw(st.integers(1, 9))
    pair_i, pair_j = np.triu_indices(n_r, k=1)
    n_p = pair_i.size
    seed = data.draw(st.integers(0, 2**16))
    g = np.random.default_rng(seed)
    order = np.stack([[g.permutation(n_u) for _ in range(n_p)] for _ in range(n_s)]).reshape(n_s, n_p, n_u)
    length = g.integers(0, n_u + 1, (n_s, n_p))
    positive = (g.random((n_s, n_p, n_u)) < 0.6).astype(np.float64)
    new_group = g.random((n_s, n_p, n_u)) < 0.6
    new_group[..., 0] = True
    return (order.astype(np.int32), positive, new_group, length.astype(np.int64), pair_i.astype(np.int64),
            pair_j.astype(np.int64), n_r), n_u, g


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_signed_rank_kernels_match_twins(data):
    (order, positive, new_group, length, pair_i, pair_j, n_r), n_u, g = paired_inputs(data)
    w = g.integers(0, 4, n_u).astype(float)
    # the same arithmetic as scipy (exact midranks, tie correction): the same z to the last bit
    np.testing.assert_array_equal(_kernels.signed_rank_z(w, order, positive, new_group, length),
                                  twin_signed_rank_z(w, order, positive, new_group, length))
    alpha = data.draw(st.sampled_from([0.05, 0.3]))
    holm = data.draw(st.booleans())
    tests = (order, positive, new_group, length, pair_i, pair_j, n_r, alpha, holm)
    np.testing.assert_array_equal(_kernels.runs_beaten(w, tests), twin_runs_beaten(w, tests))
    orders = np.stack([g.permutation(n_u) for _ in range(2)]).astype(np.int64)
    positions = np.unique(g.integers(1, n_u + 1, 3))
    method = data.draw(st.sampled_from([0, 1]))
    final = twin_rank_rows(twin_runs_beaten(np.ones(n_u), tests), 1e-12, method)
    np.testing.assert_array_equal(_kernels.beaten_l1_curves(tests, orders, positions, final, 1e-12, method),
                                  twin_beaten_l1_curves(tests, orders, positions, final, 1e-12, method))
    idx = g.integers(0, n_u, (3, n_u))
    np.testing.assert_array_equal(_kernels.beaten_resamples(tests, idx), twin_beaten_resamples(tests, idx))


def test_tiny_cases_jitted():
    assert tiny_cases() == 25


def test_tiny_cases_pure_python():
    """The kernels' Python source, run by the interpreter (numba's JIT off), gives the same answers."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-m", "tests.naive"], cwd=REPO, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "25 kernels agree with their twins (jit disabled)" in out.stdout


# -- distance to unlimited data ---------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 9), st.sampled_from([0.0, 0.1, 0.25]),
       st.sampled_from([0.0, 0.3, 1.0]), st.data())
def test_margin_l1_matches_twin(n_d, n_f, n_r, margin, scale, data):
    grid = st.integers(0, 8).map(lambda v: v / 8)  # coarse values: ties in the draws and in the noisy scores
    draws = data.draw(arrays(np.float64, (n_d, n_r), elements=grid))
    noise = data.draw(arrays(np.float64, (n_f, n_r), elements=grid))
    np.testing.assert_array_equal(_kernels.margin_l1(draws, noise, scale, margin),
                                  twin_margin_l1(draws, noise, scale, margin))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 9), st.sampled_from([0.0, 0.1, 0.25]),
       st.lists(st.sampled_from([0.0, 0.125, 0.3, 1.0]), min_size=1, max_size=4), st.data())
def test_margin_l1_sizes_matches_twin_at_each_scale(n_d, n_f, n_r, margin, scales, data):
    grid = st.integers(0, 8).map(lambda v: v / 8)  # coarse values: ties in the draws and in the noisy scores
    draws = data.draw(arrays(np.float64, (n_d, n_r), elements=grid))
    noise = data.draw(arrays(np.float64, (n_f, n_r), elements=grid))
    got = _kernels.margin_l1_sizes(draws, noise, np.array(scales), margin)
    np.testing.assert_array_equal(got, np.stack([twin_margin_l1(draws, noise, s, margin) for s in scales]))
    for k, s in enumerate(scales):  # and margin_l1's, scale by scale
        np.testing.assert_array_equal(got[k], _kernels.margin_l1(draws, noise, s, margin))


def test_margin_l1_hand_made():
    theta = np.array([[0.9, 0.5, 0.48, 0.1]])  # runs 1 and 2 lie 0.02 apart
    swap = np.array([[0.0, 0.0, 0.1, 0.0]])  # run 2 overtakes run 1: ranks 1, 3, 2, 4
    assert _kernels.margin_l1(theta, swap, 1.0, 0.0).tolist() == [[2.0]]  # each of the two is one place off
    assert _kernels.margin_l1(theta, swap, 1.0, 0.05).tolist() == [[0.0]]  # within the margin: either order
    assert _kernels.margin_l1(theta, swap, 0.0, 0.0).tolist() == [[0.0]]  # no noise: the population's ranking
    tied = np.array([[0.5, 0.5, 0.1]])  # an exact tie: either order is right, average ranks 1.5 are not wrong
    assert _kernels.margin_l1(tied, np.array([[0.0, 0.1, 0.0], [0.0, 0.0, 0.0]]), 1.0, 0.0).tolist() == [[0.0, 0.0]]
    last = np.array([[0.0, 0.0, 1.0]])  # the worst run jumps to the top (2 places); the tied pair takes ranks
    assert _kernels.margin_l1(tied, last, 1.0, 0.0).tolist() == [[3.0]]  # 2.5 each, half a place beyond 1..2


@st.composite
def _band_case(draw):
    """A random crop (2D or 3D), a sorted band of its voxels, signed distances and a lattice of any step."""
    nz = draw(st.sampled_from([1, 1, 2, 4]))
    ny, nx = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    n = nz * ny * nx
    flat = np.array(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))), dtype=np.int64)
    dist = np.array(draw(st.lists(st.floats(-5, 5, width=32), min_size=flat.size, max_size=flat.size)), np.float32)
    spacing = np.array([draw(st.floats(0.3, 3)) for _ in range(3)])
    step = np.array([draw(st.floats(0.5, 4)) for _ in range(3)])
    shape = tuple(draw(st.integers(1, 5)) if nz > 1 or a > 0 else 1 for a in range(3))
    lattice = np.array(draw(st.lists(st.floats(-3, 3), min_size=int(np.prod(shape)),
                                     max_size=int(np.prod(shape))))).reshape(shape)
    return flat, dist, np.array([nz, ny, nx]), spacing, lattice, step, draw(st.floats(-2, 2)), \
        draw(st.floats(0, 3)), draw(st.floats(0.5, 6))


@given(_band_case())
@settings(max_examples=200, deadline=None)
def test_threshold_band_matches_twin(case):
    from tests.naive import twin_threshold_band

    flat, dist, crop, spacing, lattice, step, offset, scale, bound = case
    displacement = (lattice, step, offset, scale, bound)
    bits = np.empty(flat.size, np.uint8)
    clipped = _kernels.threshold_band(flat, dist, crop, spacing, displacement, bits, np.zeros(0, np.int64))
    # written through positions (a part of a band into the whole band's bits): the same bits where they land
    spread = np.full(2 * flat.size + 1, 7, np.uint8)
    where = np.arange(flat.size, dtype=np.int64) * 2 + 1
    _kernels.threshold_band(flat, dist, crop, spacing, displacement, spread, where)
    np.testing.assert_array_equal(spread[where], bits)
    assert (spread[::2] == 7).all()
    want, want_clipped = twin_threshold_band(flat, dist, crop, spacing, displacement)
    # a voxel whose distance equals its displacement to rounding may fall either side; no other may differ
    from scipy.ndimage import map_coordinates

    zyx = np.array(np.unravel_index(flat, tuple(crop)), dtype=np.float64) * (spacing / step)[:, None]
    zyx = np.clip(zyx, 0, np.array(lattice.shape)[:, None] - 1)
    delta = offset + scale * map_coordinates(lattice, zyx, order=1, mode="nearest")
    sure = np.abs(dist - np.clip(delta, -bound, bound)) > 1e-9
    np.testing.assert_array_equal(bits[sure], want[sure])
    edge = np.abs(np.abs(delta) - bound) <= 1e-9
    assert abs(clipped - want_clipped) <= int(edge.sum())


def test_threshold_band_decides_without_interpolating_only_what_interpolation_would():
    """A voxel beyond the lattice's extremes is decided without interpolating; rounding can carry the interpolated
    field one unit in the last place past the lattice's largest value, and that voxel must be interpolated."""
    top, low, w = -1.6732741594314575, -1.811208494996075, 2.8044346610672644e-16  # top is a float32
    assert top * (1 - w) + low * w > top  # the field between the two lattice values rounds above both
    lattice = np.array([[[top, low]]])
    flat = np.array([0, 1], np.int64)  # voxel 1 lies w of a lattice step from the first lattice point
    dist = np.array([top, top], np.float32)  # on the border drawn at the largest displacement, exactly
    bits = np.empty(2, np.uint8)
    clipped = _kernels.threshold_band(flat, dist, np.array([1, 1, 2]), np.array([1.0, 1.0, w]),
                                      (lattice, np.ones(3), 0.0, 1.0, 10.0), bits, np.zeros(0, np.int64))
    assert bits.tolist() == [0, 1] and clipped == 0  # top < top is false; top < top + 1 ulp is true
    # a voxel farther out is decided by the shortcut, and as interpolation would: beyond top, not drawn; below
    # the smallest displacement, drawn
    dist = np.array([top + 0.5, low - 0.5], np.float32)
    _kernels.threshold_band(flat, dist, np.array([1, 1, 2]), np.array([1.0, 1.0, w]),
                            (lattice, np.ones(3), 0.0, 1.0, 10.0), bits, np.zeros(0, np.int64))
    assert bits.tolist() == [0, 1]


def test_threshold_band_extrapolating_or_dividing_by_zero_takes_no_shortcut():
    """A negative step along x extrapolates the field past the lattice's extremes (x is not clamped below), and a
    zero step along z or y raises where a voxel is interpolated: the shortcut stands aside for both."""
    lattice = np.array([[[0.0, 1.0]]])
    bits = np.empty(1, np.uint8)
    # voxel 1 sits half a step before the lattice: the field there is 0 - 0.5 (1 - 0) = -0.5, below its extremes
    _kernels.threshold_band(np.array([1], np.int64), np.array([-0.25], np.float32), np.array([1, 1, 2]), np.ones(3),
                            (lattice, np.array([1.0, 1.0, -2.0]), 0.0, 1.0, 10.0), bits, np.zeros(0, np.int64))
    assert bits.tolist() == [0]  # -0.25 < -0.5 is false; the lattice's extremes (0, 1) would have drawn it
    with pytest.raises(ZeroDivisionError):  # the distance is beyond every displacement, as before
        _kernels.threshold_band(np.array([1], np.int64), np.array([5.0], np.float32), np.array([1, 1, 2]),
                                np.ones(3), (lattice, np.array([1.0, 0.0, 1.0]), 0.0, 1.0, 10.0), bits,
                                np.zeros(0, np.int64))
