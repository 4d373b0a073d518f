"""What a medical image's header announces, checked before SimpleITK opens the file.

SimpleITK follows what a header says: an NRRD ``data file:`` or a MetaImage ``ElementDataFile =`` line names any
file (``/etc/passwd``, ``../..``, ``/dev/zero``, a FIFO that blocks forever) and its bytes are read as voxels;
a NIfTI cut short is read with the missing voxels as 0, its NaN and infinite voxels as 0, and a spacing
(``pixdim``) of 0 or NaN as 1 mm, each with at most a raw ITK line on stderr. So the header is read here first,
as text or bytes from the file the user named, and refused in one line naming the file when:

- a detached data file lies outside the header's own folder (an absolute path, a ``..``), is a symbolic link, a
  FIFO, a device or anything but a regular file, or is a list or a pattern of files;
- the image announces more than :data:`MAX_VOXELS` voxels;
- a NIfTI spacing along an image axis is 0, negative or not finite;
- a NIfTI's voxel data end before the header's size (the gzip stream cut short included);
- a floating-point NIfTI holds NaN or infinite voxels.

:func:`check_header` reads the header alone (and the file's size); :func:`check_voxels` also reads a NIfTI's
voxel bytes once, in chunks, for the last two checks (SimpleITK then reads the file as usual).
"""

from __future__ import annotations

import math
import os
import re
import stat
import struct
import zlib
from pathlib import Path, PurePosixPath
from typing import Literal

import numpy as np

from robustness.errors import InputError
from robustness.files import kind_of

__all__ = ["MAX_VOXELS", "check_header", "check_voxels"]

#: The most voxels one mask may hold (512 x 512 x 2,048 slices): a mask is held whole in memory while an image is
#: scored, about 1 byte per voxel per annotator and run at once plus its labels as read (up to 8 bytes per voxel),
#: so this bound keeps one image within a few GiB. Larger scans are cropped to the region scored.
MAX_VOXELS = 2 ** 29

#: A text header longer than this is not a header (NRRD and MetaImage headers are a few hundred bytes).
MAX_HEADER_BYTES = 1 << 20

_CHUNK = 1 << 22

#: NIfTI datatype code -> numpy type (the ones a label mask can use); other codes are refused.
_NIFTI_TYPES = {2: "u1", 4: "i2", 8: "i4", 16: "f4", 64: "f8", 256: "i1", 512: "u2", 768: "u4", 1024: "i8",
                1280: "u8"}


def _kind(mode: int) -> str:
    return kind_of(mode)


def _text_header(path: Path, *, until) -> list[str]:
    r"""The header's lines (decoded as Latin-1), up to the line ``until(line)`` is true for, or the end.

    A line ends at ``\n``, ``\r\n`` or a lone ``\r``, as ITK's readers end it (a ``# c\rdata file: ...`` line
    is two lines to them, so it is two lines here).
    """
    with open(path, "rb") as f:
        data = f.read(MAX_HEADER_BYTES + 1)
    lines: list[str] = []
    for line in re.split(r"\r\n|\r|\n", data.decode("latin-1")):
        lines.append(line)
        if until(line):
            return lines
    if len(data) > MAX_HEADER_BYTES:
        raise InputError(f"{path}: header longer than {MAX_HEADER_BYTES} bytes; not a medical image header")
    return lines


def _field(line: str, separators: str) -> tuple[str, str] | None:
    """``(key, value)`` of a header line, the key lower case without spaces; None for a line without a field."""
    m = re.match(rf"\s*([^{separators}]*?)\s*[{separators}]=?\s*(.*)$", line)
    return None if m is None else ("".join(m.group(1).split()).lower(), m.group(2).strip())


def _detached(path: Path, name: str, field: str) -> None:
    """A detached data file: a regular file inside the header's own folder, reached through no symbolic link."""
    value = name.strip()
    shown = value if len(value) <= 80 else value[:80] + "..."
    if not value or value.upper().startswith("LIST") or "%" in value or " " in value.strip():
        raise InputError(f"{path}: {field} {shown!r} is a list or a pattern of files; only one data file beside the "
                         "header is read (save the mask as one file)")
    rel = PurePosixPath(value.replace("\\", "/"))
    if not rel.parts or rel.parts == (".",):
        raise InputError(f"{path}: {field} {shown!r} names a folder, not a data file")
    if rel.is_absolute() or ".." in rel.parts or ":" in rel.parts[0]:
        raise InputError(f"{path}: {field} {shown!r} lies outside the header's folder; a mask's data file must lie "
                         "beside its header (nothing a header points to elsewhere is read)")
    here = path.parent
    for k, part in enumerate(rel.parts):
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            raise InputError(f"{path}: {field} {shown!r} not found beside the header") from None
        last = k == len(rel.parts) - 1
        if stat.S_ISLNK(mode):
            raise InputError(f"{path}: {field} {shown!r} is a symbolic link; a mask's data file must be the file "
                             "itself, beside its header")
        if last and not stat.S_ISREG(mode):
            raise InputError(f"{path}: {field} {shown!r} is not a regular file ({_kind(mode)})")
        if not last and not stat.S_ISDIR(mode):
            raise InputError(f"{path}: {field} {shown!r} not found beside the header")


