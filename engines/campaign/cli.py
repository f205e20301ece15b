"""The campaign command's parsers: ``cardlab campaign GAME NAME`` and the options every game's shares."""

from __future__ import annotations

import argparse
import importlib
import os

from ..core import argtypes
from ..core.layout import RESULTS
from ..pipeline.planning.plan import DEFAULT_CONFIG
from ..registry import GAMES
from .book import CampaignBook

EXAMPLES = """examples:
  cardlab campaign redblack 24                     k = 24's shards, its config block and ledger, the shards left
  cardlab campaign redblack 24 --run 3 --from top --cores 1 --nice 19
                                                   the next 3 shards from the top, each kept in the ledger
  cardlab campaign narcotic 5                      Narcotic r = 5 (seed rules), canonical decks
  cardlab campaign narcotic 5 --gather bottom-right --run 1 --per-shard 500000000
  cardlab campaign redblack 23 --keep              keep in the ledger the finished shards copied into results/"""


def book_of(game: str) -> CampaignBook | None:
    """A game's campaign book: ``CAMPAIGN_BOOK`` of its command line, ``engines/<game>/cli`` (None: no campaigns)."""
    try:
        module = importlib.import_module(f"engines.{game}.cli")
    except ModuleNotFoundError:
        return None
    return getattr(module, "CAMPAIGN_BOOK", None)


def add_campaign_options(c, unit: str, config_default: str = DEFAULT_CONFIG) -> None:
    """The options of every campaign command (the book adds NAME and the game's own)."""
    from .command import ALLOW_LONG, LONG_SHARD_CPU_S

    c.add_argument("--results", type=argtypes.folder, default=RESULTS, help="results tree (default: %(default)s)")
    c.add_argument(
        "--config", default=config_default, help="the config the campaign's block is in (default: %(default)s)"
    )
    c.add_argument(
        "--keep",
        action="store_true",
        help="record every finished, checked shard under the results tree in the campaign's ledger "
        "(a ledger that cannot be read is rebuilt from them)",
    )
    r = c.add_argument_group("running the next shards (Snakemake, in this directory's workflow)")
    r.add_argument(
        "--run",
        type=argtypes.integer(1, argtypes.INT64_MAX, " shards"),
        metavar="N",
        help="compute the next N shards left, then show the campaign",
    )
    r.add_argument(
        "--from", dest="from_", choices=("bottom", "top"), default="bottom", help="which end of the shards left"
    )
    r.add_argument(
        "--cores", type=argtypes.cores, default=os.cpu_count() or 1, help="cores for Snakemake (default: all)"
    )
    r.add_argument(
        "--per-shard",
        f"--{unit}-per-shard",
        dest="per_shard",
        type=argtypes.integer(1, argtypes.INT64_MAX, f" {unit}"),
        help=f"{unit} a shard: the grid of a campaign with no finished shard, block or ledger yet "
        "(at most the campaign's size)",
    )
    r.add_argument(
        ALLOW_LONG,
        action="store_true",
        help=f"--run: start shards priced above {LONG_SHARD_CPU_S / 3600:g} CPU-hours each, or that cannot be priced",
    )
    r.add_argument(
        "--nice",
        type=argtypes.niceness,
        default=0,
        help="run Snakemake and its jobs at this niceness (default: 0)",
    )
    r.add_argument(
        "--snakemake",
        default="",
        metavar="ARGS",
        help="more Snakemake options: --snakemake='--workflow-profile workflow/profiles/slurm'",
    )


def register(sub) -> None:
    """``cardlab campaign GAME NAME ...``: one subcommand per game with a campaign book."""
    from .command import campaign_command

    p = sub.add_parser(
        "campaign",
        help="a long campaign of any game: coverage, CPU, its config block and ledger; run or keep its shards",
        description="Reads a campaign's finished shards under a results tree and prints what they cover, their "
        "CPU time, whether the config's block is a campaign block (`campaign: true`: it plans the shards its "
        "ledger keeps), what the ledger keeps and the shards left; --run N computes the next N, --keep records "
        "shards copied in.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    games = p.add_subparsers(dest="campaign_game", required=True, metavar="GAME", parser_class=type(p))
    for game in GAMES:
        book = book_of(game)
        if book is None:
            continue
        g = games.add_parser(
            game,
            help=f"a {game} campaign",
            description=book.description,
            epilog=book.examples.replace(f"cardlab {game} campaign", f"cardlab campaign {game}"),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        book.add_arguments(g)
        add_campaign_options(g, book.unit)
        g.set_defaults(func=lambda args, book=book: campaign_command(book, args))
