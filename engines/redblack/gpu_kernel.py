"""CUDA kernel of the exhaustive search (numba-cuda): the fast path of :mod:`.chunks` on a GPU.

Imported only by :mod:`.gpu` when the gpu backend runs (it imports numba.cuda).  Every
thread plays deals one after another, one round per step of a single loop, and takes
the next deal as soon as its deal leaves (game over, stopped by the owner rule, or out
of the round budget): there is no inner loop per deal, so a thread whose game ends
never waits for the longest game of its warp.  Deals come from a grid-wide counter in
grabs of `grab` consecutive ranks (one unrank per grab, then Gosper's hack: an unrank
is some 80 dependent steps that stall the thread's warp, so grabs are large where the
launch has deals enough, `grab_size`).

Each step computes exactly the scalar formulas of `chunks._fast_round` and
`owner._owner_stops` (shift counts masked to 0..63, so a deal that has just ended,
whose state is meaningless, computes defined garbage that a select throws away):
the finished games, their rounds and lengths are the CPU's.  A deal still running
after BUDGET rounds (a very long game or a cycle) is handed back by its bits: the host
replays it with the CPU search, so cycles never need bookkeeping here.

The budget need not be the CPU's (`lanes.FAST_ROUNDS`, which decides when the CPU replays a
deal with the exact kernel): a game that ends within either budget has its length; a deal
the owner rule stops at round r is stopped there by the exact kernel too (it checks the
stop before a cycle, and a state seen again after round 1 would have stopped it earlier);
and every other deal is the CPU's to play.  So the kernel depends on no other module, and
numba-cuda's cache of it (``cache=True``, keyed by this file) is never stale.

Per thread: finished games, rounds, the longest game and its deal (ties keep the
smaller deal, as `settle._record_finite`), written once at the end; per block: a
histogram of lengths in shared memory, added to the grid's at the end.
"""

from __future__ import annotations

import numpy as np
from numba import config, cuda, int32

BUDGET = 1 << 12  # rounds a deal plays here; one still running is handed back to the CPU
HIST = BUDGET + 1  # finished games have 1..BUDGET rounds
GRAB_MAX = 1024  # at most this many consecutive deals a thread takes from the grid's counter at once
GRABS_PER_THREAD = 8  # a launch's deals make at least this many grabs per thread, where they can
ACC = 4  # per-thread results: finished games, rounds, longest game, its deal bits
ONE = np.int64(1)
ALL = np.int64(-1)

if config.ENABLE_CUDASIM:
    # the simulator's ffs reads 32 bits only; this is the same count on a Python int

    @cuda.jit(device=True)
    def _tz(x):
        return np.int64(int(x & -x).bit_length() - 1)

else:

    @cuda.jit(device=True)
    def _tz(x):
        return np.int64(cuda.ffs(x)) - 1


@cuda.jit(device=True)
def _mask(n):
    return (ONE << (n & 63)) - 1


@cuda.jit(device=True)
def _round(L, a, O, n):
    """`chunks._fast_round`: one round with the colours renamed so the round colour is red."""
    cm = -(L & 1)
    L = L ^ cm
    O = O ^ cm
    u = _tz(L | (ALL << ((a - 1) & 63)))
    v = _tz(O | (ALL << ((n - 1 - a) & 63)))
    lf = u <= v
    mn = u if lf else v
    W = O if lf else L
    X = L if lf else O
    wl = n - a if lf else a
    xl = a if lf else n - a
    over = ((X >> (mn & 63)) & 1) == 0
    ws = mn + 1 - (1 if lf else 0)
    na = wl - ws
    rest = xl - mn - 1
    nX = ((X >> ((mn + 1) & 63)) & _mask(rest)) | (ONE << ((n - 1 - na) & 63))
    return W >> (ws & 63), na, nX, over


