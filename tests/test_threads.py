"""Kernels on several threads without prange: every block runs once, errors surface, the GIL is released."""

from __future__ import annotations

import threading
import time

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
def _spin(seconds_ns, out, i):
    # busy for a while without the GIL (no sleep: the kernel itself must run concurrently)
    t = 0
    for k in range(seconds_ns):
        t += k % 7
    out[i] = t


def test_blocks_of_a_nogil_kernel_overlap_in_time(two_threads):
    if two_threads < 2:
        pytest.skip("numba has one thread here (NUMBA_NUM_THREADS=1)")
    out = np.zeros(4, dtype=np.int64)
    _spin(10, out, 0)  # compile outside the timing
    spans: list[tuple[float, float]] = []

    def run(b: int) -> None:
        t0 = time.perf_counter()
        _spin(40_000_000, out, b)
        spans.append((t0, time.perf_counter()))

    for_each_block(run, 4)
    spans.sort()
    # with the GIL held, no two calls could be inside the kernel at the same time
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize(("total", "size"), [(0, 4), (10, 4), (12, 4), (3, 128)])
def test_ranges_tile_the_items_once(total, size, two_threads):
    got: list[tuple[int, int]] = []
    lock = threading.Lock()

    def run(lo: int, hi: int) -> None:
        with lock:
            got.append((lo, hi))

    for_each_range(run, total, size)
    assert sorted(got) == [(lo, min(total, lo + size)) for lo in range(0, total, size)]
