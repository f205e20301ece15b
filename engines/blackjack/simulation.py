"""Seeded simulation of dealer hands: numba kernels (fresh and continuous shoe) and two plain references."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from ..core.rng import bounded, bounded_py, shuffle_inplace, shuffle_py, stream_start, stream_start_py
from ..core.threads import for_each_block
from .rules import (
    BUST,
    MAX_DRAWS,
    NATURAL,
    RANK_VALUE,
    RANKS,
    SHOES,
    SOFT17,
    outcome_index,
    parse_choice,
    parse_decks,
    play_hand,
)


@njit(cache=True, inline="always")
def _outcome_of(hard: np.int64, ace: bool, ncards: np.int64) -> np.int64:
    if hard > 21:
        return 0
    total = hard + 10 if (ace and hard <= 11) else hard
    if total == 21 and ncards == 2:
        return 6
    return total - 16


@njit(cache=True, inline="always")
def _keeps_drawing(hard: np.int64, ace: bool, hit17: bool) -> bool:
    if hard > 21:
        return False
    soft = ace and hard <= 11
    total = hard + 10 if soft else hard
    if total < 17:
        return True
    return total == 17 and soft and hit17


@njit(cache=True, inline="always")
def _dealer_from(cards: np.ndarray, pos: np.int64, hard: np.int64, ace: bool, ncards: np.int64, hit17: bool):
    """The dealer draws cards[pos], cards[pos + 1], ... to a hand of ``hard`` (``ncards`` cards so far)
    until the rules stand: (the next card's position, the hand's outcome index)."""
    while _keeps_drawing(hard, ace, hit17):
        v = cards[pos]
        pos += 1
        hard += v
        ace = ace or v == 1
        ncards += 1
    return pos, _outcome_of(hard, ace, ncards)


def deal_fresh(
    seed: np.uint64,
    stream_base: np.int64,
    first: np.int64,
    n_hands: np.int64,
    upcard: np.int64,
    shoe: np.ndarray,
    infinite: bool,
    hit17: bool,
    block: np.int64,
) -> np.ndarray:
    """Outcome counts of hands [first, first + n_hands) with a fresh shoe each.

    ``shoe`` holds the card values left after removing the upcard (for an
    infinite shoe: one deck, drawn with replacement).  Hand i uses stream
    (seed, stream_base + i) and draws by partial Fisher-Yates from the tail of
    the array; the swaps are undone afterwards, so each hand is a function of
    its stream alone and replays the same in any block or thread.
    """
    out = np.zeros(((n_hands + block - 1) // block, 7), np.int64)
    for_each_block(
        lambda b: _fresh_block(b, seed, stream_base, first, n_hands, upcard, shoe, infinite, hit17, block, out),
        len(out),
    )
    return out.sum(axis=0)


@njit(cache=True, nogil=True)
def _fresh_block(b, seed, stream_base, first, n_hands, upcard, shoe, infinite, hit17, block, out):
    """Block b of :func:`deal_fresh`'s hands into row b of ``out``."""
    cards = shoe.copy()
    swaps = np.empty(MAX_DRAWS, np.int64)
    size = cards.shape[0]
    lo = b * block
    hi = min(lo + block, n_hands)
    for h in range(lo, hi):
        state = stream_start(seed, stream_base + first + h)
        hard = upcard
        ace = upcard == 1
        ncards = 1
        left = size
        while _keeps_drawing(hard, ace, hit17):
            state, j = bounded(state, left)
            v = cards[j]
            if not infinite:
                left -= 1
                cards[j] = cards[left]
                cards[left] = v
                swaps[ncards - 1] = j
            hard += v
            ace = ace or v == 1
            ncards += 1
        if not infinite:  # undo in reverse order: the array is back to the shoe's order
            for k in range(ncards - 2, -1, -1):
                j = swaps[k]
                top = size - 1 - k
                t = cards[j]
                cards[j] = cards[top]
                cards[top] = t
        out[b, _outcome_of(hard, ace, ncards)] += 1


