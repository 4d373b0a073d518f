"""Decoding one mask file: TIFF or PNG, grey or equal-channel colour, to a boolean array.

Decoding rules (all reported, never silent)
-------------------------------------------
- A file is read only when it is a regular file (a FIFO or a device is
  refused unread), TIFF headers are checked first (:mod:`robustness.io.tiff`:
  what tifffile and PIL would read differently is refused), and an image of
  more than :data:`MAX_PIXELS` pixels is refused from its header, PNG or TIFF.
- A palette image (PNG or TIFF) is read by its colours, as it is displayed,
  never by its palette indices.
- RGB(A) masks whose colour channels are equal are read as grey (alpha is
  ignored, as in grey + alpha masks); unequal channels are an error.
- A mask holding only the expected background and foreground values is read
  as ``value == foreground``.
- A 0/255 mask where 0/1 is expected is an error that says so (the official
  scorer would score it as empty); ``binarize=True`` reads ``value != background``.
- ``threshold=T`` reads anti-aliased masks: foreground is ``value >= T``, or
  ``value <= T`` when the foreground value is below the background value. A
  file on the other scale (only 0 and 1 where the values are 0/255) is first
  put on the expected scale (with ``rescale``, and a note; without, refused
  when the threshold would read it otherwise): it is never read as empty.
- ``rescale=True`` (the per-rater layout, where a dataset may mix scales): a
  file holding only 0 and 1 where 0/255 is expected is read with 1 standing
  for 255, and a 0/255 file where 0/1 is expected with 255 standing for 1; a
  note says so per file.
- Other values ("stray" pixels): when they are at most ``stray_tolerance`` of
  the image, each is assigned to the nearer of foreground and background (ties
  go to background) and a :class:`~robustness.errors.MaskWarning` counts them;
  beyond that, or with ``strict=True``, the mask is rejected as not binary.

What tifffile logs and PIL warns while decoding becomes the file's note (or
part of its one-line error), never raw output. Nothing is ever written to a
mask file.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robustness import _kernels
from robustness._lazy import lazy_module
from robustness.errors import InputError, parameter
from robustness.files import open_regular
from robustness.io.tiff import read_tiff, tiff_header
from robustness.io.volumes import VOLUME_SUFFIXES, read_grid, read_volume, volume_suffix

if TYPE_CHECKING:
    import tifffile
    from PIL import Image
else:
    tifffile = lazy_module("tifffile")
    Image = lazy_module("PIL.Image")

__all__ = ["MaskFormat", "read_mask", "read_grey", "read_shape", "mask_suffix", "MASK_SUFFIXES", "MAX_PIXELS"]

#: Every file name read as a mask: 2D images, and medical images (2D or 3D, :mod:`robustness.io.volumes`).
MASK_SUFFIXES = (".tif", ".tiff", ".png") + VOLUME_SUFFIXES
_TIFF = (".tif", ".tiff")


def mask_suffix(name: str | os.PathLike) -> str | None:
    """The mask suffix of a file name (``.nii.gz`` counts as one), lower-case, or None for another file.

    Parameters
    ----------
    name : str or path-like

    Returns
    -------
    str or None

    Examples
    --------
    >>> mask_suffix("ISIC_01.PNG"), mask_suffix("case1.nii.gz"), mask_suffix("notes.txt")
    ('.png', '.nii.gz', None)
    """
    return volume_suffix(name) or (Path(name).suffix.lower() if Path(name).suffix.lower() in MASK_SUFFIXES else None)


@dataclass(frozen=True)
class MaskFormat:
    """How the pixel values of a mask file map to foreground.

    Parameters
    ----------
    foreground, background : int
        The two expected pixel values.
    binarize : bool
        Read every value other than ``background`` as foreground.
    strict : bool
        Reject any value other than the two expected ones.
    stray_tolerance : float
        Largest fraction of an image's pixels that may hold other values
        before the mask is rejected as not binary (see module notes).
    threshold : int, optional
        Foreground is ``value >= threshold`` (``<=`` when ``foreground < background``).
    rescale : bool
        Read a file on the other scale (0/1 vs 0/255) on its own scale, with a note.
    given : bool
        The user named the values (False: detected from the files or the defaults). A foreground that covers
        most of every mask is then refused, not only warned about (:func:`robustness.overlap.checks.input_checks`).
        Not part of the format's identity (``repr`` and equality leave it out).
    """

    foreground: int = 1
    background: int = 0
    binarize: bool = False
    strict: bool = False
    stray_tolerance: float = 0.0
    threshold: int | None = None
    rescale: bool = False
    given: bool = field(default=True, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the values: integers in 0..255, foreground and background different, a tolerance in [0, 1).

        Raises
        ------
        ValueError
            A value out of range, equal foreground and background, or both ``binarize`` and ``threshold``.
        """
        for name in ("foreground", "background"):
            v = getattr(self, name)
            if not (isinstance(v, (int, np.integer)) and 0 <= v <= 255):
                raise ValueError(f"{name} must be an integer in 0..255, got {v!r}")
        if self.foreground == self.background:
            raise ValueError("foreground and background must differ")
        if not 0.0 <= self.stray_tolerance < 1.0:
            raise ValueError(f"stray_tolerance must be in [0, 1), got {self.stray_tolerance}")
        if self.threshold is not None:
            if not (isinstance(self.threshold, (int, np.integer)) and 0 <= self.threshold <= 255):
                raise ValueError(f"threshold must be an integer in 0..255, got {self.threshold!r}")
            if self.binarize:
                raise ValueError("give binarize or threshold, not both")


