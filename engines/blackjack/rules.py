"""Blackjack dealer outcomes: exact probabilities over the shoe and a seeded simulator.

Rules (the single place they are stated; every function below follows them)
--------------------------------------------------------------------------
* The shoe holds ``decks`` standard 52-card decks (1..8), or ``inf``: an
  infinite shoe where every draw has the composition of one fresh deck
  (each of A, 2..9 with probability 1/13, a ten-valued card 4/13).
* Tens, jacks, queens and kings are distinct ranks in the shoe but all count
  10; 2..9 count their pip value; an ace counts 11 unless that would bust the
  hand, and several aces are valued together: the hand's hard total counts
  every ace as 1, and at most one ace is raised to 11 when that keeps the
  total at 21 or less (A, A, 10 is 12, not 22).  Such a hand is *soft*.
* The dealer's upcard is given; it is removed from the shoe before the hole
  card is drawn.  The dealer then draws until the total is 17 or more;
  ``soft17 = "stand"`` stands on every 17, ``soft17 = "hit"`` draws to a soft 17.
* Outcomes: ``bust`` (hard total over 21), ``17`` .. ``21``, and ``natural``
  (21 with the first two cards, i.e. upcard and hole card).
* ``peek = "no"``: probabilities over all hands (the seed's table).
  ``peek = "yes"``: the dealer has checked for a natural (ace or ten upcard),
  so the probabilities are conditioned on the dealer not holding one.
  For other upcards the two tables are identical.

Methods
-------
* :func:`exact_table` is exact: a recursion over the dealer's hand (a multiset
  of card values, which fixes the remaining shoe) with integer weights,
  memoised on that multiset, giving :class:`fractions.Fraction` results.
* :func:`simulate` deals hands with numba kernels in two shoe modes:
  ``fresh`` (a fresh shoe for every hand; the exact table's probability space)
  and ``continuous`` (deal through one shuffled shoe until a penetration limit,
  then reshuffle, as a casino does).  Randomness comes from the counter-based
  splitmix64 streams of :mod:`engines.core.rng` keyed by (shard seed, index), so
  counts do not depend on the number of threads.
* :func:`simulate_py` is a plain-Python reference of the same algorithm (same
  seeds, same counts) and :func:`simulate_numpy` an independent vectorised one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..core.errors import CardlabError

DECKS = ("1", "2", "3", "4", "5", "6", "7", "8", "inf")
SOFT17 = ("stand", "hit")
PEEK = ("no", "yes")
SHOES = ("fresh", "continuous")

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
RANK_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in RANKS}

# Table rows: one per upcard *value* (a J upcard gives exactly the ten's row, by symmetry),
# in the seed's order 2..10 then ace.  Value 1 is the ace.
UPCARDS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")
UPCARD_VALUE = {u: (1 if u == "A" else int(u)) for u in UPCARDS}
OUTCOMES = ("bust", "17", "18", "19", "20", "21", "natural")
BUST, NATURAL = 0, 6  # outcome indices; 17..21 are total - 16

# Copies of each card value (index 1..10) in one deck; index 0 unused.
ONE_DECK = (0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16)

# At most this many cards after the upcard: each adds >= 1 to the hard total and the
# dealer stands by hard 17 at the latest (upcard ace: 1 + 16 aces would be 17).
MAX_DRAWS = 16


def parse_decks(decks: object) -> str:
    """Normalise a deck count (1..8 or 'inf') to its canonical string, or raise a clear error."""
    text = str(decks).strip().lower()
    if text in ("inf", "infinite", "infinity"):
        return "inf"
    if text.isdigit() and str(int(text)) in DECKS:
        return str(int(text))
    raise CardlabError(f"decks: {decks!r} is not allowed; allowed values: 1..8 or inf")


def parse_choice(field: str, value: object, allowed: Sequence[str]) -> str:
    """A rule value from config or the command line; YAML turns yes/no into booleans, so map those back."""
    if isinstance(value, bool) and tuple(allowed) == PEEK:
        value = "yes" if value else "no"
    text = str(value).strip().lower()
    if text not in allowed:
        raise CardlabError(f"{field}: {value!r} is not allowed; allowed values: {', '.join(allowed)}")
    return text


def shoe_counts(decks: str) -> tuple[int, ...]:
    """Copies of each card value (index 1..10) in the shoe; for 'inf', one deck's weights."""
    n = 1 if decks == "inf" else int(decks)
    return tuple(c * n for c in ONE_DECK)


def hand_value(values: Iterable[int]) -> tuple[int, bool]:
    """(total, soft) of a hand of card values (ace = 1): all aces are valued together.

    Counting every ace as 1 gives the hard total; one ace (never two: 22 > 21)
    is raised to 11 when that does not bust.  This is what the seed's buggy
    scorers got wrong by valuing aces one at a time.
    """
    hard, ace = 0, False
    for v in values:
        hard += v
        ace = ace or v == 1
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def dealer_stands(total: int, soft: bool, soft17: str) -> bool:
    """Whether the dealer stops drawing at this total."""
    if total > 17:
        return True
    if total == 17:
        return not (soft and soft17 == "hit")
    return False


def outcome_index(values: Sequence[int]) -> int:
    """Index into OUTCOMES of a finished dealer hand (upcard first)."""
    total, _ = hand_value(values)
    if total > 21:
        return BUST
    if total == 21 and len(values) == 2:
        return NATURAL
    return total - 16


def play_hand(upcard: int, draw: Callable[[], int], soft17: str) -> list[int]:
    """The dealer's finished hand: the upcard, then cards from ``draw()`` until the dealer stands."""
    hand = [upcard]
    while True:
        total, soft = hand_value(hand)
        if total > 21 or dealer_stands(total, soft, soft17):
            return hand
        hand.append(draw())
