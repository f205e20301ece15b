"""``cardlab blackjack table``: the exact dealer-outcome table of one rule variant, at once."""

from __future__ import annotations

import argparse
import sys

from ..core.errors import CardlabError
from .depleted import card_label, depleted_table, parse_cards
from .rules import OUTCOMES, PEEK, SOFT17, parse_decks

TABLE_EXAMPLES = """examples:
  cardlab blackjack table                                  2 decks, stand on soft 17, no peek (the seed's)
  cardlab blackjack table --decks 6 --soft17 hit --peek yes
  cardlab blackjack table --decks inf --csv > infinite.csv
  cardlab blackjack table --decks 1 --remove A,A,T,5     the shoe less two aces, a ten-valued card and a 5"""

HEADER = ("Upcard", "Bust", "17", "18", "19", "20", "21", "Natural")


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


def format_table(table: dict) -> str:
    """The seed's layout: one row per upcard (2..10, then ace), outcomes as percentages.

    An upcard without a row (a depleted shoe holding none of it) is a line 'A: <why>'."""
    lines = ["\t".join(HEADER)]
    for upcard, probs in table.items():
        if isinstance(probs, str):
            lines.append(f"{upcard}: {probs}")
            continue
        lines.append("\t".join([upcard] + [f"{100 * float(p):6.2f}%" for p in probs]))
    return "\n".join(lines) + "\n"


def format_csv(table: dict) -> str:
    """One row per upcard and outcome: probability as float64 and as an exact fraction
    (an upcard without a row has none here; cmd_table says why on stderr)."""
    lines = ["upcard,outcome,probability,exact"]
    for upcard, probs in table.items():
        if isinstance(probs, str):
            continue
        for outcome, p in zip(OUTCOMES, probs):
            lines.append(f"{upcard},{outcome},{float(p)!r},{p.numerator}/{p.denominator}")
    return "\n".join(lines) + "\n"


def title(decks: str, soft17: str, peek: str) -> str:
    """The variant in words, as the reports name it."""
    from .report.labels import variant_title

    return f"Exact dealer outcomes: {variant_title(decks, soft17, peek)}"


def removed_words(removed) -> str:
    """', cards removed: A, A, T, 5' (ranks in the order given), or '' for a full shoe."""
    return f", cards removed: {', '.join(card_label(v) for v in removed)}" if removed else ""


def cmd_table(args) -> int:
    removed = args.remove or ()
    table = depleted_table(args.decks, args.soft17, args.peek, removed)
    if args.csv:
        sys.stdout.write(format_csv(table))
        for upcard, why in table.items():
            if isinstance(why, str):
                print(f"note: upcard {upcard}: {why} (no rows)", file=sys.stderr)
    else:
        head = title(args.decks, args.soft17, args.peek) + removed_words(removed)
        sys.stdout.write(head + "\n" + format_table(table))
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
    t.add_argument(
        "--remove",
        type=cards_arg,
        default=(),
        metavar="CARDS",
        help="cards gone from the shoe, comma separated, a rank as often as it is removed: A,2..9,T "
        "(10, J, Q, K count as T), e.g. A,A,T,5 (default: none)",
    )
    t.add_argument("--csv", action="store_true", help="CSV for machines: upcard, outcome, probability, exact fraction")
    t.set_defaults(func=cmd_table)
