"""The RedBlack report's query layer: every number the report shows, as rows with named fields.

Each function runs one query over the warehouse views (``engines/redblack/views.sql``)
and returns dicts keyed by column name; nothing here formats anything."""

from __future__ import annotations

import duckdb

from ...report.common import one, query, records

FULL_DECK = 26  # k of a full deck of 52 cards

# Per size k: is the list complete (exhaustive search over every canonical deal), how it
# was searched, and how many infinite deals / cycles are known.
STATUS_SQL = """
WITH m AS (
    SELECT k,
           bool_or(method = 'exhaustive' AND complete = 'yes') AS complete,
           sum(deals) FILTER (WHERE method = 'exhaustive') AS exhaustive_deals,
           sum(deals) FILTER (WHERE method = 'sample') AS sampled_deals,
           max(longest_finite_rounds) AS longest_finite_rounds
    FROM redblack_summary GROUP BY k
), i AS (
    SELECT k, count(*) AS infinite_canonical, count(DISTINCT cycle_id) AS cycles,
           count(*) FILTER (WHERE found_by = 'basin') AS only_in_basins
    FROM redblack_infinite GROUP BY k
)
SELECT m.k,
       CASE WHEN m.complete THEN 'complete' ELSE 'partial' END AS list,
       m.exhaustive_deals, m.sampled_deals,
       coalesce(i.infinite_canonical, 0) AS infinite_canonical,
       2 * coalesce(i.infinite_canonical, 0) AS infinite_total,
       coalesce(i.cycles, 0) AS cycles,
       coalesce(i.only_in_basins, 0) AS only_in_basins,
       m.longest_finite_rounds
FROM m LEFT JOIN i USING (k)
ORDER BY k
"""

HEADLINE_SQL = """
SELECT (SELECT count(*) FROM redblack_infinite) AS infinite_canonical,
       (SELECT 2 * count(*) FROM redblack_infinite) AS infinite_total,
       (SELECT count(DISTINCT k) FROM redblack_infinite) AS sizes_with_infinite,
       (SELECT string_agg(k::VARCHAR, ', ' ORDER BY k) FROM (SELECT DISTINCT k FROM redblack_infinite)) AS sizes_list,
       (SELECT count(*) FROM redblack_cycles) AS cycles,
       (SELECT min(k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_from,
       (SELECT max(k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_to,
       (SELECT count(DISTINCT k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_sizes,
       (SELECT coalesce(sum(deals), 0) FROM redblack_summary WHERE method = 'exhaustive') AS exhaustive_deals,
       (SELECT coalesce(sum(canonical_deals), 0) FROM redblack_coverage WHERE complete) AS complete_deals,
       (SELECT coalesce(sum(deals), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_deals,
       (SELECT coalesce(sum(infinite_hits), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_infinite
"""

LIST_SQL = """
SELECT i.k, i.p1, i.p2, i.cycle_id, i.period, i.rounds_before_cycle, i.found_by,
       CASE WHEN c.complete THEN 'complete' ELSE 'partial' END AS list
FROM redblack_infinite i
LEFT JOIN redblack_coverage c USING (k)
ORDER BY i.k, i.p1, i.p2
"""

CYCLES_SQL = """
SELECT k, cycle_id, period, colour_symmetric, basin_states, basin_complete, basin_depth,
       balanced_deals_canonical, balanced_deals_total, found_by, deals_met
FROM redblack_cycles ORDER BY k, cycle_id
"""

SUMMARY_SQL = """
SELECT k, method, experiments, deals, complete, infinite_canonical, infinite_total, cycles,
       longest_finite_rounds, longest_finite_deal
FROM redblack_summary ORDER BY k, method
"""

# Exhaustive sizes: the complete ones only, with the true count of infinite deals (the owner
# rule meets only some of them itself; the rest are in the basins of the cycles it finds).
SHARE_SQL = """
SELECT c.k, 'exhaustive' AS method, c.canonical_deals AS deals,
       (SELECT count(*) FROM redblack_infinite i WHERE i.k = c.k) AS infinite,
       (SELECT count(*) FROM redblack_infinite i WHERE i.k = c.k) / c.canonical_deals AS share
FROM redblack_coverage c WHERE c.complete
UNION ALL
SELECT k, method, sum(deals) AS deals, sum(infinite_hits) AS infinite, sum(infinite_hits) / sum(deals) AS share
FROM redblack_summary WHERE method = 'sample'
GROUP BY ALL ORDER BY method, k
"""

