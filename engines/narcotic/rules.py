"""Narcotic solitaire: the rules in one place, a numba kernel and a plain-Python reference.

The game (seed ``000_…``): a 52-card deck, card values 1..13 (suits do not
matter).  The deck is an array whose LAST element is dealt first (the seed's
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
from dataclasses import dataclass

from ..core.errors import CardlabError

CARDS_IN_DECK = 52
VALUES = 13
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

    def __post_init__(self) -> None:
        for field, value, allowed in (
            ("matching", self.matching, MATCHINGS),
            ("gather", self.gather, GATHERS),
            ("pile_four", self.pile_four, PILE_FOURS),
        ):
            if value not in allowed:
                raise CardlabError(f"unknown {field} {value!r}; allowed: {', '.join(allowed)}")

    @classmethod
    def preset(cls, name: str) -> Rules:
        if name not in PRESETS:
            raise CardlabError(f"unknown rules preset {name!r}; allowed: {', '.join(PRESETS)}")
        return cls(*PRESETS[name])

    @property
    def variant(self) -> str:
        """Path-safe name of the rule combination, e.g. ``deal.top-right.keep``."""
        return f"{self.matching}.{self.gather}.{self.pile_four}"

    @property
    def preset_name(self) -> str | None:
        for name, combo in PRESETS.items():
            if combo == (self.matching, self.gather, self.pile_four):
                return name
        return None

    def codes(self) -> tuple[int, int, int]:
        return (MATCHINGS.index(self.matching), GATHERS.index(self.gather), PILE_FOURS.index(self.pile_four))


def all_rules() -> list[Rules]:
    """The sixteen rule combinations, in a fixed order."""
    return [Rules(m, g, p) for m, g, p in itertools.product(MATCHINGS, GATHERS, PILE_FOURS)]


def experiment_rules(exp: dict) -> list[Rules]:
    """The rule combinations an experiment (or a campaign) runs: a preset, ``all`` sixteen, or explicit choices."""
    name = exp.get("rules")
    if name == "all":
        return all_rules()
    if name is not None:
        return [Rules.preset(name)]
    return [Rules(exp.get("matching", "deal"), exp.get("gather", "top-right"), exp.get("pile_four", "keep"))]


def fresh_deck() -> list[int]:
    """The seed's unshuffled deck: ``i % 13 + 1`` for i in 0..51."""
    return [i % VALUES + 1 for i in range(CARDS_IN_DECK)]


def check_deck(values: list[int]) -> str | None:
    """Why ``values`` is not a full Narcotic deck, or None if it is one."""
    if len(values) != CARDS_IN_DECK:
        return f"expected {CARDS_IN_DECK} cards, got {len(values)}"
    bad = [v for v in values if not 1 <= v <= VALUES]
    if bad:
        return f"card value {bad[0]} out of range 1..{VALUES}"
    counts = Counter(values)
    wrong = [v for v in range(1, VALUES + 1) if counts[v] != 4]
    if wrong:
        return f"value {wrong[0]} appears {counts[wrong[0]]} times, expected exactly 4 of each value 1..13"
    return None
