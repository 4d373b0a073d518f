"""Errors and warnings raised on bad input.

Every message is one line that names the offending file (or encounter, slot,
image, run) and says what is wrong, so a command-line user never has to read a
traceback.
"""

from __future__ import annotations

__all__ = ["InputError", "MaskWarning"]


class InputError(ValueError):
    """Bad input data: a missing folder, a corrupt or non-binary mask, a shape mismatch...

    The message is a single line naming the file and the problem. Command-line
    entry points print it as ``error: <message>`` and exit with status 2.
    """


class MaskWarning(UserWarning):
    """A mask was readable but needed a documented repair (e.g. stray pixel values)."""