@cuda.jit(device=True)
def _stops(W, a, X, n, k, d):
    """`owner._owner_stops` without branches: a balanced predecessor of the state is a smaller deal than d."""
    exists = (X >> (a & 63)) == (ONE << ((n - 1 - 2 * a) & 63))
    w = W & _mask(a)
    rest = X & _mask(a)
    kept = (w << ((k - a) & 63)) | (ONE << ((n - a - 1) & 63)) | (rest << ((n - a) & 63))
    lost_exists = ((rest >> ((a - 1) & 63)) & 1) == 0
    lost = (ONE << ((k - a) & 63)) | ((rest & _mask(a - 1)) << ((k - a + 1) & 63)) | (w << ((n - a) & 63))
    return exists & ((kept < d) | (lost_exists & (lost < d)))


@cuda.jit(device=True)
def _unrank(rank, k, binom):
    """`ranks._unrank`: the rank-th k-subset in colex order, as bits."""
    x = np.int64(0)
    for i in range(k, 0, -1):
        c = i - 1
        while binom[c + 1, i] <= rank:
            c += 1
        rank -= binom[c, i]
        x |= ONE << c
    return x


@cuda.jit(device=True)
def _next_subset(x):
    """Gosper's hack (`ranks._next_subset`): the next subset in colex order."""
    u = x & -x
    v = x + u
    return v | (((v ^ x) >> 2) >> (_tz(x) & 63))


def grab_size(count: int, threads: int) -> int:
    """Deals per grab for a launch of `count` deals on `threads` threads."""
    return max(1, min(GRAB_MAX, count // (threads * GRABS_PER_THREAD)))


@cuda.jit(cache=True)
def search(owner, k, r0, count, grab, binom, counter, hist, acc, handed, n_handed):
    """Deals of ranks r0..r0+count-1 (owner rule or brute force), `grab` at a time; counter[0] is
    the next deal index to take (starts at 0).

    hist: finished games by rounds; acc: (threads, ACC) per-thread results; handed:
    deal bits of the deals that used the round budget, n_handed[0] of them (those
    beyond handed's length are counted, not kept)."""
    shist = cuda.shared.array(HIST, int32)
    tid = cuda.threadIdx.x
    for i in range(tid, HIST, cuda.blockDim.x):
        shist[i] = 0
    cuda.syncthreads()
    n = 2 * k
    mk = _mask(k)
    finite = np.int64(0)
    rounds = np.int64(0)
    longest = np.int64(0)
    longest_s = np.int64(-1)
    first = cuda.atomic.add(counter, 0, grab)
    active = first < count
    left = min(grab, count - first) - 1
    x = np.int64(0)
    if active:
        x = _unrank(r0 + first, k, binom)
    s = x << 1
    L = s & mk
    O = s >> k
    a = k
    c = np.int64(0)
    while active:
        L, a, O, over = _round(L, a, O, n)
        c += 1
        if owner:
            leaves = over | _stops(L, a, O, n, k, s)
        else:
            leaves = over
        if leaves | (c >= BUDGET):
            if over:
                finite += 1
                rounds += c
                cuda.atomic.add(shist, c, 1)
                if c > longest or (c == longest and s < longest_s):
                    longest = c
                    longest_s = s
            elif leaves:  # stopped by the owner rule
                rounds += c
            else:  # out of budget: the host replays it (and counts its rounds)
                slot = cuda.atomic.add(n_handed, 0, 1)
                if slot < handed.shape[0]:
                    handed[slot] = s
            if left > 0:
                x = _next_subset(x)
                left -= 1
            else:
                first = cuda.atomic.add(counter, 0, grab)
                if first < count:
                    left = min(grab, count - first) - 1
                    x = _unrank(r0 + first, k, binom)
                else:
                    active = False
            s = x << 1
            L = s & mk
            O = s >> k
            a = k
            c = np.int64(0)
    g = cuda.grid(1)
    acc[g, 0] = finite
    acc[g, 1] = rounds
    acc[g, 2] = longest
    acc[g, 3] = longest_s
    cuda.syncthreads()
    for i in range(tid, HIST, cuda.blockDim.x):
        if shist[i] != 0:
            cuda.atomic.add(hist, i, np.int64(shist[i]))
