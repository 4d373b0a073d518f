"""The lean TIFF reader: identical to tifffile wherever it answers, and it steps aside everywhere else."""

from __future__ import annotations

import numpy as np
import pytest
import tifffile

from robustness.errors import InputError
from robustness.io.masks import read_mask
from robustness.io.tiff import read_tiff, tiff_shape

MASK = (np.random.default_rng(0).random((97, 131)) < 0.3).astype(np.uint8)


@pytest.mark.parametrize("byteorder", ["<", ">"])
@pytest.mark.parametrize("kw", [{}, {"compression": "zlib"}, {"compression": "deflate"},
                                {"compression": "zlib", "rowsperstrip": 7}, {"rowsperstrip": 1},
                                {"compression": "zlib", "compressionargs": {"level": 9}},
                                {"photometric": "miniswhite"}])
def test_fast_path_equals_tifffile(tmp_path, byteorder, kw):
    p = tmp_path / "m.tiff"
    tifffile.imwrite(p, MASK * 255, byteorder=byteorder, **kw)
    fast = read_tiff(p)
    assert fast is not None, "this common kind of file must take the fast path"
    ref = tifffile.imread(p)
    assert fast.dtype == ref.dtype and fast.shape == ref.shape
    np.testing.assert_array_equal(fast, ref)
    assert tiff_shape(p) == ref.shape


@pytest.mark.parametrize("data,kw", [
    (MASK, {"predictor": True, "compression": "zlib"}), (MASK, {"tile": (32, 32)}),
    (MASK.astype(np.uint16), {}), (MASK.astype(bool), {}), (np.stack([MASK] * 3, -1), {"photometric": "rgb"}),
    (MASK[None], {"metadata": {"axes": "QYX"}}), (MASK, {"compression": "lzw"}),
    (MASK, {"compression": "packbits"}), (MASK.astype(np.int8), {}), (MASK, {"bigtiff": True}),
])
def test_other_kinds_step_aside(tmp_path, data, kw):
    p = tmp_path / "m.tiff"
    tifffile.imwrite(p, data, **kw)
    assert read_tiff(p) is None


def test_damaged_files_are_refused_from_their_header(tmp_path):
    p = tmp_path / "m.tiff"
    tifffile.imwrite(p, MASK, compression="zlib")
    raw = p.read_bytes()
    for cut in (raw[:6], raw[:200], raw[: len(raw) - 30]):
        p.write_bytes(cut)
        with pytest.raises(InputError, match=r"m\.tiff: cannot read the file \(TIFF cut short: "):
            read_tiff(p)
        with pytest.raises(InputError, match=r"m\.tiff: cannot read the file \(TIFF cut short: "):
            tiff_shape(p)
    p.write_bytes(b"not a tiff at all")
    with pytest.raises(InputError, match=r"m\.tiff: cannot read the file \(not a TIFF file\)"):
        read_tiff(p)


def test_masks_read_through_the_fast_path_are_exact(tmp_path):
    p = tmp_path / "m.tiff"
    tifffile.imwrite(p, MASK, compression="zlib")
    mask, note = read_mask(p)
    np.testing.assert_array_equal(mask, tifffile.imread(p) == 1)
    assert note is None
