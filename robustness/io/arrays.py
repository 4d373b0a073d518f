"""Challenges from masks held in memory: :func:`from_arrays` and its :class:`ArraySource`."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robustness.errors import InputError
from robustness.io.challenge import Challenge

__all__ = ["ArraySource", "from_arrays"]


@dataclass(frozen=True, eq=False)
class ArraySource:
    """Masks held in memory: ``masks[(kind, name)][image] -> array`` (small challenges, tests, notebooks).

    A ``("truth", "truth")`` entry is the latent true lesion of every image (``has_truth``).
    """

    masks: dict

    @property
    def has_truth(self) -> bool:
        """Whether the source holds the latent true masks (a ``("truth", "truth")`` entry)."""
        return ("truth", "truth") in self.masks

    def read(self, image: int, kind: str, name: str) -> tuple[np.ndarray, None]:
        """One mask as a boolean array (see :meth:`MaskSource.read`); nothing is ever repaired.

        Parameters
        ----------
        image : int
            Position of the image (0-based).
        kind : str
            ``"annotator"``, ``"run"`` or ``"truth"``.
        name : str
            The annotator or run (``"truth"`` for the latent truth).

        Returns
        -------
        mask : ndarray of bool
            The stored array, non-zero values as True.
        note : None
            Always None.
        """
        return np.asarray(self.masks[(kind, name)][image]).astype(bool), None

    def subset(self, images: Sequence[int]) -> ArraySource:
        """The same source restricted to ``images`` (positions), renumbered 0..

        Parameters
        ----------
        images : sequence of int
            Positions (0-based), in the order the subset keeps.

        Returns
        -------
        ArraySource
            Holding only those images' masks (the arrays are shared, not copied).
        """
        return ArraySource({key: [v[i] for i in images] for key, v in self.masks.items()})

    def fingerprint(self) -> dict:
        """Identity of the masks: a hash of every array's shape and pixels (see :meth:`MaskSource.fingerprint`).

        Returns
        -------
        dict
            ``{"arrays": SHA-256 hex digest}``.
        """
        h = hashlib.sha256()
        for key in sorted(self.masks):
            for m in self.masks[key]:
                h.update(repr(key).encode())
                if m is not None:
                    a = np.ascontiguousarray(m, dtype=bool)
                    h.update(repr(a.shape).encode())
                    h.update(a.tobytes())
        return {"arrays": h.hexdigest()}


def _annotated_shape(image, masks: dict, names: tuple) -> tuple[int, ...]:
    """The shape of an image's annotator masks (``masks``: annotator -> mask), which must all have it."""
    shape: tuple[int, ...] | None = None
    for a in names:
        m = masks.get(a)
        if m is not None:
            if shape is not None and np.shape(m) != shape:
                raise InputError(f"image {image}: annotator {a} mask has shape {np.shape(m)}, others {shape}")
            shape = np.shape(m)
    if shape is None:
        raise InputError(f"image {image}: no annotator mask")
    return tuple(int(x) for x in shape)


def from_arrays(annotators: dict, runs: dict, *, encounters: dict | None = None,
                truth: dict | None = None) -> Challenge:
    """A challenge from in-memory masks.

    Parameters
    ----------
    annotators : dict
        ``{image_id: {annotator: 2-D array}}``; an annotator absent from an
        image's dict did not annotate it.
    runs : dict
        ``{run: {image_id: 2-D array}}``, every run covering every image.
    encounters : dict, optional
        ``{image_id: encounter}`` (default: each image its own encounter).
    truth : dict, optional
        ``{image_id: 2-D array}``: the latent true lesion of every image (as a
        synthetic challenge knows it), for studies of which gold recovers it.

    Returns
    -------
    Challenge
        Images in the order of ``annotators``, annotators sorted by name, runs in the order of ``runs``; masks
        are held in memory (:class:`ArraySource`).

    Raises
    ------
    InputError
        Annotator masks of one image with different shapes, a run or the truth without a mask for some image.

    Examples
    --------
    >>> import numpy as np
    >>> ch = from_arrays({"a": {"ann0": np.eye(2), "ann1": np.ones((2, 2))}},
    ...                  {"run": {"a": np.eye(2)}})
    >>> ch.annotators_of("a"), ch.shapes
    (('ann0', 'ann1'), ((2, 2),))
    """
    images = tuple(annotators)
    names = tuple(sorted({a for v in annotators.values() for a in v}))
    masks: dict = {}
    shapes = [_annotated_shape(im, annotators[im], names) for im in images]
    for a in names:
        masks[("annotator", a)] = [annotators[im].get(a) for im in images]
    for run, per_image in runs.items():
        missing = [im for im in images if im not in per_image]
        if missing:
            raise InputError(f"run {run!r} has no mask for image {missing[0]}")
        masks[("run", run)] = [per_image[im] for im in images]
    if truth is not None:
        missing = [im for im in images if im not in truth]
        if missing:
            raise InputError(f"no true mask for image {missing[0]}")
        masks[("truth", "truth")] = [truth[im] for im in images]
    annotated = np.array([[annotators[im].get(a) is not None for a in names] for im in images])
    enc = tuple((encounters or {}).get(im, im) for im in images)
    return Challenge(images, enc, tuple(shapes), names, annotated, tuple(runs), ArraySource(masks))
