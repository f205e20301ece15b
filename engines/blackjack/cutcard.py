"""The cut-card effect on the dealer: a shoe dealt round after round until the cut card comes out.

Model (the one statement of it; the kernel, the plain reference and the exact DP follow it)
---------------------------------------------------------------------------------------
* One shoe of ``decks`` decks (or any composition, for tests) is shuffled.  The cut card
  lies ``cut`` cards deep.
* A round deals ``players`` cards for the players (who stand, so that number is fixed),
  then the dealer's hand by the rules of :mod:`.rules` (the upcard is the dealer's first card;
  draw to 17, soft 17 by ``soft17``).  By exchangeability of a shuffled shoe the order in
  which the round's player and dealer cards are interleaved changes no law, so the players'
  cards come first.
* After a round, the shoe is reshuffled if ``cut`` or more cards have been dealt (the cut card
  has come out); otherwise the next round is dealt from what is left.
* A round started before the cut card must finish: the config is refused unless
  ``cut - 1 + players + (most cards a dealer's hand can take from the shoe) <= shoe size``.

Peek does not enter: players stand, so no card depends on whether the dealer looked for a
natural first.  The upcard is not fixed: it is whatever the shoe deals.

:func:`deal_shoe` is the plain reference of one shoe; :func:`simulate_cutcard` runs the numba
kernel over many seeded shoes (shoe i uses the splitmix64 stream (seed, i), so counts do not
depend on blocks or threads) and :func:`simulate_cutcard_py` is its plain twin.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from ..core.rng import shuffle_inplace, shuffle_py, stream_start
from ..core.threads import for_each_block
from .rules import OUTCOMES, SOFT17, dealer_stands, hand_value, outcome_index, parse_choice, play_hand
from .simulation import KERNEL_MODULES, PACKAGE, _dealer_from

N_OUT = len(OUTCOMES)
BLOCK_SHOES = 1 << 12
# extra rows of the moments array: sums over shoes of X_o^2 and X_o * Y (X_o: rounds of outcome o
# in the shoe, Y: rounds in the shoe), and of Y^2 in the last row
MOMENT_ROWS = N_OUT + 1


def deal_shoe(cards: Sequence[int], cut: int, players: int, soft17: str) -> list[tuple[list[int], list[int]]]:
    """The rounds dealt from one shuffled shoe (card values in dealing order): (players' cards, dealer's hand)."""
    pos, rounds = 0, []
    while pos < cut:
        mine = list(cards[pos : pos + players])
        pos += players

        def draw() -> int:
            nonlocal pos
            pos += 1
            return cards[pos - 1]

        hand = play_hand(draw(), draw, soft17)
        rounds.append((mine, hand))
    return rounds


def dealer_hand_sequences(shoe: Sequence[int], soft17: str) -> dict[tuple[int, ...], tuple[int, int]]:
    """Every finished dealer hand the shoe allows, as a multiset (counts per value, index 0..10),
    with its outcome and the number of value sequences that deal it (the dealer draws until the
    last card, never past it)."""
    partial: dict[tuple[int, ...], int] = {tuple([0] * 11): 1}
    done: dict[tuple[int, ...], tuple[int, int]] = {}
    while partial:
        grown: dict[tuple[int, ...], int] = defaultdict(int)
        for hand, seqs in partial.items():
            for v in range(1, 11):
                if hand[v] < shoe[v]:
                    child = list(hand)
                    child[v] += 1
                    grown[tuple(child)] += seqs
        partial = {}
        for hand, seqs in grown.items():
            values = [v for v in range(1, 11) for _ in range(hand[v])]
            total, soft = hand_value(values)
            if len(values) >= 2 and (total > 21 or dealer_stands(total, soft, soft17)):
                done[hand] = (outcome_index(values), seqs)
            else:
                partial[hand] = seqs
    return done


def max_dealer_cards(shoe: Sequence[int], soft17: str) -> int:
    """The most cards one dealer's hand can take from this shoe."""
    return max(sum(hand) for hand in dealer_hand_sequences(shoe, soft17))


def shoe_of_decks(decks: int) -> tuple[int, ...]:
    """Counts per card value (index 1..10, index 0 = 0) of ``decks`` standard decks."""
    return (0,) + (4 * decks,) * 9 + (16 * decks,)


def cut_of(decks: int, penetration: float) -> int:
    """Cards dealt before the cut card comes out at this penetration of a ``decks``-deck shoe."""
    return max(1, int(round(penetration * 52 * decks)))


def shoe_words(shoe: Sequence[int]) -> str:
    """'1 deck', '6 decks', or 'a shoe of 26 cards' for a shoe that is not whole decks."""
    size = sum(shoe)
    decks = size // 52
    if not decks or size % 52 or tuple(shoe) != shoe_of_decks(decks):
        return f"a shoe of {size} cards"
    return f"{decks} deck{'s' * (decks > 1)}"


def most_players(shoe: Sequence[int], soft17: str) -> int:
    """The most player cards a round with which some cut is valid (cut 1: one round, then the dealer's)."""
    return sum(shoe) - max_dealer_cards(shoe, soft17)


