"""The Blackjack report's queries: every number it shows, as rows with named fields over the
views of ``engines/blackjack/views.sql``; nothing here formats a report (the SQL lays out its
tables' cells, so the Markdown and the index show the same digits)."""

from __future__ import annotations

from ...report.common import query

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


def _pivot_cells(value_sql: str) -> str:
    """One column per outcome, in the seed's order, from a per-row SQL expression."""
    return ", ".join(
        f"max(CASE WHEN outcome = '{o}' THEN {value_sql} END) AS \"{label}\"" for o, label in OUTCOME_LABELS
    )


def deck_text(column: str = "decks") -> str:
    """SQL: a deck count as the report writes it, ``2``, ``inf``, ``0.5``: the warehouse holds it as a
    DOUBLE (``WHERE decks = 6`` works), whose text would be ``2.0``."""
    return f"regexp_replace({column}::VARCHAR, '\\.0$', '')"


# the variant shown first: the seed's (2 decks, stand, no peek) if computed, else the first one
SEED_VARIANT_SQL = f"""
SELECT {deck_text("e.decks")} AS decks, soft17, peek FROM blackjack_exact AS e
GROUP BY e.decks, soft17, peek
ORDER BY (e.decks = 2 AND soft17 = 'stand' AND peek = 'no') DESC, e.decks, soft17 DESC, peek
LIMIT 1
"""

EXACT_LAYOUT_SQL = f"""
SELECT upcard AS "Upcard", {_pivot_cells("printf('%.2f%%', 100 * probability)")}
FROM blackjack_exact WHERE decks = ? AND soft17 = ? AND peek = ?
GROUP BY upcard, upcard_order ORDER BY upcard_order
"""

# a simulated cell: the percentage, and its z against the exact table where it has a standard error
SIMULATED_CELL = (
    "CASE WHEN standard_error > 0 THEN printf('%.2f%% (%+.1f)', 100 * simulated, z) "
    "ELSE printf('%.2f%%', 100 * simulated) END"
)

SIMULATED_LAYOUT_SQL = f"""
SELECT upcard AS "Upcard", {_pivot_cells(SIMULATED_CELL)}
FROM blackjack_compare WHERE experiment = ?
GROUP BY upcard, upcard_order ORDER BY upcard_order
"""

AGREEMENT_SQL = f"""
SELECT experiment, shoe, {deck_text()} AS decks, soft17, peek,
       CASE WHEN shoe = 'continuous' THEN printf('%.2f', penetration) END AS penetration,
       d.dealt_per_upcard AS "hands dealt per upcard",
       min_hands_per_upcard AS "hands kept (fewest upcard)", cells,
       printf('%.2f', max_abs_z) AS max_abs_z, max_abs_z_at,
       cells_beyond_3, printf('%.2f', expected_beyond_3) AS expected_beyond_3,
       CASE WHEN max_abs_z < {Z_AGREE} THEN 'yes' ELSE 'NO' END AS agrees
FROM blackjack_agreement
JOIN (SELECT experiment, min(dealt) AS dealt_per_upcard FROM blackjack_sim GROUP BY experiment) d
    USING (experiment)
ORDER BY shoe DESC, experiment
"""

EXACT_CSV_SQL = f"""
SELECT {deck_text("e.decks")} AS decks, soft17, peek, upcard, outcome, probability, exact
FROM blackjack_exact AS e
ORDER BY e.decks, soft17 DESC, peek, upcard_order, outcome_order
"""

SIM_CSV_SQL = f"""
SELECT experiment, shoe, {deck_text()} AS decks, soft17, peek, penetration, upcard, outcome, hands, "count",
       simulated, exact, difference, standard_error, z
FROM blackjack_compare ORDER BY experiment, upcard_order, outcome_order
"""

COUNTS_SQL = """
SELECT (SELECT count(DISTINCT (decks, soft17, peek)) FROM blackjack_exact) AS variants,
       (SELECT coalesce(sum(dealt), 0) FROM blackjack_sim WHERE outcome = 'bust') AS hands
"""

BLACKJACK_BUST_SQL = """
SELECT upcard, probability FROM blackjack_exact
WHERE outcome = 'bust' AND decks = ? AND soft17 = ? AND peek = ?
ORDER BY probability DESC, upcard_order
"""

