"""Narcotic speed: numba kernel games/s on one core, ratio to the plain-Python
reference measured in this same run, and the 2-core speed-up.

    .venv/bin/python bench/narcotic.py [--games 200000] [--ref-games 300]

Targets (issue 2): >= 75,000 seed-rule games/s per core; >= 1.8x on 2 cores.
Timings on a shared machine are noisy: each figure is the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from engines.narcotic import Rules, play, play_reference, shuffled_decks

TARGET_PER_CORE = 75_000
TARGET_SPEEDUP = 1.8


def best_rate(fn, games: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return games / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--ref-games", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    decks = shuffled_decks(np.uint64(2026), 0, args.games)
    cores = min(2, numba.config.NUMBA_NUM_THREADS)
    print(
        f"Narcotic benchmark: {args.games:,} games per kernel run, best of {args.repeat}; "
        f"reference on {args.ref_games} games"
    )
    print(f"{'rules':8} {'1 core games/s':>15} {'vs reference':>13} {f'{cores} cores games/s':>16} {'speed-up':>9}")
    ok = True
    for name in ("seed", "classic"):
        rules = Rules.preset(name)
        play(decks[:100], rules)  # compile outside the timing
        numba.set_num_threads(1)
        one = best_rate(lambda: play(decks, rules), args.games, args.repeat)
        numba.set_num_threads(cores)
        many = best_rate(lambda: play(decks, rules), args.games, args.repeat)
        t = time.perf_counter()
        for d in decks[: args.ref_games]:
            play_reference(list(d), rules)
        ref = args.ref_games / (time.perf_counter() - t)
        print(f"{name:8} {one:15,.0f} {one / ref:12,.0f}x {many:16,.0f} {many / one:8.2f}x")
        if name == "seed":
            ok &= one >= TARGET_PER_CORE and (cores < 2 or many / one >= TARGET_SPEEDUP)
    print(
        f"targets: seed >= {TARGET_PER_CORE:,} games/s per core and >= {TARGET_SPEEDUP}x on 2 cores: "
        f"{'met' if ok else 'NOT met (a loaded machine lowers both)'}"
    )


if __name__ == "__main__":
    main()
