"""The twin's library of real images: their bands, their units, saved once and loaded by every worker.

:class:`ImageLibrary` holds every real image's :class:`~robustness.synthetic.twin_images.TwinImage` and the units
(encounters) they group into. Saved to a file (numpy's npz), it pickles by reference, so worker processes load it
once instead of receiving it with every batch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from robustness.files import atomic_write
from robustness.synthetic.twin_images import TwinImage, volume_tuple

__all__ = ["ImageLibrary", "library_digest"]

@dataclass(frozen=True, eq=False)
class ImageLibrary:
    """The real images' truths as the twin keeps them, and how they group into units.

    Attributes
    ----------
    images : tuple of TwinImage
    image_ids : tuple of str
        The real images' ids.
    unit_of : int64 (N,)
        The unit (encounter) of every image, 0..U-1.
    ball_sizes : int64 (S,)
        The real false objects' sizes in voxels (what the twin's false objects are drawn from; empty: none seen).
    digest : str
        The identity of the truths (and the band).
    """

    images: tuple
    image_ids: tuple
    unit_of: np.ndarray
    ball_sizes: np.ndarray
    digest: str
    path: str | None = None

    @property
    def n_units(self) -> int:
        """The real units."""
        return int(self.unit_of.max()) + 1 if self.unit_of.size else 0

    def images_of(self, unit: int) -> np.ndarray:
        """The real images of one unit.

        Parameters
        ----------
        unit : int

        Returns
        -------
        ndarray of int
        """
        return np.flatnonzero(self.unit_of == unit)

    def save(self, path: Path | str) -> ImageLibrary:
        """Write the library to ``path`` (numpy's npz) and return it bound to the file (pickled by reference).

        Parameters
        ----------
        path : path

        Returns
        -------
        ImageLibrary
        """
        path = Path(path).resolve()  # workers may run in another folder
        arrays: dict[str, Any] = {"image_ids": np.array(self.image_ids), "unit_of": self.unit_of,
                                  "ball_sizes": self.ball_sizes, "digest": np.array(self.digest)}
        for i, im in enumerate(self.images):
            for name in ("band", "full", "dist", "obj", "interior", "interior_start", "object_sizes", "band_inside"):
                arrays[f"{i}/{name}"] = getattr(im, name)
            arrays[f"{i}/meta"] = np.array([*volume_tuple(im.shape, 1), *im.spacing, *im.origin, *im.crop, im.bound,
                                            len(im.shape)], dtype=np.float64)

        def write(f):
            np.savez(f, **arrays)

        atomic_write(path, write)
        bound = replace(self, path=str(path))
        _LIBRARIES[self.digest] = bound
        return bound

    @classmethod
    def load(cls, path: Path | str) -> ImageLibrary:
        """A library written by :meth:`save`.

        Parameters
        ----------
        path : path

        Returns
        -------
        ImageLibrary
        """
        with np.load(path, allow_pickle=False) as z:
            ids = tuple(str(s) for s in z["image_ids"])
            images = []
            for i in range(len(ids)):
                m = z[f"{i}/meta"]
                ndim = int(m[-1])
                shape3 = tuple(int(v) for v in m[0:3])
                images.append(TwinImage(shape3[3 - ndim:], tuple(float(v) for v in m[3:6]),
                                        tuple(int(v) for v in m[6:9]), tuple(int(v) for v in m[9:12]),
                                        z[f"{i}/band"], z[f"{i}/full"], z[f"{i}/dist"], z[f"{i}/obj"],
                                        z[f"{i}/interior"], z[f"{i}/interior_start"], z[f"{i}/object_sizes"],
                                        float(m[12]), z[f"{i}/band_inside"]))
            lib = cls(tuple(images), ids, z["unit_of"], z["ball_sizes"], str(z["digest"]), str(path))
        _LIBRARIES[lib.digest] = lib
        return lib

    def __getstate__(self) -> dict:
        """Pickled by reference to its file where it has one (workers load it once)."""
        if self.path is not None:
            return {"path": self.path, "digest": self.digest}
        return dict(self.__dict__)

    def __setstate__(self, state: dict) -> None:
        """Restore: from this process's libraries, or the file."""
        if set(state) == {"path", "digest"}:
            found = _LIBRARIES.get(state["digest"]) or ImageLibrary.load(state["path"])
            state = dict(found.__dict__)
        self.__dict__.update(state)


#: The libraries this process holds, by digest (a worker loads each once).
_LIBRARIES: dict[str, ImageLibrary] = {}


def library_digest(images: list[TwinImage], ids: tuple, unit_of: np.ndarray, ball_sizes: np.ndarray) -> str:
    """The identity of a library's truths, bands and units.

    Parameters
    ----------
    images : list of TwinImage
    ids : tuple of str
    unit_of, ball_sizes : ndarray

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    h.update(repr((ids, unit_of.tolist(), ball_sizes.tolist())).encode())
    for im in images:
        h.update(repr((im.shape, im.spacing, im.origin, im.crop, im.bound)).encode())
        for a in (im.band, im.dist, im.obj, im.interior, im.object_sizes):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:20]
