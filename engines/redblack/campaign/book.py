"""RedBlack's book for the campaign layer (engines/campaign/book.py): which campaign K and --method name,
the size's config block, the run config of the next windows, and what the report's warehouse says the
rest costs.

Loaded when a campaign command runs (engines/campaign/command.py finds ``BOOK`` here); its parser is
built from the light package module (engines/redblack/campaign/__init__.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from ...campaign.book import Campaign
from ...campaign.state import CampaignState
from ...core.errors import CardlabError
from ...core.layout import warehouse_path
from ...pipeline.catalog.warehouse import connect
from ..gpu import cuda_module
from ..report.cost import cost_line, costs_to_finish
from ..report.queries import coverage_of
from .next import CampaignRun, campaign_block, campaign_of, run_config, size_of
from .state import campaign_state, cost_left_text, describe


class RedBlackBook:
    """RedBlack's campaigns: one a size k and method, on the grid of its canonical deals."""

    def campaign(self, args) -> Campaign:
        if args.run is None and args.backend is not None:
            raise CardlabError("--backend chooses how --run computes shards; give it with --run")
        if args.run is not None and args.backend == "gpu":
            cuda_module()  # no GPU or no numba-cuda: say so before Snakemake starts
        return campaign_of(args.k, args.method, args.results)

    def finished(self, campaign: Campaign, results: str, timing) -> CampaignState:
        k, method = size_of(campaign)
        return campaign_state(k, method, results, timing=timing)

    def block(self, config: Mapping[str, Any] | None, campaign: Campaign, where: str) -> dict | None:
        return campaign_block(config or {}, *size_of(campaign), where)

    def block_per_shard(self, block: Mapping[str, Any]) -> int | None:
        return block.get("deals_per_shard")

    def block_hint(self, campaign: Campaign) -> str:
        k, method = size_of(campaign)
        return f"`- k: [{k}]`, `method: {method}`, its deals_per_shard"

    def run_config(
        self, config: Mapping[str, Any], campaign: Campaign, shards: Sequence[int], per_shard: int, backend: str | None
    ) -> dict:
        k, method = size_of(campaign)
        return run_config(
            config, CampaignRun(k, method, per_shard, list(shards), campaign.total), "the config", backend
        )

    def describe(
        self, campaign: Campaign, state: CampaignState, results: str, book_lines: list[str], args
    ) -> list[str]:
        return describe(state, results, cost_left(state, results), book_lines)


BOOK = RedBlackBook()


def cost_left(state: CampaignState, results: str) -> str | None:
    """The rest's cost as the report prices it (engines/redblack/report/cost.py), when there is a warehouse."""
    db = warehouse_path(results)
    try:  # a warehouse being rebuilt, or one without RedBlack, only costs this line
        with connect(db) as con:
            coverage = coverage_of(con, size_of(state.campaign)[0])
            costs = costs_to_finish(con).get(size_of(state.campaign)[0], [])
    except (CardlabError, duckdb.Error):
        return None
    return cost_left_text(state, coverage, costs, cost_line, db) if coverage else None
