"""The report's campaigns in progress: where the search is sure to meet each cycle already known."""

from __future__ import annotations

import duckdb
from wfhelp import shards_warehouse

from engines.redblack import canonical_deals, play, unrank_deal
from engines.redblack.report import queries as q
from engines.redblack.report.markdown import known_cycles_text

CYCLE = "10/1011000110"  # one of the two cycles of k = 6; the other's smallest deal has rank 41


def test_a_known_cycle_is_placed_at_its_smallest_basin_deal(tmp_path):
    section = {"exhaustive": [{"k": [6], "method": "owner", "deals_per_shard": 30, "ranks": [0, 30]}], "basins": True}
    con = duckdb.connect(str(shards_warehouse("redblack", section, tmp_path)))
    try:
        (c,) = q.known_cycles(con, 6)
        ranges = q.searched_ranges(con, 6)
    finally:
        con.close()
    reaching = [r for r in range(canonical_deals(6)) if play(*unrank_deal(6, r)).cycle_id == CYCLE]
    assert (c["cycle_id"], c["rank"], c["basin_whole"]) == (CYCLE, min(reaching), True)
    assert c["deals_met"] >= 1 and ranges == [(0, 30)]
    others = [
        {**c, "cycle_id": "x/y", "deals_met": 0, "rank": 41},
        {**c, "cycle_id": "u/v", "deals_met": 0, "rank": 10},
        {**c, "cycle_id": "w/z", "deals_met": 0, "rank": 50, "basin_whole": False},
    ]
    text = known_cycles_text([c, *others], ranges)
    assert f"`{CYCLE}` at rank {min(reaching)} (met by a search shard)" in text
    assert "`x/y` at rank 41 (not searched yet)" in text
    assert "`u/v` at rank 10 (searched, yet not met: a contradiction to look into)" in text
    assert "`w/z` at a rank at most 50 (basin cut) (not searched yet)" in text
    assert "(4 cycles)" in text
