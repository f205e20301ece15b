"""``cardlab redblack campaign K``: a size's rank-window campaign, a thin wrapper of ``cardlab campaign
redblack K`` (engines/campaign/command.py owns what both do: the ledger, --run, --keep).

What is RedBlack's own is here: which campaign K and --method name (:data:`BOOK`), how its
finished shards are read (engines/redblack/campaign.py), the run config that plans the next
windows (engines/redblack/campaign/next.py), and what the report's warehouse says the rest costs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...campaign.book import Campaign
from ...core.errors import CardlabError
from ...pipeline.planning.plan import DEFAULT_CONFIG
from ..rules import K_MAX
from .commands import size

CAMPAIGN_EXAMPLES = """examples:
  cardlab redblack campaign 22             k = 22's finished shards, its config block and ledger, the shards left
  cardlab redblack campaign 21 --results /shared/campaign/results
  cardlab redblack campaign 23 --run 4 --from top --cores 2 --nice 19
                                           the next 4 shards from the top, each kept in the ledger
  cardlab redblack campaign 23 --keep      keep in the ledger the finished shards copied into results/
  cardlab redblack campaign 24 --run 1 --deals-per-shard 20000000000     a new size's first shard
  cardlab redblack campaign 26 --run 500 --snakemake='--workflow-profile workflow/profiles/slurm'"""


class RedBlackBook:
    """RedBlack's campaigns: one a size k and method, on the grid of its canonical deals."""

    game = "redblack"
    unit = "deals"
    examples = CAMPAIGN_EXAMPLES
    description = (
        "Reads the finished exhaustive shards of size K under a results tree (every table checked) "
        "and prints the ranks they searched, their CPU time from the jobs' timing records, whether the size's block in the "
        "config is a campaign block (`campaign: true`: it plans the shards its ledger keeps), what the ledger "
        "keeps, and the shards left."
    )

    def add_arguments(self, c) -> None:
        c.add_argument("k", type=size, help=f"cards per player, 1..{K_MAX}")
        c.add_argument(
            "--method", choices=("owner", "brute"), default="owner", help="the shards' method (default: owner)"
        )
        c.add_argument(
            "--backend",
            choices=("scalar", "gpu"),
            help="with --run: compute the shards on the CPU (scalar) or an NVIDIA GPU (gpu: pip install -e .[gpu]); "
            "default: the size's block's backend.  Results are the same bits either way",
        )

    def campaign(self, args) -> Campaign:
        from ..campaign.next import campaign_of

        if args.run is None and args.backend is not None:
            raise CardlabError("--backend chooses how --run computes shards; give it with --run")
        if args.run is not None and args.backend == "gpu":
            from ..gpu import cuda_module

            cuda_module()  # no GPU or no numba-cuda: say so before Snakemake starts
        return campaign_of(args.k, args.method, args.results)

    def finished(self, campaign: Campaign, results: str, timing):
        from ..campaign import campaign_state

        k, method = _size(campaign)
        return campaign_state(k, method, results, timing=timing)

    def block(self, config: Mapping[str, Any] | None, campaign: Campaign, where: str) -> dict | None:
        from ..campaign.next import campaign_block

        return campaign_block(config or {}, *_size(campaign), where)

    def block_per_shard(self, block: Mapping[str, Any]) -> int | None:
        return block.get("deals_per_shard")

    def block_hint(self, campaign: Campaign) -> str:
        k, method = _size(campaign)
        return f"`- k: [{k}]`, `method: {method}`, its deals_per_shard"

    def run_config(
        self, config: Mapping[str, Any], campaign: Campaign, shards: Sequence[int], per_shard: int, backend: str | None
    ) -> dict:
        from ..campaign.next import CampaignRun, run_config

        k, method = _size(campaign)
        return run_config(
            config, CampaignRun(k, method, per_shard, list(shards), campaign.total), "the config", backend
        )

    def describe(self, campaign: Campaign, state, results: str, book_lines: list[str], args) -> list[str]:
        from ..campaign import describe

        return describe(state, results, cost_left(state, results), book_lines)


def _size(campaign: Campaign) -> tuple[int, str]:
    """(k, method) of a RedBlack campaign, from its place."""
    from ..search_shards import EXHAUSTIVE_VARIANT

    method = next(m for m, v in EXHAUSTIVE_VARIANT.items() if v == campaign.variant)
    return int(campaign.experiment.rsplit("k", 1)[1]), method


BOOK = RedBlackBook()


def add_campaign(sub, raw) -> None:
    """``cardlab redblack campaign``: where a size's rank-window campaign stands."""
    from ...campaign.cli import add_campaign_options

    c = sub.add_parser(
        "campaign",
        help="a size's finished search shards: coverage, CPU, its config block and ledger, the shards left",
        description=BOOK.description + "  The same as `cardlab campaign redblack K`.",
        epilog=CAMPAIGN_EXAMPLES,
        formatter_class=raw,
    )
    BOOK.add_arguments(c)
    add_campaign_options(c, BOOK.unit, DEFAULT_CONFIG)
    c.set_defaults(func=cmd_campaign)


def cmd_campaign(args) -> int:
    from ...campaign.command import campaign_command

    return campaign_command(BOOK, args)


def cost_left(state, results: str) -> str | None:
    """The rest's cost as the report prices it (engines/redblack/report/cost.py), when there is a warehouse."""
    import duckdb

    from ...core.layout import warehouse_path
    from ...pipeline.catalog.warehouse import connect
    from ..campaign import cost_left_text
    from ..report.cost import cost_line, costs_to_finish
    from ..report.queries import coverage_of

    db = warehouse_path(results)
    try:  # a warehouse being rebuilt, or one without RedBlack, only costs this line
        with connect(db) as con:
            coverage = coverage_of(con, state.k)
            costs = costs_to_finish(con).get(state.k, [])
    except (CardlabError, duckdb.Error):
        return None
    return cost_left_text(state, coverage, costs, cost_line, db) if coverage else None
