"""Exact dealer outcomes for a depleted shoe, and the effects of removal of one card.

* :func:`parse_cards` reads cards as the command line gives them (``A,2,..,9,T``; ``10``,
  ``J``, ``Q``, ``K`` are ten-valued like ``T``; case-insensitive) into card values 1..10.
* :func:`depleted_shoe` is a full shoe less those cards (a :class:`CardlabError` naming the
  card and what is left when one cannot be removed).
* :func:`depleted_table` is the exact per-upcard table for that shoe (the rules of
  :mod:`.rules`: the upcard comes out of the depleted shoe, then the hole card and draws).
  An upcard whose value the shoe no longer holds has no row, only a reason.
* :func:`effects_of_removal` is Griffin's table (*The Theory of Blackjack*): for each
  upcard and each rank, the exact change in every outcome probability when one card of
  that rank leaves a full shoe.  :func:`effects_of_removal_table` gives it as the
  warehouse table ``blackjack_effects_of_removal`` (columns in :data:`EFFECT_COLUMNS`).

Removing a card of the upcard's own rank is well defined: the upcard is then drawn from
the rest.  By the law of total probability over which card was removed, the full-shoe
probability is the average of the depleted ones weighted by each rank's count in the shoe
less the upcard (tested exactly), so the effects weighted the same way sum to zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING

from ..core.errors import CardlabError
from .exact import condition_on_peek, exact_outcomes
from .rules import NATURAL, OUTCOMES, PEEK, SOFT17, UPCARD_VALUE, UPCARDS, parse_choice, parse_decks, shoe_counts

if TYPE_CHECKING:  # pyarrow only for the warehouse table: the CLI parser must not load it
    import pyarrow as pa

# Card labels by value (index 1..10; index 0 unused) and the ranks a user may type.
CARD_LABELS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
REMOVED = CARD_LABELS[1:]  # the effects table's ranks, in Griffin's order A, 2..9, T
CARD_ALIASES = {label: v for v, label in enumerate(CARD_LABELS) if label} | {"10": 10, "J": 10, "Q": 10, "K": 10}

# Effects of removal: Griffin's setting (1, 2, 6 and 8 decks, both soft-17 rules, no peek).
EFFECT_DECKS = ("1", "2", "6", "8")

EFFECT_COLUMNS = {
    "decks": "deck count of the full shoe ('1', '2', '6', '8')",
    "soft17": "stand | hit",
    "peek": "always 'no' (the dealer's natural counts as an outcome)",
    "upcard": "2..10, A (the blackjack_exact_probs rows)",
    "upcard_order": "seed order of the upcard, 0..9",
    "removed": "rank of the one card removed from the full shoe: A, 2..9, T (any ten-valued card)",
    "removed_order": "0..9 for A, 2..9, T",
    "outcome": "bust, 17..21, natural",
    "outcome_order": "0..6",
    "base_probability": "the outcome's probability for the full shoe (float64)",
    "base_exact": "the same as an exact fraction p/q",
    "probability": "the outcome's probability with the card removed (float64)",
    "exact": "the same as an exact fraction p/q",
    "delta": "probability - base_probability (float64, computed exactly then rounded once)",
    "delta_exact": "the same as an exact fraction p/q",
}


def card_label(value: int) -> str:
    """A, 2..9 or T for a card value 1..10."""
    return CARD_LABELS[value]


def parse_cards(cards: str | Iterable[str]) -> tuple[int, ...]:
    """Card values (1..10) of cards given as ``"A,A,T,5"`` or as a list of ranks.

    ``T``, ``10``, ``J``, ``Q``, ``K`` are all the value 10; case and spaces are ignored;
    an empty string is no card.  An unknown rank is a :class:`CardlabError` naming it.
    """
    items = cards.split(",") if isinstance(cards, str) else list(cards)
    if isinstance(cards, str) and not cards.strip():
        return ()
    values = []
    for item in items:
        token = str(item).strip().upper()
        if token not in CARD_ALIASES:
            raise CardlabError(
                f"card {str(item).strip()!r} is not a rank; use A, 2..9, T (or 10, J, Q, K), comma separated"
            )
        values.append(CARD_ALIASES[token])
    return tuple(values)


def describe_shoe(shoe: Sequence[int]) -> str:
    """The shoe's composition in words: 'A 3, 2 4, ..., T 16 (51 cards)'."""
    parts = ", ".join(f"{CARD_LABELS[v]} {shoe[v]}" for v in range(1, 11))
    return f"{parts} ({sum(shoe)} cards)"


def depleted_shoe(decks: object, removed: Iterable[int]) -> tuple[int, ...]:
    """Counts per card value (index 1..10, index 0 = 0) of a ``decks``-deck shoe less the ``removed`` values.

    A card the shoe no longer holds, or any removal from an infinite shoe, is a
    :class:`CardlabError` naming the card and what is left.
    """
    decks = parse_decks(decks)
    removed = tuple(removed)
    if decks == "inf":
        if removed:
            raise CardlabError(
                f"cannot remove {card_label(removed[0])}: an infinite shoe (--decks inf) is never depleted; "
                "use --decks 1..8"
            )
        return shoe_counts(decks)
    shoe = list(shoe_counts(decks))
    gone: list[str] = []
    for v in removed:
        if not 1 <= v <= 10:
            raise CardlabError(f"card value {v!r} is not a card; values are 1 (ace) .. 10")
        if shoe[v] == 0:
            deck_words = f"{decks}-deck"
            after = f" after removing {', '.join(gone)}" if gone else ""
            raise CardlabError(
                f"cannot remove {card_label(v)}: a {deck_words} shoe has none left{after}; left: {describe_shoe(shoe)}"
            )
        shoe[v] -= 1
        gone.append(card_label(v))
    return tuple(shoe)


