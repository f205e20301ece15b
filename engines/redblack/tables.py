"""RedBlack's Parquet tables: what each shard kind writes (engine.py composes the kinds that write them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

# The columns that name a search shard, first in each of its tables. ``method``: exhaustive or
# sample; ``algorithm``: how deals were played, brute (every game to its end) or owner (a deal
# stops when a smaller deal provably reaches the same state; finite counts, lengths and the
# longest game then cover only games played to the end).
SEARCH_SHARD_COLUMNS = [
    ("experiment", pa.string()),
    ("method", pa.string()),
    ("algorithm", pa.string()),
    ("k", pa.int32()),
    ("balanced", pa.bool_()),
    ("shard", pa.int32()),
]

TABLES: dict[str, pa.Schema] = {
    # one row per search shard (exhaustive rank range or sample index range)
    "redblack_counts": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("range_start", pa.int64()),
            ("range_stop", pa.int64()),
            ("space", pa.int64()),  # canonical balanced deals of size k (exhaustive), else deals drawn
            ("deals", pa.int64()),
            ("finite", pa.int64()),
            ("infinite", pa.int64()),
            ("longest_rounds", pa.int32()),
            ("longest_p1", pa.string()),
            ("longest_p2", pa.string()),
            # owner rule: deals stopped because a smaller deal reaches the same state
            ("stopped", pa.int64()),
            ("rounds", pa.int64()),
        ]
    ),
    # histogram of rounds to finish (finite games only), per search shard
    "redblack_hist": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("rounds", pa.int32()),
            ("deals", pa.int64()),
        ]
    ),
    # one row per infinite deal met by a search shard (canonical form)
    "redblack_found": pa.schema(
        SEARCH_SHARD_COLUMNS
        + [
            ("deal_index", pa.int64()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("cycle_id", pa.string()),
            ("rounds_before_cycle", pa.int32()),
            ("period", pa.int32()),
        ]
    ),
    # one row per cycle whose basin a basin job enumerated
    "redblack_basins": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("cards", pa.int32()),
            ("cycle_id", pa.string()),
            ("period", pa.int32()),
            ("colour_symmetric", pa.bool_()),
            ("basin_states", pa.int64()),
            ("basin_complete", pa.bool_()),
            ("basin_depth", pa.int32()),
            ("balanced_deals", pa.int64()),  # canonical balanced deals in the basin
        ]
    ),
    # every canonical balanced deal in the basins, with its cycle
    "redblack_basin_deals": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("cycle_id", pa.string()),
            ("rounds_before_cycle", pa.int32()),
        ]
    ),
    # one row per deal of an audited list (as listed), then one per infinite deal the list misses
    # in the basins of the cycles its deals reach (canonical form)
    "redblack_audit": pa.schema(
        [
            ("experiment", pa.string()),
            ("k", pa.int32()),
            ("p1", pa.string()),
            ("p2", pa.string()),
            ("status", pa.string()),  # listed-infinite, listed-finite, missing
            ("cycle_id", pa.string()),
            ("period", pa.int32()),
            ("rounds", pa.int32()),  # before the cycle, or to the end of a finite game
        ]
    ),
}
# the views of engines/redblack/views.sql take the plain names (redblack_cycles, redblack_lengths, ...)
SEARCH_TABLES = ("redblack_counts", "redblack_hist", "redblack_found")
BASIN_TABLES = ("redblack_basins", "redblack_basin_deals")
AUDIT_TABLES = ("redblack_audit",)


def columns(table: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, list]:
    """A table's columns from rows keyed by column name (no rows: the table's columns, empty)."""
    return {c: [r[c] for r in rows] for c in TABLES[table].names}
