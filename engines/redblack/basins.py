"""Basins: every state leading into a cycle, found by running rounds backwards."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from .kernel import _cycle_info, _mask, _play, _round
from .rules import BASIN_MAX_STATES, cycle_id_str, deal_strings, parse_cycle_id, to_bits, to_str


@njit(cache=True)
def _predecessors(W, a, X, b, out):
    """Fill ``out`` (rows L, a, O, b) with every state whose round gives (W, X); returns how many.

    The pile (m cards: m-1 of the round colour c, then one of the other) is at the bottom
    of X.  Even m: W led and kept the lead; odd m: X led and lost.
    """
    c = 1 - ((X >> (b - 1)) & 1)
    cm = -c
    # run of round-colour cards just above X's bottom card
    z = (X ^ cm) & _mask(b - 1)
    top_bit = 0
    while (z >> top_bit) != 0:
        top_bit += 1
    run = (b - 1) - top_bit
    count = 0
    for m in range(2, run + 2):
        rest = X & _mask(b - m)
        off = 1 - c
        if m % 2 == 0:
            j = (m - 2) // 2
            out[count, 0] = (cm & _mask(j + 1)) | (W << (j + 1))
            out[count, 1] = a + j + 1
            out[count, 2] = (cm & _mask(j)) | (off << j) | (rest << (j + 1))
            out[count, 3] = j + 1 + b - m
        else:
            i = (m - 1) // 2
            out[count, 0] = (cm & _mask(i)) | (off << i) | (rest << (i + 1))
            out[count, 1] = i + 1 + b - m
            out[count, 2] = (cm & _mask(i)) | (W << i)
            out[count, 3] = i + a
        count += 1
    return count


@njit(cache=True)
def _basin(L0, a0, O0, b0, lam, k, max_states):
    """Enumerate the basin of the cycle through (L0, O0) with reduced period lam.

    Returns (states visited, complete, max depth, balanced deals (bits), their depths):
    balanced deals are the basin's states where both decks hold k cards.
    """
    n = a0 + b0
    cyc = np.empty((lam, 3), dtype=np.int64)
    stack = []
    L, a, O, b = L0, a0, O0, b0
    for t in range(lam):
        cyc[t, 0] = L
        cyc[t, 1] = a
        cyc[t, 2] = O
        stack.append((L, a, O, 0))
        L, a, O, b, st = _round(L, a, O, b)
    deals = []
    depths = []
    count = lam
    max_depth = 0
    preds = np.empty((n, 4), dtype=np.int64)
    complete = True
    while len(stack) > 0:
        W, a, X, d = stack.pop()
        b = n - a
        if a == k and b == k:
            deals.append(W | (X << k))
            depths.append(d)
        if d > max_depth:
            max_depth = d
        np_ = _predecessors(W, a, X, b, preds)
        for p in range(np_):
            pL, pa, pO = preds[p, 0], preds[p, 1], preds[p, 2]
            if d == 0:  # a cycle state: one predecessor is the previous cycle state
                on_cycle = False
                for t in range(lam):
                    if cyc[t, 0] == pL and cyc[t, 1] == pa and cyc[t, 2] == pO:
                        on_cycle = True
                        break
                if on_cycle:
                    continue
            if count >= max_states:
                complete = False
                break
            count += 1
            stack.append((pL, pa, pO, d + 1))
        if not complete:
            break
    return count, complete, max_depth, np.array(deals, dtype=np.int64), np.array(depths, dtype=np.int64)


@dataclass
class Basin:
    cycle_id: str
    cards: int
    period: int
    symmetric: bool
    states: int  # states of the basin, counting the cycle and its colour swap
    complete: bool
    depth: int  # most rounds before the cycle within the basin
    deals: list[tuple[str, str, int]]  # canonical balanced deals: (P1, P2, rounds before the cycle)


def cycle_state(cycle_id: str) -> tuple[int, int, int, int]:
    leader, other = parse_cycle_id(cycle_id)
    return to_bits(leader), len(leader), to_bits(other), len(other)


def reduced_period(L: int, a: int, O: int, b: int) -> int:
    """Rounds until the (leader, other) state comes back, for a state on a cycle."""
    rounds, lam, side = _play(np.int64(L), np.int64(a), np.int64(O), np.int64(b))
    if lam == 0:
        raise CardlabError(f"{to_str(L, a)}/{to_str(O, b)} is not on a cycle: the game ends")
    return int(lam)


def basin(cycle_id: str, max_states: int = BASIN_MAX_STATES) -> Basin:
    """Every state leading into the cycle ``cycle_id`` (and its colour swap); its balanced deals."""
    L, a, O, b = cycle_state(cycle_id)
    n = a + b
    lam = reduced_period(L, a, O, b)
    mu, period, key, sym = _cycle_info(np.int64(L), np.int64(a), np.int64(O), np.int64(b), lam)
    k = n // 2 if n % 2 == 0 else -1
    count, complete, depth, deals, depths = _basin(
        np.int64(L), np.int64(a), np.int64(O), np.int64(b), lam, k, max_states
    )
    full = (1 << n) - 1
    canon: dict[int, int] = {}
    for s, d in zip(deals.tolist(), depths.tolist()):
        if s & 1:  # player 1's first card black: take the colour swap
            s = ~s & full
        canon[s] = min(d, canon.get(s, d))
    out = [(*deal_strings(s, k, n), d) for s, d in canon.items()]
    out.sort()
    states = int(count) if sym else 2 * int(count)
    return Basin(cycle_id_str(int(key), n), n, int(period), bool(sym), states, bool(complete), int(depth), out)


def predecessors(leader: str, other: str) -> list[tuple[str, str]]:
    """Kernel predecessors of a state, in notation."""
    out = np.empty((len(leader) + len(other), 4), dtype=np.int64)
    n = _predecessors(
        np.int64(to_bits(leader)), np.int64(len(leader)), np.int64(to_bits(other)), np.int64(len(other)), out
    )
    return [(to_str(int(r[0]), int(r[1])), to_str(int(r[2]), int(r[3]))) for r in out[:n]]
