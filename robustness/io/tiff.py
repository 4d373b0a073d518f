"""A lean reader for the TIFF masks challenges ship: one page, 8-bit grey, strips, none or deflate compression.

Decoding a 2 MP deflate mask with ``tifffile.imread`` spends most of its time
in Python around the inflation (parsing every tag, building page and series
objects). For the files this package meets most, a classic TIFF (TIFF 6.0)
holding one grey 8-bit page in strips, uncompressed or deflate (compression
1, 8 or 32946) without predictor, :func:`read_tiff` reads the file once,
parses the first IFD with :mod:`struct` and inflates every strip straight
into the output array (``imagecodecs.zlibng_decode`` with ``out=``: zlib-ng
inflates these masks 2-3 times faster than libdeflate and 20 times faster than
zlib; libdeflate where imagecodecs lacks zlib-ng).
Anything else (BigTIFF, several pages, samples, tiles, predictors, other bit
depths or compressions, an ImageDescription announcing another shape) returns
None and the caller uses tifffile, so results are always tifffile's (tests
compare them).
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["read_tiff", "tiff_shape"]

_TYPES = {1: "B", 3: "H", 4: "I", 16: "Q"}  # BYTE, SHORT, LONG, LONG8
_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 16: 8}
_WANTED = {256, 257, 258, 259, 262, 266, 270, 273, 277, 278, 279, 284, 317, 322, 339}
_DEFLATE = (8, 32946)


def _ifd(buf: bytes, *, values: bool):
    """Tags of the first IFD of a classic TIFF as ``{tag: tuple}`` (offsets resolved when ``values``), and the
    next IFD's offset; None when ``buf`` is not a classic TIFF or is cut short.
    """
    if len(buf) < 8 or buf[:4] not in (b"II*\0", b"MM\0*"):
        return None
    e = "<" if buf[:2] == b"II" else ">"
    (offset,) = struct.unpack_from(e + "I", buf, 4)
    if offset + 2 > len(buf):
        return None
    (n,) = struct.unpack_from(e + "H", buf, offset)
    end = offset + 2 + 12 * n
    if end + 4 > len(buf):
        return None
    tags = {}
    for k in range(n):
        tag, typ, count = struct.unpack_from(e + "HHI", buf, offset + 2 + 12 * k)
        if tag not in _WANTED:
            continue
        if typ not in _TYPES and tag != 270:
            return None
        size = _SIZES.get(typ, 1) * count
        at = offset + 2 + 12 * k + 8
        if size > 4:
            if not values:
                continue
            (at,) = struct.unpack_from(e + "I", buf, at)
            if at + size > len(buf):
                return None
        if tag == 270:
            tags[tag] = (bytes(buf[at:at + size]),)
        else:
            tags[tag] = struct.unpack_from(f"{e}{count}{_TYPES[typ]}", buf, at)
    (next_ifd,) = struct.unpack_from(e + "I", buf, end)
    return tags, next_ifd


def _inflater():
    import imagecodecs

    return imagecodecs.zlibng_decode if imagecodecs.ZLIBNG.available else imagecodecs.deflate_decode


def tiff_shape(path) -> tuple[int, int] | None:
    """(rows, columns) from the first IFD of a classic single-sample TIFF, else None (reads the header only)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8 or head[:4] not in (b"II*\0", b"MM\0*"):
            return None
        e = "<" if head[:2] == b"II" else ">"
        (offset,) = struct.unpack(e + "I", head[4:8])
        f.seek(offset)
        raw = f.read(2)
        if len(raw) < 2:
            return None
        (n,) = struct.unpack(e + "H", raw)
        entries = f.read(12 * n + 4)
    # rebuild a minimal buffer with the IFD at its place so that _ifd can parse it
    buf = head[:4] + struct.pack(e + "I", 8) + raw + entries
    parsed = _ifd(buf, values=False)
    if parsed is None:
        return None
    tags = parsed[0]
    if 256 not in tags or 257 not in tags or tags.get(277, (1,))[0] != 1:
        return None
    return int(tags[257][0]), int(tags[256][0])


def read_tiff(path, out: np.ndarray | None = None) -> np.ndarray | None:
    """The first page of a TIFF as a 2-D uint8 array, when it is of the common kind (module notes); else None.

    ``out``, a contiguous uint8 array of at least rows x columns elements, receives the pixels (the result is
    then a view of it): a caller reading many masks in turn saves allocating fresh memory for each.
    """
    with open(path, "rb") as f:
        buf = f.read()
    parsed = _ifd(buf, values=True)
    if parsed is None:
        return None
    tags, next_ifd = parsed
    one = lambda tag, default=None: tags.get(tag, (default,))[0]  # noqa: E731
    width, height = one(256), one(257)
    compression = one(259, 1)
    if (next_ifd != 0 or width is None or height is None or one(258, 1) != 8 or one(277, 1) != 1
            or compression not in (1, *_DEFLATE) or one(262) not in (0, 1) or one(266, 1) != 1
            or one(284, 1) != 1 or one(317, 1) != 1 or 322 in tags or one(339, 1) != 1
            or 273 not in tags or 279 not in tags):
        return None
    if 270 in tags and tags[270][0].startswith(b'{"shape"'):
        import json

        try:
            described = json.loads(tags[270][0].rstrip(b"\0").decode())["shape"]
        except (ValueError, KeyError, UnicodeDecodeError):
            return None
        if list(described) != [height, width]:
            return None
    offsets, counts = tags[273], tags[279]
    rows = one(278, height) or height
    if len(offsets) != len(counts) or len(offsets) != -(-height // rows):
        return None
    if out is None or out.size < height * width or out.dtype != np.uint8 or not out.flags.c_contiguous:
        out = np.empty(height * width, dtype=np.uint8)
    out = out.reshape(-1)[:height * width]
    inflate = None
    pos = 0
    for off, cnt in zip(offsets, counts):
        n = min(rows, height - pos // width) * width
        data = buf[off:off + cnt]
        if len(data) != cnt:
            return None
        if compression == 1:
            if cnt < n:
                return None
            out[pos:pos + n] = np.frombuffer(data, dtype=np.uint8, count=n)
        else:
            inflate = inflate or _inflater()
            try:
                decoded = inflate(data, out=out[pos:pos + n])
            except Exception:
                return None  # let tifffile say what is wrong with the file
            if len(decoded) != n:
                return None
        pos += n
    return out.reshape(height, width)
