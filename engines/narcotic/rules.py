"""Narcotic solitaire: the rules in one place, a numba kernel and a plain-Python reference.

The game (seed ``000_…``): a 52-card deck, card values 1..13 (suits do not
matter); a smaller deck of ``ranks`` values r (1..13) times four suits, 4r cards, is
played the same way (the seed's program is written for any deck: its ``CARDS_IN_DECK``
and ``NUM_SUITS``).  The deck is an array whose LAST element is dealt first (the seed's
``Array#pop``).  Cards are dealt four at a time onto piles 0..3, left to right.
When the deck is used up the four piles are gathered into the next deck.
A game is *won* when the deck is empty after a pass; it *loops* when a
gathered deck repeats one gathered earlier in the same game (compared exactly,
as the seed does; the initial shuffled deck is not recorded, as in the seed).

Three explicit rule choices:

``matching``
    ``deal`` (the seed): only the four cards of one deal are compared; each
    card goes onto the leftmost pile whose dealt card has its value (the seed's
    ``proper_piles``).  ``cascade``: only pile tops are in play; after a deal,
    while two piles show equal top cards, the leftmost pile whose top equals a
    top further left gives its top card to the leftmost pile showing that
    value, and the uncovered card is in play at once.  In both, four equal
    dealt cards are discarded.
``gather``
    How the piles become the next deck, named by the card dealt first
    afterwards: ``top-right`` (the seed: piles concatenated pile 0 first),
    ``bottom-left`` (that stack turned over), ``top-left`` (pile 3 first),
    ``bottom-right`` (that stack turned over).
``pile_four``
    ``keep`` (the seed) or ``discard``: four equal cards on top of one pile are
    discarded as soon as they form.

Presets: ``seed`` = deal/top-right/keep, ``classic`` = cascade/top-right/keep.

Time model (the seed's): 4 s per deal of four cards, 5 s per gather.  The
seed charges the gather that empties the game (a won game's last, empty
gather) but not the gather whose deck repeats (a loop is detected before the
charge).  ``passes`` counts passes through the deck (gathers, the last one
included); for a loop, the deck gathered after pass ``passes`` equals the deck
gathered after pass ``cycle_start``, and ``cycle_length = passes - cycle_start``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import CardlabError

CARDS_IN_DECK = 52
VALUES = 13
SUITS = 4  # cards of each value in a deck: a deck of r values has 4r cards
CARDS_PER_DEAL = 4
SECONDS_PER_DEAL = 4
SECONDS_PER_GATHER = 5

MATCHINGS = ("deal", "cascade")
GATHERS = ("top-right", "bottom-left", "top-left", "bottom-right")
PILE_FOURS = ("keep", "discard")
PRESETS = {
    "seed": ("deal", "top-right", "keep"),
    "classic": ("cascade", "top-right", "keep"),
}


@dataclass(frozen=True)
class Rules:
    matching: str = "deal"
    gather: str = "top-right"
    pile_four: str = "keep"
    ranks: int = VALUES  # values in the deck (4 cards each): 13 is the full deck

    def __post_init__(self) -> None:
        for field, value, allowed in (
            ("matching", self.matching, MATCHINGS),
            ("gather", self.gather, GATHERS),
            ("pile_four", self.pile_four, PILE_FOURS),
        ):
            if value not in allowed:
                raise CardlabError(f"unknown {field} {value!r}; allowed: {', '.join(allowed)}")
        why = check_ranks(self.ranks)
        if why:
            raise CardlabError(why)

    @classmethod
    def preset(cls, name: str) -> Rules:
        if name not in PRESETS:
            raise CardlabError(f"unknown rules preset {name!r}; allowed: {', '.join(PRESETS)}")
        return cls(*PRESETS[name])

    @property
    def variant(self) -> str:
        """Path-safe name of the rule combination, e.g. ``deal.top-right.keep``; a smaller deck
        adds its size (``deal.top-right.keep.r4``), so every full-deck path stays as it was."""
        combo = f"{self.matching}.{self.gather}.{self.pile_four}"
        return combo if self.ranks == VALUES else f"{combo}.r{self.ranks}"

    @property
    def cards(self) -> int:
        return SUITS * self.ranks

    def spec_fields(self) -> dict:
        """The rule fields of a shard spec; ``ranks`` only for a smaller deck (a full-deck spec,
        and with it its seed, provenance and result digest, stays as it was)."""
        fields = {"matching": self.matching, "gather": self.gather, "pile_four": self.pile_four}
        return fields if self.ranks == VALUES else {**fields, "ranks": self.ranks}

    @classmethod
    def of_spec(cls, spec: Mapping[str, Any]) -> Rules:
        """The rules a shard spec (:meth:`spec_fields`) names."""
        return cls(spec["matching"], spec["gather"], spec["pile_four"], int(spec.get("ranks", VALUES)))

    @property
    def preset_name(self) -> str | None:
        """The preset these rules are (presets are full-deck rules: None for a smaller deck)."""
        if self.ranks != VALUES:
            return None
        for name, combo in PRESETS.items():
            if combo == (self.matching, self.gather, self.pile_four):
                return name
        return None

    def codes(self) -> tuple[int, int, int]:
        return (MATCHINGS.index(self.matching), GATHERS.index(self.gather), PILE_FOURS.index(self.pile_four))


def check_ranks(ranks: object) -> str | None:
    """Why ``ranks`` is not a deck size (an integer 1..13), or None."""
    if isinstance(ranks, bool) or not isinstance(ranks, int) or not 1 <= ranks <= VALUES:
        return f"ranks must be an integer 1..{VALUES} (values in the deck, {SUITS} cards each), got {ranks!r}"
    return None


def all_rules(ranks: int = VALUES) -> list[Rules]:
    """The sixteen rule combinations, in a fixed order (on a deck of ``ranks`` values)."""
    return [Rules(m, g, p, ranks) for m, g, p in itertools.product(MATCHINGS, GATHERS, PILE_FOURS)]


def experiment_rules(exp: Mapping[str, Any], ranks: int | None = None) -> list[Rules]:
    """The rule combinations an experiment (or a campaign) runs: a preset, ``all`` sixteen, or explicit
    choices, on decks of ``ranks`` values (default: the entry's own ``ranks``, one size or a list of
    sizes, each size after the other; else the full deck)."""
    sizes = exp.get("ranks", VALUES) if ranks is None else ranks
    sizes = [int(r) for r in sizes] if isinstance(sizes, list) else [int(sizes)]
    name = exp.get("rules")
    if name == "all":
        return [rules for r in sizes for rules in all_rules(r)]
    if name is not None:
        return [replace(Rules.preset(name), ranks=r) for r in sizes]
    combo = (exp.get("matching", "deal"), exp.get("gather", "top-right"), exp.get("pile_four", "keep"))
    return [Rules(*combo, r) for r in sizes]


def fresh_deck(ranks: int = VALUES) -> list[int]:
    """The seed's unshuffled deck: ``i % r + 1`` for i in 0..4r-1 (its ``i % (CARDS_IN_DECK / NUM_SUITS) + 1``)."""
    return [i % ranks + 1 for i in range(SUITS * ranks)]


def check_deck(values: list[int], ranks: int = VALUES) -> str | None:
    """Why ``values`` is not a Narcotic deck of ``ranks`` values (the full deck by default), or None if it is one."""
    cards = SUITS * ranks
    if len(values) != cards:
        return f"expected {cards} cards, got {len(values)}"
    bad = [v for v in values if not 1 <= v <= ranks]
    if bad:
        return f"card value {bad[0]} out of range 1..{ranks}"
    counts = Counter(values)
    wrong = [v for v in range(1, ranks + 1) if counts[v] != SUITS]
    if wrong:
        return f"value {wrong[0]} appears {counts[wrong[0]]} times, expected exactly {SUITS} of each value 1..{ranks}"
    return None