def check_cut(shoe: Sequence[int], cut: int, players: int, soft17: str, where: str = "cutcard") -> None:
    """A CardlabError unless the setting is one of the model's: players' cards 0..what the shoe allows,
    and a cut of at least 1 card at which every round started before the cut card can finish."""
    size = sum(shoe)
    most = most_players(shoe, soft17)
    if players < 0:
        raise CardlabError(f"{where}: players {players}: a round deals 0 or more player cards; use 0..{most}")
    if players > most:
        raise CardlabError(
            f"{where}: players {players}: a round of {players} player cards leaves too few cards for the dealer's "
            f"hand (up to {size - most} more) in {shoe_words(shoe)}, at any cut; use at most {most} player cards a round"
        )
    need = players + size - most
    deepest = size - need + 1
    if cut < 1:
        raise CardlabError(
            f"{where}: cut {cut}: the cut card comes out after at least 1 card; use a cut of 1..{deepest}"
        )
    if cut > deepest:
        raise CardlabError(
            f"{where}: cut {cut} leaves too few cards: a round started at card {cut - 1} may need {need} "
            f"({players} for the players, up to {need - players} for the dealer) of the {size}; "
            f"use a cut of at most {deepest} cards"
        )


def max_rounds(cut: int, players: int) -> int:
    """Rounds one shoe can deal: each takes at least players + 2 cards and starts before the cut."""
    return -(-cut // (players + 2))


def shoe_cards(shoe: Sequence[int]) -> np.ndarray:
    """The shoe's card values in a fixed order, value by value (the shuffle makes the order irrelevant)."""
    return np.array([v for v in range(1, 11) for _ in range(shoe[v])], dtype=np.int64)


@njit(cache=True, nogil=True)
def _shoes_block(b, seed, first, n_shoes, shoe, cut, players, hit17, block, counts, moments):
    """Shoes of block b of :func:`simulate_cutcard` into counts[b] (round, outcome) and moments[b]."""
    cards = shoe.copy()
    per = np.zeros(counts.shape[2], np.int64)
    lo = b * block
    hi = min(lo + block, n_shoes)
    for s in range(lo, hi):
        cards[:] = shoe  # every shoe starts from the same order, so it replays alone
        shuffle_inplace(stream_start(seed, first + s), cards)
        pos = 0
        r = 0
        per[:] = 0
        while pos < cut:
            pos += players
            pos, o = _dealer_from(cards, pos, 0, False, 0, hit17)
            counts[b, r, o] += 1
            per[o] += 1
            r += 1
        for o in range(per.shape[0]):
            moments[b, o, 0] += per[o] * per[o]
            moments[b, o, 1] += per[o] * r
        moments[b, per.shape[0], 0] += r * r


def simulate_cutcard(
    seed: int, shoe: Sequence[int], cut: int, players: int, soft17: str, shoes: int, first: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Deal shoes [first, first + shoes): counts[round - 1, outcome] and moments (:data:`MOMENT_ROWS` x 2).

    moments[o] = (sum of X_o^2, sum of X_o * Y) over shoes, moments[-1, 0] = sum of Y^2, where X_o is
    the number of rounds of outcome o in a shoe and Y its number of rounds."""
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    check_cut(shoe, cut, players, soft17)
    cards = shoe_cards(shoe)
    blocks = max(1, -(-shoes // BLOCK_SHOES))
    counts = np.zeros((blocks, max_rounds(cut, players), N_OUT), np.int64)
    moments = np.zeros((blocks, MOMENT_ROWS, 2), np.int64)
    args = (np.uint64(seed), np.int64(first), np.int64(shoes), cards, np.int64(cut), np.int64(players), hit17)
    # the kernel inlines the stream of core/rng.py: an edit there must compile it again
    with compiling_alone([_shoes_block], PACKAGE, KERNEL_MODULES, extra=["core/rng.py"]):
        for_each_block(lambda b: _shoes_block(b, *args, np.int64(BLOCK_SHOES), counts, moments), blocks)
    return counts.sum(axis=0), moments.sum(axis=0)


def simulate_cutcard_py(
    seed: int, shoe: Sequence[int], cut: int, players: int, soft17: str, shoes: int, first: int = 0
) -> tuple[list[list[int]], list[list[int]]]:
    """Plain-Python twin of :func:`simulate_cutcard` (same streams, :func:`deal_shoe` for the rounds)."""
    soft17 = parse_choice("soft17", soft17, SOFT17)
    check_cut(shoe, cut, players, soft17)
    cards = [int(v) for v in shoe_cards(shoe)]
    counts = [[0] * N_OUT for _ in range(max_rounds(cut, players))]
    moments = [[0, 0] for _ in range(MOMENT_ROWS)]
    for s in range(first, first + shoes):
        rounds = deal_shoe(shuffle_py(seed, s, cards), cut, players, soft17)
        per = [0] * N_OUT
        for r, (_, hand) in enumerate(rounds):
            counts[r][outcome_index(hand)] += 1
            per[outcome_index(hand)] += 1
        for o in range(N_OUT):
            moments[o][0] += per[o] ** 2
            moments[o][1] += per[o] * len(rounds)
        moments[N_OUT][0] += len(rounds) ** 2
    return counts, moments
