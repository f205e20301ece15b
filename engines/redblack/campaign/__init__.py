"""RedBlack's campaigns: a size k's exhaustive search, rank window by rank window, on one shard grid
(``cardlab campaign redblack K``, alias ``cardlab redblack campaign K``).

The campaign layer (engines/campaign/) owns the command, the state and the ledger; what is
RedBlack's own is here: the command's K and options and its help (this module, light: every
command's parser is built from it), the book (:mod:`.book`: which campaign K and --method name, the
config block, the rest's cost from the warehouse), the reading of its finished shards and its lines
(:mod:`.state`) and the run config that plans the next windows (:mod:`.next`).
"""

from __future__ import annotations

from ...core import argtypes
from ..rules import K_MAX

UNIT = "deals"
CARDS_PER_PLAYER = argtypes.integer(1, K_MAX, " cards per player")  # k's domain, the other commands' too
DESCRIPTION = (
    "Reads the finished exhaustive shards of size K under a results tree (every table checked) "
    "and prints the ranks they searched, their CPU time from the jobs' timing records, whether the size's block in the "
    "config is a campaign block (`campaign: true`: it plans the shards its ledger keeps), what the ledger "
    "keeps, and the shards left."
)
EXAMPLES = """examples:
  cardlab campaign redblack 22             k = 22's finished shards, its config block and ledger, the shards left
  cardlab campaign redblack 21 --results /shared/campaign/results
  cardlab campaign redblack 23 --run 4 --from top --cores 2 --nice 19
                                           the next 4 shards from the top, each kept in the ledger
  cardlab campaign redblack 23 --keep      keep in the ledger the finished shards copied into results/
  cardlab campaign redblack 24 --run 1 --deals-per-shard 20000000000     a new size's first shard
  cardlab campaign redblack 26 --run 500 --snakemake='--workflow-profile workflow/profiles/slurm'"""


def add_arguments(c) -> None:
    """The command's K and RedBlack's own options."""
    c.add_argument("k", type=CARDS_PER_PLAYER, help=f"cards per player, 1..{K_MAX}")
    c.add_argument("--method", choices=("owner", "brute"), default="owner", help="the shards' method (default: owner)")
    c.add_argument(
        "--backend",
        choices=("scalar", "gpu"),
        help="with --run: compute the shards on the CPU (scalar) or an NVIDIA GPU (gpu: pip install -e .[gpu]); "
        "default: the size's block's backend.  Results are the same bits either way",
    )
