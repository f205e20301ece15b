"""Labels and table cells that the Narcotic report's Markdown, figures and index share."""

from __future__ import annotations

from ...core.fmt import duration, fixed, pct, pct_range


def exp_label(experiment: str, preset: str | None, variant: str = "", word: str = "experiment") -> str:
    """``seed rules``; ``classic rules (experiment rules)`` when the names differ; the variant without a preset."""
    rules = f"{preset} rules" if preset else f"rules {variant}"
    return rules if experiment == preset else f"{rules} ({word} {experiment})"


def combination_cells(r: dict) -> tuple:
    """Cells of a rule combination after its experiment, for the Markdown and HTML tables."""
    return (
        r["matching"],
        r["gather"],
        r["pile_four"],
        r["games"],
        pct(r["win_p"]),
        pct_range(r["win_lo95"], r["win_hi95"]),
        fixed(r["mean_passes"]),
        duration(r["mean_time_s"]),
    )


def rules_label(r: dict) -> str:
    return " / ".join((r["matching"], r["gather"], r["pile_four"]))


# the sixteen combinations in words, for readers who do not know cardlab's names
MATCHING_WORDS = {
    "deal": "only the four cards of one deal are compared",
    "cascade": "pile tops are compared, again as cards are uncovered",
}
GATHER_WORDS = {
    "top-right": "the next pass deals the rightmost pile's top card first",
    "bottom-left": "the next pass deals the leftmost pile's bottom card first",
    "top-left": "the next pass deals the leftmost pile's top card first",
    "bottom-right": "the next pass deals the rightmost pile's bottom card first",
}
PILE_FOUR_WORDS = {
    "keep": "four equal cards on one pile stay",
    "discard": "four equal cards on one pile are discarded",
}


def rules_in_words(r: dict) -> str:
    """``matching`` / ``gather`` / ``pile_four`` of a row, as a sentence's parts."""
    return "; ".join((MATCHING_WORDS[r["matching"]], GATHER_WORDS[r["gather"]], PILE_FOUR_WORDS[r["pile_four"]]))
