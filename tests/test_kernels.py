"""Every numba kernel against a slow, obviously correct numpy twin: random inputs and hand-made cases."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from robustness import _kernels


# -- numpy twins --------------------------------------------------------------

def twin_binarize(values, fg, bg, nonzero):
    mask = (values != bg) if nonzero else (values == fg)
    return mask.astype(np.uint8), int((values == fg).sum()), int((values == bg).sum())


def twin_pattern_codes(masks):
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


def twin_count_run(run, golds01):
    return int(run.sum()), np.array([int((run.astype(bool) & g.astype(bool)).sum()) for g in golds01])


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
def test_pattern_codes_matches_twin(masks):
    codes, hist = _kernels.pattern_codes(masks)
    ec, eh = twin_pattern_codes(masks)
    np.testing.assert_array_equal(codes, ec)
    np.testing.assert_array_equal(hist, eh)


@settings(max_examples=60, deadline=None)
@given(masks_strategy, st.data())
def test_pack_and_count_match_twins(masks, data):
    k, n = masks.shape
    codes, _ = _kernels.pattern_codes(masks)
    g = data.draw(st.integers(1, 6))
    lut = data.draw(arrays(np.uint8, (g, 2**k), elements=st.integers(0, 1)))
    words = _kernels.pack_lut(codes, lut)
    golds = lut[:, codes]  # (g, n) 0/1: the gold masks, directly
    for r in range(g):
        np.testing.assert_array_equal(words[r], twin_pack(golds[r]))
    run = data.draw(arrays(np.uint8, n, elements=st.integers(0, 1)))
    size, tp = _kernels.count_run(run, words)
    esize, etp = twin_count_run(run, golds)
    assert size == esize
    np.testing.assert_array_equal(tp, etp)


def test_hand_made_3x3():
    # three annotators on a 3x3 image, patterns spelled out
    a0 = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]], np.uint8)
    a1 = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], np.uint8)
    a2 = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], np.uint8)
    codes, hist = _kernels.pattern_codes(np.stack([a0.ravel(), a1.ravel(), a2.ravel()]))
    assert codes.reshape(3, 3).tolist() == [[7, 5, 0], [0, 3, 2], [0, 0, 4]]
    assert hist.tolist() == [4, 0, 1, 1, 1, 1, 0, 1]
    majority = np.array([0, 0, 0, 1, 0, 1, 1, 1], np.uint8)  # >= 2 of 3
    words = _kernels.pack_lut(codes, majority[None, :])
    assert int(words[0, 0]) == 0b000010011  # pixels 0, 1, 4
    run = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]], np.uint8).ravel()
    size, tp = _kernels.count_run(run, words)
    assert size == 3 and tp.tolist() == [2]


def test_count_run_word_boundaries():
    # 130 pixels: two full words and a tail of 2
    n = 130
    run = np.zeros(n, np.uint8)
    run[[0, 63, 64, 127, 128, 129]] = 1
    codes = run.astype(np.uint16)  # one annotator equal to the run
    words = _kernels.pack_lut(codes, np.array([[0, 1]], np.uint8))
    assert words.shape == (1, 3) and int(words[0, 2]) == 0b11
    assert _kernels.count_run(run, words)[1].tolist() == [6]


def twin_upsample(coarse, h, w):
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


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 6)),
              elements=st.floats(-1, 1, allow_nan=False)),
       st.integers(2, 20), st.integers(2, 20))
def test_upsample_matches_twin(coarse, h, w):
    np.testing.assert_array_equal(_kernels.upsample_positive(coarse, h, w), twin_upsample(coarse, h, w))


def test_upsample_hand_made():
    coarse = np.array([[-1.0, 1.0], [-1.0, 1.0]])
    out = _kernels.upsample_positive(coarse, 3, 5)
    # columns at x = 0, .25, .5, .75, 1 of the coarse grid: field -1, -.5, 0, .5, 1
    assert out.tolist() == [[False, False, False, True, True]] * 3
