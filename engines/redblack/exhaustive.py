"""Exhaustive search: every canonical balanced deal of a size k by rank, in batches of chunks
on numba's threads (the chunk kernels: :mod:`.chunks`; ranks: :mod:`.ranks`)."""

from __future__ import annotations

import numpy as np

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from ..core.threads import for_each_block
from .chunks import _fast_chunk
from .kernel import PACKAGE
from .lanes import FAST_ROUNDS, lane_state
from .ranks import BINOM, unrank_deal
from .results import SearchResult
from .rules import K_MAX, canonical_deals, cycle_id_str, deal_strings, rank_deal
from .settle import ACC_FIELDS

__all__ = ["BINOM", "SEARCH_METHODS", "SearchResult", "search", "search_range", "unrank_deal"]


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


CHUNK = 1 << 16  # deals per parallel work item
BATCH_CHUNKS = 32  # chunks per kernel call (progress is reported between calls)


SEARCH_METHODS = ("brute", "owner")


def check_window(k: int, start: int, stop: int, method: str) -> None:
    """A search of ranks [start, stop) of size ``k`` by ``method`` can run (the CPU's and the GPU's)."""
    if not 1 <= k <= K_MAX:
        raise CardlabError(f"k must be between 1 and {K_MAX}, got {k}")
    if method not in SEARCH_METHODS:
        raise CardlabError(f"unknown search method {method!r}; choose one of {', '.join(SEARCH_METHODS)}")
    total = canonical_deals(k)
    if not 0 <= start <= stop <= total:
        raise CardlabError(f"rank range [{start}, {stop}) is not inside [0, {total}) for k={k}")


def search_range(k: int, start: int, stop: int, progress=None, method: str = "brute") -> SearchResult:
    """Play every canonical balanced deal of size k with rank in [start, stop).

    method "brute" plays every deal to its end or cycle; "owner" stops deals whose game
    merges into a smaller deal's (see `_owner_stops`) and still finds every cycle whose
    smallest basin deal is in the range.
    """
    check_window(k, start, stop, method)
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
