"""What ``cardlab narcotic play``, ``deal`` and ``simulate`` do (their parsers: engines/narcotic/cli/__init__.py,
which names these handlers as strings so that building the parser loads no numba)."""

from __future__ import annotations

import sys

import numba
import numpy as np

from ...core.errors import CardlabError
from ...core.fmt import duration
from ...core.progress import Progress
from ...core.stats import wilson
from ..kernel import GAMES_PER_CALL, play, shuffled_decks
from ..options import rules_from_args
from ..rules import check_deck


def parse_decks(lines) -> np.ndarray:
    """Every line a full deck, or an error naming the first bad line (nothing is played)."""
    decks = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values = [int(tok) for tok in line.split()]
        except ValueError:
            bad = next(t for t in line.split() if not t.lstrip("-").isdigit())
            raise CardlabError(f"line {number}: {bad!r} is not an integer") from None
        why = check_deck(values)
        if why:
            raise CardlabError(f"line {number}: {why}")
        decks.append(values)
    if not decks:
        raise CardlabError("no decks on standard input (one deck per line: 52 integers 1..13)")
    return np.asarray(decks, dtype=np.uint8)


def cmd_play(args) -> int:
    rules = rules_from_args(args)
    decks = parse_decks(sys.stdin)
    res = play(decks, rules)
    out = []
    for i in range(len(decks)):
        won = bool(res["won"][i])
        tail = "- -" if won else f"{res['cycle_start'][i]} {res['cycle_length'][i]}"
        out.append(f"{'won' if won else 'looped'} {res['passes'][i]} {res['time_s'][i]} {tail}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def cmd_deal(args) -> int:
    # a block at a time: memory stays small however many decks are asked for
    for a in range(0, args.n, DEAL_BLOCK):
        decks = shuffled_decks(np.uint64(args.seed), a, min(a + DEAL_BLOCK, args.n))
        sys.stdout.write("".join(" ".join(map(str, d)) + "\n" for d in decks.tolist()))
    return 0


DEAL_BLOCK = 100_000  # decks shuffled and written at once: about 50 MB of Python integers


def cmd_simulate(args) -> int:
    """Play N seeded games (game i dealt from stream (seed, i), as in a shard) and print the summary."""
    if args.jobs is not None:
        numba.set_num_threads(min(args.jobs, numba.config.NUMBA_NUM_THREADS))
    rules = rules_from_args(args)
    wins = won_passes = won_time = 0
    progress = Progress(args.games, "games", label=f"narcotic {rules.variant}", stream=sys.stderr)
    try:
        for a in range(0, args.games, GAMES_PER_CALL):
            b = min(a + GAMES_PER_CALL, args.games)
            res = play(shuffled_decks(np.uint64(args.seed), a, b), rules, games=args.games)
            won = res["won"]
            wins += int(won.sum())
            won_passes += int(res["passes"][won].sum())
            won_time += int(res["time_s"][won].sum())
            progress.update(b - a)
    finally:
        progress.close()
    lo, hi = wilson(wins, args.games)
    name = rules.preset_name
    label = f"{name} rules ({rules.variant})" if name else f"rules {rules.variant}"
    line = (
        f"narcotic {label}, {args.games:,} games (seed {args.seed}): won {100 * wins / args.games:.3f} % "
        f"(95 % interval {100 * lo:.3f} – {100 * hi:.3f} %)"
    )
    if wins:
        line += (
            f"; a won game takes {won_passes / wins:.1f} passes and {duration(won_time / wins)} on average "
            "(the seed's time model)"
        )
    print(line)
    return 0
