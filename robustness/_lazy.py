"""Lazy exports for the package and its subpackages, and heavy modules imported on first use.

``import robustness.overlap.gold`` must not load numba, and ``--help`` must not load pandas: a subpackage's
``__init__`` names what it offers without importing it. Static tools (type checkers, IDEs) read the same names
from each lazy package's ``__init__.pyi``, written from the lazy maps by :func:`write_stubs`
(``python -m robustness._lazy``); ``tests/test_conventions.py`` fails when a stub and its map differ.

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
from collections.abc import Callable
from pathlib import Path

#: Every lazy package's map: package -> (public name -> module relative to the package, submodules offered).
EXPORTS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {}


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
    EXPORTS[package] = (dict(names), tuple(modules))

    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(f"{package}.{names[name]}"), name)
        elif name in modules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # found once: later reads (a kernel called per batch) are plain
        return value

    def __dir__() -> list[str]:
        return exported

    return __getattr__, __dir__, exported


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


def stub_text(package: str, names: dict[str, str], modules: tuple[str, ...] = (),
              extra: tuple[str, ...] = ()) -> str:
    """The ``__init__.pyi`` of a lazy package: every public name imported from its module, for static tools.

    Parameters
    ----------
    package : str
    names : dict
        Public name -> the module (relative to ``package``) that defines it.
    modules : tuple of str
        Submodules offered as attributes.
    extra : tuple of str
        Further stub lines (``__version__: str``).

    Returns
    -------
    str
    """
    lines = [f"# The lazy names of {package} for static tools: written by `python -m robustness._lazy` from its",
             "# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.", ""]
    def kind(name: str) -> int:  # isort's order by type: constants, classes, then functions and variables
        return 0 if name.isupper() else 1 if name[0].isupper() else 2

    # a submodule named like a public name is shadowed by it (the lazy ``__getattr__`` looks names up first)
    lines += [f"from {package} import {module} as {module}" for module in sorted(modules) if module not in names]
    lines += [f"from {package}.{module} import {name} as {name}"
              for name, module in sorted(names.items(), key=lambda x: (x[1], kind(x[0]), x[0]))]
    lines += [*extra, "", "__all__ = [", *(f'    "{n}",' for n in sorted(set(names) | set(modules))), "]", ""]
    return "\n".join(lines)


def stubs() -> dict[Path, str]:
    """Every lazy package's stub: its ``__init__.pyi`` path and text (the packages are imported to read the maps).

    Returns
    -------
    dict
    """
    import robustness

    root = Path(robustness.__file__).parent
    top = importlib.import_module("robustness")  # its lazy map, which the package's own stub does not declare
    out = {root / "__init__.pyi": stub_text("robustness", top._PUBLIC, top._SUBPACKAGES,
                                           extra=("", "__version__: str"))}
    for init in sorted(root.glob("*/__init__.py")):
        package = f"robustness.{init.parent.name}"
        importlib.import_module(package)
        if package in EXPORTS:
            out[init.with_suffix(".pyi")] = stub_text(package, *EXPORTS[package])
    return out


def write_stubs() -> list[Path]:
    """Write every lazy package's ``__init__.pyi`` (:func:`stubs`).

    Returns
    -------
    list of Path
        The stubs written.
    """
    written = []
    for path, text in stubs().items():
        path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    from robustness._lazy import write_stubs as write  # this module as the packages import it (their maps)

    for stub in write():
        print(stub, file=sys.stderr)