BUST_FIGURE_SQL = f"""
WITH b AS (SELECT decks, upcard, upcard_order, probability FROM blackjack_exact
           WHERE outcome = 'bust' AND soft17 = 'stand' AND peek = 'no')
SELECT {deck_text("b.decks")} AS decks, b.upcard, b.upcard_order, 100 * b.probability,
       100 * (b.probability - i.probability) AS minus_infinite
FROM b LEFT JOIN b AS i ON i.decks = 'inf' AND i.upcard = b.upcard
ORDER BY b.decks, b.upcard_order
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

# Effects of removal (Griffin): the exact change in the dealer's bust probability, in percentage
# points, when one card of a rank leaves a full shoe (table blackjack_effects_of_removal, view
# blackjack_bust_effects).  Ranks removed, in Griffin's column order.
REMOVED_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
REMOVAL_VARIANT = ("1", "stand")  # the Markdown's table: 1 deck, dealer stands on soft 17

_REMOVED_CELLS = ", ".join(f'printf(\'%+.3f\', "{r}") AS "{r}"' for r in REMOVED_RANKS)

EFFECTS_LAYOUT_SQL = f"""
SELECT upcard AS "Upcard", printf('%.2f%%', base_bust) AS "Base bust",
       {_REMOVED_CELLS}
FROM blackjack_bust_effects WHERE decks = ? AND soft17 = ?
ORDER BY upcard_order
"""

# per deck count (stand on soft 17): the largest effect of one card on the bust probability, where,
# and its size against the single deck's
EFFECTS_SIZE_SQL = f"""
WITH m AS (
    SELECT decks, max(abs(delta)) * 100 AS largest, arg_max(upcard, abs(delta)) AS upcard,
           arg_max(removed, abs(delta)) AS removed, arg_max(delta, abs(delta)) * 100 AS signed,
           avg(abs(delta)) * 100 AS mean_abs
    FROM blackjack_effects_of_removal WHERE outcome = 'bust' AND soft17 = 'stand'
    GROUP BY decks)
SELECT {deck_text("m.decks")} AS decks, printf('%.3f', largest) AS largest, upcard, removed,
       printf('%+.3f', signed) AS signed, printf('%.3f', mean_abs) AS mean_abs,
       printf('%.1f', (SELECT largest FROM m WHERE decks = 1) / largest) AS smaller_than_1_deck
FROM m ORDER BY m.decks
"""

EFFECTS_CSV_SQL = f"""
SELECT * EXCLUDE (upcard_order) REPLACE ({deck_text("b.decks")} AS decks) FROM blackjack_bust_effects AS b
ORDER BY b.decks, soft17 DESC, peek, upcard_order
"""

EFFECTS_FIGURE_SQL = f"""
SELECT {deck_text("e.decks")} AS decks, upcard, upcard_order, removed, removed_order, 100 * delta AS delta_pp
FROM blackjack_effects_of_removal AS e
WHERE outcome = 'bust' AND soft17 = 'stand' AND e.decks IN (1, 8)
ORDER BY e.decks, upcard_order, removed_order
"""

# The report's named queries (``COUNTS_SQL`` is ``counts``), as its GameReport declares them;
# rule_effect's SQL depends on the deck counts present, so it is built there
QUERIES = {name.removesuffix("_SQL").lower(): sql for name, sql in list(globals().items()) if name.endswith("_SQL")}


def seed_variant(con) -> tuple[str, str, str] | None:
    """The variant shown first: the seed's (2 decks, stand, no peek) if computed, else the first one."""
    _, rows = query(con, SEED_VARIANT_SQL)
    return tuple(rows[0]) if rows else None


def exact_layout(con, variant: tuple[str, str, str]) -> tuple[list[str], list[tuple]]:
    return query(con, EXACT_LAYOUT_SQL, list(variant))


def simulated_layout(con, experiment: str) -> tuple[list[str], list[tuple]]:
    """Simulated percentages with each cell's z against the exact table."""
    return query(con, SIMULATED_LAYOUT_SQL, [experiment])


def agreement(con) -> tuple[list[str], list[tuple]]:
    return query(con, AGREEMENT_SQL)


def rule_effect(con, value_sql: str, where: str, having: str = "TRUE") -> tuple[list[str], list[tuple]]:
    """Upcards as rows, deck counts as columns, of a per-(upcard, decks) SQL value
    (``having`` keeps only the upcards where it holds)."""
    _, decks = query(
        con,
        f"SELECT {deck_text()} FROM blackjack_exact WHERE {where} GROUP BY decks ORDER BY decks",
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
