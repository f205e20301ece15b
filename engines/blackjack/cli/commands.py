"""The Blackjack commands at work: ``cardlab blackjack table`` and ``cardlab blackjack cutcard``.

Their parsers are in engines/blackjack/cli/__init__.py, which names these handlers as strings, so that
building the command line loads neither the numba kernels nor the warehouse."""

from __future__ import annotations

import os
import sys

import duckdb

from ...core.errors import CardlabError, one_line, squeeze
from ...core.layout import default_db
from ...core.tabular import csv_text
from ...pipeline.catalog.warehouse import connect
from ..cutcard_bounds import DEFAULT_SHOES
from ..cutcard_law import cutcard_law, kept_curve_law
from ..depleted import card_label, depleted_table
from ..kinds.cutcard import full_shoe_law
from ..report.labels import variant_title
from ..rules import OUTCOMES

HEADER = ("Upcard", "Bust", "17", "18", "19", "20", "21", "Natural")


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


def cutcard_lines(args, law) -> list[str]:
    """The answer in words: the setting and method, rounds a shoe, the law per round dealt beside the full shoe."""
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
    method = "exact" if args.exact else "simulate" if args.shoes is not None else "auto"
    law = cutcard_law(
        args.decks, args.cut, args.players, args.soft17, method, args.by_round,
        DEFAULT_SHOES if args.shoes is None else args.shoes, args.seed, notice=say, kept=kept_curve(args.db),
    )  # fmt: skip
    sys.stdout.write(cutcard_csv(law) if args.csv else "\n".join(cutcard_lines(args, law)) + "\n")
    return 0
