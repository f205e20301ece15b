"""RedBlack through the workflow's pieces: plan -> shards -> basin job -> warehouse views -> report."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from wfhelp import shards_warehouse

from engines import redblack as rb
from engines.core.errors import CardlabError
from engines.pipeline.planning.plan import validate_config
from engines.registry import engine

SECTION = {
    "exhaustive": {"k": [3, 6], "method": "brute", "deals_per_shard": 200},
    "basins": True,
    "experiments": [
        {"name": "tiny", "k": 6, "deals": 3000, "shards": 2, "seed": 11, "balanced": False},
        {"name": "big", "k": 26, "deals": 500, "shards": 1, "seed": 12},
    ],
}


def test_section_is_valid_and_plan_covers_every_rank_once():
    validate_config({"redblack": SECTION})
    specs = engine("redblack").plan(SECTION)
    for k in (3, 6):
        ranges = sorted(s["range"] for s in specs if s["kind"] == "exhaustive" and s["k"] == k)
        assert ranges[0][0] == 0 and ranges[-1][1] == rb.canonical_deals(k)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert len([s for s in specs if s["kind"] == "exhaustive" and s["k"] == 6]) == 3  # 462 / 200
    samples = [s for s in specs if s["kind"] == "sample"]
    assert len({s["seed"] for s in samples}) == len(samples) == 3
    assert (
        specs[-1]["kind"] == "basin"
        and len(engine("redblack").kind_of(specs[-1]).inputs(specs[-1], specs)) == len(specs) - 1
    )
    assert engine("redblack").plan(SECTION) == specs  # deterministic


@pytest.mark.parametrize(
    "bad",
    [
        {"exhaustive": {"k_max": 27}},
        {"exhaustive": {"k": [3], "k_max": 4}},
        {"experiments": [{"name": "exhaustive_k03", "k": 3, "deals": 1, "seed": 1}]},
        {"experiments": [{"name": "x", "k": 0, "deals": 1, "seed": 1}]},
        {"basin": True},
    ],
)
def test_bad_sections_are_rejected(bad):
    with pytest.raises(CardlabError):
        validate_config({"redblack": bad})


def test_k_min_above_k_max_is_an_error():
    with pytest.raises(CardlabError, match="k_min"):
        engine("redblack").plan({"exhaustive": {"k_min": 5, "k_max": 4}})


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("rb")
    return root, shards_warehouse("redblack", SECTION, root)


def test_views_hold_the_complete_lists(warehouse):
    import duckdb

    root, db = warehouse
    con = duckdb.connect(str(db), read_only=True)
    try:
        for k in (3, 6):
            expected = sorted(
                (d["p1"], d["p2"], d["cycle_id"], d["rounds_before_cycle"]) for d in rb.search(k).infinite
            )
            got = con.execute(
                "SELECT p1, p2, cycle_id, rounds_before_cycle FROM redblack_infinite WHERE k = ? ORDER BY p1, p2", [k]
            ).fetchall()
            assert got == expected
            row = con.execute(
                "SELECT deals, complete, infinite_canonical, infinite_total FROM redblack_summary "
                "WHERE k = ? AND method = 'exhaustive'",
                [k],
            ).fetchone()
            assert row == (rb.canonical_deals(k), "yes", len(expected), 2 * len(expected))
        found_by = dict(con.execute("SELECT found_by, count(*) FROM redblack_infinite GROUP BY ALL").fetchall())
        assert set(found_by) <= {"exhaustive", "sample", "basin"}
        cycles = con.execute("SELECT cycle_id, period, basin_complete FROM redblack_cycles WHERE k = 6").fetchall()
        assert cycles and all(c[2] for c in cycles)
        for cid, period, _ in cycles:
            leader, other = rb.parse_cycle_id(cid)
            assert rb.play(leader, other).period == period
        total = con.execute("SELECT sum(deals) FROM redblack_lengths WHERE k = 6 AND method = 'exhaustive'").fetchone()[
            0
        ]
        assert total == rb.search(6).finite
    finally:
        con.close()


def test_report_writes_the_list_from_sql(warehouse, tmp_path):
    from engines.pipeline.catalog.warehouse import connect
    from engines.report.common import build_game

    root, db = warehouse
    con = connect(db)
    try:
        files = build_game("redblack", con, tmp_path)
    finally:
        con.close()
    names = {Path(f).name for f in files}
    assert {"infinite_games.md", "infinite_games.csv", "redblack_infinite_share.png", "redblack_lengths.png"} <= names
    rows = list(csv.DictReader(open(tmp_path / "infinite_games.csv")))
    k6 = [r for r in rows if r["k"] == "6"]
    assert len(k6) == len(rb.search(6).infinite) and all(r["list"] == "complete" for r in k6)
    md = (tmp_path / "infinite_games.md").read_text()
    for r in k6:
        assert f"{r['p1']} {r['p2']}" in md
    assert (tmp_path / "redblack_lengths.png").stat().st_size > 1000
