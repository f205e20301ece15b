"""``blackjack.md`` and its CSV tables: the Blackjack report as text, from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.fmt import plural
from ...core.layout import WAREHOUSE
from ...core.store import write_text
from ...report.common import markdown_table, one, query, records, write_csv
from .cutcard import cutcard_section
from .figures import BUST_PNG, EFFECTS_PNG
from .labels import false_alarm_bound, hands_text, variant_title
from .queries import (
    COUNTS_SQL,
    EFFECTS,
    EFFECTS_CSV_SQL,
    EFFECTS_LAYOUT_SQL,
    EFFECTS_SIZE_SQL,
    EXACT_CSV_SQL,
    REMOVAL_VARIANT,
    SEED_VARIANT,
    SIM_CSV_SQL,
    Z_AGREE,
    agreement,
    exact_layout,
    rule_effect,
    seed_variant,
    simulated_layout,
)

MD, EXACT_CSV, SIM_CSV = "blackjack.md", "blackjack.csv", "blackjack_sim.csv"
EFFECTS_CSV = "blackjack_effects.csv"


def write_markdown(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """``blackjack.md`` and its three CSV tables."""
    outdir = Path(outdir)
    files = [
        write_csv(outdir / EXACT_CSV, *query(con, EXACT_CSV_SQL)),
        write_csv(outdir / SIM_CSV, *query(con, SIM_CSV_SQL)),
        write_csv(outdir / EFFECTS_CSV, *query(con, EFFECTS_CSV_SQL)),
    ]
    variant = seed_variant(con)
    md = intro_section(con) + exact_section(con, variant) + simulations_section(con, variant)
    if variant is not None:
        md += effects_section(con)
    md += removal_section(con) + cutcard_section(con)
    return [write_text(outdir / MD, "\n".join(md)), *files]


def intro_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    n = one(con, COUNTS_SQL)
    return [
        "# Blackjack dealer outcomes",
        "",
        "For each dealer upcard, the probability that the dealer busts, finishes on 17..21, or "
        "has a natural (21 with two cards).  Rules: `engines/blackjack/rules.py` (upcard removed from the "
        "shoe before the hole card; an ace counts 11 unless that busts the hand, several aces valued "
        "together).  Exact tables are computed over the shoe's composition with exact fractions "
        f"({plural(n['variants'], 'rule variant')}; fractions in `{EXACT_CSV}`); simulations deal "
        f"{n['hands']:,} hands in all.  Generated from `{WAREHOUSE}`.",
        "",
    ]


def exact_section(con: duckdb.DuckDBPyConnection, variant: tuple[str, str, str] | None) -> list[str]:
    if variant is None:
        return ["No exact tables in the warehouse: add a `blackjack:` section to config.yaml.", ""]
    md = [f"## Exact table: {variant_title(*variant)}", ""]
    if variant == SEED_VARIANT:
        md += [
            "The seed's question; every printed digit matches the seed's exhaustive table "
            "(pinned in `tests/test_blackjack.py`).",
            "",
        ]
    return md + [markdown_table(*exact_layout(con, variant))]


SIMULATIONS_TEXT = (
    "Each cell of a simulated table is compared with the exact probability of the same rule "
    "variant: z = (simulated − exact) / sqrt(p (1 − p) / hands).  A fresh shoe per hand is the "
    "exact table's law, so its z values should look standard normal; a fresh-shoe experiment "
    "*agrees* when every |z| < {z:g} (under the exact law that fails with probability {bounds})."
    "  Peeking (peek = yes) removes the dealer's naturals from the table, so fewer hands are kept "
    "than dealt; the table shows both, the kept count for the upcard that kept fewest.  A continuous shoe is "
    "*not* the exact table's law: hands dealt "
    "one after another from one shoe depend on each other, and which hands are dealt before the "
    "reshuffle depends on the cards, so its z values measure that effect (the binomial standard "
    "error is then only a guide).  It is the likely source of the small differences the seed's "
    "thread could not explain between its exhaustive table and the simulations that dealt "
    "through a shoe."
)


def simulations_section(con: duckdb.DuckDBPyConnection, variant: tuple[str, str, str] | None) -> list[str]:
    acols, arows = agreement(con)
    if not arows:
        return []
    runs = [dict(zip(acols, r)) for r in arows]
    bounds = "; ".join(
        f"below {false_alarm_bound(int(d['cells']))} for the {d['cells']:,} cells of {d['experiment']}"
        for d in runs
        if d["shoe"] == "fresh"
    )
    md = [
        "## Simulations against the exact tables",
        "",
        SIMULATIONS_TEXT.format(z=Z_AGREE, bounds=bounds),
        "",
        markdown_table(acols, arows),
    ]
    for d in runs:
        variant_e = (d["decks"], d["soft17"], d["peek"])
        md += [
            f"### {d['experiment']}: {d['shoe']} shoe, {variant_title(*variant_e)}",
            "",
            f"{hands_text(d)}; largest |z| = {d['max_abs_z']} "
            f"(upcard / outcome {d['max_abs_z_at']}).  Simulated percentages, (z) against the exact "
            "table:",
            "",
            markdown_table(*simulated_layout(con, d["experiment"])),
        ]
        if variant_e != variant:
            md += ["Exact table of this variant:", "", markdown_table(*exact_layout(con, variant_e))]
    return md


def effects_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    md = [
        "## Effect of the rules on the dealer's bust probability",
        "",
        f"![bust probability by upcard]({BUST_PNG})",
        "",
    ]
    for title, value_sql, having in EFFECTS:
        ecols, erows = rule_effect(con, value_sql, "TRUE", having)
        if erows:
            md += [f"**{title}**", "", markdown_table(ecols, erows)]
    return md


REMOVAL_TEXT = (
    "Each number is the exact change in the dealer's bust probability, in percentage points, when "
    "ONE card of the column's rank leaves a full shoe before the deal (the upcard is then drawn from "
    "the rest; no peek): Griffin's classic table (*The Theory of Blackjack*).  A positive number: "
    "without that card the dealer busts more often.  Computed exactly over the shoe's composition "
    "(`engines/blackjack/depleted.py`, table `blackjack_effects_of_removal`, view "
    "`blackjack_bust_effects`; every setting in `{csv}`).  By the law of total probability the "
    "effects of a row, weighted by each rank's count in the shoe less the upcard, sum to zero."
)


def removal_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Griffin's effects of removal on the bust probability: the single-deck table, and how
    the effects shrink with more decks."""
    md = ["## Effects of removal", ""]
    cols, rows = query(con, EFFECTS_LAYOUT_SQL, list(REMOVAL_VARIANT))
    if not rows:
        return md + ["No effects of removal in the warehouse.", ""]
    decks, soft17 = REMOVAL_VARIANT
    md += [
        REMOVAL_TEXT.format(csv=EFFECTS_CSV),
        "",
        f"**{variant_title(decks, soft17, 'no')}: change in bust probability (percentage points) "
        "when one card of a rank is removed; base bust in percent**",
        "",
        markdown_table(cols, rows),
        f"![bust effects of removal by upcard]({EFFECTS_PNG})",
        "",
        "With more decks one card is a smaller part of the shoe, and its effect shrinks roughly in "
        "proportion (dealer stands on soft 17):",
        "",
    ]
    sizes = records(con, EFFECTS_SIZE_SQL)
    for d in sizes:
        shoe = plural(int(d["decks"]), "deck")
        line = (
            f"- {shoe}: the largest effect is {d['signed']} points (removing one {d['removed']} "
            f"against upcard {d['upcard']}); the mean absolute effect is {d['mean_abs']} points"
        )
        if d["decks"] != "1" and any(e["decks"] == "1" for e in sizes):
            line += f"; the largest effect is {d['smaller_than_1_deck']} times smaller than with 1 deck"
        md.append(line + ".")
    return md + [""]
