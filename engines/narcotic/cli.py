"""``cardlab narcotic play``: play decks read from standard input."""

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


def register(sub) -> None:
    p = sub.add_parser("narcotic", help="Narcotic solitaire")
    nsub = p.add_subparsers(dest="narcotic_command", required=True, parser_class=type(p))
    play_p = nsub.add_parser(
        "play",
        help="play decks from stdin, one per line (52 integers 1..13, last dealt first)",
        description="Reads decks from standard input and prints one line per deck: "
        "won|looped passes time_s cycle_start cycle_length ('-' for won games).",
    )
    play_p.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="seed",
        help="preset (default: %(default)s); the options below override its parts",
    )
    play_p.add_argument("--matching", choices=MATCHINGS)
    play_p.add_argument("--gather", choices=GATHERS)
    play_p.add_argument("--pile-four", dest="pile_four", choices=PILE_FOURS)
    play_p.set_defaults(func=cmd_play)
