"""``cardlab blackjack table``: the exact dealer-outcome table of one rule variant, at once;
``cardlab blackjack cutcard``: the dealer's law with a cut card, exact where it can be.

The parsers are here; the commands, which load the kernels and the warehouse, are in :mod:`.commands`."""

from __future__ import annotations

import argparse

from ...core import argtypes
from ...core.errors import CardlabError
from ..cutcard_bounds import DEFAULT_SHOES, MAX_SHOES, MOST_CARDS
from ..depleted import parse_cards
from ..rules import PEEK, SOFT17, parse_decks

TABLE_EXAMPLES = """examples:
  cardlab blackjack table                                  2 decks, stand on soft 17, no peek (the seed's)
  cardlab blackjack table --decks 6 --soft17 hit --peek yes
  cardlab blackjack table --decks inf --csv > infinite.csv
  cardlab blackjack table --decks 1 --remove A,A,T,5     the shoe less two aces, a ten-valued card and a 5"""


def decks_arg(text: str) -> str:
    """argparse type: 1..8 or inf, with the allowed values in the message otherwise."""
    try:
        return parse_decks(text)
    except CardlabError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("decks: ")) from None


def cards_arg(text: str) -> tuple[int, ...]:
    """argparse type: cards to remove, 'A,A,T,5' (unknown ranks named in the message)."""
    try:
        return parse_cards(text)
    except CardlabError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


CUTCARD_EXAMPLES = """examples:
  cardlab blackjack cutcard --decks 1 --cut 39 --exact         one deck cut at 75 %, dealer only, exactly
                                                               (in seconds from a built warehouse's kept curve)
  cardlab blackjack cutcard --decks 1 --cut 39 --by-round      also each round number's law
  cardlab blackjack cutcard --decks 1 --cut 8 --players 2 --csv
  cardlab blackjack cutcard --decks 6 --cut 234 --players 4 --shoes 200000 --seed 7   simulated (6 decks)
  cardlab blackjack cutcard --decks 1 --cut 39 --db /tmp/other.duckdb         another warehouse's kept curve"""


def register(sub) -> None:
    p = sub.add_parser(
        "blackjack",
        help="Blackjack dealer outcomes: exact tables, the cut card",
        description="Blackjack dealer outcomes per upcard, exactly.",
        epilog=TABLE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bsub = p.add_subparsers(dest="blackjack_command", required=True, parser_class=type(p))
    t = bsub.add_parser(
        "table",
        help="print the exact dealer-outcome table for one rule variant",
        description="Exact probabilities that the dealer busts or ends on 17..21 or a natural, "
        "per upcard, computed over the shoe's composition (no simulation).",
        epilog=TABLE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument("--decks", type=decks_arg, default="2", help="1..8 or inf (default: %(default)s)")
    t.add_argument("--soft17", choices=SOFT17, default="stand", help="dealer on soft 17 (default: %(default)s)")
    t.add_argument(
        "--peek", choices=PEEK, default="no", help="yes: conditioned on no dealer natural (default: %(default)s)"
    )
    t.add_argument(
        "--remove",
        type=cards_arg,
        default=(),
        metavar="CARDS",
        help="cards gone from the shoe, comma separated, a rank as often as it is removed: A,2..9,T "
        "(10, J, Q, K count as T), e.g. A,A,T,5 (default: none)",
    )
    t.add_argument("--csv", action="store_true", help="CSV for machines: upcard, outcome, probability, exact fraction")
    t.set_defaults(func="engines.blackjack.cli.commands:cmd_table")
    c = bsub.add_parser(
        "cutcard",
        help="the dealer's law per round with a cut card: exact where it can be, simulated otherwise",
        description="A shoe dealt round after round (players' cards, then the dealer's hand) until the cut card "
        "comes out, then reshuffled: the share of rounds the dealer busts, ends on 17..21 or has a natural, "
        "beside the full shoe's. Exact fractions for shallow cuts, the forward pass over compositions for "
        "any cut of one deck (float64, its error bound stated), seeded simulation otherwise or with --shoes; "
        "the first line says which.",
        epilog=CUTCARD_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument(
        "--decks", type=argtypes.integer(1, 8, " decks"), default=1, metavar="1..8", help="decks (default: 1)"
    )
    c.add_argument(
        "--cut",
        type=argtypes.integer(1, MOST_CARDS, " cards"),
        required=True,
        help=f"cards dealt before the cut card comes out, 1..{MOST_CARDS}, and few enough that a round started "
        "before it can finish (one deck, dealer only: at most 43)",
    )
    c.add_argument(
        "--players",
        type=argtypes.integer(0, MOST_CARDS, " player cards a round"),
        default=0,
        help=f"players' cards a round before the dealer's, 0..{MOST_CARDS}, and few enough to leave the dealer's "
        "hand room (one deck: at most 42; default: 0)",
    )
    c.add_argument("--soft17", choices=SOFT17, default="stand", help="dealer on soft 17 (default: %(default)s)")
    how = c.add_mutually_exclusive_group()
    how.add_argument("--exact", action="store_true", help="exactly, or an error saying why it cannot be")
    how.add_argument(
        "--shoes",
        type=argtypes.integer(2, MAX_SHOES, " shoes (an interval needs two)"),
        help=f"simulate N seeded shoes instead, 2..{MAX_SHOES:,} (default when exact cannot be: {DEFAULT_SHOES:,})",
    )
    c.add_argument(
        "--seed", type=argtypes.seed, default=1, help="the simulation's seed, 0..2^64-1 (default: %(default)s)"
    )
    c.add_argument("--by-round", action="store_true", help="also the law of each round number in the shoe")
    c.add_argument("--csv", action="store_true", help="CSV: round (0: every round dealt), outcome, probability")
    c.add_argument(
        "--db",
        type=argtypes.file_path,
        help="the warehouse whose kept one-deck curve (blackjack_cutcard_curve) answers at once what the forward "
        "pass would compute (default: $CARDLAB_DB, else results/warehouse.duckdb; none there: computed)",
    )
    c.set_defaults(func="engines.blackjack.cli.commands:cmd_cutcard")
