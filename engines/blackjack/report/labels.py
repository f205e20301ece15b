"""Labels the Blackjack report's Markdown and index share."""

from __future__ import annotations

from .queries import Z_AGREE


def variant_title(decks: str, soft17: str, peek: str) -> str:
    shoe = "infinite shoe" if decks == "inf" else f"{decks} deck{'s' if decks != '1' else ''}"
    rule = "stands on soft 17" if soft17 == "stand" else "hits soft 17"
    return f"{shoe}, dealer {rule}, {'after peeking for a natural' if peek == 'yes' else 'no peek'}"


def hands_text(d: dict) -> str:
    """``10,000,000 hands per upcard``, or dealt and kept when peeking removed naturals."""
    dealt, kept = d["hands dealt per upcard"], d["hands kept (fewest upcard)"]
    if dealt == kept:
        return f"{dealt:,} hands per upcard"
    return f"{dealt:,} hands dealt per upcard, at least {kept:,} kept after peeking removed naturals"


def false_alarm_bound(cells: int) -> str:
    """Bonferroni bound on P(some |z| >= Z_AGREE) for ``cells`` independent-enough cells, as a percentage."""
    import math

    return f"{100 * cells * math.erfc(Z_AGREE / math.sqrt(2)):.2f} %"
