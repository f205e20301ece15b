"""The next shards of a size's campaign: which ones, and the run config that plans them.

`cardlab campaign redblack K --run N` (engines/campaign/command.py) computes the next N
shards left, from the bottom of the ranks or the top, on the campaign's one shard grid.
Snakemake computes them under a run config (a file cardlab owns for the run) that differs
from the user's only in the size's block, whose ``ranks`` are the new shards' windows (and
which is no campaign block there: it plans those windows, not the ledger's shards); the
shards are the same files a whole-size run makes.  Each finished shard is kept in the
campaign's ledger (engines/core/ledger.py), from which the user's campaign block plans it:
the user's config is never written.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from ...campaign.book import Campaign, agreed_per_shard
from ...campaign.state import CampaignState
from ...core.errors import CardlabError
from ...core.layout import RESULTS, ShardPlace, log_path, place_path
from ...core.runs import merge_windows
from ..kinds.search import EXHAUSTIVE_VARIANT, block_sizes, exhaustive_experiment, ledger_grid
from ..rules import canonical_deals
from ..tables import SEARCH_TABLES

GAME = "redblack"


@dataclass(frozen=True)
class CampaignRun:
    """The shards one run computes, on the campaign's grid."""

    k: int
    method: str
    deals_per_shard: int
    shards: list[int]
    total: int

    def ranks(self, shard: int) -> tuple[int, int]:
        """Shard i's ranks [i * d, (i + 1) * d), cut at the end of the size."""
        d = self.deals_per_shard
        return shard * d, min((shard + 1) * d, self.total)

    @property
    def windows(self) -> list[tuple[int, int]]:
        return merge_windows([self.ranks(n) for n in self.shards])

    @property
    def deals(self) -> int:
        return sum(b - a for a, b in self.windows)

    def files(self, results: str = RESULTS) -> dict[int, list[str]]:
        """Each shard's table files: it is finished when they are all there."""
        experiment, variant = exhaustive_experiment(self.k), EXHAUSTIVE_VARIANT[self.method]
        return {
            n: [place_path(ShardPlace(GAME, t, experiment, variant, n), results) for t in SEARCH_TABLES]
            for n in self.shards
        }

    def work(self) -> dict[str, int]:
        """Each shard's deals."""
        return {str(n): b - a for n in self.shards for a, b in [self.ranks(n)]}

    def logs(self, results: str = RESULTS) -> dict[str, str]:
        """Each shard's job log (its progress lines while it runs, its timing record after)."""
        experiment, variant = exhaustive_experiment(self.k), EXHAUSTIVE_VARIANT[self.method]
        return {str(n): log_path(GAME, experiment, variant, n, results) for n in self.shards}


def campaign_block(config: Mapping[str, Any], k: int, method: str, where: str) -> dict | None:
    """The size's block of ``redblack.exhaustive`` for this method (None: the config has none).

    A block that plans other sizes too cannot take a rank window: the campaign needs its own."""
    raw = (config.get("redblack") or {}).get("exhaustive") or []
    for block in [raw] if isinstance(raw, Mapping) else raw:
        sizes = block_sizes(block, where)
        if k in sizes and block.get("method", "owner") == method:
            if sizes != [k]:
                raise CardlabError(
                    f"{where}: the redblack.exhaustive block that plans k = {k} ({method}) plans other sizes "
                    f"too; give k = {k} a block of its own (`- k: [{k}]`) for its campaign"
                )
            return block
    return None


def campaign_of(k: int, method: str = "owner", results: str | None = None) -> Campaign:
    """A size's campaign as the campaign layer sees it (engines/campaign/book.py)."""
    grid = ledger_grid(k, method, results)
    return Campaign(
        GAME,
        exhaustive_experiment(k),
        EXHAUSTIVE_VARIANT[method],
        f"k = {k}",
        canonical_deals(k),
        "deals",
        tuple(SEARCH_TABLES),
        grid.rebuild.removesuffix(" --keep"),
        "--deals-per-shard",
    )


def size_of(campaign: Campaign) -> tuple[int, str]:
    """(k, method) of a RedBlack campaign, from its place."""
    method = next(m for m, v in EXHAUSTIVE_VARIANT.items() if v == campaign.variant)
    return int(campaign.experiment.rsplit("k", 1)[1]), method


def shard_grid_of(
    state: CampaignState, config: Mapping[str, Any], given: int | None, where: str, kept: int | None = None
) -> int:
    """The campaign's deals_per_shard: the finished shards', --deals-per-shard's, the config block's or
    the ledger's (``kept``), which must agree where more than one says."""
    k, method = size_of(state.campaign)
    block = campaign_block(config, k, method, where)
    sources = {
        "the finished shards": state.per_shard,
        "--deals-per-shard": given,
        f"the k = {k} block of {where}": block.get("deals_per_shard") if block else None,
        "the campaign's ledger": kept,
    }
    return agreed_per_shard(state.campaign, sources)


def plan_run(
    state: CampaignState,
    config: Mapping[str, Any],
    count: int,
    from_top: bool = False,
    deals_per_shard: int | None = None,
    where: str = "the config",
    kept: int | None = None,
) -> CampaignRun:
    """The next `count` shards left (fewer where fewer are left), lowest first or, from the top, highest
    first; ``kept``: the grid of the campaign's ledger, if it has one."""
    if count < 1:
        raise CardlabError(f"--run: the number of shards to run must be at least 1, got {count}")
    d = shard_grid_of(state, config, deals_per_shard, where, kept)
    k, method = size_of(state.campaign)
    return CampaignRun(k, method, d, state.next_shards(d, count, from_top), state.total)


def run_config(config: Mapping[str, Any], run: CampaignRun, where: str, backend: str | None = None) -> dict:
    """The user's config with the size's block planning exactly the run's windows (a block added if none;
    a campaign block made a plain one there: under the run config it plans the run's windows, not its ledger's),
    computed with ``backend`` where one is given."""
    out = deepcopy(dict(config))
    section = out.setdefault("redblack", {})
    raw = section.get("exhaustive") or []
    blocks = [raw] if isinstance(raw, Mapping) else list(raw)
    block = campaign_block({"redblack": {"exhaustive": blocks}}, run.k, run.method, where)
    if block is None:
        block = {"k": [run.k], "method": run.method}
        blocks.append(block)
    block.pop("campaign", None)
    block["ranks"] = [[a, b] for a, b in run.windows]
    block["deals_per_shard"] = run.deals_per_shard
    if backend:
        block["backend"] = backend
    section["exhaustive"] = blocks
    out["shard_order"] = "descending" if run.shards[0] > run.shards[-1] else "ascending"  # the run's order
    out["allow_campaign_work"] = True  # this command asks for the work (engines/pipeline/commands/campaign_work.py)
    return out
