"""Decoding masks: what tifffile and PIL read alike is read, anything else is refused in one line (issue 17).

Items 1-4 (silently wrong results), 13 (pixel limits), 14 (a mask rewritten while it is read) and 15 (decoder
messages) of issue 17, on hand-built files: a crafted TIFF can hold what no writer produces.
"""

from __future__ import annotations

import os
import re
import struct

import numpy as np
import pytest
import tifffile

from experiments import score
from experiments._cli import run
from robustness.errors import InputError
from robustness.io import MaskFormat, RaterOptions, load_dermavqa, load_raters, read_mask, read_shape
from tests.conftest import write_png, write_tiff

MASK = (np.random.default_rng(0).random((20, 30)) < 0.3).astype(np.uint8) * 255


def tiff_bytes(pixels: bytes, entries) -> bytes:
    """A classic little-endian TIFF: ``entries`` are ``(tag, type, values)`` in the order given (duplicates kept);
    a value ``"DATA"`` is the offset of ``pixels``, placed after the directory and its out-of-line values."""
    n = len(entries)
    out_of_line = 8 + 2 + 12 * n + 4
    blobs = []
    sizes = {3: ("H", 2), 4: ("I", 4)}
    for _, typ, values in entries:
        code, size = sizes[typ]
        if size * len(values) > 4:
            blobs.append(size * len(values))
    data_at = out_of_line + sum(blobs)
    ifd, extra = struct.pack("<H", n), b""
    for tag, typ, values in entries:
        code, size = sizes[typ]
        values = [data_at if v == "DATA" else v for v in values]
        raw = struct.pack(f"<{len(values)}{code}", *values)
        if len(raw) <= 4:
            ifd += struct.pack("<HHI", tag, typ, len(values)) + raw.ljust(4, b"\0")
        else:
            ifd += struct.pack("<HHII", tag, typ, len(values), out_of_line + len(extra))
            extra += raw
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + extra + pixels


def plain(mask=MASK, **change):
    """The entries of an uncompressed one-strip grey mask; ``change`` replaces a tag's entry by tag name."""
    h, w = mask.shape
    tags = {"width": (256, 3, (w,)), "height": (257, 3, (h,)), "bits": (258, 3, (8,)), "compression": (259, 3, (1,)),
            "photometric": (262, 3, (1,)), "offsets": (273, 4, ("DATA",)), "samples": (277, 3, (1,)),
            "rows": (278, 3, (h,)), "counts": (279, 4, (h * w,))}
    tags.update(change)
    return [t for t in tags.values() if t is not None]


def write(path, pixels: bytes, entries):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tiff_bytes(pixels, entries))
    return path


def test_crafted_tiff_reads_like_tifffile(tmp_path):
    p = write(tmp_path / "m.tiff", MASK.tobytes(), plain())
    np.testing.assert_array_equal(tifffile.imread(p), MASK)
    np.testing.assert_array_equal(read_mask(p, MaskFormat(foreground=255, background=0))[0], MASK == 255)


# -- item 2: duplicate tags ------------------------------------------------------------------------------------

def test_duplicate_strip_offsets_are_refused_not_read_inverted(tmp_path):
    """tifffile and PIL take the first StripOffsets, the lean reader took the last: the inverted copy."""
    entries = plain()
    entries.insert(6, (273, 4, (0,)))  # placeholder, patched below to the inverted copy
    data = MASK.tobytes() + (255 - MASK).tobytes()
    raw = bytearray(tiff_bytes(data, entries))
    at = 8 + 2 + 12 * 6 + 8
    struct.pack_into("<I", raw, at, struct.unpack_from("<I", raw, 8 + 2 + 12 * 5 + 8)[0] + MASK.size)
    p = tmp_path / "dup.tiff"
    p.write_bytes(bytes(raw))
    np.testing.assert_array_equal(tifffile.imread(p), MASK)  # the first one
    message = (r"dup\.tiff: damaged TIFF: tag 273 \(StripOffsets\) appears twice in the image directory \(tifffile "
               r"and PIL read the first, other readers the last\)")
    with pytest.raises(InputError, match=message):
        read_mask(p, MaskFormat(foreground=255, background=0))
    with pytest.raises(InputError, match=message):
        read_shape(p)


