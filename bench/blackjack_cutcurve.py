"""The cut card at every depth: CPU seconds of the forward pass over one deck's 33,203,125 compositions
(every cut 1..43 at once, dealer only, one soft-17 rule), against the exact fractions' DP of one cut
(cut 8) timed in the same run.

    .venv/bin/python bench/blackjack_cutcurve.py [--soft17 stand] [--layered] [--players 0]

Target (issue 51): the whole one-deck curve in at most 30 CPU-minutes here. The ratio printed is the
pass's CPU for all 43 cuts over the DP's for the one cut: what every cut at once costs in units of
one shallow exact cut, a figure that holds from machine to machine where CPU seconds do not.
"""

from __future__ import annotations

import argparse
import resource
import time

from engines.blackjack.cutcard_curve import compositions, cut_curve
from engines.blackjack.cutcard_exact import exact_rounds
from engines.blackjack.rules import ONE_DECK

TARGET_CPU_S = 30 * 60


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn):
    t, w = cpu_s(), time.perf_counter()
    out = fn()
    return out, cpu_s() - t, time.perf_counter() - w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--soft17", choices=("stand", "hit"), default="stand")
    ap.add_argument("--players", type=int, default=0)
    ap.add_argument("--layered", action="store_true", help="also each round number's law (one pass a round)")
    args = ap.parse_args()
    small = (0,) + (2,) * 9 + (8,)
    cut_curve(small, args.players, args.soft17, layered=args.layered)  # compiled before the clock starts
    exact_rounds(ONE_DECK, 3, args.players, args.soft17)
    _, dp_cpu, _ = timed(lambda: exact_rounds(ONE_DECK, 8, args.players, args.soft17))
    curve, cpu, wall = timed(lambda: cut_curve(ONE_DECK, args.players, args.soft17, layered=args.layered))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = len(compositions(ONE_DECK).position)
    print(
        f"one deck, {args.players} player cards, {args.soft17} soft 17{', by round number' if args.layered else ''}: "
        f"every cut 1..{curve.max_cut} in {cpu:.1f} CPU-s ({wall:.1f} s wall, peak {peak:,.0f} MB), "
        f"{n / cpu:,.0f} compositions a CPU-second"
    )
    print(f"exact fractions, cut 8 alone: {dp_cpu:.1f} CPU-s; ratio pass (all cuts) / DP (one cut): {cpu / dp_cpu:.2f}")
    print(
        f"target: at most {TARGET_CPU_S:,} CPU-s: {'met' if cpu <= TARGET_CPU_S else 'NOT met'} ({cpu / TARGET_CPU_S:.1%})"
    )
    print(
        f"bust per round dealt at cut 39: {100 * curve.average(39)[0]:.5f} %; relative error below {curve.relative_error:.0e}"
    )


if __name__ == "__main__":
    main()
