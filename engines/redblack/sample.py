"""Seeded sampling of deals where exhaustive search is out of reach (e.g. the full deck)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from ..core.rng import bounded, stream_start
from ..core.threads import for_each_range
from .kernel import PACKAGE, _cycle_info, _mask, _play
from .owner import _owner_play
from .results import SearchResult
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


def _sample_batch(seed, i0, i1, k, balanced):
    """Play deals i0..i1-1 of a shard: per deal (deck bits, P1 cards, rounds, mu, period, cycle key)."""
    return _in_blocks(_sample_block, seed, i0, i1, k, balanced)


def _owner_sample_batch(seed, i0, i1, k):
    """Deals i0..i1-1 of a balanced shard under the owner rule, each against its own rank:
    per deal (canonical deal bits, rounds played, stopped, mu, period, cycle key; period 0 if not a cycle).

    Uniformly drawn deals measure what an owner-rule search costs per deal on average,
    which a contiguous window of ranks (structured deals) does not."""
    return _in_blocks(_owner_sample_block, seed, i0, i1, k)


SAMPLE_BLOCK = 4096  # deals per block of work on a thread


def _in_blocks(kernel, seed, i0, i1, k, *args) -> np.ndarray:
    """``kernel`` on deals i0..i1-1 in blocks of SAMPLE_BLOCK on numba's thread count, one row per deal."""
    out = np.zeros((i1 - i0, 6), dtype=np.int64)
    seed, k = np.uint64(seed), np.int64(k)
    for_each_range(lambda lo, hi: kernel(seed, np.int64(i0 + lo), out[lo:hi], k, *args), len(out), SAMPLE_BLOCK)
    return out


@njit(cache=True, nogil=True)
def _sample_block(seed, i0, out, k, balanced):
    """Deals i0.. of a shard into the rows of ``out``."""
    for t in range(out.shape[0]):
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


@njit(cache=True, nogil=True)
def _owner_sample_block(seed, i0, out, k):
    """Deals i0.. of a balanced shard, under the owner rule, into the rows of ``out``."""
    full = _mask(2 * k)
    for t in range(out.shape[0]):
        s, a = _random_deal(seed, i0 + t, k, True)
        if s & 1:  # the canonical member of the colour-swap pair: player 1's first card red
            s = ~s & full
        rounds, lam, stopped = _owner_play(s, k)
        out[t, 0] = s
        out[t, 1] = rounds
        out[t, 2] = np.int64(stopped)
        if lam > 0:
            mu, period, key, sym = _cycle_info(s & _mask(k), k, s >> k, k, lam)
            out[t, 3] = mu
            out[t, 4] = period
            out[t, 5] = key


class _Tally:
    """What a sample shard reports, accumulated batch by batch: finished games by length, the
    longest one (the first deal to reach it), and the deals that entered a cycle (canonical form)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.lengths = np.zeros(0, dtype=np.int64)
        self.finite = self.longest = 0
        self.longest_deal = ("", "")
        self.infinite: list[dict] = []

    def add(self, b0, bits, p1_cards, rounds, done, cycle, mu_period_key) -> None:
        n = 2 * self.k
        self.finite += int(done.sum())
        counts = np.bincount(rounds[done], minlength=len(self.lengths))
        self.lengths = np.concatenate([self.lengths, np.zeros(len(counts) - len(self.lengths), dtype=np.int64)])
        self.lengths += counts
        if done.any():
            t = int(np.argmax(np.where(done, rounds, -1)))  # first deal with the most rounds
            if rounds[t] > self.longest:
                self.longest = int(rounds[t])
                self.longest_deal = deal_strings(int(bits[t]), int(p1_cards[t]), n)
        for t in np.flatnonzero(cycle):
            p1, p2 = canonical(*deal_strings(int(bits[t]), int(p1_cards[t]), n))
            mu, period, key = (int(v) for v in mu_period_key[t])
            self.infinite.append(
                {
                    "p1": p1,
                    "p2": p2,
                    "deal_index": b0 + int(t),
                    "cycle_id": cycle_id_str(key, n),
                    "rounds_before_cycle": mu,
                    "period": period,
                }
            )

    def result(self, deals: int, **extra) -> SearchResult:
        t = self
        return SearchResult(
            t.k, deals, t.finite, np.trim_zeros(t.lengths, "b"), t.longest, t.longest_deal, t.infinite, **extra
        )


def owner_sample_range(k: int, seed: int, start: int, stop: int, progress=None, batch: int = 1 << 16) -> SearchResult:
    """Balanced deals start..stop-1 of the seeded stream played under the owner rule (method "owner").

    finite, lengths and the longest game count games played to their end; stopped deals
    merge into a smaller deal's game; rounds counts every round played."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    tally = _Tally(k)
    stopped = rounds_played = 0
    for b0 in range(start, stop, batch):
        b1 = min(stop, b0 + batch)
        with compiling_alone([_owner_sample_block], PACKAGE):
            out = _owner_sample_batch(np.uint64(seed), np.int64(b0), np.int64(b1), k)
        rounds_played += int(out[:, 1].sum())
        stop_mask = out[:, 2] == 1
        cycle = out[:, 4] > 0
        done = ~stop_mask & ~cycle
        stopped += int(stop_mask.sum())
        tally.add(b0, out[:, 0], np.full(len(out), k), out[:, 1], done, cycle, out[:, 3:6])
        if progress is not None:
            progress.update(b1 - b0)
    return tally.result(stop - start, stopped=stopped, rounds=rounds_played, method="owner")


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
    tally = _Tally(k)
    for b0 in range(start, stop, batch):
        b1 = min(stop, b0 + batch)
        with compiling_alone([_sample_block], PACKAGE):
            out = _sample_batch(np.uint64(seed), np.int64(b0), np.int64(b1), k, balanced)
        rounds = out[:, 2]
        done = rounds >= 0
        tally.add(b0, out[:, 0], out[:, 1], rounds, done, ~done, out[:, 3:6])
        if progress is not None:
            progress.update(b1 - b0)
    # rounds of the finished games (an infinite deal's rounds until detection are not counted)
    lengths = np.trim_zeros(tally.lengths, "b")
    return tally.result(stop - start, rounds=int((np.arange(len(lengths)) * lengths).sum()))
