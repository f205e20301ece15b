"""Exhaustive search: every canonical balanced deal of a size k by rank (combinatorial number system)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from ..core.threads import for_each_block
from .kernel import PACKAGE, _cycle_info, _mask, _play, _round
from .lanes import FAST_ROUNDS, LEFT, lane_state, play_lanes_brute, play_lanes_owner
from .owner import _owner_stops, _owner_stops_true_colours
from .rules import K_MAX, LEADER_OUT, canonical_deals, cycle_id_str, deal_strings, rank_deal, to_str


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


# ---------------------------------------------------------------------------
# Exhaustive search over a rank range
# ---------------------------------------------------------------------------


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
def _record_finite(s, rounds, hist, acc):
    """acc = [finite, infinite, longest rounds, its deal, rounds played, stopped]."""
    acc[0] += 1
    if rounds < hist.shape[0]:
        hist[rounds] += 1
    # deal bits grow with the rank (colex order), so a tie keeps the lowest rank
    if rounds > acc[2] or (rounds == acc[2] and s < acc[3]):
        acc[2] = rounds
        acc[3] = s


@njit(cache=True, inline="always")
def _record_infinite(s, k, lam, inf_rows, acc):
    n_inf = acc[1]
    if n_inf < inf_rows.shape[0]:
        mu, period, key, sym = _cycle_info(s & _mask(k), k, s >> k, k, lam)
        inf_rows[n_inf, 0] = s
        inf_rows[n_inf, 1] = mu
        inf_rows[n_inf, 2] = period
        inf_rows[n_inf, 3] = key
    acc[1] = n_inf + 1


@njit(cache=True, inline="always")
def _settle_brute(s, rounds, over, k, hist, inf_rows, acc):
    """A deal has left the fast path: record it, replaying it exactly if it ran out of budget."""
    if over:
        acc[4] += rounds
        _record_finite(s, rounds, hist, acc)
        return
    rounds, lam, side = _play(s & _mask(k), k, s >> k, k)
    acc[4] += rounds
    if lam == 0:
        _record_finite(s, rounds, hist, acc)
    else:
        _record_infinite(s, k, lam, inf_rows, acc)


@njit(cache=True, inline="always")
def _brute_lane(L, a, O, c, s, k, hist, inf_rows, acc):
    """Finish one deal alone from a running state after c rounds (its lane has no more company)."""
    n = 2 * k
    over = False
    while not (over or c >= FAST_ROUNDS):
        L, a, O, over = _fast_round(L, a, O, n)
        c += 1
    _settle_brute(s, c, over, k, hist, inf_rows, acc)


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


@njit(cache=True, inline="always")
def _settle_owner(s, rounds, over, k, hist, inf_rows, acc):
    """A deal has left the owner fast path: finished, stopped, or out of budget (replayed exactly)."""
    if over:
        acc[4] += rounds
        _record_finite(s, rounds, hist, acc)
        return
    if rounds < FAST_ROUNDS:
        acc[4] += rounds
        acc[5] += 1
        return
    rounds, lam, stopped = _owner_play(s, k)
    acc[4] += rounds
    if stopped:
        acc[5] += 1
    elif lam == 0:
        _record_finite(s, rounds, hist, acc)
    else:
        _record_infinite(s, k, lam, inf_rows, acc)


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
def _settle(owner, s, rounds, over, k, hist, inf_rows, acc):
    if owner:
        _settle_owner(s, rounds, over, k, hist, inf_rows, acc)
    else:
        _settle_brute(s, rounds, over, k, hist, inf_rows, acc)


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


ACC_FIELDS = 6  # finite, infinite, longest, its deal, rounds, stopped


@njit(cache=True, nogil=True)
def _fast_chunk(k, start, stop, binom, hist, inf_rows, acc, owner, lane_state):
    """One chunk of ranks (brute or owner kernel) into its own rows, with lane state of its own."""
    acc[3] = -1
    st = np.empty_like(lane_state)
    _lanes_chunk(k, start, stop, binom, hist, inf_rows, acc, owner, st)


def _fast_batch(k, starts, stops, binom, H, cap, owner, lane_state):
    """Chunks on numba's thread count; each chunk's results land in its own row.

    lane_state is a (ROWS, lanes) array of the lane width for k, copied for each chunk."""
    nch = starts.shape[0]
    hist = np.zeros((nch, H), dtype=np.int64)
    inf_rows = np.zeros((nch, cap, 4), dtype=np.int64)
    acc = np.zeros((nch, ACC_FIELDS), dtype=np.int64)
    k, H, owner = np.int64(k), np.int64(H), bool(owner)

    def chunk(ch: int) -> None:
        _fast_chunk(k, starts[ch], stops[ch], binom, hist[ch], inf_rows[ch], acc[ch], owner, lane_state)

    for_each_block(chunk, nch)
    return hist, inf_rows, acc


@dataclass
class SearchResult:
    """Everything one search (exhaustive range or sample) produces."""

    k: int
    deals: int
    finite: int
    lengths: np.ndarray  # lengths[r] = finite games of r rounds
    longest_rounds: int
    longest_deal: tuple[str, str]
    infinite: list[dict]  # p1, p2 (canonical), deal_index, cycle_id, rounds_before_cycle, period
    # Method "owner" stops deals whose game merges into a smaller deal's: their length is
    # not known, so finite/lengths/longest count only games played to the end, and
    # `infinite` lists only the unstopped deals that reached a cycle (the complete list is
    # the balanced deals in the basins of their cycles).
    stopped: int = 0
    rounds: int = 0  # rounds the search played (every deal to its end, stop or cycle check)
    method: str = "brute"

    @property
    def infinite_count(self) -> int:
        return self.deals - self.finite - self.stopped


CHUNK = 1 << 16  # deals per parallel work item
BATCH_CHUNKS = 32  # chunks per kernel call (progress is reported between calls)


SEARCH_METHODS = ("brute", "owner")


def search_range(k: int, start: int, stop: int, progress=None, method: str = "brute") -> SearchResult:
    """Play every canonical balanced deal of size k with rank in [start, stop).

    method "brute" plays every deal to its end or cycle; "owner" stops deals whose game
    merges into a smaller deal's (see `_owner_stops`) and still finds every cycle whose
    smallest basin deal is in the range.
    """
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    if method not in SEARCH_METHODS:
        raise CardlabError(f"unknown search method {method!r}; choose one of {', '.join(SEARCH_METHODS)}")
    total = canonical_deals(k)
    if not 0 <= start <= stop <= total:
        raise CardlabError(f"rank range [{start}, {stop}) is not inside [0, {total}) for k={k}")
    # room for games up to FAST_ROUNDS: a longer one makes the kernel redo its whole batch
    H, cap = FAST_ROUNDS, 8
    lanes = lane_state(k)
    lengths = np.zeros(H, dtype=np.int64)
    finite, longest, longest_s, stopped, rounds = 0, 0, -1, 0, 0
    infinite: list[dict] = []
    pos = start
    while pos < stop:
        end = min(stop, pos + CHUNK * BATCH_CHUNKS)
        edges = np.arange(pos, end, CHUNK, dtype=np.int64)
        starts, stops = edges, np.minimum(edges + CHUNK, end).astype(np.int64)
        while True:
            with compiling_alone([_fast_chunk], PACKAGE):
                hist, rows, acc = _fast_batch(k, starts, stops, BINOM, H, cap, method == "owner", lanes)
            max_rounds = int(acc[:, 2].max()) if len(acc) else 0
            most_inf = int(acc[:, 1].max()) if len(acc) else 0
            if max_rounds < H and most_inf <= cap:
                break
            # a rare long game or crowded chunk: redo this batch with room for it (results stay exact)
            H = max(H, 1 << int(max_rounds).bit_length())
            cap = max(cap, most_inf)
            lengths = np.concatenate([lengths, np.zeros(H - len(lengths), dtype=np.int64)])
        lengths[:H] += hist.sum(axis=0)
        finite += int(acc[:, 0].sum())
        rounds += int(acc[:, 4].sum())
        stopped += int(acc[:, 5].sum())
        for ch in range(len(starts)):  # chunks in rank order: ties keep the lowest rank
            if acc[ch, 2] > longest:
                longest, longest_s = int(acc[ch, 2]), int(acc[ch, 3])
            # deal bits grow with the rank: sorting restores the rank order of the one-lane search
            for s, mu, period, key in sorted(tuple(int(v) for v in row) for row in rows[ch, : int(acc[ch, 1])]):
                p1, p2 = deal_strings(s, k, 2 * k)
                infinite.append(
                    {
                        "p1": p1,
                        "p2": p2,
                        "deal_index": rank_deal(p1, p2),
                        "cycle_id": cycle_id_str(key, 2 * k),
                        "rounds_before_cycle": mu,
                        "period": period,
                    }
                )
        if progress is not None:
            progress.update(end - pos)
        pos = end
    longest_deal = deal_strings(longest_s, k, 2 * k) if longest_s >= 0 else ("", "")
    return SearchResult(
        k, stop - start, finite, np.trim_zeros(lengths, "b"), longest, longest_deal, infinite, stopped, rounds, method
    )


def search(k: int, progress=None, method: str = "brute") -> SearchResult:
    """Every canonical balanced deal of size k."""
    return search_range(k, 0, canonical_deals(k), progress, method)
