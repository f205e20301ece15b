"""What a game tells the campaign layer about one of its long campaigns: the book.

A campaign is one place (game, experiment, variant) whose shards tile ``total`` items (deals,
decks) on a grid of ``per_shard``; a ledger (engines/core/ledger.py) keeps the shards it has
computed.  Everything that is the same for every game (the grid the sources agree on, the
shards left, the ledger's lines, running the next shards and keeping them) is in this package;
a game's book says only what is its own: which campaign a command names, how its finished
shards are read, which config block plans it and how a run config plans the next windows.
This module is pure data and arithmetic (the engines' layer): a game's book imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.errors import CardlabError
from ..core.layout import MAX_SHARD, RESULTS, ShardPlace, log_path, place_path
from ..core.ledger import LedgerGrid
from ..core.runs import runs_of

LONG_SHARD_CPU_S = 4 * 3600.0
"""A shard priced above this (core-seconds on this machine) starts only with ``ALLOW_LONG``: a grid typed
one zero too long makes a shard of days, and a job cannot be stopped part way and kept."""
ALLOW_LONG = "--allow-long-shards"


@dataclass(frozen=True)
class Campaign:
    """One campaign: its place, the items its grid tiles, how messages name it and which command runs it."""

    game: str
    experiment: str
    variant: str
    label: str  # "k = 24", "r = 5 (deal.top-right.keep)"
    total: int  # items on the grid
    unit: str  # "deals", "decks"
    tables: tuple[str, ...]  # every table a finished shard has
    command: str  # "cardlab campaign redblack 24": the command that names this campaign
    option: str = "--per-shard"  # the option that gives a new campaign its grid

    @property
    def place(self) -> tuple[str, str, str]:
        return self.game, self.experiment, self.variant

    def grid(self, per_shard: int | None = None, source: str = "the campaign's config") -> LedgerGrid:
        """What the campaign's ledger is checked against (given ``per_shard``, the campaign's grid as ``source``
        says it: a ledger on another is refused), and the command that rebuilds it."""
        return LedgerGrid(self.label, self.total, f"{self.command} --keep", self.unit, per_shard, source)

    def window(self, shard: int, per_shard: int) -> tuple[int, int]:
        """Shard i's items [i * d, (i + 1) * d), cut at the end of the grid."""
        return shard * per_shard, min((shard + 1) * per_shard, self.total)

    def windows(self, shards: Iterable[int], per_shard: int) -> list[tuple[int, int]]:
        """The shards' items as the fewest windows, in order."""
        return [(a * per_shard, min((b + 1) * per_shard, self.total)) for a, b in runs_of(shards)]

    def files(self, shard: int, results: str = RESULTS) -> list[str]:
        """A shard's table files: it is finished when they are all there."""
        return [
            place_path(ShardPlace(self.game, t, self.experiment, self.variant, shard), results) for t in self.tables
        ]

    def log(self, shard: int, results: str = RESULTS) -> str:
        return log_path(self.game, self.experiment, self.variant, shard, results)

    def shard_count(self, per_shard: int) -> int:
        return -(-self.total // per_shard)


class CampaignBook(Protocol):
    """A game's part of the campaign layer (``BOOK`` in ``engines/<game>/campaign/``)."""

    game: str
    unit: str  # what the grid tiles: "deals", "decks"
    description: str  # the command's --help description
    examples: str  # its examples, "examples:\n  cardlab <game> campaign ..."

    def add_arguments(self, parser) -> None:
        """The command's NAME positional and the game's own options (method, rules)."""

    def campaign(self, args) -> Campaign:
        """The campaign the parsed arguments name (a CardlabError for one that cannot be)."""

    def finished(self, campaign: Campaign, results: str, timing) -> Any:
        """The finished shards under a results tree, each checked: a CampaignState (engines/campaign/state.py)."""

    def block(self, config: Mapping[str, Any] | None, campaign: Campaign, where: str) -> dict | None:
        """The config's block that plans the campaign (None: none)."""

    def block_per_shard(self, block: Mapping[str, Any]) -> int | None:
        """The grid a block asks for."""

    def block_hint(self, campaign: Campaign) -> str:
        """How a block of the campaign is written, for the line that says the config has none."""

    def run_config(
        self, config: Mapping[str, Any], campaign: Campaign, shards: Sequence[int], per_shard: int, backend: str | None
    ) -> dict:
        """The user's config with the campaign's block planning exactly these shards (no campaign block there)."""

    def describe(self, campaign: Campaign, state: Any, results: str, book_lines: list[str], args) -> list[str]:
        """What the command prints: the game's figures around the layer's lines on the block and the ledger."""


def agreed_per_shard(campaign: Campaign, sources: Mapping[str, int | None]) -> int:
    """The one grid every source that says one agrees on (finished shards, an option, the block, the ledger)."""
    said = {name: int(d) for name, d in sources.items() if d is not None}
    if not said:
        names = " or ".join(sources)
        raise CardlabError(f"{campaign.label}: no shard grid yet (none from {names}); give {campaign.option}")
    if len(set(said.values())) > 1:
        text = "; ".join(f"{name}: {d:,}" for name, d in said.items())
        raise CardlabError(f"{campaign.label}: the shard grids disagree ({text}); a campaign keeps one shard size")
    d = next(iter(said.values()))
    if d < 1:
        raise CardlabError(f"{campaign.label}: {campaign.unit} per shard must be at least 1, got {d}")
    if campaign.shard_count(d) - 1 > MAX_SHARD:  # before a plan of every shard number is made
        least = -(-campaign.total // (MAX_SHARD + 1))
        raise CardlabError(
            f"{campaign.label}: {d:,} {campaign.unit} a shard makes {campaign.shard_count(d):,} shards of "
            f"{campaign.total:,}; shard numbers go up to {MAX_SHARD:,}: give at least {least:,} {campaign.unit} a shard"
        )
    return d


def book_of(game: str) -> CampaignBook:
    """A game's campaign book, ``BOOK`` of ``engines/<game>/campaign/book.py``: loaded when the command runs."""
    return importlib.import_module(f"engines.{game}.campaign.book").BOOK
