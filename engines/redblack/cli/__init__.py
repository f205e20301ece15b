"""``cardlab redblack ...``: replay a deal, search one size exhaustively, list a cycle's basin, a campaign.

The parsers are here; the commands that play and search are in :mod:`.commands`; ``campaign`` is the
alias of ``cardlab campaign redblack`` (engines/campaign/cli.py, RedBlack's book in engines/redblack/campaign/)."""

from __future__ import annotations

import argparse

from ...campaign.cli import add_alias
from ...core import argtypes
from ..campaign import EXAMPLES as CAMPAIGN_EXAMPLES
from ..rules import BASIN_MAX_STATES, K_MAX
from .options import REPLAY_ROUNDS, max_states, size

REPLAY_EXAMPLES = """examples:
  cardlab redblack replay 10 110           the seed's 5-card infinite game
  cardlab redblack replay 001101 100011 --rounds 10"""
SEARCH_EXAMPLES = """examples:
  cardlab redblack search 10               every canonical infinite balanced deal of size 10
  cardlab redblack search 12 --csv > k12.csv
  cardlab redblack search 15 --method brute --jobs 1          every game to its end (longest game too)
  cardlab redblack search 20 --ranks 0:2000000000             one rank window of a campaign"""
BASIN_EXAMPLES = """examples:
  cardlab redblack basin 001101 100011"""
RANK_EXAMPLES = """examples:
  cardlab redblack rank 0011 1100"""
AUDIT_EXAMPLES = """examples:
  cardlab redblack audit workflow/data/redblack/published_infinite.txt
  cardlab redblack audit my_list.txt --csv > audit.csv"""


def register(subparsers) -> None:
    """``cardlab redblack``: one subcommand per ``add_*`` below."""
    raw = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "redblack",
        help="RedBlack: replay deals, exhaustive search, ranks, basins of cycles, audits of lists",
        description="RedBlack: replay one deal, search every deal of a size, rank a deal, list a cycle's basin, "
        "audit a list of claimed infinite deals.",
        epilog=REPLAY_EXAMPLES
        + "\n"
        + SEARCH_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + BASIN_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + AUDIT_EXAMPLES.removeprefix("examples:\n")
        + "\n"
        + CAMPAIGN_EXAMPLES.removeprefix("examples:\n").replace(
            "cardlab campaign redblack", "cardlab redblack campaign"
        ),
        formatter_class=raw,
    )
    sub = p.add_subparsers(dest="redblack_command", required=True, parser_class=type(p))
    for add in (add_replay, add_search, add_rank, add_audit, add_basin):
        add(sub, raw)
    add_alias(sub, "redblack")  # `cardlab redblack campaign K ...`: `cardlab campaign redblack K ...`


def add_replay(sub, raw) -> None:
    """``cardlab redblack replay``: play one deal."""
    r = sub.add_parser(
        "replay",
        help="play one deal: the seed-style table, then the verdict",
        description="Plays one deal round by round as the seed prints it, then says whether it ends or cycles.",
        epilog=REPLAY_EXAMPLES,
        formatter_class=raw,
    )
    r.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black (e.g. 10)")
    r.add_argument("p2", help="player 2's deck (e.g. 110)")
    r.add_argument(
        "--rounds",
        type=argtypes.integer(0, argtypes.INT64_MAX, " rounds"),
        default=REPLAY_ROUNDS,
        help="rounds shown play by play, at most the whole game (default: %(default)s)",
    )
    r.set_defaults(func="engines.redblack.cli.commands:cmd_replay")


def add_search(sub, raw) -> None:
    """``cardlab redblack search``: search every deal of a size."""
    s = sub.add_parser(
        "search",
        help="every canonical balanced deal of size K (or a rank window): the infinite ones, then counts",
        description="Searches every canonical balanced deal with K cards per player by rank, exactly (cycles, "
        "no round limit); prints the infinite ones, then counts. With --ranks, a window of ranks.",
        epilog=SEARCH_EXAMPLES,
        formatter_class=raw,
    )
    s.add_argument("k", type=size, help=f"cards per player, 1..{K_MAX}")
    s.add_argument(
        "--method",
        choices=("owner", "brute"),
        default="owner",
        help="owner (default): stop a deal once a smaller deal reaches its state, list the balanced deals in "
        "the basins of the cycles found; brute: play every deal to its end (also gives the longest game)",
    )
    s.add_argument(
        "--ranks",
        metavar="START:STOP",
        help="search ranks [START, STOP) only (default: all); slices run separately add up to the whole",
    )
    s.add_argument("--jobs", type=argtypes.cores, default=None, help="threads (default: all cores)")
    s.add_argument(
        "--backend",
        choices=("scalar", "gpu"),
        default="scalar",
        help="scalar (the CPU search, default) or gpu (an NVIDIA GPU through numba-cuda: pip install -e .[gpu]); "
        "the same results either way",
    )
    s.add_argument("--csv", action="store_true", help="CSV of the infinite deals for machines (counts on stderr)")
    s.set_defaults(func="engines.redblack.cli.commands:cmd_search")


def add_rank(sub, raw) -> None:
    """``cardlab redblack rank``: rank a deal."""
    rk = sub.add_parser(
        "rank",
        help="the rank of a canonical balanced deal (its place in the search order)",
        description="Prints the rank of a balanced deal (of its colour swap when player 1's first card is black).",
        epilog=RANK_EXAMPLES,
        formatter_class=raw,
    )
    rk.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black")
    rk.add_argument("p2", help="player 2's deck")
    rk.set_defaults(func="engines.redblack.cli.commands:cmd_rank")


def add_audit(sub, raw) -> None:
    """``cardlab redblack audit``: audit a list of claimed infinite deals."""
    a = sub.add_parser(
        "audit",
        help="replay a list of claimed infinite deals, walk their cycles' basins, name what it misses",
        description="Reads 'P1 P2' per line (# comments and blank lines ignored), replays every deal exactly, "
        "walks the basin of every cycle reached, and reports per k: listed, confirmed infinite, listed but finite, "
        "and the infinite deals the list misses in those basins.",
        epilog=AUDIT_EXAMPLES,
        formatter_class=raw,
    )
    a.add_argument("file", type=argtypes.existing_file, help="the list of deals")
    a.add_argument("--csv", action="store_true", help="one row per deal: k,p1,p2,status")
    a.add_argument(
        "--max-states",
        type=max_states,
        default=BASIN_MAX_STATES,
        help="refuse a basin larger than this (default: %(default)s)",
    )
    a.set_defaults(func="engines.redblack.cli.commands:cmd_audit")


def add_basin(sub, raw) -> None:
    """``cardlab redblack basin``: list a cycle's basin."""
    b = sub.add_parser(
        "basin",
        help="every balanced deal leading into the cycle this deal reaches",
        description="Runs rounds backwards from the cycle this deal reaches and lists every balanced deal "
        "that falls into it (or its colour swap).",
        epilog=BASIN_EXAMPLES,
        formatter_class=raw,
    )
    b.add_argument("p1", help="player 1's deck, top card first, 0 red 1 black (e.g. 001101)")
    b.add_argument("p2", help="player 2's deck, same size (e.g. 100011)")
    b.add_argument(
        "--max-states",
        type=max_states,
        default=BASIN_MAX_STATES,
        help="stop after this many basin states (default: %(default)s; the most the kernel counts: no limit)",
    )
    b.set_defaults(func="engines.redblack.cli.commands:cmd_basin")
