"""``cardlab narcotic play``: play decks read from standard input; ``cardlab narcotic deal``: make them."""

from __future__ import annotations

import sys

import numpy as np

from ..core.errors import CardlabError
from .kernel import play
from .rules import GATHERS, MATCHINGS, PILE_FOURS, PRESETS, Rules, check_deck


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


def rules_from_args(args) -> Rules:
    base = Rules.preset(args.rules)
    return Rules(args.matching or base.matching, args.gather or base.gather, args.pile_four or base.pile_four)


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
    from .kernel import shuffled_decks

    if args.n < 0:
        raise CardlabError(f"deal: N must be >= 0, got {args.n}")
    if not 0 <= args.seed < 2**64:
        raise CardlabError(f"deal: --seed must be in 0..2**64-1, got {args.seed}")
    decks = shuffled_decks(np.uint64(args.seed), 0, args.n)
    sys.stdout.write("".join(" ".join(map(str, d)) + "\n" for d in decks.tolist()))
    return 0


PLAY_EXAMPLES = """examples:
  cardlab narcotic deal 5 --seed 7 | cardlab narcotic play
  cardlab narcotic deal 1000 > decks.txt && cardlab narcotic play --rules classic < decks.txt
  cardlab narcotic play --rules seed --gather top-left < decks.txt"""

DEAL_EXAMPLES = """examples:
  cardlab narcotic deal 3                 three shuffled decks (seed 1)
  cardlab narcotic deal 1000 --seed 42 > decks.txt"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser(
        "narcotic",
        help="Narcotic solitaire: deal shuffled decks, play decks",
        description="Narcotic solitaire: deal seeded shuffled decks and play decks under any rules.",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    nsub = p.add_subparsers(dest="narcotic_command", required=True, parser_class=type(p))
    deal_p = nsub.add_parser(
        "deal",
        help="print N shuffled decks in the input format of `play` (seeded, reproducible)",
        description="Prints N decks, one per line (52 integers 1..13, last dealt first), shuffled by the "
        "engine's own seeded Fisher-Yates shuffle (engines.narcotic.shuffled_decks): the same N and "
        "seed give the same decks on any machine; deck i is game i of a shard with that seed.",
        epilog=DEAL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    deal_p.add_argument("n", metavar="N", type=int, help="number of decks")
    deal_p.add_argument("--seed", type=int, default=1, help="seed of the shuffle (default: %(default)s)")
    deal_p.set_defaults(func=cmd_deal)
    play_p = nsub.add_parser(
        "play",
        help="play decks from stdin, one per line (52 integers 1..13, last dealt first)",
        description="Reads decks from standard input and prints one line per deck: "
        "won|looped passes time_s cycle_start cycle_length ('-' for won games).",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_p.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="seed",
        help="preset (default: %(default)s); the options below override its parts",
    )
    play_p.add_argument(
        "--matching", choices=MATCHINGS, help="which cards may be moved: deal (the seed) or cascade (pile tops only)"
    )
    play_p.add_argument("--gather", choices=GATHERS, help="which pile's card is dealt first after gathering")
    play_p.add_argument(
        "--pile-four", dest="pile_four", choices=PILE_FOURS, help="keep (the seed) or discard four equal pile tops"
    )
    play_p.set_defaults(func=cmd_play)
