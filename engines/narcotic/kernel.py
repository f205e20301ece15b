"""numba kernel of the Narcotic rules (:mod:`.rules`) on fixed arrays.

Piles are stored bottom to top; decks in the seed's array order.  Past decks
are kept in an open-addressing hash table keyed by a 64-bit hash and confirmed
by an exact comparison.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..core.rng import shuffle_inplace, stream_start
from .rules import CARDS_IN_DECK, CARDS_PER_DEAL, SECONDS_PER_DEAL, SECONDS_PER_GATHER, VALUES, Rules

_HASH_BITS = 11  # 2048 slots: games of up to 1024 passes run without a replay


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
def _pass_deal_keep(deck, n, piles, heights):
    """One pass with the seed's rules (deal matching, keep), without branches.

    Each card goes onto the pile of the first card of its value in its deal:
    b to pile 0 if b == a else 1; c to 0 if c == a, else 1 if c == b, else 2;
    d likewise.  Four equal cards are written but not kept (k = 0).  Later
    passes deal long runs of equal cards, which made a branchy version
    mispredict; the four pile heights live in one register (16 bits each)."""
    hs = np.uint64(0)
    m16 = np.uint64(0xFFFF)
    pos = n
    while pos > 0:
        a = deck[pos - 1]
        b = deck[pos - 2]
        c = deck[pos - 3]
        d = deck[pos - 4]
        pos -= 4
        eab = np.int64(a == b)
        eac = np.int64(a == c)
        ead = np.int64(a == d)
        ebc = np.int64(b == c)
        ebd = np.int64(b == d)
        ecd = np.int64(c == d)
        k = np.uint64(1 - (eab & eac & ead))
        db = 1 - eab
        dc = (1 - eac) * (2 - ebc)
        dd = (1 - ead) * (1 + (1 - ebd) * (2 - ecd))
        piles[0, np.int64(hs & m16)] = a
        hs += k
        sb = np.uint64(16 * db)
        piles[db, np.int64((hs >> sb) & m16)] = b
        hs += k << sb
        sc = np.uint64(16 * dc)
        piles[dc, np.int64((hs >> sc) & m16)] = c
        hs += k << sc
        sd = np.uint64(16 * dd)
        piles[dd, np.int64((hs >> sd) & m16)] = d
        hs += k << sd
    for p in range(4):
        heights[p] = np.int64((hs >> np.uint64(16 * p)) & m16)


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
    fast = matching == 0 and discard == 0
    while n > 0:
        if fast:
            _pass_deal_keep(deck, n, piles, heights)
        else:
            heights[:] = 0
            for pos in range(n, 0, -4):
                _deal_kernel(
                    piles, heights, deck[pos - 1], deck[pos - 2], deck[pos - 3], deck[pos - 4], matching, discard
                )
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


@njit(cache=True, parallel=True)
def play_many(decks, matching, how, discard):
    """Play every row of ``decks`` (games in parallel; each game independent)."""
    g = decks.shape[0]
    won = np.empty(g, dtype=np.bool_)
    passes = np.empty(g, dtype=np.int32)
    time_s = np.empty(g, dtype=np.int64)
    cstart = np.empty(g, dtype=np.int32)
    clen = np.empty(g, dtype=np.int32)
    for i in prange(g):
        w, p, t, s, l = play_kernel(decks[i], matching, how, discard, _HASH_BITS)
        bits = _HASH_BITS
        while w < 0:  # rare: more passes than the table holds; replay with a bigger one
            bits += 4
            w, p, t, s, l = play_kernel(decks[i], matching, how, discard, bits)
        won[i] = w == 1
        passes[i] = p
        time_s[i] = t
        cstart[i] = s
        clen[i] = l
    return won, passes, time_s, cstart, clen


@njit(cache=True, parallel=True)
def shuffled_decks(seed, start, stop):
    """Decks of games ``start..stop`` of a shard: game i is a Fisher-Yates shuffle
    of the fresh deck driven by the splitmix64 stream (seed, i), so any game can
    be re-dealt alone and the result does not depend on the thread count."""
    out = np.empty((stop - start, CARDS_IN_DECK), dtype=np.uint8)
    for r in prange(stop - start):
        for k in range(CARDS_IN_DECK):
            out[r, k] = k % VALUES + 1
        state = stream_start(np.uint64(seed), np.int64(start + r))
        shuffle_inplace(state, out[r])
    return out


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of game ``index`` in a shard with ``seed`` (seed array order)."""
    return [int(c) for c in shuffled_decks(np.uint64(seed), index, index + 1)[0]]


def play(decks: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Play many decks (rows, seed order) with the kernel."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    m, g, p = rules.codes()
    # Games differ in length a hundredfold: small dynamic chunks keep threads busy.
    with numba.parallel_chunksize(64):
        won, passes, time_s, cstart, clen = play_many(decks, m, g, p)
    return {"won": won, "passes": passes, "time_s": time_s, "cycle_start": cstart, "cycle_length": clen}
