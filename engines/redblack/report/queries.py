"""The RedBlack report's query layer: every number the report shows, as rows with named fields.

Each function runs one query over the warehouse views (``engines/redblack/views.sql``)
and returns dicts keyed by column name; nothing here formats anything."""

from __future__ import annotations

import duckdb

from ...report.common import one, query, records
from ..rules import rank_deal

FULL_DECK = 26  # k of a full deck of 52 cards

# Per size k (views.sql redblack_by_size): the columns of the by-size tables, in order.
STATUS_SQL = """
SELECT k, list, exhaustive_deals, sampled_deals, infinite_canonical, infinite_total, cycles, only_in_basins,
       longest_finite_rounds
FROM redblack_by_size ORDER BY k
"""

BY_SIZE_SQL = "SELECT * FROM redblack_by_size ORDER BY k"

HEADLINE_SQL = "SELECT * FROM redblack_headline"

LIST_SQL = """
SELECT i.k, i.p1, i.p2, i.cycle_id, i.period, i.rounds_before_cycle, i.found_by,
       CASE WHEN c.complete THEN 'complete' ELSE 'partial' END AS list
FROM redblack_infinite i
LEFT JOIN redblack_coverage c USING (k)
ORDER BY i.k, i.p1, i.p2
"""

CYCLES_SQL = """
SELECT k, cycle_id, period, colour_symmetric, basin_states, basin_complete, basin_depth,
       balanced_deals_canonical, balanced_deals_total, infinite_known, found_by, deals_met
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

# The coverage table's columns (markdown.COVERAGE_COLUMNS puts the cost to finish, from cost.py,
# before the last: the view's own core_hours_left leaves the windows' measured miss out)
COVERAGE_SQL = """
SELECT k, cards, canonical_deals, ranks_searched, share_searched, prefix_done, complete,
       1e9 * cpu_s_per_round AS ns_per_round, rounds_per_deal, 1e9 * cpu_s_per_deal AS ns_per_deal,
       sample_core_hours_left
FROM redblack_coverage ORDER BY k
"""

# A size's cost windows, summed up (views.sql redblack_window_cost): ns of CPU per deal, its
# 95 % interval and the spread between windows; and the windows one by one, for the figure.
WINDOW_COST_SQL = """
SELECT k, windows, windows_searched, window_deals, deals, cpu_s, t95, rounds_per_deal, startup_cpu_s, probes,
       machine, 1e9 * cpu_s_per_deal AS ns_per_deal, 1e9 * lo95_cpu_s_per_deal AS lo95_ns_per_deal,
       1e9 * hi95_cpu_s_per_deal AS hi95_ns_per_deal, 1e9 * min_cpu_s_per_deal AS min_ns_per_deal,
       1e9 * median_cpu_s_per_deal AS median_ns_per_deal, 1e9 * max_cpu_s_per_deal AS max_ns_per_deal
FROM redblack_window_cost ORDER BY k
"""

# The cost windows in the ranks left, per size and kind of CPU (engines/redblack/report/cost.py):
# CPU seconds per deal, mean and spread; rates measured on two kinds never pool into one.
WINDOWS_LEFT_SQL = """
SELECT k, machine, count(*) AS windows, avg(cpu_s_per_deal) AS cpu_s_per_deal, stddev_samp(cpu_s_per_deal) AS sd,
       student_t95(count(*) - 1) AS t95
FROM redblack_cost_windows WHERE NOT campaign_searched
GROUP BY k, machine HAVING count(*) >= 2 ORDER BY k, machine
"""

# Per size, kind of CPU that timed campaign shards (machine) and kind that timed the cost windows
# (window_machine): the windows whose ranks those shards have searched, beside what all of that kind's
# shards of the size took; what they took over what the windows predict is the windows' measured miss.
WINDOW_CHECKS_SQL = """
WITH shards AS (
    SELECT k, range_start, range_stop, deals, cpu_s, machine FROM redblack_campaign_shards WHERE machine IS NOT NULL
), w AS (
    SELECT x.k, s.machine, x.machine AS window_machine, count(DISTINCT x.draw) AS windows,
           avg(x.cpu_s_per_deal) AS cpu_s_per_deal, stddev_samp(x.cpu_s_per_deal) AS sd
    FROM redblack_cost_windows x
    JOIN shards s ON s.k = x.k AND s.range_start <= x.range_start AND x.range_stop <= s.range_stop
    WHERE x.campaign_searched AND x.machine IS NOT NULL
    GROUP BY x.k, s.machine, x.machine HAVING count(*) >= 2
), c AS (
    SELECT k, machine, count(*) AS shards, sum(deals) AS deals, sum(cpu_s) AS cpu_s FROM shards GROUP BY k, machine
)
SELECT w.k, w.machine, w.window_machine, w.windows, w.cpu_s_per_deal, w.sd, student_t95(w.windows - 1) AS t95,
       c.shards, c.deals, c.cpu_s AS taken_cpu_s
FROM w JOIN c USING (k, machine) ORDER BY w.k, w.machine, w.window_machine
"""

DEALS_LEFT_SQL = "SELECT k, deals_left FROM redblack_coverage WHERE NOT complete ORDER BY k"

# the campaign shards of each size with cost windows, timed on the windows' kind of CPU (their
# costs are comparable only there), for the cost figure
CAMPAIGN_SHARD_COSTS_SQL = """
WITH m AS (SELECT k, any_value(machine) AS machine FROM redblack_cost_windows GROUP BY k)
SELECT s.k, s.range_start, s.range_stop, s.deals, 1e9 * s.cpu_s_per_deal AS ns_per_deal
FROM redblack_campaign_shards s JOIN m ON s.k = m.k AND s.machine = m.machine
WHERE s.deals > 0 ORDER BY s.k, s.range_start
"""

COST_WINDOWS_SQL = """
SELECT k, draw, range_start, range_stop, deals, 1e9 * cpu_s_per_deal AS ns_per_deal, rounds_per_deal,
       campaign_searched
