"""What could make the owner-rule search play fewer rounds?  Measured on a whole size.

The full-deck cost is rounds per deal times the cost of a round.  Issue 22 measured deeper
owner checks (more rounds back): fewer rounds, but each backward node costs more than it
saves.  This script measures two other levers on every canonical deal of one size, so the
figures are exact for that size rather than sampled:

* **The ownership order.**  The owner rule's proof holds for any total order of the deals:
  stop a deal when a balanced predecessor of a state it reaches comes first in that order.
  Today the order is the rank.  The best conceivable order puts a deal after every deal
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

    .venv/bin/python bench/redblack_levers.py [--k 13] [--k26-windows 32] [--narrow-lanes 32]

Measured (2026-12-01, this 2-core machine): at k = 12 and 14 the rank order plays 11.2 and
13.6 rounds per deal, the best conceivable order 6.4 and 7.3 (1.7-1.9x fewer), the computable
orders 0.91-0.99x; the cache 1.15x at best at k = 14 (1.38x at k = 12), with a million entries,
larger than the CPU's caches, so each probe is a memory access.  The full deck at 2,500
core-hours needs 6.7x.  About 20 s at k = 12, 4 min at k = 14.

The first-state lever (2026-12-02, a Zen 3 machine): it finds every cycle brute force finds
(checked on whole sizes); at k = 26 on 32 stratified windows of 20,000 ranks it plays 22.3
rounds per deal against the owner rule's 27.2 (1.2x fewer) for 3.5 backward states per deal:
near the bottom of the ranks a deal's first state has backward chains deeper than any
affordable D, so the search pays and proves nothing there, and the few windows where it
cuts rounds 2-4x do not make up for it.  At about 8 ns per backward state and 3.5 ns per
round that is slower than the owner rule alone.

Narrow lanes (2026-12-02, `--narrow-lanes 32`): 32-bit lanes would play twice the deals per
step, but only while both hands hold at most 31 cards.  At k = 26 on 32 stratified windows of
20,000 ranks, 33 % of the deals pass that before they leave and 83 % of all rounds are played
after it: at most 1.09x.  Every figure here counts the rounds the kernel plays (a test checks the
rank order and the hand sizes against `search_range` on whole sizes, cycles included).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from engines.redblack.basins import _predecessors
from engines.redblack.exhaustive import BINOM, _next_subset, _unrank
from engines.redblack.kernel import _cycle_info, _mask, _play, _round
from engines.redblack.owner import NO_DEAL, _balanced_predecessors_true_colours
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
            L, a, O, b, st = _round(L, a, O, b)
            total += 1
            if st >= LEADER_OUT:
                finished = True
                break
            kept, lost = _balanced_predecessors_true_colours(L, a, O, b, k)
            if min(kept, lost) < s:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=13, help="deal size (all its canonical deals are played)")
    ap.add_argument("--k26-windows", type=int, default=0, help="also the first-state rule on this many k = 26 windows")
    ap.add_argument(
        "--narrow-lanes", type=int, default=0, help="also hand sizes under the owner rule on this many k = 26 windows"
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
    names = ("hash of the rank", "bottom card first", "fewer colour changes first", "more colour changes first")
    for name, order in zip(names, _computable_orders(deals, k)):
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
    if args.k26_windows:
        k26_windows(args.k26_windows)
    if args.narrow_lanes:
        narrow_lanes(args.narrow_lanes)


if __name__ == "__main__":
    main()
