"""Blackjack report: exact dealer-outcome tables, simulations against them, and the
effect of the rules on the bust probability, all from SQL over the warehouse.

Writes ``blackjack.md``, ``blackjack.csv``, ``blackjack_sim.csv`` and ``blackjack_bust.png``
(the names the engine declares); ``REPORT`` declares it (:class:`engines.report.game.GameReport`)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..core.fmt import pct, plural
from ..core.store import write_text
from ..report.common import markdown_table, one, pyplot, query, save_figure, write_csv
from ..report.game import GameReport
from ..report.html import esc, html_table

MD, EXACT_CSV, SIM_CSV, BUST_PNG = "blackjack.md", "blackjack.csv", "blackjack_sim.csv", "blackjack_bust.png"
SEED_VARIANT = ("2", "stand", "no")  # the seed's question: 2 decks, dealer stands on soft 17, no peek

# Seed layout: columns in outcome order; the label of each outcome column.
OUTCOME_LABELS = (
    ("bust", "Bust"),
    ("17", "17"),
    ("18", "18"),
    ("19", "19"),
    ("20", "20"),
    ("21", "21"),
    ("natural", "Natural"),
)

# A fresh-shoe simulation "agrees" when no cell is beyond |z| = 4: with n cells the
# chance of a false alarm under the exact law is below n x P(|Z| > 4) (Bonferroni).
Z_AGREE = 4.0


def false_alarm_bound(cells: int) -> str:
    """Bonferroni bound on P(some |z| >= Z_AGREE) for ``cells`` independent-enough cells, as a percentage."""
    import math

    return f"{100 * cells * math.erfc(Z_AGREE / math.sqrt(2)):.2f} %"


def _pivot_cells(value_sql: str) -> str:
    """One column per outcome, in the seed's order, from a per-row SQL expression."""
    return ", ".join(
        f"max(CASE WHEN outcome = '{o}' THEN {value_sql} END) AS \"{label}\"" for o, label in OUTCOME_LABELS
    )


def seed_variant(con) -> tuple[str, str, str] | None:
    """The variant shown first: the seed's (2 decks, stand, no peek) if computed, else the first one."""
    _, rows = query(
        con,
        """
        SELECT decks, soft17, peek FROM blackjack_exact
        GROUP BY decks, soft17, peek
        ORDER BY (decks = '2' AND soft17 = 'stand' AND peek = 'no') DESC,
                 decks = 'inf', try_cast(decks AS INTEGER), soft17 DESC, peek
        LIMIT 1""",
    )
    return tuple(rows[0]) if rows else None


def variant_title(decks: str, soft17: str, peek: str) -> str:
    shoe = "infinite shoe" if decks == "inf" else f"{decks} deck{'s' if decks != '1' else ''}"
    rule = "stands on soft 17" if soft17 == "stand" else "hits soft 17"
    return f"{shoe}, dealer {rule}, {'after peeking for a natural' if peek == 'yes' else 'no peek'}"


def exact_layout(con, variant: tuple[str, str, str]) -> tuple[list[str], list[tuple]]:
    cols, rows = query(
        con,
        f"""
        SELECT upcard AS "Upcard", {_pivot_cells("printf('%.2f%%', 100 * probability)")}
        FROM blackjack_exact WHERE decks = ? AND soft17 = ? AND peek = ?
        GROUP BY upcard, upcard_order ORDER BY upcard_order""",
        list(variant),
    )
    return cols, rows


def simulated_layout(con, experiment: str) -> tuple[list[str], list[tuple]]:
    """Simulated percentages with each cell's z against the exact table."""
    return query(
        con,
        f"""
        SELECT upcard AS "Upcard",
               {
            _pivot_cells(
                "CASE WHEN standard_error > 0 THEN printf('%.2f%% (%+.1f)', 100 * simulated, z) "
                "ELSE printf('%.2f%%', 100 * simulated) END"
            )
        }
        FROM blackjack_compare WHERE experiment = ?
        GROUP BY upcard, upcard_order ORDER BY upcard_order""",
        [experiment],
    )


def hands_text(d: dict) -> str:
    """``10,000,000 hands per upcard``, or dealt and kept when peeking removed naturals."""
    dealt, kept = d["hands dealt per upcard"], d["hands kept (fewest upcard)"]
    if dealt == kept:
        return f"{dealt:,} hands per upcard"
    return f"{dealt:,} hands dealt per upcard, at least {kept:,} kept after peeking removed naturals"


