"""TIFF masks: the header checked before any pixel is read, and a lean reader for the common kind.

Checks (:func:`tiff_header`)
----------------------------
A mask is read only where tifffile and PIL read the same pixels; every other
file is refused with one line naming it (:class:`~robustness.errors.InputError`),
from its header, before any pixel memory is allocated:

- a tag that appears twice in the image directory (tifffile and PIL take the
  first, other readers the last: a second StripOffsets decodes other bytes);
- a strip or tile with a byte count or an offset of 0 (tifffile reads it as
  background, PIL refuses it or reads other bytes), strips lying beyond the
  end of the file, or fewer strips than the image needs;
- several pages (a mask is one image; tifffile's series would read them as
  channels), a volume (ImageDepth), and sample layouts other than grey,
  grey + alpha, RGB, RGBA and palette (the palette's colours are read, as the
  mask is displayed, never its indices);
- no rows or no columns, a header cut short, more pixels than ``max_pixels``,
  and strips too small for the pixels the header announces (uncompressed:
  fewer bytes than pixels; deflate: more than 1,032 pixel bytes per stored
  byte, deflate's ceiling; PackBits: more than 64).

Min-is-white files (tifffile writes boolean arrays so) are read as their
stored values, as tifffile and the official scorer read them.

The lean reader
---------------
Decoding a 2 MP deflate mask with ``tifffile.imread`` spends most of its time
in Python around the inflation (parsing every tag, building page and series
objects). For the files this package meets most, a classic TIFF (TIFF 6.0)
holding one grey 8-bit page in strips, uncompressed or deflate
(compression 1, 8 or 32946) without predictor, :func:`read_tiff` inflates
every strip straight into the output array (``imagecodecs.zlibng_decode`` with
``out=``: zlib-ng inflates these masks 2-3 times faster than libdeflate and 20
times faster than zlib; libdeflate where imagecodecs lacks zlib-ng). Anything
else that passes the checks (BigTIFF, samples, tiles, predictors, other bit
depths or compressions, an ImageDescription announcing another shape) returns
None and the caller uses tifffile, so results are always tifffile's (tests
compare them).
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, overload

import numpy as np

from robustness._lazy import lazy_module
from robustness.errors import InputError
from robustness.files import open_regular

if TYPE_CHECKING:
    import imagecodecs
else:
    imagecodecs = lazy_module("imagecodecs")

__all__ = ["TiffHeader", "tiff_header", "read_tiff", "tiff_shape"]

# type -> (struct code, size); 2 ASCII and 7 UNDEFINED are read as bytes
_TYPES = {1: ("B", 1), 2: ("s", 1), 3: ("H", 2), 4: ("I", 4), 5: ("II", 8), 6: ("b", 1), 7: ("s", 1),
          8: ("h", 2), 9: ("i", 4), 10: ("ii", 8), 11: ("f", 4), 12: ("d", 8), 13: ("I", 4), 16: ("Q", 8),
          17: ("q", 8), 18: ("Q", 8)}
_NAMES = {254: "NewSubfileType", 256: "ImageWidth", 257: "ImageLength", 258: "BitsPerSample", 259: "Compression",
          262: "PhotometricInterpretation", 270: "ImageDescription", 273: "StripOffsets", 277: "SamplesPerPixel",
          278: "RowsPerStrip", 279: "StripByteCounts", 284: "PlanarConfiguration", 317: "Predictor",
          320: "ColorMap", 322: "TileWidth", 323: "TileLength", 324: "TileOffsets", 325: "TileByteCounts",
          338: "ExtraSamples", 339: "SampleFormat", 32997: "ImageDepth"}
_WANTED = set(_NAMES) - {254, 320}  # the colour map is tifffile's to read
_INTEGERS = {1, 3, 4, 6, 8, 9, 13, 16, 17, 18}
_DEFLATE = (8, 32946)
#: Largest number of pixel bytes one stored byte can hold, per compression (a bound, to refuse absurd headers).
_RATIO = {1: 1, 8: 1032, 32946: 1032, 32773: 64}
_PHOTOMETRIC = {0: "min-is-white", 1: "min-is-black", 2: "RGB", 3: "palette", 4: "transparency mask", 5: "CMYK",
                6: "YCbCr", 8: "CIELab"}
_MAX_PAGES = 10_000  # pages counted for the message before giving up


@dataclass(frozen=True)
class TiffHeader:
    """The first image directory of a TIFF, checked (module notes).

    Attributes
    ----------
    rows, columns : int
    tags : dict
        ``{tag: tuple of values}`` of the tags this module reads (ImageDescription as ``(bytes,)``).
    big : bool
        BigTIFF.
    byteorder : str
        ``'<'`` or ``'>'``.
    """

    rows: int
    columns: int
    tags: dict
    big: bool
    byteorder: str

    @overload
    def one(self, tag: int, default: int) -> int: ...

    @overload
    def one(self, tag: int, default: None = None) -> int | None: ...

    def one(self, tag: int, default: int | None = None) -> int | None:
        """The first value of a numeric tag, or ``default`` when the directory does not hold it.

        Parameters
        ----------
        tag : int
            The tag number (e.g. 256, ImageWidth); not ImageDescription (270), whose bytes are ``tags[270]``.
        default : int, optional
            The value of a missing tag (TIFF's default for it, where it has one).

        Returns
        -------
        int or None
            The tag's first value, else ``default``.
        """
        value = self.tags.get(tag, (default,))[0]
        if isinstance(value, bytes):
            raise TypeError(f"tag {tag} holds bytes: read tags[{tag}]")
        return value


class _Bytes:
    """Random access to a file's bytes, from memory or from an open file."""

    def __init__(self, source, size: int):
        self.source, self.size = source, size

    def read(self, offset: int, n: int) -> bytes:
        if offset < 0 or n < 0 or offset + n > self.size:
            return b""
        if isinstance(self.source, (bytes, bytearray, memoryview)):
            return bytes(self.source[offset:offset + n])
        self.source.seek(offset)
        return self.source.read(n)


def _damaged(path, what: str) -> InputError:
    return InputError(f"{path}: damaged TIFF: {what}")


def _cut(path, what: str) -> InputError:
    return InputError(f"{path}: cannot read the file (TIFF cut short: {what})")


def _name(tag: int) -> str:
    return f"tag {tag} ({_NAMES[tag]})" if tag in _NAMES else f"tag {tag}"


def _directory(data: _Bytes, offset: int, e: str, big: bool, path) -> tuple[dict[int, tuple[int, int, bytes]], int]:
    """``{tag: (type, count, value field)}`` of the directory at ``offset``, and the next one's offset."""
    head, entry, ptr = (8, 20, 8) if big else (2, 12, 4)
    raw = data.read(offset, head)
    if len(raw) < head:
        raise _cut(path, f"the image directory at byte {offset} lies beyond the end of the file "
                         f"({data.size} bytes)")
    (n,) = struct.unpack(e + ("Q" if big else "H"), raw)
    body = data.read(offset + head, n * entry + ptr)
    if len(body) < n * entry + ptr:
        raise _cut(path, f"the image directory at byte {offset} announces {n} entries, more than the file holds")
    entries: dict[int, tuple[int, int, bytes]] = {}
    for k in range(n):
        at = k * entry
        tag, typ = struct.unpack_from(e + "HH", body, at)
        count = struct.unpack_from(e + ("Q" if big else "I"), body, at + 4)[0]
        if tag in entries:
            raise _damaged(path, f"{_name(tag)} appears twice in the image directory (tifffile and PIL read the "
                                 "first, other readers the last)")
        entries[tag] = (typ, count, body[at + 4 + ptr:at + entry])
    (next_ifd,) = struct.unpack_from(e + ("Q" if big else "I"), body, n * entry)
    return entries, next_ifd


def _values(data: _Bytes, e: str, big: bool, tag: int, typ: int, count: int, field: bytes, path) -> tuple:
    if typ not in _TYPES:
        raise _damaged(path, f"{_name(tag)} has the unknown type {typ}")
    if tag != 270 and typ not in _INTEGERS:
        raise _damaged(path, f"{_name(tag)} has type {typ} where whole numbers are expected")
    code, size = _TYPES[typ]
    if count > 1 << 24:
        raise _damaged(path, f"{_name(tag)} announces {count} values")
    nbytes = size * count
    if nbytes > len(field):
        (at,) = struct.unpack(e + ("Q" if big else "I"), field)
        raw = data.read(at, nbytes)
        if len(raw) < nbytes:
            raise _cut(path, f"the values of {_name(tag)} lie beyond the end of the file")
    else:
        raw = field[:nbytes]
    if code == "s":
        return (bytes(raw),)
    values = struct.unpack(f"{e}{count * len(code)}{code[0]}", raw)
    if any(v < 0 for v in values):
        raise _damaged(path, f"{_name(tag)} holds a negative value")
    return values


def _pages(data: _Bytes, first_next: int, e: str, big: bool) -> int:
    """Number of pages (image directories) the chain links, from the second one's offset (0: one page)."""
    pages, seen, offset = 1, set(), first_next
    head, entry, ptr = (8, 20, 8) if big else (2, 12, 4)
    while offset and offset not in seen and pages < _MAX_PAGES:
        raw = data.read(offset, head)
        if len(raw) < head:
            break
        seen.add(offset)
        pages += 1
        (n,) = struct.unpack(e + ("Q" if big else "H"), raw)
        raw = data.read(offset + head + n * entry, ptr)
        if len(raw) < ptr:
            break
        (offset,) = struct.unpack(e + ("Q" if big else "I"), raw)
    return pages


def tiff_header(source: bytes | bytearray | memoryview | BinaryIO, path: str | os.PathLike | None = None, *,
                max_pixels: int | None = None) -> TiffHeader:
    """The checked header of a TIFF: ``source`` is its bytes or a binary file open for reading.

    Reads only the header, the first image directory, its values and the next directory pointers (a file
    holding several pages is refused without reading them).

    Parameters
    ----------
    source : bytes, bytearray, memoryview or binary file
        The file's bytes, or the file open for reading (a real file: its size comes from ``fstat``).
    path : str or os.PathLike, optional
        The file's name, in messages (None: messages say ``None``).
    max_pixels : int, optional
        Refuse images of more pixels than this (None: no limit).

    Returns
    -------
    TiffHeader
        The size and the tags of the first image directory.

    Raises
    ------
    InputError
        One line naming ``path`` (module notes).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = _Bytes(source, len(source))
    else:
        data = _Bytes(source, os.fstat(source.fileno()).st_size)
    e, big, offset = _header(data, path)
    if offset < 8 or offset >= data.size:
        raise _cut(path, "no image directory" if offset < 8 else
                   f"the image directory at byte {offset} lies beyond the end of the file ({data.size} bytes)")
    entries, next_ifd = _directory(data, offset, e, big, path)
    if next_ifd:
        n = _pages(data, next_ifd, e, big)
        if n > 1:
            raise InputError(f"{path}: TIFF holds {n if n < _MAX_PAGES else f'at least {n}'} pages; a mask is one "
                             "image (tifffile would read the pages as channels): save one page per file")
        raise _cut(path, f"the next image directory at byte {next_ifd} lies beyond the end of the file "
                         f"({data.size} bytes)")
    tags = {tag: _values(data, e, big, tag, *entries[tag], path) for tag in entries if tag in _WANTED}
    header = TiffHeader(0, 0, tags, big, e)
    height, width = _image(header, path, max_pixels)
    _check_data(header, data, path, height, width)
    return TiffHeader(height, width, tags, big, e)


def _header(data: _Bytes, path) -> tuple[str, bool, int]:
    """The file's byte order (``<`` or ``>``), whether it is a BigTIFF, and its first directory's offset."""
    head = data.read(0, 16) or data.read(0, 8)
    if len(head) < 8:
        raise _cut(path, f"{data.size} bytes, no TIFF header")
    if head[:2] not in (b"II", b"MM"):
        raise InputError(f"{path}: cannot read the file (not a TIFF file)")
    e = "<" if head[:2] == b"II" else ">"
    (version,) = struct.unpack_from(e + "H", head, 2)
    if version == 42:
        return e, False, struct.unpack_from(e + "I", head, 4)[0]
    if version == 43 and len(head) == 16 and struct.unpack_from(e + "HH", head, 4) == (8, 0):
        return e, True, struct.unpack_from(e + "Q", head, 8)[0]
    raise InputError(f"{path}: cannot read the file (not a TIFF file)")


def _image(header: TiffHeader, path, max_pixels: int | None) -> tuple[int, int]:
    """The first image's (height, width), checked: not empty, within ``max_pixels``, one 2-D page of a kind read."""
    one, tags = header.one, header.tags
    width, height = one(256), one(257)
    if width is None or height is None:
        raise _damaged(path, f"no {_name(256 if width is None else 257)}")
    if width == 0 or height == 0:
        raise InputError(f"{path}: empty image ({height} rows x {width} columns)")
    pixels = int(width) * int(height)
    if max_pixels is not None and pixels > max_pixels:
        raise InputError(f"{path}: image of {height} x {width} pixels ({pixels}) is larger than the limit of "
                         f"{max_pixels} pixels")
    if one(32997, 1) > 1:
        raise InputError(f"{path}: TIFF volume ({one(32997)} slices deep); a mask is one 2-D image")
    photometric, samples = one(262), one(277, 1)
    extra = tags.get(338, ())
    if photometric is None:  # tifffile guesses from the samples (and says so)
        photometric = {1: 1, 3: 2}.get(samples - len(extra))
    if ((photometric, samples - len(extra)) not in ((0, 1), (1, 1), (2, 3), (3, 1)) or len(extra) > 1
            or any(v not in (1, 2) for v in extra)):  # one extra sample, and it is alpha
        shown = None if photometric is None else _PHOTOMETRIC.get(photometric, photometric)
        raise InputError(f"{path}: TIFF with {samples} sample(s) per pixel (photometric "
                         f"{shown}, extra samples {tuple(extra)}): expected grey, "
                         "grey + alpha, RGB, RGBA or palette")
    return int(height), int(width)


def _check_data(header: TiffHeader, data: _Bytes, path, height: int, width: int) -> None:
    """Strips (or tiles): present, no count or offset of 0, inside the file, enough of them and enough bytes."""
    one, tags = header.one, header.tags
    tiled = 322 in tags or 324 in tags
    offsets_tag, counts_tag = (324, 325) if tiled else (273, 279)
    what = "tile" if tiled else "strip"
    if offsets_tag not in tags or counts_tag not in tags:
        raise _damaged(path, f"no {_name(offsets_tag if offsets_tag not in tags else counts_tag)}")
    offsets, counts = tags[offsets_tag], tags[counts_tag]
    if len(offsets) != len(counts):
        raise _damaged(path, f"{len(offsets)} {what} offsets but {len(counts)} byte counts")
    samples = one(277, 1)
    needed = _pieces(header, path, height, width, tiled)
    if len(offsets) < needed:
        raise _damaged(path, f"{len(offsets)} {what}(s) where a {height} x {width} image needs {needed}")
    for k, (off, cnt) in enumerate(zip(offsets, counts)):
        if cnt == 0 or off == 0:
            raise _damaged(path, f"{what} {k} has {'a byte count' if cnt == 0 else 'an offset'} of 0 (tifffile "
                                 "reads it as background, PIL refuses it or reads other bytes)")
        if off + cnt > data.size:
            raise _cut(path, f"{what} {k} ends at byte {off + cnt}, the file has {data.size}")
    bits = one(258, 1)
    needed_bytes = height * -(-width * samples * bits // 8)
    ratio = _RATIO.get(one(259, 1))
    held = sum(counts)
    if ratio is not None and held * ratio < needed_bytes:
        kind = {1: "uncompressed", 32773: "PackBits"}.get(one(259, 1), "deflate")
        raise _damaged(path, f"its {what}s hold {held} bytes of {kind} data; a {height} x {width} image needs "
                             f"{needed_bytes} bytes" + (f" (at most {ratio} per stored byte)" if ratio > 1 else ""))


def _pieces(header: TiffHeader, path, height: int, width: int, tiled: bool) -> int:
    """How many strips (or tiles, where ``tiled``) a ``height`` x ``width`` image of the header's layout needs."""
    one = header.one
    planes = one(277, 1) if one(284, 1) == 2 else 1
    if tiled:
        tw, tl = one(322, 0), one(323, 0)
        if not tw or not tl:
            raise _damaged(path, f"tiles of {tl} x {tw} pixels")
        return -(-height // tl) * -(-width // tw) * planes
    rows = min(one(278, height) or height, height)
    return -(-height // rows) * planes


def _inflater():
    return imagecodecs.zlibng_decode if imagecodecs.ZLIBNG.available else imagecodecs.deflate_decode


def tiff_shape(path: str | os.PathLike, *, max_pixels: int | None = None) -> tuple[int, int]:
    """(rows, columns) of a TIFF from its checked header (:func:`tiff_header`; reads the header only).

    Parameters
    ----------
    path : str or os.PathLike
        The TIFF file (opened only when it is a regular file).
    max_pixels : int, optional
        Refuse images of more pixels than this (None: no limit).

    Returns
    -------
    (rows, columns) : int

    Raises
    ------
    InputError
        One line naming ``path``: not a regular file, or a header that fails a check (module notes).
    """
    with open_regular(path) as f:
        h = tiff_header(f, path, max_pixels=max_pixels)
    return h.rows, h.columns


def lean(header: TiffHeader) -> bool:
    """Whether :func:`read_tiff` decodes a file with this header itself (module notes).

    Parameters
    ----------
    header : TiffHeader
        A checked header (:func:`tiff_header`).

    Returns
    -------
    bool
        True for a classic TIFF holding one grey 8-bit page in strips, uncompressed or deflate without
        predictor (and no ImageDescription announcing another shape).
    """
    one, tags = header.one, header.tags
    if (header.big or one(258, 1) != 8 or one(277, 1) != 1 or one(259, 1) not in (1, *_DEFLATE)
            or one(262) not in (0, 1) or one(284, 1) != 1 or one(317, 1) != 1 or 322 in tags or 324 in tags
            or one(339, 1) != 1 or 273 not in tags):
        return False
    if 270 in tags and tags[270][0].startswith(b'{"shape"'):
        try:
            described = json.loads(tags[270][0].rstrip(b"\0").decode())["shape"]
        except (ValueError, KeyError, UnicodeDecodeError, TypeError):
            return False
        if list(described) != [header.rows, header.columns]:
            return False
    return True


def read_tiff(path: str | os.PathLike, out: np.ndarray | None = None, *, buffer: bytes | None = None,
              header: TiffHeader | None = None, max_pixels: int | None = None) -> np.ndarray | None:
    """The page of a TIFF as a 2-D uint8 array, when it is of the common kind (module notes); else None.

    Parameters
    ----------
    path : str or os.PathLike
        The TIFF file (read only when ``buffer`` is not given; named in messages).
    out : ndarray of uint8, optional
        A contiguous array of at least rows x columns elements that receives the pixels (the result is then a
        view of it): a caller reading many masks in turn saves allocating fresh memory for each. None, or an
        array that does not fit: a new one.
    buffer : bytes, optional
        The file's bytes when the caller has them already.
    header : TiffHeader, optional
        The file's checked header when the caller has it already.
    max_pixels : int, optional
        Refuse images of more pixels than this (None: no limit; unused when ``header`` is given).

    Returns
    -------
    ndarray of uint8 (rows, columns) or None
        The pixels, or None when the file is not of the common kind (or a strip is short or does not inflate
        to its size): the caller then reads it with tifffile.

    Raises
    ------
    InputError
        The header fails a check (:func:`tiff_header`).
    """
    if buffer is None:
        with open_regular(path) as f:
            buffer = f.read()
    if header is None:
        header = tiff_header(buffer, path, max_pixels=max_pixels)
    if not lean(header):
        return None
    height, width = header.rows, header.columns
    compression = header.one(259, 1)
    offsets, counts = header.tags[273], header.tags[279]
    rows = min(header.one(278, height) or height, height)
    if out is None or out.size < height * width or out.dtype != np.uint8 or not out.flags.c_contiguous:
        out = np.empty(height * width, dtype=np.uint8)
    out = out.reshape(-1)[:height * width]
    inflate = None
    pos = 0
    for off, cnt in zip(offsets, counts):
        if pos >= out.size:
            break
        n = min(rows, height - pos // width) * width
        data = buffer[off:off + cnt]
        if compression == 1:
            if cnt < n:
                return None  # tifffile decides (and says) what a short strip means
            out[pos:pos + n] = np.frombuffer(data, dtype=np.uint8, count=n)
        else:
            inflate = inflate or _inflater()
            try:
                decoded = inflate(data, out=out[pos:pos + n])
            except Exception:
                return None  # let tifffile say what is wrong with the strip
            if len(decoded) != n:
                return None
        pos += n
    return out.reshape(height, width)
