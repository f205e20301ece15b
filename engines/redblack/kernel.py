"""numba kernel of the RedBlack rules (:mod:`.rules`): a round as bit operations, Brent's cycle detection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.kernel_cache import drop_stale_caches
from .rules import LEADER_OUT, Outcome, cycle_id_str, parse_deal, to_bits, to_str

# every module of the package with compiled code (all of them import this one): numba would
# load a kernel cached before an edit of a module it inlines, such as lanes.py into chunks.py
KERNEL_MODULES = ("basins", "chunks", "kernel", "lanes", "owner", "ranks", "rules", "sample", "settle")
PACKAGE = Path(__file__).parent
drop_stale_caches(PACKAGE, KERNEL_MODULES)


@njit(cache=True, inline="always")
def _mask(n):
    return (np.int64(1) << n) - 1


@njit(cache=True, inline="always")
def _select(m, x, y):
    """x where the mask m is all ones, y where it is zero (a select without a branch)."""
    return (x & m) | (y & ~m)


@njit(cache=True, inline="always")
def _round(L, a, O, b):
    """One round on (leader L of a cards, other O of b cards): (L', a', O', b', outcome).

    Who loses the round is a coin flip to the branch predictor, so both outcomes are
    computed with masks and selected without branching (about 25% faster than an if).
    """
    c = L & 1
    cm = -c  # all ones when the round colour is black
    # first off-colour card of each deck (or the deck length when it has none)
    i = trailing_zeros(((L ^ cm) & _mask(a)) | (np.int64(1) << a))
    j = trailing_zeros(((O ^ cm) & _mask(b)) | (np.int64(1) << b))
    # The leader's t-th card is play 2t, the other's is play 2t+1; each deck's event is
    # its first off-colour card, or its last card when it has none (running out).  The
    # earlier event decides the round: the leader's comes first iff i' <= j'.
    leader_first = np.int64((i - (i == a)) <= (j - (j == b)))
    m = -leader_first
    if _select(m, np.int64(i == a), np.int64(j == b)):
        return L, a, O, b, LEADER_OUT + 1 - leader_first  # someone ran out: game over
    # The loser played `xs` cards, the winner `ws`; the pile (ws + xs cards) goes under the
    # loser's remaining deck.  Leader loses: xs = i+1, ws = i.  Other loses: both j+1.
    ws = _select(m, i, j + 1)
    xs = ws + leader_first
    pm = ws + xs - 1  # pile = pm cards of colour c, then one off-colour
    pile = (cm & _mask(pm)) | ((1 - c) << pm)
    winner, wl = _select(m, O, L), _select(m, b, a)
    loser, xl = _select(m, L, O), _select(m, a, b)
    return winner >> ws, wl - ws, (loser >> xs) | (pile << (xl - xs)), xl - xs + pm + 1, leader_first


@njit(cache=True)
def _play(L, a, O, b):
    """Brent's algorithm on the whole state: (rounds, reduced period or 0 if finished, winner side).

    winner side: 1 if the player who led the first round wins, 2 if the other does, 0 if infinite.
    """
    tL, ta, tO = L, a, O
    power = 1
    lam = 1
    rounds = 0
    flips = 0
    while True:
        L, a, O, b, st = _round(L, a, O, b)
        rounds += 1
        if st >= LEADER_OUT:
            leader_won = st == LEADER_OUT
            first_leads = flips == 0
            return rounds, 0, 1 if leader_won == first_leads else 2
        flips ^= st
        if L == tL and O == tO and a == ta:
            return rounds, lam, 0
        if power == lam:
            tL, ta, tO = L, a, O
            power <<= 1
            lam = 0
        lam += 1


@njit(cache=True, inline="always")
def _key(L, a, O):
    return (np.int64(a) << 56) | L | (O << a)


@njit(cache=True, inline="always")
def _swapped_key(L, a, O, b):
    return _key(~L & _mask(a), a, ~O & _mask(b))


@njit(cache=True)
def _cycle_info(L, a, O, b, lam):
    """For an infinite deal with reduced period lam: (rounds before the cycle, period, cycle key, symmetric)."""
    hL, ha, hO, hb = L, a, O, b
    for _ in range(lam):
        hL, ha, hO, hb, st = _round(hL, ha, hO, hb)
    tL, ta, tO, tb = L, a, O, b
    mu = 0
    while not (tL == hL and ta == ha and tO == hO):
        tL, ta, tO, tb, st = _round(tL, ta, tO, tb)
        hL, ha, hO, hb, st = _round(hL, ha, hO, hb)
        mu += 1
    best = _key(tL, ta, tO)
    swapped_best = _swapped_key(tL, ta, tO, tb)
    flips = 0
    for _ in range(lam):
        tL, ta, tO, tb, st = _round(tL, ta, tO, tb)
        flips ^= st
        best = min(best, _key(tL, ta, tO))
        swapped_best = min(swapped_best, _swapped_key(tL, ta, tO, tb))
    # the labelled game repeats after lam rounds only if the lead changed hands an even number of times
    period = lam if flips == 0 else 2 * lam
    return mu, period, min(best, swapped_best), best == swapped_best


def play(p1: str, p2: str) -> Outcome:
    """Play a deal with the kernel (player 1 leads)."""
    parse_deal(p1, p2)
    L, a, O, b = to_bits(p1), len(p1), to_bits(p2), len(p2)
    rounds, lam, side = _play(np.int64(L), np.int64(a), np.int64(O), np.int64(b))
    if lam == 0:
        return Outcome(True, int(rounds), winner=int(side))
    mu, period, key, sym = _cycle_info(np.int64(L), np.int64(a), np.int64(O), np.int64(b), lam)
    return Outcome(False, int(mu), period=int(period), cycle_id=cycle_id_str(int(key), a + b))


def round_kernel(leader: str, other: str) -> tuple[int, str, str]:
    """One kernel round on a state in notation: (outcome, new leader, new other)."""
    L, a, O, b, st = _round(
        np.int64(to_bits(leader)), np.int64(len(leader)), np.int64(to_bits(other)), np.int64(len(other))
    )
    return int(st), to_str(int(L), int(a)), to_str(int(O), int(b))
