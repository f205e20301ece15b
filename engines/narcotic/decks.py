"""Dealing: the shuffled decks of a shard's games, each from its own counter-based stream.

Game i of a shard is dealt from the splitmix64 stream (seed, i), so any game can be
re-dealt alone and the decks do not depend on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.rng import shuffle_inplace, stream_start
from .rules import SUITS, VALUES


@njit(cache=True, parallel=True)
def shuffled_decks(seed, start, stop, ranks=VALUES):
    """Decks of games ``start..stop`` of a shard: game i is a Fisher-Yates shuffle
    of the fresh deck of ``ranks`` values (4 * ranks cards, ``k % ranks + 1``) driven
    by the splitmix64 stream (seed, i), so any game can be re-dealt alone and the
    result does not depend on the thread count."""
    cards = SUITS * ranks
    out = np.empty((stop - start, cards), dtype=np.uint8)
    for r in prange(stop - start):
        for k in range(cards):
            out[r, k] = k % ranks + 1
        state = stream_start(np.uint64(seed), np.int64(start + r))
        shuffle_inplace(state, out[r])
    return out


def deal_deck(seed: int, index: int, ranks: int = VALUES) -> list[int]:
    """The deck of game ``index`` in a shard with ``seed`` (seed array order)."""
    return [int(c) for c in shuffled_decks(np.uint64(seed), index, index + 1, ranks)[0]]
