"""The report's "Published claims" section: each figure a source states about Narcotic, beside the
rules that reproduce it and cardlab's figure for it (rows of the ``narcotic_claims`` view)."""

from __future__ import annotations

import math

from ...core.fmt import MISSING, duration, missing
from ...report.common import markdown_table
from .labels import rules_in_words, rules_label

COLUMNS = ("claim", "source", "it says", "cardlab reads it as", "rules that reproduce it")
COLUMNS += ("cardlab (95 % interval)", "seed rules (95 % interval)", "holds")

# how cardlab reads each measure a claim can name (the view's `measure`)
READINGS = {
    "win_p": "share of games won (the deck emptied)",
    "loop_share": "share of games that loop (a gathered deck repeats one gathered before)",
    "mean_passes_won": "mean passes through the deck of a won game, the pass that empties it included",
    "mean_passes_all": "mean passes through the deck of every game, to the win or to the pass whose deck repeats",
    "seed_average_s": "the seed's average: the time of won games over all games (4 s a deal, 5 s a gather)",
}

SHARES = ("win_p", "loop_share")


def figure(measure: str, v, digits: int = 4) -> str:
    """A measure's value to ``digits`` significant digits: a share in percent, passes, seconds."""
    if missing(v):
        return MISSING
    if measure in SHARES:
        return f"{100 * v:#.{digits}g} %"
    if measure == "seed_average_s":
        return f"{v:,.0f} s"
    return f"{v:#.{digits}g}"


def interval(measure: str, lo, hi) -> str:
    """An interval one digit finer than its figure, so that the fourth digit's certainty shows."""
    return f"{figure(measure, lo, 5)} – {figure(measure, hi, 5)}"


def claimed(r: dict) -> str:
    """The claimed figure as precisely as the source states it (its unit is twice ``half_unit``)."""
    unit = 2 * r["half_unit"] * (100 if r["measure"] in SHARES else 1)
    if r["measure"] == "seed_average_s":
        return f"an average of {duration(r['claimed']).removesuffix(' 00 s')}"  # stated to the minute
    decimals = max(0, -math.floor(math.log10(unit) + 1e-9))
    value = 100 * r["claimed"] if r["measure"] in SHARES else r["claimed"]
    return f"{value:.{decimals}f}" + (" %" if r["measure"] in SHARES else "")


def off_by(r: dict, v) -> str:
    """A difference of the claim's measure, in its unit (percentage points for shares)."""
    if r["measure"] in SHARES:
        return f"{100 * v:.2f} points"
    return f"{v:,.0f} s" if r["measure"] == "seed_average_s" else f"{v:.2f}"


def verdict(r: dict) -> str:
    """Whether the claim holds, and by which reading: its own precision, or its sample's error."""
    if r["holds"] is None:
        return "no figure: no campaign of these rules in the warehouse"
    if r["within_precision"]:
        return "yes, to its stated precision"
    sample = r["source_games"]
    if r["within_sample"]:
        return f"yes, within the 95 % sampling error of its {sample:,} games (± {off_by(r, r['source_error95'])})"
    why = (
        f"its {sample:,} games allow ± {off_by(r, r['source_error95'])}"
        if sample
        else f"its precision allows ± {off_by(r, r['half_unit'])}, its sample is not stated"
    )
    return f"no: off by {off_by(r, r['difference'])} ({why})"


def cardlab_cell(r: dict, prefix: str = "") -> str:
    value = r[f"{prefix}value"]
    if missing(value):
        return MISSING
    campaign = r[f"{prefix}campaign"]
    return (
        f"**{figure(r['measure'], value)}** ({interval(r['measure'], r[f'{prefix}lo95'], r[f'{prefix}hi95'])}; "
        f"campaign `{campaign}`)"
    )


def source_link(r: dict, text: str) -> str:
    """A source and its address as text: the report's pages link only to their own files (they are
    read offline, and a page that loads nothing from elsewhere is checked for it)."""
    return f"{text}, `{r['url']}`"


def claim_row(r: dict) -> tuple:
    return (
        f"`{r['claim']}`",
        source_link(r, r["source"]),
        claimed(r),
        READINGS[r["measure"]],
        f"`{rules_label(r)}`: {rules_in_words(r)}",
        cardlab_cell(r) + (f", {r['games']:,} games" if r["games"] else ""),
        cardlab_cell(r, "seed_"),
        verdict(r),
    )


def claim_text(r: dict) -> str:
    """The claim's words and its source's rule text, as quoted."""
    return f"- `{r['claim']}`: “{r['quote']}”. Its rules: “{r['rules_quote']}”."


def claims_section(rows: list[dict]) -> list[str]:
    md = [
        "## Published claims",
        "",
        "Every figure about Narcotic (also called Perpetual Motion) found in a published source, beside the "
        "rule combination of cardlab's sixteen that reproduces it and cardlab's figure from the kept campaign "
        "of those rules, to four digits with its 95 % interval (Wilson for shares, normal for means), and the "
        "seed rules' figure of the same measure. A claim holds when cardlab's figure lies within the claim's "
        "own precision (half a unit of its last digit) or, where the source names its sample, within that "
        "sample's 95 % sampling error. Where a source's rule text and the reproducing rules differ, the "
        'numbers decide: see docs/narcotic.md, "Published claims", for each reading and the claims found '
        "that no rule combination plays.",
        "",
    ]
    if not rows:
        return md + ["No claims in the warehouse.", ""]
    return md + [markdown_table(COLUMNS, [claim_row(r) for r in rows]), *map(claim_text, rows), ""]
