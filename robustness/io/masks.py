"""Decoding one mask file: TIFF or PNG, grey or equal-channel colour, to a boolean array.

Decoding rules (all reported, never silent)
-------------------------------------------
- RGB(A) masks whose colour channels are equal are read as grey (alpha is
  ignored); unequal channels are an error.
- A mask holding only the expected background and foreground values is read
  as ``value == foreground``.
- A 0/255 mask where 0/1 is expected is an error that says so (the official
  scorer would score it as empty); ``binarize=True`` reads ``value != background``.
- ``threshold=T`` reads anti-aliased masks: foreground is ``value >= T``, or
  ``value <= T`` when the foreground value is below the background value.
- ``rescale=True`` (the per-rater layout, where a dataset may mix scales): a
  file holding only 0 and 1 where 0/255 is expected is read with 1 standing
  for 255, and a 0/255 file where 0/1 is expected with 255 standing for 1; a
  note says so per file.
- Other values ("stray" pixels): when they are at most ``stray_tolerance`` of
  the image, each is assigned to the nearer of foreground and background (ties
  go to background) and a :class:`~robustness.errors.MaskWarning` counts them;
  beyond that, or with ``strict=True``, the mask is rejected as not binary.

Nothing is ever written to a mask file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness import _kernels
from robustness.errors import InputError
from robustness.io.tiff import read_tiff, tiff_shape

__all__ = ["MaskFormat", "read_mask", "read_shape", "MASK_SUFFIXES"]

MASK_SUFFIXES = (".tif", ".tiff", ".png")
_TIFF = (".tif", ".tiff")


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
    """

    foreground: int = 1
    background: int = 0
    binarize: bool = False
    strict: bool = False
    stray_tolerance: float = 0.0
    threshold: int | None = None
    rescale: bool = False

    def __post_init__(self):
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

def read_shape(path: str | os.PathLike) -> tuple[int, int]:
    """(rows, columns) of an image file, from its header only."""
    path = Path(path)
    try:
        if path.suffix.lower() in _TIFF:
            shape = tiff_shape(path)
            if shape is not None:
                return shape
            import tifffile

            with tifffile.TiffFile(path) as tif:
                shape = tif.pages[0].shape
                if len(shape) == 3 and shape[0] in (3, 4) and shape[-1] not in (3, 4):
                    shape = shape[1:]  # planar RGB(A)
                return int(shape[0]), int(shape[1])
        from PIL import Image

        with Image.open(path) as im:
            w, h = im.size
            return int(h), int(w)
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except Exception as exc:  # any decoder error means the same thing to the user
        raise InputError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None


def _read_pixels(path: Path, out=None) -> np.ndarray:
    try:
        if path.suffix.lower() in _TIFF:
            fast = read_tiff(path, out)
            if fast is not None:
                return fast
            import tifffile

            return tifffile.imread(path)
        from PIL import Image

        with Image.open(path) as im:
            return np.asarray(im)
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except Exception as exc:
        raise InputError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None


def _to_grey_u8(arr: np.ndarray, path: Path) -> np.ndarray:
    if arr.ndim == 3 and arr.shape[0] in (3, 4) and arr.shape[-1] not in (1, 3, 4):
        arr = np.moveaxis(arr, 0, -1)  # planar TIFF
    if arr.ndim == 3 and arr.shape[-1] == 1:
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

    Returns
    -------
    mask : ndarray of bool, 2-D
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
    grey = _to_grey_u8(_read_pixels(path, out), path)
    if not grey.flags.writeable or grey.base is not None and not grey.base.flags.writeable:
        grey = grey.copy()
    shape = grey.shape
    if fmt.threshold is not None:
        return (grey >= fmt.threshold if fmt.foreground > fmt.background else grey <= fmt.threshold), None
    flat = grey.reshape(-1)
    if (fmt.foreground, fmt.background) == (1, 0) and not fmt.binarize and flat.size and flat.max() <= 1:
        return flat.view(bool).reshape(shape), None  # already 0/1 (the official format): nothing to do
    # one pass, in place (the decoded array is ours): 0/1 mask + value census
    n_fg, n_bg = _kernels.binarize(flat, np.uint8(fmt.foreground), np.uint8(fmt.background), fmt.binarize)
    n_stray = flat.size - n_fg - n_bg
    mask = flat.view(bool).reshape(shape)
    if n_stray == 0 or fmt.binarize:
        return mask, None
    # rare: values besides the two expected ones. Decode again to see them.
    grey = _to_grey_u8(_read_pixels(path), path)
    flat = grey.reshape(-1)
    counts = np.bincount(flat, minlength=256)
    present = np.flatnonzero(counts)
    stray = [v for v in present if v not in (fmt.foreground, fmt.background)]
    expected = {fmt.foreground, fmt.background}
    for scale, other, high in (({0, 255}, {0, 1}, 1), ({0, 1}, {0, 255}, 255)):
        if fmt.rescale and expected == scale and set(present) <= other:  # the file uses the other scale
            value = fmt.foreground if fmt.foreground == 0 else high
            return grey == value, (f"{path}: stored as {'/'.join(map(str, sorted(other)))} where the others are "
                                   f"{'/'.join(map(str, sorted(scale)))}: read {high} as {max(scale)} "
                                   f"({'foreground' if max(scale) == fmt.foreground else 'background'})")
    if (fmt.foreground, fmt.background) == (1, 0) and set(present) <= {0, 255}:
        raise InputError(
            f"{path}: mask stored as 0/255 where foreground is 1 (the official scorer "
            "would score it as empty); --binarize reads values > 0 as foreground"
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
    note = (
        f"{path}: {n_stray} pixel(s) with value(s) {_show(stray)} besides foreground "
        f"{fmt.foreground} and background {fmt.background}: each assigned to the nearer of foreground "
        f"{fmt.foreground} and background {fmt.background} (strict refuses such masks)"
    )
    return mask, note
