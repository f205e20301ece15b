"""Narcotic's book for the campaign layer (engines/campaign/book.py): which campaign a NAME means (R, a
canonical enumeration, or a tally campaign's name), its config block, its run config and its lines.

Loaded when a campaign command runs (engines/campaign/command.py finds ``BOOK`` here); its parser is
built from the light package module (engines/narcotic/campaign/__init__.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ...campaign.book import Campaign
from ...campaign.state import CampaignState
from ...core.errors import CardlabError
from ...core.yamlfile import read_yaml
from ..canonical import canonical_count
from ..kinds.exhaustive import CANONICAL_EXPERIMENT, MAX_EXACT_RANKS, ledger_grid
from ..kinds.tally import TALLY_TABLES, tally_grid
from ..options import rules_from_args
from ..rules import VALUES, Rules, all_rules
from . import states


def is_canonical(campaign: Campaign) -> bool:
    return campaign.experiment == CANONICAL_EXPERIMENT


def canonical_campaign(ranks: int, args) -> Campaign:
    """r = R's canonical enumeration under the rules the options name."""
    if not 1 <= ranks <= MAX_EXACT_RANKS:
        raise CardlabError(f"campaign: R must be 1..{MAX_EXACT_RANKS} (canonical ranks are 64-bit), got {ranks}")
    if args.variant:
        raise CardlabError("campaign: --variant names a tally campaign's rules; for R, give --matching, ...")
    base = rules_from_args(args)
    rules = Rules(base.matching, base.gather, base.pile_four, ranks)
    grid = ledger_grid(rules, canonical_count(rules.ranks))
    command = grid.rebuild.removesuffix(" --keep")
    return Campaign(
        "narcotic", CANONICAL_EXPERIMENT, rules.variant, f"r = {rules.ranks}", grid.items, "decks",
        (states.TABLE,), command, "--decks-per-shard",
    )  # fmt: skip


def tally_campaign(args) -> Campaign:
    """The tally campaign of the config's ``campaigns:`` the NAME names (one rule combination of it)."""
    if any((args.matching, args.gather, args.pile_four)) or args.rules != "seed":
        raise CardlabError("campaign: a tally campaign's entry gives its rules; name one of them with --variant")
    config = read_yaml(args.config) if os.path.isfile(args.config) else None
    block = states.tally_block(config, args.name, args.config)
    if block is None:
        names = [b.get("name") for b in ((config or {}).get("narcotic") or {}).get("campaigns") or []]
        known = f"; its campaigns: {', '.join(names)}" if names else ""
        raise CardlabError(
            f"campaign: {args.config} has no narcotic campaign named {args.name!r}{known} (a new one is an "
            "entry of narcotic.campaigns with its name, games and seed; R, an integer, names a canonical one)"
        )
    rules = states.tally_rules(block, args.variant, args.config)
    grid = tally_grid(block["name"], rules, int(block["games"]))
    return Campaign(
        "narcotic", block["name"], rules.variant, grid.name, grid.items, "games", tuple(TALLY_TABLES),
        grid.rebuild.removesuffix(" --keep"),
    )  # fmt: skip


def rules_of(campaign: Campaign) -> Rules:
    """The rule combination a campaign plays (its variant, among the sizes it may have)."""
    ranks = int(campaign.label.removeprefix("r = ")) if is_canonical(campaign) else None
    sizes = [ranks] if ranks else range(1, VALUES + 1)
    return next(r for n in sizes for r in all_rules(n) if r.variant == campaign.variant)


class NarcoticBook:
    """Narcotic's campaigns: the canonical enumeration of decks of R values under one rule combination
    (NAME an integer), or a tally campaign of the config's ``campaigns:`` (NAME its name)."""

    def campaign(self, args) -> Campaign:
        if args.name.isdigit():
            return canonical_campaign(int(args.name), args)
        return tally_campaign(args)

    def finished(self, campaign: Campaign, results: str, timing) -> CampaignState:
        if is_canonical(campaign):
            return states.canonical_state(campaign, rules_of(campaign), results, timing)
        return states.tally_state(campaign, results, timing)

    def block(self, config: Mapping[str, Any] | None, campaign: Campaign, where: str) -> dict | None:
        if is_canonical(campaign):
            return states.campaign_block(config, rules_of(campaign), where)
        return states.tally_block(config, campaign.experiment, where)

    def block_per_shard(self, block: Mapping[str, Any]) -> int | None:
        return block.get("per_shard", block.get("games_per_shard"))

    def block_hint(self, campaign: Campaign) -> str:
        if not is_canonical(campaign):
            return f"an entry of narcotic.campaigns named {campaign.experiment}, its games and seed"
        return f"`canonical: true`, `- ranks: [{rules_of(campaign).ranks}]`, the rules, its decks_per_shard"

    def run_config(
        self, config: Mapping[str, Any], campaign: Campaign, shards: Sequence[int], per_shard: int, backend: str | None
    ) -> dict:
        rules = rules_of(campaign)
        if is_canonical(campaign):
            return states.run_config(config, rules, campaign.windows(shards, per_shard), per_shard)
        return states.tally_run_config(config, campaign.experiment, rules, list(shards), per_shard)

    def describe(
        self, campaign: Campaign, state: CampaignState, results: str, book_lines: list[str], args
    ) -> list[str]:
        if is_canonical(campaign):
            return states.describe(rules_of(campaign), state, book_lines)
        return states.describe_tally(campaign.experiment, rules_of(campaign), state, book_lines)


BOOK = NarcoticBook()