@cache
def _outcomes(shoe: tuple[int, ...], upcard: int, soft17: str, infinite: bool) -> tuple[Fraction, ...]:
    """exact_outcomes memoised per (shoe, upcard, rule): the effects table asks for each full shoe ~11 times."""
    return tuple(exact_outcomes(shoe, upcard, soft17, infinite=infinite))


def shoe_table(
    shoe: Sequence[int], soft17: str = "stand", peek: str = "no", infinite: bool = False
) -> dict[str, list[Fraction] | str]:
    """Exact outcomes per upcard (2..10, A) for a shoe of counts per value 1..10 before the upcard.

    ``infinite``: the counts are weights drawn with replacement (``shoe_counts('inf')``);
    otherwise cards are dealt without replacement from exactly these counts.
    A row is a list of Fractions in OUTCOMES order, or, where the table has no row, a
    string saying why: the shoe holds no card of that value, or (peek) the dealer always
    has a natural.  A shoe too small for the dealer to finish is a :class:`CardlabError`.
    """
    soft17 = parse_choice("soft17", soft17, SOFT17)
    peek = parse_choice("peek", peek, PEEK)
    shoe = tuple(int(c) for c in shoe)
    if not infinite and sum(shoe) < 2:
        raise CardlabError(
            f"the shoe holds {sum(shoe)} card{'s' * (sum(shoe) != 1)}: a dealer's hand needs at least two; "
            "remove fewer cards"
        )
    table: dict[str, list[Fraction] | str] = {}
    for u in UPCARDS:
        v = UPCARD_VALUE[u]
        if shoe[v] < 1:
            table[u] = "none left in the shoe"
            continue
        try:
            probs = list(_outcomes(shoe, v, soft17, infinite))
        except ValueError:
            raise CardlabError(
                f"upcard {u}: the shoe can run out before the dealer finishes; left: {describe_shoe(shoe)}"
            ) from None
        if peek == "yes":
            if probs[NATURAL] == 1:
                table[u] = "the dealer always has a natural (no hand left once the dealer has peeked)"
                continue
            probs = condition_on_peek(probs)
        table[u] = probs
    return table


def depleted_table(
    decks: object = 2, soft17: str = "stand", peek: object = "no", removed: str | Iterable = ()
) -> dict[str, list[Fraction] | str]:
    """The exact table (see :func:`shoe_table`) of a ``decks``-deck shoe less the ``removed`` cards
    (card values, or ranks as :func:`parse_cards` reads them)."""
    if not isinstance(removed, str):
        removed = tuple(removed)
    if isinstance(removed, str) or any(isinstance(c, str) for c in removed):
        removed = parse_cards(removed)
    return shoe_table(depleted_shoe(decks, removed), soft17, peek, infinite=parse_decks(decks) == "inf")


def effects_of_removal(decks: Iterable[object] = EFFECT_DECKS, soft17: Iterable[str] = SOFT17) -> list[dict]:
    """Griffin's effects of removal, one dict per (decks, soft17, upcard, removed rank, outcome).

    Keys are those of :data:`EFFECT_COLUMNS`; ``*_exact`` values are Fractions here (the
    table makes them ``p/q`` strings).  Peek is always 'no'.
    """
    rows = []
    for d in decks:
        d = parse_decks(d)
        if d == "inf":
            raise CardlabError("effects of removal need a finite shoe: decks 1..8")
        full = shoe_counts(d)
        for s in soft17:
            s = parse_choice("soft17", s, SOFT17)
            for ui, u in enumerate(UPCARDS):
                base = _outcomes(full, UPCARD_VALUE[u], s, False)
                for ri in range(10):
                    shoe = list(full)
                    shoe[ri + 1] -= 1
                    after = _outcomes(tuple(shoe), UPCARD_VALUE[u], s, False)
                    for oi, outcome in enumerate(OUTCOMES):
                        rows.append(
                            {
                                "decks": d,
                                "soft17": s,
                                "peek": "no",
                                "upcard": u,
                                "upcard_order": ui,
                                "removed": REMOVED[ri],
                                "removed_order": ri,
                                "outcome": outcome,
                                "outcome_order": oi,
                                "base_probability": float(base[oi]),
                                "base_exact": base[oi],
                                "probability": float(after[oi]),
                                "exact": after[oi],
                                "delta": float(after[oi] - base[oi]),
                                "delta_exact": after[oi] - base[oi],
                            }
                        )
    return rows


def _fraction_text(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def effects_of_removal_table(decks: Iterable[object] = EFFECT_DECKS, soft17: Iterable[str] = SOFT17) -> pa.Table:
    """:func:`effects_of_removal` as the warehouse table ``blackjack_effects_of_removal``
    (columns and meanings in :data:`EFFECT_COLUMNS`; fractions as ``p/q`` strings, orders int32)."""
    import pyarrow as pa

    rows = effects_of_removal(decks, soft17)
    cols: dict[str, pa.Array] = {}
    for name in EFFECT_COLUMNS:
        values = [r[name] for r in rows]
        if name.endswith("_order"):
            cols[name] = pa.array(values, pa.int32())
        elif name in ("base_probability", "probability", "delta"):
            cols[name] = pa.array(values, pa.float64())
        elif name in ("base_exact", "exact", "delta_exact"):
            cols[name] = pa.array([_fraction_text(v) for v in values], pa.string())
        else:
            cols[name] = pa.array(values, pa.string())
    return pa.table(cols)