FROM redblack_cost_windows ORDER BY k, draw
"""

# Every known infinite deal of one size, with its certificate and how it was found.
FULL_DECK_SQL = """
SELECT p1, p2, cycle_id, period, rounds_before_cycle, found_by
FROM redblack_infinite WHERE k = ?
ORDER BY CASE found_by WHEN 'exhaustive' THEN 0 WHEN 'sample' THEN 1 WHEN 'basin' THEN 2 WHEN 'audit' THEN 3
         ELSE 4 END, p1, p2
"""

AUDIT_SQL = """
SELECT experiment, k, listed, confirmed_infinite, listed_finite, missing, cycles, exhaustive_complete
FROM redblack_audit_summary ORDER BY experiment, k
"""

# Each audited list beside the complete lists of the sizes searched completely (views.sql).
PUBLISHED_CHECK_SQL = """
SELECT experiment, k, complete, search_infinite, listed, confirmed, listed_finite, listed_not_found, missed,
       cycles, new_cycles, new_cycle_ids, new_cycle_deals
FROM redblack_published_check ORDER BY experiment, k
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
KNOWN_CYCLES_SQL = (
    "SELECT cycle_id, basin_complete, found_by, deals_met FROM redblack_cycles WHERE k = ? ORDER BY cycle_id"
)
SEARCHED_RANGES_SQL = "SELECT range_start, range_stop FROM redblack_searched_ranges WHERE k = ? ORDER BY range_start"
# Sizes searched in part (campaigns in progress and measured costs), the full deck aside
PARTIAL_SIZES_SQL = "SELECT k FROM redblack_coverage WHERE NOT complete AND cost_from IS NOT NULL AND k <> ? ORDER BY k"

Con = duckdb.DuckDBPyConnection

# The report's named queries (``STATUS_SQL`` is ``status``), as its GameReport declares them
QUERIES = {name.removesuffix("_SQL").lower(): sql for name, sql in list(globals().items()) if name.endswith("_SQL")}


def headline(con: Con) -> dict:
    return one(con, HEADLINE_SQL)


def status_by_k(con: Con) -> dict[int, dict]:
    return {s["k"]: s for s in records(con, BY_SIZE_SQL)}


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


def known_cycles(con: Con, k: int) -> list[dict]:
    """The cycles known at size k (any way found), each with the rank of its smallest known balanced
    deal and whether that is the smallest of its basin (a basin walked whole: by an audit, which
    refuses a cut basin, or by a basin job that finished it) and whether a search shard met it."""
    deals = infinite_by_k(con).get(k, [])
    out = []
    for c in records(con, KNOWN_CYCLES_SQL, [k]):
        mine = [d for d in deals if d["cycle_id"] == c["cycle_id"]]
        if mine:
            smallest = min(mine, key=lambda d: rank_deal(d["p1"], d["p2"]))
            whole = bool(c["basin_complete"]) or "audit" in c["found_by"]
            out.append({**c, "rank": rank_deal(smallest["p1"], smallest["p2"]), "basin_whole": whole})
    return out


def searched_ranges(con: Con, k: int) -> list[tuple[int, int]]:
    """The ranks of size k searched exhaustively, as disjoint [start, stop) ranges in order."""
    return [(int(a), int(b)) for a, b in con.execute(SEARCHED_RANGES_SQL, [k]).fetchall()]


def partial_sizes(con: Con, full_deck: int = FULL_DECK) -> list[int]:
    """Sizes searched in part with a measured cost to finish, other than the full deck."""
    return [int(k) for (k,) in con.execute(PARTIAL_SIZES_SQL, [full_deck]).fetchall()]


def window_costs(con: Con) -> list[dict]:
    return records(con, WINDOW_COST_SQL)


def window_cost(con: Con, k: int) -> dict:
    """One size's row of :func:`window_costs`; empty without two timed cost windows."""
    return next((r for r in window_costs(con) if r["k"] == k), {})


def windows_left(con: Con) -> list[dict]:
    return records(con, WINDOWS_LEFT_SQL)


def window_checks(con: Con) -> list[dict]:
    return records(con, WINDOW_CHECKS_SQL)


def deals_left(con: Con) -> dict[int, int]:
    """Deals left per size searched in part."""
    return {int(r["k"]): int(r["deals_left"]) for r in records(con, DEALS_LEFT_SQL)}


def cost_windows(con: Con) -> list[dict]:
    return records(con, COST_WINDOWS_SQL)


def campaign_shard_costs(con: Con) -> list[dict]:
    """Each size's campaign shards timed on the kind of CPU of its cost windows: ranks and ns per deal."""
    return records(con, CAMPAIGN_SHARD_COSTS_SQL)


def sample_bounds(con: Con, k: int) -> list[dict]:
    return records(con, SAMPLE_BOUND_SQL, [k])


def audit(con: Con) -> list[dict]:
    return records(con, AUDIT_SQL)


def published_checks(con: Con) -> list[dict]:
    return records(con, PUBLISHED_CHECK_SQL)


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
