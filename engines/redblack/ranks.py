"""Ranks of canonical balanced deals: the combinatorial number system, and the next deal in rank order.

A canonical deal of size k has P1's top card red (bit 0 clear); the deal is its k black
cards among the 2k - 1 positions after it, a k-subset numbered in colex order.  Deal bits
grow with the rank, so comparing deal bits compares ranks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.errors import CardlabError
from .rules import K_MAX, canonical_deals, to_str


def binomials(nmax: int = 2 * K_MAX) -> np.ndarray:
    t = np.zeros((nmax + 1, nmax + 1), dtype=np.int64)
    for n in range(nmax + 1):
        for r in range(n + 1):
            t[n, r] = math.comb(n, r)
    return t


BINOM = binomials()


@njit(cache=True)
def _unrank(rank, k, binom):
    """The rank-th k-subset of {0, 1, ...} in colex order, as a bit set (combinatorial number system)."""
    x = np.int64(0)
    for i in range(k, 0, -1):
        c = i - 1
        while binom[c + 1, i] <= rank:
            c += 1
        rank -= binom[c, i]
        x |= np.int64(1) << c
    return x


@njit(cache=True, inline="always")
def _next_subset(x):
    """Gosper's hack: the next larger integer with the same number of set bits (next in colex order)."""
    u = x & -x
    v = x + u
    return v | (((v ^ x) >> 2) >> trailing_zeros(x))


def unrank_deal(k: int, rank: int) -> tuple[str, str]:
    """The canonical balanced deal of size k with the given rank (0 <= rank < canonical_deals(k))."""
    if not 0 <= rank < canonical_deals(k):
        raise CardlabError(f"rank {rank} out of range for k={k} (0..{canonical_deals(k) - 1})")
    s = int(_unrank(np.int64(rank), k, BINOM)) << 1  # bit 0 (P1's top card) is red
    return to_str(s & ((1 << k) - 1), k), to_str(s >> k, k)
