"""Dealing: the shuffled decks of a shard's games, each from its own counter-based stream.

Game i of a shard is dealt from the splitmix64 stream (seed, i), so any game can be
re-dealt alone and the decks do not depend on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.rng import shuffle_inplace, stream_start
from ..core.threads import for_each_range
from .rules import SUITS, VALUES

DEAL_BLOCK = 4096  # decks per block of work on a thread


def shuffled_decks(seed, start: int, stop: int, ranks: int = VALUES) -> np.ndarray:
    """Decks of games ``start..stop`` of a shard: game i is a Fisher-Yates shuffle
    of the fresh deck of ``ranks`` values (4 * ranks cards, ``k % ranks + 1``) driven
    by the splitmix64 stream (seed, i), so any game can be re-dealt alone and the
    result does not depend on the thread count."""
    out = np.empty((stop - start, SUITS * ranks), dtype=np.uint8)
    seed, ranks = np.uint64(seed), np.int64(ranks)
    for_each_range(lambda lo, hi: _deal_rows(seed, np.int64(start + lo), ranks, out[lo:hi]), len(out), DEAL_BLOCK)
    return out


@njit(cache=True, nogil=True)
def _deal_rows(seed, first, ranks, out):
    """Row r of ``out``: the deck of game first + r."""
    for r in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[r, k] = k % ranks + 1
        shuffle_inplace(stream_start(seed, first + r), out[r])


def deal_deck(seed: int, index: int, ranks: int = VALUES) -> list[int]:
    """The deck of game ``index`` in a shard with ``seed`` (seed array order)."""
    return [int(c) for c in shuffled_decks(np.uint64(seed), index, index + 1, ranks)[0]]
