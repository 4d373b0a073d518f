"""The repository's Python files parsed once for the suite's static checks (conventions, architecture, messages).

A dozen tests walk the syntax trees of every module; each file is parsed once per session instead of once per test.
The trees are shared: the checks read them and never change them.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path


def parsed(path: str | os.PathLike) -> ast.Module:
    """The syntax tree of the Python file ``path`` (parsed again when the file changed: its size or mtime).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    ast.Module
    """
    p = Path(path).resolve()
    stat = p.stat()
    return _parse(str(p), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parse(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text())
