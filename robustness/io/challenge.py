"""The challenge data model: who annotated which image, which runs exist, lazy mask access.

A :class:`Challenge` is the one object every study starts from, whether it was
read from disk (:mod:`robustness.io`) or generated (:mod:`robustness.synthetic.challenge`).
It holds only metadata; masks are produced one image at a time by its
``source`` so that no study ever holds all masks in memory.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from robustness.errors import InputError, MaskWarning

__all__ = ["Challenge", "MaskSource"]


class MaskSource(Protocol):
    """Where a challenge's masks come from (files on disk, a generator...).

    ``read(image, kind, name)`` returns ``(mask, note)``: a boolean array of the
    image's shape and either ``None`` or a one-line note describing a repair
    that was applied while decoding (e.g. stray pixel values). ``kind`` is
    ``"annotator"`` or ``"run"`` (or ``"truth"``, name ``"truth"``, for a source
    with ``has_truth = True``: the latent true lesion of a synthetic challenge).
    Sources must be picklable so that the pixel pass can run in worker processes.
    """

    def read(self, image: int, kind: str, name: str) -> tuple[np.ndarray, str | None]:
        """One mask of one image, and the note of any repair applied while decoding it.

        Parameters
        ----------
        image : int
            Position of the image in the challenge (0-based).
        kind : str
            ``"annotator"``, ``"run"`` or (with ``has_truth``) ``"truth"``.
        name : str
            The annotator or run (``"truth"`` for the latent truth).

        Returns
        -------
        mask : ndarray of bool, 2-D
            The image's shape.
        note : str or None
            One line describing a repair, else None.
        """

    def fingerprint(self) -> dict:
        """Identity of the masks, as JSON-serialisable values (part of :meth:`Challenge.fingerprint`).

        Returns
        -------
        dict
            Equal for two sources exactly when their masks (or the files they are read from) are the same.
        """


@dataclass(frozen=True, eq=False)
class Challenge:
    """A segmentation challenge: test images, annotators' gold masks and submitted runs.

    Parameters
    ----------
    images : tuple of str
        Image ids in a stable order (the order used by every result array).
    encounters : tuple of str
        The encounter (patient case) each image belongs to; images of one
        encounter are not independent and can be resampled together.
    shapes : tuple of (int, int)
        Each image's shape (rows, columns).
    annotators : tuple of str
        Every annotator that annotated at least one image.
    annotated : ndarray of bool, shape (n_images, n_annotators)
        ``annotated[i, j]`` is True when annotator ``j`` drew a mask for image ``i``.
    runs : tuple of str
        The submitted runs.
    source : MaskSource
        Lazy access to the masks.
    notes : tuple of str
        What the loader did with imperfect input (one line each).
    spacings : tuple of tuple of float, optional
        Each image's voxel size along its array axes (medical images: from the headers); None: 1 per axis.

    Examples
    --------
    >>> from robustness.synthetic.challenge import make_challenge
    >>> ch = make_challenge(n_encounters=3, n_images=5, n_runs=4, n_teams=2, rng=0)
    >>> ch.n_images, len(ch.runs)
    (5, 4)
    >>> masks = ch.annotator_masks(0)
    >>> sorted(masks) == list(ch.annotators_of(0))
    True
    """

    images: tuple[str, ...]
    encounters: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    annotators: tuple[str, ...]
    annotated: np.ndarray
    runs: tuple[str, ...]
    source: MaskSource
    notes: tuple[str, ...] = field(default=())
    spacings: tuple | None = None

    def __post_init__(self) -> None:
        """Check that the fields agree (lengths, unique ids, every image annotated) and freeze ``annotated``.

        Raises
        ------
        InputError
            Duplicate image ids or run names, or an image without an annotator mask.
        ValueError
            Fields of different lengths, or ``annotated`` of another shape than (n_images, n_annotators).
        """
        n = len(self.images)
        if len(set(self.images)) != n:
            dup = sorted({i for i in self.images if self.images.count(i) > 1})
            raise InputError(f"duplicate image ids: {', '.join(dup[:5])}")
        if len(set(self.runs)) != len(self.runs):
            raise InputError(f"duplicate run names in {self.runs}")
        if len(self.encounters) != n or len(self.shapes) != n:
            raise ValueError("images, encounters and shapes must have the same length")
        if self.spacings is not None and [len(s) for s in self.spacings] != [len(s) for s in self.shapes]:
            raise ValueError("spacings must hold one voxel size per axis of every image")
        annotated = np.asarray(self.annotated, dtype=bool)
        if annotated.shape != (n, len(self.annotators)):
            raise ValueError(
                f"annotated has shape {annotated.shape}, expected {(n, len(self.annotators))}"
            )
        empty = np.flatnonzero(~annotated.any(axis=1))
        if empty.size:
            raise InputError(f"image {self.images[empty[0]]} has no annotator mask")
        annotated.setflags(write=False)
        object.__setattr__(self, "annotated", annotated)

    # -- sizes -------------------------------------------------------------
    @property
    def n_images(self) -> int:
        """Number of test images."""
        return len(self.images)

    @property
    def n_runs(self) -> int:
        """Number of submitted runs."""
        return len(self.runs)

    @property
    def n_annotators(self) -> int:
        """Number of annotators (over all images)."""
        return len(self.annotators)

    @property
    def has_truth(self) -> bool:
        """Whether the masks of the latent truth are known (synthetic challenges)."""
        return bool(getattr(self.source, "has_truth", False))

    def spacing(self, image: int) -> tuple:
        """The voxel size of an image along its array axes (1 per axis when the challenge has none).

        Parameters
        ----------
        image : int
            Position of the image.

        Returns
        -------
        tuple of float
        """
        if self.spacings is None:
            return (1.0,) * len(self.shapes[image])
        return tuple(self.spacings[image])

    @property
    def n_pixels(self) -> np.ndarray:
        """Number of pixels of every image (int64)."""
        return np.array([int(np.prod(s)) for s in self.shapes], dtype=np.int64)

    def image_index(self, image: int | str) -> int:
        """Position of an image given its index or its id.

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.

        Returns
        -------
        int
            The image's position in :attr:`images`.

        Raises
        ------
        IndexError
            A position out of range.
        KeyError
            An unknown image id.
        """
        if isinstance(image, (int, np.integer)):
            if not 0 <= image < self.n_images:
                raise IndexError(f"image index {image} out of range 0..{self.n_images - 1}")
            return int(image)
        try:
            return self.images.index(image)
        except ValueError:
            raise KeyError(f"unknown image id {image!r}") from None

    def annotators_of(self, image: int | str) -> tuple[str, ...]:
        """The annotators that annotated one image, in challenge order.

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.

        Returns
        -------
        tuple of str
            The annotators with a mask of that image.
        """
        i = self.image_index(image)
        return tuple(a for a, ok in zip(self.annotators, self.annotated[i]) if ok)

    def encounter_codes(self) -> np.ndarray:
        """Integer code of every image's encounter (first-seen order).

        Returns
        -------
        ndarray of intp (n_images,)
            0 for the first image's encounter, 1 for the next encounter seen, and so on.
        """
        codes: dict[str, int] = {}
        return np.array([codes.setdefault(e, len(codes)) for e in self.encounters], dtype=np.intp)

    # -- masks -------------------------------------------------------------
    def read(self, image: int | str, kind: str, name: str, *,
             out: np.ndarray | None = None) -> tuple[np.ndarray, str | None]:
        """One mask and the note of any repair applied while decoding it.

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.
        kind : str
            ``"annotator"``, ``"run"`` or (a source with ``has_truth``) ``"truth"``.
        name : str
            The annotator or run (``"truth"`` for the latent truth).
        out : ndarray of uint8, optional
            A buffer a file source may decode into (the mask is then a view of it, valid until the buffer is
            reused); other sources ignore it.

        Returns
        -------
        mask : ndarray of bool, 2-D
            Of the image's shape.
        note : str or None
            One line describing a repair applied while decoding, else None (not warned about here).

        Raises
        ------
        InputError
            The mask has another shape than the image.
        """
        i = self.image_index(image)
        into = out is not None and getattr(self.source, "reads_into", False)
        if into:  # a source with reads_into takes out= (MaskSource's protocol does not require it)
            mask, note = self.source.read(i, kind, name, out=out)  # type: ignore[call-arg]
        else:
            mask, note = self.source.read(i, kind, name)
        if mask.shape != self.shapes[i]:
            raise InputError(
                f"{kind} {name!r}, image {self.images[i]}: mask has shape {mask.shape}, "
                f"expected {self.shapes[i]}"
            )
        return mask, note

    def annotator_masks(self, image: int | str) -> dict[str, np.ndarray]:
        """Every annotator mask of one image (boolean arrays), keyed by annotator.

        A repair applied while decoding is warned about (:class:`~robustness.errors.MaskWarning`).

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.

        Returns
        -------
        dict of str to ndarray of bool
            The masks of the annotators of that image, in challenge order.
        """
        out = {}
        for a in self.annotators_of(image):
            out[a] = self._warned(*self.read(image, "annotator", a))
        return out

    def run_mask(self, image: int | str, run: str) -> np.ndarray:
        """One run's mask for one image (boolean array).

        A repair applied while decoding is warned about (:class:`~robustness.errors.MaskWarning`).

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.
        run : str
            One of :attr:`runs`.

        Returns
        -------
        ndarray of bool, 2-D
            Of the image's shape.

        Raises
        ------
        KeyError
            An unknown run.
        """
        if run not in self.runs:
            raise KeyError(f"unknown run {run!r}")
        return self._warned(*self.read(image, "run", run))

    def run_masks(self, image: int | str) -> dict[str, np.ndarray]:
        """Every run's mask for one image.

        Loads ``n_runs`` masks at once: prefer :meth:`run_mask`.

        Parameters
        ----------
        image : int or str
            A position (0-based) or an image id.

        Returns
        -------
        dict of str to ndarray of bool
            The masks keyed by run, in challenge order.
        """
        return {s: self.run_mask(image, s) for s in self.runs}

    def subset(self, images: Iterable[int | str]) -> Challenge:
        """The challenge restricted to ``images`` (positions), renumbered 0..: a batch for a worker process.

        Its source holds only those images' masks or file paths when the source has a ``subset`` method.

        Parameters
        ----------
        images : iterable of int or str
            Positions (0-based) or image ids, in the order the subset keeps.

        Returns
        -------
        Challenge
            The same annotators and runs over those images (without the loader's notes).
        """
        idx = [self.image_index(i) for i in images]
        source = self.source.subset(idx) if hasattr(self.source, "subset") else _Slice(self.source, tuple(idx))
        pick = lambda seq: tuple(seq[i] for i in idx)  # noqa: E731
        return Challenge(pick(self.images), pick(self.encounters), pick(self.shapes), self.annotators,
                         self.annotated[idx], self.runs, source,
                         spacings=None if self.spacings is None else pick(self.spacings))

    @staticmethod
    def _warned(mask, note):
        if note:
            warnings.warn(note, MaskWarning, stacklevel=3)
        return mask

    # -- identity ----------------------------------------------------------
    def fingerprint(self) -> str:
        """A hash of everything the overlap counts depend on (inputs and their metadata).

        Returns
        -------
        str
            The SHA-256 hex digest of the ids, shapes, who annotated what, the runs and the source's
            :meth:`~MaskSource.fingerprint`.
        """
        payload = {
            "images": self.images,
            "encounters": self.encounters,
            "shapes": self.shapes,
            "annotators": self.annotators,
            "annotated": self.annotated.astype(int).tolist(),
            "systems": self.runs,  # the key of earlier versions: fingerprints (and results folders) stay valid
            "source": self.source.fingerprint(),
        } | ({} if self.spacings is None else {"spacings": self.spacings})
        blob = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()

    def describe(self) -> dict:
        """Counts a human wants first: images, encounters, annotators per image, runs.

        Returns
        -------
        dict
            ``images``, ``encounters``, ``annotators``, ``runs`` (int), ``annotators_per_image``
            (``{number of annotators: number of images}``) and ``megapixels_median`` (float, the median image
            size in millions of pixels).
        """
        k = self.annotated.sum(axis=1)
        return {
            "images": self.n_images,
            "encounters": len(set(self.encounters)),
            "annotators": self.n_annotators,
            "annotators_per_image": {int(v): int((k == v).sum()) for v in np.unique(k)},
            "runs": self.n_runs,
            "megapixels_median": float(np.median(self.n_pixels) / 1e6),
        }


@dataclass(frozen=True)
class _Slice:
    """Some images of a source without a ``subset`` method, renumbered 0.."""

    source: MaskSource
    index: tuple

    @property
    def has_truth(self) -> bool:
        return bool(getattr(self.source, "has_truth", False))

    def read(self, image, kind, name):
        return self.source.read(self.index[image], kind, name)

    def fingerprint(self) -> dict:
        return {"slice": self.source.fingerprint(), "images": list(self.index)}