# -- single files -----------------------------------------------------------

#: Largest image (rows x columns) read: PIL's own refusal limit (``2 * PIL.Image.MAX_IMAGE_PIXELS``, 179 MP), for
#: TIFF as for PNG, checked from the header before any pixel memory is allocated (a 12 MP mask uses 12 MB a copy).
MAX_PIXELS = 178_956_970


@contextlib.contextmanager
def _decoder_messages(notes: list):
    """What tifffile logs and PIL warns while decoding, collected as notes instead of printed raw."""
    logger = logging.getLogger("tifffile")

    class Collect(logging.Handler):
        def emit(self, record):
            notes.append(f"tifffile: {record.getMessage()}")

    handler, propagate = Collect(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate

    for w in caught:
        if not issubclass(w.category, Image.DecompressionBombWarning):  # MAX_PIXELS decides
            source = "PIL" if f"{os.sep}PIL{os.sep}" in w.filename else "tifffile" if "tifffile" in w.filename \
                else w.category.__name__
            notes.append(f"{source}: {w.message}")


def _failed(path, exc, said) -> InputError:
    """The one line for a decoder's error, with what the decoder logged before it."""
    first = str(exc).splitlines()[0] if str(exc) else ""
    extra = f"; {'; '.join(said)}" if said else ""
    return InputError(f"{path}: cannot read the file ({type(exc).__name__}: {first}{extra})")


def _png_limit(path, size) -> None:
    w, h = size
    if w * h > MAX_PIXELS:
        raise InputError(f"{path}: image of {h} x {w} pixels ({w * h}) is larger than the limit of {MAX_PIXELS} pixels")
    if w == 0 or h == 0:
        raise InputError(f"{path}: empty image ({h} rows x {w} columns)")


def read_shape(path: str | os.PathLike, notes: list | None = None) -> tuple[int, int]:
    """(rows, columns) of an image file, from its header only.

    TIFF headers are checked (:mod:`robustness.io.tiff`): what tifffile and PIL would read differently, and
    images of more than :data:`MAX_PIXELS` pixels, are refused before any pixel is read.

    Parameters
    ----------
    path : str or os.PathLike
        A TIFF (``.tif``, ``.tiff``), another image PIL reads (PNG), or a medical image (``.nii``, ``.nii.gz``,
        ``.nrrd``, ``.mha``, ``.mhd``: :mod:`robustness.io.volumes`), told apart by the suffix.
    notes : list of str, optional
        Collects what the decoders said (one line each, naming the file).

    Returns
    -------
    (rows, columns) or (planes, rows, columns) : int
        A medical image's shape in array order (a 3D volume's first axis is its planes).

    Raises
    ------
    InputError
        One line naming the file: not a regular file, unreadable, a header that fails a check, an empty image or
        one of more than :data:`MAX_PIXELS` pixels.
    """
    path = Path(path)
    if volume_suffix(path):
        return read_grid(path, notes=notes).shape
    said: list[str] = []
    try:
        with open_regular(path) as f, _decoder_messages(said):
            if path.suffix.lower() in _TIFF:
                header = tiff_header(f, path, max_pixels=MAX_PIXELS)
                return header.rows, header.columns
            with Image.open(f) as im:
                _png_limit(path, im.size)
                w, h = im.size
                return int(h), int(w)
    except InputError:
        raise
    except Exception as exc:  # any decoder error means the same thing to the user
        raise _failed(path, exc, said) from None
    finally:
        if notes is not None:
            notes.extend(f"{path}: {n}" for n in said)


def _grey(path: Path, out=None, notes: list | None = None) -> np.ndarray:
    """The mask's values as uint8: a 2D image's grey levels, or a medical image's labels (at most 255)."""
    if not volume_suffix(path):
        return _to_grey_u8(_read_pixels(path, out, notes), path)
    labels = read_volume(path, notes=notes)[0]
    if labels.size and labels.max() > 255:
        raise InputError(f"{path}: labels up to {labels.max()}; a mask's values must lie in 0..255 (select a label "
                         f"with {parameter('load_raters', 'labels')})")
    return np.ascontiguousarray(labels, dtype=np.uint8)


def read_grey(path: str | os.PathLike) -> np.ndarray:
    """A mask file's values as uint8, before any foreground is chosen (a 2D image's grey levels, a volume's labels).

    Parameters
    ----------
    path : path
        A mask file (PNG, TIFF or a medical image).

    Returns
    -------
    numpy.ndarray
        Its values, as decoded.

    Raises
    ------
    InputError
        The file cannot be read, or holds labels above 255.
    """
    return _grey(Path(path))


def _read_pixels(path: Path, out=None, notes: list | None = None) -> np.ndarray:
    """The decoded pixels as (rows, columns) or (rows, columns, samples); palettes applied (displayed values)."""
    said: list[str] = []
    try:
        with open_regular(path) as f, _decoder_messages(said):
            if path.suffix.lower() in _TIFF:
                buf = f.read()
                header = tiff_header(buf, path, max_pixels=MAX_PIXELS)
                fast = read_tiff(path, out, buffer=buf, header=header)
                if fast is not None:
                    return fast
                return _tifffile_pixels(buf, header, path)
            with Image.open(f) as im:
                _png_limit(path, im.size)
                if im.mode in ("P", "PA"):  # the palette's colours, as the mask is displayed; never the indices
                    return np.asarray(im.convert("RGBA"))
                if im.mode not in ("1", "L", "LA", "RGB", "RGBA", "I", "I;16", "I;16B", "F"):
                    raise InputError(f"{path}: image mode {im.mode}: expected a grey, palette or RGB(A) mask")
                return np.asarray(im)
    except InputError:
        raise
    except Exception as exc:
        raise _failed(path, exc, said) from None
    finally:
        if notes is not None:
            notes.extend(said)


def _tifffile_pixels(buf: bytes, header, path: Path) -> np.ndarray:


    with tifffile.TiffFile(io.BytesIO(buf)) as tif:
        page = tif.pages[0]
        arr = page.asarray()
        axes = page.axes
        if header.one(262) == 3:  # palette: the colours PIL shows (16-bit colour map >> 8)
            cmap = np.asarray(getattr(page, "colormap", None))  # a TiffPage has it (the first page is one)
            if cmap is None or cmap.ndim != 2 or cmap.shape[0] != 3 or arr.max(initial=0) >= cmap.shape[1]:
                raise InputError(f"{path}: palette TIFF whose colour map does not cover its values")
            arr = (cmap[:, arr] >> 8).astype(np.uint8)
            axes = "S" + axes
    if axes.startswith("S"):
        arr = np.moveaxis(arr, 0, -1)
    if arr.ndim not in (2, 3) or arr.shape[:2] != (header.rows, header.columns):
        raise InputError(f"{path}: tifffile decodes an array of shape {arr.shape} ({axes}) where the header says "
                         f"{header.rows} x {header.columns}")
    return arr


def _to_grey_u8(arr: np.ndarray, path: Path) -> np.ndarray:
    if arr.ndim == 3 and arr.shape[-1] in (1, 2):  # grey, grey + alpha (alpha is ignored)
        arr = arr[..., 0]
    if arr.ndim == 3 and arr.shape[-1] in (3, 4):
        r, g, b = arr[..., 0], arr[..., 1], arr[..., 2]
        differ = np.count_nonzero((r != g) | (r != b))
        if differ:
            raise InputError(
                f"{path}: colour mask with unequal channels in {differ} pixels; "
                "expected a grey or binary mask"
            )
        arr = r
    if arr.ndim != 2:
        raise InputError(f"{path}: expected a 2-D mask, got an array of shape {arr.shape}")
    if arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    if arr.dtype == bool:
        return np.ascontiguousarray(arr).view(np.uint8)
    if np.issubdtype(arr.dtype, np.floating) and not np.isfinite(arr).all():
        raise InputError(f"{path}: not a binary mask: {np.count_nonzero(~np.isfinite(arr))} pixel(s) are inf or nan")
    lo, hi = arr.min(), arr.max()
    if np.issubdtype(arr.dtype, np.floating) and not np.array_equal(arr, np.round(arr)):
        raise InputError(f"{path}: not a binary mask: non-integer values between {lo:g} and {hi:g}")
    if lo < 0 or hi > 255:
        values = np.unique(arr)
        raise InputError(
            f"{path}: not a binary mask: values {_show(values)} outside 0..255"
        )
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _show(values, limit=6) -> str:
    values = [int(v) for v in values]
    text = ", ".join(map(str, values[:limit]))
    return "{" + text + (", ..." if len(values) > limit else "") + "}"


def read_mask(path: str | os.PathLike, fmt: MaskFormat = MaskFormat(), *,
              out: np.ndarray | None = None) -> tuple[np.ndarray, str | None]:
    """Decode one mask file to a boolean array, following ``fmt``.

    With ``out`` (a contiguous uint8 buffer of at least the image's size) the common TIFFs are decoded into it
    and the mask is a view of it, valid until the buffer is reused; other files give a new array.

    Parameters
    ----------
    path : str or os.PathLike
        A TIFF (``.tif``, ``.tiff``), another image PIL reads (PNG), or a medical image (``.nii``, ``.nii.gz``,
        ``.nrrd``, ``.mha``, ``.mhd``: :mod:`robustness.io.volumes`), told apart by the suffix.
    fmt : MaskFormat
        How pixel values map to foreground (default: foreground 1 on background 0, stray values refused).
    out : ndarray of uint8, optional
        A buffer to decode into (see above); None: a new array.

    Returns
    -------
    mask : ndarray of bool, 2-D (3-D for a volume)
    note : str or None
        One line describing a repair (stray values), else None.

    Raises
    ------
    InputError
        Unreadable or corrupt file, unequal colour channels, 0/255 where 0/1 is
        expected, or a mask that is not binary. The message names the file.

    Examples
    --------
    >>> import numpy as np, tifffile, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m.tiff")
    >>> tifffile.imwrite(path, np.array([[0, 1], [1, 1]], dtype=np.uint8))
    >>> mask, note = read_mask(path)
    >>> mask.sum(), note
    (np.int64(3), None)
    """
    path = Path(path)
    said: list[str] = []
    grey = _grey(path, out, said)
    if not grey.flags.writeable or grey.base is not None and not grey.base.flags.writeable:
        grey = grey.copy()
    shape = grey.shape

    def done(mask, note=None):
        parts = said + ([note] if note else [])
        return mask, (f"{path}: " + "; ".join(parts) if parts else None)

    if fmt.threshold is not None:
        grey, note = _own_scale(grey, fmt, path)
        return done(grey >= fmt.threshold if fmt.foreground > fmt.background else grey <= fmt.threshold, note)
    flat = grey.reshape(-1)
    if (fmt.foreground, fmt.background) == (1, 0) and not fmt.binarize and flat.size and flat.max() <= 1:
        return done(flat.view(bool).reshape(shape))  # already 0/1 (the official format): nothing to do
    # one pass, in place (the decoded array is ours): 0/1 mask + value census
    n_fg, n_bg = _kernels.binarize(flat, np.uint8(fmt.foreground), np.uint8(fmt.background), fmt.binarize)
    n_stray = flat.size - n_fg - n_bg
    mask = flat.view(bool).reshape(shape)
    if n_stray == 0 or fmt.binarize:
        return done(mask)
    return done(*_with_strays(path, fmt, mask, n_stray))


def _with_strays(path: Path, fmt: MaskFormat, mask: np.ndarray, n_stray: int) -> tuple[np.ndarray, str | None]:
    """A mask whose file holds values besides the two expected (rare), and what is said of it.

    The file is decoded again to see the values; it is then read on the other scale (0/1 for 0/255 or back),
    refused, or each stray value assigned to the nearer of foreground and background.
    """
    grey = _grey(path)
    shape = mask.shape
    if grey.shape != shape:
        raise InputError(f"{path}: the file changed while it was read (decoded as {' x '.join(map(str, shape))} "
                         f"pixels, then as {' x '.join(map(str, grey.shape))})")
    flat = grey.reshape(-1)
    counts = np.bincount(flat, minlength=256)
    present = np.flatnonzero(counts)
    stray = [v for v in present if v not in (fmt.foreground, fmt.background)]
    expected = {fmt.foreground, fmt.background}
    for scale, other, high in (({0, 255}, {0, 1}, 1), ({0, 1}, {0, 255}, 255)):
        if fmt.rescale and expected == scale and set(present) <= other:  # the file uses the other scale
            value = fmt.foreground if fmt.foreground == 0 else high
            return grey == value, _scale_note(other, scale, high,
                                              "foreground" if max(scale) == fmt.foreground else "background")
    if (fmt.foreground, fmt.background) == (1, 0) and set(present) <= {0, 255}:
        raise InputError(
            f"{path}: mask stored as 0/255 where foreground is 1 (the official scorer "
            f"would score it as empty); {parameter('MaskFormat', 'binarize')}=True reads values > 0 as foreground"
        )
    fraction = n_stray / flat.size
    if fmt.strict or fraction > fmt.stray_tolerance:
        raise InputError(
            f"{path}: not a binary mask: values {_show(present)} "
            f"({n_stray} pixels besides foreground {fmt.foreground} and background {fmt.background})"
        )
    to_fg = [v for v in stray if abs(int(v) - fmt.foreground) < abs(int(v) - fmt.background)]
    if to_fg:
        mask = mask | np.isin(grey, to_fg)  # mask holds value == foreground already
    return mask, (
        f"{n_stray} pixel(s) with value(s) {_show(stray)} besides foreground "
        f"{fmt.foreground} and background {fmt.background}: each assigned to the nearer of foreground "
        f"{fmt.foreground} and background {fmt.background} (strict refuses such masks)"
    )


def _scale_note(other, scale, high, reads: str) -> str:
    return (f"stored as {'/'.join(map(str, sorted(other)))} where the others are {'/'.join(map(str, sorted(scale)))}: "
            f"read {high} as {max(scale)} ({reads})")


def _own_scale(grey: np.ndarray, fmt: MaskFormat, path: Path) -> tuple[np.ndarray, str | None]:
    """A thresholded mask's values on the scale the format expects (0/1 or 0/255), before the threshold.

    A file holding only 0 and 1 where the values are 0/255 (or only 0 and 255 where they are 0/1) is on the
    other scale: with ``rescale`` it is read on its own scale (1 stands for 255, or 255 for 1) and a note says
    so; without, it is refused when the threshold would read it otherwise than its own scale.
    """
    top = int(grey.max(initial=0))
    expected = max(fmt.foreground, fmt.background)
    if top == 0 or top == expected or {expected, top} != {1, 255}:
        return grey, None
    if top == 1 and np.count_nonzero(grey > 1) or top == 255 and np.count_nonzero((grey != 0) & (grey != 255)):
        return grey, None  # grey levels of its own: no other scale to speak of
    scaled = grey * np.uint8(255) if top == 1 else (grey == 255).view(np.uint8)
    t = fmt.threshold

    def side(v):
        return "foreground" if (v >= t if fmt.foreground > fmt.background else v <= t) else "background"

    if not fmt.rescale:
        if side(top) == side(expected):
            return grey, None
        raise InputError(f"{path}: mask stored as 0/{top} where {parameter('MaskFormat', 'threshold')} {t} reads "
                         f"values on 0/{expected}: its "
                         f"{top}s would be read as {side(top)}")
    return scaled, _scale_note({0, top}, {0, expected}, top, side(expected))