def _voxels(path: Path, sizes: list[int]) -> int:
    n = math.prod(sizes) if sizes else 0
    if any(s < 0 for s in sizes):
        raise InputError(f"{path}: negative image size {' x '.join(map(str, sizes))}")
    if n > MAX_VOXELS:
        raise InputError(f"{path}: image of {' x '.join(map(str, sizes))} voxels ({n}) is larger than the limit of "
                         f"{MAX_VOXELS} voxels")
    return n


def _integers(path: Path, field: str, text: str) -> list[int]:
    try:
        return [int(v) for v in text.split()]
    except ValueError:
        shown = text if len(text) <= 60 else text[:60] + "..."
        raise InputError(f"{path}: {field} {shown!r} is not a list of whole numbers") from None


def _nrrd(path: Path) -> None:
    lines = _text_header(path, until=lambda line: line == "")
    if not lines or not lines[0].startswith("NRRD"):
        raise InputError(f"{path}: not an NRRD file (no NRRD magic line)")
    for line in lines[1:]:
        field = None if line.lstrip().startswith("#") else _field(line, ":")
        if field is None:
            continue
        key, value = field
        if key == "datafile":  # as a field (``data file:``) or, to be safe, as a key/value pair (``:=``)
            _detached(path, value, "data file")
        elif key == "sizes":
            _voxels(path, _integers(path, "sizes", value))


def _metaimage(path: Path) -> None:
    def key(line):
        field = _field(line, "=:")
        return field[0] if field else ""

    lines = _text_header(path, until=lambda line: key(line) == "elementdatafile")
    found = False
    for line in lines:
        field = _field(line, "=:")  # MetaIO reads ``Key = value`` and ``Key: value`` alike
        if field is None:
            continue
        name, value = field
        if name == "dimsize":
            _voxels(path, _integers(path, "DimSize", value))
        elif name == "elementdatafile":
            found = True
            if value.upper() != "LOCAL":
                _detached(path, value, "ElementDataFile")
    if not found:
        raise InputError(f"{path}: no ElementDataFile line; not a MetaImage header")


class _Nifti:
    """The fields of a NIfTI-1 or NIfTI-2 header the checks need."""

    def __init__(self, path: Path, head: bytes):
        order, size = _nifti_version(path, head)
        self.order = order
        if size == 348:
            self.dim = struct.unpack(order + "8h", head[40:56])
            self.datatype, self.bitpix = struct.unpack(order + "2h", head[70:74])
            self.pixdim = struct.unpack(order + "8f", head[76:108])
            self.offset = struct.unpack(order + "f", head[108:112])[0]
        else:
            self.datatype, self.bitpix = struct.unpack(order + "2h", head[12:16])
            self.dim = struct.unpack(order + "8q", head[16:80])
            self.pixdim = struct.unpack(order + "8d", head[104:168])
            self.offset = struct.unpack(order + "q", head[168:176])[0]
        ndim = self.dim[0]
        if not 1 <= ndim <= 7:
            raise InputError(f"{path}: NIfTI header with {ndim} dimensions (dim[0] must be 1 to 7)")
        self.sizes = [int(v) for v in self.dim[1:ndim + 1]]
        if not math.isfinite(self.offset) or self.offset < size:
            raise InputError(f"{path}: NIfTI voxel offset {self.offset} lies inside the header")
        self.offset = int(self.offset)
        code = _NIFTI_TYPES.get(self.datatype)
        if code is None:
            raise InputError(f"{path}: NIfTI datatype {self.datatype} is not a label mask's (whole numbers or "
                             "floats of one value per voxel)")
        self.dtype = np.dtype(code).newbyteorder(order)
        if self.bitpix != 8 * self.dtype.itemsize:
            raise InputError(f"{path}: NIfTI bitpix {self.bitpix} does not match its datatype {self.datatype} "
                             f"({8 * self.dtype.itemsize} bits)")
        _check_spacing(path, self.pixdim, len(self.sizes[:3]))
        self.nbytes = _voxels(path, self.sizes) * self.dtype.itemsize


def _nifti_version(path: Path, head: bytes) -> tuple[Literal["<", ">"], int]:
    """A NIfTI header's byte order and size (348: NIfTI-1, 540: NIfTI-2), from its first field; checked whole."""
    if len(head) < 4:
        raise InputError(f"{path}: not a readable medical image (a NIfTI file of {len(head)} bytes, no header)")
    order: Literal["<", ">"]
    for order in ("<", ">"):
        size = struct.unpack(order + "i", head[:4])[0]
        if size in (348, 540):
            break
    else:
        raise InputError(f"{path}: not a readable medical image (NIfTI header size field "
                         f"{struct.unpack('<i', head[:4])[0]}, expected 348 or 540)")
    if len(head) < size:
        raise InputError(f"{path}: the NIfTI header is cut short ({len(head)} of {size} bytes)")
    return order, size


