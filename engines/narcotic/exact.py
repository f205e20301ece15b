"""Exact counts of small Narcotic decks: every distinct value sequence of a deck, ranked and played.

Suits never matter, so a deal of a deck of r values is a sequence of 4r values with each
value four times (the seed's array, last element dealt first): (4r)! / (4!)^r distinct
sequences, all equally likely under a uniform shuffle.  They are ranked in lexicographic
order of the array (index 0 first); a shard unranks its first sequence and steps to the
next permutation from there, so shards on a fixed grid of ranks (:mod:`engines.core.grid`)
tile the space and windows run at different times add up.  The counts (sequences, wins,
loops, sums of time and passes) give the warehouse the exact win probability and the exact
mean time of a won game as fractions (view ``narcotic_exact``).  The shard kinds that plan
and keep them: :mod:`.kinds.exhaustive`.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import factorial

import numpy as np
from numba import njit

from .canonical import arrangements, canonical_decks, orderings_per_deck
from .kernel import GAMES_PER_CALL, play
from .rules import SUITS, Rules

COUNTS = ("sequences", "won", "looped", "won_time_s", "won_time_s2", "time_s", "passes", "won_passes")


def sequence_count(ranks: int) -> int:
    """Distinct value sequences of a deck of ``ranks`` values, four of each: (4r)! / (4!)^r."""
    return factorial(SUITS * ranks) // factorial(SUITS) ** ranks


# ----------------------------------------------------------------------------- ranking (numba)


@njit(cache=True)
def _unrank(rank, ranks, out):
    """Write the sequence of lexicographic ``rank`` of a deck of ``ranks`` values into ``out`` (values 1..ranks)."""
    counts = np.full(ranks, SUITS, dtype=np.int64)
    for i in range(SUITS * ranks):
        for v in range(ranks):
            if counts[v] == 0:
                continue
            counts[v] -= 1
            below = arrangements(counts)
            if rank < below:
                out[i] = v + 1
                break
            rank -= below
            counts[v] += 1


@njit(cache=True)
def _next_sequence(a):
    """Step ``a`` to the next sequence in lexicographic order, in place; False after the last."""
    n = a.shape[0]
    i = n - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while a[j] <= a[i]:
        j -= 1
    a[i], a[j] = a[j], a[i]
    lo, hi = i + 1, n - 1
    while lo < hi:
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True)
def ranked_sequences(ranks, start, stop):
    """The sequences of ranks ``start..stop-1`` of a deck of ``ranks`` values, one a row (seed array order)."""
    out = np.empty((stop - start, SUITS * ranks), dtype=np.uint8)
    if stop <= start:
        return out
    _unrank(np.int64(start), ranks, out[0])
    for k in range(1, stop - start):
        out[k] = out[k - 1]
        _next_sequence(out[k])
    return out


# ----------------------------------------------------------------------------- counting


def exact_counts(rules: Rules, start: int, stop: int, progress=None) -> dict[str, int]:
    """Exact counts over the sequences of ranks [start, stop) of the rules' deck, each played with the kernel."""
    sums = dict.fromkeys(COUNTS, 0)
    for a in range(start, stop, GAMES_PER_CALL):
        b = min(a + GAMES_PER_CALL, stop)
        add_counts(sums, play(ranked_sequences(rules.ranks, a, b), rules, games=stop - start))
        if progress is not None:
            progress.update(b - a)
    return sums


def canonical_counts(rules: Rules, start: int, stop: int, progress=None) -> dict[str, int]:
    """Exact counts over the sequences the canonical decks of ranks [start, stop) stand for: each deck
    played once with the kernel, every count weighted by the r! sequences it stands for."""
    sums = dict.fromkeys(COUNTS, 0)
    for a in range(start, stop, GAMES_PER_CALL):
        b = min(a + GAMES_PER_CALL, stop)
        add_counts(sums, play(canonical_decks(rules.ranks, a, b), rules, games=stop - start))
        if progress is not None:
            progress.update(b - a)
    weight = orderings_per_deck(rules.ranks)
    return {c: v * weight for c, v in sums.items()}


def add_counts(sums: dict[str, int], res: Mapping[str, np.ndarray]) -> None:
    """Add one kernel call's games to the counts."""
    won = res["won"]
    sums["sequences"] += len(won)
    sums["won"] += int(won.sum())
    sums["looped"] += int((~won).sum())
    won_time = res["time_s"][won].astype(np.int64)
    sums["won_time_s"] += int(won_time.sum())
    sums["won_time_s2"] += int((won_time * won_time).sum())
    sums["time_s"] += int(res["time_s"].sum())
    sums["passes"] += int(res["passes"].astype(np.int64).sum())
    sums["won_passes"] += int(res["passes"][won].astype(np.int64).sum())
