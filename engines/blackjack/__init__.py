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
    "EFFECT_COLUMNS": "depleted",
    "depleted_shoe": "depleted",
    "depleted_table": "depleted",
    "effects_of_removal": "depleted",
    "effects_of_removal_table": "depleted",
    "parse_cards": "depleted",
    "shoe_table": "depleted",
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
