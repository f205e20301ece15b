"""The card-by-card Narcotic kernel: one game on fixed arrays, every earlier deck remembered.

Slow but obvious, and exact for games of any length: the fast kernel (:mod:`.lanes`)
hands it the rare games it gives up on (no win and no short cycle within its pass
limit), and tests check the two against each other.  Piles are stored bottom to top,
decks in the seed's array order; past decks are kept in an open-addressing hash table
keyed by a 64-bit hash and confirmed by an exact comparison.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import CARDS_PER_DEAL, SECONDS_PER_DEAL, SECONDS_PER_GATHER

_HASH_BITS = 11  # 2048 slots: games of up to 1024 passes run without a replay
WON, LOOPED = 1, 0


@njit(cache=True, inline="always")
def _all_equal4(a, b, c, d):
    return a == b and a == c and a == d


@njit(cache=True, inline="always")
def _drop_top_four(piles, heights, i):
    h = heights[i]
    if h >= 4:
        v = piles[i, h - 1]
        if piles[i, h - 2] == v and piles[i, h - 3] == v and piles[i, h - 4] == v:
            heights[i] = h - 4


@njit(cache=True)
def _cascade_kernel(piles, heights, discard):
    while True:
        src = -1
        dst = -1
        for j in range(1, 4):
            hj = heights[j]
            if hj == 0:
                continue
            tj = piles[j, hj - 1]
            for i in range(j):
                hi = heights[i]
                if hi > 0 and piles[i, hi - 1] == tj:
                    src = j
                    dst = i
                    break
            if src >= 0:
                break
        if src < 0:
            return
        hs = heights[src] - 1
        piles[dst, heights[dst]] = piles[src, hs]
        heights[src] = hs
        heights[dst] += 1
        if discard:
            _drop_top_four(piles, heights, dst)


@njit(cache=True)
def _deal_kernel(piles, heights, c0, c1, c2, c3, matching, discard):
    if _all_equal4(c0, c1, c2, c3):
        return
    cards = (c0, c1, c2, c3)
    if matching == 0:
        # Each card joins the pile of the first card of its value in this deal;
        # appending in deal order keeps the seed's order within each pile.
        for j in range(4):
            c = cards[j]
            dest = j
            for f in range(j):
                if cards[f] == c:
                    dest = f
                    break
            piles[dest, heights[dest]] = c
            heights[dest] += 1
        if discard:
            for i in range(4):
                _drop_top_four(piles, heights, i)
    else:
        for i in range(4):
            piles[i, heights[i]] = cards[i]
            heights[i] += 1
            if discard:
                _drop_top_four(piles, heights, i)
        _cascade_kernel(piles, heights, discard)


@njit(cache=True)
def _gather_kernel(piles, heights, how, deck):
    """Write the next deck into ``deck``; returns its length.

    Copies eight bytes at a time (a fixed-length inner loop LLVM turns into
    word moves); the slack after each pile row and after the deck absorbs the
    overshoot, and the caller zeroes the deck's tail before hashing."""
    n = 0
    for k in range(4):
        p = k if how == 0 or how == 1 else 3 - k
        h = heights[p]
        for w in range(0, h, 8):
            for j in range(8):
                deck[n + w + j] = piles[p, w + j]
        n += h
    if how == 1 or how == 3:
        for k in range(n // 2):
            t = deck[k]
            deck[k] = deck[n - 1 - k]
            deck[n - 1 - k] = t
    return n


WORDS = 7  # a deck of at most 52 one-byte cards, padded to 56 bytes = 7 words
BUFFER = 64  # deck and pile rows: 52 cards plus slack for eight-byte copies


@njit(cache=True, inline="always")
def _deck_hash(words, nwords):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(nwords)
    for k in range(nwords):
        h = (h ^ words[k]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h | np.uint64(1)  # 0 marks an empty slot


@njit(cache=True)
def play_kernel(deck0, matching, how, discard, table_bits):
    """One game from ``deck0`` (seed order).

    Returns (won, passes, time_s, cycle_start, cycle_length); won is -1 when
    the game outlasts the table of past decks (2**(table_bits-1) passes), and
    the caller replays it with a bigger table.  A fixed table keeps the hot
    loop free of reallocation."""
    deck = np.zeros(BUFFER, dtype=np.uint8)
    n = deck0.shape[0]
    for k in range(n):
        deck[k] = deck0[k]
    words = deck.view(np.uint64)
    piles = np.empty((4, BUFFER), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    cap = 1 << table_bits
    mask = cap - 1
    table_hash = np.zeros(cap, dtype=np.uint64)
    table_pass = np.empty(cap, dtype=np.int64)
    # store[p-1] holds the words of the deck gathered after pass p, lens[p-1] its length
    store = np.empty((cap // 2, WORDS), dtype=np.uint64)
    lens = np.empty(cap // 2, dtype=np.int64)
    time_s = 0
    passes = 0
    while n > 0:
        heights[:] = 0
        for pos in range(n, 0, -4):
            _deal_kernel(piles, heights, deck[pos - 1], deck[pos - 2], deck[pos - 3], deck[pos - 4], matching, discard)
        time_s += n // CARDS_PER_DEAL * SECONDS_PER_DEAL
        n = _gather_kernel(piles, heights, how, deck)
        passes += 1
        if n == 0:
            time_s += SECONDS_PER_GATHER
            break
        if passes > cap // 2:
            return -1, passes, time_s, 0, 0
        for k in range(n, BUFFER):
            deck[k] = 0
        nwords = (n + 7) // 8
        h = _deck_hash(words, nwords)
        slot = np.int64(h & np.uint64(mask))
        while table_hash[slot] != 0:
            if table_hash[slot] == h:
                q = table_pass[slot]
                if lens[q - 1] == n:
                    same = True
                    for k in range(nwords):
                        if store[q - 1, k] != words[k]:
                            same = False
                            break
                    if same:
                        return 0, passes, time_s, q, passes - q
            slot = (slot + 1) & mask
        table_hash[slot] = h
        table_pass[slot] = passes
        for k in range(nwords):
            store[passes - 1, k] = words[k]
        lens[passes - 1] = n
        time_s += SECONDS_PER_GATHER
    return 1, passes, time_s, 0, 0
