"""The mask source of a challenge read from folders: each image's files, decoded on demand (:class:`FileSource`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robustness.errors import InputError
from robustness.io.masks import MaskFormat, read_mask
from robustness.io.volumes import read_volume

__all__ = ["FileSource"]


@dataclass(frozen=True)
class FileSource:
    """Masks read from files.

    ``paths[kind][name][image] -> Path`` (None: scored empty).

    Parameters
    ----------
    annotator_paths, run_paths : dict
        ``{annotator or run: [path or None per image]}``; None: no mask, scored as empty.
    annotator_format, run_format : MaskFormat
        How the annotators' and the runs' files are decoded (the truth's as the annotators').
    shapes : tuple of (int, int)
        Each image's shape (rows, columns), from the annotators' headers.
    truth_paths : tuple of Path, optional
        The latent true masks of a written synthetic challenge (``truth/``), one per image.
    labels : tuple of int, optional
        Multi-label masks: the label each image reads (an image is one label of one file; its mask is the voxels
        of that value, whatever the formats say), or the region's name where ``regions`` is given.
    regions : tuple of (str, tuple of int), optional
        Label regions: each name and the label values whose union it is (BraTS's whole tumour 1, 2, 4).
    """

    annotator_paths: dict
    run_paths: dict
    annotator_format: MaskFormat
    run_format: MaskFormat
    shapes: tuple
    truth_paths: tuple | None = None  # the latent true masks of a written synthetic challenge (truth/)
    labels: tuple | None = None
    regions: tuple | None = None
    reads_into = True  # read(..., out=buffer) decodes into the caller's buffer

    @property
    def has_truth(self) -> bool:
        """Whether the latent true masks are known (``truth_paths`` given)."""
        return self.truth_paths is not None

    def read(self, image: int, kind: str, name: str, *,
             out: np.ndarray | None = None) -> tuple[np.ndarray, str | None]:
        """One mask and its note (see :meth:`robustness.io.challenge.Challenge.read`; ``out`` as :func:`read_mask`).

        Parameters
        ----------
        image : int
            Position of the image (0-based).
        kind : str
            ``"annotator"``, ``"run"`` or ``"truth"``.
        name : str
            The annotator or run (``"truth"`` for the latent truth).
        out : ndarray of uint8, optional
            A buffer the common TIFFs are decoded into (the mask is then a view of it).

        Returns
        -------
        mask : ndarray of bool, 2-D
            An all-False mask of the image's shape where there is no file.
        note : str or None
            One line naming the file and the repair applied while decoding it, else None.

        Raises
        ------
        InputError
            The file cannot be decoded, or its mask has another shape than the image.
        """
        if kind == "truth":
            if self.truth_paths is None:
                raise InputError("this challenge holds no true masks")
            table, fmt = {"truth": self.truth_paths}, self.annotator_format
        else:
            table = self.annotator_paths if kind == "annotator" else self.run_paths
            fmt = self.annotator_format if kind == "annotator" else self.run_format
        path = table[name][image]
        if path is None:
            return np.zeros(self.shapes[image], dtype=bool), None
        if self.labels is not None:
            volume = read_volume(path)[0]
            mask = (np.isin(volume, dict(self.regions)[self.labels[image]]) if self.regions is not None else
                    volume == self.labels[image])
            note = None
        else:
            mask, note = read_mask(path, fmt, out=out)
        if mask.shape != self.shapes[image]:
            raise InputError(
                f"{path}: mask has shape {mask.shape}, the image has shape {self.shapes[image]}"
            )
        return mask, note

    def subset(self, images: Sequence[int]) -> FileSource:
        """The same source restricted to ``images`` (positions), renumbered 0..: a batch's worth of paths.

        Parameters
        ----------
        images : sequence of int
            Positions (0-based), in the order the subset keeps.

        Returns
        -------
        FileSource
            The same formats, with only those images' paths and shapes.
        """
        pick = lambda seq: [seq[i] for i in images]  # noqa: E731
        return FileSource({a: pick(v) for a, v in self.annotator_paths.items()},
                          {s: pick(v) for s, v in self.run_paths.items()},
                          self.annotator_format, self.run_format, tuple(pick(self.shapes)),
                          None if self.truth_paths is None else tuple(pick(self.truth_paths)),
                          None if self.labels is None else tuple(pick(self.labels)), self.regions)

    def _digest(self, fields) -> str:
        h = hashlib.sha256()
        truth = {} if self.truth_paths is None else {"<truth>": self.truth_paths}
        for table in (self.annotator_paths, self.run_paths, truth):
            for name in sorted(table):
                for p in table[name]:
                    if p is None:
                        h.update(b"<none>")
                        continue
                    try:
                        st = os.stat(p)
                    except OSError as exc:
                        raise InputError(f"{p}: cannot read the file ({exc.strerror})") from None
                    stamp = "|".join(str(getattr(st, f)) for f in fields)
                    h.update(f"{name}|{Path(p).name}|{stamp}".encode())
        return h.hexdigest()

    def fingerprint(self) -> dict:
        """Identity of the input (names, sizes, modification times): decides whether results are of this input.

        Returns
        -------
        dict
            ``files`` (a SHA-256 hex digest of every file's name, size and modification time) and the two
            formats' ``repr``.

        Raises
        ------
        InputError
            A file cannot be read (``stat`` fails).
        """
        return {
            "files": self._digest(("st_size", "st_mtime_ns")),
            "annotator_format": repr(self.annotator_format),
            "run_format": repr(self.run_format),
        } | ({} if self.labels is None else {"labels": list(self.labels)}) | (
            {} if self.regions is None else {"regions": [[n, list(v)] for n, v in self.regions]})

    def cache_key(self) -> str:
        """Key of cached counts: adds each file's inode and status-change time, which ``os.utime`` cannot restore.

        Rewriting a file in place and restoring its mtime still changes its ctime, and replacing it by
        another file changes its inode, so stale counts are never reused (one ``stat`` per file, as before).

        Returns
        -------
        str
            A SHA-256 hex digest.

        Raises
        ------
        InputError
            A file cannot be read (``stat`` fails).
        """
        return self._digest(("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev"))