def _check_spacing(path: Path, pixdim, axes: int) -> None:
    """The voxel spacing along the image's first ``axes`` axes (a 2D image stored as x, y, 1 has only two)."""
    for axis in range(1, axes + 1):
        s = float(pixdim[axis])
        if not (math.isfinite(s) and s > 0):
            raise InputError(f"{path}: voxel spacing pixdim[{axis}] = {s:g}; a spacing must be a positive "
                             "number (SimpleITK would read it as 1 mm or as negative)")


def _nifti_stream(path: Path):
    """The NIfTI file's (decompressed) bytes in chunks; a gzip stream cut short or damaged is refused."""
    with open(path, "rb") as f:
        if f.peek(2)[:2] != b"\x1f\x8b":  # not gzipped (SimpleITK reads a .nii.gz stored plain as it is)
            while chunk := f.read(_CHUNK):
                yield chunk
            return
        d = zlib.decompressobj(wbits=31)
        while True:
            raw = f.read(_CHUNK // 4)
            if not raw:
                if not d.eof:
                    raise InputError(f"{path}: the gzip stream is cut short (the file ends before its data do)")
                return
            while raw:
                try:
                    out = d.decompress(raw, _CHUNK)
                except zlib.error as exc:
                    raise InputError(f"{path}: not a readable medical image (damaged gzip data: {exc})") from None
                if out:
                    yield out
                raw = d.unconsumed_tail
                if d.eof:
                    rest = d.unused_data
                    if rest.strip(b"\0") == b"" and not f.peek(1):
                        return
                    d = zlib.decompressobj(wbits=31)  # another gzip member follows
                    raw = rest


def _nifti_head(path: Path) -> _Nifti:
    head = b""
    for chunk in _nifti_stream(path):
        head += chunk
        if len(head) >= 540:
            break
    return _Nifti(path, head)


def check_header(path: str | os.PathLike) -> None:
    """Refuse a medical image whose header points outside its folder, or announces too many voxels.

    Reads the header alone (a gzipped NIfTI's first bytes); SimpleITK has not opened the file yet.

    Parameters
    ----------
    path : str or path-like
        A regular file with a medical-image suffix (:data:`robustness.io.volumes.VOLUME_SUFFIXES`).

    Raises
    ------
    InputError
        One line naming the file; see the module notes.
    """
    path = Path(path)
    low = path.name.lower()
    if low.endswith((".nrrd", ".nhdr")):
        _nrrd(path)
    elif low.endswith((".mha", ".mhd")):
        _metaimage(path)
    elif low.endswith((".nii", ".nii.gz")):
        h = _nifti_head(path)
        with open(path, "rb") as f:
            plain = f.read(2) != b"\x1f\x8b"
        if plain:
            have = os.stat(path).st_size
            if have < h.offset + h.nbytes:
                raise InputError(f"{path}: the file ends early: {have} bytes where its header announces "
                                 f"{h.offset + h.nbytes} (voxel offset {h.offset} + {h.nbytes} bytes of voxels)")


def check_voxels(path: str | os.PathLike) -> None:
    """:func:`check_header`, and a NIfTI's voxel bytes: all there, and finite when they are floats.

    Parameters
    ----------
    path : str or path-like

    Raises
    ------
    InputError
        One line naming the file: its data end early, or it holds NaN or infinite voxels (SimpleITK reads both
        as 0).
    """
    path = Path(path)
    check_header(path)
    if not path.name.lower().endswith((".nii", ".nii.gz")):
        return
    h = _nifti_head(path)
    end = h.offset + h.nbytes
    floats = h.dtype.kind == "f"
    seen, pending, bad = 0, b"", 0
    for chunk in _nifti_stream(path):
        start = seen
        seen += len(chunk)
        if floats and seen > h.offset and start < end:
            part = pending + chunk[max(h.offset - start, 0):max(min(end - start, len(chunk)), 0)]
            whole = len(part) - len(part) % h.dtype.itemsize
            values = np.frombuffer(part[:whole], dtype=h.dtype)
            bad += int(values.size - np.count_nonzero(np.isfinite(values)))
            pending = part[whole:]
        if seen >= end:
            break
    if seen < end:
        raise InputError(f"{path}: the file ends early: {seen} bytes of data where its header announces {end} "
                         f"(voxel offset {h.offset} + {h.nbytes} bytes of voxels)")
    if bad:
        raise InputError(f"{path}: {bad} voxel(s) hold NaN or infinity; a label mask holds whole numbers "
                         "(SimpleITK would read them as 0)")
