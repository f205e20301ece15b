"""Canonical Narcotic decks: one value sequence for each class of r! that differ only by a renaming of values.

The rules compare cards only for equality of value (a deal's matches, the pile tops, four
equal cards, a repeated deck), so renaming the values of a deck by a permutation of 1..r
renames every later deck the same way and changes nothing a game counts: time, passes, won
or looped, the cycle (tests/narcotic/test_canonical.py checks it for all sixteen rule
combinations).  Every value appears four times, so no renaming but the identity fixes a
sequence: the (4r)!/(4!)^r sequences fall into classes of exactly r! each, and one deck of
each class stands for all of them.

A sequence (the seed's array, index 0 first) is *canonical* when its values first appear
in the order 1, 2, ..., r (reading from index 0): a restricted growth string with every
value four times.  There are (4r)! / (4!^r r!) of them (r = 4: 2,627,625; 5: 2,546,168,625;
6: 4,509,264,634,875).  They are ranked in lexicographic order, a subsequence of the plain
enumeration's order (:mod:`.exact`); a shard unranks its first deck and steps to the next
canonical one, so shards on a fixed rank grid tile the decks.  Every count below fits
a 64-bit integer for r <= 6.
"""

from __future__ import annotations

from math import factorial

import numpy as np
from numba import njit

from .rules import SUITS

MAX_CANONICAL_RANKS = 6  # the largest deck whose counts (and plain sequence count) fit 64-bit ranks


def canonical_count(ranks: int) -> int:
    """Canonical decks of ``ranks`` values: (4r)! / (4!^r r!)."""
    return factorial(SUITS * ranks) // (factorial(SUITS) ** ranks * factorial(ranks))


def orderings_per_deck(ranks: int) -> int:
    """The value sequences one canonical deck stands for: r!."""
    return factorial(ranks)


@njit(cache=True)
def arrangements(counts):
    """Distinct sequences of the multiset with ``counts[v]`` cards of value v: (sum)! / prod(counts!).

    Built as a product of binomials, each step an exact integer below 2^63 for decks up to
    MAX_EXACT_RANKS values (engines/narcotic/kinds/exhaustive.py)."""
    m = np.int64(1)
    s = np.int64(0)
    for v in range(counts.shape[0]):
        for j in range(1, counts[v] + 1):
            s += 1
            m = m * s // j
    return m


@njit(cache=True)
def _factorial(n):
    f = np.int64(1)
    for j in range(2, n + 1):
        f *= j
    return f


@njit(cache=True)
def _completions(counts, opened, ranks):
    """Canonical completions of a prefix that has opened ``opened`` values and left ``counts`` cards:
    the remaining multiset's sequences divided by the (r - opened)! orders of the values not yet seen
    (they are interchangeable, four cards each, and must first appear in increasing order)."""
    return arrangements(counts) // _factorial(ranks - opened)


@njit(cache=True)
def unrank_canonical(rank, ranks, out):
    """Write the canonical deck of lexicographic ``rank`` of a deck of ``ranks`` values into ``out`` (values 1..r)."""
    counts = np.full(ranks, SUITS, dtype=np.int64)
    opened = 0
    for i in range(SUITS * ranks):
        top = opened + 1 if opened < ranks else ranks
        for v in range(top):
            if counts[v] == 0:
                continue
            counts[v] -= 1
            now = opened + 1 if v == opened else opened
            below = _completions(counts, now, ranks)
            if rank < below:
                out[i] = v + 1
                opened = now
                break
            rank -= below
            counts[v] += 1


@njit(cache=True)
def rank_canonical(a, ranks):
    """The lexicographic rank of canonical deck ``a`` (values 1..r) among the canonical decks."""
    counts = np.full(ranks, SUITS, dtype=np.int64)
    opened = 0
    rank = np.int64(0)
    for i in range(SUITS * ranks):
        c = a[i] - 1
        for v in range(c):
            if counts[v] == 0:
                continue
            counts[v] -= 1
            rank += _completions(counts, opened + 1 if v == opened else opened, ranks)
            counts[v] += 1
        counts[c] -= 1
        if c == opened:
            opened += 1
    return rank


@njit(cache=True)
def next_canonical(a, ranks):
    """Step canonical deck ``a`` to the next one in lexicographic order, in place; False after the last.

    From the right, the first position that can take a larger value (an opened value with a card
    left to its right, or the next new value), then the smallest canonical completion after it."""
    n = a.shape[0]
    opened_before = np.empty(n, dtype=np.int64)  # values opened by a[0..i-1]: their maximum
    m = 0
    for i in range(n):
        opened_before[i] = m
        if a[i] > m:
            m = a[i]
    left = np.zeros(ranks + 2, dtype=np.int64)  # cards of each value at positions i..n-1
    for i in range(n - 1, -1, -1):
        left[a[i]] += 1
        k = opened_before[i]
        v = a[i] + 1
        while v <= k and left[v] == 0:
            v += 1
        if v > k + 1 or (v == k + 1 and k == ranks):
            continue
        a[i] = v
        left[v] -= 1
        m = k if k > v else v
        for j in range(i + 1, n):
            u = 1
            while u <= m and left[u] == 0:
                u += 1
            if u > m:
                m += 1
            a[j] = u
            left[u] -= 1
        return True
    return False


@njit(cache=True)
def canonical_decks(ranks, start, stop):
    """The canonical decks of ranks ``start..stop-1`` of a deck of ``ranks`` values, one a row (seed array order)."""
    out = np.empty((max(stop - start, 0), SUITS * ranks), dtype=np.uint8)
    if stop <= start:
        return out
    unrank_canonical(np.int64(start), ranks, out[0])
    for k in range(1, stop - start):
        out[k] = out[k - 1]
        next_canonical(out[k], ranks)
    return out


@njit(cache=True)
def canonicalise(decks):
    """Each row renamed so that its values first appear (from index 0) in the order 1, 2, ...: its canonical deck."""
    out = np.empty_like(decks)
    name = np.zeros(256, dtype=np.uint8)
    for g in range(decks.shape[0]):
        name[:] = 0
        nxt = 1
        for i in range(decks.shape[1]):
            v = decks[g, i]
            if name[v] == 0:
                name[v] = nxt
                nxt += 1
            out[g, i] = name[v]
    return out


def renamings(deck: np.ndarray, ranks: int) -> np.ndarray:
    """Every renaming of one deck's values by a permutation of 1..r: the r! sequences it stands for, one a row."""
    from itertools import permutations

    perms = np.array(list(permutations(range(1, ranks + 1))), dtype=np.uint8)  # perm[v - 1]: new name of v
    return perms[:, np.asarray(deck, dtype=np.int64) - 1]
