"""The owner rule: a deal stops as soon as a smaller deal provably passes through the same state.

Deals are numbered by rank, and the canonical deal bits grow with the rank (colex
order is the order of the bit strings), so comparing bits compares ranks.  A deal d
stops at a state reached after at least one round when that state has a balanced
predecessor (one round backwards, both hands k cards) whose canonical form is a
smaller deal: that deal's game passes the same states.  The smallest deal that
reaches a state is never stopped before it (the deal that stopped it would be
smaller and pass the state too), so every cycle reachable from a balanced deal is
still found, by the smallest deal of its basin; the infinite deals are exactly the
balanced deals in those cycles' basins (:mod:`.basins`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernel import _mask, _round
from .rules import LEADER_OUT, deal_strings, to_bits

NO_DEAL = np.iinfo(np.int64).max  # stands for a missing predecessor: never a smaller deal


@njit(cache=True, inline="always")
def _balanced_predecessors(W, a, X, n, k):
    """Deal bits of the predecessors of (W, a cards; X, n-a cards) with k cards each (or NO_DEAL).

    The colours must be renamed so the last round's colour is red: X ends with its pile
    (reds, then a black card) and must be clean above its length; W need not be.  These
    are the piles of m = 2(k-a) cards (the leader kept the lead) and m = 2(k-a)+1 (the
    other player led and lost) in `_predecessors`: the first exists iff bits a..n-a-2 of
    X are red, the second iff bit a-1 is red too.  Both give player 1 a red top card, so
    they are canonical deals.
    """
    # for a >= k, X >> a is 0 (X has at most k cards) and never equals a power of two
    if (X >> a) != (np.int64(1) << ((n - 1 - 2 * a) & 63)):
        return NO_DEAL, NO_DEAL
    w = W & _mask(a)
    rest = X & _mask(a)
    kept = (w << (k - a)) | (np.int64(1) << (n - a - 1)) | (rest << (n - a))
    if (rest >> (a - 1)) & 1:
        return kept, NO_DEAL
    return kept, (np.int64(1) << (k - a)) | ((rest & _mask(a - 1)) << (k - a + 1)) | (w << (n - a))


@njit(cache=True, inline="always")
def _owner_stops(W, a, X, n, k, d):
    """Whether the state (renamed colours, as for `_balanced_predecessors`) is reached by a smaller deal than d."""
    kept, lost = _balanced_predecessors(W, a, X, n, k)
    return min(kept, lost) < d


@njit(cache=True, inline="always")
def _balanced_predecessors_true_colours(W, a, X, b, k):
    """`_balanced_predecessors` for a state in its true colours (as `_round` returns it)."""
    cm = -(1 - ((X >> (b - 1)) & 1))  # all ones when the last round's colour was black
    return _balanced_predecessors(W ^ cm, a, (X ^ cm) & _mask(b), a + b, k)


@njit(cache=True, inline="always")
def _owner_stops_true_colours(W, a, X, b, k, d):
    kept, lost = _balanced_predecessors_true_colours(W, a, X, b, k)
    return min(kept, lost) < d


@njit(cache=True)
def _owner_play(s, k):
    """Play deal s under the owner rule with Brent's check: (rounds, reduced period or 0, stopped)."""
    L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
    tL, ta, tO = L, a, O
    power = 1
    lam = 1
    rounds = 0
    while True:
        L, a, O, b, st = _round(L, a, O, b)
        rounds += 1
        if st >= LEADER_OUT:
            return rounds, 0, False
        if _owner_stops_true_colours(L, a, O, b, k, s):
            return rounds, 0, True
        if L == tL and O == tO and a == ta:
            return rounds, lam, False
        if power == lam:
            tL, ta, tO = L, a, O
            power <<= 1
            lam = 0
        lam += 1


@njit(cache=True)
def _balanced_predecessors_py(W, a, X, b, k):
    return _balanced_predecessors_true_colours(W, a, X, b, k)


def balanced_predecessors(leader: str, other: str) -> list[tuple[str, str]]:
    """The owner rule's O(1) test: predecessors of a state that are balanced deals, canonical."""
    n = len(leader) + len(other)
    if n % 2 or not leader or not other:
        return []
    kept, lost = _balanced_predecessors_py(
        np.int64(to_bits(leader)), np.int64(len(leader)), np.int64(to_bits(other)), np.int64(len(other)), n // 2
    )
    return [deal_strings(int(s), n // 2, n) for s in (kept, lost) if s != NO_DEAL]
