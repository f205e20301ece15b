"""The lane scheduler of the fast Narcotic kernel: two games side by side per thread, loops found in a ring.

A game keeps its last RING decks in a ring of rows (ROW bytes, zero past the deck);
a pass reads row p-1 and writes row p.  A loop is found by comparing a 64-bit
fingerprint of the new deck with those of the RING-1 decks before it (every cycle
length seen in millions of games is below 25), and confirmed by an exact comparison;
a game that runs past _PASS_LIMIT passes without a win or a short cycle is replayed
by :func:`.replay.play_kernel`, which compares with every earlier deck.  One pass is
a chain of dependent vector steps, so two games (lanes) interleave to keep the core
busy; blocks of games run in parallel threads.
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from ..core.threads import for_each_range
from .cascade import _cascade_pass
from .deal_pass import _scalar_pass, _vector_pass
from .intrinsics import _count_equal, _fingerprint, _rows_equal
from .ir import RING, ROW
from .replay import _HASH_BITS, LOOPED, WON, play_kernel
from .rules import CARDS_PER_DEAL, SECONDS_PER_DEAL, SECONDS_PER_GATHER

_PASS_LIMIT = 4096
_LANES = 2  # games played side by side: one pass is a chain of dependent vector steps
_BLOCK = 128  # games per work unit of a thread (buffers are allocated per unit)


@njit(cache=True)
def _find_repeat(ring, fps, lane, p, fp):
    """The smallest j < RING with deck p-j == deck p, or 0."""
    base = lane * RING
    dst = base + (p & (RING - 1))
    for j in range(1, RING):
        q = (p - j) & (RING - 1)
        if fps[lane, q] == fp and _rows_equal(ring, base + q, dst):
            return j
    return 0


@njit(cache=True)
def _start_game(decks, i, ring, fps, lane):
    """Deck i (a row of 4r cards, r values) into the lane's first ring row, zero after it:
    the passes read zeros as "four equal cards", which vanish."""
    base = lane * RING
    cards = decks.shape[1]
    for k in range(cards):
        ring[base, k] = decks[i, k]
    for k in range(cards, ROW):
        ring[base, k] = 0
    for k in range(RING):
        fps[lane, k] = 0  # the initial deck is not recorded


@njit(cache=True)
def _play_lanes(decks, lo, hi, matching, how, discard, ring, fps, piles, heights, out):
    """Play games lo..hi-1, _LANES at a time in turn (their passes overlap in the CPU).

    ``out`` columns: won (1, 0, or -1 = replay with play_kernel), passes,
    time_s, cycle_start, cycle_length."""
    game = np.full(_LANES, -1, dtype=np.int64)
    passes = np.zeros(_LANES, dtype=np.int64)
    length = np.zeros(_LANES, dtype=np.int64)
    time_s = np.zeros(_LANES, dtype=np.int64)
    nxt = lo
    active = 0
    for lane in range(_LANES):
        if nxt < hi:
            _start_game(decks, nxt, ring, fps, lane)
            game[lane], passes[lane], length[lane], time_s[lane] = nxt, 0, decks.shape[1], 0
            nxt += 1
            active += 1
    while active > 0:
        for lane in range(_LANES):
            g = game[lane]
            if g < 0:
                continue
            p = passes[lane]
            base = lane * RING
            src, dst = base + (p & (RING - 1)), base + ((p + 1) & (RING - 1))
            if matching == 0:
                m = _vector_pass(ring, src, dst, how, discard)
                if m >= 256:  # rare: piles the vector pass leaves to the card-by-card rule
                    m = _scalar_pass(ring, src, dst, length[lane], how, discard, piles, heights)
            else:
                m = _cascade_pass(ring, src, dst, length[lane], how, discard, piles, heights)
            p += 1
            t = time_s[lane] + length[lane] // CARDS_PER_DEAL * SECONDS_PER_DEAL
            result = -2
            if m == 0:
                result, t = WON, t + SECONDS_PER_GATHER
                j = 0
            else:
                fp = _fingerprint(ring, base + (p & (RING - 1)))
                fps[lane, p & (RING - 1)] = fp
                j = 0
                if _count_equal(fps, lane, fp) > 1:
                    j = _find_repeat(ring, fps, lane, p, fp)
                if j > 0:
                    result = LOOPED
                elif p >= _PASS_LIMIT:
                    result = -1
            if result == -2:
                passes[lane], length[lane], time_s[lane] = p, m, t + SECONDS_PER_GATHER
                continue
            out[g, 0], out[g, 1], out[g, 2], out[g, 3], out[g, 4] = result, p, t, p - j if j else 0, j
            if nxt < hi:
                _start_game(decks, nxt, ring, fps, lane)
                game[lane], passes[lane], length[lane], time_s[lane] = nxt, 0, decks.shape[1], 0
                nxt += 1
            else:
                game[lane] = -1
                active -= 1


@njit(cache=True, nogil=True)
def _play_block(decks, lo, hi, matching, how, discard, out):
    """Games lo..hi-1 with buffers of their own."""
    ring = np.zeros((_LANES * RING, ROW), dtype=np.uint8)
    fps = np.zeros((_LANES, RING), dtype=np.uint64)
    piles = np.zeros((4, ROW), dtype=np.uint8)
    heights = np.zeros(4, dtype=np.int64)
    _play_lanes(decks, lo, hi, matching, how, discard, ring, fps, piles, heights, out)
    for g in range(lo, hi):
        if out[g, 0] < 0:  # rare: no win and no cycle shorter than RING within _PASS_LIMIT passes
            bits = _HASH_BITS
            w, p, t, s, l = play_kernel(decks[g], matching, how, discard, bits)
            while w < 0:
                bits += 4
                w, p, t, s, l = play_kernel(decks[g], matching, how, discard, bits)
            out[g, 0], out[g, 1], out[g, 2], out[g, 3], out[g, 4] = w, p, t, s, l


@njit(cache=True, nogil=True)
def _play_block_specialised(decks, lo, hi, matching, how, discard, out):
    """:func:`_play_block` with the rule codes compiled in as constants: one specialisation
    per rule combination, each cached apart (a compile each; faster where the rules'
    branches in the inner loops cost time)."""
    literally(matching)
    literally(how)
    literally(discard)
    _play_block(decks, lo, hi, matching, how, discard, out)


def block_kernel(specialised: bool):
    """The compiled block of games :func:`play_many` runs: shared by every rule combination,
    or specialised to the rules it is called with."""
    return _play_block_specialised if specialised else _play_block


def play_many(decks: np.ndarray, matching: int, how: int, discard: int, specialised: bool = False) -> np.ndarray:
    """Play every row of ``decks`` (blocks of games on numba's thread count; each game
    independent), a deck of 4r cards (r values: the row's width, 4 to 52).

    Returns one row per game: won (1, 0), passes, time_s, cycle_start, cycle_length.
    The rule codes are plain integers: one compiled kernel plays every rule combination,
    or, ``specialised``, one compiled per combination with them as constants."""
    g = decks.shape[0]
    out = np.empty((g, 5), dtype=np.int64)
    kernel = specialised_entry(matching, how, discard) if specialised else _play_block
    for_each_range(lambda lo, hi: kernel(decks, lo, hi, matching, how, discard, out), g, _BLOCK)
    return out


_ENTRIES: dict[tuple[int, int, int], object] = {}


def specialised_entry(matching: int, how: int, discard: int):
    """The compiled :func:`_play_block_specialised` for these rule codes, to call directly.

    Numba dispatches a function that asks for literal arguments by resolving them again on
    every call, about 9 ms: on blocks of _BLOCK games that is 8x the games' own time (a
    10^8-game campaign shard would play 10,600 games/s instead of 90,000).  The compiled
    specialisation's entry point takes the same arguments and results, in microseconds."""
    key = (int(matching), int(how), int(discard))
    entry = _ENTRIES.get(key)
    if entry is None:
        empty = np.zeros((0, 5), dtype=np.int64)
        _play_block_specialised(np.zeros((0, 52), dtype=np.uint8), 0, 0, *key, empty)  # compile or load
        for sig, cres in _play_block_specialised.overloads.items():
            if tuple(getattr(t, "literal_value", None) for t in sig[3:6]) == key:
                entry = _ENTRIES[key] = cres.entry_point
                break
        else:
            raise RuntimeError(f"no compiled specialisation of the Narcotic block kernel for rule codes {key}")
    return entry
