"""The search's chunk kernels: every canonical deal of a range of consecutive ranks, played
one at a time (`_search_chunk`, the plain exact kernel) or many at once in vector lanes
with a round budget, by brute force or under the owner rule (`_fast_chunk`)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .kernel import _cycle_info, _mask, _play
from .lanes import FAST_ROUNDS, LEFT, play_lanes_brute, play_lanes_owner
from .owner import _owner_stops
from .ranks import _next_subset, _unrank
from .settle import _settle, _settle_brute, _settle_owner


@njit(cache=True)
def _search_chunk(k, r0, r1, binom, hist, inf_rows):
    """Play canonical deals r0..r1-1: fills hist (finite games by rounds, if < len) and inf_rows.

    Returns (finite, infinite, longest rounds, the longest deal's bits).
    """
    mk = _mask(k)
    cap = inf_rows.shape[0]
    H = hist.shape[0]
    finite = 0
    infinite = 0
    longest = 0
    longest_deal = np.int64(-1)
    x = _unrank(r0, k, binom)
    for _ in range(r1 - r0):
        s = x << 1
        P1 = s & mk
        P2 = s >> k
        rounds, lam, side = _play(P1, k, P2, k)
        if lam == 0:
            finite += 1
            if rounds < H:
                hist[rounds] += 1
            if rounds > longest:
                longest = rounds
                longest_deal = s
        else:
            if infinite < cap:
                mu, period, key, sym = _cycle_info(P1, k, P2, k, lam)
                inf_rows[infinite, 0] = s
                inf_rows[infinite, 1] = mu
                inf_rows[infinite, 2] = period
                inf_rows[infinite, 3] = key
            infinite += 1
        x = _next_subset(x)
    return finite, infinite, longest, longest_deal


# ---------------------------------------------------------------------------
# Fast exhaustive kernels: many deals at once, a round budget, the owner rule
# ---------------------------------------------------------------------------
#
# `_search_chunk` plays one deal at a time, and a round is a chain of dependent
# operations, so the core mostly waits.  The kernels below play LANES deals side
# by side in the lanes of a vector (:mod:`.lanes`), refilling a lane as soon as
# its deal leaves, and their round (`_fast_round`) gives up everything a finite
# game's length does not need: colours are renamed every round so that the round
# colour is red (a colour swap maps games to games), and bits above a deck's
# length may be garbage.  A game that is still running after FAST_ROUNDS rounds
# is replayed from the deal with the exact kernel (`_play`), so every result is
# exactly what `_search_chunk` gives.


@njit(cache=True, inline="always")
def _fast_round(L, a, O, n):
    """One round with the colours renamed so the round colour is red: (W, a', X, game over).

    The returned decks are the renamed state (a colour swap of the true one when the
    round colour was black); X is clean above its length, W need not be.  Indices:
    u, v are each deck's event (first black card, or its last card), so the leader's
    event comes first iff u <= v, and the loser's event card is black unless they ran out.
    """
    cm = -(L & 1)
    L = L ^ cm
    O = O ^ cm
    u = trailing_zeros(L | (np.int64(-1) << (a - 1)))
    v = trailing_zeros(O | (np.int64(-1) << (n - 1 - a)))
    lf = u <= v
    mn = u if lf else v
    W = O if lf else L
    X = L if lf else O
    wl = n - a if lf else a
    xl = a if lf else n - a
    over = ((X >> mn) & 1) == 0
    ws = mn + 1 - np.int64(lf)
    na = wl - ws
    rest = xl - mn - 1
    # the loser keeps `rest` cards and gets the pile: reds, then the black card at the bottom
    nX = ((X >> (mn + 1)) & _mask(rest)) | (np.int64(1) << (n - 1 - na))
    return W >> ws, na, nX, over


@njit(cache=True, inline="always")
def _deal_decks(x, k):
    """Canonical deal bits and the two decks for the colex subset x (P1's top card red)."""
    s = x << 1
    return s, s & _mask(k), s >> k


@njit(cache=True, inline="always")
def _brute_lane(L, a, O, c, s, k, hist, inf_rows, acc):
    """Finish one deal alone from a running state after c rounds (its lane has no more company)."""
    n = 2 * k
    over = False
    while not (over or c >= FAST_ROUNDS):
        L, a, O, over = _fast_round(L, a, O, n)
        c += 1
    _settle_brute(s, c, over, k, hist, inf_rows, acc)


@njit(cache=True, inline="always")
def _owner_lane(L, a, O, c, s, k, hist, inf_rows, acc):
    """`_brute_lane` under the owner rule (the deal itself, c = 0, is never checked)."""
    n = 2 * k
    over = False
    while not (over or (c > 0 and _owner_stops(L, a, O, n, k, s)) or c >= FAST_ROUNDS):
        L, a, O, over = _fast_round(L, a, O, n)
        c += 1
    _settle_owner(s, c, over, k, hist, inf_rows, acc)


@njit(cache=True, inline="always")
def _finish_lane(owner, L, a, O, c, s, k, hist, inf_rows, acc):
    """Play one deal to its end alone (a chunk's last deals, when lanes run dry)."""
    L, a, O, c, s = np.int64(L), np.int64(a), np.int64(O), np.int64(c), np.int64(s)
    if owner:
        _owner_lane(L, a, O, c, s, k, hist, inf_rows, acc)
    else:
        _brute_lane(L, a, O, c, s, k, hist, inf_rows, acc)


@njit(cache=True, inline="always")
def _fill_lane(st, j, x, k, left):
    """Lane j starts the deal of colex subset x, with `left` more deals in its range after it."""
    s, L, O = _deal_decks(x, k)
    st[0, j], st[1, j], st[2, j], st[3, j], st[4, j], st[LEFT, j] = L, k, O, 0, s, left


@njit(cache=True)
def _split_ranges(st, ends, r0, count, k, binom):
    """Give each lane a range of consecutive ranks, together [r0, r0 + count); ends[j] is where lane j's ends."""
    lanes = st.shape[1]
    size, extra = divmod(count, lanes)
    pos = r0
    for j in range(lanes):
        m = size + (1 if j < extra else 0)
        _fill_lane(st, j, _unrank(pos, k, binom), k, m - 1)
        pos += m
        ends[j] = pos


@njit(cache=True, inline="always")
def _share_range(st, ends, j, k, binom):
    """Lane j's range is done: move the back half of the range with most deals left to it (False if none has any)."""
    i = np.argmax(st[LEFT])
    left = np.int64(st[LEFT, i])
    if left <= 0:
        return False
    moved = (left + 1) // 2
    end = ends[i]
    st[LEFT, i] = left - moved
    ends[i] = end - moved
    _fill_lane(st, j, _unrank(end - moved, k, binom), k, moved - 1)
    ends[j] = end
    return True


@njit(cache=True)
def _lanes_chunk(k, r0, r1, binom, hist, inf_rows, acc, owner, st):
    """Ranks r0..r1-1 under the owner rule or brute force, a lane per range of ranks; acc as in `_record_finite`.

    st is the lane state (`lanes.lane_state`): its dtype is the lane width.
    Under the owner rule, hist and the longest game count only games played to the end
    (a stopped deal's length is not known).  Infinite rows come in the order the deals
    finish; the caller sorts them by deal bits.
    """
    n = 2 * k
    lanes = st.shape[1]
    count = r1 - r0
    if count <= 0:
        return
    if count < lanes:
        x = _unrank(r0, k, binom)
        for _ in range(count):
            s, L, O = _deal_decks(x, k)
            _finish_lane(owner, L, k, O, 0, s, k, hist, inf_rows, acc)
            x = _next_subset(x)
        return
    settled = acc[0] + acc[1] + acc[5]  # deals before this chunk: finished, infinite or stopped
    ends = np.empty(lanes, dtype=np.int64)
    _split_ranges(st, ends, r0, count, k, binom)
    drained = False  # no lane has a deal left after its current one
    while not drained:
        ready = play_lanes_owner(st, hist, acc, n, k) if owner else play_lanes_brute(st, hist, acc, n, k)
        while ready:
            j = trailing_zeros(ready)
            ready &= ready - 1
            left = np.int64(st[LEFT, j])
            if left >= 0:  # its deal used the round budget: replayed exactly, then the lane's next deal
                s, rounds = np.int64(st[4, j]), np.int64(st[3, j])
                acc[4] -= rounds  # the replay counts them
                _settle(owner, s, rounds, False, k, hist, inf_rows, acc)
                if left > 0:
                    _fill_lane(st, j, _next_subset(s >> 1), k, left - 1)
                else:
                    st[LEFT, j] = -1
            if st[LEFT, j] < 0 and not _share_range(st, ends, j, k, binom):
                drained = True
    for j in range(lanes):
        if st[LEFT, j] == 0:
            acc[4] -= st[3, j]  # `_finish_lane` counts them
            _finish_lane(owner, st[0, j], st[1, j], st[2, j], st[3, j], st[4, j], k, hist, inf_rows, acc)
    # the lanes count finished games but not stopped deals: every deal is one of the three
    acc[5] = settled + count - acc[0] - acc[1]


@njit(cache=True, nogil=True)
def _fast_chunk(k, start, stop, binom, hist, inf_rows, acc, owner, lane_state):
    """One chunk of ranks (brute or owner kernel) into its own rows, with lane state of its own."""
    acc[3] = -1
    st = np.empty_like(lane_state)
    _lanes_chunk(k, start, stop, binom, hist, inf_rows, acc, owner, st)
