"""Seeded sampling of deals where exhaustive search is out of reach (e.g. the full deck)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.errors import CardlabError
from ..core.rng import bounded, stream_start
from .exhaustive import SearchResult
from .kernel import _cycle_info, _mask, _play
from .rules import K_MAX, canonical, cycle_id_str, deal_strings


@njit(cache=True, inline="always")
def _random_deal(seed, index, k, balanced):
    """Deal `index` of a shard: a uniformly shuffled deck of k red and k black cards.

    Balanced: player 1 gets the first k cards.  Otherwise the deck is cut at a uniform
    point, so player 1 holds 1..2k-1 cards.  Returns (deck bits, player 1's cards).
    """
    n = 2 * k
    state = stream_start(seed, index)
    s = np.int64(0)
    black_left = k
    for pos in range(n):  # selection sampling: uniform over all arrangements
        state, r = bounded(state, n - pos)
        if r < black_left:
            s |= np.int64(1) << pos
            black_left -= 1
    a = k
    if not balanced:
        state, r = bounded(state, n - 1)
        a = r + 1
    return s, a


@njit(cache=True, parallel=True)
def _sample_batch(seed, i0, i1, k, balanced):
    """Play deals i0..i1-1 of a shard: per deal (deck bits, P1 cards, rounds, mu, period, cycle key)."""
    n = i1 - i0
    out = np.zeros((n, 6), dtype=np.int64)
    for t in prange(n):
        s, a = _random_deal(seed, i0 + t, k, balanced)
        L = s & _mask(a)
        O = s >> a
        rounds, lam, side = _play(L, a, O, 2 * k - a)
        out[t, 0] = s
        out[t, 1] = a
        out[t, 2] = rounds if lam == 0 else -1
        if lam > 0:
            mu, period, key, sym = _cycle_info(L, a, O, 2 * k - a, lam)
            out[t, 3] = mu
            out[t, 4] = period
            out[t, 5] = key
    return out


def sample_deal(seed: int, index: int, k: int, balanced: bool) -> tuple[str, str]:
    """Deal ``index`` of a sample shard with this seed, as ``(P1, P2)`` (for replaying a sample)."""
    s, a = _random_deal(np.uint64(seed), np.int64(index), k, balanced)
    return deal_strings(int(s), int(a), 2 * k)


def sample_range(
    k: int, seed: int, start: int, stop: int, balanced: bool = True, progress=None, batch: int = 1 << 16
) -> SearchResult:
    """Play deals start..stop-1 of the seeded stream ``seed`` (deal i uses splitmix64 stream i)."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    lengths = np.zeros(0, dtype=np.int64)
    finite, longest, longest_deal = 0, 0, ("", "")
    infinite: list[dict] = []
    for b0 in range(start, stop, batch):
        b1 = min(stop, b0 + batch)
        out = _sample_batch(np.uint64(seed), np.int64(b0), np.int64(b1), k, balanced)
        rounds = out[:, 2]
        done = rounds >= 0
        finite += int(done.sum())
        counts = np.bincount(rounds[done], minlength=len(lengths))
        lengths = np.concatenate([lengths, np.zeros(len(counts) - len(lengths), dtype=np.int64)]) + counts
        if done.any():
            t = int(np.argmax(np.where(done, rounds, -1)))  # first deal with the most rounds
            if rounds[t] > longest:
                longest = int(rounds[t])
                longest_deal = deal_strings(int(out[t, 0]), int(out[t, 1]), 2 * k)
        for t in np.flatnonzero(~done):
            p1, p2 = canonical(*deal_strings(int(out[t, 0]), int(out[t, 1]), 2 * k))
            infinite.append(
                {
                    "p1": p1,
                    "p2": p2,
                    "deal_index": b0 + int(t),
                    "cycle_id": cycle_id_str(int(out[t, 5]), 2 * k),
                    "rounds_before_cycle": int(out[t, 3]),
                    "period": int(out[t, 4]),
                }
            )
        if progress is not None:
            progress.update(b1 - b0)
    lengths = np.trim_zeros(lengths, "b")
    # rounds of the finished games (an infinite deal's rounds until detection are not counted)
    rounds = int((np.arange(len(lengths)) * lengths).sum())
    return SearchResult(k, stop - start, finite, lengths, longest, longest_deal, infinite, rounds=rounds)
