"""Narcotic's campaigns: a canonical enumeration of the decks of R values under one rule combination
(``cardlab campaign narcotic R``), or a tally campaign of the config's ``campaigns:`` (NAME its name).

The campaign layer (engines/campaign/) owns the command, the state and the ledger; what is
Narcotic's own is here: the command's NAME and options and its help (this module, light: every
command's parser is built from it), the book (:mod:`.book`: which campaign a NAME means, its config
block, its run config, its lines) and the reading of its finished shards (:mod:`.states`).
"""

from __future__ import annotations

from ..options import add_rule_options

UNIT = "decks"
DESCRIPTION = (
    "NAME is R, the values of a deck (a canonical enumeration's campaign), or the name of a tally campaign "
    "of the config's `campaigns:` (seeded games kept as sums).  Reads the campaign's finished shards (each "
    "checked: a canonical shard's counts against its ranks, a tally's sums against its games) and prints "
    "what they played and won, their CPU time, the price of the rest at that rate, whether the config's "
    "block is a campaign block (`campaign: true`: it plans the shards its ledger keeps), what the ledger "
    "keeps, and the shards left."
)
EXAMPLES = """examples:
  cardlab campaign narcotic 5                  r = 5, seed rules: decks covered, CPU, the rest's price, the ledger
  cardlab campaign narcotic 5 --run 1 --cores 1 --nice 19
                                               the next shard left, kept in the ledger as it finishes
  cardlab campaign narcotic 5 --gather bottom-right --run 6 --decks-per-shard 500000000
                                               a new campaign of other rules (its block: canonical, campaign)
  cardlab campaign narcotic 5 --keep           keep in the ledger the finished shards copied into results/
  cardlab campaign narcotic full_deck          a tally campaign of the config (10^9 seeded games): its shards
  cardlab campaign narcotic NAME --run 2       its next 2 shards (its entry: `campaign: true`, games, seed)"""


def add_arguments(c) -> None:
    """The command's NAME and Narcotic's own options."""
    c.add_argument("name", metavar="NAME", help="R (values in the deck, 1..6), or a tally campaign's name")
    add_rule_options(c)
    c.add_argument(
        "--variant", help="a tally campaign's rule combination, when its entry plays several (deal.top-right.keep)"
    )
