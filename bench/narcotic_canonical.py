"""Narcotic's canonical enumeration: canonical decks a CPU-second (one core, seed rules) at r = 5
and r = 6 on windows at the start, the middle and the end of the ranks, against the independent C
simulator of ../shared/anchors/ timed in the same run, and the price of every deck of r = 5 and r = 6.

    .venv/bin/python bench/narcotic_canonical.py [--decks 1000000] [--c-games 200000] [--repeat 3]

The C simulator plays full 52-card decks only (its deck length is fixed), so the same decks cannot go
through both: the comparison is a canonical deck of r values against a C game of the full deck, each
a whole game to its end, and cardlab's own kernel on the C program's full decks beside them (the ratio
of like with like). Target (issue 51): canonical decks at r = 5 at least the C program's games a second.
Every figure is the best of --repeat runs (the machine is shared and noisy); ratios in one run hold.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

import numba
import numpy as np

from engines.narcotic import Rules, play, shuffled_decks
from engines.narcotic.canonical import canonical_count
from engines.narcotic.exact import canonical_counts

NARC_C = Path(__file__).resolve().parent.parent.parent / "shared" / "anchors" / "narcotic" / "narc.c"


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best_cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = cpu_s()
        fn()
        best = min(best, cpu_s() - t)
    return best


UNIFORM = 3  # windows at seeded uniform positions: what the price is taken from


def canonical_rate(ranks: int, decks: int, repeat: int) -> list[tuple[str, float]]:
    """Canonical decks a CPU-second on windows of ``decks`` ranks: the first and the last (structured
    decks, runs of equal values: faster than most) and UNIFORM at seeded uniform positions."""
    rules = Rules("deal", "top-right", "keep", ranks)
    total = canonical_count(ranks)
    canonical_counts(rules, 0, 1000)  # compiled before the clock starts
    rng = np.random.default_rng(ranks)
    starts = [("first", 0), ("last", total - decks)]
    starts += [(f"at {x / total:.2f}", int(x)) for x in sorted(rng.integers(0, total - decks, UNIFORM))]
    return [(name, decks / best_cpu(lambda s=at: canonical_counts(rules, s, s + decks), repeat)) for name, at in starts]


def cardlab_full_deck_rate(games: int, repeat: int) -> float:
    rules = Rules.preset("seed")
    play(shuffled_decks(np.uint64(1), 0, 100), rules)
    return games / best_cpu(lambda: play(shuffled_decks(np.uint64(1), 0, games), rules, games=games), repeat)


def c_rate(games: int, repeat: int) -> float | None:
    """The C simulator's seed-rules games a CPU-second (its children's CPU), or None without it."""
    if not NARC_C.is_file() or shutil.which("gcc") is None:
        print(f"anchor: {NARC_C} or gcc not present; no comparison with the C simulator")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "narc")
        subprocess.run(["gcc", "-O3", "-march=native", "-o", exe, str(NARC_C)], check=True)
        best = float("inf")
        for _ in range(repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([exe, "run", str(games), "-r", "seed", "-s", "7", "-o", os.devnull], check=True,
                           capture_output=True)  # fmt: skip
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            best = min(best, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        return games / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decks", type=int, default=1_000_000, help="canonical decks a window (default: %(default)s)")
    ap.add_argument("--c-games", type=int, default=200_000, help="full-deck games of each rate (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    numba.set_num_threads(1)
    rates = {r: canonical_rate(r, args.decks, args.repeat) for r in (5, 6)}
    full = cardlab_full_deck_rate(args.c_games, args.repeat)
    c = c_rate(args.c_games, args.repeat)
    print(f"canonical decks a CPU-second, seed rules, one core (windows of {args.decks:,} decks):")
    for r, windows in rates.items():
        mean = sum(v for _, v in windows[-UNIFORM:]) / UNIFORM
        text = ", ".join(f"{name} {v:,.0f}" for name, v in windows)
        hours = canonical_count(r) / mean / 3600
        print(f"  r = {r}: {text}; all {canonical_count(r):,} decks: about {hours:,.1f} core-hours at the uniform mean")
    print(f"cardlab kernel, full 52-card decks: {full:,.0f} games a CPU-second")
    if c:
        r5 = sum(v for _, v in rates[5][-UNIFORM:]) / UNIFORM
        print(f"C simulator (anchor), full 52-card decks: {c:,.0f} games a CPU-second")
        print(f"ratio cardlab / C on the same full decks: {full / c:.2f}")
        print(f"ratio canonical r = 5 decks (uniform windows) / C full-deck games: {r5 / c:.2f} (target >= 1)")


if __name__ == "__main__":
    main()
