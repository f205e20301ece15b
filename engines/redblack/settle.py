"""The search kernels' bookkeeping: how a deal that has left the fast path is counted.

A chunk kernel keeps its totals in ``acc`` (ACC_FIELDS int64: finite games, infinite
deals, the longest game's rounds and deal bits, rounds played, stopped deals), finite
games by length in ``hist``, and the first infinite deals with their cycle (deal bits,
rounds before the cycle, period, cycle key) in ``inf_rows``.  A deal that ran out of the
fast path's round budget is replayed from the deal with an exact kernel, so every count
is what the one-deal-at-a-time search gives.
"""

from __future__ import annotations

from numba import njit

from .kernel import _cycle_info, _mask, _play
from .lanes import FAST_ROUNDS
from .owner import _owner_play

ACC_FIELDS = 6  # finite, infinite, longest, its deal, rounds, stopped


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
def _settle(owner, s, rounds, over, k, hist, inf_rows, acc):
    if owner:
        _settle_owner(s, rounds, over, k, hist, inf_rows, acc)
    else:
        _settle_brute(s, rounds, over, k, hist, inf_rows, acc)
