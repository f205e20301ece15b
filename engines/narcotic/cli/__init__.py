"""``cardlab narcotic ...``: deal decks, play them, simulate seeded games (handlers: :mod:`.commands`), and
``cardlab narcotic campaign``, the alias of ``cardlab campaign narcotic`` (engines/campaign/cli.py)."""

from __future__ import annotations

import argparse

from ...campaign.cli import add_alias
from ...core import argtypes
from ..options import add_rule_options

MAX_DEAL_DECKS = 10**9  # about 150 GB of text: more is no deck list anyone reads
MAX_SIMULATE_GAMES = 10**10  # about a day on one core: larger runs belong in the pipeline


PLAY_EXAMPLES = """examples:
  cardlab narcotic deal 5 --seed 7 | cardlab narcotic play
  cardlab narcotic deal 1000 > decks.txt && cardlab narcotic play --rules classic < decks.txt
  cardlab narcotic play --rules seed --gather top-left < decks.txt"""

SIMULATE_EXAMPLES = """examples:
  cardlab narcotic simulate --games 1000000              the seed's rules, a million seeded games
  cardlab narcotic simulate --games 300000 --rules classic --jobs 1 --seed 7"""

DEAL_EXAMPLES = """examples:
  cardlab narcotic deal 3                 three shuffled decks (seed 1)
  cardlab narcotic deal 1000 --seed 42 > decks.txt"""


def register(sub) -> None:
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
    deal_p.add_argument("n", metavar="N", type=argtypes.integer(1, MAX_DEAL_DECKS, " decks"), help="number of decks")
    deal_p.add_argument("--seed", type=argtypes.seed, default=1, help="seed of the shuffle (default: %(default)s)")
    deal_p.set_defaults(func="engines.narcotic.cli.commands:cmd_deal")
    play_p = nsub.add_parser(
        "play",
        help="play decks from stdin, one per line (52 integers 1..13, last dealt first)",
        description="Reads decks from standard input and prints one line per deck: "
        "won|looped passes time_s cycle_start cycle_length ('-' for won games).",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_p.set_defaults(func="engines.narcotic.cli.commands:cmd_play")
    add_rule_options(play_p)
    sim_p = nsub.add_parser(
        "simulate",
        help="play N seeded games and print the win rate (95 %% interval), mean passes and time",
        description="Plays games 0..N-1 of the seeded stream (game i's deck is shuffled from splitmix64 stream "
        "(seed, i), as in a pipeline shard with that seed) and prints one summary line.",
        epilog=SIMULATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim_p.add_argument(
        "--games",
        type=argtypes.integer(1, MAX_SIMULATE_GAMES, " games"),
        required=True,
        help="number of games (more belong in the pipeline: config.yaml)",
    )
    sim_p.add_argument("--seed", type=argtypes.seed, default=1, help="seed of the shuffles (default: %(default)s)")
    sim_p.add_argument("--jobs", type=argtypes.cores, default=None, help="threads (default: all cores)")
    add_rule_options(sim_p)
    sim_p.set_defaults(func="engines.narcotic.cli.commands:cmd_simulate")
    add_alias(nsub, "narcotic")
