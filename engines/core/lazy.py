"""Lazy re-exports for the game packages' public names (PEP 562)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a submodule of ``package``) on first use.

    A game's names load only when asked for, so `cardlab --help` and another game's
    commands do not import this game's numba kernels."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{exports[name]}")
        value = getattr(module, name)
        module_globals = vars(importlib.import_module(package))
        module_globals[name] = value
        return value

    return __getattr__
