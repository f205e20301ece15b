"""Kernels on several threads without prange: every block runs once, errors surface, the GIL is released."""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest
from numba import njit

from engines.core.threads import for_each_block, for_each_range


@pytest.fixture
def two_threads():
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield numba.get_num_threads()
    numba.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
def test_every_block_runs_exactly_once(threads):
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    seen: list[int] = []
    lock = threading.Lock()

    def run(b: int) -> None:
        with lock:
            seen.append(b)

    for_each_block(run, 37)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert sorted(seen) == list(range(37))


def test_a_failing_block_fails_the_call(two_threads):
    def run(b: int) -> None:
        if b == 5:
            raise ValueError("block 5")

    with pytest.raises(ValueError, match="block 5"):
        for_each_block(run, 8)


@njit(nogil=True)
def _meet(flags, me, other, most):
    """A two-party barrier inside the kernel: set my flag, then wait, holding no GIL, until the other
    block's flag is set (True), or give up after ``most`` turns (False: the blocks never overlapped)."""
    flags[me] = 1
    for turn in range(most):
        flags[2 + me] = turn  # a store into the array each turn: the other's flag is read again each turn
        if flags[other] != 0:
            return True
    return False


def test_blocks_of_a_nogil_kernel_overlap_in_time(two_threads):
    """Two blocks meet inside the kernel: each waits there for the other's flag.  With the GIL held in
    the kernel, or the blocks run one after the other, the first would never see the second's flag;
    running side by side they meet at once.  An explicit barrier, no clock: ``most`` is only the
    bound of the failing case (minutes of spinning, never reached when the blocks overlap)."""
    if two_threads < 2:
        pytest.skip("numba has one thread here (NUMBA_NUM_THREADS=1)")
    flags = np.zeros(4, dtype=np.int64)
    met = [False, False]

    def run(b: int) -> None:
        met[b] = _meet(flags, b, 1 - b, 10**11)

    for_each_block(run, 2)
    assert met == [True, True]


@pytest.mark.parametrize(("total", "size"), [(0, 4), (10, 4), (12, 4), (3, 128)])
def test_ranges_tile_the_items_once(total, size, two_threads):
    got: list[tuple[int, int]] = []
    lock = threading.Lock()

    def run(lo: int, hi: int) -> None:
        with lock:
            got.append((lo, hi))

    for_each_range(run, total, size)
    assert sorted(got) == [(lo, min(total, lo + size)) for lo in range(0, total, size)]
