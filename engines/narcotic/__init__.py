"""Narcotic solitaire: rules (:mod:`.rules`), plain-Python reference, numba kernel, engine, report, CLI.

The names below are the package's public API (outside benchmark scripts import them).
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

# name -> the submodule defining it, imported on first use
_EXPORTS = {
    "deal_round": "reference",
    "gather": "reference",
    "deal_deck": "decks",
    "play": "kernel",
    "shuffled_decks": "decks",
    "Outcome": "reference",
    "play_reference": "reference",
    "proper_piles": "reference",
    "GATHERS": "rules",
    "MATCHINGS": "rules",
    "PILE_FOURS": "rules",
    "PRESETS": "rules",
    "Rules": "rules",
    "all_rules": "rules",
    "check_deck": "rules",
    "fresh_deck": "rules",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
