"""Seed derivation and a counter-based generator shared by every engine.

A shard's seed comes from ``numpy.random.SeedSequence(root, spawn_key=...)``
with an explicit key (game, experiment, variant, shard), so it does not depend
on the order shards are planned or run.  Inside kernels, every game or hand
gets its own stream from ``splitmix64`` keyed by (shard seed, index): results
are then the same whatever the number of threads, and any single game can be
replayed from its shard seed and index alone.
"""

from __future__ import annotations

import zlib

import numpy as np
from numba import njit

_MASK64 = (1 << 64) - 1


def name_key(name: str) -> int:
    """A stable 32-bit integer for a name (experiment, variant) in a spawn key."""
    return zlib.crc32(name.encode("utf-8"))


def shard_seed(root: int, game: str, experiment: str, variant: str, shard: int) -> int:
    """The 64-bit seed of one shard, derived explicitly (never by stateful spawn())."""
    key = (name_key(game), name_key(experiment), name_key(variant), int(shard))
    seq = np.random.SeedSequence(int(root), spawn_key=key)
    return int(seq.generate_state(1, dtype=np.uint64)[0])


def seed_derivation(root: int, game: str, experiment: str, variant: str, shard: int) -> str:
    """Human-readable record of how a shard's seed was made (stored as provenance)."""
    return (
        f"SeedSequence({int(root)}, spawn_key=(crc32({game!r}), crc32({experiment!r}), "
        f"crc32({variant!r}), {int(shard)})).generate_state(1, uint64)"
    )


@njit(cache=True, inline="always")
def splitmix64(state: np.uint64) -> tuple:
    """One step of splitmix64: returns (new_state, output).

    The state is cast to uint64 first: a Python int below 2**63 arrives typed as
    int64, and int64 + uint64 would silently become float64 in numba."""
    s = np.uint64(state) + np.uint64(0x9E3779B97F4A7C15)
    z = s
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return s, z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_start(seed: np.uint64, index: np.int64) -> np.uint64:
    """Initial splitmix64 state of the stream for item ``index`` of a shard."""
    s, z = splitmix64(np.uint64(seed) ^ (np.uint64(index) * np.uint64(0xD1B54A32D192ED03)))
    s, z = splitmix64(z)
    return z


_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True, inline="always")
def bounded(state: np.uint64, n: np.int64) -> tuple:
    """A uniform integer in [0, n), n < 2**32: Lemire's multiply-shift with exact rejection.

    The modulo that sets the rejection threshold is only computed in the rare
    case it can matter (low word below n), which halves the cost of a draw."""
    nn = np.uint64(n)
    s, z = splitmix64(state)  # a new name: its type stays uint64 whatever ``state`` arrived as
    m = (z >> np.uint64(32)) * nn
    low = m & _MASK32
    if low < nn:
        threshold = (_TWO32 - nn) % nn
        while low < threshold:
            s, z = splitmix64(s)
            m = (z >> np.uint64(32)) * nn
            low = m & _MASK32
    return s, np.int64(m >> np.uint64(32))


@njit(cache=True)
def shuffle_inplace(state: np.uint64, a: np.ndarray) -> np.uint64:
    """Fisher-Yates shuffle of ``a`` in place; returns the advanced state."""
    s = np.uint64(state)  # a new name: its type stays uint64 whatever ``state`` arrived as
    for i in range(a.shape[0] - 1, 0, -1):
        s, j = bounded(s, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    return s


# Plain-Python twins of the generator, for the references and tests: same numbers.


def splitmix64_py(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def stream_start_py(seed: int, index: int) -> int:
    _, z = splitmix64_py((seed ^ ((index * 0xD1B54A32D192ED03) & _MASK64)) & _MASK64)
    _, z = splitmix64_py(z)
    return z


def bounded_py(state: int, n: int) -> tuple[int, int]:
    threshold = (1 << 32) % n
    while True:
        state, z = splitmix64_py(state)
        m = (z >> 32) * n
        if (m & 0xFFFFFFFF) >= threshold:
            return state, m >> 32


def shuffle_py(seed: int, index: int, a: list) -> list:
    """Plain-Python twin of ``stream_start`` + ``shuffle_inplace``."""
    state = stream_start_py(seed, index)
    a = list(a)
    for i in range(len(a) - 1, 0, -1):
        state, j = bounded_py(state, i + 1)
        a[i], a[j] = a[j], a[i]
    return a
