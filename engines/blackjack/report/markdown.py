"""``blackjack.md`` and its CSV tables: the Blackjack report as text, from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.fmt import plural
from ...core.layout import WAREHOUSE
from ...core.store import write_text
from ...report.common import markdown_table, one, query, write_csv
from .figures import BUST_PNG
from .labels import false_alarm_bound, hands_text, variant_title
from .queries import (
    COUNTS_SQL,
    EFFECTS,
    EXACT_CSV_SQL,
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


def write_markdown(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """``blackjack.md`` and its two CSV tables."""
    outdir = Path(outdir)
    files = [
        write_csv(outdir / EXACT_CSV, *query(con, EXACT_CSV_SQL)),
        write_csv(outdir / SIM_CSV, *query(con, SIM_CSV_SQL)),
    ]
    variant = seed_variant(con)
    md = intro_section(con) + exact_section(con, variant) + simulations_section(con, variant)
    if variant is not None:
        md += effects_section(con)
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
