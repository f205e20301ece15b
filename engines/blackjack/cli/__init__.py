"""``cardlab blackjack table``: the exact dealer-outcome table of one rule variant, at once;
``cardlab blackjack cutcard``: the dealer's law with a cut card, exact where it can be."""

from __future__ import annotations

import argparse
import os
import sys

from ...core import argtypes
from ...core.errors import CardlabError, one_line, squeeze
from ...core.tabular import csv_text
from ..cutcard_bounds import DEFAULT_SHOES, MAX_SHOES, MOST_CARDS
from ..depleted import card_label, depleted_table, parse_cards
from ..rules import OUTCOMES, PEEK, SOFT17, parse_decks

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
    rows = [
        (upcard, outcome, float(p), p)
        for upcard, probs in table.items()
        if not isinstance(probs, str)
        for outcome, p in zip(OUTCOMES, probs)
    ]
    return csv_text(("upcard", "outcome", "probability", "exact"), rows)


def title(decks: str, soft17: str, peek: str) -> str:
    """The variant in words, as the reports name it."""
    from ..report.labels import variant_title

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


CUTCARD_EXAMPLES = """examples:
  cardlab blackjack cutcard --decks 1 --cut 39 --exact         one deck cut at 75 %, dealer only, exactly
                                                               (in seconds from a built warehouse's kept curve)
  cardlab blackjack cutcard --decks 1 --cut 39 --by-round      also each round number's law
  cardlab blackjack cutcard --decks 1 --cut 8 --players 2 --csv
  cardlab blackjack cutcard --decks 6 --cut 234 --players 4 --shoes 200000 --seed 7   simulated (6 decks)
  cardlab blackjack cutcard --decks 1 --cut 39 --db /tmp/other.duckdb         another warehouse's kept curve"""


def cutcard_lines(args, law) -> list[str]:
    """The answer in words: the setting and method, rounds a shoe, the law per round dealt beside the full shoe."""
    from ..cutcard_shards import full_shoe_law

    who = "dealer only" if args.players == 0 else f"{args.players} player card{'s' * (args.players > 1)} a round"
    deck_words = f"{args.decks} deck{'s' * (args.decks > 1)}"
    share = args.cut / (52 * args.decks)
    error = (
        f"; relative error below {law.relative_error:.0e}" if law.relative_error is not None
        else "; 95 % intervals" if law.half_width is not None else ""
    )  # fmt: skip
    lines = [
        f"Cut card: {deck_words}, cut after {args.cut} cards ({100 * share:.0f} %), {who}, dealer "
        f"{'hits' if args.soft17 == 'hit' else 'stands on'} soft 17 — {law.method}{error}",
        f"rounds a shoe: {law.rounds_per_shoe:.6f}",
        "\t".join(("", *HEADER[1:])),
    ]
    full = [float(p) for p in full_shoe_law(args.decks, args.soft17)]
    cells = [f"{100 * p:.4f}%" for p in law.average]
    if law.half_width is not None:
        cells = [f"{c} ± {100 * h:.4f}" for c, h in zip(cells, law.half_width)]
    lines.append("\t".join(("per round dealt", *cells)))
    lines.append("\t".join(("full shoe (cut 1)", *(f"{100 * p:.4f}%" for p in full))))
    lines.append("\t".join(("difference (points)", *(f"{100 * (a - b):+.4f}" for a, b in zip(law.average, full)))))
    if law.per_round:
        lines.append("by round number (P: the shoe deals that round):")
        lines.append("\t".join(("round", "P", *HEADER[1:])))
        for r, dealt, probs in law.per_round:
            lines.append("\t".join((str(r), f"{dealt:.6g}", *(f"{100 * p:.4f}%" for p in probs))))
    return lines


def cutcard_csv(law) -> str:
    """round (0: every round dealt), outcome, probability, and the exact fraction or interval where there is one."""
    rows = [
        (0, law.rounds_per_shoe, name, law.average[o], law.exact[o] if law.exact else None,
         law.half_width[o] if law.half_width else None)
        for o, name in enumerate(OUTCOMES)
    ]  # fmt: skip
    rows += [(r, dealt, name, p, None, None) for r, dealt, probs in law.per_round for name, p in zip(OUTCOMES, probs)]
    return csv_text(("round", "dealt", "outcome", "probability", "exact", "half_width_95"), rows)


def say(words: str) -> None:
    print(words, file=sys.stderr, flush=True)


def kept_curve(db: str | None):
    """cutcard_law's ``kept``: the law from the warehouse's kept curve (``db``, else $CARDLAB_DB, else the
    project's own), or None to compute it. A warehouse that cannot be read is said in one line, never fatal."""

    def kept(decks: int, cut: int, players: int, soft17: str, by_round: bool):
        import duckdb

        from ...core.layout import default_db
        from ...pipeline.catalog.warehouse import connect
        from ..cutcard_law import kept_curve_law

        path = db or default_db()
        if not os.path.lexists(path):
            if db:  # named on purpose: say why it is not used
                say(f"note: no warehouse {path}; computing the curve")
            return None
        try:
            con = connect(path)
            try:
                law = kept_curve_law(con, decks, cut, players, soft17, by_round)
            finally:
                con.close()
        except CardlabError as exc:  # connect's words name the warehouse, why, and its fix
            say(f"note: {one_line(str(exc))}; computing the curve instead")
            return None
        except (duckdb.Error, OSError) as exc:
            say(f"note: {path}: cannot read the kept curve ({squeeze(str(exc))}); computing it instead")
            return None
        if law is not None:
            say(f"cutcard: from the warehouse's kept curve: {path}")
        return law

    return kept


def cmd_cutcard(args) -> int:
    from ..cutcard_law import cutcard_law

    method = "exact" if args.exact else "simulate" if args.shoes is not None else "auto"
    law = cutcard_law(
        args.decks, args.cut, args.players, args.soft17, method, args.by_round,
        DEFAULT_SHOES if args.shoes is None else args.shoes, args.seed, notice=say, kept=kept_curve(args.db),
    )  # fmt: skip
    sys.stdout.write(cutcard_csv(law) if args.csv else "\n".join(cutcard_lines(args, law)) + "\n")
    return 0


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
    t.set_defaults(func=cmd_table)
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
    c.set_defaults(func=cmd_cutcard)
