"""The exhaustive search on an NVIDIA GPU (numba-cuda): the ``gpu`` backend, bit-identical to the CPU's.

`search_range_gpu` has `exhaustive.search_range`'s signature and returns the same
`SearchResult`.  The rank range is cut into batches of at most BATCH deals, one kernel
launch each (:mod:`.gpu_kernel`: every thread plays deals one after another, taking
the next from a grid-wide counter as soon as one leaves).  A launch returns the
histogram of finished games' lengths, per-thread counts, rounds and longest game, and
the deals that used the kernel's round budget (`gpu_kernel.BUDGET`: very long games and
cycles); each of those is replayed alone by the CPU search (`search_range` on its one
rank).  So every count, the rounds, the histogram, the longest game (ties: the lowest
rank) and the infinite deals with their cycles are the CPU's.  numba-cuda compiles the
kernel on its first launch in a process (a few seconds) and caches it on disk beside
numba's other caches.

numba.cuda is imported only here, when the backend runs: without numba-cuda
(``pip install -e .[gpu]``) or without a CUDA device the backend raises a one-line
CardlabError.  ``NUMBA_ENABLE_CUDASIM=1`` runs it on numba-cuda's simulator (tests;
give a tiny grid).
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np

from ..core.errors import CardlabError
from ..kinds import GPU_MARK
from .exhaustive import check_window, search_range
from .results import SearchResult
from .rules import K_MAX, deal_strings, rank_deal, to_bits

BATCH = 1 << 30  # deals per kernel launch (progress is reported between launches)
THREADS = 256  # threads per block
BLOCKS_PER_SM = 4  # ptxas 12.9 for sm_90: 51 registers a thread (56 allocated), so 4 blocks of 256 fit an SM
SIM_GRID = (2, 4)  # blocks, threads under the simulator (its threads are Python threads)
HANDED = 1 << 16  # room for deals handed back per launch; a launch with more is redone with room

INSTALL_HINT = "pip install -e .[gpu]"


def _binomials() -> np.ndarray:
    n = 2 * K_MAX
    return np.array([[math.comb(i, r) for r in range(n + 1)] for i in range(n + 1)], dtype=np.int64)


def has_numba_cuda() -> bool:
    """numba-cuda is installed (numba's own numba.cuda, deprecated, is not used)."""
    return importlib.util.find_spec("numba_cuda") is not None


def cuda_module():
    """numba.cuda from numba-cuda, with a device (or the simulator); else a one-line CardlabError."""
    if not has_numba_cuda():
        raise CardlabError(f"the gpu backend needs numba-cuda, which is not installed: {INSTALL_HINT}")
    from numba import config, cuda

    if not config.ENABLE_CUDASIM and not cuda.is_available():
        raise CardlabError(
            "the gpu backend found no CUDA device (numba.cuda.is_available() is false: no NVIDIA GPU or "
            "driver here); use backend scalar, or NUMBA_ENABLE_CUDASIM=1 for numba-cuda's simulator"
        )
    return cuda


def device_name() -> str:
    """The GPU a shard ran on, as its timing record names it, e.g. ``NVIDIA H200 (gpu, numba-cuda)``."""
    cuda = cuda_module()
    from numba import config

    if config.ENABLE_CUDASIM:
        return f"numba-cuda simulator {GPU_MARK})"
    name = cuda.get_current_device().name
    return f"{name.decode() if isinstance(name, bytes) else name} {GPU_MARK}, numba-cuda)"


def _support_errors() -> tuple[type[BaseException], ...]:
    """numba-cuda's errors for a missing CUDA toolkit part (NVVM, the driver): caught and explained."""
    try:
        from numba.cuda.cudadrv.error import CudaSupportError, NvvmSupportError
    except ImportError:  # the simulator
        return ()
    return NvvmSupportError, CudaSupportError


def default_grid(cuda) -> tuple[int, int]:
    """(blocks, threads per block): a few blocks per multiprocessor, or SIM_GRID under the simulator."""
    from numba import config

    if config.ENABLE_CUDASIM:
        return SIM_GRID
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    return sms * BLOCKS_PER_SM, THREADS


def _launch(cuda, owner, grid, k, r0, count, binom, handed_room):
    """One kernel launch on ranks [r0, r0 + count): (hist, per-thread acc, handed deal bits, their count)."""
    # here, not at the top: gpu_kernel imports numba.cuda (0.2 s), which every CPU search job would pay,
    # and which must see NUMBA_ENABLE_CUDASIM as the process sets it
    from . import gpu_kernel

    blocks, threads = grid
    grab = gpu_kernel.grab_size(count, blocks * threads)
    counter = cuda.to_device(np.zeros(1, dtype=np.int64))
    hist = cuda.to_device(np.zeros(gpu_kernel.HIST, dtype=np.int64))
    acc = cuda.to_device(np.zeros((blocks * threads, gpu_kernel.ACC), dtype=np.int64))
    handed = cuda.to_device(np.zeros(handed_room, dtype=np.int64))
    n_handed = cuda.to_device(np.zeros(1, dtype=np.int64))
    try:
        gpu_kernel.search[blocks, threads](
            owner,
            np.int64(k),
            np.int64(r0),
            np.int64(count),
            np.int64(grab),
            binom,
            counter,
            hist,
            acc,
            handed,
            n_handed,
        )
    except _support_errors() as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CardlabError(f"the gpu backend cannot compile for the GPU ({first}): {INSTALL_HINT}") from e
    nh = int(n_handed.copy_to_host()[0])
    return hist.copy_to_host(), acc.copy_to_host(), handed.copy_to_host()[: min(nh, handed_room)], nh


class _Totals:
    """The search's results so far, merged the way `exhaustive.search_range` merges its chunks."""

    def __init__(self, k: int):
        self.k = k
        self.lengths = np.zeros(0, dtype=np.int64)
        self.finite = 0
        self.rounds = 0
        self.longest = 0
        self.longest_s = -1  # deal bits; they grow with the rank, so a tie keeps the lowest
        self.infinite: list[dict] = []
        self.replayed_stopped = 0

    def add_lengths(self, hist: np.ndarray) -> None:
        if len(hist) > len(self.lengths):
            self.lengths = np.concatenate([self.lengths, np.zeros(len(hist) - len(self.lengths), dtype=np.int64)])
        self.lengths[: len(hist)] += hist

    def add_longest(self, rounds: int, s: int) -> None:
        if rounds > self.longest or (rounds == self.longest and rounds > 0 and s < self.longest_s):
            self.longest, self.longest_s = rounds, s

    def add_launch(self, hist: np.ndarray, acc: np.ndarray) -> None:
        self.add_lengths(hist)
        self.finite += int(acc[:, 0].sum())
        self.rounds += int(acc[:, 1].sum())
        top = int(acc[:, 2].max()) if len(acc) else 0
        if top > 0:
            self.add_longest(top, int(acc[acc[:, 2] == top, 3].min()))

    def add_replay(self, res: SearchResult) -> None:
        """A handed-back deal, replayed alone by the CPU search."""
        self.add_lengths(res.lengths)
        self.finite += res.finite
        self.rounds += res.rounds
        self.replayed_stopped += res.stopped
        if res.longest_rounds > 0:
            p1, p2 = res.longest_deal
            self.add_longest(res.longest_rounds, to_bits(p1 + p2))
        self.infinite += res.infinite


def search_range_gpu(
    k: int, start: int, stop: int, progress=None, method: str = "brute", grid: tuple[int, int] | None = None
) -> SearchResult:
    """`exhaustive.search_range` on a GPU: every canonical balanced deal of size k with rank in [start, stop).

    grid: (blocks, threads per block); by default a few blocks per multiprocessor (tiny
    under the simulator)."""
    check_window(k, start, stop, method)
    cuda = cuda_module()
    grid = tuple(grid) if grid else default_grid(cuda)
    binom = cuda.to_device(_binomials())
    totals = _Totals(k)
    room = HANDED
    pos = start
    while pos < stop:
        count = min(BATCH, stop - pos)
        while True:
            hist, acc, handed, nh = _launch(cuda, method == "owner", grid, k, pos, count, binom, room)
            if nh <= room:
                break
            room = 1 << nh.bit_length()  # a crowded batch: redo it with room for every handed deal
        totals.add_launch(hist, acc)
        for s in sorted(int(v) for v in handed):
            rank = rank_deal(*deal_strings(s, k, 2 * k))
            totals.add_replay(search_range(k, rank, rank + 1, method=method))
        if progress is not None:
            progress.update(count)
        pos += count
    infinite = sorted(totals.infinite, key=lambda row: row["deal_index"])
    longest_deal = deal_strings(totals.longest_s, k, 2 * k) if totals.longest_s >= 0 else ("", "")
    deals = stop - start
    stopped = deals - totals.finite - len(infinite) if method == "owner" else 0
    return SearchResult(
        k,
        deals,
        totals.finite,
        np.trim_zeros(totals.lengths, "b"),
        totals.longest,
        longest_deal,
        infinite,
        stopped,
        totals.rounds,
        method,
    )