@pytest.mark.parametrize("tag,name", [(256, "ImageWidth"), (257, "ImageLength")])
def test_duplicate_width_or_length_is_refused(tmp_path, tag, name):
    entries = plain()
    at = [e[0] for e in entries].index(tag)
    entries.insert(at + 1, (tag, 3, (entries[at][2][0] // 2,)))
    p = write(tmp_path / "dup.tiff", MASK.tobytes(), entries)
    with pytest.raises(InputError, match=rf"dup\.tiff: damaged TIFF: tag {tag} \({name}\) appears twice"):
        read_shape(p)


def test_duplicate_tag_is_one_line_through_a_command(tiny_dermavqa, tmp_path, capsys):
    p = tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00001_mask_runA.tiff"
    mask = tifffile.imread(p)
    entries = plain(mask)
    entries.insert(2, (257, 3, (mask.shape[0],)))
    p.write_bytes(tiff_bytes(mask.tobytes(), entries))
    assert run(score.main, ["--data", str(tiny_dermavqa), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {p}: damaged TIFF: tag 257 (ImageLength) appears twice in the image directory " \
                  "(tifffile and PIL read the first, other readers the last)\n"
    assert not (tmp_path / "out").exists()


# -- item 3: strips with a byte count or an offset of 0 --------------------------------------------------------

@pytest.mark.parametrize("change,what", [({"counts": (279, 4, (0,))}, "a byte count"),
                                         ({"offsets": (273, 4, (0,))}, "an offset")])
def test_strip_with_zero_count_or_offset_is_refused(tmp_path, change, what):
    p = write(tmp_path / "zero.tiff", MASK.tobytes(), plain(**change))
    with pytest.raises(InputError, match=rf"zero\.tiff: damaged TIFF: strip 0 has {what} of 0 \(tifffile reads it "
                                         r"as background, PIL refuses it or reads other bytes\)"):
        read_mask(p, MaskFormat(foreground=255, background=0))


def test_zero_count_in_a_deflate_strip_is_refused(tmp_path):
    p = tmp_path / "z.tiff"
    tifffile.imwrite(p, MASK, compression="zlib", rowsperstrip=5)
    with tifffile.TiffFile(p) as tif:
        tag = tif.pages[0].tags["StripByteCounts"]
        at, order, code = tag.valueoffset, tif.byteorder, "H" if tag.dtype == 3 else "I"
    raw = bytearray(p.read_bytes())
    struct.pack_into(order + code, raw, at + struct.calcsize(code), 0)  # the second strip's byte count
    p.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"z\.tiff: damaged TIFF: strip 1 has a byte count of 0"):
        read_mask(p, MaskFormat(foreground=255, background=0))


# -- item 4: palettes and pages ------------------------------------------------------------------------------

def test_palette_png_is_read_by_its_displayed_values(tmp_path):
    """Index 0 shows white and index 1 black: a BU-BIL style mask (foreground 0 on 255) drawn with a palette."""
    from PIL import Image

    cell = MASK == 255
    im = Image.fromarray(cell.astype(np.uint8), mode="L").convert("P")
    im.putpalette([255, 255, 255, 0, 0, 0] + [0] * 762)
    p = tmp_path / "pal.png"
    im.save(p)
    assert Image.open(p).mode == "P"
    mask, note = read_mask(p, MaskFormat(foreground=0, background=255, rescale=True))
    np.testing.assert_array_equal(mask, cell)  # black (index 1) is foreground, not index 0
    assert note is None
    im.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)  # colours: unequal channels, refused
    im.save(p)
    with pytest.raises(InputError, match=r"pal\.png: colour mask with unequal channels"):
        read_mask(p, MaskFormat(foreground=0, background=255))


def test_palette_tiff_is_read_by_its_colours(tmp_path):
    cmap = np.zeros((3, 256), np.uint16)
    cmap[:, 0] = 65535  # index 0 white, index 1 black
    p = tmp_path / "pal.tiff"
    tifffile.imwrite(p, (MASK == 255).astype(np.uint8), photometric="palette", colormap=cmap)
    mask, _ = read_mask(p, MaskFormat(foreground=0, background=255))
    np.testing.assert_array_equal(mask, MASK == 255)


@pytest.mark.parametrize("pages", [2, 4])
def test_several_pages_are_refused(tmp_path, pages):
    p = tmp_path / "pages.tiff"
    tifffile.imwrite(p, np.stack([MASK] * pages), photometric="minisblack")
    message = (rf"pages\.tiff: TIFF holds {pages} pages; a mask is one image \(tifffile would read the pages as "
               r"channels\): save one page per file")
    with pytest.raises(InputError, match=message):
        read_shape(p)
    with pytest.raises(InputError, match=message):
        read_mask(p, MaskFormat(foreground=255, background=0))


def test_planar_and_contiguous_rgb_read_alike(tmp_path):
    rgb = np.stack([MASK] * 3, -1)
    a = write_tiff(tmp_path / "contig.tiff", rgb)
    b = tmp_path / "planar.tiff"
    tifffile.imwrite(b, np.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate")
    fmt = MaskFormat(foreground=255, background=0)
    np.testing.assert_array_equal(read_mask(a, fmt)[0], MASK == 255)
    np.testing.assert_array_equal(read_mask(b, fmt)[0], MASK == 255)
    assert read_shape(b) == MASK.shape


def test_unusual_sample_layout_is_refused(tmp_path):
    p = tmp_path / "two.tiff"
    tifffile.imwrite(p, np.stack([MASK] * 2, -1), photometric="minisblack", planarconfig="contig")
    with pytest.raises(InputError, match=r"two\.tiff: TIFF with 2 sample\(s\) per pixel \(photometric min-is-black, "
                                         r"extra samples \(0,\)\): expected grey, grey \+ alpha, RGB, RGBA or "
                                         r"palette"):
        read_shape(p)
    tifffile.imwrite(p, np.stack([MASK] * 2, -1), photometric="minisblack", extrasamples=["unassalpha"])
    np.testing.assert_array_equal(read_mask(p, MaskFormat(foreground=255, background=0))[0], MASK == 255)


# -- item 1: a 0/1 annotator under --threshold -------------------------------------------------------------------

@pytest.fixture
def drive_like(tmp_path):
    """Two observers: one anti-aliased 0..255, one 0/1 (as DRIVE's second observer); a run on 0..255."""
    rng = np.random.default_rng(5)
    root = tmp_path / "raters"
    vessels = [rng.random((16, 20)) < 0.3 for _ in range(3)]
    for k, v in enumerate(vessels):
        soft = np.where(v, 230, 10).astype(np.uint8)
        soft[0, :3] = (60, 127, 200)  # anti-aliased edge values
        write_png(root / "observer1" / f"{k:02d}.png", soft)
        write_png(root / "observer2" / f"{k:02d}.png", v.astype(np.uint8))
        write_png(root / "run" / f"{k:02d}.png", np.where(v, 255, 0).astype(np.uint8))
        write_png(root / "run2" / f"{k:02d}.png", np.where(rng.random(v.shape) < 0.3, 255, 0).astype(np.uint8))
    return root, vessels


def test_threshold_reads_a_0_1_annotator_on_its_own_scale(drive_like):
    root, vessels = drive_like
    ch = load_raters(root, gold=["observer1", "observer2"], options=RaterOptions(threshold=128))
    for k, v in enumerate(vessels):
        mask, note = ch.read(k, "annotator", "observer2")
        np.testing.assert_array_equal(mask, v)
        assert note == f"{root / 'observer2' / f'{k:02d}.png'}: stored as 0/1 where the others are 0/255: read 1 as " \
                       "255 (foreground)"
    without = MaskFormat(foreground=255, background=0, threshold=128)  # no per-file scale: refused, never empty
    with pytest.raises(InputError, match=r"00\.png: mask stored as 0/1 where `MaskFormat\.threshold` 128 reads values on 0/255: "
                                         r"its 1s would be read as background"):
        read_mask(root / "observer2" / "00.png", without)


def test_threshold_with_a_0_1_annotator_through_score(drive_like, tmp_path, capsys):
    import pandas as pd

    root, _ = drive_like
    out = tmp_path / "out"
    assert run(score.main, ["--layout", "raters", "--data", str(root), "--gold", "observer1,observer2",
                            "--threshold", "128", "--out", str(out), "--quiet"]) == 0
    board = pd.read_csv(out / "leaderboard.csv", index_col=0)
    assert board.loc["run", "intersection_jaccard_micro"] > 0.9  # was 0.0: observer2 read as empty
    assert "stored as 0/1 where the others are 0/255" in capsys.readouterr().err


def test_annotator_empty_on_every_image_is_a_warning(drive_like, tmp_path, capsys):
    from tests.io.test_warnings import everywhere

    root, _ = drive_like
    for p in (root / "observer2").iterdir():
        write_png(p, np.zeros((16, 20), np.uint8))
    out = tmp_path / "out"
    assert run(score.main, ["--layout", "raters", "--data", str(root), "--gold", "observer1,observer2",
                            "--threshold", "128", "--out", str(out), "--quiet"]) == 0
    everywhere(out, capsys.readouterr().err, "annotator 'observer2' is empty on all 3 image(s) it drew")


# -- item 13: pixel limits, checked from the header -----------------------------------------------------------

def test_header_announcing_100000_by_100000_is_refused_before_allocating(tiny_dermavqa):
    """212 bytes that claim 10 gigapixels, used by every annotator of an image: refused when the folder is loaded."""
    from robustness.io.masks import MAX_PIXELS

    big = plain(width=(256, 4, (100_000,)), height=(257, 4, (100_000,)), rows=(278, 4, (100_000,)),
                counts=(279, 4, (10 ** 9,)))
    for p in (tiny_dermavqa / "reference").glob("IMG_ENC00001_00001_*"):
        write(p, b"\0" * 100, big)
    with pytest.raises(InputError, match=r"IMG_ENC00001_00001_mask_ann0\.tiff: image of 100000 x 100000 pixels "
                                         rf"\(10000000000\) is larger than the limit of {MAX_PIXELS} pixels"):
        load_dermavqa(tiny_dermavqa)


def test_header_announcing_more_pixels_than_the_file_holds_is_refused(tmp_path):
    p = write(tmp_path / "small.tiff", b"\0" * 100, plain(width=(256, 3, (3000,)), height=(257, 3, (3000,)),
                                                          rows=(278, 3, (3000,)), counts=(279, 4, (100,))))
    with pytest.raises(InputError, match=r"small\.tiff: damaged TIFF: its strips hold 100 bytes of uncompressed "
                                         r"data; a 3000 x 3000 image needs 9000000 bytes"):
        read_shape(p)
    q = tmp_path / "deflate.tiff"  # deflate cannot shrink more than 1032:1
    tifffile.imwrite(q, np.zeros((3000, 3000), np.uint8), compression="zlib", rowsperstrip=3000)
    raw = q.read_bytes()
    with tifffile.TiffFile(q) as tif:
        page = tif.pages[0]
        w = page.tags["ImageWidth"]
    raw = bytearray(raw)
    struct.pack_into("<H" if w.dtype == 3 else "<I", raw, w.valueoffset, 30000)  # 10x the width, same bytes
    q.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"deflate\.tiff: damaged TIFF: its strips hold \d+ bytes of deflate data; "
                                         r"a 3000 x 30000 image needs 90000000 bytes \(at most 1032 per stored byte\)"):
        read_shape(q)


def test_png_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    from robustness.io import masks

    p = write_png(tmp_path / "wide.png", np.zeros((10, 20), np.uint8))
    monkeypatch.setattr(masks, "MAX_PIXELS", 150)
    with pytest.raises(InputError, match=r"wide\.png: image of 10 x 20 pixels \(200\) is larger than the limit of "
                                         r"150 pixels"):
        read_shape(p)


# -- item 15: what the decoders say ------------------------------------------------------------------------------

@pytest.mark.parametrize("change,message", [
    ({"height": (257, 3, (0,)), "rows": (278, 3, (1,))}, r"empty image \(0 rows x 30 columns\)"),
    ({"width": (256, 3, (0,))}, r"empty image \(20 rows x 0 columns\)"),
])
def test_zero_rows_or_columns_is_one_line(tmp_path, change, message):
    p = write(tmp_path / "e.tiff", MASK.tobytes(), plain(**change))
    with pytest.raises(InputError, match=rf"e\.tiff: {message}$"):
        read_shape(p)
    with pytest.raises(InputError, match=rf"e\.tiff: {message}$"):
        read_mask(p)


@pytest.mark.parametrize("raw,message", [
    (b"II*\0", r"cannot read the file \(TIFF cut short: 4 bytes, no TIFF header\)"),
    (b"II*\0\x08\0\0\0", r"cannot read the file \(TIFF cut short: the image directory at byte 8 lies beyond the end "
                         r"of the file \(8 bytes\)\)"),
    (b"II*\0\0\0\0\0", r"cannot read the file \(TIFF cut short: no image directory\)"),
])
def test_header_only_tiff_is_one_line(tmp_path, raw, message):
    p = tmp_path / "h.tiff"
    p.write_bytes(raw)
    with pytest.raises(InputError, match=rf"h\.tiff: {message}$"):
        read_shape(p)
    with pytest.raises(InputError, match=rf"h\.tiff: {message}$"):
        read_mask(p)


def odd_tiff(path, *, readable: bool):
    """A tag of the unknown type 99 (tifffile logs it and skips it) in a file only tifffile decodes: deflate with a
    horizontal predictor (readable), or LZW that is not LZW (unreadable)."""
    import zlib

    if readable:
        delta = MASK.astype(np.int16)
        delta[:, 1:] = np.diff(delta, axis=1)
        data = zlib.compress((delta % 256).astype(np.uint8).tobytes())
        entries = plain(compression=(259, 3, (8,)), counts=(279, 4, (len(data),)))
        entries.append((300, 3, (7,)))
        entries.append((317, 3, (2,)))
        at = 9
    else:
        data = MASK.tobytes()
        entries = plain(compression=(259, 3, (5,)))
        entries.append((300, 3, (7,)))
        at = 9
    raw = bytearray(tiff_bytes(data, entries))
    struct.pack_into("<H", raw, 8 + 2 + 12 * at + 2, 99)
    path.write_bytes(bytes(raw))
    return path


def test_tifffile_log_lines_of_a_readable_file_are_its_note(tmp_path, capfd):
    p = odd_tiff(tmp_path / "odd.tiff", readable=True)
    mask, note = read_mask(p, MaskFormat(foreground=255, background=0))
    np.testing.assert_array_equal(mask, MASK == 255)
    assert note == f"{p}: tifffile: <TiffTag.fromfile> raised TiffFileError('<tifffile.TiffTag 300 @118> invalid " \
                   "data type 99')"
    assert capfd.readouterr().err == ""


def test_tifffile_log_lines_of_an_unreadable_file_are_in_its_error(tmp_path, capfd):
    p = odd_tiff(tmp_path / "odd.tiff", readable=False)
    with pytest.raises(InputError) as info:
        read_mask(p, MaskFormat(foreground=255, background=0))
    message = info.value.args[0]
    assert message.startswith(f"{p}: cannot read the file (") and "\n" not in message
    assert "; tifffile: <TiffTag.fromfile> raised TiffFileError(" in message
    assert capfd.readouterr().err == ""


# -- item 12/15: FIFOs and devices named like masks ----------------------------------------------------------------

def test_link_to_dev_zero_named_like_a_mask_is_a_device_not_a_broken_link(tiny_dermavqa):
    p = tiny_dermavqa / "reference" / "IMG_ENC00001_00001_mask_ann3.tiff"
    p.symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"IMG_ENC00001_00001_mask_ann3\.tiff: named like a mask but is not a "
                                         r"regular file \(a character device\)$"):
        load_dermavqa(tiny_dermavqa)
    with pytest.raises(InputError, match=r"mask_ann3\.tiff: is not a regular file \(a character device\)$"):
        read_shape(p)


def test_fifo_named_like_a_mask_is_refused_without_blocking(tiny_dermavqa):
    p = tiny_dermavqa / "submissions" / "runA" / "IMG_ENC00001_00001_mask_runA.tiff"
    p.unlink()
    os.mkfifo(p)
    with pytest.raises(InputError, match=r"IMG_ENC00001_00001_mask_runA\.tiff: named like a mask but is not a "
                                         r"regular file \(a FIFO\)$"):
        load_dermavqa(tiny_dermavqa)
    with pytest.raises(InputError, match=r"mask_runA\.tiff: is not a regular file \(a FIFO\)$"):
        read_mask(p)


# -- item 14: a mask rewritten while the run reads it ----------------------------------------------------------------

def test_mask_rewritten_between_two_decodes_is_one_line(tmp_path, monkeypatch):
    """A mask with a stray value is decoded twice; another process rewrites it in between with another shape."""
    from robustness.io import masks

    m = np.where(MASK == 255, 255, 0).astype(np.uint8)
    m[0, 0] = 250  # a stray value (nearer foreground): the second decode happens
    p = write_png(tmp_path / "r" / "a.png", m)
    real, calls = masks._read_pixels, []

    def rewritten(path, *args, **kw):
        calls.append(path)
        if len(calls) == 2:
            write_png(path, np.full((7, 9), 250, np.uint8))
        return real(path, *args, **kw)

    monkeypatch.setattr(masks, "_read_pixels", rewritten)
    with pytest.raises(InputError, match=re.escape(f"{p}: the file changed while it was read (decoded as 20 x 30 "
                                                   "pixels, then as 7 x 9)")):
        read_mask(p, MaskFormat(foreground=255, background=0, stray_tolerance=0.05))


def test_mask_rewritten_after_loading_is_one_line(tiny_dermavqa):
    from robustness.overlap import compute_overlap

    p = tiny_dermavqa / "submissions" / "runB" / "IMG_ENC00001_00002_mask_runB.tiff"
    ch = load_dermavqa(tiny_dermavqa)
    write_tiff(p, np.zeros((9, 9), np.uint8))
    with pytest.raises(InputError, match=re.escape(f"{p}: mask has shape (9, 9), the image has shape (4, 4)")):
        compute_overlap(ch, rng=0)


def test_damaged_tiffs_are_read_or_refused_in_one_line(tmp_path):
    """400 random damages (bytes overwritten, files cut) of TIFFs of eight kinds: every outcome is a mask or one
    line naming the file, never another exception, a printed log line or a warning."""
    import warnings

    rng = np.random.default_rng(17)
    m = (rng.random((37, 53)) < 0.3).astype(np.uint8)
    kinds = []
    for i, kw in enumerate([{}, {"compression": "zlib"}, {"compression": "zlib", "rowsperstrip": 5},
                            {"tile": (16, 16)}, {"compression": "lzw"}, {"bigtiff": True}, {"photometric": "rgb"},
                            {"predictor": True, "compression": "zlib"}]):
        p = tmp_path / f"k{i}.tiff"
        tifffile.imwrite(p, np.stack([m] * 3, -1) if "photometric" in kw else m, **kw)
        kinds.append(p.read_bytes())
    p = tmp_path / "x.tiff"
    fmt = MaskFormat(foreground=1, background=0, stray_tolerance=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for trial in range(400):
            raw = bytearray(kinds[trial % len(kinds)])
            if trial % 3 == 0:
                raw = raw[:int(rng.integers(len(raw)))]
            else:
                for _ in range(int(rng.integers(1, 4))):
                    raw[int(rng.integers(min(len(raw), 300)))] = int(rng.integers(256))
            p.write_bytes(bytes(raw))
            for read in (read_shape, lambda q: read_mask(q, fmt)):
                try:
                    read(p)
                except InputError as exc:
                    assert str(exc).startswith(f"{p}: ") and "\n" not in str(exc), str(exc)
