"""Heavy modules imported on first use (the package's lazy exports are lazy_loader's, from each ``__init__.pyi``).

``import robustness.overlap.gold`` must not load numba, and ``--help`` must not load pandas: each subpackage's
``__init__`` hands its names to ``lazy_loader.attach_stub``, which reads them from the package's ``__init__.pyi``
(the one list, which static tools read too) and imports a name's module on its first use.

A module on a command's start-up path that needs a heavy library (scipy.stats, pandas, matplotlib, SimpleITK)
only in some of its functions names it at its top with :func:`lazy_module`, beside the real import for static
tools::

    if TYPE_CHECKING:
        import pandas as pd
    else:
        pd = lazy_module("pandas")

so that ``import robustness.studies.scoring`` loads neither scipy.stats nor matplotlib (``tests/test_imports.py``).
"""

from __future__ import annotations

import importlib
import sys
import types


class _LazyModule(types.ModuleType):
    """A stand-in for a module, imported on its first attribute access (not in ``sys.modules`` before that)."""

    def __getattr__(self, attr: str):
        module = self.__dict__.get("_module")
        if module is None:
            module = self.__dict__["_module"] = importlib.import_module(self.__name__)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "imported" if self.__dict__.get("_module") is not None else "not imported yet"
        return f"<lazy module {self.__name__!r} ({state})>"


def lazy_module(name: str) -> types.ModuleType:
    """The module ``name``, imported when one of its attributes is first read (at once if already imported).

    Unlike :func:`importlib.util.LazyLoader` (and ``lazy_loader.load``, built on it), nothing enters
    ``sys.modules`` and no parent package is imported until then, so ``"scipy.stats" in sys.modules`` still
    tells whether anything has used it.

    Parameters
    ----------
    name : str
        The module's absolute name, e.g. ``"scipy.stats"``.

    Returns
    -------
    module
        The module itself when it is already imported, else a stand-in whose attributes are the module's.

    Examples
    --------
    >>> stats = lazy_module("statistics")
    >>> stats.median([3, 1, 2])
    2
    """
    loaded = sys.modules.get(name)
    return loaded if loaded is not None else _LazyModule(name)
