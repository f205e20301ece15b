"""Blackjack dealer outcomes: rules (:mod:`.rules`), exact calculator, seeded simulator, engine, report, CLI.

The names below are the package's public API.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

# name -> the submodule defining it, imported on first use
_EXPORTS = {
    "BLOCK_CONTINUOUS": "simulation",
    "clear_exact_cache": "exact",
    "condition_on_peek": "exact",
    "BUST": "rules",
    "NATURAL": "rules",
    "SHOES": "rules",
    "UPCARD_VALUE": "rules",
    "dealer_stands": "rules",
    "outcome_index": "rules",
    "play_hand": "rules",
    "exact_outcomes": "exact",
    "exact_table": "exact",
    "DECKS": "rules",
    "OUTCOMES": "rules",
    "PEEK": "rules",
    "SOFT17": "rules",
    "UPCARDS": "rules",
    "hand_value": "rules",
    "parse_decks": "rules",
    "simulate": "simulation",
    "simulate_numpy": "simulation",
    "simulate_py": "simulation",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
