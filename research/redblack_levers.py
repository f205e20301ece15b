"""What could make the owner-rule search play fewer rounds?  Measured on a whole size.

The full-deck cost is rounds per deal times the cost of a round.  Deeper owner checks (more
rounds back) play fewer rounds, but each backward node costs more than it saves.  This script
measures other levers on every canonical deal of one size, so the figures are exact for that
size rather than sampled:

* **The ownership order.**  The owner rule's proof holds for any total order of the deals:
  stop a deal when a balanced predecessor of a state it reaches comes first in that order.
  The search's order is the rank.  The best conceivable order puts a deal after every deal
  whose game is shorter (order by game length, then rank): a deal then stops at the first
  state, two or more rounds in, that any other balanced deal reaches in one round.  No
  search can know game lengths in advance, so this is a bound on what any order can buy;
  a few orders a kernel could compute (a hash of the rank, the deal read bottom card first,
  colour changes) show what a computable order buys.
* **A cache of finished games.**  A deal that reaches a state known to lead to the end of a
  game is finite, and stopping it loses no cycle (whatever the order).  Each game played to
  its end stores its distinguished states (one in 2^D, by a hash) in a direct-mapped table
  of 2^S entries; a deal that reaches a stored state stops.
* **A first state on no cycle.**  The owner rule's proof needs only that, for every cycle,
  the smallest deal whose first state (after one round) lies on the cycle never stops
  there: that deal is on the cycle from round 1, and every balanced predecessor of a state
  on the cycle is such a deal.  So a deal whose first state provably lies on no cycle may
  stop at any later state another balanced deal reaches in one round, whatever the order.
  "On no cycle" is proved by a backward search: a state on a cycle has backward chains of
  every length, so a state all of whose chains are shorter than D rounds is on none.  The
  search runs once per deal, only when the owner rule would let the deal go on.

* **Sharing rounds until deals read a different card.**  A round reads only the cards it
  plays, the owner test only what decides it; deals that agree on every card read so far play
  the same rounds, so a search that deals a card only when play reads it (a tree over the
  deals) plays each such round once.  Counted on k = 26 windows, in the rank and play orders.

* **Stopping where an earlier deal passed.**  The owner rule stops a deal where a smaller deal
  provably passes, one round back; no rule of its kind stops a deal before the first state an
  earlier deal reached (the merge bound, counted with a set of every state played).  Two ways
  toward it: a backward search of each state's side branches (the predecessors other than the
  deal's own previous state) D rounds deep for an earlier balanced deal, and a direct-mapped
  table of every game's distinguished states stored with their epoch (a deal stops at an entry
  of an earlier epoch), as a GPU's memory would hold one.

    .venv/bin/python research/redblack_levers.py [--k 13] [--k26-windows 32] [--narrow-lanes 32] [--shared-reads 32]

What each lever measured, and why none was built (each falls short of the 2.9x fewer rounds or
cheaper rounds the full deck's 2,500 core-hour target asked of the AVX2 kernel): docs/redblack.md,
"Levers measured and not built"; the dated figures in docs/history/redblack-measurements.md.
About 20 s at k = 12, 4 min at k = 14.  Every figure counts the rounds the kernel plays: a test
checks the rank order and the hand sizes against `search_range` on whole sizes, cycles included,
and that the card-by-card model of `--shared-reads` plays the kernel's rounds in the rank order
and `_rounds_in_order`'s in the others.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import Dict

from engines.redblack.basins import _predecessors
from engines.redblack.kernel import _cycle_info, _mask, _play, _round
from engines.redblack.owner import NO_DEAL, _balanced_predecessors_true_colours
from engines.redblack.ranks import BINOM, _next_subset, _unrank
from engines.redblack.rules import LEADER_OUT, canonical_deals

INFINITE = np.int64(1) << 40  # the game length that orders an infinite deal after every finite one


@njit(cache=True)
def _rank_bits(s, binom):
    """The rank of canonical deal bits s (colex rank of the black cards after P1's red top card)."""
    x = s >> 1
    r = np.int64(0)
    i = 1
    while x:
        r += binom[trailing_zeros(x), i]
        i += 1
        x &= x - 1
    return r


@njit(cache=True)
def _all_deals(k, binom):
    deals = np.empty(binom[2 * k - 1, k], np.int64)
    x = _unrank(0, k, binom)
    for r in range(len(deals)):
        deals[r] = x << 1
        x = _next_subset(x)
    return deals


@njit(cache=True)
def _game_lengths(deals, k):
    lengths = np.empty(len(deals), np.int64)
    for r in range(len(deals)):
        s = deals[r]
        rounds, lam, _ = _play(s & _mask(k), np.int64(k), s >> k, np.int64(k))
        lengths[r] = rounds if lam == 0 else INFINITE
    return lengths


@njit(cache=True, inline="always")
def _brent_mark(L, a, O, tL, ta, tO, power, lam):
    """Brent's cycle check after a round, as the search's `_owner_play`: the first deal of a cycle's
    basin is never stopped, so a model without it loops forever on a size with infinite deals.
    The caller stops when the state equals the mark (tL, ta, tO); this moves the mark."""
    if power == lam:
        return L, a, O, power << 1, 1
    return tL, ta, tO, power, lam + 1


GOES_ON, GAME_OVER, OWNER_STOPS = 0, 1, 2


@njit(cache=True, inline="always")
def _owner_round(L, a, O, b, k, s):
    """One round of deal s under the owner rule (rank order): the new state and GOES_ON, GAME_OVER or
    OWNER_STOPS (a balanced predecessor of the new state is a smaller deal)."""
    L, a, O, b, st = _round(L, a, O, b)
    if st >= LEADER_OUT:
        return L, a, O, b, GAME_OVER
    kept, lost = _balanced_predecessors_true_colours(L, a, O, b, k)
    return L, a, O, b, OWNER_STOPS if min(kept, lost) < s else GOES_ON


@njit(cache=True)
def _rounds_in_order(deals, k, order, binom):
    """Rounds per deal under the owner rule when deal r comes before deal q iff (order[r], r) < (order[q], q)."""
    total = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        tL, ta, tO, power, lam = L, a, O, 1, 1
        while True:
            L, a, O, b, st = _round(L, a, O, b)
            total += 1
            if st >= LEADER_OUT:
                break
            kept, lost = _balanced_predecessors_true_colours(L, a, O, b, k)
            earlier = False
            for z in (kept, lost):
                if z != NO_DEAL and z != s:
                    q = _rank_bits(z, binom)
                    earlier |= order[q] < order[r] or (order[q] == order[r] and q < r)
            if earlier:
                break
            if L == tL and O == tO and a == ta:
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
    return total / len(deals)


@njit(cache=True, inline="always")
def _state_key(L, a, O):
    return (np.int64(a) << 56) | L | (O << a)


@njit(cache=True, inline="always")
def _mix(x):
    x = (x ^ (x >> 31)) * np.int64(-7046029254386353131)
    return x ^ (x >> 29)


@njit(cache=True)
def _rounds_with_cache(deals, k, d_bits, s_bits):
    """Rounds per deal under the owner rule (rank order) plus a table of finished games' distinguished states."""
    table = np.full(1 << s_bits, -1, np.int64)
    seen = np.empty(4096, np.int64)
    dmask, smask = (np.int64(1) << d_bits) - 1, (np.int64(1) << s_bits) - 1
    total = 0
    hits = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        n_seen = 0
        finished = False
        tL, ta, tO, power, lam = L, a, O, 1, 1
        while True:
            L, a, O, b, went = _owner_round(L, a, O, b, k, s)
            total += 1
            if went != GOES_ON:
                finished = went == GAME_OVER
                break
            key = _state_key(L, a, O)
            h = _mix(key)
            if h & dmask == 0:
                if table[(h >> d_bits) & smask] == key:
                    hits += 1
                    finished = True
                    break
                if n_seen < len(seen):
                    seen[n_seen] = key
                    n_seen += 1
            if L == tL and O == tO and a == ta:
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
        if finished:
            for j in range(n_seen):
                table[(_mix(seen[j]) >> d_bits) & smask] = seen[j]
    return total / len(deals), hits / len(deals)


@njit(cache=True)
def _computable_orders(deals, k):
    """Orders a kernel could compute from a deal alone: a hash of the rank, the deal read from
    the bottom card, colour changes (fewer first, more first)."""
    out = np.empty((4, len(deals)), np.int64)
    for r in range(len(deals)):
        s = deals[r]
        out[0, r] = _mix(np.int64(r) + np.int64(0x9E3779B97F4A7C15))
        rev = np.int64(0)
        for i in range(2 * k):
            rev |= ((s >> i) & 1) << (2 * k - 1 - i)
        out[1, r] = rev
        changes = s ^ (s >> 1)
        c = np.int64(0)
        for i in range(2 * k - 1):
            c += (changes >> i) & 1
        out[2, r] = c
        out[3, r] = -c
    return out


@njit(cache=True)
def _on_no_cycle(W, a, X, b, depth, budget, stack, preds):
    """(True if every backward chain from the state is shorter than `depth`, backward states visited).

    False when a chain reaches `depth` or the search visits more than `budget` states (unproved)."""
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = W, a, X, b, 0
    top, visited = 1, 0
    while top > 0:
        top -= 1
        W, a, X, b, d = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        visited += 1
        if d >= depth or visited > budget:
            return False, visited
        for p in range(_predecessors(W, a, X, b, preds)):
            stack[top, :4] = preds[p]
            stack[top, 4] = d + 1
            top += 1
    return True, visited


@njit(cache=True)
def _rounds_first_state_rule(deals, k, depth, budget, cycles):
    """Owner rule (rank order) plus the first-state rule: (rounds, backward states, cycles found).

    cycles receives the key of every cycle an unstopped deal reaches (at most len(cycles))."""
    stack = np.empty((64 * (budget + 2), 5), np.int64)
    preds = np.empty((64, 4), np.int64)
    total = visited = found = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        tL, ta, tO = L, a, O
        power = lam = 1
        rounds = 0
        acyclic = -1  # unknown; 1: the first state is on no cycle
        L1, a1, O1, b1 = L, a, O, b
        while True:
            L, a, O, b, st = _round(L, a, O, b)
            rounds += 1
            if st >= LEADER_OUT:
                break
            if rounds == 1:
                L1, a1, O1, b1 = L, a, O, b
            kept, lost = _balanced_predecessors_true_colours(L, a, O, b, k)
            if min(kept, lost) < s:
                break
            if depth > 0 and rounds >= 2 and min(kept, lost) != NO_DEAL:
                if acyclic < 0:
                    proved, v = _on_no_cycle(L1, a1, O1, b1, depth, budget, stack, preds)
                    acyclic = 1 if proved else 0
                    visited += v
                if acyclic == 1:
                    break
            if L == tL and O == tO and a == ta:
                if found < len(cycles):
                    cycles[found] = _cycle_info(s & _mask(k), np.int64(k), s >> k, np.int64(k), lam)[2]
                found += 1
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
        total += rounds
    return total / len(deals), visited / len(deals), found


@njit(cache=True)
def _brute_cycles(deals, k, cycles):
    found = 0
    for s in deals:
        rounds, lam, _ = _play(s & _mask(k), np.int64(k), s >> k, np.int64(k))
        if lam:
            if found < len(cycles):
                cycles[found] = _cycle_info(s & _mask(k), np.int64(k), s >> k, np.int64(k), lam)[2]
            found += 1
    return found


def first_state_lever(deals: np.ndarray, k: int, base: float) -> None:
    """The first-state rule on a whole size: rounds per deal, and the cycles it finds against brute force."""
    cap = 1 << 16
    brute = np.empty(cap, np.int64)
    expected = set(brute[: min(cap, _brute_cycles(deals, k, brute))].tolist())
    print("\nowner rule plus the first-state rule (backward search depth D, at most B states):")
    for depth, budget in ((8, 32), (16, 256)):
        cycles = np.empty(cap, np.int64)
        rounds, visited, found = _rounds_first_state_rule(deals, k, depth, budget, cycles)
        same = set(cycles[: min(cap, found)].tolist()) == expected
        print(
            f"  D = {depth}, B = {budget}: {rounds:8.2f}  {base / rounds:.2f}x, {visited:.1f} backward states per "
            f"deal; cycles found: {len(expected)} by brute force, {'the same' if same else 'NOT THE SAME'}"
        )


@njit(cache=True, inline="always")
def _class_key(L, a, O, b):
    """A state's key up to the colour swap: a deal and its swap play the same game, colours renamed."""
    return min(_state_key(L, a, O), _state_key(~L & _mask(a), a, ~O & _mask(b)))


@njit(cache=True, inline="always")
def _canonical_bits(W, X, k):
    """The canonical deal bits of a balanced state (leader W as player 1; colours swapped if it leads black)."""
    s = W | (X << k)
    return ~s & _mask(2 * k) if s & 1 else s


@njit(cache=True)
def _merge_bound(deals, k):
    """Rounds per deal when a deal stops at the first state an earlier deal (rank order) reached: the
    fewest any rule of the owner rule's kind can play (it may stop a deal only where a smaller one
    passes).  Also the distinct states, up to the colour swap, per deal (one per round played)."""
    seen = Dict.empty(key_type=types.int64, value_type=types.int64)
    total = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        while True:
            key = _class_key(L, a, O, b)
            if key in seen:
                break
            seen[key] = r
            L, a, O, b, st = _round(L, a, O, b)
            total += 1
            if st >= LEADER_OUT:
                break
    return total / len(deals), len(seen) / len(deals)


@njit(cache=True)
def _earlier_side_branch(W, a, X, b, k, s, depth, skip, stack, preds):
    """(an earlier balanced deal leads to the state within `depth` rounds back, backward states expanded).

    The predecessor `skip` (the deal's own previous state, as (L, a, O)) is not searched: it is the
    deal's own history, whose side branches were searched at the rounds before."""
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = W, a, X, b, 0
    top, expanded = 1, 0
    while top > 0:
        top -= 1
        W, a, X, b, d = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        expanded += 1
        for p in range(_predecessors(W, a, X, b, preds)):
            pL, pa, pO, pb = preds[p, 0], preds[p, 1], preds[p, 2], preds[p, 3]
            if d == 0 and pL == skip[0] and pa == skip[1] and pO == skip[2]:
                continue
            if pa == k and pb == k and _canonical_bits(pL, pO, k) < s:
                return True, expanded
            if d + 1 < depth:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = pL, pa, pO, pb, d + 1
                top += 1
    return False, expanded


@njit(cache=True)
def _rounds_side_branches(deals, k, depth, cycles):
    """The owner rule (rank order) plus a backward search of every state's side branches, `depth` rounds
    deep, for an earlier balanced deal (the deal's first state too): (rounds, backward states, cycles found).

    Each side branch is searched once, at the state where it joins the deal's game."""
    stack = np.empty((4 * k * depth + 4, 5), np.int64)
    preds = np.empty((2 * k + 2, 4), np.int64)
    none = np.full(3, -1, np.int64)
    last = np.empty(3, np.int64)
    total = expanded = found = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        earlier, e = _earlier_side_branch(L, a, O, b, k, s, depth, none, stack, preds)
        expanded += e
        if earlier:
            continue
        tL, ta, tO, power, lam = L, a, O, 1, 1
        while True:
            last[0], last[1], last[2] = L, a, O
            L, a, O, b, went = _owner_round(L, a, O, b, k, s)
            total += 1
            if went != GOES_ON:
                break
            earlier, e = _earlier_side_branch(L, a, O, b, k, s, depth, last, stack, preds)
            expanded += e
            if earlier:
                break
            if L == tL and O == tO and a == ta:
                if found < len(cycles):
                    cycles[found] = _cycle_info(s & _mask(k), np.int64(k), s >> k, np.int64(k), lam)[2]
                found += 1
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
    return total / len(deals), expanded / len(deals), found


@njit(cache=True)
def _rounds_with_state_table(deals, k, d_bits, s_bits, epochs):
    """The owner rule (rank order) plus a direct-mapped table of every game's distinguished states (one
    in 2^d_bits), each stored with its epoch (the search's deals cut into `epochs` runs of consecutive
    ranks, as launches): a deal stops at a stored state of an earlier epoch, which a smaller deal
    reached.  Any deal may overwrite an entry (a lossy table, as a GPU's would be)."""
    keys = np.full(1 << s_bits, -1, np.int64)
    epoch_of = np.zeros(1 << s_bits, np.int64)
    dmask, smask = (np.int64(1) << d_bits) - 1, (np.int64(1) << s_bits) - 1
    per_epoch = max(1, -(-len(deals) // epochs))
    total = 0
    for r in range(len(deals)):
        s, epoch = deals[r], r // per_epoch
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        tL, ta, tO, power, lam = L, a, O, 1, 1
        while True:
            L, a, O, b, went = _owner_round(L, a, O, b, k, s)
            total += 1
            if went != GOES_ON:
                break
            key = _class_key(L, a, O, b)
            h = _mix(key)
            if h & dmask == 0:
                slot = (h >> d_bits) & smask
                if keys[slot] == key and epoch_of[slot] < epoch:
                    break
                keys[slot], epoch_of[slot] = key, epoch
            if L == tL and O == tO and a == ta:
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
    return total / len(deals)


def merge_levers(deals: np.ndarray, k: int, base: float) -> None:
    """How far below the owner rule a rule of its kind could go, and what the two ways there cost."""
    bound, states = _merge_bound(deals, k)
    print(
        "\nstop where an earlier deal passed (the bound of every rule of the owner rule's kind):\n"
        f"  {bound:8.2f}  {base / bound:.2f}x  ({states:.2f} distinct states per deal)"
    )
    cap = 1 << 16
    brute = np.empty(cap, np.int64)
    expected = set(brute[: min(cap, _brute_cycles(deals, k, brute))].tolist())
    cycles = np.empty(cap, np.int64)
    _rounds_side_branches(deals[:64], k, 2, cycles)  # compiled before it is timed
    t0 = time.perf_counter()
    _rounds_first_state_rule(deals, k, 0, 0, cycles)
    owner_s = time.perf_counter() - t0
    print(
        "owner rule plus a backward search of each state's side branches, D rounds deep (time: against this "
        "script's scalar model of the owner rule, on the same deals):"
    )
    for depth in (1, 2, 4, 8, 16):
        t0 = time.perf_counter()
        rounds, expanded, found = _rounds_side_branches(deals, k, depth, cycles)
        took = time.perf_counter() - t0
        same = set(cycles[: min(cap, found)].tolist()) == expected
        print(
            f"  D = {depth:2d}: {rounds:8.2f}  {base / rounds:.2f}x, {expanded:.1f} backward states per deal, "
            f"{took / owner_s:.2f}x the time; cycles: {'the same as brute force' if same else 'NOT THE SAME'}"
        )
    print("owner rule plus a table of every game's distinguished states (one in 4), 1,000 epochs:")
    for s_bits in (10, 16, 20):
        rounds = _rounds_with_state_table(deals, k, 2, s_bits, 1000)
        print(f"  2^{s_bits} entries ({(1 << s_bits) / len(deals):.2g} per deal): {rounds:8.2f}  {base / rounds:.2f}x")


def stratified_windows(k: int, count: int, window: int, seed: int):
    """(first rank, deal bits) of `count` windows of consecutive ranks, one uniform in each of `count` parts."""
    total = canonical_deals(k)
    rng = np.random.default_rng(seed)
    for i in range(count):
        start = int(rng.integers(total * i // count, total * (i + 1) // count - window))
        x, deals = _unrank(start, k, BINOM), np.empty(window, np.int64)
        for j in range(window):
            deals[j] = x << 1
            x = _next_subset(x)
        yield start, deals


def k26_windows(count: int, window: int = 20_000, seed: int = 7) -> None:
    """The first-state rule at k = 26 on stratified windows (one uniform window in each of `count` parts)."""
    k = 26
    cap = np.empty(1 << 10, np.int64)
    sums = np.zeros(3)
    print(f"\nk = 26, {count} stratified windows of {window:,} consecutive ranks (rounds per deal):")
    for start, deals in stratified_windows(k, count, window, seed):
        owner = _rounds_first_state_rule(deals, k, 0, 0, cap)[0]
        rounds, visited, _ = _rounds_first_state_rule(deals, k, 8, 32, cap)
        sums += (owner, rounds, visited)
        print(f"  {start:.3e}: owner {owner:7.1f}, first-state rule {rounds:7.1f} ({visited:.1f} backward states)")
    owner, rounds, visited = sums / count
    print(
        f"  mean: owner {owner:.1f}, first-state rule {rounds:.1f} ({owner / rounds:.2f}x), {visited:.1f} backward states"
    )


@njit(cache=True)
def _rounds_past_hand(deals, k, limit):
    """Owner rule: (rounds, rounds played once a hand held more than `limit` cards, deals that got there)."""
    rounds = past = over = 0
    for r in range(len(deals)):
        s = deals[r]
        L, a, O, b = s & _mask(k), np.int64(k), s >> k, np.int64(k)
        crossed = False
        tL, ta, tO, power, lam = L, a, O, 1, 1
        while True:
            L, a, O, b, st = _round(L, a, O, b)
            rounds += 1
            if not crossed and max(a, b) > limit:
                crossed = True
                over += 1
            past += crossed
            if st >= LEADER_OUT:
                break
            kept, lost = _balanced_predecessors_true_colours(L, a, O, b, k)
            if min(kept, lost) < s or (L == tL and O == tO and a == ta):
                break
            tL, ta, tO, power, lam = _brent_mark(L, a, O, tL, ta, tO, power, lam)
    return rounds, past, over


def narrow_lanes(count: int, window: int = 20_000, seed: int = 7) -> None:
    """Could k = 26 play in 32-bit lanes (16 a register pair, not 8) while both hands fit?"""
    k = 26
    sums = np.zeros(3)
    for _, deals in stratified_windows(k, count, window, seed):
        sums += _rounds_past_hand(deals, k, 31)
    rounds, past, over = sums
    share = past / rounds
    print(
        f"\nk = 26, {count} stratified windows of {window:,} ranks: {over / (count * window):.0%} of the deals "
        f"reach a hand of 32 cards or more before they leave, and {share:.0%} of all rounds are played after "
        f"that; 32-bit lanes at twice the lanes per step would be at most {1 / (share + (1 - share) / 2):.2f}x faster"
    )


# Sharing rounds between deals until they read a different card.  Decks hold card places (0..k-1
# player 1's deal top first, k..2k-1 player 2's) in ring buffers; a card's colour is read from
# `vals` only when play or the owner test needs it.  `reads` is (places read, hash of the reads so
# far, tree nodes recorded): deals that read the same cards in the same order share everything
# played so far, so the distinct (round, hash) pairs are the rounds a search over that tree plays.
# An ownership order is the card places from the most significant (place 0, player 1's red top
# card, is the same in every canonical deal and left out).
ORDERS = {
    "rank": lambda k: list(range(2 * k - 1, 0, -1)),  # player 2's bottom card first
    "play": lambda k: [t // 2 if t % 2 == 0 else k + t // 2 for t in range(1, 2 * k)],  # P2[0], P1[1], P2[1], ...
    "player 2 first": lambda k: list(range(k, 2 * k)) + list(range(1, k)),  # each deck from its top
}


def order_places(k: int, name: str) -> np.ndarray:
    return np.array(ORDERS[name](k), np.int64)


def order_keys(deals: np.ndarray, places: np.ndarray) -> np.ndarray:
    """Integers whose numeric order is the order of `places` (`_rounds_in_order`'s order)."""
    keys = np.zeros(len(deals), np.int64)
    for i, place in enumerate(places):
        keys |= ((deals >> place) & 1) << (len(places) - 1 - i)
    return keys


@njit(cache=True, inline="always")
def _read(place, vals, reads, nodes):
    """A card's colour; the first read of a card branches the tree (a new node)."""
    if not (reads[0] >> place) & 1:
        reads[0] |= np.int64(1) << place
        reads[1] = _mix(reads[1] ^ (place * 2 + vals[place] + 1))
        nodes[reads[2]] = reads[1]
        reads[2] += 1
    return vals[place]


@njit(cache=True, inline="always")
def _at(deck, head, p, i):
    return deck[p, (head[p] + i) & 63]


@njit(cache=True)
def _lazy_round(deck, head, ln, ld, vals, reads, nodes, pile):
    """One round on the ring decks, reading the cards as they are played: (game over, next leader)."""
    A, B = ld, 1 - ld
    c = _read(_at(deck, head, A, 0), vals, reads, nodes)
    t = 0
    while True:
        if t > 0 and _read(_at(deck, head, A, t), vals, reads, nodes) != c:
            loser, m = A, 2 * t + 1
            break
        if t == ln[A] - 1:
            return True, ld
        if _read(_at(deck, head, B, t), vals, reads, nodes) != c:
            loser, m = B, 2 * t + 2
            break
        if t == ln[B] - 1:
            return True, ld
        t += 1
    for q in range(m):
        pile[q] = _at(deck, head, A if q % 2 == 0 else B, q // 2)
    winner, ws = 1 - loser, m // 2
    head[winner] += ws
    ln[winner] -= ws
    head[loser] += m - ws
    ln[loser] -= m - ws
    for q in range(m):
        deck[loser, (head[loser] + ln[loser]) & 63] = pile[q]
        ln[loser] += 1
    return False, winner


@njit(cache=True, inline="always")
def _lazy_predecessor(deck, head, ln, ld, m, lost, p1, p2):
    """The cards of the balanced deal whose round, with the pile of the bottom m cards of the other
    deck, leads here (`_balanced_predecessors`: the leader kept the lead, or lost it if `lost`)."""
    L, O = ld, 1 - ld
    rest = ln[O] - m
    i1 = i2 = 0
    for q in range(m):
        card = _at(deck, head, O, rest + q)
        if q % 2 == 0:
            p1[i1] = card
            i1 += 1
        else:
            p2[i2] = card
            i2 += 1
    if lost:
        for q in range(rest):
            p1[i1 + q] = _at(deck, head, O, q)
        for q in range(ln[L]):
            p2[i2 + q] = _at(deck, head, L, q)
    else:
        for q in range(ln[L]):
            p1[i1 + q] = _at(deck, head, L, q)
        for q in range(rest):
            p2[i2 + q] = _at(deck, head, O, q)


@njit(cache=True)
def _earlier(p1, p2, swap, k, order, vals, reads, nodes):
    """Whether the deal p1 p2 (colours swapped if `swap`) comes before the deal being played (card
    place i at place i) in `order` (`order_places`).  Reads only what decides."""
    for place in order:
        card = p1[place] if place < k else p2[place - k]
        if card == place and not swap:
            continue  # the same card: the same colour, nothing to read
        theirs = _read(card, vals, reads, nodes) ^ swap
        mine = _read(place, vals, reads, nodes)
        if theirs != mine:
            return theirs < mine
    return False


@njit(cache=True)
def _lazy_owner_stops(deck, head, ln, ld, k, order, vals, reads, nodes, p1, p2):
    """The owner test, reading from the bottom of the other deck up only as far as it must."""
    O = 1 - ld
    a, b = ln[ld], ln[O]
    m = 2 * (k - a)
    if a >= k or b < m:
        return False
    x = _read(_at(deck, head, O, b - 1), vals, reads, nodes)  # the pile's last card, off-colour
    for j in range(b - 2, b - m - 1, -1):
        if _read(_at(deck, head, O, j), vals, reads, nodes) == x:
            return False
    for lost in range(2):
        if lost and (b < m + 1 or _read(_at(deck, head, O, b - m - 1), vals, reads, nodes) == x):
            return False
        _lazy_predecessor(deck, head, ln, ld, m + lost, lost, p1, p2)
        if _earlier(p1, p2, 1 - x, k, order, vals, reads, nodes):
            return True
    return False


@njit(cache=True, inline="always")
def _lazy_state(deck, head, ln, ld, vals, out):
    """The state's colours (leader's deck, then the other's) after its leader's length."""
    out[0] = ln[ld]
    i = 1
    for p in (ld, 1 - ld):
        for q in range(ln[p]):
            out[i] = vals[_at(deck, head, p, q)]
            i += 1


@njit(cache=True)
def _lazy_deal(vals, k, order, reads, nodes, keys, nk):
    """Play one deal under the owner rule in `order`: (rounds, keys used, rounds its own).

    A round's key is recorded until the deal has read every card; after that its rounds are its
    own (no other deal reads the same cards), counted instead, so a long game fills no buffer."""
    deck = np.empty((2, 64), np.int64)
    head, ln = np.zeros(2, np.int64), np.full(2, k, np.int64)
    for i in range(k):
        deck[0, i], deck[1, i] = i, k + i
    pile, p1, p2 = np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64, np.int64)
    state, mark = np.empty(2 * k + 1, np.int64), np.empty(2 * k + 1, np.int64)
    ld = 0
    _lazy_state(deck, head, ln, ld, vals, mark)
    rounds, own, power, lam = 0, 0, 1, 1
    every_card = (np.int64(1) << (2 * k)) - 1
    while True:
        shared = reads[0] != every_card
        over, ld = _lazy_round(deck, head, ln, ld, vals, reads, nodes, pile)
        rounds += 1
        stop = over or _lazy_owner_stops(deck, head, ln, ld, k, order, vals, reads, nodes, p1, p2)
        if shared:
            keys[nk] = _mix(reads[1] ^ (np.int64(rounds) << 40))
            nk += 1
        else:
            own += 1
        if stop:
            return rounds, nk, own
        # Brent's check on the colours: no state repeats while a card is unread (each round both
        # players play from the top, above every card not yet played), so it reads nothing
        _lazy_state(deck, head, ln, ld, vals, state)
        if (state == mark).all():
            return rounds, nk, own
        if power == lam:
            mark[:] = state
            power <<= 1
            lam = 1
        else:
            lam += 1


@njit(cache=True)
def _shared_reads(deal_colours, k, order):
    """Owner rule in `order` over deals (rows: the colour of each card place): (rounds the kernel
    plays, rounds a search sharing deals until they read a different card plays, its tree nodes)."""
    cap = 1 << 16
    keys, nodes = np.empty(cap, np.int64), np.empty(cap, np.int64)
    reads = np.zeros(3, np.int64)
    nk = rounds = own = 0
    for r in range(len(deal_colours)):
        if nk > cap - 4096 or reads[2] > cap - 4096:  # keep the distinct ones; grow when still half full
            kept, seen = np.unique(keys[:nk]), np.unique(nodes[: reads[2]])
            nk, reads[2] = len(kept), len(seen)
            if max(nk, reads[2]) > cap // 2:
                cap *= 2
            keys, nodes = np.empty(cap, np.int64), np.empty(cap, np.int64)
            keys[:nk], nodes[: reads[2]] = kept, seen
        reads[0], reads[1] = 0, 0x1234567
        played, nk, alone = _lazy_deal(deal_colours[r], k, order, reads, nodes, keys, nk)
        rounds += played
        own += alone
    return rounds, len(np.unique(keys[:nk])) + own, len(np.unique(nodes[: reads[2]]))


def deal_colours(deals: np.ndarray, k: int) -> np.ndarray:
    """Canonical deal bits as rows of colours, one per card place (player 1's deck, then player 2's)."""
    return ((deals[:, None] >> np.arange(2 * k)[None, :]) & 1).astype(np.int64)


def play_order_windows(k: int, count: int, free: int, seed: int):
    """Deal colours of `count` windows: a uniform deal's colours kept at every place but the last
    `free` of the play order, which take every value with the same number of black cards."""
    rng = np.random.default_rng(seed)
    tail = ORDERS["play"](k)[-free:]
    for _ in range(count):
        v = np.zeros(2 * k, np.int64)
        v[rng.choice(np.arange(1, 2 * k), size=k, replace=False)] = 1
        tails = [c for c in itertools.combinations(range(free), int(v[tail].sum()))]
        rows = np.repeat(v[None, :], len(tails), axis=0)
        rows[:, tail] = 0
        for i, blacks in enumerate(tails):
            rows[i, [tail[j] for j in blacks]] = 1
        yield rows


def shared_reads(count: int, free: int = 16, sample: int = 20_000, seed: int = 11) -> None:
    """At k = 26: what sharing rounds until deals read a different card, and the play order, save."""
    k = 26
    rng = np.random.default_rng(seed)
    uniform = np.zeros((sample, 2 * k), np.int64)
    for row in uniform:
        row[rng.choice(np.arange(1, 2 * k), size=k, replace=False)] = 1
    print(f"\nk = 26, {sample:,} uniform deals, rounds per deal by ownership order:")
    flat = {name: _shared_reads(uniform, k, order_places(k, name))[0] / sample for name in ORDERS}
    for name, rounds in flat.items():
        print(f"  {name} {rounds:8.2f}  {flat['rank'] / rounds:.2f}x")
    sums = np.zeros((2, 3))
    names = ("rank", "play")
    for rows in play_order_windows(k, count, free, seed):
        for i, name in enumerate(names):
            sums[i] += np.array(_shared_reads(rows, k, order_places(k, name))) / len(rows)
    print(f"k = 26, {count} windows of the deals that differ only in the last {free} cards of the play order:")
    for i, name in enumerate(names):
        rounds, shared, nodes = sums[i] / count
        print(
            f"  {name} order: {rounds:.2f} rounds per deal, {shared:.2f} shared ({rounds / shared:.2f}x fewer), "
            f"{nodes:.2f} tree nodes per deal"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=13, help="deal size (all its canonical deals are played)")
    ap.add_argument("--k26-windows", type=int, default=0, help="also the first-state rule on this many k = 26 windows")
    ap.add_argument(
        "--narrow-lanes", type=int, default=0, help="also hand sizes under the owner rule on this many k = 26 windows"
    )
    ap.add_argument(
        "--shared-reads",
        type=int,
        default=0,
        help="also rounds shared until deals read a different card, k = 26 windows",
    )
    args = ap.parse_args()
    k = args.k
    t0 = time.perf_counter()
    deals = _all_deals(k, BINOM)
    lengths = _game_lengths(deals, k)
    finite = lengths < INFINITE
    print(
        f"k = {k}: {canonical_deals(k):,} canonical deals, brute force {lengths[finite].mean():.2f} rounds per "
        f"finite deal, {int((~finite).sum())} infinite ({time.perf_counter() - t0:.1f} s)"
    )
    base = _rounds_in_order(deals, k, np.zeros(len(deals), np.int64), BINOM)
    print(f"\nowner rule, rounds per deal by ownership order (fewer than the rank order):\n  rank (today) {base:8.2f}")
    best = _rounds_in_order(deals, k, lengths, BINOM)
    print(f"  game length, then rank (the bound) {best:8.2f}  {base / best:.2f}x")
    names = (
        "hash of the rank",
        "bottom card first",
        "fewer colour changes first",
        "more colour changes first",
    )
    orders = list(_computable_orders(deals, k))
    for name in ORDERS:
        if name != "rank":
            names += (f"{name} order",)
            orders.append(order_keys(deals, order_places(k, name)))
    for name, order in zip(names, orders):
        rounds = _rounds_in_order(deals, k, order, BINOM)
        print(f"  {name} {rounds:8.2f}  {base / rounds:.2f}x")
    print("\nowner rule (rank order) with a cache of finished games' distinguished states:")
    for d_bits in (3, 5):
        for s_bits in (16, 20):
            rounds, hits = _rounds_with_cache(deals, k, d_bits, s_bits)
            print(
                f"  one state in 2^{d_bits}, 2^{s_bits} entries: {rounds:8.2f}  {base / rounds:.2f}x "
                f"({hits:.3f} cache hits per deal)"
            )
    first_state_lever(deals, k, base)
    merge_levers(deals, k, base)
    if args.k26_windows:
        k26_windows(args.k26_windows)
    if args.narrow_lanes:
        narrow_lanes(args.narrow_lanes)
    if args.shared_reads:
        shared_reads(args.shared_reads)


if __name__ == "__main__":
    main()
