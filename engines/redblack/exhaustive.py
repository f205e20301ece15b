"""Exhaustive search: every canonical balanced deal of a size k by rank (combinatorial number system)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.errors import CardlabError
from .kernel import _cycle_info, _mask, _play
from .rules import K_MAX, canonical_deals, cycle_id_str, to_bits, to_str


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


def rank_deal(p1: str, p2: str) -> int:
    """Inverse of ``unrank_deal`` for a canonical balanced deal."""
    s = to_bits(p1 + p2) >> 1
    ones = [i for i in range(2 * len(p1) - 1) if (s >> i) & 1]
    return sum(math.comb(c, i + 1) for i, c in enumerate(ones))


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


@njit(cache=True, parallel=True)
def _search_batch(k, starts, stops, binom, H, cap):
    """Chunks in parallel; each chunk's results land in its own row, so threads never share state."""
    nch = starts.shape[0]
    hist = np.zeros((nch, H), dtype=np.int64)
    inf_rows = np.zeros((nch, cap, 4), dtype=np.int64)
    stats = np.zeros((nch, 4), dtype=np.int64)
    for ch in prange(nch):
        f, n_inf, longest, deal = _search_chunk(k, starts[ch], stops[ch], binom, hist[ch], inf_rows[ch])
        stats[ch, 0] = f
        stats[ch, 1] = n_inf
        stats[ch, 2] = longest
        stats[ch, 3] = deal
    return hist, inf_rows, stats


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

    @property
    def infinite_count(self) -> int:
        return self.deals - self.finite


CHUNK = 1 << 13  # deals per parallel work item
BATCH_CHUNKS = 256  # chunks per kernel call (progress is reported between calls)


def _deal_strings(s: int, a: int, n: int) -> tuple[str, str]:
    return to_str(s & ((1 << a) - 1), a), to_str(s >> a, n - a)


def search_range(k: int, start: int, stop: int, progress=None) -> SearchResult:
    """Play every canonical balanced deal of size k with rank in [start, stop)."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    total = canonical_deals(k)
    if not 0 <= start <= stop <= total:
        raise CardlabError(f"rank range [{start}, {stop}) is not inside [0, {total}) for k={k}")
    H, cap = 1024, 8
    lengths = np.zeros(H, dtype=np.int64)
    finite, longest, longest_s = 0, 0, -1
    infinite: list[dict] = []
    pos = start
    while pos < stop:
        end = min(stop, pos + CHUNK * BATCH_CHUNKS)
        edges = np.arange(pos, end, CHUNK, dtype=np.int64)
        starts, stops = edges, np.minimum(edges + CHUNK, end).astype(np.int64)
        while True:
            hist, rows, stats = _search_batch(k, starts, stops, BINOM, H, cap)
            max_rounds = int(stats[:, 2].max()) if len(stats) else 0
            most_inf = int(stats[:, 1].max()) if len(stats) else 0
            if max_rounds < H and most_inf <= cap:
                break
            # a rare long game or crowded chunk: redo this batch with room for it (results stay exact)
            H = max(H, 1 << int(max_rounds).bit_length())
            cap = max(cap, most_inf)
            lengths = np.concatenate([lengths, np.zeros(H - len(lengths), dtype=np.int64)])
        lengths[:H] += hist.sum(axis=0)
        finite += int(stats[:, 0].sum())
        for ch in range(len(starts)):  # chunks in rank order: ties keep the lowest rank
            if stats[ch, 2] > longest:
                longest, longest_s = int(stats[ch, 2]), int(stats[ch, 3])
            for r in range(int(stats[ch, 1])):
                s, mu, period, key = (int(v) for v in rows[ch, r])
                p1, p2 = _deal_strings(s, k, 2 * k)
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
    longest_deal = _deal_strings(longest_s, k, 2 * k) if longest_s >= 0 else ("", "")
    return SearchResult(k, stop - start, finite, np.trim_zeros(lengths, "b"), longest, longest_deal, infinite)


def search(k: int, progress=None) -> SearchResult:
    """Every canonical balanced deal of size k."""
    return search_range(k, 0, canonical_deals(k), progress)
