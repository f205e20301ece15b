"""Kernels run on several cores without numba's parallel loops.

A ``parallel=True`` kernel costs a second optimisation of everything it calls (numba links
the loop body into a gufunc and optimises the whole again at O3): for the Narcotic kernel
that was about 24 of its 60 CPU-s of compile on a fresh machine, for a speed-up that a pool
of Python threads gives as well, since the kernels release the GIL (``nogil=True``) and
each block of work writes only its own rows.  Results never depend on the thread count.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba


def set_threads(threads: int) -> int:
    """Numba follows a job's thread count (Snakemake only caps OMP/BLAS); returns numba's count."""
    n = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)
    return numba.get_num_threads()


def for_each_block(run: Callable[[int], object], blocks: int) -> None:
    """Call ``run(b)`` for every block b in 0..blocks-1: in order on this thread when numba's
    thread count (``numba.set_num_threads``) is 1, else on that many threads, each taking the
    next block when it is done with one (blocks differ in cost: games a hundredfold)."""
    threads = min(numba.get_num_threads(), blocks)
    if threads <= 1:
        for b in range(blocks):
            run(b)
        return
    with ThreadPoolExecutor(threads) as pool:
        for done in pool.map(run, range(blocks)):
            del done  # map re-raises a block's exception here


def for_each_range(run: Callable[[int, int], object], total: int, size: int) -> None:
    """Call ``run(lo, hi)`` for consecutive ranges of ``size`` items covering 0..total-1, as
    :func:`for_each_block` calls its blocks (the last range may be shorter)."""
    for_each_block(lambda b: run(b * size, min(total, (b + 1) * size)), -(-total // size))