def agreement(con) -> tuple[list[str], list[tuple]]:
    return query(
        con,
        f"""
        SELECT experiment, shoe, decks, soft17, peek,
               CASE WHEN shoe = 'continuous' THEN printf('%.2f', penetration) END AS penetration,
               d.dealt_per_upcard AS "hands dealt per upcard",
               min_hands_per_upcard AS "hands kept (fewest upcard)", cells,
               printf('%.2f', max_abs_z) AS max_abs_z, max_abs_z_at,
               cells_beyond_3, printf('%.2f', expected_beyond_3) AS expected_beyond_3,
               CASE WHEN max_abs_z < {Z_AGREE} THEN 'yes' ELSE 'NO' END AS agrees
        FROM blackjack_agreement
        JOIN (SELECT experiment, min(dealt) AS dealt_per_upcard FROM blackjack_sim GROUP BY experiment) d
            USING (experiment)
        ORDER BY shoe DESC, experiment""",
    )


def rule_effect(con, value_sql: str, where: str, having: str = "TRUE") -> tuple[list[str], list[tuple]]:
    """Upcards as rows, deck counts as columns, of a per-(upcard, decks) SQL value
    (``having`` keeps only the upcards where it holds)."""
    _, decks = query(
        con,
        f"SELECT DISTINCT decks FROM blackjack_exact WHERE {where} ORDER BY decks = 'inf', try_cast(decks AS INTEGER)",
    )
    if not decks:
        return [], []
    cells = ", ".join(
        f"max(CASE WHEN decks = '{d}' THEN {value_sql} END) AS \"{d} deck{'s' if d != '1' else ''}\"".replace(
            "inf decks", "infinite"
        )
        for (d,) in decks
    )
    return query(
        con,
        f"""
        WITH v AS (
            SELECT decks, upcard, upcard_order,
                   max(CASE WHEN soft17 = 'stand' AND peek = 'no' THEN probability END) AS s17,
                   max(CASE WHEN soft17 = 'hit' AND peek = 'no' THEN probability END) AS h17,
                   max(CASE WHEN soft17 = 'stand' AND peek = 'yes' THEN probability END) AS s17_peek
            FROM blackjack_exact WHERE outcome = 'bust' AND {where}
            GROUP BY decks, upcard, upcard_order)
        SELECT upcard AS "Upcard", {cells} FROM v GROUP BY upcard, upcard_order HAVING {having}
        ORDER BY upcard_order""",
    )


def bust_figure(con, path: Path) -> Path:
    """Bust probability by upcard, one line per deck count (stand on soft 17, no peek), and
    beside it each finite shoe's difference from the infinite shoe, where the lines separate."""
    plt = pyplot()
    _, rows = query(
        con,
        """
        WITH b AS (SELECT decks, upcard, upcard_order, probability FROM blackjack_exact
                   WHERE outcome = 'bust' AND soft17 = 'stand' AND peek = 'no')
        SELECT b.decks, b.upcard, b.upcard_order, 100 * b.probability,
               100 * (b.probability - i.probability) AS minus_infinite
        FROM b LEFT JOIN b AS i ON i.decks = 'inf' AND i.upcard = b.upcard
        ORDER BY b.decks = 'inf', try_cast(b.decks AS INTEGER), b.upcard_order""",
    )
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    lines: dict[str, list] = {}
    for decks, upcard, order, p, diff in rows:
        lines.setdefault(decks, []).append((order, upcard, p, diff))
    for decks, pts in lines.items():
        label = "infinite" if decks == "inf" else f"{decks} deck{'s' if decks != '1' else ''}"
        x = [o for o, _, _, _ in pts]
        left.plot(x, [p for _, _, p, _ in pts], marker="o", ms=3, lw=1.2, label=label)
        if decks != "inf" and all(d is not None for _, _, _, d in pts):
            right.plot(x, [d for _, _, _, d in pts], marker="o", ms=3, lw=1.2, label=label)
        for ax in (left, right):
            ax.set_xticks(x, [u for _, u, _, _ in pts])
    left.set_title("P(dealer busts), dealer stands on soft 17, no peek")
    left.set_ylabel("%")
    right.set_title("difference from the infinite shoe")
    right.set_ylabel("percentage points")
    right.axhline(0, color="grey", lw=0.8)
    for ax in (left, right):
        ax.set_xlabel("dealer upcard")
        ax.grid(alpha=0.3)
    left.legend(fontsize=8, ncol=2)
    fig.suptitle("Exact dealer bust probability by upcard and shoe size")
    return save_figure(fig, path)


