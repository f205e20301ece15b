"""Blackjack benchmark: exact calculator time and simulator hands/s on one core.

    .venv/bin/python bench/blackjack.py [--hands 20000000]

Targets: every exact variant (decks 1..8, inf x soft17 x peek) in
under one second in total; at least 20 million dealer hands per second per core;
two cores at least 1.8x one core.
The simulator is compared with the vectorised numpy version and the plain-Python
reference in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time

import numba
import numpy as np
from verdicts import Verdicts

from engines import blackjack as bj


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def bench_exact() -> None:
    bj.clear_exact_cache()
    t8, _ = timed(bj.exact_table, 8, "stand", "no")
    bj.clear_exact_cache()
    t0 = time.perf_counter()
    n = 0
    for decks in bj.DECKS:
        for soft17 in bj.SOFT17:
            for peek in bj.PEEK:
                bj.exact_table(decks, soft17, peek)
                n += 1
    total = time.perf_counter() - t0
    print(f"exact: all upcards, 8 decks, stand soft 17: {t8 * 1e3:8.1f} ms")
    print(
        f"exact: all {n} variants (decks 1..8, inf x soft17 x peek): {total * 1e3:8.1f} ms "
        f"{VERDICTS.at_most('all exact variants, ms', total * 1e3, EXACT_ALL_MS)}"
    )


EXACT_ALL_MS = 1000.0  # every exact variant's table, together
HANDS_M_PER_S = 20.0  # simulated dealer hands a second on one core, millions
TWO_CORE_SPEEDUP = 1.8
VERDICTS = Verdicts("blackjack")


def best_time(repeat: int, fn, *args) -> float:
    return min(timed(fn, *args)[0] for _ in range(repeat))


def bench_sim(hands: int, repeat: int) -> None:
    upcard, decks = 10, "6"
    cores = min(2, numba.config.NUMBA_NUM_THREADS)
    for mode in bj.SHOES:
        bj.simulate(1, upcard, decks, "stand", mode, 1000)  # compile / load the cache
        numba.set_num_threads(1)  # per-core rate
        rate = hands / best_time(repeat, bj.simulate, 2, upcard, decks, "stand", mode, hands)
        numba.set_num_threads(cores)
        many = hands / best_time(repeat, bj.simulate, 2, upcard, decks, "stand", mode, hands)
        numba.set_num_threads(1)
        print(
            f"numba {mode:10s}: {rate / 1e6:6.1f} M hands/s on 1 core "
            f"{VERDICTS.at_least(f'{mode} M hands/s on 1 core', rate / 1e6, HANDS_M_PER_S)}, "
            f"{many / 1e6:6.1f} M on {cores} cores = {many / rate:.2f}x "
            f"{VERDICTS.at_least(f'{mode} speed-up on {cores} cores', many / rate, TWO_CORE_SPEEDUP)}"
        )
        if mode == "fresh":
            fresh_rate = rate
    n_np = max(hands // 20, 10_000)
    dt, _ = timed(bj.simulate_numpy, np.random.default_rng(3), upcard, decks, "stand", n_np)
    np_rate = n_np / dt
    n_py = 30_000
    dt, _ = timed(bj.simulate_py, 4, upcard, decks, "stand", "fresh", n_py)
    py_rate = n_py / dt
    print(f"numpy vectorised fresh: {np_rate / 1e6:8.2f} M hands/s   numba/numpy  = {fresh_rate / np_rate:6.1f}x")
    print(f"plain Python reference: {py_rate / 1e6:8.3f} M hands/s   numba/python = {fresh_rate / py_rate:6.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000_000, help="hands per simulator timing")
    ap.add_argument("--repeat", type=int, default=3, help="timings per figure; the best is kept")
    args = ap.parse_args()
    bench_exact()
    bench_sim(args.hands, args.repeat)
    sys.exit(VERDICTS.summary())


if __name__ == "__main__":
    main()
