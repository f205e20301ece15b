"""The registry: every game cardlab knows, one line each.

Adding a game = adding a package ``engines/<game>/`` whose ``engine.py`` defines
an :class:`engines.interface.Engine` subclass, and one line here.  Engines are
imported on first use, so ``cardlab --help`` does not load numba kernels.
"""

from __future__ import annotations

import importlib
from functools import cache

from .core.errors import CardlabError
from .interface import Engine

ENGINES: dict[str, str] = {
    "narcotic": "engines.narcotic.engine:NarcoticEngine",
    "redblack": "engines.redblack.engine:RedBlackEngine",
    "blackjack": "engines.blackjack.engine:BlackjackEngine",
}

GAMES: tuple[str, ...] = tuple(ENGINES)


@cache
def engine(game: str) -> Engine:
    """The engine of ``game`` (one instance per process)."""
    if game not in ENGINES:
        raise CardlabError(f"unknown game {game!r}; known: {', '.join(ENGINES)}")
    module, _, cls_name = ENGINES[game].partition(":")
    cls = getattr(importlib.import_module(module), cls_name)
    if not (isinstance(cls, type) and issubclass(cls, Engine)):
        raise TypeError(f"{ENGINES[game]} is not an engines.interface.Engine subclass")
    eng = cls()
    if eng.name != game:
        raise TypeError(f"{ENGINES[game]} says its name is {eng.name!r}, registered as {game!r}")
    return eng


def engines() -> list[Engine]:
    return [engine(g) for g in GAMES]