def deal_continuous(
    seed: np.uint64,
    stream_base: np.int64,
    first_block: np.int64,
    n_hands: np.int64,
    upcard: np.int64,
    shoe: np.ndarray,
    hit17: bool,
    cut: np.int64,
    block: np.int64,
) -> np.ndarray:
    """Outcome counts of ``n_hands`` hands dealt in sequence through shuffled shoes.

    Hands are cut into blocks of ``block``; each block starts a new shoe, and
    its k-th shuffle uses stream (seed, stream_base + (block << 24) + k).  A
    shoe is reshuffled before a hand once ``cut`` cards are dealt, or when
    fewer than MAX_DRAWS + 1 remain (so a hand never runs out of cards).
    """
    out = np.zeros(((n_hands + block - 1) // block, 7), np.int64)
    for_each_block(
        lambda b: _continuous_block(b, seed, stream_base, first_block, n_hands, upcard, shoe, hit17, cut, block, out),
        len(out),
    )
    return out.sum(axis=0)


@njit(cache=True, nogil=True)
def _continuous_block(b, seed, stream_base, first_block, n_hands, upcard, shoe, hit17, cut, block, out):
    """Block b of :func:`deal_continuous`'s hands (a shoe of its own) into row b of ``out``."""
    cards = shoe.copy()
    size = cards.shape[0]
    base = stream_base + ((first_block + b) << 24)
    shuffles = 0
    pos = size  # forces a shuffle before the first hand
    lo = b * block
    hi = min(lo + block, n_hands)
    for h in range(lo, hi):
        if pos >= cut or size - pos <= MAX_DRAWS:
            cards[:] = shoe  # every shoe starts from the same order, so it replays alone
            shuffle_inplace(stream_start(seed, base + shuffles), cards)
            shuffles += 1
            pos = 0
        pos, outcome = _dealer_from(cards, pos, upcard, upcard == 1, 1, hit17)
        out[b, outcome] += 1


# Stream indices: the upcard value sits in the top bits so every upcard has its own streams.
def _stream_base(upcard: int) -> int:
    return upcard << 56


def shoe_after_upcard(decks: str, upcard: int) -> np.ndarray:
    """The card values left in a fresh shoe once the upcard is out (ranks T/J/Q/K all give 10),
    in a fixed order: deck by deck, suit by suit, rank by rank."""
    n = 1 if decks == "inf" else int(decks)
    values = [RANK_VALUE[r] for _ in range(n) for _suit in range(4) for r in RANKS]
    if decks != "inf":
        values.remove(upcard)  # first card of that value; which copy is irrelevant
    return np.array(values, dtype=np.int64)


def penetration_cut(decks: str, penetration: float) -> int:
    """Cards dealt from a shoe (of decks*52 less the upcard) before it is reshuffled."""
    size = 52 * int(decks) - 1
    return max(1, min(size, int(round(penetration * size))))


# modules with compiled code (numba checks a cache against its entry point's file only); one
# list for every kernel of the package, since they share one mark of the caches' version
# (two lists would each find the other's mark stale and drop the caches at every call)
KERNEL_MODULES = ("rules", "simulation", "cutcard")
PACKAGE = Path(__file__).parent
BLOCK_FRESH = 1 << 16
BLOCK_CONTINUOUS = 1 << 16


def simulate(
    seed: int,
    upcard: int,
    decks: object,
    soft17: str,
    shoe_mode: str,
    hands: int,
    first: int = 0,
    penetration: float = 0.75,
    block: int | None = None,
) -> np.ndarray:
    """Outcome counts (OUTCOMES order) for ``hands`` dealer hands with one upcard value.

    ``first`` is the index of the first hand (fresh) or must be a multiple of
    the block size (continuous), so that shards of one experiment use disjoint streams.
    ``block`` (hands per parallel task) changes nothing for fresh shoes; for
    continuous shoes it is where a new shoe starts, so it is part of the experiment.
    """
    decks = parse_decks(decks)
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    shoe_mode = parse_choice("shoe", shoe_mode, SHOES)
    shoe = shoe_after_upcard(decks, upcard)
    base = _stream_base(upcard)
    if shoe_mode == "fresh":
        deal, kernel = deal_fresh, _fresh_block
        args = (np.int64(first), np.int64(hands), np.int64(upcard), shoe, decks == "inf", hit17)
        args += (np.int64(block or BLOCK_FRESH),)
    else:
        if decks == "inf":
            raise CardlabError("shoe: continuous dealing needs a finite shoe (decks 1..8), not inf")
        block = block or BLOCK_CONTINUOUS
        if first % block:
            raise ValueError("continuous shards must start on a block boundary")
        deal, kernel = deal_continuous, _continuous_block
        args = (np.int64(first // block), np.int64(hands), np.int64(upcard), shoe, hit17)
        args += (np.int64(penetration_cut(decks, penetration)), np.int64(block))
    # the kernels inline the stream of core/rng.py: an edit there must compile them again
    with compiling_alone([kernel], PACKAGE, KERNEL_MODULES, extra=["core/rng.py"]):
        return deal(np.uint64(seed), np.int64(base), *args)


# --------------------------------------------------------------------------- plain references


def simulate_py(
    seed: int,
    upcard: int,
    decks: object,
    soft17: str,
    shoe_mode: str,
    hands: int,
    first: int = 0,
    penetration: float = 0.75,
    block: int | None = None,
) -> list[int]:
    """Plain-Python reference of :func:`simulate`: the same streams and draws, so the same counts.

    Written from the rules (``play_hand``/``outcome_index``), not from the kernel's
    incremental totals; a fresh hand draws from a list without replacement.
    """
    decks = parse_decks(decks)
    soft17 = parse_choice("soft17", soft17, SOFT17)
    shoe = [int(v) for v in shoe_after_upcard(decks, upcard)]
    base = _stream_base(upcard)
    counts = [0] * 7
    if shoe_mode == "fresh":
        for h in range(first, first + hands):
            state = stream_start_py(seed, base + h)
            cards = list(shoe)

            def draw() -> int:
                nonlocal state
                state, j = bounded_py(state, len(cards))
                if decks == "inf":
                    return cards[j]
                cards[j], cards[-1] = cards[-1], cards[j]
                return cards.pop()

            counts[outcome_index(play_hand(upcard, draw, soft17))] += 1
        return counts
    block = BLOCK_CONTINUOUS if block is None else block
    cut = penetration_cut(decks, penetration)
    for b0 in range(0, hands, block):
        b = first // block + b0 // block
        stream = base + (b << 24)
        shuffles, cards, pos = 0, [], len(shoe)
        for _ in range(b0, min(b0 + block, hands)):
            if pos >= cut or len(shoe) - pos <= MAX_DRAWS:
                cards = shuffle_py(seed, stream + shuffles, shoe)
                shuffles += 1
                pos = 0

            def draw() -> int:
                nonlocal pos
                pos += 1
                return cards[pos - 1]

            counts[outcome_index(play_hand(upcard, draw, soft17))] += 1
    return counts


def simulate_numpy(rng: np.random.Generator, upcard: int, decks: object, soft17: str, hands: int) -> np.ndarray:
    """An independent vectorised fresh-shoe simulator (numpy Generator): the bench's baseline.

    All hands advance one card at a time; a hand draws uniform positions in the
    shoe and redraws a position it already holds, which is sampling without
    replacement.
    """
    decks = parse_decks(decks)
    hit17 = parse_choice("soft17", soft17, SOFT17) == "hit"
    shoe = shoe_after_upcard(decks, upcard)
    size = shoe.shape[0]
    hard = np.full(hands, upcard, np.int64)
    ace = np.full(hands, upcard == 1)
    ncards = np.ones(hands, np.int64)
    held = np.full((hands, MAX_DRAWS), -1, np.int64)
    active = np.arange(hands)
    for step in range(MAX_DRAWS):
        soft = ace[active] & (hard[active] <= 11)
        total = np.where(soft, hard[active] + 10, hard[active])
        go = (hard[active] <= 21) & ((total < 17) | ((total == 17) & soft & hit17))
        active = active[go]
        if active.size == 0:
            break
        pos = rng.integers(0, size, active.size)
        if decks != "inf":
            while True:
                clash = (held[active, :step] == pos[:, None]).any(axis=1)
                if not clash.any():
                    break
                pos[clash] = rng.integers(0, size, int(clash.sum()))
            held[active, step] = pos
        v = shoe[pos]
        hard[active] += v
        ace[active] |= v == 1
        ncards[active] += 1
    total = np.where(ace & (hard <= 11), hard + 10, hard)
    out = np.where(hard > 21, BUST, np.where((total == 21) & (ncards == 2), NATURAL, total - 16))
    return np.bincount(out, minlength=7)
