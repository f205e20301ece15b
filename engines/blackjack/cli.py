"""``cardlab blackjack table``: the exact dealer-outcome table of one rule variant, at once."""

from __future__ import annotations

import argparse
import sys

from ..core.errors import CardlabError
from .exact import exact_table
from .rules import OUTCOMES, PEEK, SOFT17, parse_decks

TABLE_EXAMPLES = """examples:
  cardlab blackjack table                                  2 decks, stand on soft 17, no peek (the seed's)
  cardlab blackjack table --decks 6 --soft17 hit --peek yes
  cardlab blackjack table --decks inf --csv > infinite.csv"""

HEADER = ("Upcard", "Bust", "17", "18", "19", "20", "21", "Natural")


def decks_arg(text: str) -> str:
    """argparse type: 1..8 or inf, with the allowed values in the message otherwise."""
    try:
        return parse_decks(text)
    except CardlabError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("decks: ")) from None


def format_table(table: dict) -> str:
    """The seed's layout: one row per upcard (2..10, then ace), outcomes as percentages."""
    lines = ["\t".join(HEADER)]
    for upcard, probs in table.items():
        lines.append("\t".join([upcard] + [f"{100 * float(p):6.2f}%" for p in probs]))
    return "\n".join(lines) + "\n"


def format_csv(table: dict) -> str:
    """One row per upcard and outcome: probability as float64 and as an exact fraction."""
    lines = ["upcard,outcome,probability,exact"]
    for upcard, probs in table.items():
        for outcome, p in zip(OUTCOMES, probs):
            lines.append(f"{upcard},{outcome},{float(p)!r},{p.numerator}/{p.denominator}")
    return "\n".join(lines) + "\n"


def title(decks: str, soft17: str, peek: str) -> str:
    """The variant in words, as the reports name it."""
    from .report import variant_title

    return f"Exact dealer outcomes: {variant_title(decks, soft17, peek)}"


def cmd_table(args) -> int:
    table = exact_table(args.decks, args.soft17, args.peek)
    if args.csv:
        sys.stdout.write(format_csv(table))
    else:
        sys.stdout.write(title(args.decks, args.soft17, args.peek) + "\n" + format_table(table))
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "blackjack",
        help="Blackjack dealer outcomes: exact tables",
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
    t.add_argument("--csv", action="store_true", help="CSV for machines: upcard, outcome, probability, exact fraction")
    t.set_defaults(func=cmd_table)
