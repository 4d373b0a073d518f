"""Lazy exports for the package and its subpackages: a name is imported from its module on first use.

``import robustness.overlap.gold`` must not load numba, and ``--help`` must not load pandas: a subpackage's
``__init__`` names what it offers without importing it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, names: dict[str, str],
                 modules: tuple[str, ...] = ()) -> tuple[Callable, Callable, list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict
        Public name -> the module (relative to ``package``) that defines it.
    modules : tuple of str
        Submodules offered as attributes (``from robustness.overlap import gold``).

    Returns
    -------
    tuple
        The module-level ``__getattr__`` and ``__dir__`` functions and the ``__all__`` list.
    """
    exported = sorted(set(names) | set(modules))

    def __getattr__(name: str):
        if name in names:
            return getattr(importlib.import_module(f"{package}.{names[name]}"), name)
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return exported

    return __getattr__, __dir__, exported
