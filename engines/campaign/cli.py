"""The campaign command's parser: ``cardlab campaign GAME NAME``, and ``cardlab GAME campaign NAME``, the
same parser under each game's command (an alias: the same options, the same handler)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
from types import ModuleType

from ..core import argtypes
from ..core.layout import RESULTS
from ..pipeline.planning.plan import DEFAULT_CONFIG
from ..registry import GAMES
from .book import ALLOW_LONG, LONG_SHARD_CPU_S

EXAMPLES = """examples:
  cardlab campaign redblack 24                     k = 24's shards, its config block and ledger, the shards left
  cardlab campaign redblack 24 --run 3 --from top --cores 1 --nice 19
                                                   the next 3 shards from the top, each kept in the ledger
  cardlab campaign narcotic 5                      Narcotic r = 5 (seed rules), canonical decks
  cardlab campaign narcotic 5 --gather bottom-right --run 1 --per-shard 500000000
  cardlab campaign redblack 23 --keep              keep in the ledger the finished shards copied into results/"""


def options_of(game: str) -> ModuleType | None:
    """What a game's campaign command parses: its package ``engines/<game>/campaign/`` (light: ``UNIT``,
    ``DESCRIPTION``, ``EXAMPLES``, ``add_arguments``); None for a game with no campaigns."""
    if importlib.util.find_spec(f"engines.{game}.campaign") is None:
        return None
    return importlib.import_module(f"engines.{game}.campaign")


def add_campaign_parser(sub, game: str, options: ModuleType, name: str, help: str, description: str, epilog: str):
    """A game's campaign parser, named ``name`` under ``sub``: NAME and the game's options, the options every
    campaign shares, the one handler.  Returns the parser."""
    g = sub.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    options.add_arguments(g)
    add_campaign_options(g, options.UNIT)
    g.set_defaults(campaign_game=game, func="engines.campaign.command:main")
    return g


def add_alias(sub, game: str) -> None:
    """``cardlab GAME campaign NAME ...``: ``cardlab campaign GAME NAME ...`` under the game's command."""
    options = options_of(game)
    if options is not None:
        add_campaign_parser(
            sub, game, options, "campaign", f"a {game} campaign (the same as `cardlab campaign {game} ...`)",
            options.DESCRIPTION + f"  The same as `cardlab campaign {game} ...`.",
            options.EXAMPLES.replace(f"cardlab campaign {game}", f"cardlab {game} campaign"),
        )  # fmt: skip


def add_campaign_options(c, unit: str, config_default: str = DEFAULT_CONFIG) -> None:
    """The options of every campaign command (the book adds NAME and the game's own)."""
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
        if (options := options_of(game)) is not None:
            add_campaign_parser(games, game, options, game, f"a {game} campaign", options.DESCRIPTION, options.EXAMPLES)
