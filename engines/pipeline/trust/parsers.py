"""The parsers of ``cardlab verify`` and ``cardlab clean``: light (argparse types and the plan's options),
each naming its handler as a string (engines/cli handler_of), so building the command line loads neither
the warehouse nor DuckDB.  The handlers are in engines/pipeline/trust/verify.py and clean.py."""

from __future__ import annotations

from argparse import RawDescriptionHelpFormatter

from ..planning.plan import add_plan_options
from .options import add_recompute_options

VERIFY_EPILOG = """examples:
  cardlab verify
  cardlab verify --results /shared/campaign/results --config campaign.yaml
  cardlab verify --recompute 3 --seed 7          three shards drawn at random, computed again and compared
  cardlab verify --recompute all --cores 2       every planned shard (as long as the whole run took)
  cardlab verify --recompute 20 --max-cpu-s 3600 a campaign sample within an hour of CPU"""

CLEAN_EPILOG = """examples:
  cardlab clean                  list what no plan of config.yaml owns
  cardlab clean --remove         delete it (never a planned, kept or git-tracked file)
  cardlab clean --config tiny.yaml --remove"""


def register(subparsers) -> None:
    """``cardlab verify`` and ``cardlab clean``."""
    v = subparsers.add_parser(
        "verify",
        help="check results/ against the config and the current engines",
        description="cardlab verify: check a results tree against the current config and engines.",
        epilog=VERIFY_EPILOG,
        formatter_class=RawDescriptionHelpFormatter,
    )
    add_plan_options(v)
    add_recompute_options(v)
    v.set_defaults(func="engines.pipeline.trust.verify:cmd_verify")

    c = subparsers.add_parser(
        "clean",
        help="list (and with --remove delete) files under results/ that no plan owns",
        description="Lists the files under results/ that no plan of the config owns (what verify calls "
        "unexpected or leftover, and their job logs); --remove deletes them.",
        epilog=CLEAN_EPILOG,
        formatter_class=RawDescriptionHelpFormatter,
    )
    c.add_argument("--remove", action="store_true", help="delete the files listed (default: only list them)")
    add_plan_options(c)
    c.set_defaults(func="engines.pipeline.trust.clean:cmd_clean")