COVERAGE_SQL = """
SELECT k, cards, canonical_deals, ranks_searched, share_searched, prefix_done, complete,
       1e9 * cpu_s_per_round AS ns_per_round, rounds_per_deal, core_hours_left
FROM redblack_coverage ORDER BY k
"""

# Every known infinite deal of one size, with its certificate and how it was found.
FULL_DECK_SQL = """
SELECT i.p1, i.p2, i.cycle_id, i.period, i.rounds_before_cycle,
       CASE WHEN i.found_by IN ('exhaustive', 'sample') THEN 'own search'
            WHEN i.found_by = 'basin' THEN 'basin of a cycle our search found'
            WHEN a.listed THEN 'published list; replayed here'
            ELSE 'basin of a published deal''s cycle; not in the list' END AS how_found
FROM redblack_infinite i
LEFT JOIN (SELECT k, p1, p2, bool_or(status = 'listed-infinite') AS listed
           FROM redblack_audit GROUP BY ALL) a USING (k, p1, p2)
WHERE i.k = ?
ORDER BY how_found DESC, i.p1, i.p2
"""

AUDIT_SQL = """
SELECT experiment, k, listed, confirmed_infinite, listed_finite, missing, cycles, exhaustive_complete
FROM redblack_audit_summary ORDER BY experiment, k
"""

SAMPLE_BOUND_SQL = """
SELECT k, sum(deals) AS deals, sum(infinite_hits) AS infinite
FROM redblack_summary WHERE method = 'sample' AND k = ? GROUP BY k
"""

LENGTHS_SQL = "SELECT k, method, rounds, share FROM redblack_lengths ORDER BY method, k, rounds"

LENGTH_STATS_SQL = """
SELECT k, method, sum(rounds * deals) / sum(deals) AS mean_rounds, max(rounds) AS max_rounds
FROM redblack_lengths GROUP BY ALL ORDER BY method, k
"""

SAMPLES_SQL = """
SELECT k, balanced, string_agg(DISTINCT experiment, ', ' ORDER BY experiment) AS experiments,
       sum(deals) AS deals, sum(infinite) AS infinite
FROM redblack_counts WHERE method = 'sample' AND algorithm = 'brute' GROUP BY k, balanced ORDER BY k, balanced DESC
"""

COVERAGE_OF_SQL = "SELECT * FROM redblack_coverage WHERE k = ?"

Con = duckdb.DuckDBPyConnection


def headline(con: Con) -> dict:
    return one(con, HEADLINE_SQL)


def status(con: Con) -> list[dict]:
    return records(con, STATUS_SQL)


def status_by_k(con: Con) -> dict[int, dict]:
    return {s["k"]: s for s in status(con)}


def infinite_by_k(con: Con) -> dict[int, list[dict]]:
    """Every known infinite deal, grouped by size k (in k order)."""
    by_k: dict[int, list[dict]] = {}
    for row in records(con, LIST_SQL):
        by_k.setdefault(row["k"], []).append(row)
    return by_k


def full_deck_deals(con: Con, k: int = FULL_DECK) -> list[dict]:
    return records(con, FULL_DECK_SQL, [k])


def coverage_of(con: Con, k: int) -> dict:
    return one(con, COVERAGE_OF_SQL, [k])


def sample_bounds(con: Con, k: int) -> list[dict]:
    return records(con, SAMPLE_BOUND_SQL, [k])


def audit(con: Con) -> list[dict]:
    return records(con, AUDIT_SQL)


def samples(con: Con) -> list[dict]:
    return records(con, SAMPLES_SQL)


def shares(con: Con) -> list[dict]:
    return records(con, SHARE_SQL)


def lengths(con: Con) -> list[dict]:
    return records(con, LENGTHS_SQL)


def length_stats(con: Con) -> list[dict]:
    return records(con, LENGTH_STATS_SQL)


def table(con: Con, sql: str) -> tuple[list[str], list[tuple]]:
    """(columns, rows) of a query, for a table laid out column by column (and the CSV files)."""
    return query(con, sql)