EXACT_CSV_SQL = """
SELECT decks, soft17, peek, upcard, outcome, probability, exact FROM blackjack_exact
ORDER BY decks = 'inf', try_cast(decks AS INTEGER), soft17 DESC, peek, upcard_order, outcome_order
"""

SIM_CSV_SQL = """
SELECT experiment, shoe, decks, soft17, peek, penetration, upcard, outcome, hands, "count", simulated, exact,
       difference, standard_error, z
FROM blackjack_compare ORDER BY experiment, upcard_order, outcome_order
"""

COUNTS_SQL = """
SELECT (SELECT count(DISTINCT (decks, soft17, peek)) FROM blackjack_exact) AS variants,
       (SELECT coalesce(sum(dealt), 0) FROM blackjack_sim WHERE outcome = 'bust') AS hands
"""

# Each effect of the rules on the bust probability: (title, value per upcard and deck count, HAVING).
EFFECTS = (
    (
        "Bust probability (%) by shoe size, dealer stands on soft 17, no peek",
        "printf('%.2f', 100 * s17)",
        "TRUE",
    ),
    (
        "Hitting soft 17: change in bust probability (percentage points, hit − stand, no peek)",
        "printf('%+.2f', 100 * (h17 - s17))",
        "TRUE",
    ),
    (
        "Peeking for a natural: change in bust probability (percentage points, peek − no peek, "
        "stand on soft 17), for the upcards where it changes anything",
        "printf('%+.2f', 100 * (s17_peek - s17))",
        "max(abs(s17_peek - s17)) > 0",
    ),
)


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


def write_figures(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    return [bust_figure(con, Path(outdir) / BUST_PNG)]


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
        f"{n['hands']:,} hands in all.  Generated from `results/warehouse.duckdb`.",
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


# ----------------------------------------------------------------------------- the one-page index

BLACKJACK_BUST_SQL = """
SELECT upcard, probability FROM blackjack_exact
WHERE outcome = 'bust' AND decks = ? AND soft17 = ? AND peek = ?
ORDER BY probability DESC, upcard_order
"""


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    if variant is None:
        return ["No exact Blackjack tables in the warehouse."]
    _, bust = query(con, BLACKJACK_BUST_SQL, list(variant))
    out = [
        f"Blackjack dealer ({esc(variant_title(*variant))}; exact): the dealer busts most often "
        f"showing <b>{esc(bust[0][0])} ({pct(bust[0][1])})</b> and least often showing "
        f"<b>{esc(bust[-1][0])} ({pct(bust[-1][1])})</b>."
    ]
    acols, arows = agreement(con)
    for row in arows:
        d = dict(zip(acols, row))
        z = float(d["max_abs_z"])
        head = f"Simulation <code>{esc(d['experiment'])}</code> ({esc(d['shoe'])} shoe, {hands_text(d)})"
        if d["shoe"] != "fresh":  # not the exact table's law: z measures the effect, not an error
            out.append(
                f"{head} differs from the exact table by up to |z| = {z:.2f} over {d['cells']:,} cells: "
                "hands dealt one after another through one shoe are not independent "
                "(the continuous-shoe effect)."
            )
            continue
        verdict = "agrees with" if z < Z_AGREE else "<b>disagrees</b> with"
        out.append(
            f"{head} {verdict} the exact table: largest |z| = {z:.2f} over {d['cells']:,} cells "
            f"(agreement: every |z| &lt; {Z_AGREE:g})."
        )
    return out


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    out = []
    if variant is not None:
        out += [f"<h3>Exact table: {esc(variant_title(*variant))}</h3>", html_table(*exact_layout(con, variant))]
    acols, arows = agreement(con)
    if arows:
        out += ["<h3>Simulations against the exact tables</h3>", html_table(acols, arows)]
    return out


QUERIES = {"exact_csv": EXACT_CSV_SQL, "sim_csv": SIM_CSV_SQL, "counts": COUNTS_SQL, "bust": BLACKJACK_BUST_SQL}
REPORT = GameReport(queries=QUERIES, writers=(write_markdown, write_figures), answer=answer, tables=tables)
